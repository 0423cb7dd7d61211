/* The fleet index: a directory of many event logs kept in a store (clarity/store.h), read
 * incrementally. Each run lists the log entries under the root, reads only the new, grown and
 * changed ones (a stat and a 4 KiB head read decide), marks the vanished ones deleted, and
 * writes per application attempt the summary row, the findings and the History Server's
 * listing JSON. The same function reads a given list of entries into a shard store, which is
 * how Dask workers share the reading (scripts/fleet_dask.py; docs/fleet.md).
 *
 * The fleet sits above the reports: its rows reuse the fleet table's figures (executor
 * core-hours, idle core-hours, GC share) so `clarity summary` and `clarity fleet` agree. */
#ifndef CLARITY_FLEET_H
#define CLARITY_FLEET_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "clarity/error.h"
#include "clarity/model.h"
#include "clarity/store.h"

struct jsonw;   /* the JSON writer (src/util/jsonw.h): the CLI builds the envelope */

/* What one index run did; every count is of log entries unless it says otherwise. */
struct clarity_fleet_stats {
    size_t entries;       /* log entries found under the root (or named with `only`) */
    size_t unchanged;     /* skipped: a completed log known by name, or same size, time and head */
    size_t fresh;         /* no row before */
    size_t grown;         /* same head, larger: an appended .inprogress or rolling log */
    size_t changed;       /* anything else that moved */
    size_t deleted;       /* rows whose entry is gone, marked deleted this run */
    size_t read;          /* entries read this run (fresh + grown + changed) */
    size_t unreadable;    /* of those, the ones that could not be read (stored with the reason) */
    size_t apps, findings;            /* rows written */
    uint64_t bytes_read;  /* bytes of the entries read */
    uint64_t bytes_new;   /* of those, bytes not read before (a grown log: what was appended) */
    /* wall seconds: listing the directories and merging them with the stored rows (deletion
     * marks included), checking the entries the store does not settle (stats, head reads),
     * reading and writing the ones that moved */
    double list_s, check_s, read_s;
};

struct clarity_fleet_index_options {
    /* Read exactly these entries (paths relative to the root): no listing, no classification,
     * no deletion marks. A shard worker's job, into its own store. */
    const char *const *only;
    size_t nonly;
    /* List, classify and mark deleted, but read nothing: the entries that need a read come
     * back in the result's plan (relative paths), for a coordinator to hand out. */
    bool plan;
    /* Stat every entry (and hash its head where its size or time moved) instead of trusting a
     * completed log already read under the same name: what notices a completed log rewritten
     * in place. Without it, only new names, `.inprogress` files, application directories and
     * unreadable rows are looked at (docs/fleet.md, "What a run looks at"). */
    bool verify;
    bool no_findings;     /* skip the findings analysis (rows get no findings, saving 0) */
    int workers;          /* logs read at once; 0 = one per core */
    /* Called about every 200 ms, and once at the end, from the calling thread; to_read counts
     * the entries found to need a read so far (the walk and the reading interleave). */
    void (*progress)(void *ctx, const struct clarity_fleet_stats *st, size_t to_read);
    void *progress_ctx;
};

struct clarity_fleet_index_result {
    struct clarity_fleet_stats st;
    char **plan;          /* with opt->plan: relative paths to read, sorted */
    size_t nplan;
};

/* Indexes root (a directory, made absolute) into s. Entries that cannot be read are stored
 * as unreadable with the reason and counted; they are not errors. Returns CLARITY_OK, or an
 * error for the root itself (unreadable, another store's root), the store or memory. */
int clarity_fleet_index(struct clarity_store *s, const char *root, const struct clarity_fleet_index_options *opt,
                        struct clarity_fleet_index_result *out, struct clarity_error *err);
void clarity_fleet_index_result_free(struct clarity_fleet_index_result *r);

/* The store rows of one loaded application: its attempt row and its findings, every string
 * owned by *out. Exposed for tests and for tools that index differently. */
struct clarity_fleet_rows {
    struct clarity_store_app app;
    struct clarity_store_finding *f;
    size_t nf;
    char **owned;         /* what app and f point into */
    size_t nowned, cap;
};
int clarity_fleet_rows_fill(const struct clarity_app *a, bool findings, int64_t last_updated_ms,
                            struct clarity_fleet_rows *out, struct clarity_error *err);
void clarity_fleet_rows_free(struct clarity_fleet_rows *r);

/* ---- queries ---- */

enum clarity_fleet_format { CLARITY_FLEET_TEXT = 0, CLARITY_FLEET_CSV, CLARITY_FLEET_JSON };
enum clarity_fleet_view {
    CLARITY_FLEET_APPS = 0,      /* attempts in the filter's order, with their top findings */
    CLARITY_FLEET_TOTALS,        /* totals per `by` */
    CLARITY_FLEET_RECURRING,     /* names that ran at least min_runs times: trend, regressions */
};

struct clarity_fleet_query {
    enum clarity_fleet_view view;
    struct clarity_store_filter filter;  /* since: has_min_start; sort and limit for APPS;
                                            limit counts names for RECURRING */
    enum clarity_store_group by;         /* TOTALS */
    /* RECURRING: a run regressed when, with at least 2 runs in its baseline (the mean of the
     * up-to-`window` runs of its name before it), its duration is at least regress_ratio x the
     * baseline's and regress_min_ms longer, or its core-hours at least regress_ratio x and
     * regress_min_core_hours more. 0: defaults 5 runs, 1.25, 60 s, 0.1 core-hour; names with
     * at least min_runs runs (default 3). */
    int window, min_runs;
    double regress_ratio;
    int64_t regress_min_ms;
    double regress_min_core_hours;
    size_t width;                        /* text: columns to fit (0: no limit) */
    size_t findings_per_app;             /* APPS: findings listed per attempt in JSON (0: 3) */
};

/* Text or CSV to o. */
int clarity_fleet_query_write(FILE *o, struct clarity_store *s, const struct clarity_fleet_query *q,
                              enum clarity_fleet_format fmt, struct clarity_error *err);
/* The members of the clarity.fleet/1 document for the query ("view", then "apps", "totals"
 * or "recurring"), inside the object the caller opened. */
int clarity_fleet_query_json(struct jsonw *w, struct clarity_store *s, const struct clarity_fleet_query *q,
                             struct clarity_error *err);
/* The members of an index run's clarity.fleet/1 document ("view": "index", "stats"). */
void clarity_fleet_stats_json(struct jsonw *w, const struct clarity_fleet_stats *st);

/* Integrity bits as short words ("in-progress,truncated"), "ok" when none. */
void clarity_fleet_integrity_words(uint32_t bits, char *buf, size_t cap);

/* A recurring name's figures over its runs (oldest first). */
struct clarity_fleet_trend {
    size_t runs, regressed;
    double mean_duration_ms, mean_core_hours;
    /* least-squares slope over run order, as a share of the mean per run (0.02 = +2 %/run) */
    double duration_trend, core_hours_trend;
};
/* Whether one run regressed against its baseline, by q's rule (defaults applied). */
bool clarity_fleet_regressed(const struct clarity_store_run *r, const struct clarity_fleet_query *q);
/* Least-squares slope of y over 0..n-1 divided by mean(y); 0 when n < 2 or mean is 0. */
double clarity_fleet_slope_share(const double *y, size_t n);

#endif
