/* Blocked-time analysis (thesis ch. 3): for a job, a SQL query or the
 * application, how much faster it would have finished had its tasks never blocked on a
 * resource. Per task, runtime without R; then the group's tasks are replayed on the slots
 * they had (sim.h), once with the real runtimes (t_s) and once without R (t_R). The
 * improvement 1 - t_R/t_s divides simulated by simulated, so replay error cancels out. */
#ifndef CLARITY_BLOCKED_H
#define CLARITY_BLOCKED_H
#include "clarity/error.h"
#include "clarity/sim.h"

struct clarity_blocked_without {
    bool available;              /* false: the log lacks the field (e.g. CPU time before 2.1) */
    double simulated_ms;         /* t_R */
    double improvement;          /* 1 - t_R / t_s, in [0, 1] */
    double blocked_ms;           /* sum over tasks of runtime - runtime without R */
};

struct clarity_blocked_group {
    int kind; int64_t id; size_t row;        /* enum clarity_group_kind; row in jobs/sqls */
    size_t tasks, stages, components;        /* components: stage groups replayed together */
    size_t pooled_stages;                    /* stages that overlapped another (pooled) */
    int slots_min, slots_max;
    size_t slots_fallback;                   /* components where configured slots were unknown */
    int64_t actual_ms;                       /* last task finish - first task launch */
    int64_t idle_ms;                         /* of which no task of the group was running */
    double simulated_ms;                     /* t_s */
    double replay_error;                     /* |t_s - actual| / actual; valid when has_error */
    bool has_error;
    size_t cpu_tasks, clamped_tasks;
    double task_ms;                          /* sum of task runtimes */
    struct clarity_blocked_without without[CLARITY_RES_COUNT];
};

struct clarity_blocked_result {
    enum clarity_slot_mode slots;
    struct clarity_task_comps comps;         /* successful attempts; counts of the others */
    struct clarity_blocked_group *groups; size_t ngroups;
};

/* Replays one group: tasks are comps->t[idx[0..n-1]]; dolly holds Dolly runtimes for every
 * comps task (NULL: no straggler what-if). Fills everything but kind/id/row. Returns 0, or
 * CLARITY_ENOMEM with err filled. */
int clarity_blocked_group_compute(const struct clarity_app *a, const struct clarity_task_comps *comps,
                                  const size_t *idx, size_t n, const double *dolly, enum clarity_slot_mode mode,
                                  struct clarity_blocked_group *out, struct clarity_error *err);

/* Groups of the kinds asked (CLARITY_GROUP_* mask). Returns 0, or CLARITY_ENOMEM with err
 * filled (out is then empty). */
int clarity_blocked_analyze(const struct clarity_app *a, int kinds, enum clarity_slot_mode mode,
                            struct clarity_blocked_result *out, struct clarity_error *err);
void clarity_blocked_free(struct clarity_blocked_result *r);

#endif
