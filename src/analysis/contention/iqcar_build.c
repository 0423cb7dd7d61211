/* Builds the iQC-Graph from the task table: L0 target queries, L1 their stages (CPU time),
 * L2 one IE node per resource, L3 one DE node per sub-type and host, L4 blame per source
 * stage (Eq. 9) plus Unknown (slowdown no overlapping task explains) and Self (blame from the
 * target query's own tasks, kept apart from other queries by default), L5 source stages, L6
 * source queries. */
#include <stdlib.h>
#include <string.h>
#include "clarity/contention.h"
#include "util/stats.h"

struct be { uint32_t de; uint32_t src; double vc; };   /* src: stage, or SELF/UNK below */

struct bctx {
    struct iqcar_result *r;
    const uint32_t *idx;             /* task indices on the host being swept */
    bool slots;                      /* slot windows [submission, launch) rather than run windows */
    double ratp_h[IQ_NSUB];
    double *blames;                  /* ntasks x IQ_NSUB: sum of blames on each target task */
    double *overlap;                 /* nunits x nunits: simple-overlap baseline */
    struct clarity_idmap be_map;
    struct be *bes; size_t nbes, cap_bes;
    const int64_t *de_base;          /* per task: first of its 8 DE nodes, -1 when not a target */
    size_t self_src, unk_src;
    int fail;
    size_t pairs;
};

static void be_add(struct bctx *c, uint32_t de, uint32_t src, double v)
{
    int64_t key = (int64_t)de * (int64_t)(c->unk_src + 1) + src;
    uint32_t k;
    if (!clarity_idmap_get(&c->be_map, key, &k)) {
        if (c->nbes == c->cap_bes) {
            size_t n = c->cap_bes ? c->cap_bes * 2 : 256;
            struct be *p = realloc(c->bes, n * sizeof *p);
            if (!p) { c->fail = 1; return; }
            c->bes = p, c->cap_bes = n;
        }
        k = (uint32_t)c->nbes;
        c->bes[c->nbes++] = (struct be){de, src, 0};
        if (clarity_idmap_put(&c->be_map, key, k)) { c->fail = 1; return; }
    }
    c->bes[k].vc += v;
}

static void on_pair(void *ctx, size_t wi, size_t si, int64_t ov)
{
    struct bctx *c = ctx;
    struct iqcar_result *r = c->r;
    uint32_t tti = c->idx[wi], sti = c->idx[si];
    const struct iqcar_task *tt = &r->tasks[tti], *st = &r->tasks[sti];
    c->pairs++;
    bool self = tt->unit == st->unit;
    /* the simple-overlap baseline uses the same target tasks as iQCAR: with --critical-path or
     * --successful-only the others are no targets for either */
    if (c->de_base[tti] < 0) return;
    if (!c->slots && !self) {
        double T = (double)(tt->finish - tt->launch);
        if (T > 0) c->overlap[(size_t)tt->unit * r->nunits + st->unit] += (double)ov / T;
    }
    uint32_t src = self ? (r->opt.self_mode == IQ_SELF_NODE ? (uint32_t)c->self_src : (uint32_t)c->unk_src) : st->stage;
    int p0 = c->slots ? IQ_S_SLOTS : IQ_S_SLOTS + 1, p1 = c->slots ? IQ_S_SLOTS + 1 : IQ_NSUB;
    double T = c->slots ? (double)(tt->launch - tt->submit) : (double)(tt->finish - tt->launch);
    for (int p = p0; p < p1; p++) {
        if (st->data[p] <= 0) continue;   /* DP_st = 0: the source did not use r, no blame */
        /* Slots: a running task holds one slot however long it waited to get it, so every
         * holder consumes the slot capacity alike: its RATP is the host's floor RATP_h, as for a
         * source that did not wait (a zero wait floors RATP_st at RATP_h), and the blame is tt's
         * overlap fraction x RATP_tt / RATP_h. The original design took the source's own
         * SWT / slots offered as its RATP instead; that divides the blame of a query by how
         * long its tasks queued, and an aggressive query with many tasks queues the longest
         * behind its own fellow tasks, so it was blamed least for the slots it held. Measured
         * (bench/contention-eval.sh 10, docs/contention.md): against the victims' speed-ups
         * when the source is re-simulated away, the own-wait rule finds the first culprit
         * for 68% of 385 victims and this 71% (top-3 73% vs 72%); on the
         * Section 7.4 runs where more overlap is not the culprit, 1/20 -> 12/20.
         * --slot-blame=wait keeps the own-wait rule. */
        double rst = c->slots && !r->opt.slot_blame_wait ? 0 : st->ratp[p];
        double b = clarity_iqcar_blame((double)ov, T, tt->ratp[p], rst, c->ratp_h[p]);
        if (b <= 0) continue;
        c->blames[(size_t)tti * IQ_NSUB + p] += b;
        if (self && r->opt.self_mode == IQ_SELF_DROP) continue;
        be_add(c, (uint32_t)(c->de_base[tti] + p), src, b);
    }
}

