/* `clarity whatif` as text: the answer first (the scenarios' predicted times), then the hardware
 * and where each figure came from, the resource model per stage and job, then the core-count
 * curve. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "clarity/report.h"
#include "report/table.h"

const char *const clarity_whatif_caveat =
    "monotask-style model over Spark logs (thesis 5.6): on Spark, not MonoSpark, it had 20-30% typical error "
    "even with perfect resource counters, and logs hold less; deserialization what-ifs unsupported";

static const char *ms(char *b, size_t cap, double v) { return clarity_fmt_ms(b, cap, (int64_t)llround(v)); }

static const char *num(char *b, size_t cap, double v)
{
    if (fabs(v - nearbyint(v)) < 1e-9) snprintf(b, cap, "%.0f", v);
    else snprintf(b, cap, "%.2f", v);
    return b;
}

static void hardware(FILE *o, const struct clarity_hw *h, const char *indent, size_t width)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32], line[512];
    const enum clarity_hw_source *s = h->src;
    snprintf(line, sizeof line, "%s host(s) [%s], %s executor(s) [%s], %s cores per host [%s] = %s cores, %s slots (spark.task.cpus %d)",
            num(b1, sizeof b1, h->v[CLARITY_HW_HOSTS]), clarity_hw_source_name(s[CLARITY_HW_HOSTS]),
            num(b2, sizeof b2, h->v[CLARITY_HW_EXECUTORS]), clarity_hw_source_name(s[CLARITY_HW_EXECUTORS]),
            num(b3, sizeof b3, h->v[CLARITY_HW_CORES_PER_HOST]), clarity_hw_source_name(s[CLARITY_HW_CORES_PER_HOST]),
            num(b4, sizeof b4, clarity_hw_cores(h)), num(b5, sizeof b5, floor(clarity_hw_slots(h) + 1e-9)), h->task_cpus);
    clarity_fit_wrap(o, width, indent, line);
    /* wrapped under the same indent as the hosts line: 88 columns with one-digit figures */
    clarity_fit_wrapf(o, width, "             ", "%s disk(s) per host [%s] at %s MB/s [%s]; network %s Gbps per host [%s]",
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
        clarity_fit_wrapf(o, width, "             ", "input read from %s object store over the network, not host disks [log]",
                          h->input_scheme);
    else
        fprintf(o, "             input read from disk: %s [%s]\n", h->v[CLARITY_HW_INPUT_ON_DISK] > 0 ? "yes" : "no",
                clarity_hw_source_name(s[CLARITY_HW_INPUT_ON_DISK]));
    if (h->output_remote)
        clarity_fit_wrapf(o, width, "             ", "output written to %s object store over the network, not host disks [log]",
                          h->output_scheme);
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

/* false when out of memory. Two tables, what each stage used and the time each resource would
 * need, so that each fits a terminal. */
static bool stages(FILE *o, const struct clarity_app *a, const struct clarity_resource_result *r, size_t limit, size_t width)
{
    static const struct table_col use_cols[] = {{"stage.att", TCOL_NUM}, {"job", TCOL_NUM},        {"tasks", TCOL_NUM},
                                                {"CPU time", TCOL_NUM},  {"disk bytes", TCOL_NUM}, {"net bytes", TCOL_NUM},
                                                {"MB/CPU-s", TCOL_NUM}};
    static const struct table_col time_cols[] = {{"stage.att", TCOL_NUM}, {"ideal cpu", TCOL_NUM}, {"disk", TCOL_NUM},
                                                 {"network", TCOL_NUM},   {"bottleneck", TCOL_FIXED}};
    double *size = malloc((r->nstages ? r->nstages : 1) * sizeof *size);
    if (!size) return false;
    for (size_t i = 0; i < r->nstages; i++) size[i] = r->stages[i].ideal.model_ms;
    size_t shown, *idx = rows(size, r->nstages, limit, &shown);
    free(size);
    if (!idx) return false;
    struct table tu, tt;
    clarity_table_init(&tu, use_cols, sizeof use_cols / sizeof *use_cols);
    clarity_table_init(&tt, time_cols, sizeof time_cols / sizeof *time_cols);
    for (size_t q = 0; q < shown; q++) {
        const struct clarity_whatif_stage *s = &r->stages[idx[q]];
        const struct clarity_stage *st = &a->stages[s->row];
        char sid[32], job[24], tk[24], b[6][32];
        snprintf(sid, sizeof sid, "%lld.%d%s", (long long)st->stage_id, st->attempt, s->cpu_fallback_tasks ? "*" : "");
        if (s->job >= 0) snprintf(job, sizeof job, "%lld", (long long)a->jobs[s->job].job_id);
        else snprintf(job, sizeof job, "-");
        snprintf(tk, sizeof tk, "%zu", s->tasks);
        snprintf(b[3], 32, "%.1f", clarity_mb_per_cpu_s(s->use.disk_bytes, s->use.cpu_ms));
        const char *ru[] = {sid, job, tk, ms(b[0], 32, s->use.cpu_ms), clarity_fmt_bytes(b[1], 32, (int64_t)llround(s->use.disk_bytes)),
                            clarity_fmt_bytes(b[2], 32, (int64_t)llround(s->use.net_bytes)), b[3]};
        clarity_table_row(&tu, ru);
        char c0[32], c1[32], c2[32];
        const char *rt[] = {sid, ms(c0, 32, s->ideal.ms[CLARITY_WRES_CPU]), ms(c1, 32, s->ideal.ms[CLARITY_WRES_DISK]),
                            ms(c2, 32, s->ideal.ms[CLARITY_WRES_NETWORK]), clarity_wres_name(s->ideal.bottleneck)};
        clarity_table_row(&tt, rt);
    }
    free(idx);
    fprintf(o, "\nresource model per stage: what each stage used\n");
    int rc = clarity_table_write(o, &tu, 2, width);
    clarity_fit_wrap(o, width, "\n", "and the time each resource needs if perfectly used (the stage takes the max), same stages");
    rc |= clarity_table_write(o, &tt, 2, width);
    clarity_table_free(&tu);
    clarity_table_free(&tt);
    if (rc) return false;
    if (shown < r->nstages)
        fprintf(o, "  the %zu largest by model time; %zu more stage(s) (--limit 0 shows all)\n", shown, r->nstages - shown);
    if (r->cpu_fallback_tasks) {
        char line[256];
        snprintf(line, sizeof line, "* %zu task(s) without Executor CPU Time (logged from Spark 2.1): CPU = run time minus "
                 "fetch wait, shuffle write and scheduler delay", r->cpu_fallback_tasks);
        clarity_fit_wrap(o, width, "  ", line);
    }
    const struct clarity_hw *bh = &r->scen[CLARITY_SCEN_BASE].hw;
    if (bh->input_remote || bh->output_remote) {
        /* object-store bytes cross the network to a remote service: they are net bytes, not disk bytes */
        char line[256];
        snprintf(line, sizeof line, "disk bytes = shuffle write + shuffle read + %s + 2 x spill; net bytes = remote shuffle "
                 "read + object-store %s",
                 bh->output_remote ? "input (if on disk)" : "input (if on disk) + output x replication",
                 bh->output_remote && bh->input_remote ? "input and output" : bh->input_remote ? "input" : "output");
        clarity_fit_wrap(o, width, "  ", line);
    } else
        clarity_fit_wrap(o, width, "  ", "disk bytes = shuffle write + shuffle read + input (if on disk) + output x "
                                 "replication + 2 x spill; net bytes = remote shuffle read");
    return true;
}

/* false when out of memory */
static bool jobs(FILE *o, const struct clarity_resource_result *r, bool whatif, size_t limit, size_t width)
{
    static const struct table_col cols_w[] = {{"job", TCOL_NUM},    {"stages", TCOL_NUM},     {"actual", TCOL_NUM},
                                              {"model", TCOL_NUM},  {"bottleneck", TCOL_FIXED}, {"whatif", TCOL_NUM},
                                              {"change", TCOL_NUM}, {"cpu inf", TCOL_NUM},    {"disk inf", TCOL_NUM},
                                              {"net inf", TCOL_NUM}};
    static const struct table_col cols[] = {{"job", TCOL_NUM},     {"stages", TCOL_NUM},       {"actual", TCOL_NUM},
                                            {"model", TCOL_NUM},   {"bottleneck", TCOL_FIXED}, {"cpu inf", TCOL_NUM},
                                            {"disk inf", TCOL_NUM}, {"net inf", TCOL_NUM}};
    double *size = malloc((r->njobs ? r->njobs : 1) * sizeof *size);
    if (!size) return false;
    for (size_t i = 0; i < r->njobs; i++) size[i] = (double)r->jobs[i].actual_ms;
    size_t shown, *idx = rows(size, r->njobs, limit, &shown);
    free(size);
    if (!idx) return false;
    struct table t;
    if (whatif) clarity_table_init(&t, cols_w, sizeof cols_w / sizeof *cols_w);
    else clarity_table_init(&t, cols, sizeof cols / sizeof *cols);
    for (size_t q = 0; q < shown; q++) {
        const struct clarity_whatif_job *j = &r->jobs[idx[q]];
        char id[24], st[24], b[8][32];
        const char *row[10];
        size_t n = 0;
        snprintf(id, sizeof id, "%lld", (long long)j->job_id);
        snprintf(st, sizeof st, "%zu", j->stages);
        row[n++] = id;
        row[n++] = st;
        row[n++] = clarity_fmt_ms(b[0], 32, j->actual_ms);
        row[n++] = ms(b[1], 32, j->model_ms[CLARITY_SCEN_BASE]);
        row[n++] = clarity_wres_name(j->bottleneck);
        if (whatif) {
            double p = j->predicted_ms[CLARITY_SCEN_WHATIF];
            row[n++] = ms(b[2], 32, p);
            if (j->actual_ms > 0) snprintf(b[3], 32, "%+.1f%%", 100 * (p - (double)j->actual_ms) / (double)j->actual_ms);
            else snprintf(b[3], 32, "-");
            row[n++] = b[3];
        }
        for (int k = CLARITY_SCEN_INF_CPU; k <= CLARITY_SCEN_INF_NETWORK; k++)
            row[n++] = ms(b[4 + k - CLARITY_SCEN_INF_CPU], 32, j->predicted_ms[k]);
        clarity_table_row(&t, row);
    }
    free(idx);
    clarity_fit_wrap(o, width, "\n", "jobs (predicted = actual x new model / observed model, the thesis' job-level scaling)");
    int rc = clarity_table_write(o, &t, 2, width);
    clarity_table_free(&t);
    if (rc) return false;
    if (shown < r->njobs) fprintf(o, "  the %zu longest; %zu more job(s) (--limit 0 shows all)\n", shown, r->njobs - shown);
    return true;
}

static void scenarios(FILE *o, const struct whatif_report *rep)
{
    const struct clarity_resource_result *r = rep->res;
    char b[4][32];
    char line[512];
    snprintf(line, sizeof line, "%s, of which %s driver-only (no task running): kept as measured in every prediction",
             clarity_fmt_ms(b[0], 32, r->actual_ms), clarity_fmt_ms(b[1], 32, r->driver_ms));
    clarity_fit_wrap(o, rep->width, "\napplication ", line);
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
        clarity_fit_wrap(o, rep->width, "  whatif = ", rep->whatif_label);
        hardware(o, &r->scen[CLARITY_SCEN_WHATIF].hw, "           = ", rep->width);
    }
    if (rep->slot_replay && rep->slot_replay->npoints) {
        const struct clarity_curve_point *p = &rep->slot_replay->points[0];
        snprintf(line, sizeof line, "slot replay at %d slots (same task runtimes, only more or fewer slots): %s (%+.1f%%)",
                 p->slots, ms(b[0], 32, p->predicted_ms),
                 r->actual_ms > 0 ? 100 * (p->predicted_ms - (double)r->actual_ms) / (double)r->actual_ms : 0.0);
        clarity_fit_wrap(o, rep->width, "  ", line);
    }
    snprintf(line, sizeof line, "application total: CPU %s, disk %s, network %s; %.1f disk MB per CPU-second",
             ms(b[0], 32, r->total.cpu_ms), clarity_fmt_bytes(b[1], 32, (int64_t)llround(r->total.disk_bytes)),
             clarity_fmt_bytes(b[2], 32, (int64_t)llround(r->total.net_bytes)), r->mb_per_cpu_s);
    clarity_fit_wrap(o, rep->width, "  ", line);
}

