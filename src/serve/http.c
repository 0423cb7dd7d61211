/* The HTTP side: libmicrohttpd with its internal thread pool calls request() on a pool thread
 * for every request. A request is checked (method, path shape), routed (the listing answers
 * /applications from its rows; an application's routes get its models from the cache; every
 * other path goes to the REST layer with no application, which answers it or says 404), and
 * the REST layer's answer is sent with the History Server's status and content type. URL text
 * is only ever compared with application ids of the listing: it never names a file. */
#include <arpa/inet.h>
#include <errno.h>
#include <time.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "serve/serve_internal.h"

#define MAX_ATTEMPTS 64
#define MAX_PATH_BYTES 4096

/* libmicrohttpd would decode %XX in the path before we see it, which would make an encoded
 * slash or dot-dot look like the real ones; the path is kept as sent and decoded per segment
 * by the REST layer, after the checks below. */
static size_t no_unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    return strlen(s);
}

static int hexval(int ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* Decodes one raw segment into out (cap bytes); false when it decodes to something a path
 * segment must not hold: a slash or backslash (an encoded separator), a NUL, or "." / "..". */
static bool segment_ok(const char *seg, size_t len, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        int ch = (unsigned char)seg[i], h, l;
        if (ch == '%' && i + 2 < len && (h = hexval(seg[i + 1])) >= 0 && (l = hexval(seg[i + 2])) >= 0) {
            ch = h * 16 + l;
            i += 2;
        }
        if (ch == '/' || ch == '\\' || ch == 0) return false;
        if (o + 1 >= cap) return false;
        out[o++] = (char)ch;
    }
    out[o] = 0;
    return strcmp(out, ".") && strcmp(out, "..");
}

/* Whether the raw path is one the server will route at all: absolute, of bounded length, and
 * with no segment that decodes to a separator or a dot segment (Jetty, in front of SHS,
 * refuses these with 400 too). */
static bool path_ok(const char *url)
{
    if (url[0] != '/' || strlen(url) > MAX_PATH_BYTES) return false;
    char seg[MAX_PATH_BYTES + 1];
    for (const char *p = url + 1; *p;) {
        size_t len = strcspn(p, "/");
        if (len && !segment_ok(p, len, seg, sizeof seg)) return false;
        p += len + (p[len] == '/');
    }
    return true;
}

/* The query string again from libmicrohttpd's parsed (and, with no_unescape, still encoded)
 * arguments, in the order they came. */
struct qbuf { char *s; size_t len, cap; bool oom; };

static void qadd(struct qbuf *q, const char *t)
{
    size_t n = strlen(t);
    if (q->len + n + 1 > q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 256;
        while (cap < q->len + n + 1) cap *= 2;
        char *s = realloc(q->s, cap);
        if (!s) {
            q->oom = true;
            return;
        }
        q->s = s;
        q->cap = cap;
    }
    memcpy(q->s + q->len, t, n + 1);
    q->len += n;
}

static enum MHD_Result qarg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    struct qbuf *q = cls;
    qadd(q, q->len ? "&" : "?");
    qadd(q, key);
    if (value) {
        qadd(q, "=");
        qadd(q, value);
    }
    return q->oom ? MHD_NO : MHD_YES;
}

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *text)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain;charset=utf-8");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED) MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

/* Content-Disposition for the event log zip, named by the REST layer. Ids come from logs, so
 * any byte of the name outside [A-Za-z0-9._-] becomes '_': nothing a log says can end the
 * header or add another. NULL when it does not fit. */
static const char *disposition(const char *filename, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "attachment; filename=%s", filename);
    if (n <= 0 || (size_t)n >= cap) return NULL;
    for (char *q = buf + 21; *q; q++)   /* past "attachment; filename=" */
        if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '.' || *q == '-'))
            *q = '_';
    return buf;
}

/* One request's answer, written on a thread of its own so that a large one can be sent while
 * it is written (sink.c): the pool thread waits until the answer is complete or streamed.
 * Owned by the writer and by whoever sends it (the pool thread, then a streamed response):
 * the last to let go frees it. */
