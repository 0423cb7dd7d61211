/* iQCAR worked cases (numbered as in the test names), computed without logs: DAG depth and critical path (1, 2), RATP
 * (3, 4), the App. A identity (5), the fully computed graph example (12), no pruning (13),
 * multi-target maps (14), hit% (22), scalability and conservation (21). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include "clarity/contention.h"

#define NEAR(a, b) cr_expect(fabs((a) - (b)) < 1e-12, "%s = %.15g, want %.15g", #a, (double)(a), (double)(b))

/* Figure 1: s0,s1,s2 -> s3 -> s4 -> s5 */
static const size_t F[] = {0, 1, 2, 3, 4}, T[] = {3, 3, 3, 4, 5};

Test(iqcar_spec, c01_dag_depth)
{
    int d[6];
    cr_assert_eq(clarity_iqcar_dag_depth(6, F, T, 5, d, NULL), 0);
    cr_expect_eq(d[5], 1);
    cr_expect_eq(d[4], 2);
    cr_expect_eq(d[3], 3);
    cr_expect(d[0] == 4 && d[1] == 4 && d[2] == 4);
}

Test(iqcar_spec, c02_critical_path)
{
    double rt[6] = {5, 20, 10, 8, 6, 2}, total;
    size_t path[6];
    size_t n = 0;
    cr_assert_eq(clarity_iqcar_critical_path(6, F, T, 5, rt, path, &n, &total, NULL), 0);
    cr_assert_eq(n, 4);
    cr_expect(path[0] == 1 && path[1] == 3 && path[2] == 4 && path[3] == 5);
    NEAR(total, 36);
}

Test(iqcar_spec, c03_ratp_network_penalty) { NEAR(iqcar_ratp(2000, 1e8), 2e-5); }

Test(iqcar_spec, c04_disproportionality)
{
    double a = iqcar_ratp(10000, 1e9), b = iqcar_ratp(10000, 1e10);
    NEAR(a / b, 10);
    cr_expect(a > b);
}

Test(iqcar_spec, c05_appendix_a_identity)
{
    double rh = 1.0 / 100, rtt = 1.0 / 20, r1 = 1.0 / 30, r2 = 1.0 / 40, ru = 1.0 / 10;
    double s = (rtt - rh) / rh;
    double b1 = clarity_iqcar_blame(1000, 1000, rtt, r1, rh), b2 = clarity_iqcar_blame(1000, 1000, rtt, r2, rh), bu = rtt / ru;
    NEAR(s, 4);
    NEAR(b1, 1.5);
    NEAR(b2, 2.0);
    NEAR(bu, 0.5);
    NEAR(b1 + b2 + bu, s);
    NEAR(clarity_iqcar_unknown(rtt, rh, b1 + b2, 0), 0.5);
}

Test(iqcar_spec, c09_source_also_waiting) { NEAR(clarity_iqcar_blame(5000, 5000, 1e-5, 1e-4, 1e-6), 0.1); }

Test(iqcar_spec, c22_hit_pct)
{
    NEAR(clarity_iqcar_hit_pct(7290, 1000), 629);
    /* share = this query's extra time over the sum of extra times */
    double extra[2] = {7290 - 1000, 1310 - 1000};
    NEAR(extra[0] / (extra[0] + extra[1]), 6290.0 / 6600.0);
}

/* ---- case 12: the worked example, graph built directly ---- */
struct ex12 {
    struct iqcar_graph g;
    long q0, s1, s3, net1, io1, io3, nx, ny, iox, io3y, r3a, unka, u5, u7, r3b, unkb, u9, unkc;
    long l5r3, l5u5, l5u7, l5u9, l5unk, q1, q2, qunk;
};

/* iqcar_node_add, asserting it succeeded: the node's index */
static long add_node(struct iqcar_graph *g, int level, int kind, int target, double vc)
{
    uint32_t i;
    cr_assert_eq(clarity_iqcar_node_add(g, level, kind, target, vc, &i, NULL), 0);
    return (long)i;
}
static long node(struct iqcar_graph *g, int level, int kind, double vc) { return add_node(g, level, kind, 0, vc); }
static void edge(struct iqcar_graph *g, long from, long to)
{
    cr_assert_eq(clarity_iqcar_edge_add(g, (uint32_t)from, (uint32_t)to, NULL), 0);
}

