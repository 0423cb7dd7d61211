/* The questions iQCAR answers (paper sections 6-7) from the finished graph: top-k per level and
 * noisy queries per target, aggressive queries, victims, slow hosts, hot resources, impact
 * paths, and the simple-overlap baseline beside them; the scheduler rules in iqcar_rules.c.
 * Each target costs what it reaches (clarity_iqcar_dor_walk), not the whole graph, and the
 * per-pair figures (source query x target, the baseline) are kept for the pairs that have one. */
#include <stdlib.h>
#include <string.h>
#include "analysis/contention/iqcar_internal.h"
#include "util/vec.h"

/* DOR descending, then name ascending: ties in a top-k list break the same way every run. */
static int cmp_ranked(const void *x, const void *y, void *ctx)
{
    const struct iqcar_ranked *a = x, *b = y;
    if (a->dor != b->dor) return a->dor > b->dor ? -1 : 1;
    const struct iqcar_result *r = ctx;
    char la[256], lb[256];
    if (r) {
        int c = strcmp(clarity_iqcar_node_label(r, a->node, la, sizeof la), clarity_iqcar_node_label(r, b->node, lb, sizeof lb));
        if (c) return c;
    }
    return (a->node > b->node) - (a->node < b->node);
}

static struct iqcar_ranked *take(struct iqcar_ranked *v, size_t n)
{
    struct iqcar_ranked *p = malloc((n ? n : 1) * sizeof *p);
    if (p && n) memcpy(p, v, n * sizeof *p);
    return p;
}

static int cmp_unit_rank(const void *x, const void *y)
{
    const struct iqcar_ranked *a = x, *b = y;
    if (a->dor != b->dor) return a->dor > b->dor ? -1 : 1;
    return (a->node > b->node) - (a->node < b->node);
}

static int cmp_cell(const void *x, const void *y)
{
    const struct iqcar_cell *a = x, *b = y;
    if (a->row != b->row) return a->row < b->row ? -1 : 1;
    return (a->col > b->col) - (a->col < b->col);
}

/* The ranked lists of every target live in one pool, target after target, in the order they
 * are made (top[2], top[3], top[4], paths, top[5], top[6], noisy, overlap): on a log of 10^6
 * one-job queries eight small allocations a target cost ~0.5 KB with their headers. The pool
 * grows while the targets are answered, so the lists' pointers are set once every target is
 * done (pool_point). */
struct pool { struct iqcar_ranked *v; size_t n, cap; };

static int pool_add(struct pool *p, const struct iqcar_ranked *v, size_t n)
{
    if (CLARITY_VEC_RESERVE(p->v, p->cap, p->n + n)) return -1;
    if (n) memcpy(p->v + p->n, v, n * sizeof *v);
    p->n += n;
    return 0;
}

/* One target's lists' pointers into the pool v from position *at, in the order target_answer
 * appended them, from their counts (NULL for an empty list); *at moves past them. */
static void target_point(struct iqcar_target_answer *a, struct iqcar_ranked *v, size_t *at)
{
#define IQ_POINT(ptr, n) ((ptr) = (n) ? v + *at : NULL, *at += (n))
    for (int l = 2; l <= 6; l++) {
        IQ_POINT(a->top[l], a->ntop[l]);
        if (l == 4) IQ_POINT(a->paths, a->npaths);
        if (l == 6) IQ_POINT(a->noisy, a->nnoisy);
    }
    IQ_POINT(a->overlap, a->noverlap);
#undef IQ_POINT
}

/* Every listed target's lists' pointers into the pool. */
static void pool_point(struct iqcar_result *r, struct iqcar_ranked *v)
{
    size_t at = 0;
    for (size_t t = 0; t < r->ntargets; t++)
        if (r->targets[t].listed) target_point(&r->targets[t], v, &at);
}

