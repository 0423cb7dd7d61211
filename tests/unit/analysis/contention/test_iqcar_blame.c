/* iQCAR worked cases (numbered as in the test names) on task tables: partial overlap with Unknown (6), no target wait
 * (7), other host or no overlap (8), BE structure (10), skew vs contention (11), simple-overlap
 * vs iQCAR (15), rules (16), induced contention (17), source elimination (18), Self (19),
 * units from a real log (20), and the per-level conservation invariant on a full build. */
#include <criterion/criterion.h>
#include <math.h>
#include "clarity/contention.h"
#include "iqcar_fixture.h"
#include "../../model/load_helpers.h"

#define NEAR(a, b) cr_expect(fabs((a) - (b)) < 1e-12, "%s = %.15g, want %.15g", #a, (double)(a), (double)(b))

/* Case 6 fixture: target [1000,11000) NWT 2000 / 1e8; st1 [3000,8000) 500 / 1e8; st2
 * [9000,13000) 4000 / 1e8, both of one source stage. */
static void case6(struct iqcar_result *r, double nwt_tt, bool other_host)
{
    fx_init(r);
    size_t q0 = fx_unit(r, "Q0"), q1 = fx_unit(r, "Q1");
    size_t s1 = fx_stage(r, q0, "s1"), r3 = fx_stage(r, q1, "r3");
    size_t x = fx_host(r, "X"), y = fx_host(r, "Y");
    fx_task(r, s1, x, 1000, 11000, IQ_S_NET, nwt_tt, 1e8);
    fx_task(r, r3, other_host ? y : x, 3000, 8000, IQ_S_NET, 500, 1e8);
    fx_task(r, r3, x, 9000, 13000, IQ_S_NET, 4000, 1e8);
    cr_assert_eq(fx_run(r), 0);
}

Test(iqcar_spec, c06_partial_overlap_and_unknown)
{
    NEAR(clarity_iqcar_blame(5000, 10000, 2e-5, 5e-6, 5e-6), 2.0);
    NEAR(clarity_iqcar_blame(2000, 10000, 2e-5, 4e-5, 5e-6), 0.1);
    struct iqcar_result r;
    case6(&r, 2000, false);
    NEAR(fx_be_vc(&r, 0, IQ_S_NET, 0, IQ_K_NODE, 1), 2.1);
    NEAR(fx_be_vc(&r, 0, IQ_S_NET, 0, IQ_K_UNKNOWN, -1), 0.9);
    clarity_iqcar_result_free(&r);
}

Test(iqcar_spec, c07_no_target_wait_no_blame)
{
    struct iqcar_result r;
    case6(&r, 0, false);
    for (size_t v = 0; v < r.g.nnodes; v++) {
        const struct iqcar_node *n = &r.g.nodes[v];
        if (n->level == 4 && n->target == 0) cr_expect(n->vc == 0, "BE of Q0 with VC %g", n->vc);
    }
    clarity_iqcar_result_free(&r);
}

Test(iqcar_spec, c08_other_host_or_no_overlap)
{
    struct iqcar_result r;
    fx_init(&r);
    size_t q0 = fx_unit(&r, "Q0"), q1 = fx_unit(&r, "Q1");
    size_t s1 = fx_stage(&r, q0, "s1"), r3 = fx_stage(&r, q1, "r3");
    size_t x = fx_host(&r, "X"), y = fx_host(&r, "Y");
    fx_task(&r, s1, x, 1000, 11000, IQ_S_NET, 2000, 1e8);
    fx_task(&r, r3, y, 1000, 11000, IQ_S_NET, 500, 1e8);   /* other host */
    fx_task(&r, r3, x, 0, 1000, IQ_S_NET, 500, 1e8);       /* ends as tt starts (half-open) */
    cr_assert_eq(fx_run(&r), 0);
    NEAR(fx_be_vc(&r, 0, IQ_S_NET, x, IQ_K_NODE, (int)r3), 0);
    for (size_t v = 0; v < r.g.nnodes; v++) {
        const struct iqcar_node *n = &r.g.nodes[v];
        if (n->level == 4 && n->kind == IQ_K_NODE && n->target == 0) cr_expect(0, "a BE node for Q0 exists");
    }
    clarity_iqcar_result_free(&r);
}

