/* The linear forms of iQCAR's answers against brute-force references on small random inputs:
 * the per-target DOR walk against the whole-graph pass (every node, bit for bit), the sparse
 * source x target DOR cells and aggressive totals against dense tables filled target by target,
 * the largest query concurrency against a check of every pair of units, and the stage-DAG walks
 * against their former scan of every edge per node. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/contention/iqcar_internal.h"
#include "iqcar_fixture.h"

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8 & 0xffffff;
}

static bool same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Every node's DOR toward every target, the walk against clarity_iqcar_graph_dor. */
static void walk_matches(const struct iqcar_graph *g, const char *what)
{
    struct iqcar_dor_walk w;
    cr_assert_eq(clarity_iqcar_dor_walk_init(&w, g, NULL), 0);
    double *d = malloc((g->nnodes ? g->nnodes : 1) * sizeof *d);
    uint8_t *in = calloc(g->nnodes ? g->nnodes : 1, 1);
    for (size_t t = 0; t < g->nl0 + 1; t++) {   /* one past the last target: nothing reached */
        clarity_iqcar_graph_dor(g, t, d);
        clarity_iqcar_dor_walk(&w, t);
        memset(in, 0, g->nnodes ? g->nnodes : 1);
        for (size_t j = 0; j < w.ntouched; j++) in[w.touched[j]] = 1;
        for (size_t v = 0; v < g->nnodes; v++) {
            cr_expect(same(w.dor[v], d[v]), "%s: target %zu node %zu: walk %.17g, full pass %.17g", what, t, v, w.dor[v], d[v]);
            cr_expect(d[v] == 0 || in[v], "%s: target %zu node %zu has DOR but was not reached", what, t, v);
        }
    }
    free(d);
    free(in);
    clarity_iqcar_dor_walk_free(&w);
}

/* Random layered graphs: targets at level 0, each node of level l+1 feeding 1-3 nodes of level l
 * (several targets share the upper levels), some VCs 0. */
Test(iqcar_walk, random_graphs_match_the_full_pass)
{
    unsigned seed = 5;
    for (int round = 0; round < 60; round++) {
        struct iqcar_graph g;
        clarity_iqcar_graph_init(&g);
        size_t first[8] = {0}, count[7];
        for (int l = 0; l < 7; l++) {
            first[l] = g.nnodes;
            count[l] = 1 + rnd(&seed) % (l == 0 ? 4 : 9);
            for (size_t k = 0; k < count[l]; k++) {
                double vc = rnd(&seed) % 5 == 0 ? 0 : (double)(1 + rnd(&seed) % 1000) / 7.0;
                int kind = l >= 4 && rnd(&seed) % 6 == 0 ? IQ_K_UNKNOWN : IQ_K_NODE;
                cr_assert_eq(clarity_iqcar_node_add(&g, l, kind, -1, l == 0 ? 1.0 : vc, NULL, NULL), 0);
            }
            if (l == 0) continue;
            for (size_t k = 0; k < count[l]; k++) {
                size_t nto = 1 + rnd(&seed) % 3;
                for (size_t e = 0; e < nto; e++)
                    cr_assert_eq(clarity_iqcar_edge_add(&g, (uint32_t)(first[l] + k), (uint32_t)(first[l - 1] + rnd(&seed) % count[l - 1]), NULL), 0);
            }
        }
        cr_assert_eq(clarity_iqcar_graph_finish(&g, NULL), 0);
        char what[32];
        snprintf(what, sizeof what, "round %d", round);
        walk_matches(&g, what);
        clarity_iqcar_graph_free(&g);
    }
}

/* A random workload through build and answers: the walk on its graph, then every answer kept
 * sparse against dense tables. */
