/* DAG-aware list scheduling: the blocked-time replay with stage dependencies inside each
 * pooled component (see dag_replay.h). Event-driven: at each instant, free slots take the
 * runnable task with the earliest log launch; time then jumps to the next slot release or
 * the next stage whose parents are done. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim/dag_replay.h"
#include "util/heap.h"

struct hent { double key; uint32_t u; };
struct heap { struct hent *v; size_t n; };

/* earlier key first; the unit breaks ties, so the order is total and the replay deterministic */
#define HENT_LESS(ctx, a, b) ((a).key < (b).key || ((a).key == (b).key && (a).u < (b).u))
CLARITY_HEAP_DEFINE(hq, struct hent, void *, HENT_LESS, CLARITY_HEAP_NOT_INDEXED)

static void hpush(struct heap *h, double key, uint32_t u) { hq_push(NULL, h->v, &h->n, (struct hent){key, u}); }
static struct hent hpop(struct heap *h) { return hq_pop(NULL, h->v, &h->n); }

int clarity_dag_makespan(const double *runtime, const uint32_t *unit, size_t n, size_t nunits,
                         const size_t *par_off, const uint32_t *par, int slots, double *makespan,
                         struct clarity_error *err)
{
    *makespan = 0;
    if (n == 0) return 0;
    size_t cap = slots < 1 ? 1 : (size_t)slots;
    if (cap > n) cap = n;
    size_t U = nunits;
    /* per unit: its task positions (CSR, list order), children (CSR), counters */
    size_t *toff = calloc(U + 1, sizeof *toff), *tpos = malloc(n * sizeof *tpos);
    size_t *coff = calloc(U + 1, sizeof *coff), *started = calloc(U, sizeof *started);
    size_t npar = par_off ? par_off[U] : 0;
    uint32_t *child = malloc((npar ? npar : 1) * sizeof *child);
    size_t *waiting = calloc(U, sizeof *waiting);          /* parents not yet fully started */
    double *ready_at = calloc(U, sizeof *ready_at), *finish = calloc(U, sizeof *finish);
    struct heap run = {malloc(cap * sizeof(struct hent)), 0};
    struct heap rel = {malloc(U * sizeof(struct hent)), 0}, rdy = {malloc(U * sizeof(struct hent)), 0};
    double end = -1;
    if (!toff || !tpos || !coff || !started || !child || !waiting || !ready_at || !finish || !run.v || !rel.v ||
        !rdy.v)
        goto out;
    for (size_t k = 0; k < n; k++) toff[unit[k] + 1]++;
    for (size_t u = 0; u < U; u++) toff[u + 1] += toff[u];
    for (size_t k = 0; k < n; k++) tpos[toff[unit[k]] + started[unit[k]]++] = k;
    memset(started, 0, U * sizeof *started);
    for (size_t u = 0; u < U; u++)
        for (size_t q = par_off ? par_off[u] : 0; q < (par_off ? par_off[u + 1] : 0); q++) coff[par[q] + 1]++;
    for (size_t u = 0; u < U; u++) coff[u + 1] += coff[u];
    size_t *cfill = waiting;   /* borrowed as a fill counter, reset below */
    for (size_t u = 0; u < U; u++)
        for (size_t q = par_off ? par_off[u] : 0; q < (par_off ? par_off[u + 1] : 0); q++)
            child[coff[par[q]] + cfill[par[q]]++] = (uint32_t)u;
    for (size_t u = 0; u < U; u++) waiting[u] = par_off ? par_off[u + 1] - par_off[u] : 0;
    for (size_t u = 0; u < U; u++)
        if (!waiting[u] && toff[u + 1] > toff[u]) hpush(&rdy, (double)tpos[toff[u]], (uint32_t)u);

