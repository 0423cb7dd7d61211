/* Shared by the files of src/analysis/findings: the replay every saving is measured with,
 * and the helpers that fill a finding. */
#ifndef CLARITY_FND_INTERNAL_H
#define CLARITY_FND_INTERNAL_H
#include "clarity/findings.h"
#include "clarity/sim.h"

/* The application's task attempts as one replay: every attempt that ended (failed, killed
 * and speculative ones too, since they held a slot), in components of overlapping stages, on
 * the slots each stage was observed to use (blocked time's default, src/sim/). Savings are
 * (simulated - simulated with the problem removed) / simulated x the time tasks ran, so the
 * replay's own error cancels, as in blocked time. */
struct fnd {
    const struct clarity_app *a;
    struct clarity_task_view v;
    size_t n;                    /* attempts in the replay */
    uint32_t *row;               /* task row per replay index */
    uint32_t *lstart;            /* per stage attempt: first replay index; its successful attempts
                                    come first, in the task view's order, then the others */
    uint32_t *lsucc;             /* per stage attempt: successful attempts */
    double *rt;                  /* measured runtime per replay index */
    float *gc, *sd;              /* GC and scheduler delay ms per successful attempt (0 others) */
    struct clarity_replay_plan plan;
    uint32_t *comp_of;           /* component per replay index */
    double *comp_base;           /* simulated makespan of each component, measured runtimes */
    double sim_total;            /* sum of comp_base */
    int64_t duration_ms, driver_ms, task_span_ms;   /* task_span = duration - driver */
    int slots;                   /* configured slots over the application (0 unknown) */
    /* a modification in progress (fnd_mod_*) */
    double *mod;                 /* runtimes; equal to rt outside a modification */
    uint32_t *split;             /* > 1: that attempt split into this many equal pieces */
    uint32_t *touched; size_t ntouched;   /* replay indices changed */
    uint8_t *comp_mark;
    double *gather; size_t gather_cap;
    double reduction;            /* sum of the runtime the changes removed: a bound on the saving */
    const double *base_alt;      /* NULL, or runtimes the base is replayed with instead of rt
                                    (a failed attempt and its retry chained: fnd_fail.c) */
    double alt_delta;            /* set by mod_end with base_alt: its simulated base less the
                                    usual one over the components replayed */
    double min_sim;              /* simulated ms under which a finding is dropped anyway: its
                                    replay is skipped when the bound is below it (0: never) */
    double min_wall;             /* the wall saving (ms) keep() needs of a finding without a
                                    core-hour saving: max(min ms, min share x duration); 0 with
                                    --all. Rules that ask whether another finding stays read it */
    struct clarity_task_comp *comps;      /* one stage's successful attempts */
    /* queries that arrive on their own (fnd_arrive.c): NULL when the application is one chain */
    struct fnd_arr *arr;
    double arr_wall;             /* the last mod_end's change as the shift of the application's
                                    end with arrivals held (ms), -1 when not replayed so */
    bool arr_skipped;            /* the last mod_end's change was past the arrival replays'
                                    budget (its saving is the component replay's) */
    bool arr_own;                /* set by a rule before mod_end: also replay with every query
                                    held at its own logged arrival (no query chained to the one
                                    that ended just before it), into arr_wall_own */
    double arr_wall_own;         /* that shift (ms), -1 when not replayed so */
    /* output */
    struct clarity_finding *f; size_t nf, cap;
    int oom;                     /* an allocation failed in a rule */
};

int clarity_fnd_build(struct fnd *x, const struct clarity_app *a, struct clarity_error *err);
void clarity_fnd_free(struct fnd *x);
/* Change replay index i's runtime, or split it into k equal pieces, then measure. */
void clarity_fnd_mod_set(struct fnd *x, size_t i, double runtime);
void clarity_fnd_mod_split(struct fnd *x, size_t i, uint32_t k);
/* Simulated ms saved by the changes since the last end, over the components they touch,
 * each on its own slots, or on max(its slots, slots_at_least) (a repartition can use the
 * slots a stage with too few tasks left idle). Undoes the changes. bound: an upper bound on
 * the saving, or < 0 for the runtime the changes removed; when it is below x->min_sim the
 * finding could not pass the minimum-saving filter, nothing is replayed and -1 comes back
 * (so a log of thousands of overlapping stages replays only the findings that matter). */
double clarity_fnd_mod_end(struct fnd *x, int slots_at_least, double bound);
/* The same, with every component the changes touch replayed on the most attempts it was seen
 * running at once when that is more than its slots (the observed-slot rule of a stage of many
 * tasks counts its slots from the task time over its span, so a tail of slow tasks on idle
 * slots lowers it), the saving taken as that replay's share of the component and applied to
 * its usual replay (comp_base x (base - changed) / base), so it stays in the units of
 * sim_total. For changes that shorten a stage's tail (fnd_host.c); x->base_alt is not read. */
