/* Slot replay: list scheduling of task runtimes on N slots, the way Ousterhout's blocked-time
 * analysis re-simulates a job (thesis 3.3.2). Shared by blocked time,
 * stragglers (Dolly impact), core-count what-ifs and prediction.
 *
 * src/sim is the shared lower module of the analyses: what more than one analysis feature needs
 * lives here (task time components and the task view they are read through; job/SQL/app
 * groups; Dolly's straggler-free runtimes; the replay plans, this file and dag_replay.h), so
 * that the feature folders under src/analysis never include one another (tests/layers checks
 * it).
 *
 * Two layers:
 *  - kernels on plain arrays (makespan, slot inference), independent of the model;
 *  - a replay plan: a set of tasks split into units (stage attempts), units pooled into
 *    connected components of overlapping intervals, one slot count and one launch order per
 *    component. Build the plan once, then run it with any runtimes (original, without GC...). */
#ifndef CLARITY_SIM_H
#define CLARITY_SIM_H
#include <stddef.h>
#include <stdint.h>
#include "clarity/error.h"
#include "clarity/model.h"
#include <stdbool.h>

/* Above this many tasks a stage's slot count is its average concurrency; at or below it, its
 * peak concurrency (few tasks: a straggler would distort the average). [R] */
#define CLARITY_SIM_PEAK_MAX_TASKS 40

/* Makespan of list-scheduling runtimes[0..n-1] (already in launch order) on `slots` slots:
 * each task starts on the slot that frees first. O(n log slots). scratch holds at least
 * min(n, slots) doubles, or is NULL to allocate. Returns 0 for n == 0; slots < 1 counts as 1;
 * negative runtimes count as 0. Returns -1 only when allocation fails. */
double clarity_sim_makespan(const double *runtimes, size_t n, int slots, double *scratch);

/* A task's time on its host, for clarity_sim_host_overlap. */
struct clarity_sim_span {
    int64_t start_ms, end_ms;   /* an end before the start counts as the start */
    int64_t host;               /* any host key: spans are compared only within one key */
};

/* out[i]: the integral over span i of the number of spans of its host running at once, itself
 * included (ms x tasks; divided by the span's duration, the mean concurrency it ran at). A span
 * that ends as another starts did not overlap it. *hosts (when not NULL): the number of distinct
 * host keys. O(n log n). Returns -1 when out of memory. */
int clarity_sim_host_overlap(const struct clarity_sim_span *s, size_t n, double *out, size_t *hosts);

/* One task as the slot inference sees it: it occupied a slot over [launch, finish - trim),
 * trim being its scheduler delay (completion messages arrive late; without the trim,
 * back-to-back tasks on one slot would look concurrent). */
struct clarity_sim_task {
    int64_t launch_ms, finish_ms;
    double trim_ms;
    uint32_t unit;          /* stage attempt (row in app->stages), or any grouping key */
};

/* Peak number of tasks running at once over [launch, finish - trim); an end and a start at
 * the same instant do not overlap. At least 1 when n > 0. O(n log n). */
int clarity_sim_peak_slots(const struct clarity_sim_task *t, size_t n);
/* ceil(sum(finish - launch) / (max finish - min launch)); at least 1 when n > 0. */
int clarity_sim_average_slots(const struct clarity_sim_task *t, size_t n);
/* Peak for n <= 40, average for more ([R]); but peak also when the stage ran in fewer than
 * two waves (peak > n/2): one slow task then drags the average below the slots really held
 * and the replay invents a second wave (up to 84% error on NDS q72 single-wave stages). */
int clarity_sim_observed_slots(const struct clarity_sim_task *t, size_t n);

/* Configured slots over [from, to]: the most executor cores alive at any instant of the
 * interval (dynamic allocation adds and removes executors), divided by spark.task.cpus
 * (default 1). The driver's cores count only in local mode (no other executor). 0 when the
 * log has no executor cores (Spark 1.x local logs): the caller falls back to observed slots. */
