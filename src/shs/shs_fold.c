/* The stage, executor and job figures of shs_agg.c built while a log is read (load option
 * task_fold), so a server answers jobs, the stage list and executors of an application whose
 * task table would pass its memory bound. Each task row goes through the very functions the
 * row-order pass uses (clarity__shs_stage_task, clarity__shs_exec_task); what that pass
 * takes from row order is kept as the smallest task ordinal instead: the order of the
 * killedTasksSummary keys and of a stage's executor entries. A job's tasks are those of its
 * stage attempts launched within its window, which is known only at its end: a stage attempt
 * whose launches lie all inside or all outside every window of the jobs naming its stage
 * counts whole or not at all, and any other (checked once the log is read) makes the fold
 * inexact, and the caller loads the whole model instead. */
#include <stdlib.h>
#include <string.h>
#include "shs/shs_internal.h"
#include "util/vec.h"

/* Task indices above this make the fold inexact rather than a huge bitmap (Spark's indices
 * run from 0 to the stage's partition count). */
#define MAX_INDEX (1 << 26)

struct fold_stage {
    struct shs_stage_agg agg;
    uint64_t *bits; size_t nwords;          /* successful task indices */
    int64_t min_launch, max_launch;         /* over rows with a launch time */
    bool rows, timed, untimed;              /* any row; any with a launch time; any without */
};

struct clarity_shs_fold {
    struct fold_stage *st; size_t nst;      /* by stage row */
    struct shs_exec_agg *ex; size_t nex;    /* by executor row */
    struct clarity_idmap slot;              /* stage row << 32 | executor row -> entry + 1 */
    bool inexact;
    struct shs_spill *spill;                /* every row on disk (clarity_shs_fold_spill), or NULL */
    char *spill_dir;
};

struct fold_sink {
    struct shs_stage_sink k;
    struct clarity_shs_fold *f;
    size_t si;
};

static struct shs_exec_stage *fold_exec_of(struct shs_stage_sink *k, struct shs_stage_agg *s, uint32_t exec, size_t erow)
{
    struct fold_sink *fk = (struct fold_sink *)k;
    int64_t key = (int64_t)((uint64_t)fk->si << 32 | (uint64_t)erow);
    uint32_t pos;
    if (clarity_idmap_get(&fk->f->slot, key, &pos)) return &s->ex[pos - 1];
    struct shs_exec_stage *e = clarity__shs_exec_stage_add(s, exec);
    if (e && clarity_idmap_put(&fk->f->slot, key, (uint32_t)s->nex) != 0) return NULL;
    return e;
}

static int fold_completed(struct shs_stage_sink *k, int64_t index)
{
    struct fold_sink *fk = (struct fold_sink *)k;
    struct fold_stage *fs = &fk->f->st[fk->si];
    if (index < 0 || index >= MAX_INDEX) {
        fk->f->inexact = true;
        return 0;
    }
    size_t w = (size_t)index / 64;
    if (clarity_vec_grow_zeroed((void **)&fs->bits, &fs->nwords, w + 1, sizeof *fs->bits, 1) != 0) return -1;
    fs->bits[w] |= (uint64_t)1 << (index % 64);
    return 0;
}

static int grow(struct clarity_shs_fold *f, const struct clarity_app *a)
{
    if (a->nstages > f->nst) {
        struct fold_stage *p = realloc(f->st, a->nstages * sizeof *p);
        if (!p) return -1;
        for (size_t i = f->nst; i < a->nstages; i++) {
            memset(&p[i], 0, sizeof p[i]);
            p[i].agg.first_launch = INT64_MAX;
        }
        f->st = p;
        f->nst = a->nstages;
    }
    if (a->nexecs > f->nex) {
        struct shs_exec_agg *p = realloc(f->ex, a->nexecs * sizeof *p);
        if (!p) return -1;
        memset(p + f->nex, 0, (a->nexecs - f->nex) * sizeof *p);
        f->ex = p;
        f->nex = a->nexecs;
    }
    return 0;
}

