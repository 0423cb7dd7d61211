/* Application rules: GC pressure, scheduler delay, driver-bound time (idle executors:
 * fnd_idle.c). Thresholds and why: docs/findings.md. */
#include <math.h>
#include <stdio.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/findings/fnd_internal.h"
#include "analysis/findings/fnd_gc_chain.h"

/* GC above this share of task time: Spark's UI marks a task red at 10% */
#define GC_MIN_SHARE 0.10
/* The GC a task keeps once its heap is healthy, as a share of its time outside GC. The saving
   is the replay with each task's GC cut to this, not to nothing: the finding's action (more
   memory, fewer cores, less caching) brings GC down, not to zero, and a user asks what the
   action saves. 2%: the GC the tuning runs' healthy counterparts kept (synth seeds 1-10 and
   41-50, the same workloads without the GC knob: 0.4-2.0% of their time outside GC, 4.5-7.2%
   for pagerank; the pooled median 1.6% over 80 runs), in line with the few percent JVM tuning
   guides aim for. The log has no measure of how much GC a bigger heap keeps (no peak JVM
   heap in synth's logs, and the GC per collection is not in the event log), so this is an
   estimate and says so; the no-GC bound is kept in the evidence. */
#define GC_HEALTHY_SHARE 0.02
/* scheduler delay (deserialization, result fetch, launch lag) above this share of task time */
#define SCHED_MIN_SHARE 0.15
/* time no task ran between the first task and the last, above this share of the run */
#define DRIVER_MIN_SHARE 0.20
#define DRIVER_MIN_MS 2000

static double succ_sum(const struct fnd *x, const float *v, size_t *stage_max, double *stage_max_v)
{
    double t = 0, best = -1;
    for (size_t s = 0; s < x->a->nstages; s++) {
        double st = 0;
        for (size_t k = 0; k < x->lsucc[s]; k++) st += v[x->lstart[s] + k];
        t += st;
        if (st > best) { best = st; *stage_max = s; }
    }
    *stage_max_v = best;
    return t;
}

static double succ_task_ms(const struct fnd *x)
{
    double t = 0;
    for (size_t s = 0; s < x->a->nstages; s++)
        for (size_t k = 0; k < x->lsucc[s]; k++) t += x->rt[x->lstart[s] + k];
    return t;
}

/* replay with v removed from every successful attempt */
static double without(struct fnd *x, const float *v)
{
    for (size_t s = 0; s < x->a->nstages; s++)
        for (size_t k = 0; k < x->lsucc[s]; k++) {
            size_t i = x->lstart[s] + k;
            if (v[i] > 0) clarity_fnd_mod_set(x, i, x->rt[i] - v[i]);
        }
    return clarity_fnd_mod_end(x, 0, -1);
}

/* Each successful attempt's GC cut to GC_HEALTHY_SHARE of its time outside GC (share 0: all
   of it): cut[i] the ms removed; returns the GC left in total */
static double gc_cut(const struct fnd *x, double share, double *cut)
{
    double kept = 0;
    for (size_t i = 0; i < x->n; i++) cut[i] = 0;
    for (size_t s = 0; s < x->a->nstages; s++)
        for (size_t k = 0; k < x->lsucc[s]; k++) {
            size_t i = x->lstart[s] + k;
            double gc = x->gc[i] < x->rt[i] ? x->gc[i] : x->rt[i];
            if (gc <= 0) continue;
            double keep = share * (x->rt[i] - gc);
            if (keep > gc) keep = gc;
            kept += keep;
            cut[i] = gc - keep;
        }
    return kept;
}

/* The wall saving of the cut, on the log's own schedule with each task shorter
   (fnd_gc_chain.c: the component replay paired the tasks of a stage just over one wave its own
   way, -19% and -14% on the tuning wordcounts 4 and 44). Where queries arrive on their own
   (x->arr), over the whole application with each stage also waiting for the stage that
   released it and its query's arrival: the arrival-held replay's list schedule paired
   concurrent queries' tasks its own way (fnd32: test mixes 64 +55% -> +8%, 71 -41% -> -19%,
   92 +35% -> +1%; the tuning mixes within 1.5 points either way). -1: out of memory. */
