/* Applications as FsHistoryProvider lists them: attempts of one app id grouped, newest start
 * first; lastUpdated is the log's modification time, as SHS takes it from the file system. */
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "shs/shs_internal.h"

static int64_t mtime_ms(const char *path)
{
    struct stat st;
    if (!path || stat(path, &st) != 0) return 0;
    return (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
}

void shs_attempt_write(struct shs_ctx *c, const struct clarity_app *a)
{
    struct jsonw *w = c->w;
    bool completed = a->end_ms != 0;
    int64_t end = completed ? a->end_ms : -1;
    int64_t updated = mtime_ms(a->source_path);
    jsonw_obj_begin(w);
    if (a->attempt_id) shs_kstr_id(w, a, "attemptId", a->attempt_id);
    shs_kdate(w, "startTime", a->start_ms);
    shs_kdate(w, "endTime", end);
    shs_kdate(w, "lastUpdated", updated);
    jsonw_kint(w, "duration", completed ? a->end_ms - a->start_ms : 0);
    if (a->user) shs_kstr_id(w, a, "sparkUser", a->user);
    jsonw_kbool(w, "completed", completed);
    jsonw_kstr(w, "appSparkVersion", a->spark_version ? clarity_app_str(a, a->spark_version) : "");
    jsonw_kint(w, "endTimeEpoch", end);
    jsonw_kint(w, "startTimeEpoch", a->start_ms);
    jsonw_kint(w, "lastUpdatedEpoch", updated);
    jsonw_obj_end(w);
}

void shs_app_write(struct shs_ctx *c, const struct shs_app_entry *e)
{
    struct jsonw *w = c->w;
    const struct clarity_app *a = e->att[0];
    jsonw_obj_begin(w);
    jsonw_kstr(w, "id", e->id);
    jsonw_kstr(w, "name", a->name ? clarity_app_str(a, a->name) : "");
    jsonw_key(w, "attempts");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < e->natt; i++) shs_attempt_write(c, e->att[i]);
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

static int64_t end_key(const struct shs_app_entry *e)
{
    return e->att[0]->end_ms ? e->att[0]->end_ms : -1;
}

static int cmp_app(const void *x, const void *y)
{
    const struct shs_app_entry *a = x, *b = y;
    int64_t ea = end_key(a), eb = end_key(b);
    if (ea != eb) return ea < eb ? 1 : -1;   /* the "endTime" index, read in reverse */
    return -strcmp(a->id, b->id);
}

enum shs_status shs_app_list(struct shs_ctx *c, struct shs_app_entry *apps, size_t n)
{
    const char *st[8];
    char scratch[256];
    size_t nst = shs_query_list(c->q, "status", st, 8, scratch, sizeof scratch);
    bool running = !nst, completed = !nst;
    for (size_t i = 0; i < nst; i++) {
        if (!strcasecmp(st[i], "running")) running = true;
        else if (!strcasecmp(st[i], "completed")) completed = true;
        else return shs_fail(c, SHS_BAD_PATH, "bad application status '%s'", st[i]);
    }
    int64_t limit = INT64_MAX;
    const char *v = shs_query_get(c->q, "limit");
    if (v) {
        char *end;
        limit = strtoll(v, &end, 10);
        if (!*v || *end) return shs_fail(c, SHS_BAD_PATH, "bad limit '%s'", v);
    }
    qsort(apps, n, sizeof *apps, cmp_app);
    jsonw_arr_begin(c->w);
    int64_t shown = 0;
    for (size_t i = 0; i < n && shown < limit; i++) {
        bool any_running = !apps[i].att[0]->end_ms;
        if ((any_running && !running) || (!any_running && !completed)) continue;
        shs_app_write(c, &apps[i]);
        shown++;
    }
    jsonw_arr_end(c->w);
    return SHS_OK;
}
