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
#include <sys/types.h>
#include "clarity/model.h"
#include "clarity/serve.h"
#include "clarity/shs.h"
#include "clarity/source.h"
#include "clarity/store.h"

/* ---- the answer sink (sink.c) ---- */
/* An answer on its way: written by the request's writer thread through f, kept whole while
 * it is at most threshold bytes (sent with a Content-Length), streamed past it (a chunked
 * body the HTTP side reads from mem while the writer waits for room). */
struct MHD_Connection;
struct serve_sink {
    FILE *f;                       /* what the REST layer writes to */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *mem; size_t off, len, cap;   /* the body (whole), or the unsent part [off, len) */
    size_t threshold, max;         /* stream past threshold; fail past max (0: no limit) */
    uint64_t total;                /* bytes written so far */
    bool streaming;                /* passed threshold: the HTTP side reads as it comes */
    bool finished, failed;         /* the writer ended; failed: an error after the decision */
    bool too_big;                  /* a write went past max */
    bool gone;                     /* the response was dropped (client away, server stopping) */
    struct MHD_Connection *conn;   /* set by the HTTP side before it reads */
    bool suspended;                /* conn waits for data (resumed by the writer) */
    bool cut;                      /* the server stops: the stream ends (cut) at once */
    struct serve_sink *next, **prev;   /* in the server's list of streams while streamed */
};
int clarity__serve_sink_open(struct serve_sink *k, size_t threshold, size_t max);
/* The writer's end: closes f; ok false when the answer failed. */
void clarity__serve_sink_finish(struct serve_sink *k, bool ok);
/* Waits until the answer is complete (false) or streamed (true). */
bool clarity__serve_sink_wait(struct serve_sink *k);
/* libmicrohttpd's content reader over a streamed answer: bytes, 0 (conn suspended until the
 * writer adds some), or the end of the stream (with an error when the writer failed). */
ssize_t clarity__serve_sink_read(struct serve_sink *k, char *buf, size_t max);
/* The response is gone: the writer's next write fails, so it stops early. */
void clarity__serve_sink_gone(struct serve_sink *k);
/* The server stops: the stream ends now, with an error (its connection woken if asleep). */
void clarity__serve_sink_cut(struct serve_sink *k);
void clarity__serve_sink_free(struct serve_sink *k);

/* ---- the listing (listing.c) ---- */

/* The view ACLs of an application's environment (spark.ui.view.acls[.groups],
 * spark.admin.acls[.groups]), as comma-separated lists; NULL when not set. */
struct serve_acl_props { char *view, *view_groups, *admin, *admin_groups; };

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
    /* where the next read of a grown plain log starts: just past the last whole line read
     * (0: unknown, or a log that is not resumed: read whole) */
    uint64_t read_offset;
    bool resumed;                  /* this scan read only its suffix */
    /* task attempts in the log, counted by the listing's read (TaskStart / TaskEnd lines, the
     * larger count; 0: not known, e.g. a store written by an older build): what tells, before
     * loading, whether the whole model would fit --max-memory */
    uint64_t tasks;
    struct serve_acl_props acl;    /* with --acl: from its environment */
    bool acl_known;                /* false: not read (an entry from the store before a peek) */
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
/* Reads the view ACLs of l's entries that have none yet (a listing from the store) from the
 * heads of their logs; entries not found in the directory stay without (never shown). */
int clarity__serve_listing_peek_acls(struct clarity_server *s, struct serve_listing *l, struct clarity_error *err);
/* Publishes l as the server's listing (the old one is freed with its last reader). */
void clarity__serve_listing_publish(struct clarity_server *s, struct serve_listing *l);

/* ---- cheap reads of a log (peek.c) ---- */
/* Reads a grown plain log from byte `from` (the start of a line) and applies what the listing
 * row can take from appended events (the application's end) to e->info; *next_offset: just
 * past the last whole line. 0: done; 1: an event that needs a full read came; -1: I/O error. */
int clarity__serve_peek_suffix(const char *path, uint64_t from, struct serve_entry *e, uint64_t *next_offset);
/* The environment's view ACLs from the first events of src's first file; -1 when unreadable. */
int clarity__serve_peek_acls(const struct clarity_app_source *src, struct serve_acl_props *out);
void clarity__serve_acl_props_free(struct serve_acl_props *p);
int clarity__serve_acl_props_copy(struct serve_acl_props *dst, const struct serve_acl_props *src);

/* ---- who may see an application (acl.c) ---- */
struct serve_groups;   /* user -> groups, from --groups-file */
int clarity__serve_groups_load(const char *path, struct serve_groups **out, struct clarity_error *err);
void clarity__serve_groups_free(struct serve_groups *g);
/* SHS's SecurityManager.checkUIViewPermissions over an entry, with the server's admin lists:
 * true when ACLs are off, or user is an admin, the application's owner, in its view list, or
 * in one of its view or admin groups (a "*" in a list lets everyone in). user NULL: false
 * (with --acl a request must name its user; see docs/serve.md). */
