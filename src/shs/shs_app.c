/* Applications as FsHistoryProvider lists them: attempts of one app id grouped, newest start
 * first; lastUpdated is the log's modification time, as SHS takes it from the file system.
 * Written from attempt rows (struct clarity_shs_attempt_info), so a server can list from its
 * store what clarity api lists from loaded models, through the same filter and writer. */
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "shs/shs_internal.h"
#include "clarity/shs.h"
#include "util/jsonw.h"

static int64_t mtime_ms(const char *path)
{
    struct stat st;
    if (!path || stat(path, &st) != 0) return 0;
    return (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
}

void clarity_shs_attempt_info_of(const struct clarity_app *a, struct clarity_shs_attempt_info *out)
{
    *out = (struct clarity_shs_attempt_info){
        .app_id = a->app_id ? clarity_app_str(a, a->app_id) : "",
        .attempt_id = a->attempt_id ? clarity_app_str(a, a->attempt_id) : NULL,
        .name = a->name ? clarity_app_str(a, a->name) : NULL,
        .user = a->user ? clarity_app_str(a, a->user) : NULL,
        .spark_version = a->spark_version ? clarity_app_str(a, a->spark_version) : NULL,
        .start_ms = a->start_ms,
        .end_ms = a->end_ms,
        .last_updated_ms = mtime_ms(a->source_path),
    };
}

static void attempt_write(struct jsonw *w, const struct clarity_shs_attempt_info *a)
{
    bool completed = a->end_ms != 0;
    int64_t end = completed ? a->end_ms : -1;
    clarity_jsonw_obj_begin(w);
    if (a->attempt_id) clarity_jsonw_kstr(w, "attemptId", a->attempt_id);
    clarity__shs_kdate(w, "startTime", a->start_ms);
    clarity__shs_kdate(w, "endTime", end);
    clarity__shs_kdate(w, "lastUpdated", a->last_updated_ms);
    int64_t duration = 0;   /* 0 also when impossible times (INT64 extremes) overflow the difference */
    if (completed && __builtin_sub_overflow(a->end_ms, a->start_ms, &duration)) duration = 0;
    clarity_jsonw_kint(w, "duration", duration);
    if (a->user) clarity_jsonw_kstr(w, "sparkUser", a->user);
    clarity_jsonw_kbool(w, "completed", completed);
    clarity_jsonw_kstr(w, "appSparkVersion", a->spark_version ? a->spark_version : "");
    clarity_jsonw_kint(w, "endTimeEpoch", end);
    clarity_jsonw_kint(w, "startTimeEpoch", a->start_ms);
    clarity_jsonw_kint(w, "lastUpdatedEpoch", a->last_updated_ms);
    clarity_jsonw_obj_end(w);
}

int clarity_shs_attempt_info_write(FILE *out, const struct clarity_shs_attempt_info *a, bool pretty)
{
    struct jsonw w;
    clarity_jsonw_init(&w, out, pretty);
    attempt_write(&w, a);
    clarity_jsonw_end(&w);
    clarity_jsonw_flush(&w);
    return ferror(out) ? CLARITY_EIO : CLARITY_OK;
}

/* One application: att holds its attempts, newest start first. */
static void app_write(struct jsonw *w, const struct clarity_shs_attempt_info *const *att, size_t natt)
{
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "id", att[0]->app_id);
    clarity_jsonw_kstr(w, "name", att[0]->name ? att[0]->name : "");
    clarity_jsonw_key(w, "attempts");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < natt; i++) attempt_write(w, att[i]);
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
}

/* ---- the filter ---- */

void clarity__shs_app_filter_from(const struct shs_params *p, struct clarity_shs_app_filter *f)
{
    f->running = f->completed = !p->nstatus;
    for (size_t i = 0; i < p->nstatus; i++) {
        if (!strcasecmp(p->status[i], "running")) f->running = true;
        else f->completed = true;
    }
    f->min_start_ms = p->min_start;
    f->max_start_ms = p->max_start;
    f->min_end_ms = p->min_end;
    f->max_end_ms = p->max_end;
    f->limit = p->limit;
}

