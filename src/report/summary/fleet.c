/* The fleet table: one row per application, for History Server directories of many. */
#include <stdlib.h>
#include <string.h>
#include "clarity/blocked.h"
#include "clarity/report.h"
#include "report/table.h"

/* Executor capacity in core-ms: each executor's cores from when it was added until it was
 * removed, or until the application's last event. */
static double capacity_core_ms(const struct clarity_app *a)
{
    int64_t end = a->end_ms ? a->end_ms : clarity_app_last_time_ms(a);
    double sum = 0;
    /* local mode: the driver's cores ran the tasks, from the application's start */
    int32_t local = clarity_app_local_cores(a);
    if (local && end > a->start_ms) return (double)local * (double)(end - a->start_ms);
    for (size_t i = 0; i < a->nexecs; i++) {
        const struct clarity_executor *e = &a->execs[i];
        if (e->is_driver || !e->add_ms) continue;
        int64_t until = e->remove_ms ? e->remove_ms : end;
        if (until > e->add_ms) sum += (double)e->total_cores * (double)(until - e->add_ms);
    }
    return sum;
}

static int top_blocked(struct fleet_row *r, const struct clarity_app *a, struct clarity_error *err)
{
    r->top_blocked = "";
    struct clarity_blocked_result br;
    int rc = clarity_blocked_analyze(a, CLARITY_GROUP_APP, CLARITY_SLOTS_OBSERVED, 0, &br, err);
    if (rc) return rc;
    for (size_t g = 0; g < br.ngroups; g++)
        for (int res = 0; res < CLARITY_RES_COUNT; res++) {
            /* "all non-CPU" is a bound over every resource, not one to name */
            if (res == CLARITY_RES_NON_CPU || !br.groups[g].without[res].available) continue;
            double imp = br.groups[g].without[res].improvement;
            if (imp > r->top_blocked_improvement) {
                r->top_blocked_improvement = imp;
                r->top_blocked = clarity_resource_name((enum clarity_resource)res);
            }
        }
    clarity_blocked_free(&br);
    return 0;
}

int clarity_fleet_row_fill(struct fleet_row *r, const struct clarity_app *a, struct clarity_error *err)
{
    memset(r, 0, sizeof *r);
    r->source = a->source_path;
    r->app_id = clarity_app_str(a, a->app_id);
    r->name = clarity_app_str(a, a->name);
    r->user = clarity_app_str(a, a->user);
    r->attempt = clarity_app_str(a, a->attempt_id);
    r->start_ms = a->start_ms;
    r->duration_ms = clarity_app_duration_ms(a);
    for (size_t i = 0; i < a->nexecs; i++)
        if (!a->execs[i].is_driver) {
            r->executors++;
            r->cores += a->execs[i].total_cores;
        }
    int32_t local = clarity_app_local_cores(a);
    if (local) r->cores = local;
    struct clarity_app_totals t;
    if (clarity_totals_compute(a, &t) != 0)
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory computing totals");
    r->tasks = t.app.tasks;
    r->failed_tasks = t.app.failed + t.app.killed;
    r->core_hours_used = (double)t.app.task_ms / 3.6e6;
    double cap = capacity_core_ms(a) / 3.6e6;
    r->core_hours_idle = cap > r->core_hours_used ? cap - r->core_hours_used : 0;
    r->gc_share = t.app.run_ms ? (double)t.app.gc_ms / (double)t.app.run_ms : 0;
    r->shuffle_bytes = t.app.shuffle_read_bytes;
    clarity_totals_free(&t);
    clarity_report_integrity_flags(a, r->flags, sizeof r->flags);
    return top_blocked(r, a, err);
}

int clarity_fleet_sort_parse(const char *s)
{
    static const char *names[] = {"source", "start", "duration", "name", "core-hours", "idle", "gc", "shuffle", "tasks"};
    for (int i = 0; i < (int)(sizeof names / sizeof *names); i++)
        if (!strcmp(s, names[i])) return i;
    return -1;
}

static int cmp_num(double a, double b) { return (a < b) - (a > b); }   /* descending */