/* Level l's nodes that target t's walk reached with DOR > 0, best first, into buf; how many. */
static size_t level_ranked(const struct iqcar_result *r, const struct iqcar_dor_walk *w, int l, struct iqcar_ranked *buf)
{
    const struct iqcar_graph *g = &r->g;
    size_t n = 0;
    for (size_t j = 0; j < w->ntouched; j++) {
        uint32_t v = w->touched[j];
        if (g->nodes[v].level == (unsigned)l && w->dor[v] > 0) buf[n++] = (struct iqcar_ranked){v, w->dor[v], 0};
    }
    qsort_r(buf, n, sizeof *buf, cmp_ranked, (void *)r);
    return n;
}

/* Keeps buf's entries of kind IQ_K_NODE (a query, a source stage), in order; how many. */
static size_t only_queries(const struct iqcar_graph *g, struct iqcar_ranked *buf, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (g->nodes[buf[i].node].kind == IQ_K_NODE) buf[m++] = buf[i];
    return m;
}

/* Target t's answer from its walk; its baseline row is r->overlap[first, end). Its DOR from
 * other queries always (the victim ranking needs every target's); its ranked lists, into the
 * pool, only when it is a victim or `store` asks: no report shows the lists of a query that
 * received no contention unless it is named (clarity_iqcar_explain), and on a log of 10^6
 * one-job queries they were ~0.7 KB a query. */
static int target_answer(struct iqcar_result *r, size_t t, const struct iqcar_dor_walk *w, struct pool *bufp,
                         struct pool *pool, size_t first, size_t end, bool store)
{
    const struct iqcar_graph *g = &r->g;
    struct iqcar_target_answer *a = &r->targets[t];
    size_t k = (size_t)r->opt.k;
    a->unit = t;
    a->l0 = g->l0[t];
    if (CLARITY_VEC_RESERVE(bufp->v, bufp->cap, w->ntouched > end - first ? w->ntouched : end - first)) return -1;
    struct iqcar_ranked *buf = bufp->v;
    /* the DOR from other queries: the level-6 queries (not Unknown or Self), added best first */
    size_t m = only_queries(g, buf, level_ranked(r, w, 6, buf));
    a->dor_others = 0;
    for (size_t i = 0; i < m; i++) a->dor_others += buf[i].dor;
    /* the simple-overlap baseline of the paper's section 7.4 (each source query's summed overlap
     * fraction with the target's tasks), normalised over source queries; the sources that never
     * overlapped add 0 */
    double sum = 0;
    for (size_t i = first; i < end; i++) sum += r->overlap[i].v;
    a->overlap_first = first;
    a->overlap_cells = end - first;
    a->overlap_sum = sum;
    if (!store && !(a->dor_others > 0)) return 0;
    a->listed = true;
    for (int l = 2; l <= 6; l++) {
        size_t n = level_ranked(r, w, l, buf);
        a->ntop[l] = n < k ? n : k;
        if (pool_add(pool, buf, a->ntop[l])) return -1;
        if (l == 6) {   /* noisy: the queries, not Unknown or Self */
            m = only_queries(g, buf, n);
            a->nnoisy = m < k ? m : k;
            if (pool_add(pool, buf, a->nnoisy)) return -1;
        }
        if (l == 4) {   /* one impact path per BE node; its weight is the BE's DOR */
            m = only_queries(g, buf, n);
            a->npaths = m < k ? m : k;
            if (pool_add(pool, buf, a->npaths)) return -1;
        }
    }
    size_t n = 0;
    for (size_t i = first; i < end; i++) {
        double v = r->overlap[i].v;
        if (v > 0) buf[n++] = (struct iqcar_ranked){r->overlap[i].col, v / sum, v};
    }
    qsort(buf, n, sizeof *buf, cmp_unit_rank);
    a->noverlap = n < k ? n : k;
    return pool_add(pool, buf, a->noverlap);
}

/* Target t's row of the baseline: r->overlap[*first, *end), by bisection (rows are sorted). */
static void overlap_row(const struct iqcar_result *r, size_t t, size_t *first, size_t *end)
{
    size_t lo = 0, hi = r->noverlap;
    while (lo < hi) { size_t m = lo + (hi - lo) / 2; if (r->overlap[m].row < t) lo = m + 1; else hi = m; }
    *first = lo;
    hi = r->noverlap;
    while (lo < hi) { size_t m = lo + (hi - lo) / 2; if (r->overlap[m].row <= t) lo = m + 1; else hi = m; }
    *end = lo;
}