/* -1 when out of memory */
static int curve(FILE *o, const struct clarity_curve_result *c, size_t width)
{
    static const struct table_col cols[] = {{"point", TCOL_NUM},       {"execs", TCOL_NUM}, {"cores", TCOL_NUM},
                                            {"slots", TCOL_NUM},       {"group slots", TCOL_NUM}, {"replay", TCOL_NUM},
                                            {"predicted", TCOL_NUM},   {"calibrated", TCOL_NUM}, {"core-h", TCOL_NUM},
                                            {"efficiency", TCOL_NUM}};
    char b[6][32], line[512];
    snprintf(line, sizeof line,
             "DAG-aware replay of %zu successful tasks (%zu stage group(s) run in their order; in a group a stage waits "
             "for its parents, others share the slots)", c->tasks, c->components);
    clarity_fit_wrap(o, width, "\ncore-count curve: ", line);
    snprintf(line, sizeof line, "serial (1 slot) %s; critical path (infinite slots) %s; replay at the %s slots (blocked's t_s) %s",
             ms(b[0], 32, c->serial_ms), ms(b[1], 32, c->critical_path_ms),
             c->mode == CLARITY_SLOTS_CONFIGURED ? "configured" : "observed", ms(b[2], 32, c->observed_replay_ms));
    clarity_fit_wrap(o, width, "  ", line);
    snprintf(line, sizeof line, "driver-only time %s (of %s measured) added unchanged to every point%s",
             clarity_fmt_ms(b[0], 32, c->driver_ms), clarity_fmt_ms(b[1], 32, c->actual_ms),
             c->cores_observed ? "; no executor cores in the log: 1x = observed concurrency" : "");
    clarity_fit_wrap(o, width, "  ", line);
    snprintf(line, sizeof line, "the replay at 1x is %+.1f%% off the measured task time (wall minus driver-only): the "
             "calibrated column scales the measured time by replay / replay at 1x so that error cancels, as blocked-time "
             "ratios do", 100 * c->replay_error);
    clarity_fit_wrap(o, width, "  ", line);
    struct table t;
    clarity_table_init(&t, cols, sizeof cols / sizeof *cols);
    for (size_t i = 0; i < c->npoints; i++) {
        const struct clarity_curve_point *p = &c->points[i];
        char ask[32], gs[32], sl[24], ch[32], ef[32];
        /* the knee's row is marked in its point column, a column of its own would not fit */
        if (p->ask.relative) snprintf(ask, sizeof ask, "%gx%s", p->ask.v, i == c->knee ? "*" : " ");
        else snprintf(ask, sizeof ask, "%g%s", p->ask.v, i == c->knee ? "*" : " ");
        if (p->slots_min == p->slots_max) snprintf(gs, sizeof gs, "%d", p->slots_min);
        else snprintf(gs, sizeof gs, "%d-%d", p->slots_min, p->slots_max);
        snprintf(sl, sizeof sl, "%d", p->slots);
        snprintf(ch, sizeof ch, "%.3f", p->core_hours);
        snprintf(ef, sizeof ef, "%.1f%%", 100 * p->efficiency);
        const char *row[] = {ask, num(b[3], 32, p->executors), num(b[0], 32, p->cores), sl, gs, ms(b[1], 32, p->replay_ms),
                             ms(b[2], 32, p->predicted_ms), ms(b[4], 32, p->calibrated_ms), ch, ef};
        clarity_table_row(&t, row);
    }
    int rc = clarity_table_write(o, &t, 2, width);
    clarity_table_free(&t);
    if (rc) return -1;
    if (c->npoints) {
        const struct clarity_curve_point *k = &c->points[c->knee];
        fprintf(o, "  knee (*): %s cores, the fewest within 10%% of the best predicted time\n", num(b[0], 32, k->cores));
        if (c->knee_replay != c->knee)
            fprintf(o, "  on task time alone (without the driver-only time) the knee is %s cores\n",
                    num(b[0], 32, c->points[c->knee_replay].cores));
    }
    /* two lines where the first fits, else one paragraph wrapped to the width */
    static const char legend[] = "  execs: executors; efficiency = task time / (slots x replay); core-h: core-hours, cores x";
    if (!width || sizeof legend - 1 <= width) fprintf(o, "%s\n  predicted\n", legend);
    else clarity_fit_wrapf(o, width, "  ", "%s predicted", legend + 2);
    return 0;
}

