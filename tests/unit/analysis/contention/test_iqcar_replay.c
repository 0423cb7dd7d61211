/* The [replay] answers on a worked case, and the workload replay under them
 * (src/sim/workload_replay.c).
 *
 * Two slots, FIFO (job order = unit order here: the hand-built table has no jobs, so stage
 * ids decide). E (early, scan-heavy) arrives at 0 with four 10 s tasks, H (the holder) at 1 s
 * with two 25 s tasks, V (the victim) at 2 s with one 5 s task. As logged (and replayed):
 * E's tasks run 0-10 and 10-20, H's 20-45, V's 45-50.
 *   without E: H runs 1-26, V 26-31: V ends 19 s sooner, H 19 s sooner: 38 s saved in all;
 *   without H: E as before, V runs 20-25: V ends 25 s sooner: 25 s saved;
 *   without V: nothing moves.
 * So the aggregate answer names E (38 s; H has 25/38 = 0.66 of it: not a close call), though
 * V's own first culprit is H (25 s against E's 19 s): H held the slots while V waited, but E
 * had delayed H. The DOR blames only the holder. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include "clarity/contention.h"
#include "iqcar_fixture.h"
#include "sim/workload_replay.h"

#define NEAR(a, b) cr_expect(fabs((a) - (b)) < 1e-9, "%s = %.15g, want %.15g", #a, (double)(a), (double)(b))

static void early_holder_victim(struct iqcar_result *r, size_t *e, size_t *h, size_t *v, bool by_time, int cand)
{
    fx_init(r);
    r->opt.aggressive_by_time = by_time;
    if (cand >= 0) r->opt.replay_candidates = cand;
    *e = fx_unit(r, "E"), *h = fx_unit(r, "H"), *v = fx_unit(r, "V");
    size_t se = fx_stage(r, *e, "e"), sh = fx_stage(r, *h, "h"), sv = fx_stage(r, *v, "v");
    size_t x = fx_host(r, "X");
    struct iqcar_task *t;
    fx_task(r, se, x, 0, 10000, IQ_S_IO_READ, 0, 1e8);
    fx_task(r, se, x, 0, 10000, IQ_S_IO_READ, 0, 1e8);
    fx_task(r, se, x, 10000, 20000, IQ_S_IO_READ, 0, 1e8);
    fx_task(r, se, x, 10000, 20000, IQ_S_IO_READ, 0, 1e8);
    for (int k = 0; k < 2; k++) {
        t = fx_task(r, sh, x, 20000, 45000, IQ_S_IO_READ, 0, 1e8);
        t->submit = 1000;   /* waited for a slot from its arrival */
        r->units[*h].start = 1000;
    }
    t = fx_task(r, sv, x, 45000, 50000, IQ_S_IO_READ, 0, 1e8);
    t->submit = 2000;
    r->units[*v].start = 2000;
    for (size_t i = 0; i < r->ntasks; i++) {   /* what the sweep reads for the slot wait */
        r->tasks[i].wait[IQ_S_SLOTS] = (double)(r->tasks[i].launch - r->tasks[i].submit);
    }
    cr_assert_eq(fx_run(r), 0);
}

Test(iqcar_replay, c24_the_query_that_delayed_the_holder)
{
    struct iqcar_result r;
    size_t e, h, v;
    early_holder_victim(&r, &e, &h, &v, false, -1);
    cr_assert(r.replay.ran);
    cr_expect_eq(r.replay.slots, 2, "peak concurrency: the hand-built table has no executors");
    cr_expect(!r.replay.fair);
    cr_expect_eq(r.replay.candidates, 3u);
    NEAR(r.replay.fidelity, 0.0);   /* the log is exactly what list scheduling does */
    cr_assert_eq(r.naggressive_replay, 2u, "V's removal saves nothing: not listed");
    cr_expect_eq(r.aggressive_replay[0].node, e);
    NEAR(r.aggressive_replay[0].dor, 38000.0);
    NEAR(r.aggressive_replay[0].aux, 2.0);   /* H and V end sooner */
    cr_expect_eq(r.aggressive_replay[1].node, h);
    NEAR(r.aggressive_replay[1].dor, 25000.0);
    cr_expect(r.aggressive_method == IQ_AGG_REPLAY && r.aggressive_rank == r.aggressive_replay, "the replay answers");
    cr_expect(!r.aggressive_close, "25/38 = 0.66 < 0.75");
    cr_expect(!strcmp(r.rules[0].type, "AGG") && r.rules[0].unit == e, "AGG rule 1 isolates E");
    /* per victim: V's culprits, H first */
    const struct iqcar_target_answer *a = &r.targets[v];
    cr_assert_eq(a->nreplay, 2u);
    cr_expect_eq(a->replay[0].node, h);
    NEAR(a->replay[0].dor, 25000.0);
    NEAR(a->replay[0].aux, 25000.0 / 48000.0);   /* of its replayed runtime, 2 s to 50 s */
    cr_expect_eq(a->replay[1].node, e);
    NEAR(a->replay[1].dor, 19000.0);
    cr_assert_eq(r.targets[h].nreplay, 1u);
    NEAR(r.targets[h].replay[0].dor, 19000.0);
    cr_expect_eq(r.targets[e].nreplay, 0u, "nobody delays E");
    clarity_iqcar_result_free(&r);
}