Test(iqcar_spec, c10_be_structure)
{
    struct iqcar_result r;
    fx_init(&r);
    size_t q0 = fx_unit(&r, "Q0"), q1 = fx_unit(&r, "Q1"), q2 = fx_unit(&r, "Q2");
    size_t s1 = fx_stage(&r, q0, "s1"), s5 = fx_stage(&r, q0, "s5"), r3 = fx_stage(&r, q1, "r3");
    size_t u5 = fx_stage(&r, q2, "u5"), u7 = fx_stage(&r, q2, "u7"), u9 = fx_stage(&r, q2, "u9");
    size_t x = fx_host(&r, "X"), y = fx_host(&r, "Y");
    fx_task(&r, s1, x, 0, 10000, IQ_S_NET, 3000, 1e8);
    fx_task(&r, r3, x, 0, 10000, IQ_S_NET, 100, 1e8);
    fx_task(&r, s5, y, 20000, 30000, IQ_S_IO_READ, 3000, 1e8);
    fx_task(&r, u5, y, 20000, 25000, IQ_S_IO_READ, 100, 1e8);
    fx_task(&r, u7, y, 22000, 28000, IQ_S_IO_READ, 200, 1e8);
    fx_task(&r, u9, y, 25000, 30000, IQ_S_IO_READ, 300, 1e8);
    cr_assert_eq(fx_run(&r), 0);
    /* toward Q0: L5 = {r3, u5, u7, u9} (plus Unknown), L6 = {Q1, Q2} */
    double *d = malloc(r.g.nnodes * sizeof *d);
    clarity_iqcar_graph_dor(&r.g, q0, d);
    int l5 = 0, l6 = 0, ie = 0, de = 0;
    for (size_t v = 0; v < r.g.nnodes; v++) {
        const struct iqcar_node *n = &r.g.nodes[v];
        if (n->level == 2 && n->target == (int)q0) ie++;
        if (n->level == 3 && n->target == (int)q0) de++;
        if (n->kind != IQ_K_NODE || !(d[v] > 0)) continue;
        if (n->level == 5) {
            l5++;
            cr_expect(n->a == (int)r3 || n->a == (int)u5 || n->a == (int)u7 || n->a == (int)u9);
        }
        if (n->level == 6) {
            l6++;
            cr_expect(n->a == (int)q1 || n->a == (int)q2);
        }
    }
    cr_expect_eq(l5, 4);
    cr_expect_eq(l6, 2);
    cr_expect_eq(ie, 10, "5 IE per target stage");
    cr_expect_eq(de, 16, "8 DE per (stage, host)");
    NEAR(fx_be_vc(&r, s1, IQ_S_NET, x, IQ_K_NODE, (int)r3), 30.0);   /* 3e-5 / 1e-6 */
    cr_expect(fx_be_vc(&r, s5, IQ_S_IO_READ, y, IQ_K_NODE, (int)u5) > 0);
    cr_expect(fx_be_vc(&r, s5, IQ_S_IO_READ, y, IQ_K_NODE, (int)u7) > 0);
    cr_expect(fx_be_vc(&r, s5, IQ_S_IO_READ, y, IQ_K_NODE, (int)u9) > 0);
    free(d);
    clarity_iqcar_result_free(&r);
}

Test(iqcar_spec, c11_skew_is_not_contention)
{
    struct iqcar_result r;
    fx_init(&r);
    size_t q0 = fx_unit(&r, "Q0");
    size_t s5 = fx_stage(&r, q0, "s5");
    size_t x = fx_host(&r, "X"), y = fx_host(&r, "Y"), z = fx_host(&r, "Z");
    fx_task(&r, s5, x, 0, 1000, IQ_S_IO_READ, 100, 1e6);
    fx_task(&r, s5, z, 0, 1000, IQ_S_IO_READ, 100, 1e6);
    fx_task(&r, s5, y, 0, 9000, IQ_S_IO_READ, 300, 1e7);   /* trailing, 3x wait, 10x data */
    cr_assert_eq(fx_run(&r), 0);
    double *d = malloc(r.g.nnodes * sizeof *d), dy = 0, dx = 0;
    clarity_iqcar_graph_dor(&r.g, q0, d);
    for (size_t v = 0; v < r.g.nnodes; v++) {
        const struct iqcar_node *n = &r.g.nodes[v];
        if (n->level != 3 || n->b != IQ_S_IO_READ) continue;
        if (n->c == (int)y) dy = d[v];
        if (n->c == (int)x) dx = d[v];
    }
    cr_expect(r.tasks[2].ratp[IQ_S_IO_READ] < r.tasks[0].ratp[IQ_S_IO_READ]);
    cr_expect(dy < dx, "DE(Y) %g is not the top DE (X %g)", dy, dx);
    free(d);
    clarity_iqcar_result_free(&r);
}