int clarity_iqcar_explain(struct iqcar_result *r, const long *targets, size_t ntargets, struct clarity_error *err)
{
    size_t nt = targets ? ntargets : r->ntargets;
    bool any = false;
    for (size_t i = 0; i < nt && !any; i++) {
        size_t t = targets ? (size_t)targets[i] : i;
        any = t < r->ntargets && !r->targets[t].listed;
    }
    if (!any) return 0;
    struct iqcar_ranked **ex = realloc(r->extra_lists, (r->nextra_lists + 1) * sizeof *ex);
    if (!ex) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory ranking the iQC-Graph");
    r->extra_lists = ex;
    struct iqcar_dor_walk w;
    if (clarity_iqcar_dor_walk_init(&w, &r->g, err)) return CLARITY_ENOMEM;
    struct pool bp = {0}, pool = {0};
    size_t *done = malloc((nt ? nt : 1) * sizeof *done), ndone = 0;
    int rc = -1;
    if (!done) goto out;
    for (size_t i = 0; i < nt; i++) {
        size_t t = targets ? (size_t)targets[i] : i, first, end;
        if (t >= r->ntargets || r->targets[t].listed) continue;
        overlap_row(r, t, &first, &end);
        if (clarity_iqcar_dor_walk(&w, t) || target_answer(r, t, &w, &bp, &pool, first, end, true)) goto out;
        done[ndone++] = t;
    }
    /* the lists of these targets, in the pool's order, once it no longer moves */
    r->extra_lists[r->nextra_lists++] = pool.v;
    size_t at = 0;
    for (size_t i = 0; i < ndone; i++) target_point(&r->targets[done[i]], pool.v, &at);
    pool.v = NULL;
    rc = 0;
out:
    clarity_iqcar_dor_walk_free(&w);
    free(bp.v);
    free(pool.v);
    free(done);
    if (rc) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory ranking the iQC-Graph");
    return 0;
}

/* The source query x target DOR cells, by source then target, with each source's first. */
static int l6_index(struct iqcar_result *r)
{
    size_t nq = r->nunits + 2;
    if (r->nl6) qsort(r->l6, r->nl6, sizeof *r->l6, cmp_cell);
    if (!(r->l6_first = calloc(nq + 1, sizeof *r->l6_first))) return -1;
    for (size_t i = 0; i < r->nl6; i++) r->l6_first[r->l6[i].row + 1]++;
    for (size_t q = 0; q < nq; q++) r->l6_first[q + 1] += r->l6_first[q];
    return 0;
}

