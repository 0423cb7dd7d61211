/* .../jobs and .../jobs/ID. Attempt "2" of app-shs-0001: job 0 runs stage 0 (7 attempts of 4
 * tasks: 4 succeed, an exception, a kill, a commit denial) and stage 1 (attempt 0: 6 tasks
 * that all fail, one Resubmitted; attempt 1: 3 successes); job 1 runs stage 2, where one task
 * is killed without a reason and one never ends, and fails. */
#include "shs_helpers.h"

static struct shs_fixture fx;
static void setup(void) { shs_fixture_load(&fx, "tests/unit/shs/data/app-shs-0001_2.json"); }
static void teardown(void) { shs_fixture_free(&fx); }
TestSuite(shs_jobs, .init = setup, .fini = teardown);

#define BASE "/api/v1/applications/app-shs-0001/2"

Test(shs_jobs, list_newest_first)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/jobs");
    cr_assert_eq(shs_len(x.root, ""), 2);
    cr_assert_eq(shs_int(x.root, "0.jobId"), 1);
    cr_assert_eq(shs_int(x.root, "1.jobId"), 0);
    cr_assert_str_eq(shs_str(x.root, "0.status"), "FAILED");
    cr_assert_str_eq(shs_str(x.root, "1.status"), "SUCCEEDED");
    shs_answer_free(&x);
}

Test(shs_jobs, counters_of_a_job_with_every_end_reason)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/jobs/0");
    cr_assert_eq(x.rc, CLARITY_OK);
    cr_assert_str_eq(shs_str(x.root, "name"), "reduce at Fixture.scala:20", "the last stage's name");
    cr_assert_str_eq(shs_str(x.root, "description"), "count things");
    cr_assert_str_eq(shs_str(x.root, "jobGroup"), "g1");
    cr_assert_eq(shs_len(x.root, "stageIds"), 2);
    cr_assert_eq(shs_int(x.root, "numTasks"), 7);
    cr_assert_eq(shs_int(x.root, "numCompletedTasks"), 7);
    /* the exception and all six stage-1 failures, Resubmitted included */
    cr_assert_eq(shs_int(x.root, "numFailedTasks"), 7);
    /* TaskKilled and TaskCommitDenied */
    cr_assert_eq(shs_int(x.root, "numKilledTasks"), 2);
    cr_assert_eq(shs_int(x.root, "numCompletedIndices"), 7);
    cr_assert_eq(shs_int(x.root, "numActiveTasks"), 0);
    cr_assert_eq(shs_int(x.root, "numCompletedStages"), 2);
    cr_assert_eq(shs_int(x.root, "numFailedStages"), 1);
    cr_assert_eq(shs_int(x.root, "numSkippedStages"), 0);
    cr_assert_eq(shs_len(x.root, "killedTasksSummary"), 2);
    cr_assert_eq(shs_int(x.root, "killedTasksSummary.another attempt succeeded"), 1);
    cr_assert_eq(shs_int(x.root, "killedTasksSummary.TaskCommitDenied (Driver denied task commit) for job: 0, "
                                 "partition: 2, attemptNumber: 1"),
                 1);
    cr_assert_str_eq(shs_str(x.root, "submissionTime"), "2023-11-14T22:13:22.000GMT");
    shs_answer_free(&x);
}

Test(shs_jobs, failed_job_with_a_running_task_and_a_bare_kill)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/jobs/1");
    cr_assert_eq(shs_int(x.root, "numTasks"), 2);
    cr_assert_eq(shs_int(x.root, "numActiveTasks"), 1);
    cr_assert_eq(shs_int(x.root, "numKilledTasks"), 1);
    cr_assert_eq(shs_int(x.root, "numCompletedTasks"), 0);
    /* TaskKilled without a "Kill Reason" counts under Spark's default text */
    cr_assert_eq(shs_int(x.root, "killedTasksSummary.unknown reason"), 1);
    /* spark.job.tags "b,a,,b": empty dropped, distinct, sorted */
    cr_assert_eq(shs_len(x.root, "jobTags"), 2);
    cr_assert_str_eq(shs_str(x.root, "jobTags.0"), "a");
    cr_assert_str_eq(shs_str(x.root, "jobTags.1"), "b");
    shs_answer_free(&x);
}

Test(shs_jobs, status_filter)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/jobs?status=succeeded");
    cr_assert_eq(shs_len(x.root, ""), 1);
    cr_assert_eq(shs_int(x.root, "0.jobId"), 0);
    shs_answer_free(&x);
    shs_ask(&x, &fx, BASE "/jobs?status=failed,running");
    cr_assert_eq(shs_len(x.root, ""), 1);
    cr_assert_eq(shs_int(x.root, "0.jobId"), 1);
    shs_answer_free(&x);
    shs_ask(&x, &fx, BASE "/jobs?status=running");
    cr_assert_eq(shs_len(x.root, ""), 0);
    shs_answer_free(&x);
}

Test(shs_jobs, errors)
{
    shs_expect_error(&fx, BASE "/jobs?status=done", CLARITY_EUSAGE, 400, "bad job status 'done'");
    shs_expect_error(&fx, BASE "/jobs/7", CLARITY_ENOTFOUND, 404, "unknown job: 7");
    shs_expect_error(&fx, BASE "/jobs/seven", CLARITY_EUSAGE, 404, "bad job id 'seven'");
    shs_expect_error(&fx, BASE "/jobs/0/stages", CLARITY_EUSAGE, 404, "no such resource: jobs/0/stages");
}
