/* The iQC-Graph (paper Table 2, Fig. 4, App. B): nodes carry a vertex contribution; impact factors normalise
 * it over the parents of each node; the degree of responsibility is the sum over paths of
 * the product of impact factors, propagated level by level from the target query. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/contention.h"
#include "util/heap.h"
#include "util/vec.h"

void clarity_iqcar_graph_init(struct iqcar_graph *g) { memset(g, 0, sizeof *g); }

void clarity_iqcar_graph_free(struct iqcar_graph *g)
{
    free(g->nodes);
    free(g->edges);
    free(g->l0);
    memset(g, 0, sizeof *g);
}

static int oom(struct clarity_error *err)
{
    return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory building the iQC-Graph");
}

/* Doubles *cap (from 8) until need fits, by plain realloc: not CLARITY_VEC_RESERVE, whose
 * huge-page advice on a block grown past 32 MiB made the kernel hold the old block's pages
 * beside the new ones for a moment (measured: a 512 MiB vector doubled peaked at 1,025 MiB
 * with the advice, 550 without); the node and edge vectors are the largest of the command
 * (~0.7 and ~0.6 GB at 10^6 one-job queries), and a transient of the edges' size was its
 * peak. 0, or -1 when out of memory. */
static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 8;
    while (c < need) {
        if (c > SIZE_MAX / 2 / elem) return -1;
        c *= 2;
    }
    void *q = realloc(*p, c * elem);
    if (!q) return -1;
    *p = q, *cap = c;
    return 0;
}

int clarity_iqcar_node_add(struct iqcar_graph *g, int level, int kind, int target, double vc, uint32_t *index,
                   struct clarity_error *err)
{
    if (grow((void **)&g->nodes, &g->cap_nodes, g->nnodes + 1, sizeof *g->nodes)) return oom(err);
    if (level == 0) {
        uint32_t *l0 = realloc(g->l0, (g->nl0 + 1) * sizeof *l0);
        if (!l0) return oom(err);
        g->l0 = l0;
        g->l0[g->nl0++] = (uint32_t)g->nnodes;
    }
    g->nodes[g->nnodes] = (struct iqcar_node){.level = (unsigned)level & 7u, .kind = (unsigned)kind & 3u,
                                              .target = target, .a = -1, .b = -1, .c = -1, .vc = vc};
    g->finished = false;
    if (index) *index = (uint32_t)g->nnodes;
    g->nnodes++;
    return 0;
}

int clarity_iqcar_edge_add(struct iqcar_graph *g, uint32_t from, uint32_t to, struct clarity_error *err)
{
    if (grow((void **)&g->edges, &g->cap_edges, g->nedges + 1, sizeof *g->edges)) return oom(err);
    g->edges[g->nedges++] = (struct iqcar_edge){.from = from, .to = to};
    g->finished = false;
    return 0;
}

int clarity_iqcar_graph_finish(struct iqcar_graph *g, struct clarity_error *err)
{
    /* counting sort by child level (stable), so one pass in order is a topological pass. The
     * edges are moved in place along the cycles of the permutation, each carrying its
     * destination in its imf (not computed yet, set below): no sorted 16-byte copy beside the
     * original, nor a 4-byte destination array (on 10^6 one-job queries, ~38 M edges: 152 MB
     * at the command's peak) */
    size_t cnt[8] = {0};
    if (g->nedges >= UINT32_MAX) return oom(err);
    for (size_t i = 0; i < g->nedges; i++) cnt[g->nodes[g->edges[i].to].level + 1]++;
    for (int l = 1; l < 8; l++) cnt[l] += cnt[l - 1];
    for (size_t i = 0; i < g->nedges; i++) g->edges[i].imf = (double)cnt[g->nodes[g->edges[i].to].level]++;
    for (size_t i = 0; i < g->nedges; i++)
        while ((size_t)g->edges[i].imf != i) {   /* the edge at i goes to its place; the one there comes here */
            size_t j = (size_t)g->edges[i].imf;
            struct iqcar_edge e = g->edges[j];
            g->edges[j] = g->edges[i], g->edges[i] = e;
        }
    if (g->nedges && g->nedges < g->cap_edges) {   /* no more edges come: give the growth back */
        struct iqcar_edge *p = realloc(g->edges, g->nedges * sizeof *p);
        if (p) g->edges = p, g->cap_edges = g->nedges;
    }
    double *in = calloc(g->nnodes ? g->nnodes : 1, sizeof *in);
    if (!in) return oom(err);
    for (size_t i = 0; i < g->nedges; i++) in[g->edges[i].to] += g->nodes[g->edges[i].from].vc;
    for (size_t i = 0; i < g->nedges; i++) {
        struct iqcar_edge *e = &g->edges[i];
        const struct iqcar_node *u = &g->nodes[e->from], *v = &g->nodes[e->to];
        if (in[e->to] > 0) e->imf = u->vc / in[e->to];
        else e->imf = (v->vc > 0 && u->kind == IQ_K_UNKNOWN) ? 1.0 : 0.0;
    }
    free(in);
    g->finished = true;
    return 0;
}

void clarity_iqcar_graph_dor(const struct iqcar_graph *g, size_t t, double *dor)
{
    memset(dor, 0, g->nnodes * sizeof *dor);
    if (t >= g->nl0) return;
    dor[g->l0[t]] = g->nodes[g->l0[t]].vc;   /* Algorithm 2: DOR of L0 = its VC (1) */
    for (size_t i = 0; i < g->nedges; i++) {
        const struct iqcar_edge *e = &g->edges[i];
        if (dor[e->to] != 0) dor[e->from] += e->imf * dor[e->to];
    }
}

