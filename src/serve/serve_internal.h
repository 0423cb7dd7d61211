/* The pieces of clarity serve: the answer sink, the listing (what the log directory holds,
 * one immutable snapshot at a time), the cache of loaded models, the directory watcher, and
 * the HTTP side. */
#ifndef CLARITY_SERVE_INTERNAL_H
#define CLARITY_SERVE_INTERNAL_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "clarity/model.h"
#include "clarity/serve.h"
#include "clarity/shs.h"
#include "clarity/source.h"
#include "clarity/store.h"

/* ---- the answer sink (sink.c) ---- */
struct serve_sink {
    FILE *f;                       /* what the REST layer writes to */
    char *mem; size_t len, cap;    /* the body while it is in memory */
    int fd;                        /* the unlinked temporary file once spilled, else -1 */
    size_t mem_limit, max;
    const char *tmp_dir;
    bool too_big;                  /* a write went past max */
};
int clarity__serve_sink_open(struct serve_sink *k, const char *tmp_dir, size_t mem_limit, size_t max);
int clarity__serve_sink_close(struct serve_sink *k);   /* flushes; -1 when a write failed */
void clarity__serve_sink_free(struct serve_sink *k);

/* ---- the listing (listing.c) ---- */

/* One log entry as the loader sees it (a file, a rolling or Databricks directory): what was
 * found in it the last time it changed. */
struct serve_entry {
    char *path;                    /* absolute; never built from a URL: found by scanning */
    uint64_t size;                 /* bytes over its files (as clarity_store_fingerprint) */
    int64_t mtime_ns;              /* newest over its files */
    uint64_t head_hash;            /* of its first 4 KiB, when read in this process */
    bool fresh;                    /* read in the scan that built this listing */
    int change;                    /* enum clarity_store_change when fresh */
    struct clarity_shs_attempt_info info;   /* strings owned below */
    char *strs[5];                 /* app_id, attempt_id, name, user, spark_version copies */
    bool ok;                       /* false: unreadable (err says why); not listed */
    char err[256];
};

/* What the directory held at one scan; immutable once published, freed with its last
 * reader. Entries are sorted by path; by_app orders the readable ones by application id. */
struct serve_listing {
    atomic_int refs;
    struct serve_entry *e; size_t n;
    size_t *by_app; size_t napp_rows;
    struct clarity_shs_attempt_info *rows;  /* the readable entries' infos, for /applications */
    uint64_t generation;
};
struct serve_listing *clarity__serve_listing_ref(struct clarity_server *s);
void clarity__serve_listing_unref(struct serve_listing *l);
/* The entries of application app_id (at most max; returns how many). */
size_t clarity__serve_listing_find(const struct serve_listing *l, const char *app_id, const struct serve_entry **out,
                                   size_t max);
/* Scans the log directory and publishes a new listing when anything changed: unchanged
 * entries (same size and modification time) are kept, new or changed ones read again. */
int clarity__serve_rescan(struct clarity_server *s, struct clarity_error *err);
void clarity__serve_listing_free(struct serve_listing *l);
/* Indexes l (by application, listing rows) once its entries are filled; -1 out of memory. */
int clarity__serve_listing_index(struct serve_listing *l);
/* Publishes l as the server's listing (the old one is freed with its last reader). */
void clarity__serve_listing_publish(struct clarity_server *s, struct serve_listing *l);

/* ---- the store (persist.c): the listing kept across restarts ---- */
/* Opens --store (created when absent) for s->log_dir; refuses a store of another directory. */
int clarity__serve_store_open(struct clarity_server *s, struct clarity_error *err);
/* The listing as the store last saw it (NULL when it holds nothing), without reading a log. */
int clarity__serve_store_listing(struct clarity_server *s, struct serve_listing **out, struct clarity_error *err);
/* Writes what a scan found: the fresh entries' rows, and the entries gone since old. */
void clarity__serve_store_update(struct clarity_server *s, const struct serve_listing *old, const struct serve_listing *l);

/* ---- the model cache (cache.c) ---- */
struct serve_model {
    char *path;
    uint64_t size; int64_t mtime_ns;        /* the generation it was loaded from */
    struct clarity_app *app;                /* NULL while loading, or when the load failed */
    struct clarity_error err;
    size_t bytes;                           /* what the model holds (an estimate: its arenas and columns) */
    int refs;                               /* requests using it */
    bool loading, stale;
    uint64_t used;                          /* LRU tick */
    struct serve_model *next;
};
struct serve_cache {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct serve_model *head;
    size_t n, bytes, max_apps, max_bytes;
    uint64_t tick, loads, hits, evictions;
};
void clarity__serve_cache_init(struct serve_cache *c, size_t max_apps, size_t max_bytes);
void clarity__serve_cache_free(struct serve_cache *c);
/* The model of an entry at its listed generation, loaded when absent; NULL with err set when
 * it cannot be read. Release it with clarity__serve_cache_release. */
struct serve_model *clarity__serve_cache_get(struct serve_cache *c, const struct serve_entry *e,
                                             const struct clarity_load_options *lo, struct clarity_error *err);
void clarity__serve_cache_release(struct serve_cache *c, struct serve_model *m);

/* ---- the server (serve.c, http.c, watch.c) ---- */
struct clarity_server {
    struct clarity_serve_options opt;
    char *log_dir;                          /* absolute */
    struct MHD_Daemon *mhd;
    int port;
    pthread_mutex_t mu;                     /* guards listing, rescans */
    pthread_mutex_t scan_mu;                /* one scan at a time */
    struct serve_listing *listing;
    struct clarity_store *store;            /* --store; used by the scanning thread only */
    bool first_scan_pending;                /* the listing came from the store: scan at once */
    struct serve_cache cache;
    pthread_t watcher;
    bool watcher_started;
    atomic_bool stopping;
    int wake[2];                            /* pipe: wakes the watcher to stop */
    atomic_long inflight;
    atomic_ullong requests, errors_5xx, scans;
    int inotify_fd;                         /* the watcher's inotify, -1: it polls */
    bool inotify;
};
void clarity__serve_log(const struct clarity_server *s, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void *clarity__serve_watch_main(void *arg);
/* libmicrohttpd's request callback and completion notice (http.c) */
int clarity__serve_http_start(struct clarity_server *s, struct clarity_error *err);

#endif