static int64_t gc_saving(struct fnd *x, const double *cut, struct clarity_finding *f)
{
    double w = x->arr ? clarity_fnd_gc_chain_arrive_saving(x, cut) : clarity_fnd_gc_chain_saving(x, cut);
    if (w < 0) { x->oom = 1; return -1; }
    if (x->arr) f->arrivals = 1;
    return (int64_t)(w + 0.5);
}

static void gc_rule(struct fnd *x, double task_ms)
{
    size_t smax = 0;
    double smax_v = 0, gc = succ_sum(x, x->gc, &smax, &smax_v);
    if (task_ms <= 0 || gc < GC_MIN_SHARE * task_ms) return;
    double *cut = malloc((x->n ? x->n : 1) * sizeof *cut);
    if (!cut) { x->oom = 1; return; }
    struct clarity_finding est = {0}, nogc = {0};
    double kept = gc_cut(x, GC_HEALTHY_SHARE, cut);
    int64_t saving = gc_saving(x, cut, &est);
    /* the upper bound (no GC at all), for the evidence, by the same model */
    int64_t bound = -1;
    if (saving >= 0) {
        gc_cut(x, 0, cut);
        bound = gc_saving(x, cut, &nogc);
    }
    free(cut);
    if (saving < 0) return;
    struct clarity_finding *f = clarity_fnd_add(x, CLARITY_FK_GC_PRESSURE);
    if (!f) return;
    if (smax_v >= 0.5 * gc) clarity_fnd_where_stage(x, f, smax);
    f->saving_ms = saving;
    f->arrivals = est.arrivals;
    f->method = CLARITY_FM_ESTIMATE;
    snprintf(f->title, sizeof f->title, "GC pressure: %.0f%% of task time was JVM garbage collection%s", 100 * gc / task_ms,
             smax_v >= 0.5 * gc ? ", most of it in one stage" : "");
    clarity_fnd_ev(f, "gc_ms", gc, "ms");
    clarity_fnd_ev(f, "task_ms", task_ms, "ms");
    clarity_fnd_ev(f, "gc_share", gc / task_ms, "ratio");
    clarity_fnd_ev(f, "worst_stage_gc_ms", smax_v, "ms");
    clarity_fnd_ev(f, "gc_kept_ms", kept, "ms");
    if (bound >= 0) clarity_fnd_ev(f, "no_gc_saving_ms", (double)bound, "ms");
    snprintf(f->caveat, sizeof f->caveat, "estimate: each task's GC cut to %.0f%% of its other time (a healthy heap's) on the "
             "log's own schedule, assuming the action gets it there; no GC at all: at most %.1f s",
             100 * GC_HEALTHY_SHARE, (double)(bound >= 0 ? bound : saving) / 1000);
    const char *cur = clarity_fnd_prop(x->a, "spark.executor.memory");
    int64_t mem = clarity_fnd_jvm_size(cur ? cur : "1g");
    if (mem <= 0) mem = clarity_fnd_jvm_size("1g");   /* unreadable setting: Spark's default */
    char p[32];
    clarity_fnd_fmt_jvm(p, sizeof p, mem + mem / 2);
    clarity_fnd_action(x, f, "spark.executor.memory", "1g", p, "Try spark.executor.memory=%s (1.5x), fewer cores per "
                       "executor, or cache less / serialized (MEMORY_ONLY_SER); check for large objects built per "
                       "record.", p);
}

static void sched_rule(struct fnd *x, double task_ms)
{
    size_t smax = 0;
    double smax_v = 0, sd = succ_sum(x, x->sd, &smax, &smax_v);
    if (task_ms <= 0 || sd < SCHED_MIN_SHARE * task_ms) return;
    double sim = without(x, x->sd);
    if (sim < 0) return;
    struct clarity_finding *f = clarity_fnd_add(x, CLARITY_FK_SCHEDULER_DELAY);
    if (!f) return;
    if (smax_v >= 0.5 * sd) clarity_fnd_where_stage(x, f, smax);
    clarity_fnd_set_saving(x, f, sim);
    f->method = CLARITY_FM_BOUND;
    snprintf(f->title, sizeof f->title, "Scheduler delay: %.0f%% of task time was spent outside the task's run "
             "(launch, result fetch)", 100 * sd / task_ms);
    clarity_fnd_ev(f, "scheduler_delay_ms", sd, "ms");
    clarity_fnd_ev(f, "task_ms", task_ms, "ms");
    clarity_fnd_ev(f, "scheduler_delay_share", sd / task_ms, "ratio");
    snprintf(f->caveat, sizeof f->caveat, "upper bound: replayed with no scheduler delay at all");
    clarity_fnd_action(x, f, NULL, NULL, NULL, "Make tasks fewer and larger, broadcast large variables instead of "
                       "capturing them in closures, and return less to the driver per task.");
}