static void build12(struct ex12 *x)
{
    struct iqcar_graph *g = &x->g;
    clarity_iqcar_graph_init(g);
    x->q0 = node(g, 0, IQ_K_NODE, 1);
    x->s1 = node(g, 1, IQ_K_NODE, 60), x->s3 = node(g, 1, IQ_K_NODE, 40);
    edge(g, x->s1, x->q0), edge(g, x->s3, x->q0);
    x->net1 = node(g, 2, IQ_K_NODE, 3), x->io1 = node(g, 2, IQ_K_NODE, 1), x->io3 = node(g, 2, IQ_K_NODE, 2);
    edge(g, x->net1, x->s1), edge(g, x->io1, x->s1), edge(g, x->io3, x->s3);
    /* the zero-VC IE nodes exist too (5 per stage) */
    for (int i = 0; i < 3; i++) edge(g, node(g, 2, IQ_K_NODE, 0), x->s1);
    for (int i = 0; i < 4; i++) edge(g, node(g, 2, IQ_K_NODE, 0), x->s3);
    x->nx = node(g, 3, IQ_K_NODE, 1), x->ny = node(g, 3, IQ_K_NODE, 3);
    x->iox = node(g, 3, IQ_K_NODE, 1), x->io3y = node(g, 3, IQ_K_NODE, 2);
    edge(g, x->nx, x->net1), edge(g, x->ny, x->net1), edge(g, x->iox, x->io1), edge(g, x->io3y, x->io3);
    x->r3a = node(g, 4, IQ_K_NODE, 0.6), x->unka = node(g, 4, IQ_K_UNKNOWN, 0.2);
    x->u5 = node(g, 4, IQ_K_NODE, 1.0), x->u7 = node(g, 4, IQ_K_NODE, 1.0);
    x->r3b = node(g, 4, IQ_K_NODE, 0.5), x->unkb = node(g, 4, IQ_K_UNKNOWN, 0.5);
    x->u9 = node(g, 4, IQ_K_NODE, 3.0), x->unkc = node(g, 4, IQ_K_UNKNOWN, 1.0);
    edge(g, x->r3a, x->nx), edge(g, x->unka, x->nx), edge(g, x->u5, x->ny), edge(g, x->u7, x->ny);
    edge(g, x->r3b, x->iox), edge(g, x->unkb, x->iox), edge(g, x->u9, x->io3y), edge(g, x->unkc, x->io3y);
    x->l5r3 = node(g, 5, IQ_K_NODE, 1), x->l5u5 = node(g, 5, IQ_K_NODE, 1), x->l5u7 = node(g, 5, IQ_K_NODE, 1);
    x->l5u9 = node(g, 5, IQ_K_NODE, 1), x->l5unk = node(g, 5, IQ_K_UNKNOWN, 1);
    edge(g, x->l5r3, x->r3a), edge(g, x->l5r3, x->r3b), edge(g, x->l5u5, x->u5), edge(g, x->l5u7, x->u7);
    edge(g, x->l5u9, x->u9), edge(g, x->l5unk, x->unka), edge(g, x->l5unk, x->unkb), edge(g, x->l5unk, x->unkc);
    x->q1 = node(g, 6, IQ_K_NODE, 1), x->q2 = node(g, 6, IQ_K_NODE, 1), x->qunk = node(g, 6, IQ_K_UNKNOWN, 1);
    edge(g, x->q1, x->l5r3), edge(g, x->q2, x->l5u5), edge(g, x->q2, x->l5u7), edge(g, x->q2, x->l5u9);
    edge(g, x->qunk, x->l5unk);
    cr_assert_eq(clarity_iqcar_graph_finish(g, NULL), 0);
}

static double edge_if(const struct iqcar_graph *g, long from, long to)
{
    for (size_t i = 0; i < g->nedges; i++)
        if (g->edges[i].from == (uint32_t)from && g->edges[i].to == (uint32_t)to) return g->edges[i].imf;
    return -1;
}