/* Case 15: Q2 full overlap at Q1's RATP (blame 1.0); Q3 a fraction f at a quarter of it. */
static void case15(double frac, long *iq_top, long *so_top)
{
    struct iqcar_result r;
    fx_init(&r);
    size_t q1 = fx_unit(&r, "Q1"), q2 = fx_unit(&r, "Q2"), q3 = fx_unit(&r, "Q3");
    size_t a = fx_stage(&r, q1, "a"), b = fx_stage(&r, q2, "b"), c = fx_stage(&r, q3, "c");
    size_t x = fx_host(&r, "X");
    int64_t start3 = (int64_t)(10000 * (1 - frac));
    fx_task(&r, a, x, 0, 10000, IQ_S_IO_READ, 4000, 1e8);
    fx_task(&r, b, x, 0, 10000, IQ_S_IO_READ, 4000, 1e8);
    fx_task(&r, c, x, start3, start3 + 10000, IQ_S_IO_READ, 1000, 1e8);
    cr_assert_eq(fx_run(&r), 0);
    NEAR(fx_be_vc(&r, a, IQ_S_IO_READ, x, IQ_K_NODE, (int)b), 1.0);
    NEAR(fx_be_vc(&r, a, IQ_S_IO_READ, x, IQ_K_NODE, (int)c), frac * 4);
    const struct iqcar_target_answer *t = &r.targets[q1];
    *iq_top = t->nnoisy ? r.g.nodes[t->noisy[0].node].a : -1;
    *so_top = t->noverlap ? (long)t->overlap[0].node : -1;
    clarity_iqcar_result_free(&r);
}

Test(iqcar_spec, c15_simple_overlap_vs_iqcar)
{
    long iq, so;
    case15(0.4, &iq, &so);
    cr_expect_eq(iq, 2, "iQCAR ranks Q3 first");
    cr_expect_eq(so, 1, "simple-overlap ranks Q2 first");
    case15(0.3, &iq, &so);   /* more delay: 0.3 x 4 = 1.2 > 1 still */
    cr_expect_eq(iq, 2);
}

Test(iqcar_spec, c16_rules)
{
    struct iqcar_result r;
    fx_init(&r);
    /* the rules from the DOR ranking: here every query has its slot, so the replay (the
     * default answer) finds no removal that helps and names none */
    r.opt.aggressive_by_time = true;
    size_t x = fx_host(&r, "X");
    char nm[16];
    for (int i = 0; i < 10; i++) {   /* ten queries at once: max concurrency 10 */
        snprintf(nm, sizeof nm, "Q%d", i);
        size_t s = fx_stage(&r, fx_unit(&r, nm), nm);
        fx_task(&r, s, x, 0, 10000, IQ_S_IO_READ, 1000.0 * (i + 1), 1e8);
    }
    cr_assert_eq(fx_run(&r), 0);
    cr_expect_eq(r.max_concurrency, 10);
    int agg = 0, dt = 0, ds = 0;
    for (size_t i = 0; i < r.nrules; i++) {
        const struct iqcar_rule *u = &r.rules[i];
        if (!strcmp(u->type, "AGG")) {
            NEAR(u->value, 0.1);
            cr_expect_eq(u->order, ++agg);
        } else if (!strcmp(u->qtype, "Target")) {
            NEAR(u->value, 1.0 + ++dt);   /* 2, 3, 4 */
            cr_expect_eq(u->order, dt);
        } else {
            NEAR(u->value, 0);            /* 1 - rank, clamped at 0 */
            cr_expect_eq(u->order, ++ds);
        }
    }
    cr_expect(agg == 3 && dt == 3 && ds == 3);
    /* DYNP targets are the most affected (6.11: DOR received from other queries), in order */
    for (size_t i = 0, k = 0; i < r.nrules; i++)
        if (!strcmp(r.rules[i].type, "DYNP") && !strcmp(r.rules[i].qtype, "Target"))
            cr_expect_eq(r.rules[i].unit, r.victims[k++].node);
    clarity_iqcar_result_free(&r);
}

