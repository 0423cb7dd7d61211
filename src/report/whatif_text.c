/* `clarity whatif` as text: the hardware and where each figure came from, the resource model
 * per stage and job, the scenarios, then the core-count curve. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "clarity/report.h"

const char *const clarity_whatif_caveat =
    "monotask-style model over Spark logs (thesis 5.6): on Spark, not MonoSpark, it had 20-30% typical error\n"
    "             even with perfect resource counters, and logs hold less; deserialization what-ifs unsupported";

static const char *ms(char *b, size_t cap, double v) { return clarity_fmt_ms(b, cap, (int64_t)llround(v)); }

static const char *num(char *b, size_t cap, double v)
{
    if (fabs(v - nearbyint(v)) < 1e-9) snprintf(b, cap, "%.0f", v);
    else snprintf(b, cap, "%.2f", v);
    return b;
}

static void hardware(FILE *o, const struct clarity_hw *h, const char *indent)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32];
    const enum clarity_hw_source *s = h->src;
    fprintf(o, "%s%s host(s) [%s], %s executor(s) [%s], %s cores per host [%s] = %s cores, %s slots (spark.task.cpus %d)\n",
            indent, num(b1, sizeof b1, h->v[CLARITY_HW_HOSTS]), clarity_hw_source_name(s[CLARITY_HW_HOSTS]),
            num(b2, sizeof b2, h->v[CLARITY_HW_EXECUTORS]), clarity_hw_source_name(s[CLARITY_HW_EXECUTORS]),
            num(b3, sizeof b3, h->v[CLARITY_HW_CORES_PER_HOST]), clarity_hw_source_name(s[CLARITY_HW_CORES_PER_HOST]),
            num(b4, sizeof b4, clarity_hw_cores(h)), num(b5, sizeof b5, floor(clarity_hw_slots(h) + 1e-9)), h->task_cpus);
    fprintf(o, "%s%s disk(s) per host [%s] at %s MB/s [%s]; network %s Gbps per host [%s]\n", "             ",
            num(b1, sizeof b1, h->v[CLARITY_HW_DISKS_PER_HOST]), clarity_hw_source_name(s[CLARITY_HW_DISKS_PER_HOST]),
            num(b2, sizeof b2, h->v[CLARITY_HW_DISK_MB_S]), clarity_hw_source_name(s[CLARITY_HW_DISK_MB_S]),
            num(b3, sizeof b3, h->v[CLARITY_HW_NET_GBPS]), clarity_hw_source_name(s[CLARITY_HW_NET_GBPS]));
    bool in_remote = h->v[CLARITY_HW_INPUT_ON_DISK] <= 0 && h->input_remote;
    if (!in_remote && !h->output_remote) {
        fprintf(o, "             input read from disk: %s [%s]; output written %s time(s) [%s]\n",
                h->v[CLARITY_HW_INPUT_ON_DISK] > 0 ? "yes" : "no", clarity_hw_source_name(s[CLARITY_HW_INPUT_ON_DISK]),
                num(b1, sizeof b1, h->v[CLARITY_HW_REPLICATION]), clarity_hw_source_name(s[CLARITY_HW_REPLICATION]));
        return;
    }
    /* an object store gets a line of its own: what it is and that it is not the host disks */
    if (in_remote)
        fprintf(o, "             input read from %s object store over the network, not host disks [log]\n", h->input_scheme);
    else
        fprintf(o, "             input read from disk: %s [%s]\n", h->v[CLARITY_HW_INPUT_ON_DISK] > 0 ? "yes" : "no",
                clarity_hw_source_name(s[CLARITY_HW_INPUT_ON_DISK]));
    if (h->output_remote)
        fprintf(o, "             output written to %s object store over the network, not host disks [log]\n", h->output_scheme);
    else
        fprintf(o, "             output written %s time(s) [%s]\n", num(b1, sizeof b1, h->v[CLARITY_HW_REPLICATION]),
                clarity_hw_source_name(s[CLARITY_HW_REPLICATION]));
}

struct by_size { double v; size_t i; };

static int by_size_desc(const void *pa, const void *pb)
{
    const struct by_size *a = pa, *b = pb;
    if (a->v != b->v) return a->v < b->v ? 1 : -1;
    return (a->i > b->i) - (a->i < b->i);
}

