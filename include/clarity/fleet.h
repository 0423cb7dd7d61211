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
#include "clarity/error.h"
#include "clarity/model.h"
#include "clarity/store.h"

/* What one index run did; every count is of log entries unless it says otherwise. */
struct clarity_fleet_stats {
    size_t entries;       /* log entries found under the root (or named with `only`) */
    size_t unchanged;     /* skipped: same size, modification time and head */
    size_t fresh;         /* no row before */
    size_t grown;         /* same head, larger: an appended .inprogress or rolling log */
    size_t changed;       /* anything else that moved */
    size_t deleted;       /* rows whose entry is gone, marked deleted this run */
    size_t read;          /* entries read this run (fresh + grown + changed) */
    size_t unreadable;    /* of those, the ones that could not be read (stored with the reason) */
    size_t apps, findings;            /* rows written */
    uint64_t bytes_read;  /* bytes of the entries read */
    uint64_t bytes_new;   /* of those, bytes not read before (a grown log: what was appended) */
};

struct clarity_fleet_index_options {
    /* Read exactly these entries (paths relative to the root): no listing, no classification,
     * no deletion marks. A shard worker's job, into its own store. */
    const char *const *only;
    size_t nonly;
    /* List, classify and mark deleted, but read nothing: the entries that need a read come
     * back in the result's plan (relative paths), for a coordinator to hand out. */
    bool plan;
    bool no_findings;     /* skip the findings analysis (rows get no findings, saving 0) */
    int workers;          /* logs read at once; 0 = one per core */
    /* Called about every 200 ms of reading, and once at the end, from the calling thread. */
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

#endif
