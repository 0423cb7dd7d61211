/* clarity serve: a Spark History Server over a log directory. Every REST path is answered by
 * the REST layer (clarity/shs.h), the same code as clarity api, over HTTP (libmicrohttpd with
 * its own thread pool). The listing is kept from scans of the directory, which re-read only
 * the logs whose size or modification time changed; application models are loaded on demand
 * into a cache bounded by count and bytes (least recently used evicted). Nothing is printed:
 * what happens is told through the log callback. */
#ifndef CLARITY_SERVE_H
#define CLARITY_SERVE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/error.h"

enum clarity_serve_level { CLARITY_SERVE_INFO, CLARITY_SERVE_WARN, CLARITY_SERVE_ERROR };

struct clarity_serve_options {
    const char *log_dir;            /* required: the directory of event logs */
    const char *host;               /* address to bind; NULL: 127.0.0.1 (loopback only) */
    int port;                       /* 0: a free port (clarity_serve_port says which) */
    int threads;                    /* request threads; 0: 4 */
    size_t max_apps;                /* models kept loaded; 0: 50 (SHS's retainedApplications) */
    size_t max_memory;              /* bytes of models kept loaded; 0: 2 GiB. A model larger than
                                       this is still loaded for its request, then dropped */
    int poll_ms;                    /* rescan period when polling (no inotify); 0: 2000 */
    int rescan_ms;                  /* full rescan even with inotify (network file systems send
                                       no events); 0: 30000 */
    bool no_inotify;                /* poll even where inotify works */
    unsigned max_connections;       /* 0: 1024; more are refused at accept */
    unsigned per_ip_connections;    /* 0: no limit */
    unsigned timeout_s;             /* idle connection timeout; 0: 30 */
    size_t max_request_bytes;       /* memory per connection (request line, headers); 0: 64 KiB */
    /* An answer larger than this fails: a 500 while it is held whole, a cut stream once it is
     * streamed. 0: no limit (as SHS: streaming holds one buffer, whatever the answer's size) */
    size_t max_response_bytes;
    /* Answers up to this are sent whole with a Content-Length; larger ones are streamed as
     * they are written (chunked), the writer waiting while this much is unsent. 0: 8 MiB */
    size_t response_mem_bytes;
    const char *tmp_dir;            /* task rows of partial loads (shs_spill); NULL: $TMPDIR or /tmp */
    /* The SQLite store (clarity/store.h) that keeps the listing across restarts: with one,
     * the server answers from what the store last saw at once and checks the directory in the
     * background; every scan writes what changed. NULL: no store (the first scan reads every
     * log before the server listens). */
    const char *store_path;
    int load_threads;               /* threads per model load; 0: one per core */
    /* Access control as SHS's spark.history.ui.acls.enable: an application is listed and
     * answered only to a user its environment's view ACLs (spark.ui.view.acls[.groups],
     * spark.admin.acls[.groups]), its owner (sparkUser) or the server's admin lists allow;
     * others get 403 on its routes and do not see it in /applications. The user is the value
     * of the request header user_header, which a trusted reverse proxy sets (required with
     * acl); groups come from groups_file (/etc/group's format) or not at all. */
    bool acl;
    const char *user_header;
    const char *admin_acls;         /* spark.history.ui.admin.acls: comma-separated users */
    const char *admin_acls_groups;  /* spark.history.ui.admin.acls.groups */
    const char *groups_file;
    /* Told what happens (start, scans, loads, evictions, refused requests); NULL: nothing. */
    void (*log)(void *ctx, enum clarity_serve_level level, const char *msg);
    void *log_ctx;
};

struct clarity_server;

/* Without a store, scans log_dir once (so the first answers list every readable log); with
 * one, lists what the store holds and scans in the background. Then serves until
 * clarity_serve_stop. Errors: CLARITY_EUSAGE for bad options (acl without user_header), a
 * store of another directory or an unreadable groups_file, CLARITY_EIO when log_dir cannot be read or the address cannot be bound,
 * CLARITY_EFORMAT for a store of another schema version. */
int clarity_serve_start(const struct clarity_serve_options *opt, struct clarity_server **out, struct clarity_error *err);
int clarity_serve_port(const struct clarity_server *s);

/* Stops accepting connections, lets requests in flight finish (up to drain_ms), then stops
 * the threads and frees everything. */
void clarity_serve_stop(struct clarity_server *s, int drain_ms);

struct clarity_serve_stats {
    size_t logs, apps;              /* log entries listed (readable), application attempts */
    size_t models, model_bytes;     /* in the cache */
    uint64_t requests, errors_5xx, scans, loads, cache_hits, evictions;
    /* grown logs whose cached model read on from where it stopped, and the bytes that read
     * (against the whole log a load reads) */
    uint64_t resumes, resume_bytes;
    bool inotify;
};
void clarity_serve_stats(struct clarity_server *s, struct clarity_serve_stats *st);

#endif
