/* clarity serve's lifecycle: options and their defaults, the first scan, the watcher thread,
 * the HTTP daemon, and the drain on stop. */
#include <limits.h>
#include <malloc.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "serve/serve_internal.h"

void clarity__serve_log(const struct clarity_server *s, int level, const char *fmt, ...)
{
    if (!s || !s->opt.log) return;   /* NULL: a cache made without a server (unit tests) */
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    s->opt.log(s->opt.log_ctx, (enum clarity_serve_level)level, msg);
}

static void defaults(struct clarity_serve_options *o)
{
    if (!o->host) o->host = "127.0.0.1";
    if (o->threads <= 0) o->threads = 4;
    if (!o->max_apps) o->max_apps = 50;
    if (!o->max_memory) o->max_memory = (size_t)2 << 30;
    if (o->poll_ms <= 0) o->poll_ms = 2000;
    if (o->rescan_ms <= 0) o->rescan_ms = 30000;
    if (!o->max_connections) o->max_connections = 1024;
    if (!o->timeout_s) o->timeout_s = 30;
    if (!o->max_request_bytes) o->max_request_bytes = 64 * 1024;
    if (!o->response_mem_bytes) o->response_mem_bytes = 8 << 20;
    if (!o->tmp_dir) o->tmp_dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
}

static void server_free(struct clarity_server *s)
{
    if (s->wake[0] >= 0) close(s->wake[0]);
    if (s->wake[1] >= 0) close(s->wake[1]);
    if (s->inotify_fd >= 0) close(s->inotify_fd);
    clarity__serve_groups_free(s->groups);
    clarity__serve_listing_unref(s->listing);
    clarity__serve_cache_free(&s->cache);
    if (s->store) clarity_store_close(s->store);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->scan_mu);
    pthread_mutex_destroy(&s->streams_mu);
    pthread_mutex_destroy(&s->work_mu);
    pthread_cond_destroy(&s->work_cv);
    free(s->log_dir);
    free(s);
}

