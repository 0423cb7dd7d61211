/* Stragglers and their causes (thesis 4.7): per stage attempt, tasks
 * whose inverse progress rate (runtime per input byte) is at least 1.5x the stage median, and
 * which resource, had it taken no time in every task of the stage, would make them ordinary.
 * Beyond the thesis: stragglers concentrated on one host or executor, and data skew. */
#ifndef CLARITY_STRAGGLERS_H
#define CLARITY_STRAGGLERS_H
#include "clarity/sim.h"
#include "clarity/error.h"

#define CLARITY_STRAGGLER_FACTOR 1.5
/* clarity_stragglers_analyze examines stages with at least this many rated tasks (smaller
 * ones get a `skipped` reason): among fewer, the median is no measure of a normal task, and
 * "1.5x the median" is the tasks' spread (of two tasks of one stage, one is a straggler
 * whenever they differ by half). clarity_stragglers_stage applies no such rule. */
#define CLARITY_STRAGGLER_MIN_RATED 10
#define CLARITY_STR_(x) #x
#define CLARITY_STR(x) CLARITY_STR_(x)

/* Causes, as bit numbers in the per-task flags. The first six are the thesis' (input read
 * time is not in standard logs, so that cause can never be found and is only labelled). */
enum clarity_scause {
    CLARITY_SC_SCHED_DELAY, CLARITY_SC_SHUFFLE_READ, CLARITY_SC_SHUFFLE_WRITE, CLARITY_SC_GC,
    CLARITY_SC_OUTPUT_SKEW, CLARITY_SC_FIRST_TASK,
    CLARITY_SC_SLOW_HOST, CLARITY_SC_SLOW_EXECUTOR,
    CLARITY_SC_COUNT
};
#define CLARITY_SC_THESIS_MASK 0x3fu
#define CLARITY_SF_STRAGGLER (1u << 14)
#define CLARITY_SF_SLOW_DATA (1u << 13)   /* runtime >= 1.5x median and input >= 1.5x median */
const char *clarity_scause_name(int cause);     /* JSON key: "scheduler_delay", ... */
const char *clarity_scause_label(int cause);    /* text: "scheduler delay", ... */

struct clarity_stage_strag {
    uint32_t stage;              /* stage attempt row */
    size_t tasks, with_input;
    const char *skipped;         /* why stragglers were not sought, NULL when they were */
    double median_ipr;           /* ms per byte over tasks with input */
    size_t stragglers, explained, explained_thesis;
    size_t by_cause[CLARITY_SC_COUNT];
    bool shuffle_input;          /* input = shuffle bytes read (else input bytes) */
    /* slow host / executor: most of the stage's stragglers, at >= 2x the others' rate */
    uint32_t slow_host, slow_executor;            /* string ids, 0 none */
    size_t slow_host_stragglers, slow_host_tasks, slow_exec_stragglers, slow_exec_tasks;
    /* data skew over tasks with input: max / median bytes and records */
    double bytes_max_over_median, records_max_over_median;
    size_t slow_tasks;           /* runtime >= 1.5x the median runtime */
    size_t slow_tasks_more_data; /* ... that also had >= 1.5x the median input bytes or records */
};

/* Rates are runtime per clarity_task_input_bytes() (dolly.h, shared with blocked time's
 * Dolly case). */

/* One stage: all[idx[0..n-1]] (idx NULL: all[0..n-1]) are its successful attempts. flags[k] (for idx[k]) gets
 * CLARITY_SF_* and a bit per cause; ratio (optional) gets ipr / median ipr (0 without input).
 * Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_stragglers_stage(const struct clarity_task_comp *all, const size_t *idx, size_t n,
                             struct clarity_stage_strag *out, uint16_t *flags, double *ratio,
                             struct clarity_error *err);

struct clarity_straggler_group {
    int kind; int64_t id; size_t row;
    size_t tasks, stages, stages_analyzed;
    size_t stragglers, explained, explained_thesis;
    size_t by_cause[CLARITY_SC_COUNT];
};

/* One of the slowest successful attempts. */
struct clarity_straggler_top {
    struct clarity_task_comp t;
    uint16_t flags;              /* CLARITY_SF_* and a bit per cause, as in its stage */
    double ratio;                /* ipr / stage median ipr; 0 without input */
};

struct clarity_stragglers_result {
    struct clarity_task_counts counts;   /* attempts rated (counts.n) and left out */
    struct clarity_stage_strag *stages; size_t nstages;   /* stage attempts with tasks, by stage id */
    struct clarity_straggler_group *groups; size_t ngroups;
    struct clarity_straggler_top *top; size_t ntop;       /* the slowest tasks, slowest first (ties: row) */
};

/* Every stage attempt of the application, one worker per core (threads: 0 one per core, 1
 * none; the result is the same for any count); groups of the kinds asked (CLARITY_GROUP_*),
 * summed from their stages; the top_n slowest successful attempts, kept in a bounded heap.
 * Memory beyond the task view: per worker, the components of the largest stage and top_n
 * entries. Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_stragglers_analyze(const struct clarity_app *a, int kinds, size_t top_n, int threads,
                               struct clarity_stragglers_result *out, struct clarity_error *err);
void clarity_stragglers_free(struct clarity_stragglers_result *r);

#endif