/* Rows to print: all in order, or when limited the largest `limit` in order. NULL on OOM. */
static size_t *rows(const double *size, size_t n, size_t limit, size_t *shown)
{
    size_t *r = malloc((n ? n : 1) * sizeof *r);
    struct by_size *v = malloc((n ? n : 1) * sizeof *v);
    if (!r || !v) { free(r); free(v); *shown = 0; return NULL; }
    for (size_t i = 0; i < n; i++) v[i] = (struct by_size){size[i], i};
    *shown = limit && limit < n ? limit : n;
    if (*shown < n) qsort(v, n, sizeof *v, by_size_desc);
    for (size_t i = 0; i < *shown; i++) r[i] = v[i].i;
    free(v);
    return r;
}

/* false when out of memory */
static bool stages(FILE *o, const struct clarity_app *a, const struct clarity_resource_result *r, size_t limit)
{
    char b[4][32];
    fprintf(o, "\nresource model per stage (time each resource needs if perfectly used; the stage takes the max)\n");
    fprintf(o, "%9s %5s %6s %10s %10s %10s %10s %10s %10s  %-10s %8s\n", "stage.att", "job", "tasks", "CPU time",
            "disk bytes", "net bytes", "ideal cpu", "disk", "network", "bottleneck", "MB/CPU-s");
    double *size = malloc((r->nstages ? r->nstages : 1) * sizeof *size);
    if (!size) return false;
    for (size_t i = 0; i < r->nstages; i++) size[i] = r->stages[i].ideal.model_ms;
    size_t shown, *idx = rows(size, r->nstages, limit, &shown);
    free(size);
    if (!idx) return false;
    for (size_t q = 0; q < shown; q++) {
        const struct clarity_whatif_stage *s = &r->stages[idx[q]];
        const struct clarity_stage *st = &a->stages[s->row];
        char sid[32], job[24];
        snprintf(sid, sizeof sid, "%lld.%d%s", (long long)st->stage_id, st->attempt, s->cpu_fallback_tasks ? "*" : "");
        if (s->job >= 0) snprintf(job, sizeof job, "%lld", (long long)a->jobs[s->job].job_id);
        else snprintf(job, sizeof job, "-");
        fprintf(o, "%9s %5s %6zu %10s %10s %10s", sid, job, s->tasks, ms(b[0], 32, s->use.cpu_ms),
                clarity_fmt_bytes(b[1], 32, (int64_t)llround(s->use.disk_bytes)), clarity_fmt_bytes(b[2], 32, (int64_t)llround(s->use.net_bytes)));
        fprintf(o, " %10s", ms(b[0], 32, s->ideal.ms[CLARITY_WRES_CPU]));
        fprintf(o, " %10s", ms(b[1], 32, s->ideal.ms[CLARITY_WRES_DISK]));
        fprintf(o, " %10s", ms(b[2], 32, s->ideal.ms[CLARITY_WRES_NETWORK]));
        fprintf(o, "  %-10s %8.1f\n", clarity_wres_name(s->ideal.bottleneck), clarity_mb_per_cpu_s(s->use.disk_bytes, s->use.cpu_ms));
    }
    free(idx);
    if (shown < r->nstages)
        fprintf(o, "  the %zu largest by model time; %zu more stage(s) (--limit 0 shows all)\n", shown, r->nstages - shown);
    if (r->cpu_fallback_tasks)
        fprintf(o, "  * %zu task(s) without Executor CPU Time (logged from Spark 2.1): CPU = run time minus fetch "
                   "wait, shuffle write and scheduler delay\n", r->cpu_fallback_tasks);
    if (r->scen[CLARITY_SCEN_BASE].hw.input_remote || r->scen[CLARITY_SCEN_BASE].hw.output_remote)
        fprintf(o, "  disk bytes = shuffle write + shuffle read + %s + 2 x spill; net bytes = remote shuffle read + "
                   "object-store %s\n",
                r->scen[CLARITY_SCEN_BASE].hw.output_remote ? "input (if on disk)" : "input (if on disk) + output x replication",
                r->scen[CLARITY_SCEN_BASE].hw.output_remote && r->scen[CLARITY_SCEN_BASE].hw.input_remote ? "input and output"
                : r->scen[CLARITY_SCEN_BASE].hw.input_remote ? "input" : "output");
    else
        fprintf(o, "  disk bytes = shuffle write + shuffle read + input (if on disk) + output x replication + 2 x spill; "
                   "net bytes = remote shuffle read\n");
    return true;
}