int clarity_sim_configured_slots(const struct clarity_app *a, int64_t from_ms, int64_t to_ms);
int clarity_sim_task_cpus(const struct clarity_app *a);   /* spark.task.cpus, 1 if not set */

enum clarity_slot_mode { CLARITY_SLOTS_OBSERVED, CLARITY_SLOTS_CONFIGURED };

struct clarity_replay_component {
    size_t first, n;         /* range in plan->order */
    size_t nunits;           /* stage attempts pooled here (> 1: they overlapped) */
    int slots;
    bool slots_fallback;     /* configured slots asked for but unknown: observed used */
    int64_t start_ms, end_ms;    /* min launch, max finish */
};

struct clarity_replay_plan {
    size_t ntasks;
    size_t *order;           /* indices into the caller's task array, by component, launch order */
    struct clarity_replay_component *comp;
    size_t ncomp;
    double *scratch;         /* 2 x ntasks doubles for runs: one plan, one run at a time */
};

/* Groups tasks by unit; a unit spans [min launch, max(finish - trim)] (its "conservative
 * finish"); units whose spans overlap (start < running max finish, in start order) are pooled
 * into one component, as [R] pools concurrent map stages, generalized to several groups.
 * Each component gets one slot count: observed, or configured (app required) with observed
 * as fallback. Tasks keep launch order within a component (ties by array index). O(n log n).
 * Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_replay_plan_build(const struct clarity_sim_task *t, size_t n, enum clarity_slot_mode mode,
                              const struct clarity_app *a, struct clarity_replay_plan *out, struct clarity_error *err);
/* Sum over components of their makespans with runtime[i] for task i (the caller's indexing).
 * Components run back to back: inter-stage gaps and driver time are not modelled. */
double clarity_replay_plan_run(const struct clarity_replay_plan *p, const double *runtime);
void clarity_replay_plan_free(struct clarity_replay_plan *p);

/* Wall time of the application and, of it, the time no task of the plan ran (before the
 * first, between components, after the last): driver work a replay leaves as measured. */
void clarity_app_driver_time(const struct clarity_app *a, const struct clarity_replay_plan *p,
                             int64_t *actual_ms, int64_t *driver_ms);
/* Fraction of a span's slot time that tasks used: busy / (slots x span) (thesis 5.6.6
 * concurrent-job attribution; also the core-count curve's efficiency). 0 when slots or span
 * is 0. */
double clarity_slot_share(double busy_ms, double slots, double span_ms);


/* ---- taskcomp ---- */
/* Where one task attempt's time went, from standard event-log metrics (as the thesis' scripts
 * derive them; input read, output write and local shuffle read times are not logged),
 * and its runtime with one resource removed. Times in ms as doubles: Shuffle Write Time and
 * CPU time are logged in ns. Part of src/sim, the analyses' shared lower module: blocked
 * time, stragglers and the what-if models all start from these components. */

struct clarity_task_comp {
    size_t row;                  /* task row in the model */
    uint32_t stage;              /* stage attempt row */
    uint32_t host, executor;     /* string ids */
    int64_t launch_ms, finish_ms;
    double runtime_ms;           /* finish - launch */
    double sched_delay_ms;       /* max(0, runtime - run - deser - result ser - getting result) */
    double deser_ms, result_ser_ms, getting_result_ms, run_ms;
    double fetch_wait_ms;        /* remote shuffle blocks only: network and remote disk */
    double shuffle_write_ms;     /* Shuffle Write Time ns / 1e6 */
    double gc_ms;                /* executor-wide JVM GC delta over the task's life */
    double cpu_ms;               /* Executor CPU Time ns / 1e6; valid when cpu_logged */
    double deser_cpu_ms;
    double unattributed_ms;      /* max(0, run - cpu - gc - fetch wait - shuffle write); cpu_logged */
    /* Not in standard logs (the thesis instrumented HDFS and Spark for them): always 0 here. */
    double input_read_ms, output_write_ms, local_read_ms;
    int64_t input_bytes, input_records, shuffle_read_bytes, shuffle_read_records;
    int64_t output_bytes, shuffle_write_bytes;
    bool has_fetch;              /* read shuffle data */
    bool data_local;             /* PROCESS_LOCAL or NODE_LOCAL */
    bool cpu_logged;             /* Spark 2.1+ */
    bool clamped;                /* a metric exceeded the runtime and was clamped */
};