int clarity_iqcar_answers(struct iqcar_result *r, struct clarity_error *err)
{
    const struct iqcar_graph *g = &r->g;
    struct iqcar_dor_walk w;
    if (clarity_iqcar_dor_walk_init(&w, g, err)) return CLARITY_ENOMEM;
    /* every target is walked once, so the walk's DOR of each node of levels 0-4 (each belongs
     * to one target) is kept for the slow hosts and hot resources below */
    w.keep_low = true;
    double *tot = calloc(r->nunits ? r->nunits : 1, sizeof *tot);
    double *ms = calloc(r->nunits ? r->nunits : 1, sizeof *ms);
    struct pool bp = {0}, pool = {0};
    size_t cap_l6 = 0, cur = 0;
    r->targets = calloc(r->nunits ? r->nunits : 1, sizeof *r->targets);
    r->host_score = calloc(r->nhosts ? r->nhosts : 1, sizeof *r->host_score);
    int rc = -1;
    if (!tot || !ms || !r->targets || !r->host_score || CLARITY_VEC_RESERVE(bp.v, bp.cap, r->nunits + 1)) goto out;
    r->ntargets = r->nunits;
    for (size_t t = 0; t < r->nunits; t++) {
        if (clarity_iqcar_dor_walk(&w, t)) goto out;
        const struct iqcar_unit_info *u = &r->units[t];
        double runtime = u->end > u->start ? (double)u->end - (double)u->start : 0;   /* no int64 overflow */
        for (size_t j = 0; j < w.ntouched; j++) {
            uint32_t v = w.touched[j];
            double d = w.dor[v];
            if (g->nodes[v].level != 6 || d == 0) continue;
            size_t q = (size_t)g->nodes[v].a;
            /* aggressive: total DOR toward every target, added target after target */
            if (q < r->nunits) tot[q] += d, ms[q] += d * runtime;
            if (r->nl6 == cap_l6) {
                size_t c = cap_l6 ? cap_l6 * 2 : 256;
                struct iqcar_cell *p = realloc(r->l6, c * sizeof *p);
                if (!p) goto out;
                r->l6 = p, cap_l6 = c;
            }
            r->l6[r->nl6++] = (struct iqcar_cell){(uint32_t)q, (uint32_t)t, d};
        }
        size_t first = cur;
        while (cur < r->noverlap && r->overlap[cur].row == t) cur++;
        if (target_answer(r, t, &w, &bp, &pool, first, cur, false)) goto out;
    }
    /* the pool is final: give its growth back and point the lists into it */
    if (pool.n && pool.n < pool.cap) {
        struct iqcar_ranked *p = realloc(pool.v, pool.n * sizeof *p);
        if (p) pool.v = p;
    }
    r->lists = pool.v;
    pool.v = NULL;
    pool_point(r, r->lists);
    if (r->nl6 && r->nl6 < cap_l6) {
        struct iqcar_cell *p = realloc(r->l6, r->nl6 * sizeof *p);
        if (p) r->l6 = p;
    }
    if (l6_index(r)) goto out;
    /* slow hosts and hot resources: the paper's IF sums (out-edge of each node) and DOR sums
     * (each node's DOR summed over the targets; a node of level 2 or 3 has one target, so its
     * DOR is the walk's, kept) */
    for (size_t i = 0; i < g->nedges; i++) {
        const struct iqcar_edge *e = &g->edges[i];
        const struct iqcar_node *u = &g->nodes[e->from];
        double all = 0 + w.dor[e->from];   /* as the sum over targets was: 0 + the one DOR */
        if (u->level == 3 && u->c >= 0) {
            r->host_score[u->c].if_sum += e->imf;
            r->host_score[u->c].dor_sum += all;
        } else if (u->level == 2) {
            r->res_score[u->b].if_sum += e->imf;
            r->res_score[u->b].dor_sum += all;
        }
    }
    /* the walk is done: free it before the replay, which has its own tables */
    clarity_iqcar_dor_walk_free(&w);
    struct iqcar_ranked *buf = bp.v;
    /* aggressive, as the paper: total DOR toward every other target. A DOR is a share of one
     * victim's slowdown, so this sum weighs a victim slowed for a second as much as one slowed
     * for ten minutes, and a query that slightly slows many short queries outranks one that
     * holds up long ones. Measured against re-simulation without each query (the runtime the
     * others save, docs/contention.md), it found the top culprit less often than "the query
     * with the most task time". So the answer ranks by the victims' runtime attributed: each
     * victim's runtime split as its DOR splits it (among queries, Unknown and Self), the
     * shares summed per source, in ms. The total DOR stays beside it, and
     * opt.aggressive_by_dor ranks by it. */
    size_t n = 0;
    for (size_t s = 0; s < r->nunits; s++)
        if (tot[s] > 0) buf[n++] = (struct iqcar_ranked){(uint32_t)s, tot[s], ms[s]};
    qsort(buf, n, sizeof *buf, cmp_unit_rank);
    r->naggressive = n;
    if (!(r->aggressive = take(buf, n))) goto out;
    n = 0;
    for (size_t s = 0; s < r->nunits; s++)
        if (tot[s] > 0) buf[n++] = (struct iqcar_ranked){(uint32_t)s, ms[s], tot[s]};
    qsort(buf, n, sizeof *buf, cmp_unit_rank);
    r->naggressive_time = n;
    if (!(r->aggressive_time = take(buf, n))) goto out;
    size_t ntime = n;
    /* the heaviest-query baseline (the units with the most task time), shown beside the answer:
     * off the tuning settings it found the top culprit more often than either ranking of DOR
     * (docs/contention.md), so the reader gets it too; the replay takes candidates from it */
    n = 0;
    for (size_t s = 0; s < r->nunits; s++)
        if (r->units[s].task_ms > 0) buf[n++] = (struct iqcar_ranked){(uint32_t)s, r->units[s].task_ms, 0};
    qsort(buf, n, sizeof *buf, cmp_unit_rank);
    r->nheaviest = n;
    if (!(r->heaviest = take(buf, n))) goto out;
    if (clarity__iqcar_replay(r)) goto out;
    /* the answer: the replay's when it ran (the counterfactual itself, re-simulated), unless a
     * DOR ranking was asked for */
    if (r->opt.aggressive_by_dor) {
        r->aggressive_method = IQ_AGG_DOR;
        r->aggressive_rank = r->aggressive, r->naggressive_rank = r->naggressive;
    } else if (r->opt.aggressive_by_time || !r->replay.ran) {
        r->aggressive_method = IQ_AGG_TIME;
        r->aggressive_rank = r->aggressive_time, r->naggressive_rank = ntime;
    } else {
        r->aggressive_method = IQ_AGG_REPLAY;
        r->aggressive_rank = r->aggressive_replay, r->naggressive_rank = r->naggressive_replay;
    }
    /* Measured against re-simulation on the tuning runs (docs/contention.md): for the DOR
     * rankings every wrong first query had a second within 13% of it, and every answer whose
     * second had less than 75% of the first's figure was right; so the answer says when it is
     * a close call rather than naming one query with false confidence. */
    n = r->naggressive_rank;
    double close = r->aggressive_method == IQ_AGG_REPLAY ? IQ_AGG_CLOSE_REPLAY : IQ_AGG_CLOSE;
    r->aggressive_close = n >= 2 && r->aggressive_rank[1].dor >= close * r->aggressive_rank[0].dor;
    /* victims: DOR received from others */
    n = 0;
    for (size_t t = 0; t < r->nunits; t++)
        if (r->targets[t].dor_others > 0) buf[n++] = (struct iqcar_ranked){(uint32_t)t, r->targets[t].dor_others, 0};
    qsort(buf, n, sizeof *buf, cmp_unit_rank);
    r->nvictims = n;
    if (!(r->victims = take(buf, n))) goto out;
    rc = clarity__iqcar_rules(r);
out:
    clarity_iqcar_dor_walk_free(&w);
    free(tot);
    free(ms);
    free(bp.v);
    free(pool.v);
    /* every step above fails only when memory runs out */
    if (rc) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory ranking the iQC-Graph");
    return 0;
}

int clarity_iqcar_prepare(const struct clarity_app *const *apps, size_t napps, const struct iqcar_options *opt,
                          struct iqcar_result *r, struct clarity_error *err)
{
    memset(r, 0, sizeof *r);
    r->opt = *opt;
    if (r->opt.k <= 0) r->opt.k = 3;
    clarity_iqcar_graph_init(&r->g);
    return clarity_iqcar_collect(apps, napps, r, err);
}

int clarity_iqcar_detach(struct iqcar_result *r, struct clarity_error *err)
{
    if (clarity__iqcar_replay_prepare(r))
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory reading the replay's workload");
    /* nothing past the build recomputes a task's record: a later call faults on the NULL table */
    clarity__iqcar_tasktab_free(r->tab);
    r->tab = NULL;
    return 0;
}

int clarity_iqcar_analyze(const struct clarity_app *const *apps, size_t napps, const struct iqcar_options *opt,
                  struct iqcar_result *r, struct clarity_error *err)
{
    int rc = clarity_iqcar_prepare(apps, napps, opt, r, err);
    if (!rc) rc = clarity_iqcar_build(r, err);
    if (!rc) rc = clarity_iqcar_answers(r, err);
    return rc;
}
