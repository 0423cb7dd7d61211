/* Per-component DAG replays of the core-count curve (curve_replay.h). Within a component the
 * numbering follows the plan the whole-application replay used to build: units by first
 * launch, parents sorted and without duplicates, so every figure comes out the same. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/whatif/curve_replay.h"
#include "sim/dag_replay.h"
#include "sim/workers.h"

int clarity__curve_slots(int slots, double factor, int absolute)
{
    if (absolute > 0) return absolute;
    double s = nearbyint(factor * slots);
    return s < 1 ? 1 : s > INT32_MAX ? INT32_MAX : (int)s;
}

struct scratch {
    size_t cap, cap_units, cap_edges;
    struct clarity__launch_row *lr;
    struct clarity_sim_task *st;
    double *rt, *heap;
    uint32_t *pos_unit;
    uint32_t *local_of;          /* per stage attempt row: local unit, UINT32_MAX outside */
    uint32_t *unit_key;          /* per local unit: stage attempt row */
    size_t *par_off;
    double *longest, *chain;
    uint32_t *prev;              /* per local unit: the parent its longest chain came through */
    struct clarity_dag_edge *e;  /* (parent, child) local */
    uint32_t *par;
};

static void scratch_free(struct scratch *w)
{
    free(w->lr); free(w->st); free(w->rt); free(w->heap); free(w->pos_unit); free(w->local_of); free(w->unit_key);
    free(w->par_off); free(w->longest); free(w->chain); free(w->prev); free(w->e); free(w->par);
    memset(w, 0, sizeof *w);
}

static bool grow(void **p, size_t want, size_t size)
{
    void *q = realloc(*p, (want ? want : 1) * size);
    if (!q) return false;
    *p = q;
    return true;
}

static bool reserve(struct scratch *w, size_t m, size_t nu, size_t ne)
{
    bool ok = true;
    if (m > w->cap) {
        ok = grow((void **)&w->lr, m, sizeof *w->lr) && grow((void **)&w->st, m, sizeof *w->st) &&
             grow((void **)&w->rt, m, sizeof *w->rt) && grow((void **)&w->heap, m, sizeof *w->heap) && grow((void **)&w->pos_unit, m, sizeof *w->pos_unit);
        if (ok) w->cap = m;
    }
    if (ok && nu > w->cap_units) {
        ok = grow((void **)&w->unit_key, nu, sizeof *w->unit_key) &&
             grow((void **)&w->par_off, nu + 1, sizeof *w->par_off) &&
             grow((void **)&w->longest, nu, sizeof *w->longest) && grow((void **)&w->chain, nu, sizeof *w->chain) &&
             grow((void **)&w->prev, nu, sizeof *w->prev);
        if (ok) w->cap_units = nu;
    }
    if (ok && ne > w->cap_edges) {
        ok = grow((void **)&w->e, ne, sizeof *w->e) && grow((void **)&w->par, ne, sizeof *w->par);
        if (ok) w->cap_edges = ne;
    }
    return ok;
}

static int edge_cmp(const void *pa, const void *pb)
{
    const struct clarity_dag_edge *a = pa, *b = pb;
    if (a->child != b->child) return a->child < b->child ? -1 : 1;
    return (a->parent > b->parent) - (a->parent < b->parent);
}

struct job {
    const struct clarity__curve_ctx *x;
    struct clarity__curve_out *out;
    struct scratch *ws;
};

/* longest chain of units, each weighted by its longest task (infinite slots); *end gets the
 * unit the chain ends at (UINT32_MAX when there is none) and w->prev the way back */
static double critical_path(struct scratch *w, size_t m, size_t nu, uint32_t *end)
{
    for (size_t u = 0; u < nu; u++) w->longest[u] = 0;
    for (size_t i = 0; i < m; i++)
        if (w->rt[i] > w->longest[w->pos_unit[i]]) w->longest[w->pos_unit[i]] = w->rt[i];
    for (size_t u = 0; u < nu; u++) {
        w->chain[u] = w->longest[u];
        w->prev[u] = UINT32_MAX;
    }
    /* relax until stable (a cycle, which logs should never hold, stops after nu rounds) */
    for (size_t round = 0; round < nu; round++) {
        bool changed = false;
        for (size_t u = 0; u < nu; u++)
            for (size_t q = w->par_off[u]; q < w->par_off[u + 1]; q++) {
                double v = w->chain[w->par[q]] + w->longest[u];
                if (v > w->chain[u]) { w->chain[u] = v; w->prev[u] = w->par[q]; changed = true; }
            }
        if (!changed) break;
    }
    double best = 0;
    *end = UINT32_MAX;
    for (size_t u = 0; u < nu; u++)
        if (w->chain[u] > best) { best = w->chain[u]; *end = (uint32_t)u; }
    return best;
}

/* Marks the stage attempt rows of the chain ending at unit end (components hold disjoint
 * stages, so workers write disjoint entries). At most nu steps: a cycle left in prev by a
 * damaged log cannot loop. */
static void mark_critical(const struct scratch *w, uint32_t end, size_t nu, uint8_t *on)
{
    for (size_t k = 0; k < nu && end != UINT32_MAX; k++, end = w->prev[end]) on[w->unit_key[end]] = 1;
}