/* Fills c from task row `row` of a (any attempt; callers pick the successful ones). */
void clarity_task_comp_from_row(const struct clarity_app *a, size_t row, struct clarity_task_comp *c);

/* ---- task view ---- */
/* The successful attempts (Task End Reason "Success") of an application as an index over the
 * model's columnar task table: 4 bytes per task, no copy of any metric. Analyses work one
 * stage attempt (or one group of overlapping stages) at a time and compute the components of
 * just those tasks, from the rows, into scratch they reuse. */

struct clarity_task_counts {
    size_t n;                    /* successful attempts: the ones analysed */
    size_t failed, killed, without_end, other_end;   /* attempts excluded */
    size_t speculative;          /* successful speculative attempts (included) */
};

struct clarity_task_view {
    const struct clarity_app *app;
    uint32_t *rows;              /* successful task rows by stage attempt row, then by task row */
    uint32_t *start;             /* stage attempt row s has rows[start[s] .. start[s + 1]) */
    size_t nstages;              /* app->nstages */
    size_t max_stage;            /* most successful tasks in one stage attempt */
    struct clarity_task_counts counts;
};

/* Two passes over the end-reason and stage columns (a counting sort). Returns 0, or
 * CLARITY_ENOMEM with err filled, or CLARITY_EFORMAT when the table has more rows than a
 * 32-bit index holds. */
int clarity_task_view_build(const struct clarity_app *a, struct clarity_task_view *v, struct clarity_error *err);
void clarity_task_view_free(struct clarity_task_view *v);

static inline size_t clarity_task_view_stage_size(const struct clarity_task_view *v, size_t s)
{ return v->start[s + 1] - v->start[s]; }
static inline const uint32_t *clarity_task_view_stage_rows(const struct clarity_task_view *v, size_t s)
{ return v->rows + v->start[s]; }
/* c[0 .. stage size) = the components of stage attempt s's successful tasks, in row order. */
void clarity_task_view_stage_comps(const struct clarity_task_view *v, size_t s, struct clarity_task_comp *c);

/* Compute time: runtime - scheduler delay - shuffle write - input read - output write
 * - (fetch wait + local read if it read shuffle data). Includes GC ([R] compute). */
double clarity_task_compute_ms(const struct clarity_task_comp *c);

/* Resources a task can be relieved of. */
enum clarity_resource {
    CLARITY_RES_NETWORK,         /* fetch wait (+ output write, remote input read: not logged) */
    CLARITY_RES_DISK,            /* partial: shuffle write + fetch wait (input/output/local read not logged) */
    CLARITY_RES_SHUFFLE_READ,    /* fetch wait + local read (not logged) */
    CLARITY_RES_SHUFFLE_WRITE,
    CLARITY_RES_GC,
    CLARITY_RES_SCHED_DELAY,
    CLARITY_RES_NON_CPU,         /* only CPU left: executor + deserialize CPU time */
    CLARITY_RES_STRAGGLERS,      /* Dolly rule: per stage, not per task (see stragglers.h) */
    CLARITY_RES_COUNT
};
const char *clarity_resource_name(enum clarity_resource r);   /* JSON key: "network", ... */

/* Runtime without resource r, clamped to [0, runtime]. NON_CPU without a CPU time, and
 * STRAGGLERS, return the runtime unchanged. */
double clarity_task_without(const struct clarity_task_comp *c, enum clarity_resource r);