static void random_build(struct iqcar_result *r, unsigned seed)
{
    fx_init(r);
    char nm[32];
    size_t nu = 3 + seed % 4, ns = nu * 2, nh = 2 + seed % 2;
    for (size_t u = 0; u < nu; u++) snprintf(nm, sizeof nm, "Q%zu", u), fx_unit(r, nm);
    for (size_t s = 0; s < ns; s++) snprintf(nm, sizeof nm, "s%zu", s), fx_stage(r, s % nu, nm);
    for (size_t h = 0; h < nh; h++) snprintf(nm, sizeof nm, "h%zu", h), fx_host(r, nm);
    for (int k = 0; k < 120; k++) {
        int64_t t0 = (int64_t)(rnd(&seed) % 20000);
        int p = (int)(1 + rnd(&seed) % (IQ_NSUB - 1));
        struct iqcar_task *t = fx_task(r, rnd(&seed) % ns, rnd(&seed) % nh, t0, t0 + 500 + rnd(&seed) % 5000, p,
                                       (double)(1 + rnd(&seed) % 3000), 1e6 + rnd(&seed) * 10.0);
        t->submit = t0 - (int64_t)(rnd(&seed) % 2000);
        t->wait[IQ_S_SLOTS] = (double)(t->launch - t->submit);
        t->data[IQ_S_SLOTS] = 1 + rnd(&seed) % 3;
    }
    cr_assert_eq(fx_run(r), 0);
}

Test(iqcar_walk, built_graphs_match_the_full_pass)
{
    for (unsigned seed = 1; seed <= 10; seed++) {
        struct iqcar_result r;
        random_build(&r, seed);
        char what[32];
        snprintf(what, sizeof what, "build %u", seed);
        walk_matches(&r.g, what);
        clarity_iqcar_result_free(&r);
    }
}

Test(iqcar_sparse, source_target_dor_and_aggressive_match_dense_tables)
{
    for (unsigned seed = 1; seed <= 12; seed++) {
        struct iqcar_result r;
        random_build(&r, seed);
        size_t nq = r.nunits + 2, n = r.nunits;
        double *dense = calloc(nq * n, sizeof *dense), *d = malloc(r.g.nnodes * sizeof *d);
        for (size_t t = 0; t < n; t++) {
            clarity_iqcar_graph_dor(&r.g, t, d);
            for (size_t v = 0; v < r.g.nnodes; v++)
                if (r.g.nodes[v].level == 6) dense[(size_t)r.g.nodes[v].a * n + t] += d[v];
        }
        size_t nonzero = 0;
        for (size_t s = 0; s < nq; s++)
            for (size_t t = 0; t < n; t++) {
                double want = dense[s * n + t];
                nonzero += want != 0;
                cr_expect(same(clarity_iqcar_l6_dor(&r, s, t), want), "seed %u: source %zu target %zu", seed, s, t);
            }
        cr_expect_eq(r.nl6, nonzero, "seed %u: %zu cells, %zu nonzero in the dense table", seed, r.nl6, nonzero);
        /* aggressive: the dense row sums, target after target; listed when positive */
        for (size_t s = 0; s < n; s++) {
            double tot = 0;
            size_t found = 0;
            for (size_t t = 0; t < n; t++) tot += dense[s * n + t];
            for (size_t i = 0; i < r.naggressive; i++)
                if (r.aggressive[i].node == s) {
                    found++;
                    cr_expect(same(r.aggressive[i].dor, tot), "seed %u: aggressive %zu", seed, s);
                }
            cr_expect_eq(found, tot > 0 ? 1u : 0u, "seed %u: unit %zu with DOR %g toward others listed %zu times", seed, s, tot, found);
            /* by victim time: each target's runtime x the source's DOR toward it, added in the
             * same order */
            double ms = 0;
            for (size_t t = 0; t < n; t++) {
                const struct iqcar_unit_info *u = &r.units[t];
                ms += dense[s * n + t] * (u->end > u->start ? (double)(u->end - u->start) : 0);
            }
            found = 0;
            for (size_t i = 0; i < r.naggressive_time; i++)
                if (r.aggressive_time[i].node == s) {
                    found++;
                    cr_expect(same(r.aggressive_time[i].dor, ms), "seed %u: aggressive by time %zu", seed, s);
                    cr_expect(same(r.aggressive_time[i].aux, tot), "seed %u: its total DOR %zu", seed, s);
                }
            cr_expect_eq(found, tot > 0 ? 1u : 0u, "seed %u: unit %zu listed by time %zu times", seed, s, found);
        }
        for (size_t i = 1; i < r.naggressive_time; i++)
            cr_expect(r.aggressive_time[i - 1].dor >= r.aggressive_time[i].dor, "seed %u: by time, descending", seed);
        cr_expect(r.nl6 > 0, "seed %u: a workload with contention has cells", seed);
        free(dense);
        free(d);
        clarity_iqcar_result_free(&r);
    }
}

