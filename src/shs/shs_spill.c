/* Every task row of a folding load kept on disk, for the answers that show every task of
 * every stage (the stage list with details or withSummaries) within a server's memory bound.
 *
 * While the log is read, each row handed over at its TaskEnd is appended to a first file in
 * end order: its stage row, ordinal, the nonzero columns as zigzag varints, its end reason
 * and its accumulables (raw structs: their string ids and arena pointers stay valid in the
 * model the same load builds). Once the log is read, one sequential pass copies the records
 * into a second file grouped by stage attempt, the groups in the stage list's order (stage id
 * descending, then attempt), and the first file is closed (its space given back). An answer
 * then reads one batch of consecutive stages' groups at a time (a few preads), rebuilds
 * their rows as a small task table, in ordinal order (the whole load's row order), beside
 * the model's other tables, and writes them through the same writers as a whole model. So
 * the log is read once, the rows are rewritten once, and each answer reads them once. Both
 * files are unlinked at creation, so nothing is left behind however the process ends. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "shs/shs_internal.h"
#include "util/vec.h"

#define NBASE 13
#define NCOLS (NBASE + CLARITY_TM_COUNT)
_Static_assert(NCOLS <= 64, "a record's column mask is one 64-bit word");

struct shs_spill {
    FILE *first;                   /* records in end order, while reading */
    int fd;                        /* records grouped by stage row, after finish; -1 before */
    struct spill_stage { uint64_t off, bytes, rows; } *st;   /* by stage row: start in fd, bytes, records */
    size_t nst;                    /* st's capacity */
    uint64_t total;
    bool failed;
};

static const struct clarity_icol *col_of(const struct clarity_tasks *t, size_t i)
{
    const struct clarity_icol *base[NBASE] = {&t->task_id, &t->stage, &t->index, &t->attempt, &t->partition,
                                              &t->launch_rel, &t->duration, &t->getting_result, &t->executor,
                                              &t->host, &t->locality, &t->end, &t->flags};
    return i < NBASE ? base[i] : &t->m[i - NBASE];
}

static int temp_file(const char *dir, int *fd)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/clarity-rows-XXXXXX", dir && *dir ? dir : "/tmp") >= (int)sizeof path) return -1;
    *fd = mkstemp(path);
    if (*fd < 0) return -1;
    unlink(path);
    return 0;
}

int clarity__shs_spill_open(struct shs_spill **out, const char *dir)
{
    struct shs_spill *s = calloc(1, sizeof *s);
    int fd = -1;
    if (!s) return -1;
    s->fd = -1;
    if (temp_file(dir, &fd) != 0 || !(s->first = fdopen(fd, "w+b"))) {
        if (fd >= 0) close(fd);
        free(s);
        return -1;
    }
    *out = s;
    return 0;
}

void clarity__shs_spill_free(struct shs_spill *s)
{
    if (!s) return;
    if (s->first) fclose(s->first);
    if (s->fd >= 0) close(s->fd);
    free(s->st);
    free(s);
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static const uint8_t *get_varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned sh = 0; p < end && sh < 64; sh += 7) {
        uint8_t b = *p++;
        x |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80)) {
            *v = x;
            return p;
        }
    }
    return NULL;
}

/* n bytes to the file of rows (its own stream, never the answer's); 0 or -1. */
static int put(FILE *f, const void *p, size_t n) { return n && fwrite(p, 1, n, f) != n ? -1 : 0; }
static int flush(FILE *f) { return fflush(f) != 0 ? -1 : 0; }

/* The record header: its length after these 4 bytes, then the stage row. */
struct rec_head { uint32_t len, srow; };