/* Case 17: Qc on host X inside a window; Q7's tasks there wait more CPU at the same input. */
static double case17(bool with_qc, double *de_x_share, long *top_cpu_l6)
{
    struct iqcar_result r;
    fx_init(&r);
    size_t q7 = fx_unit(&r, "Q7"), qb = fx_unit(&r, "Qb");
    size_t s = fx_stage(&r, q7, "s"), b = fx_stage(&r, qb, "b");
    size_t x = fx_host(&r, "X"), y = fx_host(&r, "Y");
    for (int i = 0; i < 4; i++) {
        int64_t t0 = i * 10000;
        bool hit = with_qc && (i == 1 || i == 2);
        fx_task(&r, s, x, t0, t0 + 10000, IQ_S_CPU_WAITED, hit ? 4000 : 500, 1e8);
        fx_task(&r, s, y, t0, t0 + 10000, IQ_S_CPU_WAITED, 500, 1e8);
        fx_task(&r, b, x, t0, t0 + 10000, IQ_S_CPU_WAITED, hit ? 4000 : 500, 1e8);   /* Qc hurts it too */
        fx_task(&r, b, y, t0, t0 + 10000, IQ_S_CPU_WAITED, 500, 1e8);
    }
    if (with_qc) {
        size_t qc = fx_unit(&r, "Qc");
        size_t c = fx_stage(&r, qc, "c");
        fx_task(&r, c, x, 10000, 30000, IQ_S_CPU_WAITED, 0, 1e9);   /* CPU-bound, never waits */
    }
    cr_assert_eq(fx_run(&r), 0);
    double ie = 0, dx = 0, dall = 0;
    double *d = malloc(r.g.nnodes * sizeof *d);
    clarity_iqcar_graph_dor(&r.g, q7, d);
    for (size_t v = 0; v < r.g.nnodes; v++) {
        const struct iqcar_node *n = &r.g.nodes[v];
        if (n->level == 2 && n->target == (int)q7 && n->b == IQ_CPU) ie = n->vc;
        if (n->level == 3 && n->target == (int)q7 && n->b == IQ_S_CPU_WAITED) {
            dall += d[v];
            if (n->c == (int)x) dx += d[v];
        }
    }
    *de_x_share = dall > 0 ? dx / dall : 0;
    const struct iqcar_target_answer *t = &r.targets[q7];
    *top_cpu_l6 = t->nnoisy ? r.g.nodes[t->noisy[0].node].a : -1;
    free(d);
    clarity_iqcar_result_free(&r);
    return ie;
}

Test(iqcar_spec, c17_induced_contention)
{
    double sx0, sx1;
    long top0, top1;
    double ie0 = case17(false, &sx0, &top0), ie1 = case17(true, &sx1, &top1);
    cr_expect(ie1 > ie0, "CPU IE VC rises: %g -> %g", ie0, ie1);
    cr_expect(sx1 > 0.5, "DE(CPU, X) is the top CPU DE (share %g)", sx1);
    cr_expect_eq(top1, 2, "Qc is the top L6 node");
}