/* false when out of memory */
static bool jobs(FILE *o, const struct clarity_resource_result *r, bool whatif, size_t limit)
{
    char b[5][32];
    fprintf(o, "\njobs (predicted = actual x new model / observed model, the thesis' job-level scaling)\n");
    fprintf(o, "%6s %6s %10s %10s  %-10s", "job", "stages", "actual", "model", "bottleneck");
    if (whatif) fprintf(o, " %10s %10s", "whatif", "change");
    fprintf(o, " %10s %10s %10s\n", "cpu inf", "disk inf", "net inf");
    double *size = malloc((r->njobs ? r->njobs : 1) * sizeof *size);
    if (!size) return false;
    for (size_t i = 0; i < r->njobs; i++) size[i] = (double)r->jobs[i].actual_ms;
    size_t shown, *idx = rows(size, r->njobs, limit, &shown);
    free(size);
    if (!idx) return false;
    for (size_t q = 0; q < shown; q++) {
        const struct clarity_whatif_job *j = &r->jobs[idx[q]];
        fprintf(o, "%6lld %6zu %10s %10s  %-10s", (long long)j->job_id, j->stages, clarity_fmt_ms(b[0], 32, j->actual_ms),
                ms(b[1], 32, j->model_ms[CLARITY_SCEN_BASE]), clarity_wres_name(j->bottleneck));
        if (whatif) {
            double p = j->predicted_ms[CLARITY_SCEN_WHATIF];
            fprintf(o, " %10s", ms(b[2], 32, p));
            if (j->actual_ms > 0) fprintf(o, " %+9.1f%%", 100 * (p - (double)j->actual_ms) / (double)j->actual_ms);
            else fprintf(o, " %10s", "-");
        }
        for (int k = CLARITY_SCEN_INF_CPU; k <= CLARITY_SCEN_INF_NETWORK; k++)
            fprintf(o, " %10s", ms(b[3], 32, j->predicted_ms[k]));
        fputc('\n', o);
    }
    free(idx);
    if (shown < r->njobs) fprintf(o, "  the %zu longest; %zu more job(s)\n", shown, r->njobs - shown);
    return true;
}

static void scenarios(FILE *o, const struct whatif_report *rep)
{
    const struct clarity_resource_result *r = rep->res;
    char b[4][32];
    fprintf(o, "\napplication %s, of which %s driver-only (no task running): kept as measured in every prediction\n",
            clarity_fmt_ms(b[0], 32, r->actual_ms), clarity_fmt_ms(b[1], 32, r->driver_ms));
    fprintf(o, "%-24s %10s %12s %9s  %s\n", "scenario", "model", "predicted", "change", "stages by bottleneck (cpu/disk/net)");
    for (int k = 0; k < CLARITY_SCEN_COUNT; k++) {
        const struct clarity_whatif_scenario *s = &r->scen[k];
        if (!s->present) continue;
        static const char *const label[] = {"observed hardware", "whatif", "CPU infinitely fast", "disk infinitely fast",
                                            "network infinitely fast"};
        fprintf(o, "%-24s %10s %12s", label[k], ms(b[0], 32, s->model_ms), ms(b[1], 32, s->predicted_ms));
        if (r->actual_ms > 0 && k != CLARITY_SCEN_BASE)
            fprintf(o, " %+8.1f%%", 100 * (s->predicted_ms - (double)r->actual_ms) / (double)r->actual_ms);
        else fprintf(o, " %9s", "-");
        fprintf(o, "  %zu/%zu/%zu\n", s->bottleneck_stages[0], s->bottleneck_stages[1], s->bottleneck_stages[2]);
    }
    if (rep->whatif_label) {
        fprintf(o, "  whatif = %s\n", rep->whatif_label);
        hardware(o, &r->scen[CLARITY_SCEN_WHATIF].hw, "           = ");
    }
    if (rep->slot_replay && rep->slot_replay->npoints) {
        const struct clarity_curve_point *p = &rep->slot_replay->points[0];
        fprintf(o, "  slot replay at %d slots (same task runtimes, only more or fewer slots): %s (%+.1f%%)\n", p->slots,
                ms(b[0], 32, p->predicted_ms),
                r->actual_ms > 0 ? 100 * (p->predicted_ms - (double)r->actual_ms) / (double)r->actual_ms : 0.0);
    }
    fprintf(o, "  application total: CPU %s, disk %s, network %s; %.1f disk MB per CPU-second\n",
            ms(b[0], 32, r->total.cpu_ms), clarity_fmt_bytes(b[1], 32, (int64_t)llround(r->total.disk_bytes)),
            clarity_fmt_bytes(b[2], 32, (int64_t)llround(r->total.net_bytes)), r->mb_per_cpu_s);
}