static int one_component(void *ctx, size_t c, size_t worker, struct clarity_error *err)
{
    struct job *j = ctx;
    const struct clarity__curve_ctx *x = j->x;
    struct clarity__curve_out *o = j->out;
    struct scratch *w = &j->ws[worker];
    const struct clarity_replay_component *pc = &x->comp[c];
    const uint32_t *units = x->units + pc->first;
    size_t m = pc->n, nu = pc->nunits, ne = 0;
    for (size_t u = 0; u < nu; u++) ne += x->par_off[units[u] + 1] - x->par_off[units[u]];
    if (!reserve(w, m, nu, ne)) goto oom;
    clarity__component_tasks(x->v, units, nu, w->lr, m);
    /* units numbered by first launch, as the whole-application plan numbered them */
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        struct clarity_task_comp tc;
        clarity_task_comp_from_row(x->v->app, w->lr[i].row, &tc);
        w->st[i] = (struct clarity_sim_task){tc.launch_ms, tc.finish_ms, tc.sched_delay_ms, tc.stage};
        w->rt[i] = tc.runtime_ms + (x->extra_ms ? x->extra_ms[w->lr[i].row] : 0);
        if (w->local_of[tc.stage] == UINT32_MAX) {
            w->local_of[tc.stage] = (uint32_t)k;
            w->unit_key[k++] = tc.stage;
        }
        w->pos_unit[i] = w->local_of[tc.stage];
    }
    /* dependencies inside the component; the others are honoured by running components in order */
    size_t n = 0;
    for (size_t u = 0; u < nu; u++) {
        uint32_t s = w->unit_key[u];
        for (size_t q = x->par_off[s]; q < x->par_off[s + 1]; q++) {
            uint32_t p = x->par[q];
            if (p != s && w->local_of[p] != UINT32_MAX) w->e[n++] = (struct clarity_dag_edge){w->local_of[p], (uint32_t)u};
        }
    }
    if (n > 1) qsort(w->e, n, sizeof *w->e, edge_cmp);   /* no edge: nothing allocated yet */
    for (size_t u = 0; u <= nu; u++) w->par_off[u] = 0;
    size_t np = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && w->e[i].child == w->e[i - 1].child && w->e[i].parent == w->e[i - 1].parent) continue;
        w->par_off[w->e[i].child + 1]++;
        w->par[np++] = w->e[i].parent;
    }
    for (size_t u = 0; u < nu; u++) w->par_off[u + 1] += w->par_off[u];
    for (size_t u = 0; u < nu; u++) w->local_of[w->unit_key[u]] = UINT32_MAX;   /* clean for the next */
    o->edges[c] = np;
    o->slots[c] = clarity__component_slots(x->slots, w->st, m, pc->start_ms, pc->end_ms, w->heap, &o->fallback[c]);
    uint32_t end;
    o->critical[c] = critical_path(w, m, nu, &end);
    if (o->on_critical) mark_critical(w, end, nu, o->on_critical);
    /* the replay at the component's own slots, then at each point; slots beyond the task
     * count replay alike (the kernel caps them), so a run is made once per distinct cap */
    size_t npt = x->npoints, ndone = 0;
    int done_cap[65];
    double done_ms[65];
    int rc = 0;
    for (size_t i = 0; i <= npt && !rc; i++) {
        int slots = i == 0 ? clarity__curve_slots(o->slots[c], 1.0, 0)
                           : clarity__curve_slots(o->slots[c], x->factor[i - 1], x->absolute[i - 1]);
        int cap = (size_t)slots > m ? (int)m : slots;
        double *dst = i == 0 ? &o->observed[c] : &o->point[c * npt + i - 1];
        size_t q = 0;
        while (q < ndone && done_cap[q] != cap) q++;
        if (q < ndone) { *dst = done_ms[q]; continue; }
        rc = clarity_dag_makespan(w->rt, w->pos_unit, m, nu, w->par_off, w->par, slots, dst, err);
        if (ndone < sizeof done_cap / sizeof *done_cap) {
            done_cap[ndone] = cap;
            done_ms[ndone++] = *dst;
        }
    }
    return rc;
oom:
    return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in the core-count curve");
}

int clarity__curve_replay(const struct clarity__curve_ctx *x, size_t ncomp, int threads, struct clarity__curve_out *out,
                          struct clarity_error *err)
{
    size_t nw = clarity__workers_count(threads, ncomp), ns = x->v->nstages;
    struct scratch *ws = calloc(nw, sizeof *ws);
    bool ok = ws != NULL;
    for (size_t i = 0; ok && i < nw; i++) {
        ok = (ws[i].local_of = malloc((ns ? ns : 1) * sizeof *ws[i].local_of)) != NULL;
        for (size_t s = 0; ok && s < ns; s++) ws[i].local_of[s] = UINT32_MAX;
    }
    int rc;
    if (ok) {
        struct job j = {x, out, ws};
        rc = clarity__workers_run(threads, ncomp, one_component, &j, err);
    } else rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in the core-count curve");
    for (size_t i = 0; ws && i < nw; i++) scratch_free(&ws[i]);
    free(ws);
    return rc;
}
