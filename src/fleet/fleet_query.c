/* The fleet's questions answered from the store alone (no log is read): the worst attempts by
 * a figure, and totals per user, queue, platform or name, as text tables, CSV or JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/fleet.h"
#include "clarity/report.h"
#include "fleet/fleet_internal.h"
#include "report/table.h"
#include "util/jsonw.h"

void clarity_fleet_integrity_words(uint32_t bits, char *buf, size_t cap)
{
    static const char *const words[] = {"in-progress", "truncated", "compacted", "missing-rolling-part",
                                        "malformed-lines", "dropped-task-ends", "no-task-events", "values-out-of-range"};
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (bits & (1u << i) && n < cap) n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? "," : "", words[i]);
    if (!n) snprintf(buf, cap, "ok");
}

/* RFC 4180 quoting: names and actions hold commas and quotes. */
const char *clarity_fleet__or_dash(const char *s)
{
    return s && *s ? s : "-";
}

struct top { char kind[40]; double ch; };

static int first_finding(void *ctx, const struct clarity_store_finding *f)
{
    struct top *t = ctx;
    snprintf(t->kind, sizeof t->kind, "%s", f->kind);
    return 1;
}

struct apps_ctx {
    FILE *o;
    struct clarity_store *s;
    enum clarity_fleet_format fmt;
    struct table t;
    struct jsonw *w;
    size_t nfind;
    size_t n, flagged;
    int rc;
    struct clarity_error *err;
};

static const char *top_kind(struct apps_ctx *c, const struct clarity_store_app *a, struct top *t)
{
    t->kind[0] = '\0';
    int rc = clarity_store_findings_each(c->s, a->row_id, first_finding, t, c->err);
    if (rc != 0 && rc != 1) c->rc = rc;
    return t->kind;
}

static int app_text(struct apps_ctx *c, const struct clarity_store_app *a)
{
    char id[200], st[40], d[32], ch[24], ih[24], gc[16], sv[24];
    struct top t;
    snprintf(id, sizeof id, "%s%s%s", a->app_id, a->attempt_id ? "/" : "", a->attempt_id ? a->attempt_id : "");
    clarity_fmt_time(st, sizeof st, a->start_ms);
    if (strlen(st) > 10) st[10] = '\0';   /* the day: the table must fit 100 columns */
    if (a->completed) clarity_fmt_ms(d, sizeof d, a->duration_ms);
    else snprintf(d, sizeof d, "running");
    snprintf(ch, sizeof ch, "%.2f", a->core_hours);
    snprintf(ih, sizeof ih, "%.2f", a->idle_core_hours);
    snprintf(gc, sizeof gc, "%.1f", 100 * a->gc_share);
    snprintf(sv, sizeof sv, "%.2f", a->top_saving_core_hours);
    top_kind(c, a, &t);
    if (a->integrity) c->flagged++;
    const char *row[] = {id, clarity_fleet__or_dash(a->name), st, d, ch, ih, gc, sv, clarity_fleet__or_dash(t.kind)};
    clarity_table_row(&c->t, row);
    return 0;
}

/* CSV cells, each followed by sep (',' between cells, '\n' after the row's last) */
static void csv_cells(FILE *o, const char *const *cells, size_t n, int last_sep)
{
    for (size_t i = 0; i < n; i++) {
        clarity_csv_str(o, cells[i]);
        fputc(i + 1 < n ? ',' : last_sep, o);
    }
}

static void app_csv(FILE *o, struct apps_ctx *c, const struct clarity_store_app *a)
{
    struct top t;
    char fl[200];
    top_kind(c, a, &t);
    clarity_fleet_integrity_words(a->integrity, fl, sizeof fl);
    const char *const names[] = {a->app_id, a->attempt_id, a->name, a->user, a->queue, a->platform, a->spark_version};
    csv_cells(o, names, sizeof names / sizeof *names, ',');
    fprintf(o, "%lld,%lld,%lld,%d,%lld,%.6f,%.6f,%.6f,%lld,%lld,%lld,%.6f,", (long long)a->start_ms,
            (long long)a->end_ms, (long long)a->duration_ms, a->completed, (long long)a->cores, a->core_hours,
            a->idle_core_hours, a->gc_share, (long long)a->tasks, (long long)a->failed_tasks, (long long)a->top_saving_ms,
            a->top_saving_core_hours);
    const char *const tail[] = {t.kind, fl, a->log_path};
    csv_cells(o, tail, sizeof tail / sizeof *tail, '\n');
}

struct fjs { struct jsonw *w; size_t left; };