/* Case 18: removing Top1's tasks; Unknown absorbs its blame, others keep their DOR. */
static void case18(bool with_top1, double *dor_q2, bool *top1_present)
{
    struct iqcar_result r;
    fx_init(&r);
    size_t q0 = fx_unit(&r, "Q0"), q1 = fx_unit(&r, "Q1"), q2 = fx_unit(&r, "Q2"), q3 = fx_unit(&r, "Q3");
    size_t s0 = fx_stage(&r, q0, "s0"), s1 = fx_stage(&r, q1, "s1"), s2 = fx_stage(&r, q2, "s2");
    size_t s3 = fx_stage(&r, q3, "s3");
    size_t x = fx_host(&r, "X");
    fx_task(&r, s0, x, 0, 10000, IQ_S_NET, 1e4, 1e8);       /* RATP 1e-4 */
    if (with_top1) fx_task(&r, s1, x, 0, 10000, IQ_S_NET, 2e3, 1e8);   /* blame 5 */
    fx_task(&r, s2, x, 0, 10000, IQ_S_NET, 5e3, 1e8);       /* blame 2 */
    fx_task(&r, s3, x, 20000, 30000, IQ_S_NET, 1e3, 1e8);   /* sets RATP_h = 1e-5, no overlap */
    cr_assert_eq(fx_run(&r), 0);
    *dor_q2 = fx_dor(&r, q0, 6, IQ_K_NODE, (int)q2);
    *top1_present = fx_dor(&r, q0, 6, IQ_K_NODE, (int)q1) > 0;
    clarity_iqcar_result_free(&r);
}

Test(iqcar_spec, c18_source_elimination)
{
    double with, without;
    bool p1, p0;
    case18(true, &with, &p1);
    case18(false, &without, &p0);
    cr_expect(p1 && !p0, "Top1 disappears from L6");
    NEAR(with, 2.0 / 9.0);
    NEAR(without, with);
}

Test(iqcar_spec, c19_self_vs_others)
{
    for (int mode = IQ_SELF_NODE; mode <= IQ_SELF_UNKNOWN; mode++) {
        struct iqcar_result r;
        fx_init(&r);
        r.opt.self_mode = mode;
        size_t q0 = fx_unit(&r, "Q0");
        size_t a = fx_stage(&r, q0, "a"), b = fx_stage(&r, q0, "b");
        size_t x = fx_host(&r, "X");
        fx_task(&r, a, x, 0, 10000, IQ_S_NET, 4000, 1e8);
        fx_task(&r, b, x, 0, 10000, IQ_S_NET, 1000, 1e8);
        cr_assert_eq(fx_run(&r), 0);
        NEAR(fx_dor(&r, q0, 6, IQ_K_NODE, -1), 0);   /* no L6 node of the target query itself */
        NEAR(fx_be_vc(&r, a, IQ_S_NET, x, IQ_K_NODE, -1), 0);
        if (mode == IQ_SELF_NODE) {
            NEAR(fx_be_vc(&r, a, IQ_S_NET, x, IQ_K_SELF, -1), 4.0);
            cr_expect(fx_dor(&r, q0, 6, IQ_K_SELF, -1) > 0);
        } else {
            NEAR(fx_be_vc(&r, a, IQ_S_NET, x, IQ_K_SELF, -1), 0);
            /* 4 from the fellow stage plus Unknown's own 3 (S = 3) - 4, clamped at 0 */
            NEAR(fx_be_vc(&r, a, IQ_S_NET, x, IQ_K_UNKNOWN, -1), 4.0);
        }
        clarity_iqcar_result_free(&r);
    }
}

