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
    struct clarity_task_counts counts;       /* successful attempts (replayed) and the others */
    size_t cpu_logged, clamped;              /* replayed attempts with a CPU time; with a metric clamped */
    struct clarity_blocked_group *groups; size_t ngroups;
};

/* Groups of the kinds asked (CLARITY_GROUP_* mask), one worker per core (threads: 0 one per
 * core, 1 none; the result is the same for any count). Works stage by stage and replay
 * component by component from the task view: memory beyond the view is per stage and per
 * group, plus, per worker, the tasks of the largest component being replayed. Returns 0, or
 * CLARITY_ENOMEM with err filled (out is then empty). */
int clarity_blocked_analyze(const struct clarity_app *a, int kinds, enum clarity_slot_mode mode, int threads,
                            struct clarity_blocked_result *out, struct clarity_error *err);
void clarity_blocked_free(struct clarity_blocked_result *r);

/* Each group as soon as its figures are final, in the order of clarity_blocked_analyze's
 * array (jobs, SQL queries, the application): g lives only during the call. head has the
 * result's other fields (ngroups is the number of groups; groups is NULL). Non-zero stops
 * the analysis and is returned (err filled by the callee). */
typedef int (*clarity_blocked_group_fn)(void *ctx, const struct clarity_blocked_result *head,
                                        const struct clarity_blocked_group *g, struct clarity_error *err);
/* clarity_blocked_analyze without the array of every group's result (392 bytes a group, two
 * per job: most of the analysis' memory on a log of many small jobs): a writer that streams
 * the groups holds none of them. Returns 0, CLARITY_ENOMEM with err filled (before any
 * group was handed out), or what each returned. head needs no clarity_blocked_free. */
int clarity_blocked_analyze_each(const struct clarity_app *a, int kinds, enum clarity_slot_mode mode, int threads,
                                 struct clarity_blocked_result *head, clarity_blocked_group_fn each, void *ctx,
                                 struct clarity_error *err);

#endif