/* ---- the DOR toward one target, visiting what it reaches ----
 * clarity_iqcar_graph_dor goes through every edge in order and adds imf x DOR(child) to the
 * parent when the child's DOR is not 0. Here the edges are met in the same order, but only those
 * whose child has been reached: a heap of edge indices holds the edges into the parents of every
 * node reached so far. A node reached at edge e gets its parent edges after e only: the original
 * pass met the earlier ones while the node's DOR was still 0. So each parent adds the same terms
 * in the same order, and the figures are the same to the last bit. */
#define UP_LESS(ctx, a, b) ((a) < (b))
CLARITY_HEAP_DEFINE(up_heap, uint32_t, void *, UP_LESS, CLARITY_HEAP_NOT_INDEXED)

int clarity_iqcar_dor_walk_init(struct iqcar_dor_walk *w, const struct iqcar_graph *g, struct clarity_error *err)
{
    memset(w, 0, sizeof *w);
    w->g = g;
    size_t n = g->nnodes ? g->nnodes : 1, ne = g->nedges ? g->nedges : 1;
    w->up_first = calloc(g->nnodes + 1, sizeof *w->up_first);
    w->up = malloc(ne * sizeof *w->up);
    w->dor = calloc(n, sizeof *w->dor);
    w->seen = calloc(n, sizeof *w->seen);
    if (!w->up_first || !w->up || !w->dor || !w->seen || g->nedges >= UINT32_MAX) {
        clarity_iqcar_dor_walk_free(w);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory walking the iQC-Graph");
    }
    /* the edges into each node's parents (edges whose child it is), in edge order: counted in
     * up_first, then placed by moving each node's start along (up_first[v] ends at the start
     * of v + 1, and is shifted back once every edge is placed) */
    for (size_t i = 0; i < g->nedges; i++) w->up_first[g->edges[i].to + 1]++;
    for (size_t v = 0; v < g->nnodes; v++) w->up_first[v + 1] += w->up_first[v];
    for (size_t i = 0; i < g->nedges; i++) w->up[w->up_first[g->edges[i].to]++] = (uint32_t)i;
    for (size_t v = g->nnodes; v > 0; v--) w->up_first[v] = w->up_first[v - 1];
    w->up_first[0] = 0;
    return 0;
}

/* v is reached at edge `after` (UINT32_MAX: the seed): its parent edges after it go on the heap.
 * 0, or -1 when out of memory. */
static int reach(struct iqcar_dor_walk *w, uint32_t v, uint32_t after, bool seed)
{
    if (CLARITY_VEC_RESERVE(w->touched, w->cap_touched, w->ntouched + 1) ||
        CLARITY_VEC_RESERVE(w->heap, w->cap_heap, w->nheap + (w->up_first[v + 1] - w->up_first[v])))
        return -1;
    w->seen[v] = 1;
    w->touched[w->ntouched++] = v;
    for (uint32_t k = w->up_first[v]; k < w->up_first[v + 1]; k++)
        if (seed || w->up[k] > after) up_heap_push(NULL, w->heap, &w->nheap, w->up[k]);
    return 0;
}

int clarity_iqcar_dor_walk(struct iqcar_dor_walk *w, size_t t)
{
    const struct iqcar_graph *g = w->g;
    for (size_t k = 0; k < w->ntouched; k++) {
        uint32_t v = w->touched[k];
        if (w->keep_low && g->nodes[v].level <= 4) continue;
        w->dor[v] = 0;
        w->seen[v] = 0;
    }
    w->ntouched = 0;
    w->nheap = 0;
    if (t >= g->nl0) return 0;
    uint32_t v0 = g->l0[t];
    w->dor[v0] = g->nodes[v0].vc;   /* Algorithm 2: DOR of L0 = its VC (1) */
    if (reach(w, v0, 0, true)) return CLARITY_ENOMEM;
    while (w->nheap) {
        uint32_t i = up_heap_pop(NULL, w->heap, &w->nheap);
        const struct iqcar_edge *e = &g->edges[i];
        if (w->dor[e->to] == 0) continue;
        w->dor[e->from] += e->imf * w->dor[e->to];
        if (!w->seen[e->from] && reach(w, e->from, i, false)) return CLARITY_ENOMEM;
    }
    return 0;
}

void clarity_iqcar_dor_walk_free(struct iqcar_dor_walk *w)
{
    free(w->up_first);
    free(w->up);
    free(w->dor);
    free(w->seen);
    free(w->touched);
    free(w->heap);
    memset(w, 0, sizeof *w);
}
double clarity_iqcar_in_if_sum(const struct iqcar_graph *g, uint32_t v)
{
    double s = 0;
    for (size_t i = 0; i < g->nedges; i++)
        if (g->edges[i].to == v) s += g->edges[i].imf;
    return s;
}

/* ---- formulas ---- */

double clarity_iqcar_blame(double overlap, double t_tt, double ratp_tt, double ratp_st, double ratp_h)
{
    if (t_tt <= 0 || overlap <= 0 || ratp_tt <= 0) return 0;
    if (ratp_st < ratp_h) ratp_st = ratp_h;   /* no task consumes faster than capacity */
    if (ratp_st <= 0) return 0;
    return overlap / t_tt * (ratp_tt / ratp_st);
}

double clarity_iqcar_unknown(double ratp_tt, double ratp_h, double blames, double known)
{
    if (ratp_h <= 0) return 0;
    double s = (ratp_tt - ratp_h) / ratp_h;
    if (s < 0) s = 0;
    double u = s - blames - known;
    return u > 0 ? u : 0;
}

double clarity_iqcar_hit_pct(double runtime, double unconstrained)
{
    return unconstrained > 0 ? 100.0 * (runtime - unconstrained) / unconstrained : 0;
}