Test(iqcar_sparse, baseline_rows_sum_their_cells)
{
    for (unsigned seed = 1; seed <= 12; seed++) {
        struct iqcar_result r;
        random_build(&r, seed);
        for (size_t t = 0; t < r.nunits; t++) {
            double sum = 0;
            for (size_t s = 0; s < r.nunits; s++) sum += clarity_iqcar_overlap_of(&r, t, s);
            cr_expect(same(r.targets[t].overlap_sum, sum), "seed %u: target %zu: %.17g against %.17g", seed, t,
                      r.targets[t].overlap_sum, sum);
            cr_expect_eq(clarity_iqcar_overlap_of(&r, t, t), 0.0, "a unit is no source of its own baseline");
        }
        clarity_iqcar_result_free(&r);
    }
}

static int brute_concurrency(const struct iqcar_unit_info *u, size_t n)
{
    int best = 0;
    for (size_t i = 0; i < n; i++) {
        int c = 0;
        for (size_t j = 0; j < n; j++)
            if (u[j].start <= u[i].start && u[j].end > u[i].start) c++;
        if (c > best) best = c;
    }
    return best;
}

Test(iqcar_sparse, max_concurrency_matches_every_pair)
{
    unsigned seed = 3;
    for (int round = 0; round < 200; round++) {
        size_t n = rnd(&seed) % 40;
        struct iqcar_unit_info u[40];
        for (size_t i = 0; i < n; i++) {
            u[i].start = (int64_t)(rnd(&seed) % 50);
            u[i].end = u[i].start + (int64_t)(rnd(&seed) % 30) - 5;   /* some end before they start */
        }
        int got;
        cr_assert_eq(clarity_iqcar_max_concurrency(u, n, &got), 0);
        cr_expect_eq(got, brute_concurrency(u, n), "round %d (%zu units)", round, n);
    }
}

/* ---- the stage DAG walks against a scan of every edge per node ---- */
static int ref_order(size_t n, const size_t *from, const size_t *to, size_t ne, size_t *ord)
{
    size_t *outdeg = calloc(n ? n : 1, sizeof *outdeg), head = 0, tail = 0;
    for (size_t e = 0; e < ne; e++) outdeg[from[e]]++;
    for (size_t i = 0; i < n; i++)
        if (!outdeg[i]) ord[tail++] = i;
    while (head < tail) {
        size_t v = ord[head++];
        for (size_t e = 0; e < ne; e++)
            if (to[e] == v && --outdeg[from[e]] == 0) ord[tail++] = from[e];
    }
    free(outdeg);
    return tail == n ? 0 : -1;
}

static int ref_depth(size_t n, const size_t *from, const size_t *to, size_t ne, int *depth)
{
    size_t *ord = malloc((n ? n : 1) * sizeof *ord);
    int rc = ref_order(n, from, to, ne, ord);
    for (size_t i = 0; i < n && !rc; i++) depth[i] = 1;
    for (size_t k = 0; k < n && !rc; k++)
        for (size_t e = 0; e < ne; e++)
            if (to[e] == ord[k] && depth[from[e]] < depth[ord[k]] + 1) depth[from[e]] = depth[ord[k]] + 1;
    free(ord);
    return rc;
}