Test(iqcar_spec, c20_units_from_a_log)
{
    struct clarity_app *a;
    struct clarity_error err;
    cr_assert_eq(load_fixture("mini-3x.json", &a, &err), 0);
    struct iqcar_result r;
    memset(&r, 0, sizeof r);
    clarity_iqcar_options_default(&r.opt);
    clarity_iqcar_graph_init(&r.g);
    const struct clarity_app *apps[1] = {a};
    cr_assert_eq(clarity_iqcar_collect(apps, 1, &r, NULL), 0);
    cr_expect_eq(r.unit_kind, IQ_UNIT_SQL);
    cr_expect(r.ntasks > 0);
    size_t checked = 0;
    for (size_t i = 0, row = 0; row < a->tasks.n; row++) {
        int64_t fl = clarity_task_flags(a, row);
        if (!(fl & CLARITY_TF_ENDED) || !(fl & CLARITY_TF_HAS_METRICS)) continue;
        struct iqcar_task task, *t = &task;
        clarity_iqcar_task(&r, i++, t);
        /* Shuffle Write Time is ns: 1e6 ns counts as 1 ms; fetch wait is already ms */
        NEAR(t->wait[IQ_S_IO_WRITE], clarity_task_metric(a, row, CLARITY_TM_SW_TIME_NS) / 1e6);
        NEAR(t->wait[IQ_S_NET], (double)clarity_task_metric(a, row, CLARITY_TM_SR_FETCH_WAIT_MS));
        /* CPU time (ns) is only the L1 weight */
        if (clarity_task_metric(a, row, CLARITY_TM_CPU_NS) > 0)
            NEAR(t->weight, (double)clarity_task_metric(a, row, CLARITY_TM_CPU_NS));
        checked++;
    }
    cr_expect(checked > 0);
    struct iqcar_task u = {0};
    u.wait[IQ_S_IO_WRITE] = 1000000 / 1e6;
    u.data[IQ_S_IO_WRITE] = 1000;
    clarity_iqcar_task_ratps(&u, &r.src);
    NEAR(u.ratp[IQ_S_IO_WRITE], 1e-3);
    clarity_iqcar_result_free(&r);
    clarity_app_free(a);
}

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8 & 0xffff;
}

/* Invariants on a full build with many tasks: IFs into each node sum to 1 (or 0), and the
 * DOR of every level sums to 1 per target when no DOR is lost to a zero-VC dead end. */
Test(iqcar_invariants, full_build)
{
    struct iqcar_result r;
    fx_init(&r);
    size_t h[3] = {fx_host(&r, "A"), fx_host(&r, "B"), fx_host(&r, "C")};
    unsigned seed = 7;
#define RND() rnd(&seed)
    char nm[16];
    for (int q = 0; q < 6; q++) {
        snprintf(nm, sizeof nm, "Q%d", q);
        size_t u = fx_unit(&r, nm);
        for (int s = 0; s < 2; s++) {
            size_t st = fx_stage(&r, u, nm);
            for (int k = 0; k < 20; k++) {
                int64_t t0 = (int64_t)(RND() % 50000);
                struct iqcar_task *t = fx_task(&r, st, h[RND() % 3], t0, t0 + 1000 + RND() % 20000, IQ_S_NET,
                                               1 + RND() % 3000, 1e6 + RND() * 1000.0);
                t->submit = t0 - (int64_t)(RND() % 3000);
                t->wait[IQ_S_SLOTS] = (double)(t->launch - t->submit) + 1;
                t->wait[IQ_S_IO_READ] = 1 + RND() % 2000, t->data[IQ_S_IO_READ] = 1e6 + RND() * 500.0;
                t->wait[IQ_S_CPU_BLOCKED] = 1 + RND() % 500, t->data[IQ_S_CPU_BLOCKED] = t->data[IQ_S_IO_READ];
            }
        }
    }
#undef RND
    cr_assert_eq(fx_run(&r), 0);
    for (size_t v = 0; v < r.g.nnodes; v++) {
        double s = clarity_iqcar_in_if_sum(&r.g, (uint32_t)v);
        cr_expect(s == 0 || fabs(s - 1) < 1e-9, "node %zu IFs in: %.15g", v, s);
    }
    double *d = malloc(r.g.nnodes * sizeof *d);
    for (size_t t = 0; t < r.nunits; t++) {
        clarity_iqcar_graph_dor(&r.g, t, d);
        double lv[7] = {0};
        for (size_t v = 0; v < r.g.nnodes; v++) lv[r.g.nodes[v].level] += d[v];
        for (int l = 0; l < 7; l++) cr_expect(fabs(lv[l] - 1) < 1e-9, "target %zu level %d: %.15g", t, l, lv[l]);
    }
    free(d);
    clarity_iqcar_result_free(&r);
}

/* The simple-overlap baseline counts the same target tasks as iQCAR: with --successful-only a failed
 * target attempt that alone overlapped Q3 gives Q3 no baseline share; Q2 overlaps the
 * successful one for half its time (0.5 / 0.5 = share 1). Without the option Q3 gets 1.0 of
 * the failed attempt's overlap against Q2's 0.5: shares 1/3 and 2/3. */