    double t = 0;
    size_t nstarted = 0, free_slots = cap;
    end = 0;
    for (;;) {
        while (free_slots > 0 && rdy.n > 0) {
            uint32_t u = hpop(&rdy).u;
            size_t k = tpos[toff[u] + started[u]++];
            double r = runtime[k] > 0 ? runtime[k] : 0;   /* also maps NaN to 0 */
            double f = t + r;
            hpush(&run, f, 0);
            free_slots--;
            nstarted++;
            if (f > finish[u]) finish[u] = f;
            if (f > end) end = f;
            if (toff[u] + started[u] < toff[u + 1]) {
                hpush(&rdy, (double)tpos[toff[u] + started[u]], u);
                continue;
            }
            /* the unit's last task has started: its finish is known, children may be released */
            for (size_t q = coff[u]; q < coff[u + 1]; q++) {
                uint32_t c = child[q];
                if (finish[u] > ready_at[c]) ready_at[c] = finish[u];
                if (waiting[c] > 0 && --waiting[c] == 0) hpush(&rel, ready_at[c], c);
            }
        }
        if (nstarted == n) break;
        double next = run.n ? run.v[0].key : INFINITY;
        if (rel.n && rel.v[0].key < next) next = rel.v[0].key;
        if (next == INFINITY) {
            /* nothing runs and nothing will be released: a dependency cycle; release the rest */
            for (size_t u = 0; u < U; u++)
                if (waiting[u] && toff[u + 1] > toff[u]) {
                    waiting[u] = 0;
                    hpush(&rdy, (double)tpos[toff[u]], (uint32_t)u);
                }
            continue;
        }
        if (next > t) t = next;
        while (run.n && run.v[0].key <= t) { hpop(&run); free_slots++; }
        while (rel.n && rel.v[0].key <= t) {
            uint32_t u = hpop(&rel).u;
            if (toff[u + 1] > toff[u]) hpush(&rdy, (double)tpos[toff[u]], u);
        }
    }
out:
    free(toff); free(tpos); free(coff); free(started); free(child); free(waiting);
    free(ready_at); free(finish); free(run.v); free(rel.v); free(rdy.v);
    if (end < 0) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory replaying a stage DAG");
    *makespan = end;
    return 0;
}

void clarity_dag_plan_free(struct clarity_dag_plan *p)
{
    clarity_replay_plan_free(&p->base);
    free(p->comp_unit); free(p->unit_key); free(p->pos_unit); free(p->par_off); free(p->par);
    memset(p, 0, sizeof *p);
}

static int edge_cmp(const void *pa, const void *pb)
{
    const struct clarity_dag_edge *a = pa, *b = pb;
    if (a->child != b->child) return a->child < b->child ? -1 : 1;
    return (a->parent > b->parent) - (a->parent < b->parent);
}

static int u32_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return (a > b) - (a < b);
}