static int ref_critical(size_t n, const size_t *from, const size_t *to, size_t ne, const double *rt, size_t *path,
                        size_t *len, double *total)
{
    size_t *ord = malloc((n ? n : 1) * sizeof *ord), *next = malloc((n ? n : 1) * sizeof *next);
    double *best = malloc((n ? n : 1) * sizeof *best);
    int rc = n ? ref_order(n, from, to, ne, ord) : 0;
    *len = 0, *total = 0;
    for (size_t k = 0; k < n && !rc; k++) {
        size_t v = ord[k];
        best[v] = rt[v], next[v] = (size_t)-1;
        for (size_t e = 0; e < ne; e++) {
            if (from[e] != v) continue;
            double c = rt[v] + best[to[e]];
            if (c > best[v] || (c == best[v] && next[v] != (size_t)-1 && to[e] < next[v])) best[v] = c, next[v] = to[e];
        }
    }
    size_t start = (size_t)-1;
    for (size_t v = 0; v < n && !rc; v++) {
        bool leaf = true;
        for (size_t e = 0; e < ne && leaf; e++) leaf = to[e] != v;
        if (leaf && (start == (size_t)-1 || best[v] > best[start])) start = v;
    }
    if (n && !rc) {
        *total = best[start];
        for (size_t v = start; v != (size_t)-1; v = next[v]) path[(*len)++] = v;
    }
    free(ord), free(next), free(best);
    return rc;
}

Test(iqcar_dag, random_dags_match_the_edge_scans)
{
    unsigned seed = 9;
    for (int round = 0; round < 300; round++) {
        size_t n = rnd(&seed) % 25, ne = 0, from[120], to[120];
        size_t *pos = malloc((n ? n : 1) * sizeof *pos);
        for (size_t i = 0; i < n; i++) pos[i] = i;
        for (size_t i = n; i > 1; i--) {   /* a random topological order */
            size_t j = rnd(&seed) % i, x = pos[i - 1];
            pos[i - 1] = pos[j], pos[j] = x;
        }
        bool cyclic = round % 10 == 9 && n > 1;
        for (size_t k = 0; n > 1 && k < rnd(&seed) % 100; k++) {
            size_t a = rnd(&seed) % n, b = rnd(&seed) % n;
            if (pos[a] == pos[b]) continue;
            if (pos[a] < pos[b]) { size_t x = a; a = b; b = x; }
            from[ne] = a, to[ne] = b, ne++;   /* duplicates too: stage attempts repeat parents */
        }
        if (cyclic && ne) from[ne] = to[0], to[ne] = from[0], ne++;
        double rt[25];
        for (size_t i = 0; i < n; i++) rt[i] = (double)(rnd(&seed) % 6);   /* many ties */
        int d1[25], d2[25];
        int r1 = clarity_iqcar_dag_depth(n, from, to, ne, d1, NULL), r2 = ref_depth(n, from, to, ne, d2);
        cr_expect_eq(r1 != 0, r2 != 0, "round %d: depth rc %d, reference %d", round, r1, r2);
        for (size_t i = 0; i < n && !r1 && !r2; i++) cr_expect_eq(d1[i], d2[i], "round %d node %zu", round, i);
        size_t p1[25], p2[25], l1, l2;
        double t1, t2;
        r1 = clarity_iqcar_critical_path(n, from, to, ne, rt, p1, &l1, &t1, NULL);
        r2 = ref_critical(n, from, to, ne, rt, p2, &l2, &t2);
        cr_expect_eq(r1 != 0, r2 != 0, "round %d: path rc %d, reference %d", round, r1, r2);
        if (r1 || r2) {
            free(pos);
            continue;
        }
        cr_expect_eq(l1, l2, "round %d: path length", round);
        cr_expect(same(t1, t2), "round %d: total", round);
        for (size_t i = 0; i < l1 && i < l2; i++) cr_expect_eq(p1[i], p2[i], "round %d: path[%zu]", round, i);
        free(pos);
    }
}
