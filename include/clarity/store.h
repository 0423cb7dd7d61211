/* The store: one embedded SQLite database that remembers, per log entry of a directory, what
 * was read from it (size, modification time, a hash of its head) and, per application attempt
 * found in it, a summary row, its findings and the History Server's listing JSON. The fleet
 * index (`clarity fleet`) writes it; the server (`clarity serve`) lists applications from it
 * without loading a model. Schema and versioning: docs/store.md.
 *
 * Threads: a `struct clarity_store` is one SQLite connection and must be used by one thread at
 * a time. A program with several threads opens one store per thread on the same file: the
 * database is in WAL mode, so readers never block the one writer, and writers wait for each
 * other (busy timeout of 10 s) instead of failing.
 *
 * Strings in rows handed to a callback point into SQLite's buffers: valid during that call
 * only. Rows written by the caller are only read during the call that takes them. */
#ifndef CLARITY_STORE_H
#define CLARITY_STORE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/error.h"
#include "clarity/source.h"

/* The schema this build reads and writes: `PRAGMA user_version` and meta.schema. A store of
 * another version is refused with CLARITY_EFORMAT naming both versions (no migration yet:
 * a store is a cache of the logs and is rebuilt by indexing again). */
#define CLARITY_STORE_SCHEMA "clarity.store/1"
#define CLARITY_STORE_VERSION 1

struct clarity_store;

enum clarity_store_flags {
    CLARITY_STORE_CREATE = 1,   /* create the file and the schema when absent */
    CLARITY_STORE_READONLY = 2, /* open for reading only (the server's listing threads) */
};

int clarity_store_open(const char *path, unsigned flags, struct clarity_store **out, struct clarity_error *err);
void clarity_store_close(struct clarity_store *s);

/* The directory the stored log paths are relative to (absolute), NULL when none was set yet.
 * The returned text lives as long as the store. set_root records it once; a different root
 * later is refused (CLARITY_EUSAGE) so one store never mixes two trees' relative paths. */
const char *clarity_store_root(const struct clarity_store *s);
int clarity_store_set_root(struct clarity_store *s, const char *abs_root, struct clarity_error *err);

/* ---- log entries ---- */

enum clarity_store_log_state {
    CLARITY_STORE_LOG_OK = 0,
    CLARITY_STORE_LOG_UNREADABLE = 1, /* could not be read; `error` says why */
    CLARITY_STORE_LOG_DELETED = 2,    /* gone from the directory; its rows stay, marked */
};

/* What a log entry looks like on disk, from stats and one 4 KiB read: enough to decide
 * whether it must be read again without reading it. */
struct clarity_store_fingerprint {
    uint64_t size;        /* bytes; a directory entry (rolling, Databricks): the sum of its parts */
    int64_t mtime_ns;     /* the newest part's modification time */
    uint64_t head_hash;   /* XXH64 (seed 0) of the first 4 KiB of the first part (fewer if shorter) */
};

/* One row of `logs`. */
struct clarity_store_log {
    int64_t id;                 /* 0 when not stored yet */
    const char *path;           /* relative to the store's root */
    struct clarity_store_fingerprint fp;
    /* bytes consumed when it was read: the entry's size then. The loader replays a log from
     * its start, so a grown log is read again whole; the offset tells how much was new. */
    uint64_t read_offset;
    enum clarity_store_log_state state;
    const char *error;          /* NULL unless UNREADABLE */
    int64_t indexed_at_ms;      /* wall clock of the read, Unix ms */
};

/* Fills fp for a resolved log entry (clarity_source_resolve) from a stat of each part and a
 * read of the first part's first 4 KiB. CLARITY_EIO when a part cannot be stat'ed or read. */
int clarity_store_fingerprint(const struct clarity_app_source *src, struct clarity_store_fingerprint *fp,
                              struct clarity_error *err);

