/* Workload replay (see workload_replay.h): an event loop over stage submissions and task
 * ends; at each instant the free slots go to the ready stages in the scheduler's order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim/workload_replay.h"
#include "util/heap.h"

struct ev { double t; uint32_t s; };
#define EV_LESS(ctx, a, b) ((a).t < (b).t || ((a).t == (b).t && (a).s < (b).s))
CLARITY_HEAP_DEFINE(evq, struct ev, void *, EV_LESS, CLARITY_HEAP_NOT_INDEXED)

/* FIFO inside a pool: job id, then stage id, then stage index */
static bool fifo_less(const struct clarity_wl_stage *st, uint32_t a, uint32_t b)
{
    const struct clarity_wl_stage *x = &st[a], *y = &st[b];
    if (x->job_id != y->job_id) return x->job_id < y->job_id;
    if (x->stage_id != y->stage_id) return x->stage_id < y->stage_id;
    return a < b;
}
#define ACT_LESS(ctx, a, b) fifo_less((ctx), (a), (b))
CLARITY_HEAP_DEFINE(actq, uint32_t, const struct clarity_wl_stage *, ACT_LESS, CLARITY_HEAP_NOT_INDEXED)

/* stages by (unit, submission, index); by (unit, end, index descending), so that in the
 * sweep the last of equal ends is the lowest index */
static int cmp_sub(const void *pa, const void *pb, void *ctx)
{
    const struct clarity_wl_stage *st = ctx;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    if (st[a].unit != st[b].unit) return st[a].unit < st[b].unit ? -1 : 1;
    if (st[a].submit_ms != st[b].submit_ms) return st[a].submit_ms < st[b].submit_ms ? -1 : 1;
    return (a > b) - (a < b);
}

static int cmp_end(const void *pa, const void *pb, void *ctx)
{
    const struct clarity_wl_stage *st = ctx;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    if (st[a].unit != st[b].unit) return st[a].unit < st[b].unit ? -1 : 1;
    if (st[a].end_ms != st[b].end_ms) return st[a].end_ms < st[b].end_ms ? -1 : 1;
    return (a < b) - (a > b);
}

int clarity_wl_link_preds(struct clarity_wl_stage *st, size_t n)
{
    uint32_t *by_sub = malloc((n ? n : 1) * sizeof *by_sub), *by_end = malloc((n ? n : 1) * sizeof *by_end);
    if (!by_sub || !by_end) {
        free(by_sub); free(by_end);
        return CLARITY_ENOMEM;
    }
    for (size_t k = 0; k < n; k++) {
        by_sub[k] = by_end[k] = (uint32_t)k;
        st[k].pred = CLARITY_WL_NONE;
    }
    qsort_r(by_sub, n, sizeof *by_sub, cmp_sub, st);
    qsort_r(by_end, n, sizeof *by_end, cmp_end, st);
    for (size_t i = 0, e = 0; i < n;) {   /* unit by unit: both orders list the units alike */
        uint32_t u = st[by_sub[i]].unit;
        size_t i1 = i, e1 = e;
        while (i1 < n && st[by_sub[i1]].unit == u) i1++;
        while (e1 < n && st[by_end[e1]].unit == u) e1++;
        for (size_t k = i, j = e; k < i1; k++) {
            uint32_t s = by_sub[k];
            while (j < e1 && st[by_end[j]].end_ms <= st[s].submit_ms) j++;
            for (size_t t = j; t > e; t--) {
                uint32_t q = by_end[t - 1];
                if (st[q].submit_ms < st[s].submit_ms || (st[q].submit_ms == st[s].submit_ms && q < s)) {
                    st[s].pred = q;
                    break;
                }
            }
        }
        i = i1;
        e = e1;
    }
    free(by_sub); free(by_end);
    return 0;
}

void clarity_wl_run_free(struct clarity_wl_run *r)
{
    free(r->sub); free(r->end); free(r->next); free(r->left); free(r->child_off); free(r->child);
    free(r->heap_sub); free(r->heap_run); free(r->heap_act); free(r->pool_run); free(r->pool_act);
    memset(r, 0, sizeof *r);
}