/* index of key in the sorted distinct keys, or UINT32_MAX */
static uint32_t key_index(const uint32_t *keys, size_t n, uint32_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (keys[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo < n && keys[lo] == key ? (uint32_t)lo : UINT32_MAX;
}

int clarity_dag_plan_build(const struct clarity_sim_task *t, size_t n, enum clarity_slot_mode mode,
                           const struct clarity_app *a, const struct clarity_dag_edge *edges, size_t nedges,
                           struct clarity_dag_plan *out, struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = clarity_replay_plan_build(t, n, mode, a, &out->base, err);
    if (rc) return rc;
    const struct clarity_replay_plan *b = &out->base;
    size_t cap = n ? n : 1;
    out->comp_unit = calloc(b->ncomp + 1, sizeof *out->comp_unit);
    out->unit_key = malloc(cap * sizeof *out->unit_key);
    out->pos_unit = malloc(cap * sizeof *out->pos_unit);
    uint32_t *keys = malloc(cap * sizeof *keys);              /* distinct unit keys, sorted */
    uint32_t *unit_of = malloc(cap * sizeof *unit_of);        /* by key index: global unit */
    uint32_t *comp_of_unit = malloc(cap * sizeof *comp_of_unit);
    struct clarity_dag_edge *e = malloc((nedges ? nedges : 1) * sizeof *e);
    if (!out->comp_unit || !out->unit_key || !out->pos_unit || !keys || !unit_of || !comp_of_unit || !e) goto oom;
    for (size_t i = 0; i < n; i++) keys[i] = t[i].unit;
    qsort(keys, n, sizeof *keys, u32_cmp);
    size_t nk = 0;
    for (size_t i = 0; i < n; i++) if (nk == 0 || keys[i] != keys[nk - 1]) keys[nk++] = keys[i];
    for (size_t k = 0; k < nk; k++) unit_of[k] = UINT32_MAX;
    /* a unit lives in one component: number units per component by first launch */
    size_t nu = 0;
    for (size_t c = 0; c < b->ncomp; c++) {
        const struct clarity_replay_component *pc = &b->comp[c];
        out->comp_unit[c] = nu;
        for (size_t i = 0; i < pc->n; i++) {
            uint32_t key = t[b->order[pc->first + i]].unit, k = key_index(keys, nk, key);
            if (unit_of[k] == UINT32_MAX) {
                unit_of[k] = (uint32_t)nu;
                out->unit_key[nu] = key;
                comp_of_unit[nu] = (uint32_t)c;
                nu++;
            }
            out->pos_unit[pc->first + i] = unit_of[k] - (uint32_t)out->comp_unit[c];
        }
    }
    out->comp_unit[b->ncomp] = nu;
    out->nunits = nu;
    /* keep edges inside one component, as global (parent, child) units */
    size_t ne = 0;
    for (size_t i = 0; i < nedges; i++) {
        uint32_t kp = key_index(keys, nk, edges[i].parent), kc = key_index(keys, nk, edges[i].child);
        if (kp == UINT32_MAX || kc == UINT32_MAX || kp == kc) continue;
        uint32_t pu = unit_of[kp], cu = unit_of[kc];
        if (comp_of_unit[pu] == comp_of_unit[cu]) e[ne++] = (struct clarity_dag_edge){pu, cu};
    }
    qsort(e, ne, sizeof *e, edge_cmp);
    out->par_off = calloc(nu + 1, sizeof *out->par_off);
    out->par = malloc((ne ? ne : 1) * sizeof *out->par);
    if (!out->par_off || !out->par) goto oom;
    size_t w = 0;
    for (size_t i = 0; i < ne; i++) {
        if (i > 0 && e[i].child == e[i - 1].child && e[i].parent == e[i - 1].parent) continue;
        out->par_off[e[i].child + 1]++;
        /* stored local to the component, the kernel's indexing */
        out->par[w++] = e[i].parent - (uint32_t)out->comp_unit[comp_of_unit[e[i].parent]];
    }
    for (size_t u = 0; u < nu; u++) out->par_off[u + 1] += out->par_off[u];
    out->internal_edges = w;
    free(keys); free(unit_of); free(comp_of_unit); free(e);
    return 0;
oom:
    free(keys); free(unit_of); free(comp_of_unit); free(e);
    clarity_dag_plan_free(out);
    return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory building the stage DAG replay");
}

int clarity_dag_component_slots(const struct clarity_dag_plan *p, size_t c, double factor, int absolute)
{
    if (absolute > 0) return absolute;
    double s = nearbyint(factor * p->base.comp[c].slots);
    return s < 1 ? 1 : s > INT32_MAX ? INT32_MAX : (int)s;
}

/* Parent offsets of component c's units, rebased to start at 0 (the kernel's indexing). */
static void local_offsets(const struct clarity_dag_plan *p, size_t c, size_t *off)
{
    size_t lo = p->comp_unit[c], hi = p->comp_unit[c + 1];
    for (size_t u = lo; u <= hi; u++) off[u - lo] = p->par_off[u] - p->par_off[lo];
}

int clarity_dag_plan_run(const struct clarity_dag_plan *p, const double *runtime, double factor, int absolute,
                         double *makespan, struct clarity_error *err)
{
    const struct clarity_replay_plan *b = &p->base;
    *makespan = 0;
    size_t *off = malloc((p->nunits + 1) * sizeof *off);
    if (!off) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory replaying a stage DAG");
    double total = 0;
    for (size_t c = 0; c < b->ncomp; c++) {
        const struct clarity_replay_component *pc = &b->comp[c];
        double *r = b->scratch;
        for (size_t i = 0; i < pc->n; i++) r[i] = runtime[b->order[pc->first + i]];
        local_offsets(p, c, off);
        double m;
        int rc = clarity_dag_makespan(r, p->pos_unit + pc->first, pc->n, p->comp_unit[c + 1] - p->comp_unit[c], off,
                                      p->par + p->par_off[p->comp_unit[c]],
                                      clarity_dag_component_slots(p, c, factor, absolute), &m, err);
        if (rc) { free(off); return rc; }
        total += m;
    }
    free(off);
    *makespan = total;
    return 0;
}

int clarity_dag_plan_critical_path(const struct clarity_dag_plan *p, const double *runtime, double *length,
                                   struct clarity_error *err)
{
    const struct clarity_replay_plan *b = &p->base;
    *length = 0;
    double *longest = calloc(p->nunits + 1, sizeof *longest), *chain = calloc(p->nunits + 1, sizeof *chain);
    if (!longest || !chain) {
        free(longest); free(chain);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory computing the critical path");
    }
    double total = 0;
    for (size_t c = 0; c < b->ncomp; c++) {
        const struct clarity_replay_component *pc = &b->comp[c];
        size_t lo = p->comp_unit[c], hi = p->comp_unit[c + 1];
        for (size_t i = 0; i < pc->n; i++) {
            double r = runtime[b->order[pc->first + i]];
            size_t u = lo + p->pos_unit[pc->first + i];
            if (r > longest[u]) longest[u] = r;
        }
        /* longest chain ending at each unit; relax until stable (units per component are few,
         * and a cycle, which logs should never hold, stops after hi - lo rounds) */
        for (size_t u = lo; u < hi; u++) chain[u] = longest[u];
        for (size_t round = 0; round < hi - lo; round++) {
            bool changed = false;
            for (size_t u = lo; u < hi; u++)
                for (size_t q = p->par_off[u]; q < p->par_off[u + 1]; q++) {
                    double v = chain[lo + p->par[q]] + longest[u];
                    if (v > chain[u]) { chain[u] = v; changed = true; }
                }
            if (!changed) break;
        }
        double best = 0;
        for (size_t u = lo; u < hi; u++) if (chain[u] > best) best = chain[u];
        total += best;
    }
    free(longest); free(chain);
    *length = total;
    return 0;
}
