/* A reader thread splits the decoded stream into batches of lines; with a hook, worker threads
 * (one per core) turn each batch's lines into records, a whole batch per worker; the caller
 * takes batches strictly in order. Each slot cycles FREE -> FILLED -> PARSING -> READY -> FREE. */
#include "event/line_pipe.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "event/json.h"

#define BATCH_BYTES (4u << 20)
#define BATCH_LINES 16384
#define NBATCH 6
#define MAX_WORKERS 8

enum slot_state { SLOT_FREE, SLOT_FILLED, SLOT_PARSING, SLOT_READY };

struct entry {
    size_t off, len;
    long rec;                   /* index into the batch's records, -1 for none */
    uint64_t line_no, offset;
    enum line_status st;
};

struct batch {
    enum slot_state state;
    char *buf;
    size_t used, cap;
    struct entry *e;
    size_t n, ecap;
    bool last;                  /* no batch follows */
    bool oom;                   /* the reader ran out of memory after these entries */
    char *recs;
    size_t nrec, rec_cap;
    struct clarity_error err;   /* for a LINE_IO_ERROR entry */
};

struct worker {
    struct line_pipe *p;
    pthread_t tid;
    void *ctx;
};

struct line_pipe {
    struct line_reader r;
    bool threaded;
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct batch b[NBATCH];
    uint64_t fill_seq, parse_seq, cons_seq;   /* next batch to fill, to parse, to hand out */
    bool stop, parsing_over;
    size_t cur_entry;
    bool have_cur;
    const void *cur_rec;
    line_hook_fn hook;
    line_scan_fn scan;
    void *scan_ctx;
    size_t rec_size;
    struct worker workers[MAX_WORKERS];
    size_t nworkers;
    uint64_t bytes;             /* decoded bytes consumed, final once the reader stopped */
};

static int batch_add(struct batch *b, const char *line, size_t len, enum line_status st, uint64_t no, uint64_t off)
{
    if (b->n == b->ecap) {
        size_t cap = b->ecap ? b->ecap * 2 : 4096;
        struct entry *e = realloc(b->e, cap * sizeof *e);
        if (!e) return -1;
        b->e = e;
        b->ecap = cap;
    }
    if (line && b->used + len + 1 + CJ_PADDING > b->cap) {
        size_t cap = b->cap ? b->cap : BATCH_BYTES;
        while (b->used + len + 1 + CJ_PADDING > cap) cap *= 2;
        char *p = realloc(b->buf, cap);
        if (!p) return -1;
        b->buf = p;
        b->cap = cap;
    }
    struct entry *e = &b->e[b->n++];
    e->rec = -1;
    e->off = b->used;
    e->len = line ? len : 0;
    e->line_no = no;
    e->offset = off;
    e->st = st;
    if (line) {
        memcpy(b->buf + b->used, line, len);
        b->buf[b->used + len] = '\n';
        b->used += len + 1;
    }
    return 0;
}

/* Waits until the next slot to fill is free; NULL when asked to stop. */
static struct batch *claim_slot(struct line_pipe *p)
{
    pthread_mutex_lock(&p->mu);
    struct batch *b = &p->b[p->fill_seq % NBATCH];
    while (b->state != SLOT_FREE && !p->stop) pthread_cond_wait(&p->cv, &p->mu);
    bool ok = !p->stop;
    pthread_mutex_unlock(&p->mu);
    if (!ok) return NULL;
    b->used = b->n = b->nrec = 0;
    b->last = b->oom = false;
    return b;
}

