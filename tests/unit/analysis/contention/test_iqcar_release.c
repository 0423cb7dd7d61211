/* The contention command gives the model back in steps (clarity_app_release after
 * clarity_iqcar_prepare, the whole model after clarity_iqcar_detach): the answers must be those of
 * clarity_iqcar_analyze on a model kept whole, and a released part must be gone (NULL, its
 * count kept) rather than readable. Fixture: spark-3.1-app-20200706201101-0003.json by job
 * (3 jobs, 48 tasks, one host, 16 executor cores: the replay runs on 16 slots, read from the
 * executors before they are released). */
#include <criterion/criterion.h>
#include <string.h>
#include "clarity/contention.h"
#include "../../model/load_helpers.h"

static const char *FX = "spark-3.1-app-20200706201101-0003.json";

static void opts(struct iqcar_options *o)
{
    clarity_iqcar_options_default(o);
    o->unit = IQ_UNIT_JOB;
}

static void expect_same_ranked(const struct iqcar_ranked *a, const struct iqcar_ranked *b, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        cr_expect_eq(a[i].node, b[i].node, "%s[%zu].node", what, i);
        cr_expect(a[i].dor == b[i].dor && a[i].aux == b[i].aux, "%s[%zu]: %.17g/%.17g, want %.17g/%.17g", what, i,
                  b[i].dor, b[i].aux, a[i].dor, a[i].aux);
    }
}

Test(iqcar_release, stepwise_release_answers_as_the_whole_model)
{
    struct clarity_app *whole = NULL, *part = NULL;
    struct clarity_error err = {0};
    cr_assert_eq(load_fixture(FX, &whole, &err), 0, "%s", err.msg);
    cr_assert_eq(load_fixture(FX, &part, &err), 0, "%s", err.msg);
    struct iqcar_options o;
    opts(&o);
    struct iqcar_result a, b;
    const struct clarity_app *wa[1] = {whole}, *pa[1] = {part};
    cr_assert_eq(clarity_iqcar_analyze(wa, 1, &o, &a, &err), 0, "%s", err.msg);

    cr_assert_eq(clarity_iqcar_prepare(pa, 1, &o, &b, &err), 0, "%s", err.msg);
    size_t njobs = part->njobs, ntasks = part->tasks.n;
    clarity_app_release(part, CLARITY_IQCAR_RELEASABLE);
    cr_expect_null(part->jobs);
    cr_expect_null(part->sqls);
    cr_expect_null(part->stage_accums.p);
    cr_expect_eq(part->njobs, njobs, "counts stay: a reader that indexes faults");
    cr_expect_eq(part->released, (unsigned)CLARITY_IQCAR_RELEASABLE);
    cr_assert_eq(clarity_iqcar_build(&b, &err), 0, "%s", err.msg);
    cr_assert_eq(clarity_iqcar_detach(&b, &err), 0, "%s", err.msg);
    cr_expect_null(b.tab, "the task table is freed: nothing later recomputes a task");
    clarity_app_release(part, CLARITY_APP_TASKS | CLARITY_APP_STAGES);   /* nothing is read past detach */
    cr_expect_null(part->stages);
    cr_expect_null(part->tasks.stage.data);
    cr_expect_eq(part->tasks.stage.width, 1, "a released column faults (width 0 would read zeros)");
    cr_expect_eq(part->tasks.n, ntasks);
    clarity_app_release(part, CLARITY_APP_TASKS | CLARITY_APP_STAGES);   /* again: nothing left to free */
    cr_assert_eq(clarity_iqcar_answers(&b, &err), 0, "%s", err.msg);

    cr_assert(a.replay.ran, "%s", a.replay.why ? a.replay.why : "");
    cr_expect(b.replay.ran);
    cr_expect_eq(a.replay.slots, 16);
    cr_expect_eq(b.replay.slots, 16, "slots from the executors, read before the release");
    cr_expect_eq(b.replay.candidates, a.replay.candidates);
    cr_expect(b.replay.fidelity == a.replay.fidelity);
    cr_assert_eq(b.nunits, 3u);
    cr_assert_eq(b.naggressive_replay, a.naggressive_replay);
    expect_same_ranked(a.aggressive_replay, b.aggressive_replay, a.naggressive_replay, "aggressive_replay");
    cr_assert_eq(b.nvictims, a.nvictims);
    expect_same_ranked(a.victims, b.victims, a.nvictims, "victims");
    cr_assert_eq(b.naggressive, a.naggressive);
    expect_same_ranked(a.aggressive, b.aggressive, a.naggressive, "aggressive");
    for (size_t t = 0; t < a.nunits; t++) {
        cr_expect(a.targets[t].dor_others == b.targets[t].dor_others, "target %zu", t);
        cr_expect_eq(a.targets[t].nreplay, b.targets[t].nreplay, "target %zu", t);
        expect_same_ranked(a.targets[t].replay, b.targets[t].replay, a.targets[t].nreplay, "replay list");
    }
    for (size_t h = 0; h < a.nhosts; h++)
        cr_expect(a.host_score[h].if_sum == b.host_score[h].if_sum && a.host_score[h].dor_sum == b.host_score[h].dor_sum);
    clarity_iqcar_result_free(&a);
    clarity_iqcar_result_free(&b);
    clarity_app_free(whole);
    clarity_app_free(part);   /* a released model frees what is left, once */
}
