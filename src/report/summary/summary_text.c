/* The terminal view of one application: header, jobs, stages, executors, SQL, integrity. */
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

/* Why a log has no CPU time: no task ran, or a Spark before 2.1 (which did not log it). A
 * newer Spark that left it out is said as such, not blamed on the version. */
static const char *cpu_missing(const struct clarity_app *a, const struct clarity_app_totals *t)
{
    if (!t->app.tasks) return "- (no task ran)";
    const char *v = a->spark_version ? S(a->spark_version) : "";
    int major = 0, minor = 0;
    if (sscanf(v, "%d.%d", &major, &minor) == 2 && (major > 2 || (major == 2 && minor >= 1)))
        return "not logged (absent from the task metrics)";
    return "not logged (Spark < 2.1)";
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
    fprintf(o, "time         %s .. %s UTC  (%s%s)\n", clarity_fmt_time(b1, sizeof b1, a->start_ms),
            a->end_ms ? clarity_fmt_time(b2, sizeof b2, a->end_ms) : "no end", clarity_fmt_ms(b3, sizeof b3, clarity_app_duration_ms(a)),
            a->end_ms ? "" : ", to the last event seen");
    int32_t local = clarity_app_local_cores(a);
    if (local)
        fprintf(o, "executors    none: local mode, the driver runs the tasks on %d cores   jobs %zu   stages %zu   SQL queries %zu\n",
                local, a->njobs, a->nstages, a->nsqls);
    else
        fprintf(o, "executors    %zu (%d cores)   jobs %zu   stages %zu   SQL queries %zu\n", nexec, cores, a->njobs,
                a->nstages, a->nsqls);
    fprintf(o, "tasks        %lld attempts: %lld succeeded, %lld failed, %lld killed, %lld without end, %lld speculative\n",
            (long long)t->app.tasks, (long long)t->app.succeeded, (long long)t->app.failed, (long long)t->app.killed,
            (long long)t->app.running, (long long)t->app.speculative);
    double gc = t->app.run_ms ? 100.0 * (double)t->app.gc_ms / (double)t->app.run_ms : 0;
    fprintf(o, "task time    %s in tasks; run %s, GC %s (%.1f%% of run), CPU %s\n", clarity_fmt_ms(b1, sizeof b1, t->app.task_ms),
            clarity_fmt_ms(b2, sizeof b2, t->app.run_ms), clarity_fmt_ms(b3, sizeof b3, t->app.gc_ms), gc,
            t->app.cpu_logged ? clarity_fmt_ms((char[64]){0}, 64, t->app.cpu_ns / 1000000) : cpu_missing(a, t));
    fprintf(o, "data         input %s, output %s, shuffle read %s, shuffle write %s, spilled %s to disk\n",
            clarity_fmt_bytes(b1, sizeof b1, t->app.input_bytes), clarity_fmt_bytes(b2, sizeof b2, t->app.output_bytes),
            clarity_fmt_bytes(b3, sizeof b3, t->app.shuffle_read_bytes), clarity_fmt_bytes((char[64]){0}, 64, t->app.shuffle_write_bytes),
            clarity_fmt_bytes((char[64]){0}, 64, t->app.disk_spilled));
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
                clarity_fmt_bytes(sw, sizeof sw, x->shuffle_write_bytes), clarity_fmt_bytes(sp, sizeof sp, x->disk_spilled),
                clip(nm, sizeof nm, S(s->name), 50));
        shown++;
    }
    more_rows(o, shown, a->nstages);
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