static void publish(struct line_pipe *p, struct batch *b, bool last)
{
    pthread_mutex_lock(&p->mu);
    if (last) p->bytes = p->r.consumed + p->r.start;
    b->state = p->nworkers ? SLOT_FILLED : SLOT_READY;
    p->fill_seq++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

static void *reader(void *arg)
{
    struct line_pipe *p = arg;
    struct batch *b = claim_slot(p);
    if (!b) return NULL;
    for (;;) {
        char *line = NULL;
        size_t len = 0;
        enum line_status st = clarity_line_reader_next(&p->r, &line, &len, &b->err);
        bool data = st == LINE_OK || st == LINE_CUT;
        bool end = st == LINE_EOF || st == LINE_IO_ERROR;
        if (data && p->scan) p->scan(p->scan_ctx, line, len);
        if (batch_add(b, data ? line : NULL, len, st, p->r.line_no, p->r.offset) != 0) {
            /* out of memory: the stream ends here, reported as a read error */
            clarity_error_set(&b->err, CLARITY_ENOMEM, "", p->r.line_no, p->r.offset, "out of memory reading ahead");
            b->oom = true;
            end = true;
        }
        if (end) {
            b->last = true;
            publish(p, b, true);
            return NULL;
        }
        if (b->used >= BATCH_BYTES || b->n >= BATCH_LINES) {
            publish(p, b, false);
            if (!(b = claim_slot(p))) return NULL;
        }
    }
}

static void parse_batch(struct line_pipe *p, struct batch *b, void *ctx)
{
    for (size_t i = 0; i < b->n; i++) {
        struct entry *e = &b->e[i];
        if (e->st != LINE_OK) continue;
        if (b->nrec == b->rec_cap) {
            size_t cap = b->rec_cap ? b->rec_cap * 2 : 1024;
            char *nr = realloc(b->recs, cap * p->rec_size);
            if (!nr) return;   /* the remaining lines go the caller's way */
            b->recs = nr;
            b->rec_cap = cap;
        }
        if (p->hook(ctx, b->buf + e->off, e->len, b->recs + b->nrec * p->rec_size)) e->rec = (long)b->nrec++;
    }
}

static void *worker(void *arg)
{
    struct worker *w = arg;
    struct line_pipe *p = w->p;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        struct batch *b = &p->b[p->parse_seq % NBATCH];
        while (!p->stop && !p->parsing_over && b->state != SLOT_FILLED) {
            pthread_cond_wait(&p->cv, &p->mu);
            b = &p->b[p->parse_seq % NBATCH];
        }
        if (p->stop || p->parsing_over) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        b->state = SLOT_PARSING;
        p->parse_seq++;
        if (b->last) p->parsing_over = true;   /* nothing follows: the other workers may leave */
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        parse_batch(p, b, w->ctx);
        pthread_mutex_lock(&p->mu);
        b->state = SLOT_READY;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
}

int clarity_line_pipe_start(struct line_pipe **out, struct clarity_decoder *d, size_t max_line, bool threaded)
{
    return clarity_line_pipe_start_hooked(out, d, max_line, threaded, NULL, NULL, 0, NULL, NULL, 0);
}

int clarity_line_pipe_start_hooked(struct line_pipe **out, struct clarity_decoder *d, size_t max_line, bool threaded,
                           line_scan_fn scan, void *scan_ctx, size_t nworkers, line_hook_fn hook,
                           void *const *hook_ctx, size_t rec_size)
{
    struct line_pipe *p = calloc(1, sizeof *p);
    if (!p) return -1;
    if (clarity_line_reader_init(&p->r, d, max_line) != 0) {
        free(p);
        return -1;
    }
    p->threaded = threaded;
    if (!threaded) {
        *out = p;
        return 0;
    }
    p->scan = scan;
    p->scan_ctx = scan_ctx;
    p->hook = hook;
    p->rec_size = rec_size;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if (hook) {
        if (nworkers > MAX_WORKERS) nworkers = MAX_WORKERS;
        for (size_t i = 0; i < nworkers; i++) {
            p->workers[i] = (struct worker){.p = p, .ctx = hook_ctx[i]};
            if (pthread_create(&p->workers[i].tid, NULL, worker, &p->workers[i]) != 0) break;
            p->nworkers++;
        }
    }
    if (pthread_create(&p->tid, NULL, reader, p) != 0) {
        clarity_line_pipe_free(p);   /* joins any worker; the caller falls back to no thread */
        p = calloc(1, sizeof *p);
        if (!p || clarity_line_reader_init(&p->r, d, max_line) != 0) {
            free(p);
            return -1;
        }
    }
    *out = p;
    return 0;
}

enum line_status clarity_line_pipe_next(struct line_pipe *p, char **line, size_t *len, uint64_t *line_no,
                                uint64_t *offset, struct clarity_error *err)
{
    p->cur_rec = NULL;
    if (!p->threaded) {
        enum line_status st = clarity_line_reader_next(&p->r, line, len, err);
        *line_no = p->r.line_no;
        *offset = p->r.offset;
        if (st == LINE_EOF) p->bytes = p->r.consumed + p->r.start;
        return st;
    }
    for (;;) {
        struct batch *b = &p->b[p->cons_seq % NBATCH];
        if (!p->have_cur) {
            pthread_mutex_lock(&p->mu);
            while (b->state != SLOT_READY) pthread_cond_wait(&p->cv, &p->mu);
            pthread_mutex_unlock(&p->mu);
            p->have_cur = true;
            p->cur_entry = 0;
        }
        if (p->cur_entry < b->n) {
            struct entry *e = &b->e[p->cur_entry++];
            *line = b->buf ? b->buf + e->off : NULL;
            *len = e->len;
            *line_no = e->line_no;
            *offset = e->offset;
            if (e->rec >= 0) p->cur_rec = b->recs + (size_t)e->rec * p->rec_size;
            if (e->st == LINE_IO_ERROR && err) *err = b->err;
            return e->st;
        }
        if (b->last) {
            if (b->oom) {
                if (err) *err = b->err;
                b->oom = false;   /* reported once; EOF follows */
                return LINE_IO_ERROR;
            }
            return LINE_EOF;
        }
        /* this batch is done: hand its slot back to the reader */
        pthread_mutex_lock(&p->mu);
        b->state = SLOT_FREE;
        p->cons_seq++;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        p->have_cur = false;
    }
}

uint64_t clarity_line_pipe_bytes(const struct line_pipe *p) { return p->bytes; }

const void *clarity_line_pipe_record(const struct line_pipe *p) { return p->cur_rec; }

void clarity_line_pipe_free(struct line_pipe *p)
{
    if (!p) return;
    if (p->threaded) {
        pthread_mutex_lock(&p->mu);
        p->stop = true;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (p->tid) pthread_join(p->tid, NULL);
        for (size_t i = 0; i < p->nworkers; i++) pthread_join(p->workers[i].tid, NULL);
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->cv);
    }
    for (int i = 0; i < NBATCH; i++) {
        free(p->b[i].buf);
        free(p->b[i].e);
        free(p->b[i].recs);
    }
    clarity_line_reader_free(&p->r);
    free(p);
}

size_t clarity_line_pipe_default_workers(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_WORKERS ? MAX_WORKERS : (size_t)n;
}
