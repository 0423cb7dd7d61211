/* What to fix first: ranked findings, each with the wall time (or core time) its fix would
 * save, how that saving was computed, and the Spark setting to change.
 *
 * Findings sits one layer above the other analyses (tests/layers/check.py): it aggregates
 * them. Per stage it calls the straggler analysis (clarity_stragglers_stage: data skew, slow
 * hosts), for idle executors the what-if core-count curve (clarity_curve_analyze), and its
 * savings come from the slot replay of src/sim/ (the one blocked time uses) re-run with the
 * problem removed: skewed partitions split, slow-host tasks at the stage's median rate, failed
 * attempts gone, a stage repartitioned over the slots it had. A saving the replay cannot give
 * is an upper bound ("bound") or an estimate from logged bytes ("estimate"), and says so.
 * The rules, their thresholds and why: docs/findings.md. */
#ifndef CLARITY_FINDINGS_H
#define CLARITY_FINDINGS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/anomalies.h"
#include "clarity/contention.h"
#include "clarity/error.h"
#include "clarity/model.h"

/* The kind names are fixed (the JSON key "kind"; the evaluation and `clarity diff` key on
 * them): keep the order in step with clarity_finding_kind_name(). */
enum clarity_finding_kind {
    CLARITY_FK_DATA_SKEW, CLARITY_FK_SLOW_HOST, CLARITY_FK_SPILL, CLARITY_FK_TOO_FEW_PARTITIONS,
    CLARITY_FK_TINY_TASKS, CLARITY_FK_OVERSIZED_PARTITIONS, CLARITY_FK_IDLE_EXECUTORS, CLARITY_FK_GC_PRESSURE,
    CLARITY_FK_MEMORY_HEADROOM, CLARITY_FK_TASK_FAILURES, CLARITY_FK_FETCH_FAILURES, CLARITY_FK_LOST_EXECUTORS,
    CLARITY_FK_SPECULATION_WASTE, CLARITY_FK_DRIVER_BOUND, CLARITY_FK_SCHEDULER_DELAY, CLARITY_FK_REPEATED_WORK,
    CLARITY_FK_CARTESIAN_JOIN, CLARITY_FK_LARGE_BROADCAST, CLARITY_FK_ANOMALY, CLARITY_FK_CONTENTION,
    CLARITY_FK_COUNT
};
const char *clarity_finding_kind_name(enum clarity_finding_kind k);   /* "data_skew", ...; "?" out of range */

enum clarity_finding_method {
    CLARITY_FM_REPLAY,           /* slot replay re-run with the problem removed */
    CLARITY_FM_BOUND,            /* an upper bound (the whole component removed) */
    CLARITY_FM_ESTIMATE          /* neither: from logged sizes and assumed rates */
};
const char *clarity_finding_method_name(enum clarity_finding_method m);   /* "replay", "bound", "estimate" */
enum clarity_finding_confidence { CLARITY_FC_HIGH, CLARITY_FC_MEDIUM, CLARITY_FC_LOW };
const char *clarity_finding_confidence_name(enum clarity_finding_confidence c);   /* "high", ... */

/* Which `where` fields apply. */
enum { CLARITY_FW_JOB = 1, CLARITY_FW_SQL = 2, CLARITY_FW_STAGE = 4, CLARITY_FW_STAGE_ATTEMPT = 8,
       CLARITY_FW_EXECUTOR = 16, CLARITY_FW_HOST = 32 };

/* One figure from the log that triggered a finding. name and unit are static strings; the
 * JSON key is name (which already ends with its unit: "max_shuffle_read_bytes"). */
struct clarity_finding_evidence { const char *name; double value; const char *unit; };
#define CLARITY_FINDING_MAX_EVIDENCE 8

struct clarity_finding {
    enum clarity_finding_kind kind;
    unsigned where;              /* CLARITY_FW_* mask */
    int64_t job, sql, stage;
    int32_t stage_attempt;
    char executor[64], host[128];
    char title[200];
    int64_t saving_ms;           /* wall time saved (estimated) */
    int64_t saving_core_ms;      /* core time saved; -1 when that is not the cost */
    enum clarity_finding_method method;
    enum clarity_finding_confidence confidence;
    /* queries that arrived on their own (a server, a throughput run): 1 when the saving is the
       shift of the application's end with each query held at its logged arrival, 2 when that
       replay's budget was spent (the saving is then an upper bound), 0 when every stage
       follows the one before (the component replay alone) */
    unsigned char arrivals;
    char caveat[240];            /* "" when none */
    char setting[80], current[80], proposed[80];   /* setting "" when the action is a code change */
    char action[320];            /* the sentence: "Try ...; or ..." */
    struct clarity_finding_evidence ev[CLARITY_FINDING_MAX_EVIDENCE];
    size_t nev;
};