struct job {
    struct clarity_server *s;
    struct job *next;                      /* in the server's queue for a writer */
    struct serve_sink k;
    pthread_mutex_t mu;
    int refs;
    char *pq;                              /* path and query under /api/v1 */
    char *user;                            /* with --acl: the proxy's user header, NULL: none */
    struct clarity_shs_request *rq;
    /* the answer; read by the pool thread once the sink says complete or streamed */
    int rc, status;
    const char *type;
    char *filename;
    struct clarity_error err;
};

static void job_unref(struct job *j)
{
    pthread_mutex_lock(&j->mu);
    bool last = --j->refs == 0;
    pthread_mutex_unlock(&j->mu);
    if (!last) return;
    clarity__serve_sink_free(&j->k);
    clarity_shs_request_free(j->rq);
    pthread_mutex_destroy(&j->mu);
    free(j->filename);
    free(j->user);
    free(j->pq);
    free(j);
}

/* Whether pq (path and query under /api/v1) asks for the listing. */
static bool is_listing(const char *pq)
{
    size_t plen = strcspn(pq, "?");
    return (plen == 13 && !strncmp(pq, "/applications", 13)) || (plen == 14 && !strncmp(pq, "/applications/", 14));
}

/* Pushes what stdio holds of the answer into the sink (which may start the stream). */
static void flush_answer(FILE *out) { fflush(out); }

