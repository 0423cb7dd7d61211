/* Load option task_fold: a task's row lives while the task runs and is handed to the caller
 * when it ends, so a whole application's sums over tasks are built while reading with only
 * the running tasks held (a 10 M-task log's whole task table is ~0.8 GB; its running tasks
 * are a few thousand rows). Rows are reused through a free list, so the table stays as small
 * as the most tasks ever running at once. */
#include <stdlib.h>
#include <string.h>
#include "model/build.h"
#include "util/vec.h"

#define EMPTY INT64_MIN

static size_t slot_of(int64_t tid, size_t cap)
{
    uint64_t h = (uint64_t)tid * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 20) & (cap - 1);
}

bool clarity__model_fold_get(const struct apply_ctx *c, int64_t tid, uint32_t *row)
{
    const struct task_fold_state *f = &c->fold;
    if (!f->cap || tid == EMPTY) return false;
    for (size_t k = slot_of(tid, f->cap); f->keys[k] != EMPTY; k = (k + 1) & (f->cap - 1))
        if (f->keys[k] == tid) {
            *row = f->rows[k];
            return true;
        }
    return false;
}

static int live_grow(struct task_fold_state *f)
{
    size_t ncap = f->cap ? f->cap * 2 : 1024;
    int64_t *k = malloc(ncap * sizeof *k);
    uint32_t *r = malloc(ncap * sizeof *r);
    if (!k || !r) {
        free(k);
        free(r);
        return -1;
    }
    for (size_t i = 0; i < ncap; i++) k[i] = EMPTY;
    for (size_t i = 0; i < f->cap; i++) {
        if (f->keys[i] == EMPTY) continue;
        size_t s = slot_of(f->keys[i], ncap);
        while (k[s] != EMPTY) s = (s + 1) & (ncap - 1);
        k[s] = f->keys[i];
        r[s] = f->rows[i];
    }
    free(f->keys);
    free(f->rows);
    f->keys = k;
    f->rows = r;
    f->cap = ncap;
    return 0;
}

/* Linear probing's deletion: later entries of the run move back into the hole. */
static void live_del(struct task_fold_state *f, int64_t tid)
{
    size_t m = f->cap - 1, i = slot_of(tid, f->cap);
    while (f->keys[i] != tid) {
        if (f->keys[i] == EMPTY) return;
        i = (i + 1) & m;
    }
    f->n--;
    for (size_t j = (i + 1) & m;; j = (j + 1) & m) {
        if (f->keys[j] == EMPTY) break;
        size_t h = slot_of(f->keys[j], f->cap);
        /* the entry at j may fill hole i when its home h is not cyclically in (i, j] */
        if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
            f->keys[i] = f->keys[j];
            f->rows[i] = f->rows[j];
            i = j;
        }
    }
    f->keys[i] = EMPTY;
}

bool clarity__model_fold_done(const struct apply_ctx *c, int64_t tid)
{
    return clarity_idset_has(&c->fold.done, tid);
}

int clarity__model_fold_take(struct apply_ctx *c, int64_t tid, uint32_t *row)
{
    (void)tid;
    struct task_fold_state *f = &c->fold;
    if (!f->nfree) return -1;
    *row = f->free_rows[--f->nfree];
    return 0;
}

int clarity__model_fold_put(struct apply_ctx *c, int64_t tid, uint32_t row)
{
    struct task_fold_state *f = &c->fold;
    if ((f->n + 1) * 2 > f->cap && live_grow(f) != 0) return -1;
    if (clarity_vec_grow_zeroed((void **)&f->ord, &f->ord_cap, (size_t)row + 1, sizeof *f->ord, 1024) != 0) return -1;
    size_t k = slot_of(tid, f->cap);
    while (f->keys[k] != EMPTY) k = (k + 1) & (f->cap - 1);
    f->keys[k] = tid;
    f->rows[k] = row;
    f->n++;
    f->ord[row] = ++f->next_ord;
    return 0;
}

/* Every column of the row back to 0, as a new row reads. */
static int clear_row(struct clarity_tasks *t, size_t row)
{
    struct clarity_icol *cols[] = {&t->task_id, &t->stage, &t->index, &t->attempt, &t->partition,
                                   &t->launch_rel, &t->duration, &t->getting_result, &t->executor,
                                   &t->host, &t->locality, &t->end, &t->flags};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        if (cols[i]->width && clarity_icol_set(cols[i], row, 0, t->cap) != 0) return -1;
    for (int m = 0; m < CLARITY_TM_COUNT; m++)
        if (t->m[m].width && clarity_icol_set(&t->m[m], row, 0, t->cap) != 0) return -1;
    return 0;
}

/* Hands the row over; its end reason and accumulables (pushed last by its TaskEnd, the only
 * ones held) go with it. */
static void hand_over(struct apply_ctx *c, uint32_t row)
{
    struct clarity_app *a = c->app;
    if (c->opt->task_fold(c->opt->task_fold_ctx, a, row, c->fold.ord[row]) != 0) c->failed = 1;
    a->tasks_folded++;
    if (a->ntask_reasons && a->task_reasons[a->ntask_reasons - 1].row == row) a->ntask_reasons--;
    while (a->task_accums.n && a->task_accums.p[a->task_accums.n - 1].owner == row) a->task_accums.n--;
}

void clarity__model_fold_release(struct apply_ctx *c, uint32_t row)
{
    struct task_fold_state *f = &c->fold;
    struct clarity_app *a = c->app;
    int64_t tid = clarity_icol_get(&a->tasks.task_id, row);
    hand_over(c, row);
    live_del(f, tid);
    f->ord[row] = 0;
    if (clarity_idset_add(&f->done, tid) != 0 || clear_row(&a->tasks, row) != 0) {
        c->failed = 1;
        return;
    }
    uint32_t *p = CLARITY_VEC_PUSH(f->free_rows, f->nfree, f->cap_free);
    if (!p) {
        c->failed = 1;
        return;
    }
    *p = row;
}

static int cmp_ord(const void *x, const void *y)
{
    uint64_t a = ((const uint64_t *)x)[0], b = ((const uint64_t *)y)[0];
    return (a > b) - (a < b);
}

void clarity__model_fold_flush(struct apply_ctx *c)
{
    if (!clarity__model_folds(c) || c->failed) return;
    struct task_fold_state *f = &c->fold;
    struct clarity_app *a = c->app;
    uint64_t (*v)[2] = malloc((f->n ? f->n : 1) * sizeof *v);
    if (!v) {
        c->failed = 1;
        return;
    }
    size_t n = 0;
    for (size_t row = 0; row < a->tasks.n && row < f->ord_cap; row++)
        if (f->ord[row]) {
            v[n][0] = f->ord[row];
            v[n++][1] = row;
        }
    qsort(v, n, sizeof *v, cmp_ord);
    for (size_t i = 0; i < n && !c->failed; i++) hand_over(c, (uint32_t)v[i][1]);
    free(v);
    /* the finished model holds no task row: its columns go with the table */
    struct clarity_tasks *t = &a->tasks;
    for (size_t row = 0; row < t->n; row++) clear_row(t, row);
    t->n = 0;
    a->ntask_reasons = 0;
    clarity__model_fold_free(c);
}

void clarity__model_fold_free(struct apply_ctx *c)
{
    struct task_fold_state *f = &c->fold;
    free(f->keys);
    free(f->rows);
    free(f->ord);
    free(f->free_rows);
    clarity_idset_free(&f->done);
    memset(f, 0, sizeof *f);
}