double clarity_fnd_mod_end_peak(struct fnd *x, double bound);
/* Undoes the changes without replaying. */
void clarity_fnd_mod_cancel(struct fnd *x);
/* Simulated ms -> wall ms of the application (the replay's error cancels). */
int64_t clarity_fnd_wall(const struct fnd *x, double sim_ms);
/* The same against a base other than the usual one: its total is sim_total + delta. */
int64_t clarity_fnd_wall_alt(const struct fnd *x, double sim_ms, double delta);

/* Arrival-held replay (fnd_arrive.c): built by clarity_fnd_build for an application whose SQL
 * queries arrive on their own; the shift of the application's end under x->mod / x->split,
 * or -1. */
int clarity_fnd_arrivals_build(struct fnd *x, struct clarity_error *err);
void clarity_fnd_arrivals_free(struct fnd *x);
double clarity_fnd_arrivals_shift(struct fnd *x);
/* the same with the driver's time inside each query removed (every stage submitted as the
   one before it in its query ends; a query's first stage at the query's start), -1 without */
double clarity_fnd_arrivals_no_gaps(struct fnd *x);
struct clarity_wl_stage;
/* The arrival-held replay's stages (times in ms from the application's first launch), n of
   them, and per stage its query's logged arrival; NULL without arrivals. */
const struct clarity_wl_stage *clarity_fnd_arrivals_stages(const struct fnd *x, size_t *n, const double **arrive);
/* f->saving_ms from the last mod_end: the component replay's wall saving, or, where queries
 * arrive on their own and the change was replayed so, the shift of the application's end
 * (f->arrivals). */
void clarity_fnd_set_saving(const struct fnd *x, struct clarity_finding *f, double sim_ms);

/* A new finding (zeroed; saving_core_ms -1), NULL and x->oom set when out of memory. */
struct clarity_finding *clarity_fnd_add(struct fnd *x, enum clarity_finding_kind k);
void clarity_fnd_ev(struct clarity_finding *f, const char *name, double value, const char *unit);
/* Sets where to the stage attempt's stage, attempt, job and SQL query. */
void clarity_fnd_where_stage(const struct fnd *x, struct clarity_finding *f, size_t s);
/* The stage's name, cut to fit a title ("" when not logged). */
const char *clarity_fnd_stage_name(const struct fnd *x, size_t s, char *buf, size_t cap);
/* The action: setting (may be NULL), its current value from the environment ("not set
 * (default D)" when absent), the proposed value and the sentence. */
