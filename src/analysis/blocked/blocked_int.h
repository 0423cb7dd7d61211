/* Blocked-time analysis internals: what the per-stage pass leaves for the group replays and
 * the row pass (blocked.c drives the three, blocked_replay.c replays one group). */
#ifndef CLARITY_BLOCKED_INT_H
#define CLARITY_BLOCKED_INT_H
#include "clarity/blocked.h"
#include "sim/components.h"

/* [s, f]: a stretch of time when some task of a stage ran */
struct clarity__busy { int64_t s, f; };

struct clarity__blocked_stage {
    double dolly_median;         /* Dolly's target rate for the stage */
    size_t cpu_tasks, clamped_tasks;
    bool any_input;
    struct clarity__busy *busy;  /* the stage's task intervals merged, by start */
    size_t nbusy;
};

/* What every component replay shares. */
struct clarity__blocked_ctx {
    const struct clarity_task_view *v;
    const struct clarity__slot_index *slots;      /* NULL: observed slots */
    const struct clarity__blocked_stage *stage;    /* per stage attempt row */
};

/* One replay component, that is one set of stage attempts: a job, its query and the
 * application often pool the very same stages, and replaying them gives the same figures
 * whichever group asks, so each distinct set is replayed once. */
struct clarity__blocked_comp {
    const uint32_t *units; size_t nunits;         /* its stage attempts, by start */
    size_t ntasks;
    int64_t start_ms, end_ms;                     /* min launch, max finish */
    int slots;
    bool fallback;                                /* configured slots asked for but unknown */
    double ms[CLARITY_RES_COUNT + 1];             /* makespans: [0] the runtimes, [1 + r] without r */
};

/* A worker's buffers, grown to the largest component it replays. */
struct clarity__blocked_scratch {
    struct clarity__launch_row *lr;
    struct clarity_sim_task *st;
    double *rt[CLARITY_RES_COUNT + 1];            /* [0] the runtimes, [1 + r] without r */
    double *heap;
    size_t cap_tasks;
};
void clarity__blocked_scratch_free(struct clarity__blocked_scratch *s);

/* Replays c: its tasks gathered in launch order, their runtimes with and without each
 * resource computed from the model, every variant on c's slots. Returns 0, or CLARITY_ENOMEM
 * with err filled. */
int clarity__blocked_replay(const struct clarity__blocked_ctx *x, struct clarity__blocked_comp *c,
                            struct clarity__blocked_scratch *w, struct clarity_error *err);

/* Time within [first launch, last finish] when none of the stages' tasks ran, swept over
 * their merged task intervals; *span_ms gets that interval's length. buf holds every
 * interval of the stages (grown as needed). false when out of memory. */
bool clarity__blocked_idle(const struct clarity__blocked_stage *stage, const uint32_t *stages, size_t n,
                           struct clarity__busy **buf, size_t *cap, int64_t *idle_ms, int64_t *span_ms);

/* A task's runtime without resource r (Dolly's for STRAGGLERS), clamped to [0, runtime]: the
 * value both the replay and the blocked-time sum use. */
static inline double clarity__blocked_without(const struct clarity_task_comp *c, int r, double dolly_median)
{
    double v = r == CLARITY_RES_STRAGGLERS ? clarity_dolly_runtime(c, dolly_median)
                                           : clarity_task_without(c, (enum clarity_resource)r);
    if (v > c->runtime_ms) v = c->runtime_ms;
    if (!(v >= 0)) v = 0;
    return v;
}

#endif
