/* Builds the iQC-Graph: L0 target queries, L1 their stages (CPU time), L2 one IE node per
 * resource, L3 one DE node per sub-type and host, L4 blame per source stage (Eq. 9) plus
 * Unknown (slowdown no overlapping task explains) and Self (blame from the target query's own
 * tasks, kept apart from other queries by default), L5 source stages, L6 source queries.
 * Levels 0-3 come from one pass over the tasks in order; the blame behind level 4 from the
 * sweep of every host (iqcar_blame.c). */
#include <stdlib.h>
#include <string.h>
#include "analysis/contention/iqcar_internal.h"
#include "util/stats.h"

/* Workload-wide median positive IE RATP per resource, for --ie-normalize=median: L2 sums slot
 * waits in ms/slot (~1e2-1e4) with byte-based RATPs in ms/byte (~1e-6), so the raw sum is all
 * slots; dividing each resource by its median makes them comparable. Raw stays the default, as
 * the paper. One resource at a time, so only one value per task is held. */
static int ie_medians(const struct iqcar_result *r, double *med)
{
    double *v = malloc((r->ntasks ? r->ntasks : 1) * sizeof *v);
    if (!v) return -1;
    for (int res = 0; res < IQ_NRES; res++) {
        size_t n = 0;
        for (size_t i = 0; i < r->ntasks; i++) {
            struct iqcar_task t;
            clarity__iqcar_task_get(r, i, &t);
            if (t.ie_ratp[res] > 0) v[n++] = t.ie_ratp[res];
        }
        med[res] = n ? clarity_median_mean_mid(v, n) : 1;
    }
    free(v);
    return 0;
}

/* The new node's index, or -1 when out of memory (iqcar_build reports it). */
static long add_node(struct iqcar_graph *g, int level, int kind, int target, double vc)
{
    uint32_t i;
    return clarity_iqcar_node_add(g, level, kind, target, vc, &i, NULL) ? -1 : (long)i;
}

/* L0-L3; dem gets (stage x host) -> the first of its 8 DE nodes. */
static int build_targets(struct iqcar_result *r, struct clarity_idmap *dem)
{
    struct iqcar_graph *g = &r->g;
    double med[IQ_NRES];
    for (int i = 0; i < IQ_NRES; i++) med[i] = 1;
    if (r->opt.ie_normalize && ie_medians(r, med)) return -1;
    long *l1 = malloc((r->nstages ? r->nstages : 1) * sizeof *l1);
    int rc = -1;
    if (!l1) return -1;
    for (size_t u = 0; u < r->nunits; u++) {
        long n = add_node(g, 0, IQ_K_NODE, (int)u, 1.0);
        if (n < 0) goto out;
        g->nodes[n].a = (int32_t)u;
    }
    for (size_t s = 0; s < r->nstages; s++) l1[s] = -1;
    for (size_t i = 0; i < r->ntasks; i++) {
        struct iqcar_task task, *t = &task;
        clarity__iqcar_task_get(r, i, t);
        if (!clarity__iqcar_is_target(r, t)) continue;
        if (l1[t->stage] < 0) {
            long n = add_node(g, 1, IQ_K_NODE, (int)t->unit, 0);
            if (n < 0 || clarity_iqcar_edge_add(g, (uint32_t)n, g->l0[t->unit], NULL)) goto out;
            g->nodes[n].a = (int32_t)t->stage;
            l1[t->stage] = n;
            for (int res = 0; res < IQ_NRES; res++) {
                long m = add_node(g, 2, IQ_K_NODE, (int)t->unit, 0);
                if (m < 0 || clarity_iqcar_edge_add(g, (uint32_t)m, (uint32_t)n, NULL)) goto out;
                g->nodes[m].a = (int32_t)t->stage, g->nodes[m].b = res;
            }
        }
        long s1 = l1[t->stage];
        g->nodes[s1].vc += t->weight;
        double Trun = (double)(t->finish - t->launch), Tw = (double)(t->launch - t->submit);
        for (int res = 0; res < IQ_NRES; res++) {
            double w = r->opt.vc_time_weighted ? (res == IQ_SLOTS ? Tw : Trun) : 1;
            g->nodes[s1 + 1 + res].vc += t->ie_ratp[res] * w / med[res];
        }
        int64_t key = (int64_t)t->stage * (int64_t)r->nhosts + t->host;
        uint32_t base;
        if (!clarity_idmap_get(dem, key, &base)) {
            base = (uint32_t)g->nnodes;
            for (int p = 0; p < IQ_NSUB; p++) {
                long m = add_node(g, 3, IQ_K_NODE, (int)t->unit, 0);
                if (m < 0 || clarity_iqcar_edge_add(g, (uint32_t)m, (uint32_t)(s1 + 1 + clarity_iqcar_sub_res(p)), NULL)) goto out;
                g->nodes[m].a = (int32_t)t->stage, g->nodes[m].b = p, g->nodes[m].c = (int32_t)t->host;
            }
            if (clarity_idmap_put(dem, key, base)) goto out;
        }
        for (int p = 0; p < IQ_NSUB; p++) {
            double w = r->opt.vc_time_weighted ? (p == IQ_S_SLOTS ? Tw : Trun) : 1;
            g->nodes[base + p].vc += t->ratp[p] * w;
        }
    }
    rc = 0;
out:
    free(l1);
    return rc;
}

