/* The terminal view of one application: header, jobs, stages, executors, SQL, integrity. */
#include <stdio.h>
#include <string.h>
#include "clarity/report.h"

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

/* Truncates names for the table; the JSON keeps them whole. */
static const char *clip(char *buf, size_t cap, const char *s, size_t width)
{
    const char *nl = strchr(s, '\n');
    size_t n = nl ? (size_t)(nl - s) : strlen(s);
    if (n > width) snprintf(buf, cap, "%.*s...", (int)(width - 3), s);
    else snprintf(buf, cap, "%.*s", (int)n, s);
    return buf;
}

/* A Photon figure, or "not in this log" when no plan of the log defines its metric. */
static const char *photon_fig(char *buf, size_t cap, const struct clarity_platform *p, int m, bool bytes)
{
    if (!p->photon_has[m]) return "not in this log";
    int64_t v = p->photon_v[m];
    if (bytes) return clarity_fmt_bytes(buf, cap, v);
    return clarity_fmt_ms(buf, cap, m == CLARITY_PH_FETCH_WAIT_MS ? v : v / 1000000);
}

static void platform_lines(FILE *o, const struct clarity_app *a)
{
    const struct clarity_platform *p = &a->platform;
    char b1[160], b2[160];
    fprintf(o, "platform     %s\n", clarity_report_platform(a, b1, sizeof b1));
    fprintf(o, "storage      input %s; output %s\n", clarity_report_storage(p, false, b1, sizeof b1),
            clarity_report_storage(p, true, b2, sizeof b2));
    if (!p->photon) return;
    char c[6][32];
    fprintf(o, "photon       SQL metrics: scan I/O wait %s, cloud storage read %s, cache hits %s\n"
               "             shuffle write %s in %s, read %s remote + %s local, fetch wait %s\n",
            photon_fig(c[0], 32, p, CLARITY_PH_SCAN_IO_WAIT_NS, false), photon_fig(c[1], 32, p, CLARITY_PH_SCAN_CLOUD_BYTES, true),
            photon_fig(c[2], 32, p, CLARITY_PH_SCAN_CACHE_HIT_BYTES, true),
            photon_fig(c[3], 32, p, CLARITY_PH_SHUFFLE_WRITE_BYTES, true), photon_fig(c[4], 32, p, CLARITY_PH_SHUFFLE_WRITE_NS, false),
            photon_fig(c[5], 32, p, CLARITY_PH_SHUFFLE_REMOTE_BYTES, true),
            photon_fig(b1, 32, p, CLARITY_PH_SHUFFLE_LOCAL_BYTES, true), photon_fig(b2, 32, p, CLARITY_PH_FETCH_WAIT_MS, false));
}