/* The answer of j->pq written to j->k.f (what answer() did on the pool thread before). */
static void job_write(struct job *j)
{
    struct clarity_server *s = j->s;
    struct clarity_shs_request *rq = j->rq;
    const char *pq = j->pq;
    FILE *out = j->k.f;
    struct serve_listing *l = clarity__serve_listing_ref(s);
    struct serve_model *models[MAX_ATTEMPTS];
    struct clarity_app *apps[MAX_ATTEMPTS];
    size_t nmodels = 0;
    struct clarity_error err = {0};
    int status = 500, rc = CLARITY_OK;
    const char *app_id = clarity_shs_request_app(rq);
    bool listing = is_listing(pq);
    const char *user = j->user;
    bool forbidden = false;
    if (listing) {
        /* the listing from its rows: no model is loaded; with --acl only the attempts the user
         * may view */
        const char *query = strchr(pq, '?');
        struct clarity_shs_attempt_info *rows = l ? l->rows : NULL, *mine = NULL;
        size_t nrows = l ? l->napp_rows : 0;
        if (s->opt.acl && l) {
            mine = malloc((l->n ? l->n : 1) * sizeof *mine);
            nrows = 0;
            for (size_t i = 0; mine && i < l->n; i++)
                if (l->e[i].ok && clarity__serve_acl_allows(s, &l->e[i], user)) mine[nrows++] = l->e[i].info;
            rows = mine;
        }
        if (s->opt.acl && l && !mine) rc = clarity_error_set(&err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
        else rc = clarity_shs_applications_to(rows, nrows, query ? query + 1 : NULL, true, out, &status, &err);
        free(mine);
    } else {
        if (l && app_id) {
            const struct serve_entry *ents[MAX_ATTEMPTS];
            size_t n = clarity__serve_listing_find(l, app_id, ents, MAX_ATTEMPTS);
            /* SHS checks the attempt's view ACLs before answering; an application's attempts
             * are answered together here, so every one of them must allow the user */
            for (size_t i = 0; i < n && !forbidden; i++) forbidden = !clarity__serve_acl_allows(s, ents[i], user);
            if (forbidden) n = 0;
            struct clarity_load_options lo = {.keep_task_accumulables = true, .user_task_accumulables_only = true,
                                              .threads = s->opt.load_threads, .quiet = true};
            /* the /sql routes need the plan graphs, which other routes do not pay for */
            struct clarity_load_options need = {0};
            clarity_shs_request_load_options(rq, &need);
            lo.sql_plan_graphs = need.sql_plan_graphs;
            int64_t stage_id;
            bool one_stage = !lo.sql_plan_graphs && clarity_shs_request_stage(rq, &stage_id);
            bool no_tasks = !lo.sql_plan_graphs && clarity_shs_request_reads_no_tasks(rq);
            /* /sql reads tasks only through the SQL listener's replay, which a folding load
             * runs as a whole load does */
            bool sums = lo.sql_plan_graphs || clarity_shs_request_task_sums(rq);
            /* the stage list with details or withSummaries: every row, a batch at a time */
            bool rows = !lo.sql_plan_graphs && clarity_shs_request_stage_rows(rq);
            for (size_t i = 0; i < n; i++) {
                struct clarity_error lerr = {0};
                /* a whole load that would take the process past --max-memory (such a model
                 * is dropped after its request anyway): a stage's routes load that stage's
                 * tasks alone instead (a whole model already cached still answers) */
                struct clarity_load_options elo = lo;
                bool too_big = clarity__serve_model_estimate(ents[i]) > s->opt.max_memory;
                if (one_stage && too_big) {
                    elo.only_stage = true;
                    elo.only_stage_id = stage_id;
                }
                /* the environment, storage, an attempt: any cached model of the log answers,
                 * else one without task rows (its stage, executor and application rows) */
                if (no_tasks && too_big) elo.no_task_rows = true;
                /* jobs, the stage list, executors, /sql: sums over every task, built while reading */
                if (sums && too_big) elo.task_fold = clarity__serve_fold_wanted;
                if (rows && too_big) elo.task_fold = clarity__serve_fold_rows_wanted;
                struct serve_model *m = clarity__serve_cache_get(&s->cache, ents[i], &elo, &lerr);
                if (!m) {
                    /* a log that cannot be read now (deleted, cut) leaves its other attempts */
                    clarity__serve_log(s, CLARITY_SERVE_WARN, "%s: %s", ents[i]->path, lerr.msg);
                    continue;
                }
                models[nmodels] = m;
                apps[nmodels++] = m->app;
            }
        }
        if (forbidden) {
            /* SHS's ForbiddenException text, "null" when no user was named */
            status = 403;
            rc = clarity_error_set(&err, CLARITY_EUSAGE, NULL, 0, 0, "user \"%.200s\" is not authorized", user ? user : "null");
        } else {
            rc = clarity_shs_request_answer_to(rq, apps, nmodels, true, out, &status, &j->type, &j->filename, &err);
        }
    }
    /* the answer is complete (or failed) before the models are let go: a streamed answer
     * reads them to its last byte. Flushed first: the last bytes may start the stream. */
    flush_answer(out);
    pthread_mutex_lock(&j->k.mu);
    bool streamed = j->k.streaming;
    pthread_mutex_unlock(&j->k.mu);
    j->rc = rc;
    j->status = status;
    j->err = err;
    if (streamed && rc != CLARITY_OK) {
        /* after the first byte the status is sent: the stream is cut and the log says why */
        atomic_fetch_add(&s->errors_5xx, 1);
        clarity__serve_log(s, CLARITY_SERVE_ERROR, "streamed answer cut after %llu bytes: %s: %s",
                           (unsigned long long)j->k.total, pq, err.msg);
    }
    clarity__serve_sink_finish(&j->k, rc == CLARITY_OK);
    pthread_mutex_lock(&j->k.mu);
    bool failed = j->k.failed, gone = j->k.gone, too_big = j->k.too_big;
    pthread_mutex_unlock(&j->k.mu);
    if (streamed && rc == CLARITY_OK && failed) {
        /* a client that went away is not the server's error; the limit is */
        bool client = gone && !too_big;
        if (!client) atomic_fetch_add(&s->errors_5xx, 1);
        clarity__serve_log(s, client ? CLARITY_SERVE_WARN : CLARITY_SERVE_ERROR, "streamed answer cut after %llu bytes: %s: %s",
                           (unsigned long long)j->k.total, pq,
                           too_big ? "answer larger than --max-response" : gone ? "the client went away" : "cannot write the answer");
    }
    if (streamed && rc == CLARITY_OK && !failed)
        clarity__serve_log(s, CLARITY_SERVE_INFO, "streamed: %s: %llu bytes", pq, (unsigned long long)j->k.total);
    for (size_t i = 0; i < nmodels; i++) clarity__serve_cache_release(&s->cache, models[i]);
    clarity__serve_listing_unref(l);
}

/* How long an idle writer thread waits for the next answer before it ends. */
#define WRITER_IDLE_S 60

static void *writer_main(void *arg)
{
    struct clarity_server *s = arg;
    pthread_mutex_lock(&s->work_mu);
    for (;;) {
        bool timed_out = false;
        while (!s->work_head && !s->work_stop && !timed_out) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_sec += WRITER_IDLE_S;
            s->work_idle++;
            timed_out = pthread_cond_timedwait(&s->work_cv, &s->work_mu, &until) == ETIMEDOUT;
            s->work_idle--;
        }
        struct job *j = s->work_head;
        if (!j) break;   /* stopping, or idle for a minute */
        s->work_head = j->next;
        if (!s->work_head) s->work_tail = NULL;
        s->work_queued--;
        pthread_mutex_unlock(&s->work_mu);
        job_write(j);
        job_unref(j);
        pthread_mutex_lock(&s->work_mu);
    }
    pthread_mutex_unlock(&s->work_mu);
    atomic_fetch_sub(&s->writers, 1);
    return NULL;
}

