/* The terminal view of one application: header, jobs, stages, executors, SQL, integrity. */
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/report.h"
#include "report/table.h"

#define S(id) clarity_app_str(a, (id))

static const char *job_status(int s)
{
    static const char *n[] = {"RUNNING", "SUCCEEDED", "FAILED", "UNKNOWN"};
    return (unsigned)s <= CLARITY_JOB_UNKNOWN ? n[s] : "?";
}

static void more_rows(FILE *o, size_t shown, size_t total)
{
    if (shown < total) fprintf(o, "  ... %zu more (--limit 0 shows all)\n", total - shown);
}

/* Why a log has no CPU time: no task ran, or a Spark before 2.1 (which did not log it). A
 * newer Spark that left it out is said as such, not blamed on the version. */
static const char *cpu_missing(const struct clarity_app *a, const struct clarity_app_totals *t)
{
    if (!t->app.tasks) return "- (no task ran)";
    const char *v = a->spark_version ? S(a->spark_version) : "";
    int major = 0, minor = 0;
    if (sscanf(v, "%d.%d", &major, &minor) == 2 && (major > 2 || (major == 2 && minor >= 1)))
        return "not in the task metrics";
    return "not logged (Spark < 2.1)";
}

/* A Photon figure, or "not in this log" when no plan of the log defines its metric. */
static const char *photon_fig(char *buf, size_t cap, const struct clarity_platform *p, int m, bool bytes)
{
    if (!p->photon_has[m]) return "not in this log";
    int64_t v = p->photon_v[m];
    if (bytes) return clarity_fmt_bytes(buf, cap, v);
    return clarity_fmt_ms(buf, cap, m == CLARITY_PH_FETCH_WAIT_MS ? v : v / 1000000);
}

static void platform_lines(FILE *o, const struct clarity_app *a, size_t width)
{
    const struct clarity_platform *p = &a->platform;
    char b1[160], b2[160];
    clarity_fit_line(o, width, "platform     %s", clarity_report_platform(a, b1, sizeof b1));
    clarity_fit_line(o, width, "storage      input %s; output %s", clarity_report_storage(p, false, b1, sizeof b1),
                     clarity_report_storage(p, true, b2, sizeof b2));
    if (!p->photon) return;
    char c[6][32];
    clarity_fit_wrapf(o, width, "photon       ", "SQL metrics: scan I/O wait %s, cloud storage read %s, cache hits %s",
            photon_fig(c[0], 32, p, CLARITY_PH_SCAN_IO_WAIT_NS, false), photon_fig(c[1], 32, p, CLARITY_PH_SCAN_CLOUD_BYTES, true),
            photon_fig(c[2], 32, p, CLARITY_PH_SCAN_CACHE_HIT_BYTES, true));
    clarity_fit_wrapf(o, width, "             ", "shuffle write %s in %s, read %s remote + %s local, fetch wait %s",
            photon_fig(c[3], 32, p, CLARITY_PH_SHUFFLE_WRITE_BYTES, true), photon_fig(c[4], 32, p, CLARITY_PH_SHUFFLE_WRITE_NS, false),
            photon_fig(c[5], 32, p, CLARITY_PH_SHUFFLE_REMOTE_BYTES, true),
            photon_fig(b1, 32, p, CLARITY_PH_SHUFFLE_LOCAL_BYTES, true), photon_fig(b2, 32, p, CLARITY_PH_FETCH_WAIT_MS, false));
}