static int cmp_rows(const void *x, const void *y, void *ctx)
{
    const struct fleet_row *a = x, *b = y;
    enum clarity_fleet_sort sort_key = *(const enum clarity_fleet_sort *)ctx;
    /* failed rows sink to the end, in source order */
    if (!!a->error != !!b->error) return a->error ? 1 : -1;
    int c = 0;
    switch (sort_key) {
    case FLEET_SORT_SOURCE: break;
    case FLEET_SORT_START: c = (a->start_ms > b->start_ms) - (a->start_ms < b->start_ms); break;
    case FLEET_SORT_DURATION: c = cmp_num((double)a->duration_ms, (double)b->duration_ms); break;
    case FLEET_SORT_NAME: c = strcmp(a->name ? a->name : "", b->name ? b->name : ""); break;
    case FLEET_SORT_CORE_HOURS: c = cmp_num(a->core_hours_used, b->core_hours_used); break;
    case FLEET_SORT_IDLE: c = cmp_num(a->core_hours_idle, b->core_hours_idle); break;
    case FLEET_SORT_GC: c = cmp_num(a->gc_share, b->gc_share); break;
    case FLEET_SORT_SHUFFLE: c = cmp_num((double)a->shuffle_bytes, (double)b->shuffle_bytes); break;
    case FLEET_SORT_TASKS: c = cmp_num((double)a->tasks, (double)b->tasks); break;
    }
    return c ? c : strcmp(a->source, b->source);
}

void clarity_fleet_sort(struct fleet_row *rows, size_t n, enum clarity_fleet_sort key)
{
    qsort_r(rows, n, sizeof *rows, cmp_rows, &key);
}

static const char *or_dash(const char *s) { return s && *s ? s : "-"; }

/* The file an application came from, without the directory every row shares: the rows of
 * one application id (attempts, copies) differ there. */
static const char *source_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (slash && !slash[1]) {
        /* a directory named with a trailing slash: its own name */
        while (slash > path && slash[-1] != '/') slash--;
        return slash;
    }
    return slash ? slash + 1 : or_dash(path);
}

/* Three tables, what ran, what it cost and where it came from, each fitting the width (one
 * table of every column would need twice a terminal's width); applications that could not be
 * read follow in a fourth. */