/* Workload-wide median positive IE RATP per resource, for --ie-normalize=median: L2 sums slot
 * waits in ms/slot (~1e2-1e4) with byte-based RATPs in ms/byte (~1e-6), so the raw sum is all
 * slots; dividing each resource by its median makes them comparable. Raw stays the default, as
 * the paper. */
static int ie_medians(const struct iqcar_result *r, double *med)
{
    double *v = malloc((r->ntasks ? r->ntasks : 1) * sizeof *v);
    if (!v) return -1;
    for (int res = 0; res < IQ_NRES; res++) {
        size_t n = 0;
        for (size_t i = 0; i < r->ntasks; i++)
            if (r->tasks[i].ie_ratp[res] > 0) v[n++] = r->tasks[i].ie_ratp[res];
        med[res] = n ? clarity_median_mean_mid(v, n) : 1;
    }
    free(v);
    return 0;
}

/* A target task: of an L1 stage (--critical-path: on the query's critical path), and with
 * --successful-only a successful attempt (by default every attempt with metrics counts). */
static bool is_target(const struct iqcar_result *r, const struct iqcar_task *t)
{
    return (!r->opt.successful_only || t->ok) && (!r->opt.critical_path || r->stages[t->stage].critical);
}

/* The new node's index, or -1 when out of memory (iqcar_build reports it). */
static long add_node(struct iqcar_graph *g, int level, int kind, int target, double vc)
{
    uint32_t i;
    return clarity_iqcar_node_add(g, level, kind, target, vc, &i, NULL) ? -1 : (long)i;
}

/* L0-L3 and the per-task DE base. */
static int build_targets(struct iqcar_result *r, int64_t *de_base)
{
    struct iqcar_graph *g = &r->g;
    double med[IQ_NRES];
    for (int i = 0; i < IQ_NRES; i++) med[i] = 1;
    if (r->opt.ie_normalize && ie_medians(r, med)) return -1;
    long *l1 = malloc((r->nstages ? r->nstages : 1) * sizeof *l1);
    struct clarity_idmap dem = {0};
    int rc = -1;
    if (!l1) return -1;
    for (size_t u = 0; u < r->nunits; u++) {
        long n = add_node(g, 0, IQ_K_NODE, (int)u, 1.0);
        if (n < 0) goto out;
        g->nodes[n].a = (int32_t)u;
    }
    for (size_t s = 0; s < r->nstages; s++) l1[s] = -1;
    for (size_t i = 0; i < r->ntasks; i++) {
        struct iqcar_task *t = &r->tasks[i];
        de_base[i] = -1;
        if (!is_target(r, t)) continue;
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
        if (!clarity_idmap_get(&dem, key, &base)) {
            base = (uint32_t)g->nnodes;
            for (int p = 0; p < IQ_NSUB; p++) {
                long m = add_node(g, 3, IQ_K_NODE, (int)t->unit, 0);
                if (m < 0 || clarity_iqcar_edge_add(g, (uint32_t)m, (uint32_t)(s1 + 1 + clarity_iqcar_sub_res(p)), NULL)) goto out;
                g->nodes[m].a = (int32_t)t->stage, g->nodes[m].b = p, g->nodes[m].c = (int32_t)t->host;
            }
            if (clarity_idmap_put(&dem, key, base)) goto out;
        }
        de_base[i] = base;
        for (int p = 0; p < IQ_NSUB; p++) {
            double w = r->opt.vc_time_weighted ? (p == IQ_S_SLOTS ? Tw : Trun) : 1;
            g->nodes[base + p].vc += t->ratp[p] * w;
        }
    }
    rc = 0;
out:
    free(l1);
    clarity_idmap_free(&dem);
    return rc;
}

