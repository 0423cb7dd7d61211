/* Blocked-time analysis on whole logs: the own fixture and the edge cases (failed,
 * speculative and unfinished attempts, stages without tasks, a job with no task). */
#include <criterion/criterion.h>
#include <math.h>
#include "../../model/load_helpers.h"
#include "clarity/blocked.h"
#include "clarity/stragglers.h"

#define APP "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"t\",\"App ID\":\"a-1\",\"Timestamp\":900,\"User\":\"u\"}\n"
#define JOB0 "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Submission Time\":950,\"Stage IDs\":[0,1],\"Properties\":{}}\n"
#define JOB1 "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":1,\"Submission Time\":5000,\"Stage IDs\":[1],\"Properties\":{}}\n"
#define START(id, idx, att, launch, spec) "{\"Event\":\"SparkListenerTaskStart\",\"Stage ID\":0,\"Stage Attempt ID\":0," \
    "\"Task Info\":{\"Task ID\":" #id ",\"Index\":" #idx ",\"Attempt\":" #att ",\"Launch Time\":" #launch "," \
    "\"Executor ID\":\"1\",\"Host\":\"h\",\"Locality\":\"ANY\",\"Speculative\":" #spec ",\"Getting Result Time\":0," \
    "\"Finish Time\":0,\"Failed\":false,\"Killed\":false}}\n"
#define END(id, idx, att, launch, finish, reason, spec, input) "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0," \
    "\"Stage Attempt ID\":0,\"Task Type\":\"ResultTask\",\"Task End Reason\":{\"Reason\":\"" reason "\"}," \
    "\"Task Info\":{\"Task ID\":" #id ",\"Index\":" #idx ",\"Attempt\":" #att ",\"Launch Time\":" #launch "," \
    "\"Executor ID\":\"1\",\"Host\":\"h\",\"Locality\":\"ANY\",\"Speculative\":" #spec ",\"Getting Result Time\":0," \
    "\"Finish Time\":" #finish ",\"Failed\":false,\"Killed\":false},\"Task Metrics\":{\"Executor Run Time\":" \
    "90,\"JVM GC Time\":10,\"Input Metrics\":{\"Bytes Read\":" #input ",\"Records Read\":1}}}\n"

static void assert_sane(const struct clarity_blocked_group *g)
{
    cr_assert(isfinite(g->simulated_ms) && g->simulated_ms >= 0);
    cr_assert(g->actual_ms >= 0 && g->idle_ms >= 0);
    if (g->has_error) cr_assert(isfinite(g->replay_error) && g->replay_error >= 0);
    for (int r = 0; r < CLARITY_RES_COUNT; r++) {
        const struct clarity_blocked_without *w = &g->without[r];
        if (!w->available) continue;
        cr_assert(isfinite(w->simulated_ms) && w->simulated_ms >= 0 && w->simulated_ms <= g->simulated_ms + 1e-9);
        cr_assert(isfinite(w->improvement) && w->improvement >= 0 && w->improvement <= 1);
    }
}