int clarity_serve_start(const struct clarity_serve_options *opt, struct clarity_server **out, struct clarity_error *err)
{
    *out = NULL;
    if (!opt || !opt->log_dir) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "no log directory");
    if (opt->port < 0 || opt->port > 65535)
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "port %d is not in 0..65535", opt->port);
    if (opt->acl && (!opt->user_header || !*opt->user_header))
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0,
                                 "--acl needs --user-header NAME: the header a trusted proxy sets to the user");
    struct stat st;
    if (stat(opt->log_dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return clarity_error_set(err, CLARITY_EIO, opt->log_dir, 0, 0, "not a readable directory");
    /* glibc gives each thread that allocates concurrently its own arena (up to 8 per core):
     * a model loaded on one request thread and freed leaves its pages in that arena, and the
     * next load on another thread grows another, so two loads of a 1.2 GB model held 2.3 GB
     * (10 M tasks, measured). Two arenas bound that to the request threads sharing the pages
     * of what was freed; the loader allocates its model on one thread, so it loses nothing to
     * the shared lock. A setting of the process: the server is the process it runs in. */
    mallopt(M_ARENA_MAX, 2);
    struct clarity_server *s = calloc(1, sizeof *s);
    if (!s) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    s->opt = *opt;
    defaults(&s->opt);
    s->wake[0] = s->wake[1] = -1;
    s->inotify_fd = s->opt.no_inotify ? -1 : inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    s->inotify = s->inotify_fd >= 0;
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->scan_mu, NULL);
    pthread_mutex_init(&s->streams_mu, NULL);
    pthread_mutex_init(&s->work_mu, NULL);
    pthread_cond_init(&s->work_cv, NULL);
    clarity__serve_cache_init(&s->cache, s, s->opt.max_apps, s->opt.max_memory);
    s->log_dir = realpath(opt->log_dir, NULL);
    if (!s->log_dir || pipe(s->wake) != 0) {
        server_free(s);
        return clarity_error_set(err, CLARITY_EIO, opt->log_dir, 0, 0, "cannot resolve the directory");
    }
    int rc = CLARITY_OK;
    if (s->opt.acl && s->opt.groups_file && (rc = clarity__serve_groups_load(s->opt.groups_file, &s->groups, err)) != CLARITY_OK) {
        server_free(s);
        return rc;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct serve_listing *stored = NULL;
    if (s->opt.store_path && ((rc = clarity__serve_store_open(s, err)) != CLARITY_OK ||
                              (rc = clarity__serve_store_listing(s, &stored, err)) != CLARITY_OK)) {
        server_free(s);
        return rc;
    }
    if (stored && s->opt.acl && (rc = clarity__serve_listing_peek_acls(s, stored, err)) != CLARITY_OK) {
        /* the store keeps no ACLs: with --acl they are read from the logs' heads before the
         * first answer, so no application is shown before its ACLs are known */
        clarity__serve_listing_free(stored);
        server_free(s);
        return rc;
    }
    if (stored) {
        /* answer at once from what the store saw; the watcher checks the directory first thing */
        clarity__serve_listing_publish(s, stored);
        s->first_scan_pending = true;
    } else if ((rc = clarity__serve_rescan(s, err)) != CLARITY_OK) {
        server_free(s);
        return rc;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clarity__serve_log(s, CLARITY_SERVE_INFO, "%s %s: %.3f s", stored ? "listing from the store" : "first scan of",
                       stored ? s->opt.store_path : s->log_dir,
                       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    if ((rc = clarity__serve_http_start(s, err)) != CLARITY_OK) {
        server_free(s);
        return rc;
    }
    if (pthread_create(&s->watcher, NULL, clarity__serve_watch_main, s) == 0) s->watcher_started = true;
    else clarity__serve_log(s, CLARITY_SERVE_WARN, "no watcher thread: the listing will not follow the directory");
    *out = s;
    return CLARITY_OK;
}

int clarity_serve_port(const struct clarity_server *s) { return s->port; }

void clarity_serve_stop(struct clarity_server *s, int drain_ms)
{
    if (!s) return;
    atomic_store(&s->stopping, true);
    /* stop accepting; requests already read are answered, then the threads end */
    MHD_socket lfd = MHD_quiesce_daemon(s->mhd);
    for (int waited = 0; atomic_load(&s->inflight) > 0 && waited < drain_ms; waited += 10) usleep(10000);
    long left = atomic_load(&s->inflight);
    if (left > 0) clarity__serve_log(s, CLARITY_SERVE_WARN, "stop: %ld requests still running after %d ms", left, drain_ms);
    clarity__serve_http_cut_streams(s, 2000);
    MHD_stop_daemon(s->mhd);
    /* streamed answers still being written hold models: their responses are gone with the
     * daemon, so their next write fails and they end; the cache is freed after them */
    clarity__serve_http_stop_writers(s);
    if (lfd != MHD_INVALID_SOCKET) close(lfd);
    if (s->watcher_started) {
        ssize_t w = write(s->wake[1], "x", 1);
        (void)w;
        pthread_join(s->watcher, NULL);
    }
    server_free(s);
}

void clarity_serve_stats(struct clarity_server *s, struct clarity_serve_stats *st)
{
    memset(st, 0, sizeof *st);
    struct serve_listing *l = clarity__serve_listing_ref(s);
    if (l) {
        st->logs = l->n;
        st->apps = l->napp_rows;
    }
    clarity__serve_listing_unref(l);
    pthread_mutex_lock(&s->cache.mu);
    st->models = s->cache.n;
    st->model_bytes = s->cache.bytes;
    st->loads = s->cache.loads;
    st->cache_hits = s->cache.hits;
    st->evictions = s->cache.evictions;
    st->resumes = s->cache.resumes;
    st->resume_bytes = s->cache.resume_bytes;
    pthread_mutex_unlock(&s->cache.mu);
    st->requests = atomic_load(&s->requests);
    st->errors_5xx = atomic_load(&s->errors_5xx);
    st->scans = atomic_load(&s->scans);
    st->inotify = s->inotify;
}
