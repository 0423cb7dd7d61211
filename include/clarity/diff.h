/* clarity diff: what changed between two runs of an application (A, the reference, and B).
 * Jobs, SQL queries and stages are matched by what they are, never by id: ids shift whenever
 * one run has a job, query or retried stage more than the other. A stage is its name (Spark's
 * call site, "count at q72.scala:31") and its position among the stages of that name; a SQL
 * query its description, the shape of its physical plan and its position; a job its name and
 * position. Matching sorts both sides by key and merges them: O(n log n), no pair loop.
 * For each matched item the figures of both sides (wall time, task time per component, data
 * sizes, task count, executors) and what moved most; for the application the same, plus the
 * Spark properties that changed and the causes ranked. */
#ifndef CLARITY_DIFF_H
#define CLARITY_DIFF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/error.h"
#include "clarity/model.h"
#include "clarity/sim.h"

/* Where task time went (summed over the task attempts that ended, in ms): the components of
 * the task-time model of src/sim (struct clarity_task_comp). */
enum clarity_diff_comp {
    CLARITY_DC_CPU,              /* Executor CPU Time */
    CLARITY_DC_GC,               /* JVM GC Time */
    CLARITY_DC_FETCH_WAIT,       /* shuffle read: Fetch Wait Time */
    CLARITY_DC_SHUFFLE_WRITE,    /* Shuffle Write Time */
    CLARITY_DC_SCHED_DELAY,      /* launch to finish minus what the executor accounted for */
    CLARITY_DC_DESER,            /* task deserialization, result serialization and fetch */
    CLARITY_DC_OTHER,            /* run time in none of the above: I/O, waiting for a CPU, locks */
    CLARITY_DC_COUNT
};
const char *clarity_diff_comp_name(int c);    /* JSON key: "cpu_ms", "gc_ms", ... */
const char *clarity_diff_comp_label(int c);   /* text: "CPU", "GC", "fetch wait", ... */

/* Data sizes, as logged. */
enum clarity_diff_data {
    CLARITY_DD_INPUT_BYTES, CLARITY_DD_INPUT_RECORDS, CLARITY_DD_OUTPUT_BYTES, CLARITY_DD_OUTPUT_RECORDS,
    CLARITY_DD_SR_BYTES, CLARITY_DD_SR_RECORDS, CLARITY_DD_SW_BYTES, CLARITY_DD_SW_RECORDS,
    CLARITY_DD_MEM_SPILL, CLARITY_DD_DISK_SPILL, CLARITY_DD_COUNT
};
const char *clarity_diff_data_name(int d);    /* JSON key: "input_bytes", ... */
const char *clarity_diff_data_label(int d);   /* text: "input", "input records", ... */

/* One side's figures for an item (or the whole application). */
struct clarity_diff_side {
    int64_t wall_ms;             /* span (first submission to last completion), -1 unknown */
    int64_t tasks;               /* task attempts that ended (failed and killed ones too) */
    int64_t task_ms;             /* their launch-to-finish time */
    double comp_ms[CLARITY_DC_COUNT];
    int64_t data[CLARITY_DD_COUNT];
    int64_t executors;           /* distinct executors that ran a task */
    bool cpu_logged;             /* some task had a CPU time (Spark 2.1+) */
};

enum clarity_diff_kind { CLARITY_DK_STAGE, CLARITY_DK_SQL, CLARITY_DK_JOB };
const char *clarity_diff_kind_name(int k);    /* "stage", "sql", "job" */

/* A stage, SQL query or job in A, B or both. */
struct clarity_diff_item {
    int kind;                    /* enum clarity_diff_kind */
    const char *name;            /* stage/job name, SQL description (A's string, else B's) */
    uint32_t ordinal;            /* position among the items of the same kind and name (0 first) */
    bool in_a, in_b;             /* present on that side */
    int64_t a_id, b_id;          /* stage/sql/job id on each side (-1 when absent there; a damaged
                                    log can hold negative ids: in_a/in_b tell) */
    bool plan_changed;           /* SQL: matched by description only, the plan shapes differ */
    struct clarity_diff_side a, b;
    int64_t delta_ms;            /* b.wall - a.wall (0 unless both known) */
    int moved;                   /* enum clarity_diff_comp whose task time changed most in the
                                    direction of delta_ms, when the change is significant
                                    (any direction when delta_ms is 0), -1
                                    none (no component grew while the item took longer) */
    double moved_ms;             /* its change (B - A) */
    bool significant;            /* |delta_ms| is at least the noise share of A's wall time */
    int data_moved;              /* the byte figure (input, shuffle read/write, output, disk spill)
                                    that changed most relative to A, -1 none or below noise */
};

/* What a Spark property did between A and B. */
enum clarity_diff_cfg { CLARITY_CFG_CHANGED, CLARITY_CFG_ADDED, CLARITY_CFG_REMOVED };
struct clarity_diff_config {
    const char *key, *a, *b;     /* a NULL when added, b NULL when removed */
    int change;                  /* enum clarity_diff_cfg */
};