int clarity_shs_app_filter_parse(const char *query, struct clarity_shs_app_filter *f, struct clarity_error *err)
{
    struct clarity_error local;
    if (!err) err = &local;
    clarity_error_clear(err);
    struct shs_req r = {.err = err};
    struct shs_params p;
    int rc = clarity__shs_params_parse(&r, query, SHS_Q_APP_STATUS | SHS_Q_APP_DATES | SHS_Q_LIMIT, &p);
    if (rc) return rc;
    clarity__shs_app_filter_from(&p, f);
    return CLARITY_OK;
}

bool clarity_shs_app_filter_match(const struct clarity_shs_app_filter *f, const struct clarity_shs_attempt_info *const *att,
                                  size_t natt, int64_t now_ms)
{
    /* an application with a running newest attempt is running */
    bool any_running = natt == 0 || !att[0]->end_ms;
    if ((any_running && !f->running) || (!any_running && !f->completed)) return false;
    /* kept when any attempt falls in the windows; a running attempt has no end, so it passes the
     * end window only while maxEndDate is in the future */
    for (size_t i = 0; i < natt; i++) {
        const struct clarity_shs_attempt_info *a = att[i];
        bool start_ok = a->start_ms >= f->min_start_ms && a->start_ms <= f->max_start_ms;
        bool end_ok = any_running ? f->max_end_ms > now_ms : a->end_ms >= f->min_end_ms && a->end_ms <= f->max_end_ms;
        if (start_ok && end_ok) return true;
    }
    return false;
}

/* ---- the listing ---- */

static int cmp_att(const void *x, const void *y)
{
    const struct clarity_shs_attempt_info *a = *(const struct clarity_shs_attempt_info *const *)x;
    const struct clarity_shs_attempt_info *b = *(const struct clarity_shs_attempt_info *const *)y;
    int d = strcmp(a->app_id, b->app_id);
    if (d) return d;
    if (a->start_ms != b->start_ms) return a->start_ms < b->start_ms ? 1 : -1;   /* newest first */
    /* ties: a stable order whatever order the rows came in */
    return strcmp(a->attempt_id ? a->attempt_id : "", b->attempt_id ? b->attempt_id : "");
}

struct group { const struct clarity_shs_attempt_info *const *att; size_t n; };

static int64_t end_key(const struct group *g) { return g->att[0]->end_ms ? g->att[0]->end_ms : -1; }

static int cmp_group(const void *x, const void *y)
{
    const struct group *a = x, *b = y;
    int64_t ea = end_key(a), eb = end_key(b);
    if (ea != eb) return ea < eb ? 1 : -1;   /* the "endTime" index, read in reverse */
    return -strcmp(a->att[0]->app_id, b->att[0]->app_id);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Writes the listing of rows under f. */
static int list_write(struct jsonw *w, const struct clarity_shs_attempt_info *rows, size_t n,
                      const struct clarity_shs_app_filter *f)
{
    const struct clarity_shs_attempt_info **att = malloc((n ? n : 1) * sizeof *att);
    struct group *g = malloc((n ? n : 1) * sizeof *g);
    if (!att || !g) {
        free(att);
        free(g);
        return -1;
    }
    for (size_t i = 0; i < n; i++) att[i] = &rows[i];
    qsort(att, n, sizeof *att, cmp_att);
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || strcmp(att[i]->app_id, att[i - 1]->app_id)) g[ng++] = (struct group){att + i, 0};
        g[ng - 1].n++;
    }
    qsort(g, ng, sizeof *g, cmp_group);
    int64_t now = now_ms(), shown = 0;
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < ng && shown < f->limit; i++) {
        if (!clarity_shs_app_filter_match(f, g[i].att, g[i].n, now)) continue;
        app_write(w, g[i].att, g[i].n);
        shown++;
    }
    clarity_jsonw_arr_end(w);
    free(att);
    free(g);
    return 0;
}