/* An interactive session (a shell or notebook) waits for its user between commands: its
   gaps are think time, not the driver's work. */
static bool interactive(const struct clarity_app *a)
{
    const char *n = clarity_app_str(a, a->name);
    return strcasestr(n, "shell") || strcasestr(n, "notebook") || strcasestr(n, "zeppelin") ||
           strcasestr(n, "jupyter");
}

struct span { int64_t from, to; };

static int span_cmp(const void *pa, const void *pb)
{
    const struct span *a = pa, *b = pb;
    return (a->from > b->from) - (a->from < b->from);
}

/* What of [g0, g1) a job or a SQL query was open: the driver was working for it (planning,
   broadcasting, collecting) rather than waiting for its client. spans are sorted and merged,
   so their ends increase too: the first span that ends after g0 is found by bisection, not by
   a scan from the first span for every gap (that was gaps x spans: 57% of findings' CPU on a
   log of 10^5 one-job queries, and minutes at 10^6) */
static int64_t covered(const struct span *sp, size_t n, int64_t g0, int64_t g1)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp[mid].to <= g0) lo = mid + 1;
        else hi = mid;
    }
    int64_t c = 0;
    for (size_t i = lo; i < n && sp[i].from < g1; i++) {
        int64_t a = sp[i].from > g0 ? sp[i].from : g0, b = sp[i].to < g1 ? sp[i].to : g1;
        if (b > a) c += b - a;
    }
    return c;
}

