#include "event/line_pipe.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "event/json.h"

#define BATCH_BYTES (4u << 20)
#define NBATCH 3   /* one being parsed, one ready, one being filled */

struct entry {
    size_t off, len;
    long rec;                   /* index into the batch's records, -1 for none */
    uint64_t line_no, offset;
    enum line_status st;
};

struct batch {
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

struct line_pipe {
    struct line_reader r;
    bool threaded;
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct batch b[NBATCH];
    size_t head, count;         /* ring of filled batches: head is the one being read */
    bool stop;
    size_t cur_entry;           /* next entry of b[head] */
    const void *cur_rec;        /* record of the line last handed out */
    line_hook_fn hook;
    void *hook_ctx;
    size_t rec_size;
    bool have_cur;
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

/* Waits for a free slot; false when asked to stop. */
static bool claim_slot(struct line_pipe *p, struct batch **out)
{
    pthread_mutex_lock(&p->mu);
    while (p->count == NBATCH && !p->stop) pthread_cond_wait(&p->cv, &p->mu);
    bool ok = !p->stop;
    size_t slot = (p->head + p->count) % NBATCH;
    pthread_mutex_unlock(&p->mu);
    *out = &p->b[slot];
    (*out)->used = (*out)->n = (*out)->nrec = 0;
    (*out)->last = (*out)->oom = false;
    return ok;
}

static void publish(struct line_pipe *p, bool last)
{
    pthread_mutex_lock(&p->mu);
    if (last) p->bytes = p->r.consumed + p->r.start;
    p->count++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

static void *reader(void *arg)
{
    struct line_pipe *p = arg;
    struct batch *b;
    if (!claim_slot(p, &b)) return NULL;
    for (;;) {
        char *line = NULL;
        size_t len = 0;
        enum line_status st = line_reader_next(&p->r, &line, &len, &b->err);
        bool data = st == LINE_OK || st == LINE_CUT;
        bool end = st == LINE_EOF || st == LINE_IO_ERROR;
        if (batch_add(b, data ? line : NULL, len, st, p->r.line_no, p->r.offset) != 0) {
            /* out of memory: the stream ends here, reported as a read error */
            clarity_error_set(&b->err, CLARITY_ENOMEM, "", p->r.line_no, p->r.offset, "out of memory reading ahead");
            b->oom = true;
            end = true;
        }
        if (!end && st == LINE_OK && p->hook && !b->oom) {
            /* decode here, on the reader thread, so the caller only applies the record */
            if (b->nrec == b->rec_cap) {
                size_t cap = b->rec_cap ? b->rec_cap * 2 : 1024;
                char *nr = realloc(b->recs, cap * p->rec_size);
                if (nr) {
                    b->recs = nr;
                    b->rec_cap = cap;
                }
            }
            struct entry *e = &b->e[b->n - 1];
            if (b->nrec < b->rec_cap && p->hook(p->hook_ctx, b->buf + e->off, e->len, b->recs + b->nrec * p->rec_size))
                e->rec = (long)b->nrec++;
        }
        if (end) {
            b->last = true;
            publish(p, true);
            return NULL;
        }
        if (b->used >= BATCH_BYTES || b->n >= 16384) {
            publish(p, false);
            if (!claim_slot(p, &b)) return NULL;
        }
    }
}

int line_pipe_start(struct line_pipe **out, struct clarity_decoder *d, size_t max_line, bool threaded)
{
    return line_pipe_start_hooked(out, d, max_line, threaded, NULL, NULL, 0);
}

int line_pipe_start_hooked(struct line_pipe **out, struct clarity_decoder *d, size_t max_line, bool threaded,
                           line_hook_fn hook, void *hook_ctx, size_t rec_size)
{
    struct line_pipe *p = calloc(1, sizeof *p);
    if (!p) return -1;
    if (line_reader_init(&p->r, d, max_line) != 0) {
        free(p);
        return -1;
    }
    p->threaded = threaded;
    p->hook = hook;
    p->hook_ctx = hook_ctx;
    p->rec_size = rec_size;
    if (threaded) {
        pthread_mutex_init(&p->mu, NULL);
        pthread_cond_init(&p->cv, NULL);
        if (pthread_create(&p->tid, NULL, reader, p) != 0) {
            pthread_mutex_destroy(&p->mu);
            pthread_cond_destroy(&p->cv);
            p->threaded = false;
            p->hook = NULL;
        }
    }
    *out = p;
    return 0;
}

enum line_status line_pipe_next(struct line_pipe *p, char **line, size_t *len, uint64_t *line_no,
                                uint64_t *offset, struct clarity_error *err)
{
    p->cur_rec = NULL;
    if (!p->threaded) {
        enum line_status st = line_reader_next(&p->r, line, len, err);
        *line_no = p->r.line_no;
        *offset = p->r.offset;
        if (st == LINE_EOF) p->bytes = p->r.consumed + p->r.start;
        return st;
    }
    for (;;) {
        if (!p->have_cur) {
            pthread_mutex_lock(&p->mu);
            while (p->count == 0) pthread_cond_wait(&p->cv, &p->mu);
            pthread_mutex_unlock(&p->mu);
            p->have_cur = true;
            p->cur_entry = 0;
        }
        struct batch *b = &p->b[p->head];
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
        p->head = (p->head + 1) % NBATCH;
        p->count--;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        p->have_cur = false;
    }
}

uint64_t line_pipe_bytes(const struct line_pipe *p) { return p->bytes; }

const void *line_pipe_record(const struct line_pipe *p) { return p->cur_rec; }

void line_pipe_free(struct line_pipe *p)
{
    if (!p) return;
    if (p->threaded) {
        pthread_mutex_lock(&p->mu);
        p->stop = true;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        pthread_join(p->tid, NULL);
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->cv);
    }
    for (int i = 0; i < NBATCH; i++) {
        free(p->b[i].buf);
        free(p->b[i].e);
        free(p->b[i].recs);
    }
    line_reader_free(&p->r);
    free(p);
}