/* Queues j for a writer thread: an idle one, or a new one when every writer is busy (a
 * streamed answer keeps its writer until the client has it all). false: no thread could be
 * made and none is idle (j is not queued). */
static bool submit(struct clarity_server *s, struct job *j)
{
    pthread_mutex_lock(&s->work_mu);
    j->next = NULL;
    if (s->work_tail) ((struct job *)s->work_tail)->next = j;
    else s->work_head = j;
    s->work_tail = j;
    s->work_queued++;
    bool ok = true;
    if (s->work_idle >= s->work_queued) {
        pthread_cond_signal(&s->work_cv);
    } else {
        pthread_t t;
        pthread_attr_t at;
        ok = pthread_attr_init(&at) == 0;
        if (ok) {
            pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
            atomic_fetch_add(&s->writers, 1);
            ok = pthread_create(&t, &at, writer_main, s) == 0;
            if (!ok) atomic_fetch_sub(&s->writers, 1);
            pthread_attr_destroy(&at);
        }
        if (!ok && s->work_idle) {
            pthread_cond_signal(&s->work_cv);   /* a busy server: an idle writer takes it later */
            ok = true;
        }
        if (!ok) {
            /* take j back out (it is the last, and no writer can have taken it) */
            struct job **pp = (struct job **)&s->work_head, *prev = NULL;
            while (*pp != j) {
                prev = *pp;
                pp = &(*pp)->next;
            }
            *pp = NULL;
            s->work_tail = prev;
            s->work_queued--;
        }
    }
    pthread_mutex_unlock(&s->work_mu);
    return ok;
}

void clarity__serve_http_stop_writers(struct clarity_server *s)
{
    pthread_mutex_lock(&s->work_mu);
    s->work_stop = true;
    pthread_cond_broadcast(&s->work_cv);
    pthread_mutex_unlock(&s->work_mu);
    while (atomic_load(&s->writers) > 0) usleep(10000);
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct job *j = cls;
    return clarity__serve_sink_read(&j->k, buf, max);
}

static void stream_free(void *cls)
{
    struct job *j = cls;
    struct clarity_server *s = j->s;
    pthread_mutex_lock(&s->streams_mu);
    if (j->k.prev) {
        *j->k.prev = j->k.next;
        if (j->k.next) j->k.next->prev = j->k.prev;
        j->k.prev = NULL;
    }
    pthread_mutex_unlock(&s->streams_mu);
    clarity__serve_sink_gone(&j->k);
    job_unref(j);
}

void clarity__serve_http_cut_streams(struct clarity_server *s, int wait_ms)
{
    pthread_mutex_lock(&s->streams_mu);
    for (struct serve_sink *k = s->streams; k; k = k->next) clarity__serve_sink_cut(k);
    pthread_mutex_unlock(&s->streams_mu);
    for (int waited = 0; waited < wait_ms; waited += 10) {
        pthread_mutex_lock(&s->streams_mu);
        bool left = s->streams != NULL;
        pthread_mutex_unlock(&s->streams_mu);
        if (!left) break;
        usleep(10000);
    }
}