static void curve(FILE *o, const struct clarity_curve_result *c)
{
    char b[5][32];
    fprintf(o, "\ncore-count curve: DAG-aware replay of %zu successful tasks (%zu stage group(s) run in their order; in a "
               "group a stage waits for its parents, others share the slots)\n", c->tasks, c->components);
    fprintf(o, "  serial (1 slot) %s; critical path (infinite slots) %s; replay at the %s slots (blocked's t_s) %s\n",
            ms(b[0], 32, c->serial_ms), ms(b[1], 32, c->critical_path_ms),
            c->mode == CLARITY_SLOTS_CONFIGURED ? "configured" : "observed", ms(b[2], 32, c->observed_replay_ms));
    fprintf(o, "  driver-only time %s (of %s measured) added unchanged to every point%s\n", clarity_fmt_ms(b[0], 32, c->driver_ms),
            clarity_fmt_ms(b[1], 32, c->actual_ms), c->cores_observed ? "; no executor cores in the log: 1x = observed concurrency" : "");
    fprintf(o, "  the replay at 1x is %+.1f%% off the measured task time (wall minus driver-only): the calibrated column\n"
               "  scales the measured time by replay / replay at 1x so that error cancels, as blocked-time ratios do\n",
            100 * c->replay_error);
    fprintf(o, "%7s %9s %7s %7s %11s %10s %11s %11s %11s %10s\n", "point", "executors", "cores", "slots", "group slots",
            "replay", "predicted", "calibrated", "core-hours", "efficiency");
    for (size_t i = 0; i < c->npoints; i++) {
        const struct clarity_curve_point *p = &c->points[i];
        char ask[32], gs[32];
        if (p->ask.relative) snprintf(ask, sizeof ask, "%gx", p->ask.v);
        else snprintf(ask, sizeof ask, "%g", p->ask.v);
        if (p->slots_min == p->slots_max) snprintf(gs, sizeof gs, "%d", p->slots_min);
        else snprintf(gs, sizeof gs, "%d-%d", p->slots_min, p->slots_max);
        fprintf(o, "%7s %9s %7s %7d %11s %10s %11s %11s %11.3f %9.1f%%%s\n", ask, num(b[3], 32, p->executors),
                num(b[0], 32, p->cores), p->slots, gs, ms(b[1], 32, p->replay_ms), ms(b[2], 32, p->predicted_ms),
                ms(b[4], 32, p->calibrated_ms), p->core_hours, 100 * p->efficiency, i == c->knee ? "  <- knee" : "");
    }
    if (c->npoints) {
        const struct clarity_curve_point *k = &c->points[c->knee];
        fprintf(o, "  knee: %s cores, the fewest within 10%% of the best predicted time\n", num(b[0], 32, k->cores));
        if (c->knee_replay != c->knee)
            fprintf(o, "  on task time alone (without the driver-only time) the knee is %s cores\n",
                    num(b[0], 32, c->points[c->knee_replay].cores));
    }
    fprintf(o, "  efficiency = task time / (slots x replay); core-hours = cores x predicted\n");
}

int clarity_report_whatif_text(FILE *o, const struct clarity_app *a, const struct whatif_report *r, struct clarity_error *err)
{
    fprintf(o, "application  %s  \"%s\"\n", clarity_app_str(a, a->app_id), clarity_app_str(a, a->name));
    fprintf(o, "source       %s\n", a->source_path ? a->source_path : "-");
    hardware(o, r->base, "hardware     ");
    fprintf(o, "             [log] read from the log, [observed] inferred from task concurrency, [default] assumed "
               "(90 MB/s per disk, 1 Gbps: the thesis' figures), [ini]/[flag] given\n");
    if (r->res) {
        fprintf(o, "caveat       %s\n", clarity_whatif_caveat);
        if (!stages(o, a, r->res, r->limit) || !jobs(o, r->res, r->res->scen[CLARITY_SCEN_WHATIF].present, r->limit))
            return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the report");
        scenarios(o, r);
    }
    if (r->curve) curve(o, r->curve);
    return clarity_report_status(o, err);
}