Test(iqcar_spec, c12_worked_example)
{
    struct ex12 x;
    build12(&x);
    const struct iqcar_graph *g = &x.g;
    double *d = malloc(g->nnodes * sizeof *d);
    clarity_iqcar_graph_dor(g, 0, d);
    NEAR(edge_if(g, x.s1, x.q0), 0.6);
    NEAR(edge_if(g, x.s3, x.q0), 0.4);
    NEAR(d[x.net1], 0.45); NEAR(d[x.io1], 0.15); NEAR(d[x.io3], 0.4);
    NEAR(d[x.nx], 0.1125); NEAR(d[x.ny], 0.3375); NEAR(d[x.iox], 0.15); NEAR(d[x.io3y], 0.4);
    NEAR(d[x.r3a], 0.084375); NEAR(d[x.unka], 0.028125); NEAR(d[x.u5], 0.16875); NEAR(d[x.u7], 0.16875);
    NEAR(d[x.r3b], 0.075); NEAR(d[x.unkb], 0.075); NEAR(d[x.u9], 0.3); NEAR(d[x.unkc], 0.1);
    NEAR(d[x.l5r3], 0.159375); NEAR(d[x.l5u5], 0.16875); NEAR(d[x.l5u7], 0.16875); NEAR(d[x.l5u9], 0.3);
    NEAR(d[x.l5unk], 0.203125);
    NEAR(d[x.q2], 0.6375); NEAR(d[x.qunk], 0.203125); NEAR(d[x.q1], 0.159375);
    /* each level sums to 1 (conservation) */
    for (int l = 0; l <= 6; l++) {
        double s = 0;
        for (size_t v = 0; v < g->nnodes; v++)
            if (g->nodes[v].level == l) s += d[v];
        cr_expect(fabs(s - 1) < 1e-12, "level %d sums to %.15g", l, s);
    }
    /* top noisy: Q2 then Q1; top path through u9 (weight = the BE's DOR, IFs above it are 1) */
    cr_expect(d[x.q2] > d[x.q1]);
    NEAR(edge_if(g, x.l5u9, x.u9) * edge_if(g, x.q2, x.l5u9) * d[x.u9], 0.3);
    NEAR(d[x.u5] + d[x.u7] + d[x.u9], d[x.q2]);   /* all Q2 paths sum to its DOR */
    /* hot resources: IF sums NET 0.75, IO 1.25; DOR sums NET 0.45, IO 0.55 */
    NEAR(edge_if(g, x.net1, x.s1), 0.75);
    NEAR(edge_if(g, x.io1, x.s1) + edge_if(g, x.io3, x.s3), 1.25);
    NEAR(d[x.io1] + d[x.io3], 0.55);
    /* slow nodes: IF sums X 1.25 vs Y 1.75; DOR sums X 0.2625 vs Y 0.7375 */
    NEAR(edge_if(g, x.nx, x.net1) + edge_if(g, x.iox, x.io1), 1.25);
    NEAR(edge_if(g, x.ny, x.net1) + edge_if(g, x.io3y, x.io3), 1.75);
    NEAR(d[x.nx] + d[x.iox], 0.2625);
    NEAR(d[x.ny] + d[x.io3y], 0.7375);
    /* invariant: the IFs into every node with a parent of positive VC sum to 1 */
    for (size_t v = 0; v < g->nnodes; v++) {
        double s = clarity_iqcar_in_if_sum(g, (uint32_t)v);
        cr_expect(s == 0 || fabs(s - 1) < 1e-12, "node %zu: IFs in sum to %.15g", v, s);
    }
    free(d);
    clarity_iqcar_graph_free(&x.g);
}

Test(iqcar_spec, c13_no_pruning)
{
    struct iqcar_graph g;
    clarity_iqcar_graph_init(&g);
    long q = node(&g, 0, IQ_K_NODE, 1), s = node(&g, 1, IQ_K_NODE, 1), ie = node(&g, 2, IQ_K_NODE, 1);
    long de = node(&g, 3, IQ_K_NODE, 1);
    edge(&g, s, q), edge(&g, ie, s), edge(&g, de, ie);
    long a5 = node(&g, 5, IQ_K_NODE, 1), b5 = node(&g, 5, IQ_K_NODE, 1), u5 = node(&g, 5, IQ_K_UNKNOWN, 1);
    long abe = node(&g, 4, IQ_K_NODE, 0.3), ube = node(&g, 4, IQ_K_UNKNOWN, 0.3);
    edge(&g, abe, de), edge(&g, a5, abe), edge(&g, ube, de), edge(&g, u5, ube);
    for (int i = 0; i < 4; i++) {
        long b = node(&g, 4, IQ_K_NODE, 0.1);
        edge(&g, b, de), edge(&g, b5, b);
    }
    cr_assert_eq(clarity_iqcar_graph_finish(&g, NULL), 0);
    double d[64];
    clarity_iqcar_graph_dor(&g, 0, d);
    NEAR(d[abe], 0.3);
    NEAR(d[b5], 0.4);
    cr_expect(d[b5] > d[a5], "B collects many small paths and ranks above A");
    clarity_iqcar_graph_free(&g);
}