/* The same, but when the entry's size and modification time equal the stored row's (stored
 * not NULL), the head is not read and the stored hash is taken: an unchanged directory of
 * 20,000 logs is then checked with stats alone. A rewrite that keeps both the size and the
 * nanosecond modification time (a copy with times preserved) is missed until either moves. */
int clarity_store_fingerprint_quick(const struct clarity_app_source *src, const struct clarity_store_log *stored,
                                    struct clarity_store_fingerprint *fp, struct clarity_error *err);

enum clarity_store_change {
    CLARITY_STORE_NEW = 0,       /* no row, or a row marked deleted: read it */
    CLARITY_STORE_UNCHANGED,     /* same size, mtime and head hash: skip */
    CLARITY_STORE_GROWN,         /* same head hash, larger size (an .inprogress or rolling log
                                    appended to): read again */
    CLARITY_STORE_CHANGED,       /* anything else (rewritten, truncated, replaced): read again */
};

/* Decides from the stored row (NULL when none) and the entry as it is now. An unreadable
 * entry whose fingerprint has not moved stays UNCHANGED: reading it again would fail again. */
enum clarity_store_change clarity_store_classify(const struct clarity_store_log *stored,
                                                 const struct clarity_store_fingerprint *now);

/* The row of `path` (relative to the root). *found false and CLARITY_OK when absent. The
 * strings of *row live until the next call on this store. */
int clarity_store_log_get(struct clarity_store *s, const char *path, struct clarity_store_log *row, bool *found,
                          struct clarity_error *err);

/* ---- application attempts and findings ---- */

/* Bits of clarity_store_app.integrity: what makes the row's figures less certain. */
enum clarity_store_integrity {
    CLARITY_STORE_INT_IN_PROGRESS = 1 << 0,   /* the application had not ended when read */
    CLARITY_STORE_INT_TRUNCATED = 1 << 1,     /* a file ended mid-block, mid-frame or mid-line */
    CLARITY_STORE_INT_COMPACTED = 1 << 2,     /* rolling .compact: earlier events dropped by Spark */
    CLARITY_STORE_INT_PARTS_MISSING = 1 << 3, /* rolling events_N files absent */
    CLARITY_STORE_INT_MALFORMED = 1 << 4,     /* lines that were not JSON events */
    CLARITY_STORE_INT_DROPPED_TASKS = 1 << 5, /* task ends missing from complete stages */
    CLARITY_STORE_INT_NO_TASKS = 1 << 6,      /* stage-level log: no task events at all */
    CLARITY_STORE_INT_OUT_OF_RANGE = 1 << 7,  /* values clamped or taken as unknown */
};

/* One row of `apps`: one application attempt. */
struct clarity_store_app {
    int64_t row_id;              /* set when read; ignored on put */
    int64_t log_id;              /* set when read; ignored on put */
    const char *log_path;        /* set when read (relative to the root); ignored on put */
    enum clarity_store_log_state log_state; /* set when read */
    const char *app_id;
    const char *attempt_id;      /* NULL when the application has no attempt id */
    const char *name, *user;     /* "" when not logged */
    int64_t start_ms, end_ms;    /* end_ms 0 while running */
    int64_t last_updated_ms;     /* the log's modification time, as the History Server shows it */
    int64_t duration_ms;
    bool completed;
    const char *spark_version;   /* "" when not logged */
    const char *platform;        /* e.g. "databricks", "emr", "spark"; "" when unknown */
    const char *queue;           /* YARN queue or scheduler pool; NULL when not logged */
    int64_t cores;               /* cores of all its executors (local mode: the driver's) */
    double core_hours;           /* executor cores x time they were held (at least the task time) */
    double idle_core_hours;      /* held but running no task */
    double gc_share;             /* JVM GC time / task run time, 0..1 */
    int64_t tasks, failed_tasks;
    uint32_t integrity;          /* enum clarity_store_integrity bits */
    int64_t top_saving_ms;       /* the largest finding's estimated saving, 0 when none */
    double top_saving_core_hours;
    /* The History Server's ApplicationAttemptInfo of this attempt as one compact JSON object
     * (keys and order as `/applications` prints them, no whitespace): the server re-indents
     * it into its listing instead of loading the model. */
    const char *app_info_json;
};