int clarity__shs_spill_row(struct shs_spill *s, const struct clarity_app *a, size_t row, uint64_t ord)
{
    if (s->failed || !s->first) return -1;
    size_t srow = (size_t)clarity_icol_get(&a->tasks.stage, row);
    if (clarity_vec_grow_zeroed((void **)&s->st, &s->nst, srow + 1, sizeof *s->st, 64) != 0) goto fail;
    /* the row's accumulables are the last ones pushed (its TaskEnd's), owner = the row */
    size_t nacc = 0;
    while (nacc < a->task_accums.n && a->task_accums.p[a->task_accums.n - 1 - nacc].owner == row) nacc++;
    const struct clarity_task_end_reason *why = clarity_task_end_reason(a, row);
    uint8_t buf[sizeof(struct rec_head) + 8 + 8 + NCOLS * 10 + 1 + sizeof *why + 4];
    uint8_t *p = buf + sizeof(struct rec_head);
    uint64_t mask = 0;
    memcpy(p, &ord, 8);
    uint8_t *mp = p + 8;
    p += 16;
    for (size_t i = 0; i < NCOLS; i++) {
        int64_t v = clarity_icol_get(col_of(&a->tasks, i), row);
        if (!v) continue;
        mask |= (uint64_t)1 << i;
        p = put_varint(p, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
    }
    memcpy(mp, &mask, 8);
    *p++ = why != NULL;
    if (why) {
        memcpy(p, why, sizeof *why);
        p += sizeof *why;
    }
    uint32_t na = (uint32_t)nacc;
    memcpy(p, &na, 4);
    p += 4;
    size_t len = (size_t)(p - buf) + nacc * sizeof(struct clarity_accum);
    struct rec_head h = {(uint32_t)(len - sizeof h.len), (uint32_t)srow};
    memcpy(buf, &h, sizeof h);
    if (put(s->first, buf, (size_t)(p - buf)) != 0 ||
        (nacc && put(s->first, &a->task_accums.p[a->task_accums.n - nacc], nacc * sizeof(struct clarity_accum)) != 0))
        goto fail;
    s->st[srow].bytes += len;
    s->st[srow].rows++;
    s->total += len;
    return 0;
fail:
    s->failed = true;
    return -1;
}

/* A stage row with its keys, sorted as the stage list orders them. */
struct stage_key { int64_t id, attempt; uint32_t row; };
static int cmp_stage_key(const void *x, const void *y)
{
    const struct stage_key *a = x, *b = y;
    if (a->id != b->id) return a->id < b->id ? 1 : -1;
    return (a->attempt < b->attempt) - (a->attempt > b->attempt);
}

static int pwrite_all(int fd, const uint8_t *p, size_t n, uint64_t off)
{
    while (n) {
        ssize_t k = pwrite(fd, p, n, (off_t)off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

static int pread_all(int fd, uint8_t *p, size_t n, uint64_t off)
{
    while (n) {
        ssize_t k = pread(fd, p, n, (off_t)off);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

int clarity__shs_spill_finish(struct shs_spill *s, const struct clarity_app *a, const char *dir)
{
    if (s->failed || !s->first || flush(s->first) != 0) return -1;
    size_t n = a->nstages;
    struct stage_key *order = malloc((n ? n : 1) * sizeof *order);
    if (!order || clarity_vec_grow_zeroed((void **)&s->st, &s->nst, n ? n : 1, sizeof *s->st, 1) != 0) goto fail;
    for (size_t i = 0; i < n; i++) order[i] = (struct stage_key){a->stages[i].stage_id, a->stages[i].attempt, (uint32_t)i};
    qsort(order, n, sizeof *order, cmp_stage_key);
    uint64_t at = 0;
    for (size_t i = 0; i < n; i++) {
        s->st[order[i].row].off = at;
        at += s->st[order[i].row].bytes;
    }
    free(order);
    order = NULL;
    if (at != s->total) goto fail;   /* a record named a stage row the model does not have */
    if (temp_file(dir, &s->fd) != 0) goto fail;
    uint64_t *cur = calloc(s->nst ? s->nst : 1, sizeof *cur);
    size_t bcap = 1 << 16;
    uint8_t *buf = malloc(bcap);
    int rc = -1;
    if (!cur || !buf || fseek(s->first, 0, SEEK_SET) != 0) goto copy_out;
    /* consecutive records of one stage (its tasks end together) go out in one write */
    uint8_t *run = malloc(1 << 20);
    size_t nrun = 0;
    uint32_t run_srow = 0;
    if (!run) goto copy_out;
    for (;;) {
        struct rec_head h;
        size_t got = fread(&h, 1, sizeof h, s->first);
        if (got == 0) break;
        if (got != sizeof h || h.srow >= s->nst) goto run_out;
        size_t len = sizeof h.len + (size_t)h.len;
        if ((nrun && (h.srow != run_srow || nrun + len > (1 << 20))) || len > (1 << 20)) {
            if (nrun && pwrite_all(s->fd, run, nrun, s->st[run_srow].off + cur[run_srow]) != 0) goto run_out;
            cur[run_srow] += nrun;
            nrun = 0;
        }
        uint8_t *dst = run + nrun;
        if (len > (1 << 20)) {   /* a task with very many accumulables: written alone */
            if (len > bcap) {
                uint8_t *nb = realloc(buf, len);
                if (!nb) goto run_out;
                buf = nb;
                bcap = len;
            }
            dst = buf;
        }
        memcpy(dst, &h, sizeof h);
        if (fread(dst + sizeof h, 1, len - sizeof h, s->first) != len - sizeof h) goto run_out;
        if (dst == buf) {
            if (pwrite_all(s->fd, buf, len, s->st[h.srow].off + cur[h.srow]) != 0) goto run_out;
            cur[h.srow] += len;
        } else {
            nrun += len;
            run_srow = h.srow;
        }
    }
    if (nrun && pwrite_all(s->fd, run, nrun, s->st[run_srow].off + cur[run_srow]) != 0) goto run_out;
    rc = 0;
run_out:
    free(run);
copy_out:
    free(cur);
    free(buf);
    fclose(s->first);
    s->first = NULL;
    if (rc) s->failed = true;
    return rc;
fail:
    free(order);
    s->failed = true;
    return -1;
}

uint64_t clarity__shs_spill_stage_bytes(const struct shs_spill *s, size_t srow)
{
    return srow < s->nst ? s->st[srow].bytes : 0;
}

/* One record read back: where it starts, its ordinal. */
struct rec_ref { const uint8_t *p; uint64_t ord; };

static int cmp_rec_ord(const void *x, const void *y)
{
    uint64_t a = ((const struct rec_ref *)x)->ord, b = ((const struct rec_ref *)y)->ord;
    return (a > b) - (a < b);
}

static bool sorted_by_id(const struct clarity_tasks *t)
{
    for (size_t i = 1; i < t->n; i++)
        if (clarity_icol_get(&t->task_id, i - 1) > clarity_icol_get(&t->task_id, i)) return false;
    return true;
}

void clarity__shs_spill_view_free(struct clarity_app *v)
{
    struct clarity_tasks *t = &v->tasks;
    for (size_t i = 0; i < NCOLS; i++) clarity_icol_free((struct clarity_icol *)col_of(t, i));
    free(v->task_reasons);
    free(v->task_accums.p);
    memset(t, 0, sizeof *t);
    v->task_reasons = NULL;
    v->task_accums = (struct clarity_accums){0};
}

/* Rebuilds the rows of records [buf, buf + len) into v's task table. */
static int rebuild(struct clarity_app *v, const uint8_t *buf, size_t len, size_t nrows)
{
    struct rec_ref *refs = malloc((nrows ? nrows : 1) * sizeof *refs);
    if (!refs) return -1;
    size_t n = 0, nreasons = 0, naccs = 0;
    for (const uint8_t *p = buf; p < buf + len && n < nrows;) {
        struct rec_head h;
        memcpy(&h, p, sizeof h);
        refs[n].p = p;
        memcpy(&refs[n++].ord, p + sizeof h, 8);
        p += sizeof h.len + (size_t)h.len;
    }
    qsort(refs, n, sizeof *refs, cmp_rec_ord);
    struct clarity_tasks *t = &v->tasks;
    int rc = -1;
    for (size_t i = 0; i < NCOLS; i++)
        if (clarity_icol_reserve((struct clarity_icol *)col_of(t, i), 0, n ? n : 1) != 0) goto out;
    t->cap = n ? n : 1;
    /* upper bounds first: one allocation each */
    for (size_t r = 0; r < n; r++) {
        struct rec_head h;
        memcpy(&h, refs[r].p, sizeof h);
        const uint8_t *p = refs[r].p + sizeof h + 8, *end = refs[r].p + sizeof h.len + h.len;
        uint64_t mask;
        memcpy(&mask, p, 8);
        p += 8;
        for (size_t i = 0; i < NCOLS; i++) {
            if (!(mask >> i & 1)) continue;
            uint64_t z;
            if (!(p = get_varint(p, end, &z))) goto out;
            int64_t val = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
            if (clarity_icol_set((struct clarity_icol *)col_of(t, i), r, val, t->cap) != 0) goto out;
        }
        if (p >= end) goto out;
        bool has_why = *p++;
        if (has_why) {
            struct clarity_task_end_reason *why = CLARITY_VEC_PUSH(v->task_reasons, nreasons, v->cap_task_reasons);
            if (!why) goto out;
            memcpy(why, p, sizeof *why);
            why->row = (uint32_t)r;
            p += sizeof *why;
        }
        uint32_t na;
        memcpy(&na, p, 4);
        p += 4;
        for (uint32_t k = 0; k < na; k++) {
            struct clarity_accum *x = CLARITY_VEC_PUSH(v->task_accums.p, naccs, v->task_accums.cap);
            if (!x) goto out;
            memcpy(x, p, sizeof *x);
            x->owner = (uint32_t)r;
            p += sizeof *x;
        }
        t->n = r + 1;
    }
    v->ntask_reasons = nreasons;
    v->task_accums.n = naccs;
    v->tasks_sorted_by_id = sorted_by_id(t);
    rc = 0;
out:
    free(refs);
    return rc;
}

int clarity__shs_spill_view(const struct shs_spill *s, const struct clarity_app *a, const uint32_t *srows, size_t n,
                            struct clarity_app *v)
{
    *v = *a;
    memset(&v->tasks, 0, sizeof v->tasks);
    v->task_reasons = NULL;
    v->ntask_reasons = v->cap_task_reasons = 0;
    v->task_accums = (struct clarity_accums){0};
    /* lookups by task id read the view's rows, not the model's (which has none) */
    v->task_dense = NULL;
    v->task_dense_cap = 0;
    memset(&v->task_by_id, 0, sizeof v->task_by_id);
    if (s->failed || s->fd < 0) return -1;
    uint64_t len = 0, nrows = 0;
    for (size_t i = 0; i < n; i++)
        if (srows[i] < s->nst) {
            len += s->st[srows[i]].bytes;
            nrows += s->st[srows[i]].rows;
        }
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) return -1;
    uint64_t at = 0;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (srows[i] >= s->nst || !s->st[srows[i]].bytes) continue;
        rc = pread_all(s->fd, buf + at, s->st[srows[i]].bytes, s->st[srows[i]].off);
        at += s->st[srows[i]].bytes;
    }
    if (!rc) rc = rebuild(v, buf, len, nrows);
    free(buf);
    if (rc) clarity__shs_spill_view_free(v);
    return rc;
}