static void header(FILE *o, const struct clarity_app *a, const struct clarity_app_totals *t, size_t width)
{
    char b1[64], b2[64], b3[64];
    int cores = 0;
    size_t nexec = 0;
    for (size_t i = 0; i < a->nexecs; i++)
        if (!a->execs[i].is_driver) {
            nexec++;
            cores += a->execs[i].total_cores;
        }
    clarity_fit_line(o, width, "application  %s%s%s  user %s  Spark %s", S(a->app_id), a->attempt_id ? " attempt " : "",
             S(a->attempt_id), a->user ? S(a->user) : "?", a->spark_version ? S(a->spark_version) : "unknown");
    clarity_fit_line(o, width, "name         \"%s\"", S(a->name));
    clarity_fit_line(o, width, "source       %s", a->source_path);
    platform_lines(o, a, width);
    fprintf(o, "time         %s .. %s UTC  (%s%s)\n", clarity_fmt_time(b1, sizeof b1, a->start_ms),
            a->end_ms ? clarity_fmt_time(b2, sizeof b2, a->end_ms) : "no end", clarity_fmt_ms(b3, sizeof b3, clarity_app_duration_ms(a)),
            a->end_ms ? "" : ", to the last event seen");
    int32_t local = clarity_app_local_cores(a);
    if (local) fprintf(o, "executors    none: local mode, the driver runs the tasks on %d cores\n", local);
    else fprintf(o, "executors    %zu (%d cores)\n", nexec, cores);
    fprintf(o, "jobs         %zu   stages %zu   SQL queries %zu\n", a->njobs, a->nstages, a->nsqls);
    fprintf(o, "tasks        %lld attempts: %lld succeeded, %lld failed, %lld killed, %lld without end, %lld speculative\n",
            (long long)t->app.tasks, (long long)t->app.succeeded, (long long)t->app.failed, (long long)t->app.killed,
            (long long)t->app.running, (long long)t->app.speculative);
    double gc = t->app.run_ms ? 100.0 * (double)t->app.gc_ms / (double)t->app.run_ms : 0;
    fprintf(o, "task time    %s in tasks; run %s, GC %s (%.1f%% of run), CPU %s\n", clarity_fmt_ms(b1, sizeof b1, t->app.task_ms),
            clarity_fmt_ms(b2, sizeof b2, t->app.run_ms), clarity_fmt_ms(b3, sizeof b3, t->app.gc_ms), gc,
            t->app.cpu_logged ? clarity_fmt_ms((char[64]){0}, 64, t->app.cpu_ns / 1000000) : cpu_missing(a, t));
    /* Photon spills outside the JVM: task metrics say 0 whatever happened, so the figure is
     * Photon's own or, without it, absent */
    const struct clarity_platform *p = &a->platform;
    char spill[96];
    if (!p->photon) snprintf(spill, sizeof spill, "spilled %s to disk", clarity_fmt_bytes(b1, sizeof b1, t->app.disk_spilled));
    else if (p->photon_has[CLARITY_PH_SPILL_BYTES])
        snprintf(spill, sizeof spill, "spilled %s to disk (Photon SQL metrics)",
                 clarity_fmt_bytes(b1, sizeof b1, p->photon_v[CLARITY_PH_SPILL_BYTES]));
    else snprintf(spill, sizeof spill, "spill not in this log (Photon)");
    clarity_fit_wrapf(o, width, "data         ", "input %s, output %s; shuffle read %s, write %s; %s",
            clarity_fmt_bytes(b1, sizeof b1, t->app.input_bytes), clarity_fmt_bytes(b2, sizeof b2, t->app.output_bytes),
            clarity_fmt_bytes(b3, sizeof b3, t->app.shuffle_read_bytes), clarity_fmt_bytes((char[64]){0}, 64, t->app.shuffle_write_bytes),
            spill);
}

/* Writes a gathered table fitted to the width; a failed allocation is remembered and reported
 * once the summary is written. */
static void put(FILE *o, struct table *tb, size_t width, bool *oom)
{
    if (clarity_table_write(o, tb, 2, width)) *oom = true;
    clarity_table_free(tb);
}

