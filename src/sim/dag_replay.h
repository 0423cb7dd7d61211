/* DAG-aware slot replay for core-count what-ifs: the blocked-time replay plan (sim.h: stage
 * attempts pooled into components of overlapping stages, one slot count and one launch order
 * per component) plus stage dependencies inside a component. A stage's tasks become runnable
 * when all its parent stages' tasks have finished; runnable stages share the component's
 * slots, each free slot taking the runnable task that launched first in the log.
 *
 * Components still run one after the other, as they did: two stages that never overlapped in
 * the log were kept apart by a dependency or by the driver (a later job, an AQE re-plan), and
 * more slots would not have changed that. Without dependencies inside a component the replay
 * is exactly clarity_replay_plan_run's list scheduling, so at the observed slot counts it
 * reproduces blocked-time's t_s. */
#ifndef CLARITY_DAG_REPLAY_H
#define CLARITY_DAG_REPLAY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/sim.h"

/* child's tasks wait for all of parent's; both are unit keys of struct clarity_sim_task */
struct clarity_dag_edge { uint32_t parent, child; };

struct clarity_dag_plan {
    struct clarity_replay_plan base;   /* components, launch order, slots per component */
    size_t nunits;                     /* units over all components */
    size_t *comp_unit;                 /* per component c: its units are [comp_unit[c], comp_unit[c+1]) */
    uint32_t *unit_key;                /* per unit: the caller's unit key */
    uint32_t *pos_unit;                /* per position of base.order: its unit */
    size_t *par_off;                   /* per unit u: parents par[par_off[u] .. par_off[u+1]) */
    uint32_t *par;                     /* parent units, always in u's component */
    size_t internal_edges;             /* dependencies between units of one component */
};

/* Builds the blocked-time plan (same components, order and slots) and keeps the edges whose
 * two ends fall in one component (the others are already honoured by running components in
 * order). Duplicate and self edges are ignored. Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_dag_plan_build(const struct clarity_sim_task *t, size_t n, enum clarity_slot_mode mode,
                           const struct clarity_app *a, const struct clarity_dag_edge *edges, size_t nedges,
                           struct clarity_dag_plan *out, struct clarity_error *err);
void clarity_dag_plan_free(struct clarity_dag_plan *p);

/* Slots component c gets: `absolute` when > 0, else max(1, round(factor x its plan slots)). */
int clarity_dag_component_slots(const struct clarity_dag_plan *p, size_t c, double factor, int absolute);

/* *makespan = sum over components of their DAG-constrained makespans with runtime[i] for task
 * i (the caller's indexing) and the slots above. Never above the sum of runtimes, never below
 * the critical path. Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_dag_plan_run(const struct clarity_dag_plan *p, const double *runtime, double factor, int absolute,
                         double *makespan, struct clarity_error *err);

/* Infinite slots: *length = per component the longest chain of units, each weighted by its
 * longest task; summed over components. Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_dag_plan_critical_path(const struct clarity_dag_plan *p, const double *runtime, double *length,
                                   struct clarity_error *err);

/* One component alone: tasks 0..n-1 in list order, unit[k] < nunits their unit, parents of
 * unit u in par[par_off[u] .. par_off[u+1]) (an acyclic relation; a cycle is broken by
 * releasing the waiting units). The kernel under clarity_dag_plan_run: *makespan gets the
 * makespan. Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_dag_makespan(const double *runtime, const uint32_t *unit, size_t n, size_t nunits,
                         const size_t *par_off, const uint32_t *par, int slots, double *makespan,
                         struct clarity_error *err);

#endif