static int fold_task(void *ctx, const struct clarity_app *a, size_t row, uint64_t ord)
{
    struct clarity_shs_fold *f = ctx;
    if (grow(f, a) != 0) return -1;
    size_t si = (size_t)clarity_icol_get(&a->tasks.stage, row);
    if (si >= f->nst) return -1;
    clarity__shs_exec_task(f->ex, a, row);
    struct fold_stage *fs = &f->st[si];
    int64_t launch = clarity_task_launch_ms(a, row);
    fs->rows = true;
    if (launch == 0) {
        fs->untimed = true;
    } else {
        if (!fs->timed || launch < fs->min_launch) fs->min_launch = launch;
        if (!fs->timed || launch > fs->max_launch) fs->max_launch = launch;
        fs->timed = true;
    }
    struct fold_sink k = {{fold_exec_of, fold_completed, ord}, f, si};
    if (f->spill && clarity__shs_spill_row(f->spill, a, row, ord) != 0) return -1;
    return clarity__shs_stage_task(a, &fs->agg, row, &k.k);
}

int clarity_shs_fold_spill(struct clarity_shs_fold *f, const char *dir, struct clarity_error *err)
{
    if (!(f->spill_dir = strdup(dir && *dir ? dir : "/tmp")))
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    if (clarity__shs_spill_open(&f->spill, f->spill_dir) != 0)
        return clarity_error_set(err, CLARITY_EIO, f->spill_dir, 0, 0, "cannot make a file for task rows in this directory");
    return CLARITY_OK;
}

const struct shs_spill *clarity__shs_fold_spill_of(const struct clarity_shs_fold *f)
{
    return f ? f->spill : NULL;
}

int clarity_shs_fold_new(struct clarity_shs_fold **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? CLARITY_OK : CLARITY_ENOMEM;
}

void clarity_shs_fold_free(struct clarity_shs_fold *f)
{
    if (!f) return;
    for (size_t i = 0; i < f->nst; i++) {
        clarity__shs_stage_agg_free(&f->st[i].agg);
        free(f->st[i].bits);
    }
    free(f->st);
    free(f->ex);
    clarity_idmap_free(&f->slot);
    clarity__shs_spill_free(f->spill);
    free(f->spill_dir);
    free(f);
}

static void fold_free_void(void *p) { clarity_shs_fold_free(p); }

void clarity_shs_fold_options(struct clarity_shs_fold *f, struct clarity_load_options *opt)
{
    opt->task_fold = fold_task;
    opt->task_fold_ctx = f;
}

/* Whether a job's window takes a stage attempt's tasks whole (1), not at all (0) or in part
 * (-1). A task without a launch time passes every window (clarity__shs_stage_tasks_in_window). */
static int window_cover(const struct fold_stage *fs, const struct clarity_job *j)
{
    if (!fs->rows || !fs->timed) return 1;
    bool lo_in = j->submit_ms <= 0 || fs->min_launch >= j->submit_ms;
    bool hi_in = j->end_ms <= 0 || fs->max_launch <= j->end_ms;
    if (lo_in && hi_in) return 1;
    bool out = (j->submit_ms > 0 && fs->max_launch < j->submit_ms) || (j->end_ms > 0 && fs->min_launch > j->end_ms);
    return out && !fs->untimed ? 0 : -1;
}

int clarity_shs_fold_attach(struct clarity_shs_fold *f, struct clarity_app *a, bool *exact)
{
    *exact = false;
    if (grow(f, a) != 0) return CLARITY_ENOMEM;
    if (f->inexact || a->tasks_refolded) return CLARITY_OK;
    struct shs_index ix;
    if (clarity__shs_index_build(&ix, a, SHS_IX_STAGE_IDS) != 0) return CLARITY_ENOMEM;
    bool ok = true;
    for (size_t i = 0; i < a->njobs && ok; i++) {
        const struct clarity_job *j = &a->jobs[i];
        for (size_t k = 0; k < j->nstage_ids && ok; k++) {
            size_t n;
            const uint32_t *rows = clarity__shs_stage_rows_of(&ix, j->stage_ids[k], &n);
            for (size_t r = 0; r < n && ok; r++) ok = rows[r] >= f->nst || window_cover(&f->st[rows[r]], j) >= 0;
        }
    }
    clarity__shs_index_free(&ix);
    if (!ok) return CLARITY_OK;
    if (f->spill && clarity__shs_spill_finish(f->spill, a, f->spill_dir) != 0) return CLARITY_EIO;
    /* the per-pair slot map served the reading only */
    clarity_idmap_free(&f->slot);
    a->fold_result = f;
    a->fold_result_free = fold_free_void;
    *exact = true;
    return CLARITY_OK;
}

int clarity__shs_fold_exec_aggs(const struct clarity_shs_fold *f, struct shs_exec_agg *ex, size_t nexecs)
{
    memcpy(ex, f->ex, (f->nex < nexecs ? f->nex : nexecs) * sizeof *ex);
    return 0;
}