int clarity_report_fleet_text(FILE *o, const struct fleet_row *rows, size_t n, size_t width, struct clarity_error *err)
{
    static const struct table_col ran[] = {{"application", TCOL_ID},    {"name", TCOL_NAME},    {"start (UTC)", TCOL_FIXED},
                                           {"duration", TCOL_NUM},      {"execs", TCOL_NUM},    {"cores", TCOL_NUM},
                                           {"tasks", TCOL_NUM}};
    static const struct table_col cost[] = {{"application", TCOL_ID}, {"user", TCOL_NAME},       {"core-h", TCOL_NUM},
                                            {"idle core-h", TCOL_NUM}, {"GC %", TCOL_NUM},        {"shuffle", TCOL_NUM},
                                            {"top blocked", TCOL_FIXED}};
    static const struct table_col from[] = {{"application", TCOL_ID}, {"integrity", TCOL_NAME}, {"source", TCOL_NAME}};
    static const struct table_col bad[] = {{"source", TCOL_NAME}, {"could not be read", TCOL_NAME}};
    struct table t1, t2, t3, t4;
    clarity_table_init(&t1, ran, sizeof ran / sizeof *ran);
    clarity_table_init(&t2, cost, sizeof cost / sizeof *cost);
    clarity_table_init(&t4, from, sizeof from / sizeof *from);
    clarity_table_init(&t3, bad, sizeof bad / sizeof *bad);
    size_t failed = 0;
    for (size_t i = 0; i < n; i++) {
        const struct fleet_row *r = &rows[i];
        if (r->error) {
            failed++;
            const char *row[] = {r->source, r->error};
            clarity_table_row(&t3, row);
            continue;
        }
        char d[32], st[40], sh[32], tb[40], id[160], ex[16], co[16], tk[24], ch[24], ih[24], gc[16];
        snprintf(id, sizeof id, "%s%s%s", or_dash(r->app_id), r->attempt && *r->attempt ? "/" : "", r->attempt ? r->attempt : "");
        clarity_fmt_time(st, sizeof st, r->start_ms);
        if (strlen(st) > 19) st[19] = '\0';
        if (*r->top_blocked) snprintf(tb, sizeof tb, "%s %.0f%%", r->top_blocked, 100 * r->top_blocked_improvement);
        else snprintf(tb, sizeof tb, "-");
        snprintf(ex, sizeof ex, "%d", r->executors);
        snprintf(co, sizeof co, "%d", r->cores);
        snprintf(tk, sizeof tk, "%lld", (long long)r->tasks);
        snprintf(ch, sizeof ch, "%.2f", r->core_hours_used);
        snprintf(ih, sizeof ih, "%.2f", r->core_hours_idle);
        snprintf(gc, sizeof gc, "%.1f", 100 * r->gc_share);
        const char *a1[] = {id, or_dash(r->name), st, clarity_fmt_ms(d, sizeof d, r->duration_ms), ex, co, tk};
        clarity_table_row(&t1, a1);
        const char *a2[] = {id, or_dash(r->user), ch, ih, gc, clarity_fmt_bytes(sh, sizeof sh, r->shuffle_bytes), tb};
        clarity_table_row(&t2, a2);
        const char *a4[] = {id, r->flags, source_name(r->source)};
        clarity_table_row(&t4, a4);
    }
    int rc = 0;
    if (n > failed) {
        rc |= clarity_table_write(o, &t1, 0, width);
        fputc('\n', o);
        rc |= clarity_table_write(o, &t2, 0, width);
        fputc('\n', o);
        rc |= clarity_table_write(o, &t4, 0, width);
    }
    if (failed) {
        if (n > failed) fputc('\n', o);
        rc |= clarity_table_write(o, &t3, 0, width);
    }
    clarity_table_free(&t1);
    clarity_table_free(&t2);
    clarity_table_free(&t3);
    clarity_table_free(&t4);
    if (rc) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the table");
    fprintf(o, "\n%zu application(s), %zu failed to load.\n"
               "core-h: task time in core-hours; idle core-h: executor cores x lifetime minus task time\n"
               "(driver excluded, but for local mode where it runs the tasks); top blocked: blocked-time\n"
               "analysis, application level.\n", n, failed);
    return clarity_report_status(o, err);
}

/* RFC 4180 quoting: names and errors can hold commas and quotes. */
int clarity_report_fleet_csv(FILE *o, const struct fleet_row *rows, size_t n, struct clarity_error *err)
{
    fputs("source,app_id,name,user,start_ms,duration_ms,executors,cores,tasks,failed_tasks,core_hours_used,"
          "core_hours_idle,gc_share,shuffle_read_bytes,top_blocked,top_blocked_improvement,integrity,error,attempt\n", o);
    for (size_t i = 0; i < n; i++) {
        const struct fleet_row *r = &rows[i];
        clarity_csv_str(o, r->source);
        fputc(',', o);
        clarity_csv_str(o, r->app_id);
        fputc(',', o);
        clarity_csv_str(o, r->name);
        fputc(',', o);
        clarity_csv_str(o, r->user);
        if (r->error) fprintf(o, ",,,,,,,,,,,,,,");
        else
            fprintf(o, ",%lld,%lld,%d,%d,%lld,%lld,%.6f,%.6f,%.6f,%lld,%s,%.6f,%s,", (long long)r->start_ms,
                    (long long)r->duration_ms, r->executors, r->cores, (long long)r->tasks, (long long)r->failed_tasks,
                    r->core_hours_used, r->core_hours_idle, r->gc_share, (long long)r->shuffle_bytes, r->top_blocked,
                    r->top_blocked_improvement, r->flags);
        clarity_csv_str(o, r->error);
        fputc(',', o);   /* added last, so a reader of the earlier columns is not moved */
        clarity_csv_str(o, r->attempt);
        fputc('\n', o);
    }
    return clarity_report_status(o, err);
}