/* Blame on every host: run windows for CPU/memory/network/IO, wait windows for slots. */
static int sweep_hosts(struct bctx *c)
{
    struct iqcar_result *r = c->r;
    size_t n = r->ntasks;
    uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
    int64_t *a = malloc((n ? n : 1) * 4 * sizeof *a);
    size_t *start = calloc(r->nhosts + 1, sizeof *start);
    int rc = -1;
    if (!idx || !a || !start) goto out;
    for (size_t i = 0; i < n; i++) start[r->tasks[i].host + 1]++;
    for (size_t h = 0; h < r->nhosts; h++) start[h + 1] += start[h];
    {
        size_t *pos = malloc((r->nhosts + 1) * sizeof *pos);
        if (!pos) goto out;
        memcpy(pos, start, (r->nhosts + 1) * sizeof *pos);
        for (size_t i = 0; i < n; i++) idx[pos[r->tasks[i].host]++] = (uint32_t)i;
        free(pos);
    }
    for (size_t h = 0; h < r->nhosts; h++) {
        size_t m = start[h + 1] - start[h];
        c->idx = idx + start[h];
        int64_t *sub = a, *lau = a + m, *fin = a + 2 * m;
        for (int p = 0; p < IQ_NSUB; p++) c->ratp_h[p] = 0;
        for (size_t k = 0; k < m; k++) {
            const struct iqcar_task *t = &r->tasks[c->idx[k]];
            sub[k] = t->submit, lau[k] = t->launch, fin[k] = t->finish;
            for (int p = 0; p < IQ_NSUB; p++)   /* RATP_h (1 / capacity): smallest positive on the host */
                if (t->ratp[p] > 0 && (c->ratp_h[p] == 0 || t->ratp[p] < c->ratp_h[p])) c->ratp_h[p] = t->ratp[p];
        }
        c->slots = false;
        if (clarity_iqcar_interval_join(lau, fin, m, lau, fin, m, true, on_pair, c, NULL)) goto out;
        c->slots = true;
        if (clarity_iqcar_interval_join(sub, lau, m, lau, fin, m, true, on_pair, c, NULL)) goto out;
        if (c->fail) goto out;
        /* Unknown: what the host's capacity says tt lost beyond the blames,
         * max(0, (RATP_tt - RATP_h) / RATP_h - sum of blames) */
        for (size_t k = 0; k < m; k++) {
            uint32_t ti = c->idx[k];
            if (c->de_base[ti] < 0) continue;
            for (int p = 0; p < IQ_NSUB; p++) {
                double u = clarity_iqcar_unknown(r->tasks[ti].ratp[p], c->ratp_h[p], c->blames[(size_t)ti * IQ_NSUB + p], 0);
                if (u > 0) be_add(c, (uint32_t)(c->de_base[ti] + p), (uint32_t)c->unk_src, u);
            }
        }
        if (c->fail) goto out;
    }
    rc = 0;
out:
    free(idx);
    free(a);
    free(start);
    return rc;
}

/* L4-L6 from the blame accumulators. */
static int build_sources(struct iqcar_result *r, struct bctx *c)
{
    struct iqcar_graph *g = &r->g;
    /* every DE with VC > 0 gets an Unknown parent: a DE whose parents all have VC 0 sends IF = 1
     * to Unknown, which keeps DOR conserved */
    size_t nn = g->nnodes;
    for (size_t v = 0; v < nn; v++)
        if (g->nodes[v].level == 3 && g->nodes[v].vc > 0) be_add(c, (uint32_t)v, (uint32_t)c->unk_src, 0);
    if (c->fail) return -1;
    size_t nsrc = r->nstages + 2, nq = r->nunits + 2;
    long *l5 = malloc(nsrc * sizeof *l5), *l6 = malloc(nq * sizeof *l6);
    int rc = -1;
    if (!l5 || !l6) goto out;
    for (size_t i = 0; i < nsrc; i++) l5[i] = -1;
    for (size_t i = 0; i < nq; i++) l6[i] = -1;
    for (size_t i = 0; i < c->nbes; i++) {
        const struct be *b = &c->bes[i];
        int kind = b->src == c->unk_src ? IQ_K_UNKNOWN : b->src == c->self_src ? IQ_K_SELF : IQ_K_NODE;
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

int clarity_iqcar_build(struct iqcar_result *r, struct clarity_error *err)
{
    struct bctx c = {.r = r, .self_src = r->nstages, .unk_src = r->nstages + 1};
    int64_t *de_base = malloc((r->ntasks ? r->ntasks : 1) * sizeof *de_base);
    c.blames = calloc((r->ntasks ? r->ntasks : 1) * IQ_NSUB, sizeof *c.blames);
    c.overlap = calloc(r->nunits * r->nunits + 1, sizeof *c.overlap);
    int rc = -1;
    if (!de_base || !c.blames || !c.overlap) goto out;
    c.de_base = de_base;
    if (build_targets(r, de_base) || sweep_hosts(&c) || build_sources(r, &c) || clarity_iqcar_graph_finish(&r->g, NULL))
        goto out;
    r->overlap_pairs = c.pairs;
    r->overlap_matrix = c.overlap;
    c.overlap = NULL;
    rc = 0;
out:
    free(de_base);
    free(c.blames);
    free(c.overlap);
    free(c.bes);
    clarity_idmap_free(&c.be_map);
    /* every step above fails only when memory runs out */
    if (rc) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory building the iQC-Graph");
    return 0;
}