static void header(FILE *o, const struct clarity_app *a, const struct clarity_app_totals *t)
{
    char b1[64], b2[64], b3[64];
    int cores = 0;
    size_t nexec = 0;
    for (size_t i = 0; i < a->nexecs; i++)
        if (!a->execs[i].is_driver) {
            nexec++;
            cores += a->execs[i].total_cores;
        }
    fprintf(o, "application  %s%s%s  \"%s\"  user %s  Spark %s\n", S(a->app_id), a->attempt_id ? " attempt " : "",
            S(a->attempt_id), S(a->name), a->user ? S(a->user) : "?", a->spark_version ? S(a->spark_version) : "unknown");
    fprintf(o, "source       %s\n", a->source_path);
    platform_lines(o, a);
    fprintf(o, "time         %s .. %s UTC  (%s%s)\n", clarity_fmt_time(b1, sizeof b1, a->start_ms),
            a->end_ms ? clarity_fmt_time(b2, sizeof b2, a->end_ms) : "no end", clarity_fmt_ms(b3, sizeof b3, clarity_app_duration_ms(a)),
            a->end_ms ? "" : ", to the last event seen");
    fprintf(o, "executors    %zu (%d cores)   jobs %zu   stages %zu   SQL queries %zu\n", nexec, cores, a->njobs,
            a->nstages, a->nsqls);
    fprintf(o, "tasks        %lld attempts: %lld succeeded, %lld failed, %lld killed, %lld without end, %lld speculative\n",
            (long long)t->app.tasks, (long long)t->app.succeeded, (long long)t->app.failed, (long long)t->app.killed,
            (long long)t->app.running, (long long)t->app.speculative);
    double gc = t->app.run_ms ? 100.0 * (double)t->app.gc_ms / (double)t->app.run_ms : 0;
    fprintf(o, "task time    %s in tasks; run %s, GC %s (%.1f%% of run), CPU %s\n", clarity_fmt_ms(b1, sizeof b1, t->app.task_ms),
            clarity_fmt_ms(b2, sizeof b2, t->app.run_ms), clarity_fmt_ms(b3, sizeof b3, t->app.gc_ms), gc,
            t->app.cpu_logged ? clarity_fmt_ms((char[64]){0}, 64, t->app.cpu_ns / 1000000) : "not logged (Spark < 2.1)");
    /* Photon spills outside the JVM: task metrics say 0 whatever happened, so the figure is
     * Photon's own or, without it, absent */
    const struct clarity_platform *p = &a->platform;
    char spill[96];
    if (!p->photon) snprintf(spill, sizeof spill, "spilled %s to disk", clarity_fmt_bytes(b1, sizeof b1, t->app.disk_spilled));
    else if (p->photon_has[CLARITY_PH_SPILL_BYTES])
        snprintf(spill, sizeof spill, "spilled %s to disk (Photon SQL metrics)",
                 clarity_fmt_bytes(b1, sizeof b1, p->photon_v[CLARITY_PH_SPILL_BYTES]));
    else snprintf(spill, sizeof spill, "spill not in this log (Photon)");
    fprintf(o, "data         input %s, output %s, shuffle read %s, shuffle write %s, %s\n",
            clarity_fmt_bytes(b1, sizeof b1, t->app.input_bytes), clarity_fmt_bytes(b2, sizeof b2, t->app.output_bytes),
            clarity_fmt_bytes(b3, sizeof b3, t->app.shuffle_read_bytes), clarity_fmt_bytes((char[64]){0}, 64, t->app.shuffle_write_bytes),
            spill);
}

static void jobs(FILE *o, const struct clarity_app *a, const struct clarity_app_totals *t, size_t limit)
{
    char d[32], nm[64];
    fprintf(o, "\njobs\n  %5s  %-9s  %10s  %6s  %7s  %6s  %5s  %s\n", "id", "status", "duration", "stages", "tasks",
            "failed", "sql", "name");
    size_t shown = 0;
    for (size_t i = 0; i < a->njobs && (!limit || shown < limit); i++, shown++) {
        const struct clarity_job *j = &a->jobs[i];
        char sql[24] = "-";
        if (j->sql_id >= 0) snprintf(sql, sizeof sql, "%lld", (long long)j->sql_id);
        fprintf(o, "  %5lld  %-9s  %10s  %6zu  %7lld  %6lld  %5s  %s\n", (long long)j->job_id, job_status(j->status),
                clarity_fmt_ms(d, sizeof d, clarity_job_duration_ms(a, j)), j->nstage_ids, (long long)t->job[i].tasks,
                (long long)(t->job[i].failed + t->job[i].killed), sql, clip(nm, sizeof nm, S(j->name), 60));
    }
    more_rows(o, shown, a->njobs);
}

static void stages(FILE *o, const struct clarity_app *a, const struct clarity_app_totals *t, size_t limit)
{
    char d[32], r[32], g[32], in[32], out[32], sr[32], sw[32], sp[32], nm[64];
    fprintf(o, "\nstages\n  %7s  %-8s  %9s  %6s  %6s  %9s  %9s  %9s  %9s  %9s  %9s  %9s  %s\n", "id.att", "status",
            "duration", "tasks", "failed", "task run", "GC", "input", "output", "shuf read", "shuf write", "spill disk",
            "name");
    size_t shown = 0;
    for (size_t i = 0; i < a->nstages && (!limit || shown < limit); i++) {
        const struct clarity_stage *s = &a->stages[i];
        const struct clarity_totals *x = &t->stage[i];
        char id[24];
        snprintf(id, sizeof id, "%lld.%d", (long long)s->stage_id, s->attempt);
        fprintf(o, "  %7s  %-8s  %9s  %6lld  %6lld  %9s  %9s  %9s  %9s  %9s  %9s  %9s  %s\n", id,
                clarity_stage_status_name(s->status), clarity_fmt_ms(d, sizeof d, clarity_stage_duration_ms(a, s)),
                (long long)x->tasks, (long long)(x->failed + x->killed), clarity_fmt_ms(r, sizeof r, x->run_ms),
                clarity_fmt_ms(g, sizeof g, x->gc_ms), clarity_fmt_bytes(in, sizeof in, x->input_bytes),
                clarity_fmt_bytes(out, sizeof out, x->output_bytes), clarity_fmt_bytes(sr, sizeof sr, x->shuffle_read_bytes),
                clarity_fmt_bytes(sw, sizeof sw, x->shuffle_write_bytes),
                a->platform.photon ? "-" : clarity_fmt_bytes(sp, sizeof sp, x->disk_spilled),
                clip(nm, sizeof nm, S(s->name), 50));
        shown++;
    }
    more_rows(o, shown, a->nstages);
    if (a->platform.photon)
        fprintf(o, "  spill disk -: Photon spills outside task metrics, not per stage in this log (total: data line)\n");
}