static enum MHD_Result answer(struct clarity_server *s, struct MHD_Connection *c, const char *url)
{
    const char *rest = url;
    if (!strncmp(rest, "/api/v1", 7) && (rest[7] == '/' || !rest[7])) rest += 7;
    else return send_text(c, MHD_HTTP_NOT_FOUND, "Not Found: the History Server REST API is under /api/v1/\n");
    struct qbuf q = {0};
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, qarg, &q);
    size_t plen = strlen(rest);
    struct job *j = q.oom ? NULL : calloc(1, sizeof *j);
    char *pq = j ? malloc(plen + q.len + 2) : NULL;
    if (!pq) {
        free(j);
        free(q.s);
        return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    }
    memcpy(pq, rest, plen);
    memcpy(pq + plen, q.s ? q.s : "", q.len + 1);
    free(q.s);
    j->s = s;
    j->pq = pq;
    j->type = "application/json";   /* the listing's; other answers say theirs */
    j->refs = 2;                     /* the writer, and this thread (then a streamed response) */
    /* with --acl: the user a trusted proxy named in the header (no header: no user) */
    const char *user = s->opt.acl ? MHD_lookup_connection_value(c, MHD_HEADER_KIND, s->opt.user_header) : NULL;
    /* the path is parsed once: which application, how to load it, then the answer */
    /* The listing is answered here, never streamed: it is the route dashboards poll, its rows
     * are in memory already (its answer is about their size), and handing it to a writer
     * thread cost a third to half of its requests/s (wrk, 32 connections). */
    bool here = is_listing(pq);
    bool ok = pthread_mutex_init(&j->mu, NULL) == 0;
    if (ok && (clarity_shs_request_new(pq, &j->rq) != CLARITY_OK || (user && !(j->user = strdup(user))) ||
               clarity__serve_sink_open(&j->k, here ? SIZE_MAX : s->opt.response_mem_bytes, s->opt.max_response_bytes) != 0)) {
        pthread_mutex_destroy(&j->mu);
        ok = false;
    }
    if (ok && here) {
        job_write(j);
        job_unref(j);   /* the writer's reference */
    } else if (ok && !submit(s, j)) {
        clarity__serve_sink_free(&j->k);
        pthread_mutex_destroy(&j->mu);
        ok = false;
    }
    if (!ok) {
        clarity_shs_request_free(j->rq);
        free(j->user);
        free(pq);
        free(j);
        return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    }
    enum MHD_Result res;
    if (clarity__serve_sink_wait(&j->k)) {
        /* streamed: 200 now, the body as it is written (chunked; HTTP/1.0: until close) */
        pthread_mutex_lock(&j->k.mu);
        j->k.conn = c;
        pthread_mutex_unlock(&j->k.mu);
        struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024, stream_read, j, stream_free);
        if (!r) {
            clarity__serve_sink_gone(&j->k);
            job_unref(j);
            return MHD_NO;
        }
        /* set by the REST layer before the first byte of the body */
        pthread_mutex_lock(&j->k.mu);
        const char *type = j->type;
        char *filename = j->filename ? strdup(j->filename) : NULL;
        pthread_mutex_unlock(&j->k.mu);
        char dbuf[1400];
        const char *disp = filename ? disposition(filename, dbuf, sizeof dbuf) : NULL;
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
        if (disp) MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_DISPOSITION, disp);
        free(filename);
        pthread_mutex_lock(&s->streams_mu);
        j->k.next = s->streams;
        if (s->streams) s->streams->prev = &j->k.next;
        j->k.prev = &s->streams;
        s->streams = &j->k;
        pthread_mutex_unlock(&s->streams_mu);
        res = MHD_queue_response(c, MHD_HTTP_OK, r);
        MHD_destroy_response(r);   /* the connection holds it; stream_free lets the job go */
        return res;
    }
    /* complete: sent whole with its Content-Length, as before */
    if (j->rc == CLARITY_OK && !j->k.failed) {
        /* the event log download (/logs) is a zip named as SHS names it; every other answer
         * is JSON, as SHS's JacksonMessageWriter produces it */
        char dbuf[1400];
        const char *disp = j->filename ? disposition(j->filename, dbuf, sizeof dbuf) : NULL;
        struct MHD_Response *r = MHD_create_response_from_buffer(j->k.len, j->k.mem, MHD_RESPMEM_MUST_FREE);
        if (r) {
            j->k.mem = NULL;
            MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, j->type);
            if (disp) MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_DISPOSITION, disp);
            res = MHD_queue_response(c, MHD_HTTP_OK, r);
            MHD_destroy_response(r);
        } else {
            res = MHD_NO;
        }
    } else if (j->rc == CLARITY_OK || j->status >= 500) {
        atomic_fetch_add(&s->errors_5xx, 1);
        const char *why = j->k.too_big ? "answer larger than --max-response" : j->rc ? j->err.msg : "cannot write the answer";
        clarity__serve_log(s, CLARITY_SERVE_ERROR, "500 %s: %s", j->pq, why);
        res = send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, why);
    } else {
        /* SHS's error bodies are the message itself (ErrorWrapper), not JSON */
        res = send_text(c, (unsigned)j->status, j->err.msg);
    }
    job_unref(j);
    return res;
}