Test(iqcar_spec, c14_multi_target_maps)
{
    struct iqcar_graph g;
    clarity_iqcar_graph_init(&g);
    long r3 = -1, be[2];
    long q[2];
    for (int t = 0; t < 2; t++) {
        q[t] = add_node(&g, 0, IQ_K_NODE, t, 1);
        long s = add_node(&g, 1, IQ_K_NODE, t, 1), ie = add_node(&g, 2, IQ_K_NODE, t, 1);
        long de = add_node(&g, 3, IQ_K_NODE, t, 1);
        edge(&g, s, q[t]), edge(&g, ie, s), edge(&g, de, ie);
        be[t] = add_node(&g, 4, IQ_K_NODE, t, t ? 1.0 : 3.0);
        long u = add_node(&g, 4, IQ_K_UNKNOWN, t, 1.0);
        edge(&g, be[t], de), edge(&g, u, de);
        long u5 = add_node(&g, 5, IQ_K_UNKNOWN, -1, 1);
        edge(&g, u5, u);
    }
    r3 = add_node(&g, 5, IQ_K_NODE, -1, 1);
    long q1 = add_node(&g, 6, IQ_K_NODE, -1, 1);
    edge(&g, r3, be[0]), edge(&g, r3, be[1]), edge(&g, q1, r3);
    cr_assert_eq(clarity_iqcar_graph_finish(&g, NULL), 0);
    double d0[32], d1[32];
    clarity_iqcar_graph_dor(&g, 0, d0);
    clarity_iqcar_graph_dor(&g, 1, d1);
    NEAR(d0[r3], 0.75);
    NEAR(d1[r3], 0.5);
    NEAR(d0[q1] + d1[q1], 1.25);   /* the aggressive score is the sum of the map */
    clarity_iqcar_graph_free(&g);
}

/* Case 21: a random graph with the real shape, 10 targets; linear time, conservation. */
static double random_graph_seconds(size_t stages_per_target, double *worst)
{
    struct iqcar_graph g;
    clarity_iqcar_graph_init(&g);
    unsigned seed = 12345;
#define RND() ((seed = seed * 1103515245u + 12345u) >> 8 & 0xffff)
    size_t nsrc = 200;
    long l5[200], l6[20];
    for (int i = 0; i < 20; i++) l6[i] = add_node(&g, 6, i ? IQ_K_NODE : IQ_K_UNKNOWN, -1, 1);
    for (size_t i = 0; i < nsrc; i++) {
        l5[i] = add_node(&g, 5, i ? IQ_K_NODE : IQ_K_UNKNOWN, -1, 1);
        clarity_iqcar_edge_add(&g, (uint32_t)l6[i ? 1 + i % 19 : 0], (uint32_t)l5[i], NULL);
    }
    for (int t = 0; t < 10; t++) {
        long q = add_node(&g, 0, IQ_K_NODE, t, 1);
        for (size_t s = 0; s < stages_per_target; s++) {
            long st = add_node(&g, 1, IQ_K_NODE, t, 1 + RND());
            clarity_iqcar_edge_add(&g, (uint32_t)st, (uint32_t)q, NULL);
            for (int r = 0; r < 5; r++) {
                long ie = add_node(&g, 2, IQ_K_NODE, t, 1 + RND());
                clarity_iqcar_edge_add(&g, (uint32_t)ie, (uint32_t)st, NULL);
                for (int h = 0; h < 4; h++) {
                    long de = add_node(&g, 3, IQ_K_NODE, t, 1 + RND());
                    clarity_iqcar_edge_add(&g, (uint32_t)de, (uint32_t)ie, NULL);
                    long u = add_node(&g, 4, IQ_K_UNKNOWN, t, RND());
                    clarity_iqcar_edge_add(&g, (uint32_t)u, (uint32_t)de, NULL);
                    clarity_iqcar_edge_add(&g, (uint32_t)l5[0], (uint32_t)u, NULL);
                    for (int b = 0; b < 3; b++) {
                        long be = add_node(&g, 4, IQ_K_NODE, t, RND());
                        clarity_iqcar_edge_add(&g, (uint32_t)be, (uint32_t)de, NULL);
                        clarity_iqcar_edge_add(&g, (uint32_t)l5[1 + RND() % (nsrc - 1)], (uint32_t)be, NULL);
                    }
                }
            }
        }
    }
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    cr_assert_eq(clarity_iqcar_graph_finish(&g, NULL), 0);
    double *d = malloc(g.nnodes * sizeof *d), lv[7];
    *worst = 0;
    for (size_t t = 0; t < 10; t++) {
        clarity_iqcar_graph_dor(&g, t, d);
        for (int l = 0; l < 7; l++) lv[l] = 0;
        for (size_t v = 0; v < g.nnodes; v++) lv[g.nodes[v].level] += d[v];
        for (int l = 0; l < 7; l++)
            if (fabs(lv[l] - 1) > *worst) *worst = fabs(lv[l] - 1);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    free(d);
    clarity_iqcar_graph_free(&g);
    return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
#undef RND
}

Test(iqcar_spec, c21_scalability_and_conservation)
{
    double w1, w2;
    double t1 = random_graph_seconds(250, &w1);   /* about 1.1e5 nodes */
    double t2 = random_graph_seconds(500, &w2);   /* about 2.2e5 nodes */
    cr_expect(w1 < 1e-9 && w2 < 1e-9, "conservation: %.3g, %.3g", w1, w2);
    cr_expect(t2 < 4 * t1 + 0.05, "doubling the nodes: %.4f s -> %.4f s", t1, t2);
}