static void jobs(FILE *o, const struct clarity_app *a, const struct clarity_app_totals *t, size_t limit, size_t width,
                 bool *oom)
{
    static const struct table_col cols[] = {{"id", TCOL_NUM},     {"status", TCOL_FIXED}, {"duration", TCOL_NUM},
                                            {"stages", TCOL_NUM}, {"tasks", TCOL_NUM},    {"failed", TCOL_NUM},
                                            {"sql", TCOL_NUM},    {"name", TCOL_NAME}};
    struct table tb;
    clarity_table_init(&tb, cols, sizeof cols / sizeof *cols);
    size_t shown = 0;
    for (size_t i = 0; i < a->njobs && (!limit || shown < limit); i++, shown++) {
        const struct clarity_job *j = &a->jobs[i];
        char id[24], d[32], st[24], tk[24], fl[24], sql[24] = "-";
        if (j->sql_id >= 0) snprintf(sql, sizeof sql, "%lld", (long long)j->sql_id);
        snprintf(id, sizeof id, "%lld", (long long)j->job_id);
        snprintf(st, sizeof st, "%zu", j->nstage_ids);
        struct clarity_totals jt;
        clarity_totals_job(t, i, &jt);
        snprintf(tk, sizeof tk, "%lld", (long long)jt.tasks);
        snprintf(fl, sizeof fl, "%lld", (long long)(jt.failed + jt.killed));
        const char *row[] = {id, job_status(j->status), clarity_fmt_ms(d, sizeof d, clarity_job_duration_ms(a, j)),
                             st, tk, fl, sql, S(j->name)};
        clarity_table_row(&tb, row);
    }
    fprintf(o, "\njobs\n");
    put(o, &tb, width, oom);
    more_rows(o, shown, a->njobs);
}

/* Stage rows, most task run time first: the stages that cost the most come before the rest
 * (the table is cut at --limit rows). */
static int by_run_time(const void *x, const void *y, void *ctx)
{
    const int64_t *run = ctx;   /* per stage row */
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    if (run[i] != run[j]) return run[i] < run[j] ? 1 : -1;
    return (i > j) - (i < j);
}

static void stages(FILE *o, const struct clarity_app *a, const struct clarity_app_totals *t, size_t limit, size_t width,
                   bool *oom)
{
    /* two tables, time and data, each fitting a terminal with room for the stage's name */
    static const struct table_col time_cols[] = {
        {"id.att", TCOL_NUM}, {"status", TCOL_FIXED}, {"duration", TCOL_NUM}, {"tasks", TCOL_NUM},
        {"failed", TCOL_NUM}, {"task run", TCOL_NUM}, {"GC", TCOL_NUM},       {"name", TCOL_NAME}};
    static const struct table_col data_cols[] = {
        {"id.att", TCOL_NUM},    {"input", TCOL_NUM},      {"output", TCOL_NUM},     {"shuf read", TCOL_NUM},
        {"shuf write", TCOL_NUM}, {"spill disk", TCOL_NUM}, {"name", TCOL_NAME}};
    size_t *order = malloc((a->nstages ? a->nstages : 1) * sizeof *order);
    int64_t *run = malloc((a->nstages ? a->nstages : 1) * sizeof *run);   /* the stage totals are packed */
    if (!order || !run) {
        free(order);
        free(run);
        *oom = true;
        return;
    }
    for (size_t i = 0; i < a->nstages; i++) {
        struct clarity_totals x;
        clarity_totals_stage(t, i, &x);
        order[i] = i;
        run[i] = x.run_ms;
    }
    qsort_r(order, a->nstages, sizeof *order, by_run_time, run);
    free(run);
    struct table tt, td;
    clarity_table_init(&tt, time_cols, sizeof time_cols / sizeof *time_cols);
    clarity_table_init(&td, data_cols, sizeof data_cols / sizeof *data_cols);
    size_t shown = 0;
    for (size_t k = 0; k < a->nstages && (!limit || shown < limit); k++, shown++) {
        size_t i = order[k];
        const struct clarity_stage *s = &a->stages[i];
        struct clarity_totals xt;
        clarity_totals_stage(t, i, &xt);
        const struct clarity_totals *x = &xt;
        char id[24], d[32], tk[24], fl[24], r[32], g[32], in[32], out[32], sr[32], sw[32], sp[32];
        snprintf(id, sizeof id, "%lld.%d", (long long)s->stage_id, s->attempt);
        snprintf(tk, sizeof tk, "%lld", (long long)x->tasks);
        snprintf(fl, sizeof fl, "%lld", (long long)(x->failed + x->killed));
        const char *rt[] = {id, clarity_stage_status_name(s->status), clarity_fmt_ms(d, sizeof d, clarity_stage_duration_ms(a, s)),
                            tk, fl, clarity_fmt_ms(r, sizeof r, x->run_ms), clarity_fmt_ms(g, sizeof g, x->gc_ms), S(s->name)};
        clarity_table_row(&tt, rt);
        const char *rd[] = {id, clarity_fmt_bytes(in, sizeof in, x->input_bytes), clarity_fmt_bytes(out, sizeof out, x->output_bytes),
                            clarity_fmt_bytes(sr, sizeof sr, x->shuffle_read_bytes),
                            clarity_fmt_bytes(sw, sizeof sw, x->shuffle_write_bytes),
                            a->platform.photon ? "-" : clarity_fmt_bytes(sp, sizeof sp, x->disk_spilled), S(s->name)};
        clarity_table_row(&td, rd);
    }
    free(order);
    fprintf(o, "\nstages, most task run time first\n");
    put(o, &tt, width, oom);
    more_rows(o, shown, a->nstages);
    fprintf(o, "\nstage data, same order\n");
    put(o, &td, width, oom);
    more_rows(o, shown, a->nstages);
    if (a->platform.photon)
        fprintf(o, "  spill disk -: Photon spills outside task metrics, not per stage in this log (total: data line)\n");
}

