/* The aggressive-query answer on a worked case: the paper's total DOR against the victims'
 * runtime attributed (DOR x victim runtime, summed), and the rules that follow the ranking.
 *
 * Host X: victim L waits 2000 ms for 1e8 bytes of IO (RATP 2e-5, the host's only positive
 * RATP, so RATP_h) for 600 s while A's task, which never waits (RATP 0, floored at RATP_h),
 * runs beside it the whole time: blame 1 x 2e-5 / 2e-5 = 1, Unknown max(0, 0 - 1) = 0, so
 * DOR(A -> L) = 1. Host Y: victims S1 and S2, 10 s each at the same RATP, each beside one task
 * of B that never waits: DOR(B -> S1) = DOR(B -> S2) = 1. A and B never wait, so nobody
 * slows them. Total DOR: B 2, A 1 (B first, for two 10 s slowdowns). Victim time: A 1 x 600 s
 * = 600000 ms, B 2 x 10 s = 20000 ms (A first). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include "clarity/contention.h"
#include "iqcar_fixture.h"

#define NEAR(a, b) cr_expect(fabs((a) - (b)) < 1e-9, "%s = %.15g, want %.15g", #a, (double)(a), (double)(b))

static void long_vs_short(struct iqcar_result *r, bool by_dor, int64_t long_ms, size_t *a, size_t *b)
{
    fx_init(r);
    r->opt.aggressive_by_dor = by_dor;
    r->opt.aggressive_by_time = !by_dor;   /* the DOR rankings: the replay's answer is test_iqcar_replay.c's */
    size_t l = fx_unit(r, "L"), s1 = fx_unit(r, "S1"), s2 = fx_unit(r, "S2");
    *a = fx_unit(r, "A"), *b = fx_unit(r, "B");
    size_t sl = fx_stage(r, l, "l"), ss1 = fx_stage(r, s1, "s1"), ss2 = fx_stage(r, s2, "s2");
    size_t sa = fx_stage(r, *a, "a"), sb = fx_stage(r, *b, "b");
    size_t x = fx_host(r, "X"), y = fx_host(r, "Y");
    fx_task(r, sl, x, 0, long_ms, IQ_S_IO_READ, 2000, 1e8);
    fx_task(r, sa, x, 0, long_ms, IQ_S_IO_READ, 0, 1e8);
    fx_task(r, ss1, y, 0, 10000, IQ_S_IO_READ, 2000, 1e8);
    fx_task(r, ss2, y, 20000, 30000, IQ_S_IO_READ, 2000, 1e8);
    fx_task(r, sb, y, 0, 10000, IQ_S_IO_READ, 0, 1e8);
    fx_task(r, sb, y, 20000, 30000, IQ_S_IO_READ, 0, 1e8);
    cr_assert_eq(fx_run(r), 0);
}

Test(iqcar_aggressive, c23_victim_time_ranks_the_long_victims_culprit_first)
{
    struct iqcar_result r;
    size_t a, b;
    long_vs_short(&r, false, 600000, &a, &b);
    NEAR(clarity_iqcar_l6_dor(&r, a, 0), 1.0);   /* A -> L */
    NEAR(clarity_iqcar_l6_dor(&r, b, 1), 1.0);   /* B -> S1 */
    NEAR(clarity_iqcar_l6_dor(&r, b, 2), 1.0);   /* B -> S2 */
    cr_expect_eq(r.victims[0].node, 0u, "L, S1, S2 each receive DOR 1; ties by unit order");
    cr_assert_eq(r.naggressive, 2u);
    cr_assert_eq(r.naggressive_time, 2u);
    /* the paper's total DOR: B (two short victims) first */
    cr_expect_eq(r.aggressive[0].node, b);
    NEAR(r.aggressive[0].dor, 2.0);
    NEAR(r.aggressive[0].aux, 20000.0);
    cr_expect_eq(r.aggressive[1].node, a);
    NEAR(r.aggressive[1].dor, 1.0);
    NEAR(r.aggressive[1].aux, 600000.0);
    /* the victims' runtime attributed: A (one 600 s victim) first */
    cr_expect_eq(r.aggressive_time[0].node, a);
    NEAR(r.aggressive_time[0].dor, 600000.0);
    NEAR(r.aggressive_time[0].aux, 1.0);
    cr_expect_eq(r.aggressive_time[1].node, b);
    NEAR(r.aggressive_time[1].dor, 20000.0);
    NEAR(r.aggressive_time[1].aux, 2.0);
    /* the answer (and the rules) use the victim-time ranking with --aggressive-rank=time */
    cr_expect(r.aggressive_rank == r.aggressive_time && r.naggressive_rank == 2);
    cr_expect(!strcmp(r.rules[0].type, "AGG") && r.rules[0].unit == a, "AGG rule 1 isolates A");
    cr_expect(!r.aggressive_close, "20000 ms is 3%% of 600000 ms: a clear answer");
    /* the heaviest-query baseline beside it: task time, L and A 600 s each (ties by unit), B 20 s */
    cr_assert_eq(r.nheaviest, 5u);
    cr_expect(r.heaviest[0].node == 0 && r.heaviest[1].node == a && r.heaviest[2].node == b);
    NEAR(r.heaviest[1].dor, 600000.0);
    NEAR(r.heaviest[2].dor, 20000.0);
    clarity_iqcar_result_free(&r);
}

/* With L running 15 s, A gets 15000 ms and B 20000 ms: B first, and A has 0.75 of B's figure,
 * IQ_AGG_CLOSE exactly, so the answer says it is a close call; at 14.9 s it does not. */
Test(iqcar_aggressive, c23_close_call)
{
    struct iqcar_result r;
    size_t a, b;
    long_vs_short(&r, false, 15000, &a, &b);
    cr_expect_eq(r.aggressive_time[0].node, b);
    NEAR(r.aggressive_time[0].dor, 20000.0);
    NEAR(r.aggressive_time[1].dor, 15000.0);
    cr_expect(r.aggressive_close);
    clarity_iqcar_result_free(&r);
    long_vs_short(&r, false, 14900, &a, &b);
    cr_expect(!r.aggressive_close);
    clarity_iqcar_result_free(&r);
}

Test(iqcar_aggressive, c23_aggressive_rank_dor_keeps_the_papers_order)
{
    struct iqcar_result r;
    size_t a, b;
    long_vs_short(&r, true, 600000, &a, &b);
    cr_expect(r.aggressive_rank == r.aggressive && r.naggressive_rank == 2);
    cr_expect_eq(r.aggressive_rank[0].node, b);
    cr_expect(!strcmp(r.rules[0].type, "AGG") && r.rules[0].unit == b, "AGG rule 1 isolates B");
    cr_expect(!r.aggressive_close, "total DOR 1 against 2: clear");
    /* the figures do not depend on the order chosen */
    cr_expect_eq(r.aggressive_time[0].node, a);
    NEAR(r.aggressive_time[0].dor, 600000.0);
    clarity_iqcar_result_free(&r);
}
