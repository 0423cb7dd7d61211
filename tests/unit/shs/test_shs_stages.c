/* .../stages (status, details, withSummaries, quantiles), .../stages/ID, .../stages/ID/ATTEMPT
 * and .../taskSummary over attempt "2" of app-shs-0001 (see test_shs_jobs.c). */
#include "shs_helpers.h"

static struct shs_fixture fx;
static void setup(void) { shs_fixture_load(&fx, "tests/unit/shs/data/app-shs-0001_2.json"); }
static void teardown(void) { shs_fixture_free(&fx); }
TestSuite(shs_stages, .init = setup, .fini = teardown);

#define BASE "/applications/app-shs-0001/2"

Test(shs_stages, list_by_id_then_attempt_descending)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/stages");
    cr_assert_eq(shs_len(x.root, ""), 4);
    const int64_t want[][2] = {{2, 0}, {1, 1}, {1, 0}, {0, 0}};
    const char *status[] = {"FAILED", "COMPLETE", "FAILED", "COMPLETE"};
    for (int i = 0; i < 4; i++) {
        char k[32];
        snprintf(k, sizeof k, "%d.stageId", i);
        cr_assert_eq(shs_int(x.root, k), want[i][0]);
        snprintf(k, sizeof k, "%d.attemptId", i);
        cr_assert_eq(shs_int(x.root, k), want[i][1]);
        snprintf(k, sizeof k, "%d.status", i);
        cr_assert_str_eq(shs_str(x.root, k), status[i]);
        snprintf(k, sizeof k, "%d", i);
        cr_assert_not(shs_has(shs_at(x.root, k), "tasks"), "no details by default");
        cr_assert_not(shs_has(shs_at(x.root, k), "taskMetricsDistributions"));
    }
    cr_assert_str_eq(shs_str(x.root, "2.failureReason"), "org.apache.spark.shuffle.FetchFailedException: connection reset");
    shs_answer_free(&x);
}

Test(shs_stages, counters_and_metric_sums)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/stages/0/0");
    cr_assert_eq(shs_int(x.root, "numTasks"), 4);
    cr_assert_eq(shs_int(x.root, "numCompleteTasks"), 4);
    cr_assert_eq(shs_int(x.root, "numFailedTasks"), 1);
    cr_assert_eq(shs_int(x.root, "numKilledTasks"), 2);
    cr_assert_eq(shs_int(x.root, "numCompletedIndices"), 4);
    cr_assert_eq(shs_int(x.root, "numActiveTasks"), 0);
    /* 900 + 350 + 1400 + 1900 + 550 + 950 + 750: every started attempt with metrics */
    cr_assert_eq(shs_int(x.root, "executorRunTime"), 6800);
    cr_assert_eq(shs_int(x.root, "inputBytes"), 6000);
    cr_assert_str_eq(shs_str(x.root, "name"), "map at Fixture.scala:10");
    cr_assert_str_eq(shs_str(x.root, "description"), "count things");
    cr_assert_str_eq(shs_str(x.root, "details"), "details of map at Fixture.scala:10");
    cr_assert_str_eq(shs_str(x.root, "schedulingPool"), "default");
    cr_assert_str_eq(shs_str(x.root, "firstTaskLaunchedTime"), "2023-11-14T22:13:23.000GMT");
    /* one stage: details by default */
    cr_assert_eq(shs_len(x.root, "tasks"), 7);
    cr_assert_str_eq(shs_str(x.root, "tasks.5.status"), "FAILED");
    cr_assert_eq(shs_int(x.root, "executorSummary.1.succeededTasks"), 2);
    cr_assert_eq(shs_int(x.root, "executorSummary.1.killedTasks"), 1);
    cr_assert_eq(shs_int(x.root, "executorSummary.1.taskTime"), 3100);
    cr_assert_eq(shs_int(x.root, "executorSummary.2.succeededTasks"), 2);
    cr_assert_eq(shs_int(x.root, "executorSummary.2.failedTasks"), 1);
    cr_assert_eq(shs_int(x.root, "executorSummary.2.killedTasks"), 1);
    cr_assert_eq(shs_int(x.root, "executorSummary.2.taskTime"), 4200);
    /* tasks 4 and 5 ran speculatively: one succeeded, one was denied its commit */
    cr_assert_eq(shs_int(x.root, "speculationSummary.numTasks"), 2);
    cr_assert_eq(shs_int(x.root, "speculationSummary.numCompletedTasks"), 1);
    cr_assert_eq(shs_int(x.root, "speculationSummary.numKilledTasks"), 1);
    cr_assert_eq(shs_int(x.root, "killedTasksSummary.another attempt succeeded"), 1);
    shs_answer_free(&x);
}