static void executors(FILE *o, const struct clarity_app *a, const struct clarity_app_totals *t, size_t limit)
{
    char tm[32], g[32], in[32], sr[32], sw[32], ad[40], rm[40];
    fprintf(o, "\nexecutors\n  %-8s  %-24s  %5s  %6s  %6s  %9s  %9s  %9s  %9s  %9s  %-23s  %s\n", "id", "host", "cores",
            "tasks", "failed", "task time", "GC", "input", "shuf read", "shuf write", "added (UTC)", "removed");
    size_t shown = 0;
    for (size_t i = 0; i < a->nexecs && (!limit || shown < limit); i++, shown++) {
        const struct clarity_executor *e = &a->execs[i];
        const struct clarity_totals *x = &t->exec[i];
        fprintf(o, "  %-8s  %-24s  %5d  %6lld  %6lld  %9s  %9s  %9s  %9s  %9s  %-23s  %s\n", S(e->id), S(e->host),
                e->total_cores, (long long)x->tasks, (long long)(x->failed + x->killed), clarity_fmt_ms(tm, sizeof tm, x->task_ms),
                clarity_fmt_ms(g, sizeof g, x->gc_ms), clarity_fmt_bytes(in, sizeof in, x->input_bytes),
                clarity_fmt_bytes(sr, sizeof sr, x->shuffle_read_bytes), clarity_fmt_bytes(sw, sizeof sw, x->shuffle_write_bytes),
                clarity_fmt_time(ad, sizeof ad, e->add_ms), e->remove_ms ? clarity_fmt_time(rm, sizeof rm, e->remove_ms) : "-");
    }
    more_rows(o, shown, a->nexecs);
}

static void sqls(FILE *o, const struct clarity_app *a, const struct clarity_app_totals *t, size_t limit)
{
    if (!a->nsqls) return;
    char d[32], nm[80], r[32];
    fprintf(o, "\nSQL queries\n  %5s  %-9s  %10s  %5s  %7s  %9s  %s\n", "id", "status", "duration", "jobs", "tasks",
            "task run", "description");
    size_t shown = 0;
    for (size_t i = 0; i < a->nsqls && (!limit || shown < limit); i++, shown++) {
        const struct clarity_sql *q = &a->sqls[i];
        const char *st = !q->start_ms ? "UNKNOWN" : !q->end_ms ? "RUNNING" : q->error ? "FAILED" : "COMPLETED";
        int64_t dur = q->start_ms && q->end_ms ? q->end_ms - q->start_ms : -1;
        fprintf(o, "  %5lld  %-9s  %10s  %5zu  %7lld  %9s  %s\n", (long long)q->id, st, clarity_fmt_ms(d, sizeof d, dur),
                q->njob_ids, (long long)t->sql[i].tasks, clarity_fmt_ms(r, sizeof r, t->sql[i].run_ms),
                clip(nm, sizeof nm, S(q->description), 70));
    }
    more_rows(o, shown, a->nsqls);
}

int clarity_report_summary_text(FILE *o, const struct clarity_app *a, const struct summary_options *opt,
                        struct clarity_error *err)
{
    struct clarity_app_totals t;
    if (clarity_totals_compute(a, &t) != 0)
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory computing totals");
    size_t limit = opt ? opt->limit : 50;
    header(o, a, &t);
    jobs(o, a, &t, limit);
    stages(o, a, &t, limit);
    executors(o, a, &t, limit);
    sqls(o, a, &t, limit);
    int rc = clarity_report_integrity_text(o, a, err);
    clarity_totals_free(&t);
    return rc ? rc : clarity_report_status(o, err);
}