Test(iqcar_replay, c24_rank_options_and_off)
{
    struct iqcar_result r;
    size_t e, h, v;
    /* --aggressive-rank=time: the victim-time ranking answers; the replay figures stay */
    early_holder_victim(&r, &e, &h, &v, true, -1);
    cr_expect(r.aggressive_method == IQ_AGG_TIME && r.aggressive_rank == r.aggressive_time);
    cr_expect(r.replay.ran && r.naggressive_replay == 2);
    clarity_iqcar_result_free(&r);
    /* --replay-candidates 1: only the heaviest (E, 40 task-s) and the most blamed are left out */
    early_holder_victim(&r, &e, &h, &v, false, 1);
    cr_expect(r.replay.ran && r.replay.candidates <= 2 && r.replay.candidates >= 1);
    cr_expect_eq(r.aggressive_replay[0].node, e);
    clarity_iqcar_result_free(&r);
    /* --replay-candidates 0: no replay, said, and the victim-time ranking answers */
    early_holder_victim(&r, &e, &h, &v, false, 0);
    cr_expect(!r.replay.ran && r.replay.why && strstr(r.replay.why, "off"));
    cr_expect(r.aggressive_method == IQ_AGG_TIME && r.naggressive_replay == 0 && r.targets[v].nreplay == 0);
    clarity_iqcar_result_free(&r);
}

/* The kernel alone: a gap after a predecessor, and FIFO against FAIR. One slot. Query A (job
 * 1, pool 0): stage 0 (one 4 s task), then stage 1 submitted 1 s after stage 0 ended (one 2 s
 * task). Query B (job 0, pool 1): stage 2 at 0 s with two 3 s tasks.
 *   FIFO (job 0 first): B 0-3, 3-6, A0 6-10, A1 submitted at 11, runs 11-13: A ends 13, B 6.
 *   FAIR: at 0 both pools run nothing: pool 0 (A) first, A0 0-4; at 4 only B is ready, 4-7; at
 *   7 A1 (submitted 5) and B are ready, both pools run nothing: A1 7-9, then B 9-12.
 *   FIFO without B: A0 0-4, A1 5-7. */
Test(iqcar_replay, workload_kernel_gap_and_fair)
{
    struct clarity_wl_stage st[3] = {
        {.unit = 0, .pool = 0, .job_id = 1, .stage_id = 0, .submit_ms = 0, .end_ms = 4000, .pred = CLARITY_WL_NONE, .first = 0, .ntasks = 1},
        {.unit = 0, .pool = 0, .job_id = 1, .stage_id = 1, .submit_ms = 5000, .end_ms = 7000, .pred = 0, .first = 1, .ntasks = 1},
        {.unit = 1, .pool = 1, .job_id = 0, .stage_id = 2, .submit_ms = 0, .end_ms = 6000, .pred = CLARITY_WL_NONE, .first = 2, .ntasks = 2}};
    double run[4] = {4000, 2000, 3000, 3000}, end[2];
    struct clarity_wl w = {.st = st, .nst = 3, .run_ms = run, .ntasks = 4, .nunits = 2, .npools = 2, .slots = 1, .fair = false};
    struct clarity_wl_run sc;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_wl_run_init(&sc, &w, &err), 0);
    clarity_wl_replay(&w, &sc, CLARITY_WL_NONE, end);
    NEAR(end[0], 13000.0);
    NEAR(end[1], 6000.0);
    clarity_wl_replay(&w, &sc, 1, end);
    NEAR(end[0], 7000.0);
    cr_expect(isinf(end[1]) && end[1] < 0, "the omitted query has no end");
    clarity_wl_run_free(&sc);
    w.fair = true;
    cr_assert_eq(clarity_wl_run_init(&sc, &w, &err), 0);
    clarity_wl_replay(&w, &sc, CLARITY_WL_NONE, end);
    NEAR(end[0], 9000.0);
    NEAR(end[1], 12000.0);
    clarity_wl_run_free(&sc);
}

/* Queries that never shared the slots (one after another, as in a log of sequential jobs):
 * no removal saves anything, so the replay's answer is empty rather than naming a query. */
Test(iqcar_replay, c24_sequential_queries_name_nobody)
{
    struct iqcar_result r;
    fx_init(&r);
    size_t a = fx_unit(&r, "A"), b = fx_unit(&r, "B");
    size_t sa = fx_stage(&r, a, "a"), sb = fx_stage(&r, b, "b");
    size_t x = fx_host(&r, "X");
    fx_task(&r, sa, x, 0, 10000, IQ_S_IO_READ, 0, 1e8);
    fx_task(&r, sb, x, 20000, 30000, IQ_S_IO_READ, 0, 1e8);
    cr_assert_eq(fx_run(&r), 0);
    cr_expect(r.replay.ran);
    cr_expect_eq(r.naggressive_replay, 0u);
    cr_expect(r.aggressive_method == IQ_AGG_REPLAY && r.naggressive_rank == 0 && !r.aggressive_close);
    for (size_t i = 0; i < r.nrules; i++) cr_expect(strcmp(r.rules[i].type, "AGG"), "no AGG rule");
    cr_expect(r.targets[a].nreplay == 0 && r.targets[b].nreplay == 0);
    clarity_iqcar_result_free(&r);
}