Test(shs_stages, status_and_details_parameters)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/stages?status=complete");
    cr_assert_eq(shs_len(x.root, ""), 2);
    cr_assert_eq(shs_int(x.root, "0.stageId"), 1);
    cr_assert_eq(shs_int(x.root, "0.attemptId"), 1);
    shs_answer_free(&x);
    shs_ask(&x, &fx, BASE "/stages?status=failed&status=ACTIVE");
    cr_assert_eq(shs_len(x.root, ""), 2);
    shs_answer_free(&x);
    shs_ask(&x, &fx, BASE "/stages?details=true&taskStatus=failed");
    /* stage 1 attempt 0: five FAILED, the Resubmitted one reads SUCCESS (Task Info says so) */
    cr_assert_eq(shs_len(x.root, "2.tasks"), 5);
    cr_assert_eq(shs_len(x.root, "3.tasks"), 2);
    cr_assert(shs_has(shs_at(x.root, "3"), "executorSummary"));
    shs_answer_free(&x);
    shs_ask(&x, &fx, BASE "/stages/0/0?details=false");
    cr_assert_not(shs_has(x.root, "tasks"));
    shs_answer_free(&x);
}

Test(shs_stages, with_summaries_and_quantiles)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/stages?withSummaries=true");
    /* stage 2 had no successful task: the distributions are left out */
    cr_assert_not(shs_has(shs_at(x.root, "0"), "taskMetricsDistributions"));
    cr_assert_eq(shs_len(x.root, "1.taskMetricsDistributions.quantiles"), 5);
    cr_assert_eq(shs_dbl(x.root, "1.taskMetricsDistributions.quantiles.4"), 1.0);
    /* stage 1 attempt 1: durations 100, 190, 280 */
    cr_assert_eq(shs_dbl(x.root, "1.taskMetricsDistributions.duration.0"), 100);
    cr_assert_eq(shs_dbl(x.root, "1.taskMetricsDistributions.duration.2"), 190);
    cr_assert_eq(shs_dbl(x.root, "1.taskMetricsDistributions.duration.4"), 280);
    shs_answer_free(&x);
    shs_ask(&x, &fx, BASE "/stages/1/1?withSummaries=true&quantiles=0.9,0.1");
    cr_assert_eq(shs_len(x.root, "taskMetricsDistributions.quantiles"), 2, "sorted");
    cr_assert_eq(shs_dbl(x.root, "taskMetricsDistributions.quantiles.0"), 0.1);
    cr_assert_eq(shs_dbl(x.root, "taskMetricsDistributions.executorRunTime.1"), 280);
    shs_answer_free(&x);
}

Test(shs_stages, attempts_of_one_stage_oldest_first)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/stages/1");
    cr_assert_eq(shs_len(x.root, ""), 2);
    cr_assert_eq(shs_int(x.root, "0.attemptId"), 0);
    cr_assert_eq(shs_int(x.root, "1.attemptId"), 1);
    cr_assert_eq(shs_int(x.root, "0.numFailedTasks"), 6);
    cr_assert_eq(shs_int(x.root, "1.numCompleteTasks"), 3);
    cr_assert_eq(shs_len(x.root, "1.tasks"), 3, "details by default");
    shs_answer_free(&x);
}

