/* Applications as FsHistoryProvider lists them: attempts of one app id grouped, newest start
 * first; lastUpdated is the log's modification time, as SHS takes it from the file system. */
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "shs/shs_internal.h"
#include "clarity/shs.h"
#include "util/jsonw.h"

static int64_t mtime_ms(const char *path)
{
    struct stat st;
    if (!path || stat(path, &st) != 0) return 0;
    return (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
}

static void attempt_write(struct jsonw *w, const struct clarity_app *a)
{
    bool completed = a->end_ms != 0;
    int64_t end = completed ? a->end_ms : -1;
    int64_t updated = mtime_ms(a->source_path);
    clarity_jsonw_obj_begin(w);
    if (a->attempt_id) clarity__shs_kstr_id(w, a, "attemptId", a->attempt_id);
    clarity__shs_kdate(w, "startTime", a->start_ms);
    clarity__shs_kdate(w, "endTime", end);
    clarity__shs_kdate(w, "lastUpdated", updated);
    int64_t duration = 0;   /* 0 also when impossible times (INT64 extremes) overflow the difference */
    if (completed && __builtin_sub_overflow(a->end_ms, a->start_ms, &duration)) duration = 0;
    clarity_jsonw_kint(w, "duration", duration);
    if (a->user) clarity__shs_kstr_id(w, a, "sparkUser", a->user);
    clarity_jsonw_kbool(w, "completed", completed);
    clarity_jsonw_kstr(w, "appSparkVersion", a->spark_version ? clarity_app_str(a, a->spark_version) : "");
    clarity_jsonw_kint(w, "endTimeEpoch", end);
    clarity_jsonw_kint(w, "startTimeEpoch", a->start_ms);
    clarity_jsonw_kint(w, "lastUpdatedEpoch", updated);
    clarity_jsonw_obj_end(w);
}

static void app_write(struct jsonw *w, const struct shs_app_entry *e)
{
    const struct clarity_app *a = e->att[0];
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "id", e->id);
    clarity_jsonw_kstr(w, "name", a->name ? clarity_app_str(a, a->name) : "");
    clarity_jsonw_key(w, "attempts");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < e->natt; i++) attempt_write(w, e->att[i]);
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
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

int clarity__shs_app_list(struct shs_req *r)
{
    bool running = !r->p->nstatus, completed = !r->p->nstatus;
    for (size_t i = 0; i < r->p->nstatus; i++) {
        if (!strcasecmp(r->p->status[i], "running")) running = true;
        else completed = true;
    }
    qsort(r->apps, r->napps, sizeof *r->apps, cmp_app);
    clarity_jsonw_arr_begin(r->w);
    int64_t shown = 0;
    for (size_t i = 0; i < r->napps && shown < r->p->limit; i++) {
        bool any_running = !r->apps[i].att[0]->end_ms;
        if ((any_running && !running) || (!any_running && !completed)) continue;
        app_write(r->w, &r->apps[i]);
        shown++;
    }
    clarity_jsonw_arr_end(r->w);
    return CLARITY_OK;
}

int clarity__shs_app_one(struct shs_req *r)
{
    app_write(r->w, r->entry);
    return CLARITY_OK;
}

int clarity__shs_attempt_one(struct shs_req *r)
{
    attempt_write(r->w, r->app);
    return CLARITY_OK;
}

int clarity_shs_attempt_json(const struct clarity_app *a, char **out, size_t *len, struct clarity_error *err)
{
    *out = NULL;
    *len = 0;
    FILE *f = open_memstream(out, len);
    if (!f) return clarity_error_set(err, CLARITY_ENOMEM, a->source_path, 0, 0, "out of memory");
    struct jsonw w;
    clarity_jsonw_init(&w, f, false);
    attempt_write(&w, a);
    clarity_jsonw_flush(&w);
    bool bad = ferror(f);
    if (fclose(f) != 0 || bad || !*out) {
        free(*out);
        *out = NULL;
        return clarity_error_set(err, CLARITY_ENOMEM, a->source_path, 0, 0, "out of memory");
    }
    return CLARITY_OK;
}