struct clarity_findings {
    struct clarity_finding *f; size_t n;   /* ranked: largest saving_ms first (then core ms, kind) */
    int64_t duration_ms;         /* application wall time */
    int64_t core_ms_allocated;   /* executor cores x their lifetime (the driver's cores in local mode) */
    int64_t task_ms;             /* sum of all task attempts' durations */
    int64_t driver_ms;           /* of duration_ms, time no task ran */
    int slots;                   /* most executor cores alive at once / spark.task.cpus (0 unknown) */
    size_t tasks, stages;        /* task attempts replayed, stage attempts with tasks */
    size_t candidates;           /* rule hits before the minimum-saving filter */
};

struct clarity_findings_options {
    int threads;                 /* 0: one per core; 1: none (the result is the same) */
    /* A finding whose wall and core savings are both below min_share of the application
     * (duration, allocated core time) and below min_ms is dropped (docs/findings.md: the
     * "no false alarms" rule). 0 and 0: the defaults, 2% and 1000 ms. */
    double min_share;
    int64_t min_ms;
    bool keep_all;               /* keep every rule hit (tests, --all) */
    /* The other analyses' findings, each run only when given (they cost what `clarity
     * anomalies` and `clarity contention` cost; docs/findings.md says when the CLI runs them):
     * anomalies: LADRA's abnormal period that matters, with its root cause and host (kind
     * anomaly); contention: iQCAR's most aggressive query among the application's concurrent
     * queries (kind contention). NULL: not run. */
    const struct clarity_anomalies_options *anomalies;
    const struct iqcar_options *contention;
};

/* Every rule of docs/findings.md on one application. Returns 0, or CLARITY_ENOMEM with err
 * filled (out is then empty). */
int clarity_findings_analyze(const struct clarity_app *a, const struct clarity_findings_options *opt,
                             struct clarity_findings *out, struct clarity_error *err);
void clarity_findings_free(struct clarity_findings *f);

/* ---- across applications (clarity findings --deep over several logs; fnd_cross.c) ----
 * Applications of a shared cluster that ran at the same time: iQCAR over them at once, one
 * unit per application (as `clarity contention --unit app` runs it), and a contention finding
 * when one application's tasks took a large share of the others' runtime (docs/findings.md,
 * "Across applications"). */

/* Groups of applications whose spans [start_ms, end_ms) overlap, chained (a overlaps b, b
 * overlaps c: one group). group[i] gets application i's group (0, 1, ... in order of their
 * first start), or SIZE_MAX when it overlaps no other application. Returns the number of
 * groups (each of two or more), or SIZE_MAX when out of memory. */
size_t clarity_findings_overlap_groups(const int64_t *start_ms, const int64_t *end_ms, size_t n, size_t *group);

/* A group of n applications (ordered by start) analysed at most k at a time, so a never-idle
 * cluster, whose whole directory chains into one group, never holds every model at once: a
 * group of at most k is one window, as it is; a larger one is cut into consecutive blocks of
 * k / 2 applications (*block gets that length; the last block may be shorter) and window j is
 * blocks j and j + 1, so any two applications fewer than k / 2 apart in start order share a
 * window, and a caller that keeps block j + 1 loaded for the next window holds at most k
 * models. k below 4 counts as 4 (blocks of two), an odd k as k - 1. Returns the number of
 * windows (0 when n < 2). */
size_t clarity_findings_cross_windows(size_t n, size_t k, size_t *block);
#define CLARITY_CROSS_DEFAULT_WINDOW 16
/* count[i]: how many of the other spans overlap span i (0 for an empty span), by sorting, not
 * pairwise: a window's finding is kept only where every application that overlapped its
 * culprit and its victims is in the window. Returns 0, or -1 when out of memory. */
int clarity_findings_overlap_counts(const int64_t *start_ms, const int64_t *end_ms, size_t n, size_t *count);

#define CLARITY_CROSS_MAX_VICTIMS 8
struct clarity_cross_victim { char app_id[128]; double dor; int64_t runtime_ms; size_t index; /* into apps */ };
struct clarity_cross_finding {
    struct clarity_finding f;    /* kind contention: saving [estimate], evidence, action */
    char title[600];             /* the whole title (f.title holds it cut to its 200 bytes) */
    char app_id[128], name[128]; /* the culprit application (its id and attempt "id/attempt") */
    size_t culprit;              /* its index into the apps given */
    struct clarity_cross_victim victims[CLARITY_CROSS_MAX_VICTIMS];   /* in the victim answer's order */
    size_t nvictims;             /* listed (at most CLARITY_CROSS_MAX_VICTIMS of victims_total) */
    size_t victims_total;
};
/* The rule over one group of overlapping applications (all of apps; napps >= 2), iQCAR with
 * opt (its unit is set to application). *found is true and out filled when it fires. Returns
 * 0, or CLARITY_ENOMEM with err filled. */
int clarity_findings_cross(const struct clarity_app *const *apps, size_t napps, const struct iqcar_options *opt,
                           struct clarity_cross_finding *out, bool *found, struct clarity_error *err);

#endif