static int finding_json(void *ctx, const struct clarity_store_finding *f)
{
    struct fjs *j = ctx;
    if (!j->left) return 1;
    j->left--;
    struct jsonw *w = j->w;
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "rank", f->rank);
    clarity_jsonw_kstr(w, "kind", f->kind);
    clarity_jsonw_kstr(w, "where", f->where);
    clarity_jsonw_kint(w, "saving_ms", f->saving_ms);
    clarity_jsonw_kdouble(w, "saving_core_hours", f->saving_core_hours);
    clarity_jsonw_kstr(w, "basis", f->basis);
    clarity_jsonw_kstr(w, "action", f->action);
    clarity_jsonw_obj_end(w);
    return 0;
}

static void app_json(struct apps_ctx *c, const struct clarity_store_app *a)
{
    struct jsonw *w = c->w;
    char fl[200];
    clarity_fleet_integrity_words(a->integrity, fl, sizeof fl);
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "app_id", a->app_id);
    clarity_jsonw_key(w, "attempt_id");
    if (a->attempt_id) clarity_jsonw_str(w, a->attempt_id);
    else clarity_jsonw_null(w);
    clarity_jsonw_kstr(w, "name", a->name);
    clarity_jsonw_kstr(w, "user", a->user);
    clarity_jsonw_key(w, "queue");
    if (a->queue) clarity_jsonw_str(w, a->queue);
    else clarity_jsonw_null(w);
    clarity_jsonw_kstr(w, "platform", a->platform);
    clarity_jsonw_kstr(w, "spark_version", a->spark_version);
    clarity_jsonw_kint(w, "start_ms", a->start_ms);
    clarity_jsonw_kint(w, "end_ms", a->end_ms);
    clarity_jsonw_kint(w, "duration_ms", a->duration_ms);
    clarity_jsonw_kbool(w, "completed", a->completed);
    clarity_jsonw_kint(w, "cores", a->cores);
    clarity_jsonw_kdouble(w, "core_hours", a->core_hours);
    clarity_jsonw_kdouble(w, "idle_core_hours", a->idle_core_hours);
    clarity_jsonw_kdouble(w, "gc_share", a->gc_share);
    clarity_jsonw_kint(w, "tasks", a->tasks);
    clarity_jsonw_kint(w, "failed_tasks", a->failed_tasks);
    clarity_jsonw_kstr(w, "integrity", fl);
    clarity_jsonw_kint(w, "top_saving_ms", a->top_saving_ms);
    clarity_jsonw_kdouble(w, "top_saving_core_hours", a->top_saving_core_hours);
    clarity_jsonw_kstr(w, "log", a->log_path);
    clarity_jsonw_kstr(w, "log_state", a->log_state == CLARITY_STORE_LOG_DELETED ? "deleted" : "ok");
    clarity_jsonw_key(w, "findings");
    clarity_jsonw_arr_begin(w);
    struct fjs j = {w, c->nfind};
    int rc = clarity_store_findings_each(c->s, a->row_id, finding_json, &j, c->err);
    if (rc != 0 && rc != 1) c->rc = rc;
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
}

static int app_cb(void *ctx, const struct clarity_store_app *a)
{
    struct apps_ctx *c = ctx;
    c->n++;
    if (c->fmt == CLARITY_FLEET_TEXT) app_text(c, a);
    else if (c->fmt == CLARITY_FLEET_CSV) app_csv(c->o, c, a);
    else app_json(c, a);
    return c->rc ? 2 : 0;
}

static const struct table_col APP_COLS[] = {
    {"application", TCOL_ID}, {"name", TCOL_NAME}, {"started", TCOL_FIXED}, {"duration", TCOL_NUM},
    {"core-h", TCOL_NUM}, {"idle", TCOL_NUM}, {"GC %", TCOL_NUM}, {"saving", TCOL_NUM},
    {"top finding", TCOL_NAME},
};

