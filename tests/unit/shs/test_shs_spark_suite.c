/* tests/data/spark-1.2-local-1422981780767.json is the log Spark's HistoryServerSuite answers
 * from; the figures below are those of its expectation files (job_list, stage_list,
 * executor_list, one_stage_attempt, one_app), so the project checks them without ../shared. */
#include "shs_helpers.h"

static struct shs_fixture fx;
static void setup(void) { shs_fixture_load(&fx, "tests/data/spark-1.2-local-1422981780767.json"); }
static void teardown(void) { shs_fixture_free(&fx); }
TestSuite(shs_spark_suite, .init = setup, .fini = teardown);

#define BASE "/api/v1/applications/local-1422981780767"

Test(shs_spark_suite, one_app)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE);
    cr_assert_str_eq(shs_str(x.root, "name"), "Spark shell");
    cr_assert_eq(shs_int(x.root, "attempts.0.duration"), 9011);
    cr_assert_str_eq(shs_str(x.root, "attempts.0.endTime"), "2015-02-03T16:43:08.731GMT");
    cr_assert_str_eq(shs_str(x.root, "attempts.0.sparkUser"), "irashid");
    shs_answer_free(&x);
}

Test(shs_spark_suite, job_list)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/jobs");
    cr_assert_eq(shs_len(x.root, ""), 3);
    const int64_t tasks[] = {8, 16, 8}, done[] = {8, 15, 8}, failed[] = {0, 1, 0}, failed_stages[] = {0, 1, 0};
    const char *status[] = {"SUCCEEDED", "FAILED", "SUCCEEDED"};
    for (int i = 0; i < 3; i++) {
        char k[64];
        snprintf(k, sizeof k, "%d.jobId", i);
        cr_assert_eq(shs_int(x.root, k), 2 - i);
        snprintf(k, sizeof k, "%d.status", i);
        cr_assert_str_eq(shs_str(x.root, k), status[i]);
        snprintf(k, sizeof k, "%d.numTasks", i);
        cr_assert_eq(shs_int(x.root, k), tasks[i]);
        snprintf(k, sizeof k, "%d.numCompletedTasks", i);
        cr_assert_eq(shs_int(x.root, k), done[i]);
        snprintf(k, sizeof k, "%d.numCompletedIndices", i);
        cr_assert_eq(shs_int(x.root, k), done[i]);
        snprintf(k, sizeof k, "%d.numFailedTasks", i);
        cr_assert_eq(shs_int(x.root, k), failed[i]);
        snprintf(k, sizeof k, "%d.numFailedStages", i);
        cr_assert_eq(shs_int(x.root, k), failed_stages[i]);
    }
    shs_answer_free(&x);
}

Test(shs_spark_suite, stage_list)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/stages");
    cr_assert_eq(shs_len(x.root, ""), 4);
    const int64_t run[] = {162, 278, 3476, 4338}, input[] = {160, 0, 28000128, 0}, sw[] = {0, 0, 13180, 0};
    for (int i = 0; i < 4; i++) {
        char k[64];
        snprintf(k, sizeof k, "%d.stageId", i);
        cr_assert_eq(shs_int(x.root, k), 3 - i);
        snprintf(k, sizeof k, "%d.executorRunTime", i);
        cr_assert_eq(shs_int(x.root, k), run[i]);
        snprintf(k, sizeof k, "%d.inputBytes", i);
        cr_assert_eq(shs_int(x.root, k), input[i]);
        snprintf(k, sizeof k, "%d.shuffleWriteBytes", i);
        cr_assert_eq(shs_int(x.root, k), sw[i]);
    }
    cr_assert_str_eq(shs_str(x.root, "1.status"), "FAILED");
    cr_assert_eq(shs_int(x.root, "1.numCompleteTasks"), 7);
    shs_answer_free(&x);
    shs_ask(&x, &fx, BASE "/stages?status=failed");
    cr_assert_eq(shs_len(x.root, ""), 1);
    cr_assert(!strncmp(shs_str(x.root, "0.failureReason"), "Job aborted due to stage failure: Task 3 in stage 2.0 failed 1 times",
                       68));
    shs_answer_free(&x);
}

Test(shs_spark_suite, one_stage_attempt)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/stages/1/0");
    cr_assert_eq(shs_len(x.root, "tasks"), 8);
    cr_assert_eq(shs_int(x.root, "tasks.10.duration"), 456);
    cr_assert_eq(shs_int(x.root, "tasks.10.schedulerDelay"), 19);
    cr_assert_str_eq(shs_str(x.root, "tasks.10.taskLocality"), "PROCESS_LOCAL");
    cr_assert_eq(shs_int(x.root, "executorSummary.driver.taskTime"), 3624);
    cr_assert_eq(shs_int(x.root, "executorSummary.driver.succeededTasks"), 8);
    cr_assert_eq(shs_int(x.root, "executorSummary.driver.inputBytes"), 28000128);
    shs_answer_free(&x);
}

Test(shs_spark_suite, failed_task_message)
{
    /* the "Full Stack Trace" as logged (the frames are printed only without it) */
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/stages/2/0/taskList?status=failed");
    cr_assert_eq(shs_len(x.root, ""), 1);
    cr_assert_eq(shs_int(x.root, "0.taskId"), 19);
    const char *msg = shs_str(x.root, "0.errorMessage");
    const char *want = "java.lang.RuntimeException: got a 3, failing\n"
                       "\tat $line11.$read$$iwC$$iwC$$iwC$$iwC$$anonfun$1.apply(<console>:18)\n";
    cr_assert(!strncmp(msg, want, strlen(want)), "%s", msg);
    shs_answer_free(&x);
}

Test(shs_spark_suite, executor_list)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/executors");
    cr_assert_eq(shs_len(x.root, ""), 1);
    cr_assert_str_eq(shs_str(x.root, "0.id"), "driver");
    cr_assert_str_eq(shs_str(x.root, "0.hostPort"), "localhost:57971");
    cr_assert_eq(shs_int(x.root, "0.totalTasks"), 32);
    cr_assert_eq(shs_int(x.root, "0.completedTasks"), 31);
    cr_assert_eq(shs_int(x.root, "0.failedTasks"), 1);
    /* SPARK-37493: the application's duration and TotalGCTime peak (not logged: 0) */
    cr_assert_eq(shs_int(x.root, "0.totalDuration"), 9011);
    cr_assert_eq(shs_int(x.root, "0.totalGCTime"), 0);
    cr_assert_eq(shs_int(x.root, "0.totalInputBytes"), 28000288);
    cr_assert_eq(shs_int(x.root, "0.totalShuffleWrite"), 13180);
    cr_assert_eq(shs_int(x.root, "0.maxMemory"), 278302556);
    shs_answer_free(&x);
}