static void baseline_targets(bool successful_only, double *q2, double *q3)
{
    struct iqcar_result r;
    fx_init(&r);
    r.opt.successful_only = successful_only;
    size_t q1 = fx_unit(&r, "Q1"), u2 = fx_unit(&r, "Q2"), u3 = fx_unit(&r, "Q3");
    size_t a = fx_stage(&r, q1, "a"), b = fx_stage(&r, u2, "b"), c = fx_stage(&r, u3, "c");
    size_t x = fx_host(&r, "X");
    fx_task(&r, a, x, 0, 10000, IQ_S_IO_READ, 4000, 1e8);
    fx_task(&r, a, x, 20000, 30000, IQ_S_IO_READ, 4000, 1e8)->ok = false;
    fx_task(&r, b, x, 5000, 15000, IQ_S_IO_READ, 1000, 1e8);
    fx_task(&r, c, x, 20000, 30000, IQ_S_IO_READ, 1000, 1e8);
    cr_assert_eq(fx_run(&r), 0);
    *q2 = *q3 = 0;
    const struct iqcar_target_answer *t = &r.targets[q1];
    for (size_t i = 0; i < t->noverlap; i++) {
        if (t->overlap[i].node == u2) *q2 = t->overlap[i].dor;
        if (t->overlap[i].node == u3) *q3 = t->overlap[i].dor;
    }
    clarity_iqcar_result_free(&r);
}

Test(iqcar_spec, c15_baseline_same_targets)
{
    double q2, q3;
    baseline_targets(true, &q2, &q3);
    NEAR(q2, 1.0);
    NEAR(q3, 0.0);
    baseline_targets(false, &q2, &q3);
    NEAR(q2, 1.0 / 3);
    NEAR(q3, 2.0 / 3);
}

/* Slot blame, held (default) against the original own-wait rule. tt waits [100000,110000) for a slot: SWT 10000 over 5 offers, RATP 2000
 * ms/slot, the host's smallest (RATP_h). A holds a slot for the whole wait and launched at
 * once (RATP 0, floored at RATP_h); B holds one for the second half after queueing 20000 ms
 * over 2 offers (RATP 10000). Held (default): each holder counts alike, blames 1.0 and
 * 0.5 x 2000/2000 = 0.5. --slot-blame=wait (6.6 literally): B's own queueing divides its
 * blame, 0.5 x 2000/10000 = 0.1. */
static void slot_case(bool wait_mode, double *a, double *b)
{
    struct iqcar_result r;
    fx_init(&r);
    r.opt.slot_blame_wait = wait_mode;
    size_t s0 = fx_stage(&r, fx_unit(&r, "Q0"), "s0"), sa = fx_stage(&r, fx_unit(&r, "Q1"), "a"),
           sb = fx_stage(&r, fx_unit(&r, "Q2"), "b");
    size_t x = fx_host(&r, "X");
    struct iqcar_task *t = fx_task(&r, s0, x, 110000, 112000, IQ_S_SLOTS, 10000, 5);
    t->submit = 100000;
    fx_task(&r, sa, x, 100000, 110000, IQ_S_SLOTS, 0, 1);
    t = fx_task(&r, sb, x, 105000, 115000, IQ_S_SLOTS, 20000, 2);
    t->submit = 85000;
    cr_assert_eq(fx_run(&r), 0);
    *a = fx_be_vc(&r, s0, IQ_S_SLOTS, x, IQ_K_NODE, (int)sa);
    *b = fx_be_vc(&r, s0, IQ_S_SLOTS, x, IQ_K_NODE, (int)sb);
    NEAR(fx_be_vc(&r, s0, IQ_S_SLOTS, x, IQ_K_UNKNOWN, -1), 0.0);   /* S = (2000 - 2000) / 2000 */
    clarity_iqcar_result_free(&r);
}

Test(iqcar_spec, c06_slot_blame_held_vs_wait)
{
    double a, b;
    slot_case(false, &a, &b);
    NEAR(a, 1.0);
    NEAR(b, 0.5);
    slot_case(true, &a, &b);
    NEAR(a, 1.0);
    NEAR(b, 0.1);
}