void clarity_fnd_action(const struct fnd *x, struct clarity_finding *f, const char *setting, const char *dflt,
                        const char *proposed, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
const char *clarity_fnd_prop(const struct clarity_app *a, const char *name);   /* NULL when not set */
/* A JVM size ("4g", "512m", "1024k", "2048" bytes) in bytes; -1 when it is none. */
int64_t clarity_fnd_jvm_size(const char *s);
/* bytes -> "5g" / "768m" (rounded up), Spark's size syntax */
void clarity_fnd_fmt_jvm(char *buf, size_t cap, int64_t bytes);
const char *clarity_fnd_bytes(char *buf, size_t cap, double bytes);   /* "9.8 GB" */
const char *clarity_fnd_dur(char *buf, size_t cap, double ms);        /* "4.1 min" */

/* The rules (docs/findings.md). Each adds its findings to x; memory failures set x->oom. */
void clarity_fnd_stage_rules(struct fnd *x);     /* skew, partitions, tiny tasks, spill, slow host */
/* slow hosts (fnd_host.c): per stage, the host counted against (0 none), how, and the other
   hosts' median rate its tasks are replayed at */
struct fnd_slow {
    uint32_t host;
    bool by_stragglers;          /* the straggler analysis' host, else the host-vs-others test */
    bool apart;                  /* found because every rated task of it was slower per byte than
                                    every rated task of the other hosts (fnd_host.c) */
    size_t stragglers, tasks;    /* its tasks at >= 1.5x the others' median rate; its rated tasks */
    double host_rate, others_rate;   /* median ms per byte of its tasks, of the other hosts' */
};
/* Stage x->comps[0..m): straggler_host is the straggler analysis' slow host (0 none). -1 when
   out of memory. */
int clarity_fnd_host_stage(struct fnd *x, size_t m, uint32_t straggler_host, struct fnd_slow *out);
void clarity_fnd_slow_host_rule(struct fnd *x, const struct fnd_slow *sl);
/* out[i], for each rated task i of c[0..m) on host h: the median time per byte of the (up to)
   5 rated tasks on other hosts nearest to it in input bytes, the rate a slow host's task is
   replayed at; 0 for the other tasks. -1 when out of memory. */
int clarity_fnd_host_near(const struct clarity_task_comp *c, size_t m, uint32_t h, double *out);
/* I/O sharing on a host (fnd_io.c): a stage's successful attempts' time per MB of I/O (run
   time outside CPU and GC) against their I/O streams at once on a host, and where the stage
   shows a shared disk's shape, its time per MB at more tasks at once */
struct fnd_io_fit {
    bool applies;                /* the stage shows the sharing (the rate can be extrapolated) */
    bool by_tasks;               /* fitted on tasks at once (clarity_fnd_io_fit_tasks) */
    double ms_per_mb;            /* the stage's mean I/O time per MB */
    double ms_per_mb_alone;      /* t1: of the tasks with at most one stream at once */
    double streams_full_rate;    /* D: I/O streams a host serves at full rate, fitted */
    double cpu_gc_ms_per_mb;     /* the stage's CPU and GC per MB */
    double mb;                   /* the stage's MB read and written */
    size_t hosts;                /* hosts the stage ran on */
    size_t tasks_shared;         /* tasks with more than one I/O stream at once */
};
/* Fits c[0..m) (CPU time logged, else nothing applies), needing min_alone tasks with at most
   one stream at once and min_shared with more; -1 when out of memory */
int clarity_fnd_io_fit(const struct clarity_task_comp *c, size_t m, size_t min_alone, size_t min_shared,
                       struct fnd_io_fit *out);
/* The same relation on tasks at once rather than streams: t = t1 x max(1, tasks / D), t1 and D
   fitted together (a stage whose tasks all read at once, as a wave's first phase does: every
   task there is a stream, whatever its share of I/O over its run); min_full tasks at or below
   D and min_shared above it. at_once[0..m) gets each task's mean tasks at once on its host
   over its run, itself included. -1 when out of memory. */
int clarity_fnd_io_fit_tasks(const struct clarity_task_comp *c, size_t m, size_t min_full, size_t min_shared,
                             struct fnd_io_fit *out, double *at_once);
/* by_tasks fit: how many times slower a task's I/O gets from `from` to `to` tasks at once
   (1 when to <= from or the fit does not apply) */
double clarity_fnd_io_growth(const struct fnd_io_fit *f, double from, double to);
/* ms per MB at per_host tasks at once on a host (never below the stage's mean; the mean when
   the fit does not apply) */
double clarity_fnd_io_rate(const struct fnd_io_fit *f, double per_host);
double clarity_fnd_io_ms(const struct clarity_task_comp *c);   /* run - CPU - GC, >= 0 */
double clarity_fnd_io_mb(const struct clarity_task_comp *c);   /* input + output + shuffle MB */
/* tiny tasks: the I/O the coalesced tasks would add by sharing their hosts */
struct fnd_tiny_io {
    double extra_ms;             /* I/O time the stage's work gains coalesced (0: model not applied) */
    double ms_per_mb, ms_per_mb_alone, ms_per_mb_coalesced;
    double streams_full_rate;    /* D: I/O streams a host serves at full rate, fitted */
    double per_host;             /* coalesced tasks at once per host */
    size_t tasks_shared;         /* tiny tasks with more than one I/O stream at once */
};
/* Stage tasks c[0..m) (successful attempts) coalesced into parts on slots; -1 when out of
   memory */
int clarity_fnd_tiny_io(const struct clarity_task_comp *c, size_t m, uint32_t parts, int slots,
                        struct fnd_tiny_io *out);
void clarity_fnd_app_rules(struct fnd *x);      /* GC, scheduler delay, driver-bound */
/* idle executors: busy and allocated core ms of the application; the curve on `threads` */
void clarity_fnd_idle_rule(struct fnd *x, int threads, double busy_core_ms, int64_t alloc);
/* the executor counts the idle rule tries, ascending, into k (4 entries): a quarter, half and
 * three quarters of `executors` rounded up, and `keep` (the fewest that keep every I/O-sharing
 * stage's hosts; 0 none), distinct, >= 1 and below `executors`; returns how many */
size_t clarity_fnd_idle_counts(double executors, double keep, double *k);
void clarity_fnd_failure_rules(struct fnd *x);   /* failures, fetch failures, lost executors, OOM, speculation */
void clarity_fnd_sql_rules(struct fnd *x);       /* plan shape */
/* anomaly (LADRA) and contention (iQCAR), when the options ask for them (fnd_ext.c) */
void clarity_fnd_ext_rules(struct fnd *x, const struct clarity_findings_options *opt);

/* The victims of iQCAR's aggressive unit s (the per-application contention finding and the one
   across applications), as clarity_iqcar_victims_of lists them, with their summed runtime.
   *out is malloc'd (free it); -1 when out of memory. */
int clarity_fnd_victims(const struct iqcar_result *r, size_t s, struct iqcar_victim_dor **out, size_t *n,
                        double *runtime_ms);

/* How many of iQCAR's units ran at once on average: their summed runtime over the span they
   cover (*span_ms), at least 1 */
double clarity_fnd_mean_concurrency(const struct iqcar_result *r, double *span_ms);

#define FND_MB (1024.0 * 1024.0)
#define FND_TARGET_PARTITION_BYTES (128.0 * FND_MB)

#endif