/* A reason B differs from A, ranked: the likely cause first. */
enum clarity_diff_cause_kind {
    CLARITY_CAUSE_CONFIG,        /* a Spark property changed: key */
    CLARITY_CAUSE_EXECUTORS,     /* fewer or more executors or cores */
    CLARITY_CAUSE_INPUT_SIZE,    /* input bytes changed */
    CLARITY_CAUSE_SHUFFLE_SIZE,  /* shuffle bytes changed (input did not) */
    CLARITY_CAUSE_SPILL,         /* bytes spilled to disk changed (memory) */
    CLARITY_CAUSE_TASK_COUNT,    /* tasks changed (partitioning) */
    CLARITY_CAUSE_SLOW_HOST,     /* one host's tasks slowed far more than the others': host */
    CLARITY_CAUSE_COMPONENT,     /* a task-time component moved: comp */
    CLARITY_CAUSE_COUNT
};
const char *clarity_diff_cause_name(int k);   /* "config", "executors", "input_size", "spill", ... */
struct clarity_diff_cause {
    int kind;                    /* enum clarity_diff_cause_kind */
    const char *what;            /* config key, host name, component JSON key; else NULL */
    double a, b;                 /* the figures compared (bytes, count, cores, ratio, ms) */
};

/* Per host: run time outside GC per CPU second (or per task when CPU time is not logged) on
 * each side. */
struct clarity_diff_host {
    const char *host;
    double a_rate, b_rate;       /* ms of run time per ms of CPU (per task without CPU) */
    int64_t a_tasks, b_tasks;
};

/* A finding (clarity findings) of A, B or both, keyed by kind and where: a stage, SQL query or
 * job as matched above (by what it is), a host by name, an executor by id, else the
 * application. */
enum clarity_diff_fchange { CLARITY_FIND_GONE, CLARITY_FIND_APPEARED, CLARITY_FIND_BOTH };
struct clarity_diff_finding {
    int change;                  /* enum clarity_diff_fchange */
    const char *kind;            /* clarity_finding_kind_name() */
    const char *title;           /* B's title when B has it, else A's */
    size_t item;                 /* index in items of the stage/SQL query/job, SIZE_MAX none */
    int64_t a_saving_ms, b_saving_ms;   /* -1 when absent on that side */
};

struct clarity_diff_options {
    double noise_pct;            /* a change below this (%) is noise; 0 = default 5 */
    bool no_findings;            /* do not run clarity_findings_analyze on both (faster) */
    int threads;                 /* for the findings analysis: 0 one per core */
};

/* Which application a side is: what the report and the pairing of many applications read. */
struct clarity_diff_ident {
    const char *app_id, *name;
    const char *attempt_id;      /* NULL when the log has none */
    const char *source;          /* the log's path, NULL when unknown */
    int64_t start_ms;
};

struct clarity_diff_result {
    struct clarity_diff_ident a_app, b_app;
    struct clarity_diff_side a, b;       /* whole application */
    int64_t a_cores, b_cores, a_execs, b_execs, a_hosts, b_hosts;  /* executors added (not the driver) */
    double change_pct;                   /* (B - A) / A wall time, %; 0 when A's is 0 */
    bool no_change;                      /* |change| below noise, same config, same data within noise */
    double noise_pct;
    struct clarity_diff_item *items;     /* stages, then SQL queries, then jobs, each by |delta| desc */
    size_t nitems, nstages, nsqls, njobs;
    size_t top_stage;                    /* index in items of the stage that moved most, SIZE_MAX none */
    struct clarity_diff_config *config;  /* sorted by key */
    size_t nconfig, nconfig_ignored;     /* ignored: ids, times, hosts and ports (see docs/diff.md) */
    struct clarity_diff_host *hosts;     /* hosts on both sides, sorted by name */
    size_t nhosts;
    struct clarity_diff_cause *causes;   /* ranked */
    size_t ncauses;
    struct clarity_diff_finding *findings;   /* gone, then appeared, then in both; by saving */
    size_t nfindings;
    bool findings_compared;              /* false with no_findings */
    struct clarity_arena arena;          /* owns the strings and arrays above */
};

/* One run's side of a comparison, built from its model alone: its figures per stage, SQL
 * query, job and host, its Spark properties, its findings (unless opt->no_findings) and copies
 * of every string the comparison and the report print. It does not point into the model, so
 * the model can be freed before the other run is read. */
struct clarity_diff_app;
/* Builds a's side (opt: no_findings and threads are read; NULL defaults). 0, or an error with
 * err filled (CLARITY_ENOMEM, or the findings analysis' error); *out is NULL on error. */
int clarity_diff_app_build(const struct clarity_app *a, const struct clarity_diff_options *opt, struct clarity_diff_app **out,
                           struct clarity_error *err);
const struct clarity_diff_ident *clarity_diff_app_ident(const struct clarity_diff_app *s);
void clarity_diff_app_free(struct clarity_diff_app *s);

/* Compares side b against side a; both must have been built with the same no_findings. The
 * result owns its strings: it outlives both sides. 0, or an error with err filled. */
int clarity_diff_compare(const struct clarity_diff_app *a, const struct clarity_diff_app *b, const struct clarity_diff_options *opt,
                         struct clarity_diff_result *out, struct clarity_error *err);
/* Compares application b against a: both sides built, compared and freed. 0, or an error with
 * err filled. */
int clarity_diff_analyze(const struct clarity_app *a, const struct clarity_app *b, const struct clarity_diff_options *opt,
                         struct clarity_diff_result *out, struct clarity_error *err);
void clarity_diff_free(struct clarity_diff_result *r);

/* ---- the building blocks, exposed for tests ---- */
/* Items are matched by clarity_match_items (clarity/sim.h: shared with LADRA's reference run). */
/* The shape of a physical plan: a hash of its operator names in order (the first word of each
 * node line of "== Physical Plan =="; expression ids, sizes and paths ignored). 0 for none. */
uint64_t clarity_diff_plan_shape(const char *plan);
/* True for a Spark property that differs between any two runs and says nothing about the
 * configuration: ids, times, host names and ports (the rule is in docs/diff.md). */
bool clarity_diff_config_ignored(const char *key);

#endif