static int apps(FILE *o, struct jsonw *w, struct clarity_store *s, const struct clarity_fleet_query *q,
                enum clarity_fleet_format fmt, struct clarity_error *err)
{
    struct apps_ctx c = {.o = o, .s = s, .fmt = fmt, .w = w, .nfind = q->findings_per_app ? q->findings_per_app : 3,
                         .err = err};
    clarity_table_init(&c.t, APP_COLS, sizeof APP_COLS / sizeof *APP_COLS);
    if (fmt == CLARITY_FLEET_CSV)
        fputs("app_id,attempt_id,name,user,queue,platform,spark_version,start_ms,end_ms,duration_ms,completed,cores,"
              "core_hours,idle_core_hours,gc_share,tasks,failed_tasks,top_saving_ms,top_saving_core_hours,"
              "top_finding,integrity,log\n", o);
    if (w) clarity_jsonw_arr_begin(w);
    int rc = clarity_store_apps_each(s, &q->filter, app_cb, &c, err);
    if (rc == 2) rc = c.rc;
    if (w) clarity_jsonw_arr_end(w);
    if (!rc && fmt == CLARITY_FLEET_TEXT) {
        if (clarity_table_write(o, &c.t, 0, q->width))
            rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the table");
        else
            clarity_fit_wrapf(o, q->width, "",
                              "%zu attempt(s), %zu with integrity flags (--csv or --json lists them). core-h: "
                              "executor cores x the time they were held; idle: core-hours of those running no task; "
                              "saving: core-hours the largest finding would save, estimated (replay, bound or "
                              "estimate: see --json or clarity findings); started: UTC day.",
                              c.n, c.flagged);
    }
    clarity_table_free(&c.t);
    return rc;
}

static const char *const GROUP_NAMES[] = {"user", "queue", "platform", "name"};

struct tot_ctx { FILE *o; struct jsonw *w; enum clarity_fleet_format fmt; struct table t; size_t n, limit; };

static void total_csv(FILE *o, const struct clarity_store_total *t)
{
    clarity_csv_str(o, t->key);
    fprintf(o, ",%lld,%lld,%lld,%lld,%lld,%.6f,%.6f,%.6f,%.6f,%lld,%lld\n", (long long)t->runs, (long long)t->completed,
            (long long)t->tasks, (long long)t->failed_tasks, (long long)t->duration_ms, t->core_hours,
            t->idle_core_hours, t->saving_core_hours, t->gc_share, (long long)t->first_start_ms,
            (long long)t->last_start_ms);
}

static int total_cb(void *ctx, const struct clarity_store_total *t)
{
    struct tot_ctx *c = ctx;
    if (c->limit && c->n >= c->limit) return 1;
    c->n++;
    if (c->fmt == CLARITY_FLEET_JSON) {
        struct jsonw *w = c->w;
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "key", t->key);
        clarity_jsonw_kint(w, "runs", t->runs);
        clarity_jsonw_kint(w, "completed", t->completed);
        clarity_jsonw_kint(w, "tasks", t->tasks);
        clarity_jsonw_kint(w, "failed_tasks", t->failed_tasks);
        clarity_jsonw_kint(w, "duration_ms", t->duration_ms);
        clarity_jsonw_kdouble(w, "core_hours", t->core_hours);
        clarity_jsonw_kdouble(w, "idle_core_hours", t->idle_core_hours);
        clarity_jsonw_kdouble(w, "saving_core_hours", t->saving_core_hours);
        clarity_jsonw_kdouble(w, "mean_gc_share", t->gc_share);
        clarity_jsonw_kint(w, "first_start_ms", t->first_start_ms);
        clarity_jsonw_kint(w, "last_start_ms", t->last_start_ms);
        clarity_jsonw_obj_end(w);
    } else if (c->fmt == CLARITY_FLEET_CSV) {
        total_csv(c->o, t);
    } else {
        char runs[24], ch[24], ih[24], idle[16], gc[16], sv[24], d[32];
        snprintf(runs, sizeof runs, "%lld", (long long)t->runs);
        snprintf(ch, sizeof ch, "%.2f", t->core_hours);
        snprintf(ih, sizeof ih, "%.2f", t->idle_core_hours);
        snprintf(idle, sizeof idle, "%.0f", t->core_hours > 0 ? 100 * t->idle_core_hours / t->core_hours : 0);
        snprintf(gc, sizeof gc, "%.1f", 100 * t->gc_share);
        snprintf(sv, sizeof sv, "%.2f", t->saving_core_hours);
        const char *row[] = {clarity_fleet__or_dash(t->key), runs, ch, ih, idle, gc, sv,
                             clarity_fmt_ms(d, sizeof d, t->duration_ms)};
        clarity_table_row(&c->t, row);
    }
    return 0;
}

