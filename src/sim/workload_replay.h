/* Workload replay: the stages of many concurrent queries re-run on one cluster's slots, each
 * query arriving when it did, so that one query can be left out and every other query's new
 * end measured ("what if this query had not run?", the counterfactual iQCAR's answers are
 * checked against).
 *
 * Unlike the blocked-time plan (sim.h), components do not run back to back: time is absolute.
 * A stage is submitted either at its logged time (a query's first stages: its arrival, which
 * no other query decides) or a logged gap after the end of its predecessor, the stage of the
 * same query that ended last before it was submitted (a parent in the DAG, or the last stage
 * of the previous job). Submitted stages' tasks take free slots in the scheduler's order:
 * FIFO (job id, then stage id) or FAIR (the pool running fewest tasks first, weight 1 and
 * minShare 0 since pool settings are not logged; FIFO inside a pool). Task runtimes are the
 * logged ones: the replay moves tasks in time, it does not change how long they take (the
 * second-order effect of sharing disks and network is left out). One cluster-wide slot pool:
 * which host a task ran on does not constrain it. */
#ifndef CLARITY_WORKLOAD_REPLAY_H
#define CLARITY_WORKLOAD_REPLAY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/error.h"

#define CLARITY_WL_NONE UINT32_MAX

struct clarity_wl_stage {
    uint32_t unit;            /* query (0 .. nunits) */
    uint32_t pool;            /* FAIR pool (0 .. npools) */
    int64_t job_id, stage_id; /* FIFO order */
    double submit_ms;         /* logged submission */
    double end_ms;            /* logged end: its last task's finish (submit_ms without tasks) */
    uint32_t pred;            /* the stage whose end releases this one, or CLARITY_WL_NONE */
    size_t first, ntasks;     /* its tasks: run_ms[first .. first + ntasks), in launch order */
};

struct clarity_wl {
    const struct clarity_wl_stage *st; size_t nst;
    const double *run_ms; size_t ntasks;   /* per task: its runtime (launch to finish) */
    size_t nunits, npools;
    int slots;                              /* cluster-wide task slots (>= 1) */
    bool fair;
};

/* Scratch for replays of one workload, reused across runs (one run at a time). */
struct clarity_wl_run {
    double *sub, *end;        /* per stage: replayed submission and end */
    size_t *next;             /* per stage: tasks launched */
    size_t *left;             /* per stage: tasks not finished */
    uint32_t *child_off, *child;            /* per stage: the stages it releases (CSR) */
    void *heap_sub, *heap_run, *heap_act;   /* event and ready queues */
    uint32_t *pool_run;       /* per pool: tasks running */
    size_t *pool_act;         /* per pool: ready stages (FAIR) */
};

/* Sets st[s].pred for every stage: of the same unit, the stage that ended last at or before
 * s's submission and was submitted before it, by (submission, index), so the relation cannot
 * cycle; of equal ends the lowest index. CLARITY_WL_NONE where there is none. Each unit's stages
 * by submission sweep its stages by end: O(n log n). Returns 0, or CLARITY_ENOMEM. */
int clarity_wl_link_preds(struct clarity_wl_stage *st, size_t n);

/* Allocates the scratch for w. Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_wl_run_init(struct clarity_wl_run *r, const struct clarity_wl *w, struct clarity_error *err);
void clarity_wl_run_free(struct clarity_wl_run *r);

/* Replays w without the stages of unit `omit` (CLARITY_WL_NONE: all of them); unit_end[u]
 * gets unit u's replayed end (its last stage's end; -INFINITY for the omitted unit and units
 * without stages). Deterministic: ties broken by stage index. */
void clarity_wl_replay(const struct clarity_wl *w, struct clarity_wl_run *r, uint32_t omit, double *unit_end);

#endif
