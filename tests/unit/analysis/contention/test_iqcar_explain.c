/* The answers list the victims only; clarity_iqcar_explain lists any other target on demand, with
 * the same figures a full walk gives; the slow-host DOR sums read the DOR the walk keeps for the
 * nodes of levels 0-4 (keep_low) and equal the dense per-target DOR summed over the DE nodes. */
#include <criterion/criterion.h>
#include <math.h>
#include "clarity/contention.h"
#include "iqcar_fixture.h"

#define NEAR(a, b) cr_expect(fabs((a) - (b)) < 1e-12, "%s = %.15g, want %.15g", #a, (double)(a), (double)(b))

/* Q0 [1000,11000) overlaps Q1's two tasks on X (Q0 a victim of Q1, as in case 6); Q2 runs alone
 * on X later, with a network wait of its own: Unknown only, no DOR from other queries. */
static void build(struct iqcar_result *r, size_t *q0, size_t *q2)
{
    fx_init(r);
    *q0 = fx_unit(r, "Q0");
    size_t q1 = fx_unit(r, "Q1");
    *q2 = fx_unit(r, "Q2");
    size_t s1 = fx_stage(r, *q0, "s1"), r3 = fx_stage(r, q1, "r3"), s9 = fx_stage(r, *q2, "s9");
    size_t x = fx_host(r, "X"), y = fx_host(r, "Y");
    fx_task(r, s1, x, 1000, 11000, IQ_S_NET, 2000, 1e8);
    fx_task(r, r3, x, 3000, 8000, IQ_S_NET, 500, 1e8);
    fx_task(r, r3, x, 9000, 13000, IQ_S_NET, 4000, 1e8);
    fx_task(r, s9, x, 20000, 30000, IQ_S_NET, 3000, 1e8);
    fx_task(r, s9, y, 20000, 30000, IQ_S_NET, 1000, 1e8);
    for (size_t i = 0; i < r->ntasks; i++) clarity_iqcar_task_ratps(&r->tasks[i], &r->src);
    r->src.tasks = r->ntasks;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_iqcar_build(r, &err), 0);
    cr_assert_eq(clarity_iqcar_answers(r, &err), 0);
}

Test(iqcar_explain, victims_listed_others_on_demand)
{
    struct iqcar_result r;
    size_t q0, q2;
    build(&r, &q0, &q2);
    const struct iqcar_target_answer *v = &r.targets[q0], *o = &r.targets[q2];
    cr_assert(v->dor_others > 0 && v->listed && v->nnoisy == 1, "Q0 is Q1's victim, listed");
    cr_assert(o->dor_others == 0 && !o->listed && o->ntop[2] == 0 && !o->top[2], "Q2 no victim: no lists yet");
    const struct iqcar_ranked *v2 = v->top[2];
    double v2dor = v2[0].dor;
    struct clarity_error err = {0};
    long t = (long)q2;
    cr_assert_eq(clarity_iqcar_explain(&r, &t, 1, &err), 0);
    cr_assert(o->listed && o->ntop[2] == 1 && o->ntop[3] == 2 && o->nnoisy == 0, "Q2: NETWORK, its DE on X and Y");
    /* the figures are the dense DOR toward Q2 (Algorithm 2 over every edge) */
    double *d = malloc(r.g.nnodes * sizeof *d);
    clarity_iqcar_graph_dor(&r.g, q2, d);
    for (int l = 2; l <= 6; l++)
        for (size_t i = 0; i < o->ntop[l]; i++) {
            cr_expect_eq(r.g.nodes[o->top[l][i].node].level, (unsigned)l);
            NEAR(o->top[l][i].dor, d[o->top[l][i].node]);
            if (i) cr_expect(o->top[l][i - 1].dor >= o->top[l][i].dor, "level %d best first", l);
        }
    NEAR(o->top[2][0].dor, 1.0);   /* all of Q2's slowdown is NETWORK's */
    NEAR(o->top[3][0].dor + o->top[3][1].dor, 1.0);
    cr_expect(v->top[2] == v2 && v->top[2][0].dor == v2dor, "the victim's lists stay put");
    size_t nextra = r.nextra_lists;
    cr_assert_eq(clarity_iqcar_explain(&r, &t, 1, &err), 0);
    cr_expect_eq(r.nextra_lists, nextra, "listed once");
    free(d);
    clarity_iqcar_result_free(&r);
}

Test(iqcar_explain, host_dor_sums_from_the_kept_walk)
{
    struct iqcar_result r;
    size_t q0, q2;
    build(&r, &q0, &q2);
    /* dense: each DE node's DOR toward its own target, summed per host in node order */
    double want[2] = {0, 0}, *d = malloc(r.g.nnodes * sizeof *d);
    for (size_t t = 0; t < r.nunits; t++) {
        clarity_iqcar_graph_dor(&r.g, t, d);
        for (size_t v = 0; v < r.g.nnodes; v++)
            if (r.g.nodes[v].level == 3 && r.g.nodes[v].target == (int)t) want[r.g.nodes[v].c] += d[v];
    }
    cr_assert(want[0] > 0 && want[1] > 0, "both hosts carry DOR");
    NEAR(r.host_score[0].dor_sum, want[0]);
    NEAR(r.host_score[1].dor_sum, want[1]);
    free(d);
    clarity_iqcar_result_free(&r);
}
