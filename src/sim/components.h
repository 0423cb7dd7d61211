/* Replay components built from per-stage summaries instead of per-task copies: what the
 * blocked-time replay, the core-count curve and the resource model's driver time share.
 *
 * A replay plan (sim.h) pools stage attempts whose spans overlap into components and replays
 * each component on its own slots. The pooling needs only each stage's first launch and
 * conservative finish, so it is done on stages; a component's tasks are then gathered from
 * the task view, replayed and dropped, one component at a time. Memory: the stage summaries
 * plus the largest component, never the whole application at once. */
#ifndef CLARITY_SIM_COMPONENTS_H
#define CLARITY_SIM_COMPONENTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/sim.h"

/* A stage attempt's tasks as the pooling sees them (clarity_replay_plan_build's units). */
struct clarity__stage_span {
    double start;                /* first launch */
    double cfin;                 /* conservative finish: max over tasks of finish - scheduler delay */
    int64_t first_ms, last_ms;   /* min launch, max finish */
};
/* The span of c[0..n), n > 0 (one stage's tasks). */
void clarity__stage_span_of(const struct clarity_task_comp *c, size_t n, struct clarity__stage_span *out);

/* span[s] for every stage attempt row s with tasks, computed one stage at a time (one worker
 * per core; threads as clarity__workers_run). Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity__stage_spans(const struct clarity_task_view *v, int threads, struct clarity__stage_span *span,
                         struct clarity_error *err);
/* The stage attempt rows with tasks, ascending, into units (v->nstages entries); their count. */
size_t clarity__stages_with_tasks(const struct clarity_task_view *v, uint32_t *units);

/* Components are struct clarity_replay_component (sim.h) with first and nunits a range of the
 * units array (stage attempt rows) instead of tasks; n is their task count; slots unset. */

/* Pools the stage attempts units[0..n) (rows with tasks; span[] indexed by stage row) as
 * clarity_replay_plan_build does: units sorted by (start, row), a new component wherever a
 * start reaches no earlier conservative finish. Reorders units; *comp (malloc'd) gets the
 * components in start order. Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity__components_build(const struct clarity_task_view *v, const struct clarity__stage_span *span,
                              uint32_t *units, size_t n, struct clarity_replay_component **comp, size_t *ncomp,
                              struct clarity_error *err);

/* One task of a component in replay order. */
struct clarity__launch_row { int64_t launch; uint32_t row; };
/* out[0..ntasks) = the tasks of the stages units[0..nunits) by (launch, row): the replay's
 * launch order, ties in row order. */
void clarity__component_tasks(const struct clarity_task_view *v, const uint32_t *units, size_t nunits,
                              struct clarity__launch_row *out, size_t ntasks);

/* Configured slots for any interval in O(log executors): the executor-core timeline of
 * clarity_sim_configured_slots, built once. An executor removed before it was added (no
 * timeline describes it) makes every query fall back to the plain scan. */
struct clarity__slot_index {
    const struct clarity_app *app;
    int task_cpus;
    bool scan;                   /* answer with clarity_sim_configured_slots */
    struct clarity__core_line {
        size_t n, levels;
        int64_t *t;              /* distinct add / remove times, ascending */
        int64_t **max;           /* max[l][i]: most cores alive over events i .. i + 2^l - 1 */
    } exec, driver;
};
int clarity__slot_index_build(const struct clarity_app *a, struct clarity__slot_index *x, struct clarity_error *err);
int clarity__slot_index_query(const struct clarity__slot_index *x, int64_t from_ms, int64_t to_ms);
void clarity__slot_index_free(struct clarity__slot_index *x);

/* clarity_sim_observed_slots of t[0..n) in launch order, sweeping a heap of finishes (heap
 * holds n doubles) instead of sorting every start and end. */
int clarity__observed_slots_sorted(const struct clarity_sim_task *t, size_t n, double *heap);

/* Slots of one component: configured (index non-NULL) when known, else observed over its
 * tasks t[0..n), in launch order (heap: n doubles of scratch). *fallback: configured asked
 * for but unknown. */
int clarity__component_slots(const struct clarity__slot_index *x, const struct clarity_sim_task *t, size_t n,
                             int64_t start_ms, int64_t end_ms, double *heap, bool *fallback);

#endif