Test(blocked, edge_attempts_and_empty_stages)
{
    const char *log = APP JOB0
        START(0, 0, 0, 1000, false) END(0, 0, 0, 1000, 1100, "Success", false, 1000)
        START(1, 1, 0, 1000, false) END(1, 1, 0, 1000, 1050, "TaskKilled", false, 1000)
        START(2, 1, 1, 1010, true) END(2, 1, 1, 1010, 1110, "Success", true, 1000)
        START(3, 2, 0, 1000, false)   /* its TaskEnd was dropped */
        START(4, 3, 0, 1000, false) END(4, 3, 0, 1000, 1100, "Success", false, 0)
        JOB1;                       /* job 1: only stage 1, which never ran a task */
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(log, &a, &err), CLARITY_OK, "%s", err.msg);
    struct clarity_blocked_result r;
    cr_assert_eq(clarity_blocked_analyze(a, CLARITY_GROUP_JOB | CLARITY_GROUP_APP, CLARITY_SLOTS_OBSERVED, 0, &r, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(r.counts.n, 3);
    cr_assert_eq(r.counts.killed, 1);
    cr_assert_eq(r.counts.without_end, 1);
    cr_assert_eq(r.counts.speculative, 1);
    cr_assert_eq(r.ngroups, 3);
    cr_assert_eq(r.groups[0].id, 0);
    cr_assert_eq(r.groups[0].tasks, 3);
    cr_assert_eq(r.groups[0].slots_max, 3);
    cr_assert_float_eq(r.groups[0].simulated_ms, 100, 1e-9);
    cr_assert_eq(r.groups[0].actual_ms, 110);
    cr_assert_eq(r.groups[1].id, 1);
    cr_assert_eq(r.groups[1].tasks, 0);
    cr_assert_not(r.groups[1].has_error);
    cr_assert_not(r.groups[0].without[CLARITY_RES_NON_CPU].available, "no CPU time logged");
    for (size_t i = 0; i < r.ngroups; i++) assert_sane(&r.groups[i]);
    cr_assert_float_eq(r.groups[0].without[CLARITY_RES_GC].simulated_ms, 90, 1e-9);
    clarity_blocked_free(&r);

    struct clarity_stragglers_result s;
    cr_assert_eq(clarity_stragglers_analyze(a, CLARITY_GROUP_JOB, 5, 0, &s, NULL), 0);
    cr_assert_eq(s.nstages, 1);
    cr_assert_eq(s.stages[0].with_input, 2);
    cr_assert_eq(s.ntop, 3);
    clarity_stragglers_free(&s);
    clarity_app_free(a);
}

Test(blocked, one_task_and_empty_log)
{
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(APP JOB0 START(0, 0, 0, 1000, false) END(0, 0, 0, 1000, 1100, "Success", false, 0), &a, &err),
                 CLARITY_OK);
    struct clarity_blocked_result r;
    cr_assert_eq(clarity_blocked_analyze(a, CLARITY_GROUP_APP, CLARITY_SLOTS_CONFIGURED, 0, &r, NULL), 0);
    cr_assert_eq(r.ngroups, 1);
    cr_assert_float_eq(r.groups[0].simulated_ms, 100, 1e-9);
    cr_assert_float_eq(r.groups[0].replay_error, 0, 1e-9);
    cr_assert_eq(r.groups[0].slots_fallback, 1, "no executor cores in the log: observed slots used");
    cr_assert_not(r.groups[0].without[CLARITY_RES_STRAGGLERS].available, "no input: Dolly needs it");
    assert_sane(&r.groups[0]);
    clarity_blocked_free(&r);
    clarity_app_free(a);
    cr_assert_eq(load_text(APP, &a, &err), CLARITY_OK);
    cr_assert_eq(clarity_blocked_analyze(a, CLARITY_GROUP_JOB | CLARITY_GROUP_SQL | CLARITY_GROUP_APP,
                                         CLARITY_SLOTS_OBSERVED, 0, &r, NULL), 0);
    cr_assert_eq(r.ngroups, 1);
    cr_assert_eq(r.groups[0].tasks, 0);
    assert_sane(&r.groups[0]);
    clarity_blocked_free(&r);
    clarity_app_free(a);
}

Test(blocked, mini_fixture)
{
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_fixture("mini-3x.json", &a, &err), CLARITY_OK, "%s", err.msg);
    struct clarity_blocked_result r;
    cr_assert_eq(clarity_blocked_analyze(a, CLARITY_GROUP_JOB | CLARITY_GROUP_SQL | CLARITY_GROUP_APP,
                                         CLARITY_SLOTS_OBSERVED, 0, &r, NULL), 0);
    cr_assert_eq(r.ngroups, 3);          /* job 0, SQL 7, app */
    cr_assert_eq(r.groups[1].kind, CLARITY_GROUP_SQL);
    cr_assert_eq(r.groups[1].id, 7);
    cr_assert_eq(r.counts.n, 3);
    cr_assert_eq(r.counts.failed, 1);
    for (size_t i = 0; i < r.ngroups; i++) {
        assert_sane(&r.groups[i]);
        cr_assert_float_eq(r.groups[i].simulated_ms, r.groups[0].simulated_ms, 1e-9);
    }
    clarity_blocked_free(&r);
    clarity_app_free(a);
}
