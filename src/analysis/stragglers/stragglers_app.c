/* Straggler analysis over a whole application: every stage attempt (one worker per core,
 * each stage's task components computed from the model into the worker's scratch), then
 * totals per job, SQL query and application summed from their stages, and the slowest tasks
 * through a bounded heap per worker. */
#include <stdlib.h>
#include <string.h>
#include "clarity/stragglers.h"
#include "sim/workers.h"
#include "util/heap.h"

/* a candidate for the slowest tasks; slower: longer runtime, then lower row */
struct slow { double runtime; uint32_t row; uint16_t flags; double ratio; };

#define LESS_SLOW(ctx, a, b) ((a).runtime < (b).runtime || ((a).runtime == (b).runtime && (a).row > (b).row))
CLARITY_HEAP_DEFINE(slowq, struct slow, void *, LESS_SLOW, CLARITY_HEAP_NOT_INDEXED)

static int slow_cmp(const void *pa, const void *pb)
{
    const struct slow *a = pa, *b = pb;
    if (a->runtime != b->runtime) return a->runtime > b->runtime ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

static int stage_order(const void *pa, const void *pb, void *ctx)
{
    const struct clarity_app *a = ctx;
    const struct clarity_stage *x = &a->stages[((const struct clarity_stage_strag *)pa)->stage];
    const struct clarity_stage *y = &a->stages[((const struct clarity_stage_strag *)pb)->stage];
    if (x->stage_id != y->stage_id) return x->stage_id < y->stage_id ? -1 : 1;
    return (x->attempt > y->attempt) - (x->attempt < y->attempt);
}

struct scratch {
    struct clarity_task_comp *comps;
    uint16_t *flags;
    double *ratio;
    struct slow *heap;           /* the worker's top_n slowest so far */
    size_t nheap;
};

struct job {
    const struct clarity_task_view *v;
    const uint32_t *stage_of_item;   /* item -> stage attempt row */
    struct clarity_stage_strag *out; /* per item */
    struct scratch *ws;
    size_t top_n;
};

/* A stage with fewer than CLARITY_STRAGGLER_MIN_RATED rated tasks is not examined: among so
 * few, the median is no measure of a normal task (of two tasks that differ by half, one is
 * "a straggler"). Its stragglers and their causes are cleared, in the stage and in its tasks'
 * flags, so groups and the slowest tasks agree with it; its data skew figures stay. */
static void too_small(struct clarity_stage_strag *st, uint16_t *flags, size_t n)
{
    if (st->skipped || st->with_input >= CLARITY_STRAGGLER_MIN_RATED) return;
    st->skipped = "fewer than " CLARITY_STR(CLARITY_STRAGGLER_MIN_RATED) " rated tasks: too few to tell a straggler";
    st->stragglers = st->explained = st->explained_thesis = 0;
    memset(st->by_cause, 0, sizeof st->by_cause);
    st->slow_host = st->slow_executor = 0;
    st->slow_host_stragglers = st->slow_host_tasks = st->slow_exec_stragglers = st->slow_exec_tasks = 0;
    for (size_t k = 0; k < n; k++) flags[k] &= (uint16_t)CLARITY_SF_SLOW_DATA;
}

static int one_stage(void *ctx, size_t item, size_t worker, struct clarity_error *err)
{
    struct job *j = ctx;
    struct scratch *w = &j->ws[worker];
    size_t s = j->stage_of_item[item], m = clarity_task_view_stage_size(j->v, s);
    clarity_task_view_stage_comps(j->v, s, w->comps);
    int rc = clarity_stragglers_stage(w->comps, NULL, m, &j->out[item], w->flags, w->ratio, err);
    if (rc) return rc;
    too_small(&j->out[item], w->flags, m);
    if (!j->top_n) return rc;
    for (size_t k = 0; k < m; k++) {
        struct slow x = {w->comps[k].runtime_ms, (uint32_t)w->comps[k].row, w->flags[k], w->ratio[k]};
        if (w->nheap < j->top_n) slowq_push(NULL, w->heap, &w->nheap, x);
        else if (LESS_SLOW(NULL, w->heap[0], x)) slowq_replace_top(NULL, w->heap, w->nheap, x);
    }
    return 0;
}

static void scratch_free(struct scratch *ws, size_t n)
{
    for (size_t i = 0; ws && i < n; i++) {
        free(ws[i].comps); free(ws[i].flags); free(ws[i].ratio); free(ws[i].heap);
    }
    free(ws);
}

/* out->stages: every stage attempt with tasks, analysed in row order, then sorted by id; and
 * the slowest tasks */
static int analyze_stages(const struct clarity_task_view *v, size_t top_n, int threads,
                          struct clarity_stragglers_result *out, struct clarity_error *err)
{
    const struct clarity_app *a = v->app;
    size_t ns = 0;
    for (size_t s = 0; s < v->nstages; s++) ns += clarity_task_view_stage_size(v, s) > 0;
    uint32_t *items = malloc((ns ? ns : 1) * sizeof *items);
    out->stages = calloc(ns ? ns : 1, sizeof *out->stages);
    size_t nw = clarity__workers_count(threads, ns);
    struct scratch *ws = calloc(nw, sizeof *ws);
    struct slow *all = NULL;
    int rc = 0;
    if (!items || !out->stages || !ws) goto oom;
    for (size_t s = 0, k = 0; s < v->nstages; s++)
        if (clarity_task_view_stage_size(v, s)) items[k++] = (uint32_t)s;
    size_t big = v->max_stage ? v->max_stage : 1;
    for (size_t i = 0; i < nw; i++) {
        ws[i].comps = malloc(big * sizeof *ws[i].comps);
        ws[i].flags = malloc(big * sizeof *ws[i].flags);
        ws[i].ratio = malloc(big * sizeof *ws[i].ratio);
        ws[i].heap = malloc((top_n ? top_n : 1) * sizeof *ws[i].heap);
        if (!ws[i].comps || !ws[i].flags || !ws[i].ratio || !ws[i].heap) goto oom;
    }
    struct job j = {v, items, out->stages, ws, top_n};
    if ((rc = clarity__workers_run(threads, ns, one_stage, &j, err))) goto fail;
    out->nstages = ns;
    qsort_r(out->stages, ns, sizeof *out->stages, stage_order, (void *)a);

    /* the slowest of every worker's slowest */
    size_t total = 0;
    for (size_t i = 0; i < nw; i++) total += ws[i].nheap;
    all = malloc((total ? total : 1) * sizeof *all);
    if (!all) goto oom;
    total = 0;
    for (size_t i = 0; i < nw; i++) {
        memcpy(all + total, ws[i].heap, ws[i].nheap * sizeof *all);
        total += ws[i].nheap;
    }
    qsort(all, total, sizeof *all, slow_cmp);
    if (total > top_n) total = top_n;
    out->top = calloc(total ? total : 1, sizeof *out->top);
    if (!out->top) goto oom;
    for (size_t k = 0; k < total; k++) {
        clarity_task_comp_from_row(a, all[k].row, &out->top[k].t);
        out->top[k].flags = all[k].flags;
        out->top[k].ratio = all[k].ratio;
    }
    out->ntop = total;
    free(all); free(items);
    scratch_free(ws, nw);
    return 0;
oom:
    rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory analysing stragglers");
fail:
    free(all); free(items);
    scratch_free(ws, nw);
    return rc;
}

int clarity_stragglers_analyze(const struct clarity_app *a, int kinds, size_t top_n, int threads,
                               struct clarity_stragglers_result *out, struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    struct clarity_task_view v;
    struct clarity_groups groups = {0};
    long *stage_slot = NULL;
    int rc = clarity_task_view_build(a, &v, err);
    if (rc) return rc;
    out->counts = v.counts;
    if (top_n > v.counts.n) top_n = v.counts.n;
    if ((rc = analyze_stages(&v, top_n, threads, out, err))) goto fail;

    /* a group's figures are its stages' sums: a stage attempt is in one group of each kind */
    stage_slot = malloc((a->nstages ? a->nstages : 1) * sizeof *stage_slot);
    if (!stage_slot) goto oom;
    if ((rc = clarity_groups_build(&v, kinds, &groups, err))) goto fail;
    for (size_t s = 0; s < a->nstages; s++) stage_slot[s] = -1;
    for (size_t s = 0; s < out->nstages; s++) stage_slot[out->stages[s].stage] = (long)s;
    out->groups = calloc(groups.n ? groups.n : 1, sizeof *out->groups);
    if (!out->groups) goto oom;
    for (size_t gi = 0; gi < groups.n; gi++) {
        const struct clarity_group *g = &groups.g[gi];
        struct clarity_straggler_group *o = &out->groups[out->ngroups++];
        o->kind = g->kind; o->id = g->id; o->row = g->row;
        o->tasks = g->ntasks; o->stages = g->nstages;
        for (size_t k = 0; k < g->nstages; k++) {
            const struct clarity_stage_strag *st = &out->stages[stage_slot[g->stages[k]]];
            if (!st->skipped) o->stages_analyzed++;
            o->stragglers += st->stragglers;
            o->explained += st->explained;
            o->explained_thesis += st->explained_thesis;
            for (int q = 0; q < CLARITY_SC_COUNT; q++) o->by_cause[q] += st->by_cause[q];
        }
    }
    free(stage_slot);
    clarity_groups_free(&groups);
    clarity_task_view_free(&v);
    return 0;
oom:
    rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory analysing stragglers");
fail:
    free(stage_slot);
    clarity_groups_free(&groups);
    clarity_task_view_free(&v);
    clarity_stragglers_free(out);
    return rc;
}

void clarity_stragglers_free(struct clarity_stragglers_result *r)
{
    free(r->stages);
    free(r->groups);
    free(r->top);
    memset(r, 0, sizeof *r);
}