int clarity_report_whatif_text(FILE *o, const struct clarity_app *a, const struct whatif_report *r, struct clarity_error *err)
{
    clarity_fit_line(o, r->width, "application  %s  \"%s\"", clarity_app_str(a, a->app_id), clarity_app_str(a, a->name));
    clarity_fit_line(o, r->width, "source       %s", a->source_path ? a->source_path : "-");
    /* the answer first (each scenario's predicted time and change), with the caveat that its
     * figures are a model's; the inputs it rests on (hardware, per-stage and per-job model)
     * follow */
    if (r->res) {
        scenarios(o, r);
        clarity_fit_wrap(o, r->width, "caveat       ", clarity_whatif_caveat);
        fputc('\n', o);
    }
    hardware(o, r->base, "hardware     ", r->width);
    clarity_fit_wrap(o, r->width, "             ",
             "[log] read from the log, [observed] inferred from task concurrency, [default] assumed (90 MB/s per disk, "
             "1 Gbps: the thesis' figures), [ini]/[flag] given");
    if (r->res) {
        if (!stages(o, a, r->res, r->limit, r->width) ||
            !jobs(o, r->res, r->res->scen[CLARITY_SCEN_WHATIF].present, r->limit, r->width))
            return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the report");
    }
    if (r->curve && curve(o, r->curve, r->width))
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the report");
    return clarity_report_status(o, err);
}