int clarity__shs_app_list(struct shs_req *r)
{
    struct clarity_shs_app_filter f;
    clarity__shs_app_filter_from(r->p, &f);
    size_t n = 0;
    for (size_t i = 0; i < r->napps; i++) n += r->apps[i].natt;
    struct clarity_shs_attempt_info *rows = malloc((n ? n : 1) * sizeof *rows);
    if (!rows) return clarity__shs_oom(r);
    size_t k = 0;
    for (size_t i = 0; i < r->napps; i++)
        for (size_t j = 0; j < r->apps[i].natt; j++) clarity_shs_attempt_info_of(r->apps[i].att[j], &rows[k++]);
    int rc = list_write(r->w, rows, n, &f);
    free(rows);
    return rc ? clarity__shs_oom(r) : CLARITY_OK;
}

int clarity_shs_applications_to(const struct clarity_shs_attempt_info *att, size_t n, const char *query, bool pretty,
                                FILE *out, int *status, struct clarity_error *err)
{
    struct clarity_shs_app_filter f;
    int rc = clarity_shs_app_filter_parse(query, &f, err);
    if (rc) {
        *status = rc == CLARITY_ENOMEM ? 500 : 400;
        return rc;
    }
    struct jsonw w;
    char buf[1 << 16];
    clarity_jsonw_init(&w, out, pretty);
    clarity_jsonw_buffer(&w, buf, sizeof buf);
    if (list_write(&w, att, n, &f)) {
        *status = 500;
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    }
    clarity_jsonw_end(&w);
    clarity_jsonw_flush(&w);
    *status = 200;
    return CLARITY_OK;
}

static const struct clarity_shs_attempt_info **entry_rows(const struct shs_app_entry *e,
                                                          struct clarity_shs_attempt_info *rows)
{
    const struct clarity_shs_attempt_info **att = malloc((e->natt ? e->natt : 1) * sizeof *att);
    if (!att) return NULL;
    for (size_t i = 0; i < e->natt; i++) {
        clarity_shs_attempt_info_of(e->att[i], &rows[i]);
        att[i] = &rows[i];
    }
    return att;
}

int clarity__shs_app_one(struct shs_req *r)
{
    struct clarity_shs_attempt_info *rows = malloc((r->entry->natt ? r->entry->natt : 1) * sizeof *rows);
    const struct clarity_shs_attempt_info **att = rows ? entry_rows(r->entry, rows) : NULL;
    if (att) app_write(r->w, att, r->entry->natt);
    free(att);
    free(rows);
    return att ? CLARITY_OK : clarity__shs_oom(r);
}

int clarity__shs_attempt_one(struct shs_req *r)
{
    struct clarity_shs_attempt_info row;
    clarity_shs_attempt_info_of(r->app, &row);
    attempt_write(r->w, &row);
    return CLARITY_OK;
}

int clarity_shs_attempt_json(const struct clarity_app *a, char **out, size_t *len, struct clarity_error *err)
{
    *out = NULL;
    *len = 0;
    FILE *f = open_memstream(out, len);
    if (!f) return clarity_error_set(err, CLARITY_ENOMEM, a->source_path, 0, 0, "out of memory");
    struct clarity_shs_attempt_info row;
    clarity_shs_attempt_info_of(a, &row);
    struct jsonw w;
    clarity_jsonw_init(&w, f, false);
    attempt_write(&w, &row);
    clarity_jsonw_flush(&w);
    bool bad = ferror(f);
    if (fclose(f) != 0 || bad || !*out) {
        free(*out);
        *out = NULL;
        return clarity_error_set(err, CLARITY_ENOMEM, a->source_path, 0, 0, "out of memory");
    }
    return CLARITY_OK;
}