Test(shs_stages, task_summary)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/stages/1/1/taskSummary");
    cr_assert_eq(x.rc, CLARITY_OK);
    /* 3 successful tasks: rows min(trunc(q * 3), 2) for .05 .25 .5 .75 .95 = 0 0 1 2 2 */
    const double dur[] = {100, 100, 190, 280, 280}, run[] = {80, 80, 180, 280, 280};
    for (int i = 0; i < 5; i++) {
        char k[64];
        snprintf(k, sizeof k, "duration.%d", i);
        cr_assert_eq(shs_dbl(x.root, k), dur[i], "%s", k);
        snprintf(k, sizeof k, "executorRunTime.%d", i);
        cr_assert_eq(shs_dbl(x.root, k), run[i], "%s", k);
    }
    cr_assert_eq(shs_dbl(x.root, "shuffleReadMetrics.remoteBytesRead.4"), 300);
    shs_answer_free(&x);
    shs_ask(&x, &fx, BASE "/stages/1/1/taskSummary?quantiles=0.5");
    cr_assert_eq(shs_len(x.root, "duration"), 1);
    cr_assert_eq(shs_dbl(x.root, "duration.0"), 190);
    shs_answer_free(&x);
}

Test(shs_stages, errors)
{
    shs_expect_error(&fx, BASE "/stages?status=done", CLARITY_EUSAGE, 400, "bad stage status 'done'");
    shs_expect_error(&fx, BASE "/stages?details=yes", CLARITY_EUSAGE, 400, "bad boolean parameter");
    shs_expect_error(&fx, BASE "/stages?withSummaries=true&quantiles=0.5,x", CLARITY_EUSAGE, 400, "bad quantiles '0.5,x'");
    shs_expect_error(&fx, BASE "/stages/1/1/taskSummary?quantiles=", CLARITY_EUSAGE, 400, "bad quantiles ''");
    shs_expect_error(&fx, BASE "/stages/9", CLARITY_ENOTFOUND, 404, "unknown stage: 9");
    shs_expect_error(&fx, BASE "/stages/1/5", CLARITY_ENOTFOUND, 404, "unknown attempt for stage 1.  Found attempts: [0,1]");
    shs_expect_error(&fx, BASE "/stages/one", CLARITY_EUSAGE, 404, "bad stage id 'one'");
    shs_expect_error(&fx, BASE "/stages/1/-1", CLARITY_EUSAGE, 404, "bad stage attempt id '-1'");
    /* no successful task yet: SHS answers 404 */
    shs_expect_error(&fx, BASE "/stages/2/0/taskSummary", CLARITY_ENOTFOUND, 404, "no tasks reported metrics for 2 / 0 yet");
    shs_expect_error(&fx, BASE "/stages/1/1/taskTable", CLARITY_EUSAGE, 404, "no such resource: stages/1/1/taskTable");
}

/* SHS answers 400 for a quantile outside [0, 1]; before, 2 indexed past the sorted column and
 * 1e18 overflowed the cast of q * count to an index (undefined behaviour). */
Test(shs_stages, quantiles_outside_zero_one_are_refused)
{
    shs_expect_error(&fx, BASE "/stages/1/1/taskSummary?quantiles=2", CLARITY_EUSAGE, 400,
                     "Bad value for parameter \"quantiles\".  Expected a double between 0 and 1, got \"2\"");
    shs_expect_error(&fx, BASE "/stages/1/1/taskSummary?quantiles=0.5,-1", CLARITY_EUSAGE, 400,
                     "Bad value for parameter \"quantiles\".  Expected a double between 0 and 1, got \"-1\"");
    shs_expect_error(&fx, BASE "/stages/1/1/taskSummary?quantiles=1e18", CLARITY_EUSAGE, 400,
                     "Bad value for parameter \"quantiles\".  Expected a double between 0 and 1, got \"1e18\"");
    shs_expect_error(&fx, BASE "/stages?withSummaries=true&quantiles=0.5,1.5", CLARITY_EUSAGE, 400,
                     "Bad value for parameter \"quantiles\".  Expected a double between 0 and 1, got \"1.5\"");
    shs_expect_error(&fx, BASE "/stages/1?withSummaries=true&quantiles=1e18", CLARITY_EUSAGE, 400, NULL);
}

Test(shs_stages, quantiles_at_the_ends_are_accepted)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/stages/1/1/taskSummary?quantiles=0,1");
    cr_assert_eq(x.rc, 0, "%s", x.err.msg);
    cr_assert_eq(shs_len(x.root, "duration"), 2);
    shs_answer_free(&x);
}