/* ---- groups ---- */
/* Which successful task attempts make up a job, a SQL query or the application: the units
 * blocked-time, straggler and what-if analyses report on (src/sim, their shared lower module).
 * A stage attempt belongs to at most one job and so to at most one query: a group is a list
 * of stage attempts, and its tasks are theirs in the task view. */

enum clarity_group_kind { CLARITY_GROUP_JOB = 1, CLARITY_GROUP_SQL = 2, CLARITY_GROUP_APP = 4 };
const char *clarity_group_kind_name(int kind);   /* "job", "sql", "app" */

struct clarity_group {
    int kind;
    int64_t id;              /* job id, SQL execution id, 0 for the application */
    size_t row;              /* row in app->jobs / app->sqls */
    const uint32_t *stages;  /* stage attempt rows with successful tasks, ascending */
    size_t nstages;
    size_t ntasks;           /* successful tasks of those stages */
};
struct clarity_groups { struct clarity_group *g; size_t n; uint32_t *pool; };

/* A stage attempt belongs to one job: of the jobs that list its stage, the one submitted
 * last before the stage's first task launched (else the lowest job id). A job that reuses an
 * earlier job's shuffle output lists that stage as skipped; counting its tasks there too, as
 * the thesis' scripts do, would stretch the later job over both. SQL queries take their
 * jobs' stages. Groups come jobs first (by id), then SQL queries (by id), then the app.
 * Linear in tasks, stages and the jobs' stage lists. Returns 0, or CLARITY_ENOMEM with err
 * filled. */
int clarity_groups_build(const struct clarity_task_view *v, int kinds, struct clarity_groups *out,
                         struct clarity_error *err);
void clarity_groups_free(struct clarity_groups *g);

/* ---- dolly ---- */
/* Dolly's straggler rule (thesis 4.7.4) on task components: what a stage would have taken had
 * no task run slower than the stage's median rate. Blocked time replays these runtimes as its
 * "without stragglers" case and the straggler analysis reports on the same rates, so both use
 * this one definition (src/sim, the analyses' shared lower module). */

/* Input a task's rate is measured against: shuffle bytes read if any, else input bytes. */
int64_t clarity_task_input_bytes(const struct clarity_task_comp *c);

/* The stage's median rate (runtime per input byte) over all[idx[k]], k < n, with input (idx
 * NULL: all[k]); 0 when no task read input. Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_dolly_median(const struct clarity_task_comp *all, const size_t *idx, size_t n, double *median,
                         struct clarity_error *err);
/* A task slower than the median rate runs at it (input x median); others, and tasks without
 * input, keep their runtime. */
double clarity_dolly_runtime(const struct clarity_task_comp *c, double median);

/* One stage: all[idx[0..n-1]] (idx NULL: all[0..n-1]) are its tasks; runtime[k] gets
 * clarity_dolly_runtime of task k with the stage's median. Returns 0, or CLARITY_ENOMEM with
 * err filled. */
int clarity_dolly_stage(const struct clarity_task_comp *all, const size_t *idx, size_t n, double *runtime,
                        struct clarity_error *err);

/* Matching the items of two runs by what they are, never by id (clarity diff's stages, jobs and
 * queries; LADRA's reference run's stages). One item to match: its name (C string), a shape hash (0 when none) and its id (the order of
 * the items of one name). */
struct clarity_match_key {
    const char *name;
    uint64_t shape;
    int64_t id;
};
/* Matches a[] with b[]: same name and, among the items of that name in id order, the same
 * position; with use_shape, first by (name, shape, position among that name and shape), then
 * what is left by (name, position among the left items of that name). a_to_b[i] is the index
 * in b of a[i]'s match or -1 (b_to_a likewise); ord_a[i] is a[i]'s position among same-named
 * items of a (ord_b likewise). 0, or CLARITY_ENOMEM. O((na + nb) log(na + nb)). */
int clarity_match_items(const struct clarity_match_key *a, size_t na, const struct clarity_match_key *b, size_t nb,
                       bool use_shape, long *a_to_b, long *b_to_a, uint32_t *ord_a, uint32_t *ord_b);

#endif