/* per pool p its ready stages are heap_act[pool_off[p] ..): pool_off is kept after pool_act */
int clarity_wl_run_init(struct clarity_wl_run *r, const struct clarity_wl *w, struct clarity_error *err)
{
    memset(r, 0, sizeof *r);
    size_t ns = w->nst ? w->nst : 1, np = w->npools ? w->npools : 1;
    size_t slots = w->slots < 1 ? 1 : (size_t)w->slots;
    r->sub = malloc(ns * sizeof *r->sub);
    r->end = malloc(ns * sizeof *r->end);
    r->next = malloc(ns * sizeof *r->next);
    r->left = malloc(ns * sizeof *r->left);
    r->child_off = calloc(ns + 1, sizeof *r->child_off);
    r->child = malloc(ns * sizeof *r->child);
    r->heap_sub = malloc(ns * sizeof(struct ev));
    r->heap_run = malloc((slots < w->ntasks ? slots : w->ntasks + 1) * sizeof(struct ev));
    r->heap_act = malloc(ns * sizeof(uint32_t));
    r->pool_run = malloc(np * sizeof *r->pool_run);
    r->pool_act = calloc(2 * np + 1, sizeof *r->pool_act);
    if (!r->sub || !r->end || !r->next || !r->left || !r->child_off || !r->child || !r->heap_sub || !r->heap_run ||
        !r->heap_act || !r->pool_run || !r->pool_act) {
        clarity_wl_run_free(r);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory replaying the workload");
    }
    for (size_t s = 0; s < w->nst; s++)
        if (w->st[s].pred != CLARITY_WL_NONE) r->child_off[w->st[s].pred + 1]++;
    for (size_t s = 0; s < w->nst; s++) r->child_off[s + 1] += r->child_off[s];
    uint32_t *fill = (uint32_t *)r->next;   /* borrowed: reset by every run */
    memset(fill, 0, ns * sizeof *r->next);
    for (size_t s = 0; s < w->nst; s++) {
        uint32_t p = w->st[s].pred;
        if (p != CLARITY_WL_NONE) r->child[r->child_off[p] + fill[p]++] = (uint32_t)s;
    }
    /* pool offsets into heap_act: pool_act[np + 1 + p] = first slot of pool p */
    size_t *off = r->pool_act + np + 1;
    size_t *cnt = calloc(np, sizeof *cnt);
    if (!cnt) {
        clarity_wl_run_free(r);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory replaying the workload");
    }
    for (size_t s = 0; s < w->nst; s++) cnt[w->fair ? w->st[s].pool : 0]++;
    size_t acc = 0;
    for (size_t p = 0; p < np; p++) off[p] = acc, acc += cnt[p];
    free(cnt);
    return 0;
}

void clarity_wl_replay(const struct clarity_wl *w, struct clarity_wl_run *r, uint32_t omit, double *unit_end)
{
    const struct clarity_wl_stage *st = w->st;
    size_t np = w->fair && w->npools ? w->npools : 1;
    size_t *nact = r->pool_act, *off = r->pool_act + (w->npools ? w->npools : 1) + 1;
    uint32_t *act = r->heap_act;
    struct ev *sub = r->heap_sub, *run = r->heap_run;
    size_t nsub = 0, nrun = 0, free_slots = w->slots < 1 ? 1 : (size_t)w->slots;
    for (size_t u = 0; u < w->nunits; u++) unit_end[u] = -INFINITY;
    for (size_t p = 0; p < np; p++) nact[p] = 0, r->pool_run[p] = 0;
    for (size_t s = 0; s < w->nst; s++) {
        r->next[s] = 0;
        r->left[s] = st[s].ntasks;
        r->end[s] = -INFINITY;
        if (st[s].unit != omit && st[s].pred == CLARITY_WL_NONE) evq_push(NULL, sub, &nsub, (struct ev){st[s].submit_ms, (uint32_t)s});
    }
    double t = -INFINITY;
    for (;;) {
        double next = INFINITY;
        if (nsub && sub[0].t < next) next = sub[0].t;
        if (nrun && run[0].t < next) next = run[0].t;
        if (next == INFINITY) break;
        t = next;
        /* task ends first: a stage that ends now may release a child at this very instant */
        while (nrun && run[0].t <= t) {
            struct ev e = evq_pop(NULL, run, &nrun);
            free_slots++;
            r->pool_run[w->fair ? st[e.s].pool : 0]--;
            if (--r->left[e.s] == 0) {
                r->end[e.s] = t;
                for (uint32_t q = r->child_off[e.s]; q < r->child_off[e.s + 1]; q++) {
                    uint32_t c = r->child[q];
                    double gap = st[c].submit_ms - st[e.s].end_ms;
                    evq_push(NULL, sub, &nsub, (struct ev){t + (gap > 0 ? gap : 0), c});
                }
            }
        }
        while (nsub && sub[0].t <= t) {
            uint32_t s = evq_pop(NULL, sub, &nsub).s;
            r->sub[s] = t;
            if (st[s].ntasks == 0) {   /* nothing to run: it ends as long after submission as logged */
                double d = st[s].end_ms - st[s].submit_ms;
                r->end[s] = t + (d > 0 ? d : 0);
                for (uint32_t q = r->child_off[s]; q < r->child_off[s + 1]; q++) {
                    uint32_t c = r->child[q];
                    double gap = st[c].submit_ms - st[s].end_ms;
                    evq_push(NULL, sub, &nsub, (struct ev){r->end[s] + (gap > 0 ? gap : 0), c});
                }
                continue;
            }
            size_t p = w->fair ? st[s].pool : 0;
            actq_push(st, act + off[p], &nact[p], s);
        }
        while (free_slots > 0) {
            /* FAIR: the pool with ready tasks running the fewest (ties: lower pool index) */
            size_t best = SIZE_MAX;
            for (size_t p = 0; p < np; p++)
                if (nact[p] && (best == SIZE_MAX || r->pool_run[p] < r->pool_run[best])) best = p;
            if (best == SIZE_MAX) break;
            uint32_t *h = act + off[best];
            uint32_t s = h[0];
            size_t k = st[s].first + r->next[s]++;
            double d = w->run_ms[k] > 0 ? w->run_ms[k] : 0;   /* also maps NaN to 0 */
            evq_push(NULL, run, &nrun, (struct ev){t + d, s});
            free_slots--;
            r->pool_run[best]++;
            if (r->next[s] == st[s].ntasks) actq_pop(st, h, &nact[best]);
        }
    }
    for (size_t s = 0; s < w->nst; s++)
        if (st[s].unit != omit && r->end[s] > unit_end[st[s].unit]) unit_end[st[s].unit] = r->end[s];
}