static enum MHD_Result request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                               const char *version, const char *upload_data, size_t *upload_size, void **state)
{
    (void)version;
    (void)upload_data;
    struct clarity_server *s = cls;
    if (!*state) {
        *state = s;   /* a marker: the first call only announces the request */
        atomic_fetch_add(&s->inflight, 1);
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0;   /* a body is not read: the API has no method that takes one */
        return MHD_YES;
    }
    atomic_fetch_add(&s->requests, 1);
    if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
        return send_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "HTTP method not allowed: the API is read-only (GET)");
    if (!path_ok(url)) {
        clarity__serve_log(s, CLARITY_SERVE_WARN, "400 refused path: %.200s", url);
        return send_text(c, MHD_HTTP_BAD_REQUEST, "Bad Request: ambiguous or dot segment in the path");
    }
    return answer(s, c, url);
}

static void completed(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode toe)
{
    (void)c;
    (void)toe;
    struct clarity_server *s = cls;
    if (*state) atomic_fetch_sub(&s->inflight, 1);
    *state = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r')) msg[--n] = 0;
    clarity__serve_log(cls, CLARITY_SERVE_WARN, "http: %s", msg);
}

int clarity__serve_http_start(struct clarity_server *s, struct clarity_error *err)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME;
    if (inet_pton(AF_INET, s->opt.host, &in4->sin_addr) == 1) {
        in4->sin_family = AF_INET;
        in4->sin_port = htons((uint16_t)s->opt.port);
    } else if (inet_pton(AF_INET6, s->opt.host, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)s->opt.port);
        flags |= MHD_USE_IPv6;
    } else {
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "--host '%s' is not an IPv4 or IPv6 address",
                                 s->opt.host);
    }
    /* epoll scales to thousands of connections where select stops at FD_SETSIZE */
    flags |= MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES ? MHD_USE_EPOLL : MHD_USE_POLL;
    s->mhd = MHD_start_daemon(flags, (uint16_t)s->opt.port, NULL, NULL, request, s,
                              MHD_OPTION_EXTERNAL_LOGGER, mhd_log, s,
                              MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                              MHD_OPTION_THREAD_POOL_SIZE, (unsigned)s->opt.threads,
                              MHD_OPTION_CONNECTION_LIMIT, s->opt.max_connections,
                              MHD_OPTION_PER_IP_CONNECTION_LIMIT, s->opt.per_ip_connections,
                              MHD_OPTION_CONNECTION_TIMEOUT, s->opt.timeout_s,
                              MHD_OPTION_CONNECTION_MEMORY_LIMIT, s->opt.max_request_bytes,
                              MHD_OPTION_UNESCAPE_CALLBACK, no_unescape, NULL,
                              MHD_OPTION_NOTIFY_COMPLETED, completed, s,
                              MHD_OPTION_LISTENING_ADDRESS_REUSE, 1u,
                              MHD_OPTION_END);
    if (!s->mhd)
        return clarity_error_set(err, CLARITY_EIO, NULL, 0, 0, "cannot listen on %s port %d (in use, or not an address of this host?)",
                                 s->opt.host, s->opt.port);
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : s->opt.port;
    return CLARITY_OK;
}
