/* The core-count curve's replays, one pooled component at a time: each component's tasks
 * gathered from the task view with their stage dependencies, replayed at every point asked,
 * and dropped. Prints nothing. */
#ifndef CLARITY_CURVE_REPLAY_H
#define CLARITY_CURVE_REPLAY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/sim.h"
#include "sim/components.h"

/* What every component shares. */
struct clarity__curve_ctx {
    const struct clarity_task_view *v;
    const struct clarity__slot_index *slots;   /* NULL: observed slots */
    const uint32_t *units;                     /* stage attempt rows, as the components index them */
    const struct clarity_replay_component *comp;
    const size_t *par_off;                     /* per stage attempt row s: parents par[par_off[s] ..) */
    const uint32_t *par;                       /* parent stage attempt rows */
    size_t npoints;
    const double *factor;                      /* per point: slots x factor, or */
    const int *absolute;                       /* absolute slots when > 0 */
    const double *extra_ms;                    /* per task row: ms added to its runtime; NULL none */
};

/* Per component c: its slots, whether they fell back to observed, its internal dependencies,
 * its critical path, its replay at its own slots and at each point. */
struct clarity__curve_out {
    int *slots;
    bool *fallback;
    size_t *edges;
    double *critical, *observed;
    double *point;                             /* [c * npoints + i] */
    uint8_t *on_critical;                      /* per stage attempt row: 1 on a component's
                                                  critical path; NULL: not wanted */
};

/* Slots component c gets at a point: absolute when > 0, else max(1, round(factor x slots)). */
int clarity__curve_slots(int slots, double factor, int absolute);

/* Replays every component, one worker per core (threads as clarity__workers_run). Returns 0,
 * or CLARITY_ENOMEM with err filled. */
int clarity__curve_replay(const struct clarity__curve_ctx *x, size_t ncomp, int threads, struct clarity__curve_out *out,
                          struct clarity_error *err);

#endif