/* One row of `findings`. */
struct clarity_store_finding {
    size_t app_index;            /* on put: index of its attempt in the app_rows array */
    int64_t app_row_id;          /* set when read */
    int rank;                    /* 1 = largest saving */
    const char *kind;            /* e.g. "skew", "gc", "idle-executors" */
    const char *where;           /* e.g. "stage 3.0", "application" (column `place`: WHERE is
                                    an SQL keyword) */
    int64_t saving_ms;
    double saving_core_hours;
    const char *basis;           /* "replay", "bound" or "estimate": how the saving was measured */
    const char *action;          /* what to change, one sentence */
};

/* In one transaction: writes (inserts or updates) the row of log->path, and replaces that
 * log's application attempts and findings with the ones given (none for an unreadable log).
 * A finding whose app_index is out of range is refused (CLARITY_EUSAGE) and nothing changes. */
int clarity_store_log_put(struct clarity_store *s, const struct clarity_store_log *log,
                          const struct clarity_store_app *app_rows, size_t napps,
                          const struct clarity_store_finding *finding_rows, size_t nfind,
                          struct clarity_error *err);

/* Many puts in one transaction: between batch_begin and batch_end each log_put is a savepoint
 * (still all or nothing per log), and the commit happens once, which makes indexing thousands
 * of small logs about 20 times faster than a commit per log. batch_end commits; on an error
 * inside the batch the caller still calls batch_end (what was put before stays). */
int clarity_store_batch_begin(struct clarity_store *s, struct clarity_error *err);
int clarity_store_batch_end(struct clarity_store *s, struct clarity_error *err);

/* Marks the entry deleted (its attempts stay, so history queries still see the runs; listings
 * leave them out unless asked). *found false when the path has no row. */
int clarity_store_log_mark_deleted(struct clarity_store *s, const char *path, bool *found,
                                   struct clarity_error *err);

/* Every stored log row, in path order; the callback returns non-zero to stop (that value is
 * returned). */
typedef int (*clarity_store_log_cb)(void *ctx, const struct clarity_store_log *row);
int clarity_store_logs_each(struct clarity_store *s, clarity_store_log_cb cb, void *ctx, struct clarity_error *err);

/* The stored log rows with from <= path < to (to NULL: no upper bound), in path order (bytes
 * compared as strcmp does), read through the path index: a walker merges one directory's
 * listing against the rows below it without loading the others. The callback returns
 * non-zero to stop (that value is returned); it must not write to the store. */
int clarity_store_logs_range(struct clarity_store *s, const char *from, const char *to, clarity_store_log_cb cb,
                             void *ctx, struct clarity_error *err);

/* Marks deleted every row whose path starts with prefix (a directory's relative path ending
 * in '/') and is not deleted yet: a whole subdirectory that vanished. *n: rows marked. */
int clarity_store_logs_mark_deleted_under(struct clarity_store *s, const char *prefix, int64_t *n,
                                          struct clarity_error *err);

enum clarity_store_sort {
    /* as the History Server lists: the application's end time descending (running ones,
     * end -1, last), then app id descending; attempts of one app together, newest start first */
    CLARITY_STORE_SORT_SHS = 0,
    CLARITY_STORE_SORT_CORE_HOURS,   /* descending */
    CLARITY_STORE_SORT_IDLE,         /* idle core-hours descending */
    CLARITY_STORE_SORT_GC,           /* GC share descending */
    CLARITY_STORE_SORT_SAVING,       /* top saving (core-hours) descending */
    CLARITY_STORE_SORT_DURATION,     /* duration descending */
    CLARITY_STORE_SORT_START,        /* start time ascending (a recurring application's runs) */
};

/* Which attempts apps_each returns; a zeroed filter (or NULL) means every attempt of every
 * log not marked deleted, in SHS order. The time bounds apply only when their has_ flag is set. */