static int totals(FILE *o, struct jsonw *w, struct clarity_store *s, const struct clarity_fleet_query *q,
                  enum clarity_fleet_format fmt, struct clarity_error *err)
{
    const char *by = GROUP_NAMES[q->by <= CLARITY_STORE_BY_NAME ? q->by : 0];
    const struct table_col cols[] = {{by, TCOL_NAME},      {"runs", TCOL_NUM}, {"core-h", TCOL_NUM},
                                     {"idle core-h", TCOL_NUM}, {"idle %", TCOL_NUM}, {"mean GC %", TCOL_NUM},
                                     {"saving core-h", TCOL_NUM}, {"run time", TCOL_NUM}};
    struct tot_ctx c = {.o = o, .w = w, .fmt = fmt, .limit = q->filter.limit > 0 ? (size_t)q->filter.limit : 0};
    clarity_table_init(&c.t, cols, sizeof cols / sizeof *cols);
    if (fmt == CLARITY_FLEET_CSV)
        fprintf(o, "%s,runs,completed,tasks,failed_tasks,duration_ms,core_hours,idle_core_hours,saving_core_hours,"
                   "mean_gc_share,first_start_ms,last_start_ms\n", by);
    if (w) {
        clarity_jsonw_kstr(w, "by", by);
        clarity_jsonw_key(w, "totals");
        clarity_jsonw_arr_begin(w);
    }
    int rc = clarity_store_totals_each(s, q->by, &q->filter, total_cb, &c, err);
    if (rc == 1) rc = 0;
    if (w) clarity_jsonw_arr_end(w);
    if (!rc && fmt == CLARITY_FLEET_TEXT) {
        if (clarity_table_write(o, &c.t, 0, q->width))
            rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the table");
        else
            clarity_fit_wrapf(o, q->width, "",
                              "%zu %s(s), largest core-hours first. run time: the runs' durations summed; saving "
                              "core-h: each run's largest finding, summed (estimates: see clarity findings).",
                              c.n, by);
    }
    clarity_table_free(&c.t);
    return rc;
}

int clarity_fleet_query_write(FILE *o, struct clarity_store *s, const struct clarity_fleet_query *q,
                              enum clarity_fleet_format fmt, struct clarity_error *err)
{
    int rc;
    switch (q->view) {
    case CLARITY_FLEET_TOTALS: rc = totals(o, NULL, s, q, fmt, err); break;
    case CLARITY_FLEET_RECURRING: rc = clarity_fleet__recurring(o, NULL, s, q, fmt, err); break;
    default: rc = apps(o, NULL, s, q, fmt, err); break;
    }
    return rc ? rc : clarity_report_status(o, err);
}

int clarity_fleet_query_json(struct jsonw *w, struct clarity_store *s, const struct clarity_fleet_query *q,
                             struct clarity_error *err)
{
    static const char *const views[] = {"apps", "totals", "recurring"};
    clarity_jsonw_kstr(w, "view", views[q->view <= CLARITY_FLEET_RECURRING ? q->view : 0]);
    if (q->filter.has_min_start) clarity_jsonw_kint(w, "since_ms", q->filter.min_start_ms);
    switch (q->view) {
    case CLARITY_FLEET_TOTALS: return totals(NULL, w, s, q, CLARITY_FLEET_JSON, err);
    case CLARITY_FLEET_RECURRING: return clarity_fleet__recurring(NULL, w, s, q, CLARITY_FLEET_JSON, err);
    default:
        clarity_jsonw_key(w, "apps");
        return apps(NULL, w, s, q, CLARITY_FLEET_JSON, err);
    }
}

void clarity_fleet_stats_json(struct jsonw *w, const struct clarity_fleet_stats *st)
{
    clarity_jsonw_kstr(w, "view", "index");
    clarity_jsonw_key(w, "stats");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "entries", (int64_t)st->entries);
    clarity_jsonw_kint(w, "unchanged", (int64_t)st->unchanged);
    clarity_jsonw_kint(w, "new", (int64_t)st->fresh);
    clarity_jsonw_kint(w, "grown", (int64_t)st->grown);
    clarity_jsonw_kint(w, "changed", (int64_t)st->changed);
    clarity_jsonw_kint(w, "deleted", (int64_t)st->deleted);
    clarity_jsonw_kint(w, "read", (int64_t)st->read);
    clarity_jsonw_kint(w, "unreadable", (int64_t)st->unreadable);
    clarity_jsonw_kint(w, "apps", (int64_t)st->apps);
    clarity_jsonw_kint(w, "findings", (int64_t)st->findings);
    clarity_jsonw_kint(w, "bytes_read", (int64_t)st->bytes_read);
    clarity_jsonw_kint(w, "bytes_new", (int64_t)st->bytes_new);
    clarity_jsonw_kdouble(w, "list_seconds", st->list_s);
    clarity_jsonw_kdouble(w, "check_seconds", st->check_s);
    clarity_jsonw_kdouble(w, "read_seconds", st->read_s);
    clarity_jsonw_obj_end(w);
}