bool clarity__serve_acl_allows(const struct clarity_server *s, const struct serve_entry *e, const char *user);

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
    bool sql;                               /* loaded with SQL plan graphs (the /sql routes) */
    bool only_stage;                        /* only the tasks of stage only_stage_id (a lean load) */
    int64_t only_stage_id;
    bool no_tasks;                          /* no task rows at all (load option no_task_rows) */
    bool fold;                              /* no task rows, their sums folded while reading (task_fold) */
    bool rows_on_disk;                      /* fold: every task row kept in a file too */
    /* the loader's state to continue reading the log where this model stopped (an
     * uncompressed single file read to a whole line), NULL when a grown log is read whole */
    struct clarity_app_resume *resume;
    uint64_t head_hash;                     /* the entry's at load (0: unknown) */
    uint64_t used;                          /* LRU tick */
    struct serve_model *next;
};
struct serve_cache {
    const struct clarity_server *srv;       /* for its log */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct serve_model *head;
    size_t n, bytes, max_apps, max_bytes;
    uint64_t tick, loads, hits, evictions;
    uint64_t resumes, resume_bytes;         /* grown logs continued, and the bytes that read */
};
void clarity__serve_cache_init(struct serve_cache *c, const struct clarity_server *srv, size_t max_apps, size_t max_bytes);
void clarity__serve_cache_free(struct serve_cache *c);
/* The model of an entry at its listed generation, loaded when absent; NULL with err set when
 * it cannot be read. A whole model answers every request; with lo->only_stage a model of
 * that stage's tasks answers too (and is loaded, when no whole one is cached); with
 * lo->no_task_rows any model of the log answers (a model without task rows is loaded when
 * none is cached). Release it
 * with clarity__serve_cache_release. */
/* Set as lo->task_fold by a request answered from task sums (clarity_shs_request_task_sums)
 * when a whole load would pass --max-memory: a whole model of the log or one with folded
 * sums answers, and the cache loads the latter with a fold of its own (never called). */
int clarity__serve_fold_wanted(void *ctx, const struct clarity_app *a, size_t row, uint64_t ordinal);
/* The same for the stage list with details or withSummaries (clarity_shs_request_stage_rows):
 * the fold also keeps every task row in a file under --tmp (clarity_shs_fold_spill), which
 * that answer reads back a batch of stages at a time; such a model answers what a fold does. */
int clarity__serve_fold_rows_wanted(void *ctx, const struct clarity_app *a, size_t row, uint64_t ordinal);
struct serve_model *clarity__serve_cache_get(struct serve_cache *c, const struct serve_entry *e,
                                             const struct clarity_load_options *lo, struct clarity_error *err);
void clarity__serve_cache_release(struct serve_cache *c, struct serve_model *m);

/* The process's peak while loading an entry's whole model, estimated before loading from its
 * task count (0: unknown); what decides a one-stage load for a stage's routes (cache.c). */
size_t clarity__serve_model_estimate(const struct serve_entry *e);

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
    atomic_long writers;                    /* writer threads alive (http.c), idle or not */
    /* answers wait here for a writer thread; idle writers wait up to a minute for the next
     * (a thread made per request faulted in a fresh stack each time: 6x fewer requests/s) */
    pthread_mutex_t work_mu;
    pthread_cond_t work_cv;
    void *work_head, *work_tail;            /* struct job (http.c), first in first out */
    size_t work_queued, work_idle;
    bool work_stop;
    pthread_mutex_t streams_mu;             /* guards streams */
    struct serve_sink *streams;             /* answers being streamed (sink.next) */
    atomic_ullong requests, errors_5xx, scans;
    int inotify_fd;                         /* the watcher's inotify, -1: it polls */
    bool inotify;
    struct serve_groups *groups;            /* --groups-file; NULL: no user has groups */
};
void clarity__serve_log(const struct clarity_server *s, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void *clarity__serve_watch_main(void *arg);
/* libmicrohttpd's request callback and completion notice (http.c) */
int clarity__serve_http_start(struct clarity_server *s, struct clarity_error *err);
/* Before the daemon stops: every stream still running is cut, its connection woken when it
 * waits for data (libmicrohttpd must not stop with suspended connections); waits up to
 * wait_ms for them to end. */
void clarity__serve_http_cut_streams(struct clarity_server *s, int wait_ms);
/* After the daemon stopped: the writer threads end once their answers do; waits for them. */
void clarity__serve_http_stop_writers(struct clarity_server *s);

#endif