/* An executor's peak of one JVM memory metric (Spark 3+ executor metrics), "-" when absent. */
static const char *peak(char *buf, size_t cap, const struct clarity_app *a, const struct clarity_executor *e,
                        const char *name)
{
    for (size_t i = 0; i < e->peaks.n; i++)
        if (!strcmp(S(e->peaks.p[i].name), name)) return clarity_fmt_bytes(buf, cap, e->peaks.p[i].value);
    return "-";
}

/* Two tables, the work each executor did and its memory and lifetime, so that each fits a
 * terminal without cutting a figure. */
static void executors(FILE *o, const struct clarity_app *a, const struct clarity_app_totals *t, size_t limit,
                      size_t width, bool *oom)
{
    static const struct table_col work[] = {
        {"id", TCOL_FIXED}, {"host", TCOL_HOST},       {"cores", TCOL_NUM}, {"tasks", TCOL_NUM},
        {"failed", TCOL_NUM}, {"task time", TCOL_NUM}, {"GC", TCOL_NUM},    {"input", TCOL_NUM},
        {"shuf read", TCOL_NUM}, {"shuf write", TCOL_NUM}};
    static const struct table_col life[] = {{"id", TCOL_FIXED},         {"host", TCOL_HOST},
                                            {"heap peak", TCOL_NUM},    {"offheap peak", TCOL_NUM},
                                            {"added (UTC)", TCOL_FIXED}, {"removed (UTC)", TCOL_FIXED}};
    struct table tw, tl;
    clarity_table_init(&tw, work, sizeof work / sizeof *work);
    clarity_table_init(&tl, life, sizeof life / sizeof *life);
    size_t shown = 0;
    for (size_t i = 0; i < a->nexecs && (!limit || shown < limit); i++, shown++) {
        const struct clarity_executor *e = &a->execs[i];
        const struct clarity_totals *x = &t->exec[i];
        char c[24], tk[24], fl[24], tm[32], g[32], in[32], sr[32], sw[32], ad[40], rm[40], hp[32], op[32];
        snprintf(c, sizeof c, "%d", e->total_cores);
        snprintf(tk, sizeof tk, "%lld", (long long)x->tasks);
        snprintf(fl, sizeof fl, "%lld", (long long)(x->failed + x->killed));
        const char *rw[] = {S(e->id), S(e->host), c, tk, fl, clarity_fmt_ms(tm, sizeof tm, x->task_ms),
                            clarity_fmt_ms(g, sizeof g, x->gc_ms), clarity_fmt_bytes(in, sizeof in, x->input_bytes),
                            clarity_fmt_bytes(sr, sizeof sr, x->shuffle_read_bytes),
                            clarity_fmt_bytes(sw, sizeof sw, x->shuffle_write_bytes)};
        clarity_table_row(&tw, rw);
        const char *rl[] = {S(e->id), S(e->host), peak(hp, sizeof hp, a, e, "JVMHeapMemory"),
                            peak(op, sizeof op, a, e, "JVMOffHeapMemory"), clarity_fmt_time(ad, sizeof ad, e->add_ms),
                            e->remove_ms ? clarity_fmt_time(rm, sizeof rm, e->remove_ms) : "-"};
        clarity_table_row(&tl, rl);
    }
    fprintf(o, "\nexecutors\n");
    put(o, &tw, width, oom);
    more_rows(o, shown, a->nexecs);
    fprintf(o, "\nexecutor memory (peak JVM heap and off-heap, Spark 3+) and lifetime\n");
    put(o, &tl, width, oom);
    more_rows(o, shown, a->nexecs);
}