static void driver_rule(struct fnd *x)
{
    const struct clarity_app *a = x->a;
    const struct clarity_replay_plan *p = &x->plan;
    if (!p->ncomp || x->duration_ms <= 0 || interactive(a)) return;
    /* A SQL application's gaps count only while a job or query was open: between queries a
       server (Thrift, a scheduler submitting queries) waits for its clients, which no setting
       changes. An RDD application's gaps between jobs are its driver code, and count whole. */
    struct span *sp = NULL;
    size_t nsp = 0;
    if (a->nsqls) {
        sp = malloc((a->njobs + a->nsqls) * sizeof *sp);
        if (!sp) { x->oom = 1; return; }
        /* a job or query whose start was not logged (a rolling log's later part, a lost
           event: its time reads 0) is not known to have been open: it covers nothing */
        for (size_t j = 0; j < a->njobs; j++)
            if (a->jobs[j].submit_ms > 0 && a->jobs[j].end_ms > a->jobs[j].submit_ms)
                sp[nsp++] = (struct span){a->jobs[j].submit_ms, a->jobs[j].end_ms};
        for (size_t q = 0; q < a->nsqls; q++)
            if (a->sqls[q].start_ms > 0 && a->sqls[q].end_ms > a->sqls[q].start_ms)
                sp[nsp++] = (struct span){a->sqls[q].start_ms, a->sqls[q].end_ms};
        qsort(sp, nsp, sizeof *sp, span_cmp);
        size_t m = 0;
        for (size_t i = 0; i < nsp; i++) {
            if (m && sp[i].from <= sp[m - 1].to) { if (sp[i].to > sp[m - 1].to) sp[m - 1].to = sp[i].to; }
            else sp[m++] = sp[i];
        }
        nsp = m;
    }
    /* driver time between the first task and the last: startup and shutdown are not the
       application's code */
    /* ... and before the first task, from when the executors that were coming had come
       (SparkContext waits for them: spark.scheduler.minRegisteredResourcesRatio) to the
       first job: the driver's code before its first job. Startup is not, nor is the wait
       between a job's submission and its first task (the scheduler's). */
    int64_t first_task = p->comp[0].start_ms, first_job = first_task;
    for (size_t j = 0; j < a->njobs; j++)
        if (a->jobs[j].submit_ms > 0 && a->jobs[j].submit_ms < first_job) first_job = a->jobs[j].submit_ms;
    int64_t ready = a->start_ms;
    for (size_t e = 0; e < a->nexecs; e++) {
        const struct clarity_executor *ex = &a->execs[e];
        if (!ex->is_driver && ex->add_ms > ready && ex->add_ms <= first_job) ready = ex->add_ms;
    }
    int64_t inner = 0, big = 0, run_end = p->comp[0].end_ms;
    size_t big_after = 0;
    /* without an ApplicationStart (a rolling log read from a later part, a cut log) the
       driver's start is unknown: its time before the first job is not measured, never taken
       from time 0 (which read as 451,000 hours on such a log) */
    int64_t lead = a->start_ms > 0 ? first_job - ready : 0;
    if (lead > 0 && a->nsqls) lead = covered(sp, nsp, ready, first_job);
    if (lead > 0) {
        inner += lead;
        big = lead;
    }
    for (size_t c = 1; c < p->ncomp; c++) {
        int64_t gap = p->comp[c].start_ms - run_end;
        if (gap > 0 && a->nsqls) gap = covered(sp, nsp, run_end, p->comp[c].start_ms);
        if (gap > 0) {
            inner += gap;
            if (gap > big) { big = gap; big_after = c; }
        }
        if (p->comp[c].end_ms > run_end) run_end = p->comp[c].end_ms;
    }
    free(sp);
    if (inner < DRIVER_MIN_MS || (double)inner < DRIVER_MIN_SHARE * (double)x->duration_ms) return;
    struct clarity_finding *f = clarity_fnd_add(x, CLARITY_FK_DRIVER_BOUND);
    if (!f) return;
    f->saving_ms = inner;
    /* Queries arriving on their own (fnd_arrive.c): what removing each query's own driver time
       moves the application's end by. The gaps no task ran in (inner, above) are the wrong
       measure there both ways: a query's wait for its driver may overlap another query's
       tasks (not in inner, yet it delays that query's end), and a gap before a query that
       would have waited for its arrival anyway saves nothing. Tuning seeds 1-5, TPC-DS mixes
       with 15 s driver gaps: inner was 54-68% over the re-run on three of five; the smaller
       of inner and the shift was 10-17% under on the other two; the shift alone within 3%. */
    if (x->arr) {
        double shift = clarity_fnd_arrivals_no_gaps(x);
        if (shift >= 0) {
            f->saving_ms = (int64_t)(shift + 0.5);
            f->arrivals = 1;
        }
    }
    f->method = CLARITY_FM_BOUND;
    f->confidence = CLARITY_FC_MEDIUM;
    char d1[24], d2[24], d3[24];
    snprintf(f->title, sizeof f->title, "Driver-bound: no task ran for %s of %s once executors were up%s "
             "(longest gap %s)", clarity_fnd_dur(d1, sizeof d1, (double)inner),
             clarity_fnd_dur(d2, sizeof d2, (double)x->duration_ms), a->nsqls ? ", with a job or query open" : "",
             clarity_fnd_dur(d3, sizeof d3, (double)big));
    clarity_fnd_ev(f, "driver_gap_ms", (double)inner, "ms");
    clarity_fnd_ev(f, "longest_gap_ms", (double)big, "ms");
    clarity_fnd_ev(f, "duration_ms", (double)x->duration_ms, "ms");
    clarity_fnd_ev(f, "driver_ms", (double)x->driver_ms, "ms");
    if (big_after < p->ncomp && p->comp[big_after].n) {
        size_t i = p->order[p->comp[big_after].first];
        int64_t s = clarity_icol_get(&a->tasks.stage, x->row[i]);
        if (s >= 0 && (size_t)s < a->nstages) {
            clarity_fnd_where_stage(x, f, (size_t)s);
            f->where &= ~(unsigned)(CLARITY_FW_STAGE | CLARITY_FW_STAGE_ATTEMPT);
        }
    }
    snprintf(f->caveat, sizeof f->caveat, "upper bound: the driver's own work (planning, collect, Python or "
             "driver-side loops, listing files) is not broken down in the event log");
    clarity_fnd_action(x, f, NULL, NULL, NULL, "Look at what the driver does before the job after the longest gap: "
                       "collect() or toPandas() of large results, driver-side loops, many small jobs, or slow file "
                       "listing / query planning.");
}

void clarity_fnd_app_rules(struct fnd *x)
{
    double task_ms = succ_task_ms(x);
    gc_rule(x, task_ms);
    sched_rule(x, task_ms);
    driver_rule(x);
}