/* L4-L6 from the blame entries. */
static int build_sources(struct iqcar_result *r, struct iqcar_blame_out *c)
{
    struct iqcar_graph *g = &r->g;
    size_t nsrc = r->nstages + 2, nq = r->nunits + 2, unk_src = r->nstages + 1, self_src = r->nstages;
    /* every DE with VC > 0 gets an Unknown parent: a DE whose parents all have VC 0 sends IF = 1
     * to Unknown, which keeps DOR conserved */
    size_t nn = g->nnodes;
    for (size_t v = 0; v < nn; v++)
        if (g->nodes[v].level == 3 && g->nodes[v].vc > 0 && clarity__iqcar_be_add(c, (uint32_t)v, (uint32_t)unk_src, nsrc, 0) == IQ_NONE)
            return -1;
    clarity_idmap_free(&c->be_map);   /* no entry is added past here: room for levels 4-6 */
    long *l5 = malloc(nsrc * sizeof *l5), *l6 = malloc(nq * sizeof *l6);
    int rc = -1;
    if (!l5 || !l6) goto out;
    for (size_t i = 0; i < nsrc; i++) l5[i] = -1;
    for (size_t i = 0; i < nq; i++) l6[i] = -1;
    for (size_t i = 0; i < c->nbes; i++) {
        const struct iqcar_be *b = &c->bes[i];
        int kind = b->src == unk_src ? IQ_K_UNKNOWN : b->src == self_src ? IQ_K_SELF : IQ_K_NODE;
        if (l5[b->src] < 0) {
            size_t q = kind == IQ_K_UNKNOWN ? IQ_L6_UNKNOWN(r) : kind == IQ_K_SELF ? IQ_L6_SELF(r) : r->stages[b->src].unit;
            if (l6[q] < 0) {
                if ((l6[q] = add_node(g, 6, kind, -1, 1.0)) < 0) goto out;
                g->nodes[l6[q]].a = (int32_t)q;
            }
            if ((l5[b->src] = add_node(g, 5, kind, -1, 1.0)) < 0) goto out;
            g->nodes[l5[b->src]].a = kind == IQ_K_NODE ? (int32_t)b->src : -1;
            g->nodes[l5[b->src]].b = (int32_t)q;
            if (clarity_iqcar_edge_add(g, (uint32_t)l6[q], (uint32_t)l5[b->src], NULL)) goto out;
        }
        long n = add_node(g, 4, kind, g->nodes[b->de].target, b->vc);
        if (n < 0) goto out;
        g->nodes[n].a = kind == IQ_K_NODE ? (int32_t)b->src : -1;
        g->nodes[n].b = (int32_t)b->de;
        g->nodes[n].c = (int32_t)g->nodes[l5[b->src]].b;
        if (clarity_iqcar_edge_add(g, (uint32_t)n, b->de, NULL) || clarity_iqcar_edge_add(g, (uint32_t)l5[b->src], (uint32_t)n, NULL))
            goto out;
    }
    rc = 0;
out:
    free(l5);
    free(l6);
    return rc;
}

static int cmp_cell(const void *x, const void *y)
{
    const struct iqcar_cell *a = x, *b = y;
    if (a->row != b->row) return a->row < b->row ? -1 : 1;
    return (a->col > b->col) - (a->col < b->col);
}

int clarity_iqcar_build(struct iqcar_result *r, struct clarity_error *err)
{
    struct iqcar_blame_out c = {0};
    struct clarity_idmap dem = {0};
    int rc = -1;
    /* each table is freed as soon as its last reader is done, so that the graph's levels 4-6
     * and the edge sort do not grow beside them */
    if (build_targets(r, &dem) || clarity__iqcar_blame_hosts(r, &dem, &c)) goto out;
    clarity_idmap_free(&dem);
    clarity_idmap_free(&c.cell_map);
    if (build_sources(r, &c)) goto out;
    free(c.bes);
    c.bes = NULL;
    if (clarity_iqcar_graph_finish(&r->g, NULL)) goto out;
    r->overlap_pairs = c.pairs;
    /* the baseline's cells were added up in sweep order; by target then source for reading */
    if (c.ncells) qsort(c.cells, c.ncells, sizeof *c.cells, cmp_cell);
    r->overlap = c.cells;
    r->noverlap = c.ncells;
    c.cells = NULL;
    rc = 0;
out:
    clarity_idmap_free(&dem);
    free(c.bes);
    free(c.cells);
    clarity_idmap_free(&c.be_map);
    clarity_idmap_free(&c.cell_map);
    /* every step above fails only when memory runs out */
    if (rc) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory building the iQC-Graph");
    return 0;
}