/* SQL executions that ran no job (a DDL statement, a cached plan) are counted, not listed:
 * they hold no task time. */
static void sqls(FILE *o, const struct clarity_app *a, const struct clarity_app_totals *t, size_t limit, size_t width,
                 bool *oom)
{
    if (!a->nsqls) return;
    static const struct table_col cols[] = {{"id", TCOL_NUM},   {"status", TCOL_FIXED},   {"duration", TCOL_NUM},
                                            {"jobs", TCOL_NUM}, {"tasks", TCOL_NUM},      {"task run", TCOL_NUM},
                                            {"description", TCOL_NAME}};
    struct table tb;
    clarity_table_init(&tb, cols, sizeof cols / sizeof *cols);
    size_t shown = 0, with_jobs = 0;
    for (size_t i = 0; i < a->nsqls; i++) {
        const struct clarity_sql *q = &a->sqls[i];
        if (!q->njob_ids) continue;
        with_jobs++;
        if (limit && shown >= limit) continue;
        shown++;
        const char *st = !q->start_ms ? "UNKNOWN" : !q->end_ms ? "RUNNING" : q->error ? "FAILED" : "COMPLETED";
        int64_t dur = q->start_ms && q->end_ms ? q->end_ms - q->start_ms : -1;
        char id[24], d[32], nj[24], tk[24], r[32];
        snprintf(id, sizeof id, "%lld", (long long)q->id);
        snprintf(nj, sizeof nj, "%zu", q->njob_ids);
        struct clarity_totals qt;
        clarity_totals_sql(t, i, &qt);
        snprintf(tk, sizeof tk, "%lld", (long long)qt.tasks);
        const char *row[] = {id, st, clarity_fmt_ms(d, sizeof d, dur), nj, tk, clarity_fmt_ms(r, sizeof r, qt.run_ms),
                             S(q->description)};
        clarity_table_row(&tb, row);
    }
    fprintf(o, "\nSQL queries\n");
    if (with_jobs) put(o, &tb, width, oom);
    else clarity_table_free(&tb);
    more_rows(o, shown, with_jobs);
    if (with_jobs < a->nsqls)
        fprintf(o, "  %zu SQL execution(s) ran no job and are not listed (--json has them)\n", a->nsqls - with_jobs);
}

int clarity_report_summary_text(FILE *o, const struct clarity_app *a, const struct summary_options *opt,
                        struct clarity_error *err)
{
    struct clarity_app_totals t;   /* job and query totals summed for the rows shown only */
    if (clarity_totals_compute_lean(a, &t) != 0)
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory computing totals");
    size_t limit = opt ? opt->limit : 50, width = opt ? opt->width : 100;
    bool oom = false;
    header(o, a, &t, width);
    jobs(o, a, &t, limit, width, &oom);
    stages(o, a, &t, limit, width, &oom);
    executors(o, a, &t, limit, width, &oom);
    sqls(o, a, &t, limit, width, &oom);
    int rc = oom ? clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the summary")
                 : clarity_report_failures_text(o, a, err);
    if (!rc) rc = clarity_report_integrity_text(o, a, width, err);
    clarity_totals_free(&t);
    return rc ? rc : clarity_report_status(o, err);
}