struct clarity_store_filter {
    enum clarity_store_sort sort;
    int status;                      /* 0 any, 1 completed only, 2 running only: per attempt (the
                                        History Server decides per application, by its newest
                                        attempt: a listing that must match it filters itself) */
    bool has_min_start, has_max_start, has_min_end, has_max_end;
    int64_t min_start_ms, max_start_ms;   /* inclusive */
    int64_t min_end_ms, max_end_ms;       /* inclusive; a running attempt has no end: excluded */
    const char *app_id;              /* only this application (all its attempts) */
    const char *name;                /* only attempts with exactly this name */
    bool include_deleted;            /* also attempts of logs marked deleted */
    int64_t limit;                   /* at most this many rows (attempts, not applications); 0 = none */
};

typedef int (*clarity_store_app_cb)(void *ctx, const struct clarity_store_app *row);
int clarity_store_apps_each(struct clarity_store *s, const struct clarity_store_filter *filter,
                            clarity_store_app_cb cb, void *ctx, struct clarity_error *err);

/* The findings of one attempt, by rank. */
typedef int (*clarity_store_finding_cb)(void *ctx, const struct clarity_store_finding *row);
int clarity_store_findings_each(struct clarity_store *s, int64_t app_row_id, clarity_store_finding_cb cb, void *ctx,
                                struct clarity_error *err);

/* Totals per user, queue, platform or application name over the attempts a filter selects
 * (its sort and limit are ignored; name and app_id apply), largest core-hours first. */
enum clarity_store_group {
    CLARITY_STORE_BY_USER = 0,
    CLARITY_STORE_BY_QUEUE,      /* attempts with no queue logged group under "" */
    CLARITY_STORE_BY_PLATFORM,
    CLARITY_STORE_BY_NAME,
};
struct clarity_store_total {
    const char *key;
    int64_t runs, completed, tasks, failed_tasks;
    int64_t duration_ms;                 /* sum */
    double core_hours, idle_core_hours, saving_core_hours;   /* sums (saving: each run's top finding) */
    double gc_share;                     /* mean over runs */
    int64_t first_start_ms, last_start_ms;
};
typedef int (*clarity_store_total_cb)(void *ctx, const struct clarity_store_total *row);
int clarity_store_totals_each(struct clarity_store *s, enum clarity_store_group by,
                              const struct clarity_store_filter *filter, clarity_store_total_cb cb, void *ctx,
                              struct clarity_error *err);

/* The runs of one recurring application (filter->name set), oldest first, each with the
 * mean duration and core-hours of up to `window` runs of that name before it (previous == 0
 * for the first run): what a regression is measured against. Other filter fields apply
 * except sort and limit; the baseline only looks at runs the filter keeps. */
struct clarity_store_run {
    const struct clarity_store_app *app;
    int64_t previous;                    /* runs in the baseline, 0..window */
    double baseline_duration_ms, baseline_core_hours;
};
typedef int (*clarity_store_run_cb)(void *ctx, const struct clarity_store_run *row);
int clarity_store_runs_each(struct clarity_store *s, const struct clarity_store_filter *filter, int window,
                            clarity_store_run_cb cb, void *ctx, struct clarity_error *err);

/* Merges another store (a shard indexed elsewhere, e.g. by a Dask worker) into this one: each
 * of its log rows replaces the row of the same path here with its attempts and findings, in
 * one transaction. The shard must be of this schema version and index the same root (or
 * none). Returns the number of log rows merged in *nlogs. */
int clarity_store_merge(struct clarity_store *s, const char *shard_path, int64_t *nlogs, struct clarity_error *err);

/* Rows in each table (logs counts every state). */
struct clarity_store_counts {
    int64_t logs, logs_deleted, logs_unreadable, apps, findings;
};
int clarity_store_counts(struct clarity_store *s, struct clarity_store_counts *out, struct clarity_error *err);

#endif
