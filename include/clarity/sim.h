/* Slot replay: list scheduling of task runtimes on N slots, the way Ousterhout's blocked-time
 * analysis re-simulates a job (thesis 3.3.2). Shared by blocked time,
 * stragglers (Dolly impact), core-count what-ifs and prediction.
 *
 * src/sim is the shared lower module of the analyses: what more than one analysis feature needs
 * lives here (task time components, taskcomp.h; job/SQL/app task groups, groups.h; Dolly's
 * straggler-free runtimes, dolly.h; the replay plans, this file and dag_replay.h), so that the
 * feature folders under src/analysis never include one another (tests/layers checks it).
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

/* Above this many tasks a stage's slot count is its average concurrency; at or below it, its
 * peak concurrency (few tasks: a straggler would distort the average). [R] */
#define CLARITY_SIM_PEAK_MAX_TASKS 40

/* Makespan of list-scheduling runtimes[0..n-1] (already in launch order) on `slots` slots:
 * each task starts on the slot that frees first. O(n log slots). scratch holds at least
 * min(n, slots) doubles, or is NULL to allocate. Returns 0 for n == 0; slots < 1 counts as 1;
 * negative runtimes count as 0. Returns -1 only when allocation fails. */
double clarity_sim_makespan(const double *runtimes, size_t n, int slots, double *scratch);

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

#endif