static int cmp_count_ord(const void *x, const void *y)
{
    const struct shs_count *a = *(const struct shs_count *const *)x, *b = *(const struct shs_count *const *)y;
    return (a->ord > b->ord) - (a->ord < b->ord);
}

/* Adds src's counts to dst in the order of their ordinals (dst's order: row order). */
static int counts_in_order(struct shs_counts *dst, const struct shs_counts *src)
{
    const struct shs_count **v = malloc((src->n ? src->n : 1) * sizeof *v);
    if (!v) return -1;
    for (size_t i = 0; i < src->n; i++) v[i] = &src->p[i];
    qsort(v, src->n, sizeof *v, cmp_count_ord);
    int rc = 0;
    for (size_t i = 0; i < src->n && !rc; i++) rc = clarity__shs_counts_add_ord(dst, v[i]->text, v[i]->n, v[i]->ord);
    free(v);
    return rc;
}

static int cmp_exec_ord(const void *x, const void *y)
{
    const struct shs_exec_stage *a = x, *b = y;
    return (a->ord > b->ord) - (a->ord < b->ord);
}

static int64_t popcount(const uint64_t *bits, size_t n)
{
    int64_t c = 0;
    for (size_t i = 0; i < n; i++) c += __builtin_popcountll(bits[i]);
    return c;
}

int clarity__shs_fold_stage_agg(const struct clarity_shs_fold *f, size_t si, struct shs_stage_agg *s)
{
    memset(s, 0, sizeof *s);
    s->first_launch = INT64_MAX;
    if (si >= f->nst) return 0;
    const struct fold_stage *fs = &f->st[si];
    *s = fs->agg;
    s->killed_summary = (struct shs_counts){0};
    s->ex = NULL;
    s->nex = s->capex = 0;
    s->completed_indices = popcount(fs->bits, fs->nwords);
    if (counts_in_order(&s->killed_summary, &fs->agg.killed_summary) != 0) goto oom;
    if (fs->agg.nex) {
        if (!(s->ex = malloc(fs->agg.nex * sizeof *s->ex))) goto oom;
        memcpy(s->ex, fs->agg.ex, fs->agg.nex * sizeof *s->ex);
        s->nex = s->capex = fs->agg.nex;
        qsort(s->ex, s->nex, sizeof *s->ex, cmp_exec_ord);
    }
    return 0;
oom:
    clarity__shs_stage_agg_free(s);
    return -1;
}

int clarity__shs_fold_job_tasks(const struct clarity_shs_fold *f, const struct shs_index *ix, const struct clarity_job *j,
                                const int64_t *sids, size_t nsids, struct shs_job_agg *ja)
{
    struct shs_counts killed = {0};
    uint64_t *bits = NULL;
    size_t cap = 0;
    int rc = -1;
    for (size_t k = 0; k < nsids; k++) {
        size_t n, nw = 0;
        const uint32_t *rows = clarity__shs_stage_rows_of(ix, sids[k], &n);
        for (size_t r = 0; r < n; r++) {
            if (rows[r] >= f->nst) continue;
            const struct fold_stage *fs = &f->st[rows[r]];
            int cover = window_cover(fs, j);
            if (cover < 0) goto out;   /* the attach check rules this out */
            if (!cover) continue;
            ja->active += fs->agg.active;
            ja->completed += fs->agg.completed;
            ja->killed += fs->agg.killed;
            ja->failed += fs->agg.failed;
            for (size_t i = 0; i < fs->agg.killed_summary.n; i++) {
                const struct shs_count *c = &fs->agg.killed_summary.p[i];
                if (clarity__shs_counts_add_ord(&killed, c->text, c->n, c->ord) != 0) goto out;
            }
            if (fs->nwords > cap) {
                uint64_t *p = realloc(bits, fs->nwords * sizeof *p);
                if (!p) goto out;
                memset(p + cap, 0, (fs->nwords - cap) * sizeof *p);
                bits = p;
                cap = fs->nwords;
            }
            if (fs->nwords > nw) nw = fs->nwords;
            for (size_t w = 0; w < fs->nwords; w++) bits[w] |= fs->bits[w];
        }
        ja->completed_indices += popcount(bits, nw);
        if (nw) memset(bits, 0, nw * sizeof *bits);
    }
    rc = counts_in_order(&ja->killed_summary, &killed);
out:
    clarity__shs_counts_free(&killed);
    free(bits);
    return rc;
}
