/* .../taskList (offset, length, sortBy, status) and the task fields, errorMessage above all:
 * TaskEndReason.toErrorString for every reason the fixture logs. */
#include "shs_helpers.h"

static struct shs_fixture fx;
static void setup(void) { shs_fixture_load(&fx, "tests/unit/shs/data/app-shs-0001_2.json"); }
static void teardown(void) { shs_fixture_free(&fx); }
TestSuite(shs_tasks, .init = setup, .fini = teardown);

#define BASE "/applications/app-shs-0001/2"

static void expect_ids(const char *path, const int64_t *ids, size_t n)
{
    struct shs_answer x;
    shs_ask(&x, &fx, path);
    cr_assert_eq(x.rc, CLARITY_OK, "%s: %s", path, x.err.msg);
    cr_assert_eq(shs_len(x.root, ""), n, "%s", path);
    for (size_t i = 0; i < n; i++) {
        char k[32];
        snprintf(k, sizeof k, "%zu.taskId", i);
        cr_assert_eq(shs_int(x.root, k), ids[i], "%s: #%zu", path, i);
    }
    shs_answer_free(&x);
}

Test(shs_tasks, list_pages_and_sorts)
{
    expect_ids(BASE "/stages/0/0/taskList", (const int64_t[]){0, 1, 2, 3, 4, 5, 6}, 7);
    expect_ids(BASE "/stages/0/0/taskList?offset=2&length=3", (const int64_t[]){2, 3, 4}, 3);
    expect_ids(BASE "/stages/0/0/taskList?length=0", NULL, 0);
    /* run time of successes; failed and killed ones sort below every success */
    expect_ids(BASE "/stages/0/0/taskList?sortBy=-runtime", (const int64_t[]){3, 0, 6, 4, 1, 5, 2}, 7);
    expect_ids(BASE "/stages/0/0/taskList?sortBy=runtime&length=2", (const int64_t[]){2, 5}, 2);
    expect_ids(BASE "/stages/0/0/taskList?sortBy=ID&offset=5", (const int64_t[]){5, 6}, 2);
}

Test(shs_tasks, status_filter)
{
    expect_ids(BASE "/stages/0/0/taskList?status=failed", (const int64_t[]){1, 5}, 2);
    expect_ids(BASE "/stages/0/0/taskList?status=killed", (const int64_t[]){2}, 1);
    expect_ids(BASE "/stages/0/0/taskList?status=success&offset=1&length=2", (const int64_t[]){3, 4}, 2);
    expect_ids(BASE "/stages/2/0/taskList?status=running", (const int64_t[]){31}, 1);
}

Test(shs_tasks, task_fields)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/stages/0/0/taskList?offset=4&length=1");
    cr_assert_eq(shs_int(x.root, "0.taskId"), 4);
    cr_assert_eq(shs_int(x.root, "0.index"), 1);
    cr_assert_eq(shs_int(x.root, "0.attempt"), 1);
    cr_assert_eq(shs_int(x.root, "0.duration"), 600);
    cr_assert_str_eq(shs_str(x.root, "0.executorId"), "1");
    cr_assert_str_eq(shs_str(x.root, "0.host"), "host-a");
    cr_assert_str_eq(shs_str(x.root, "0.status"), "SUCCESS");
    cr_assert_str_eq(shs_str(x.root, "0.taskLocality"), "PROCESS_LOCAL");
    cr_assert(shs_bool(x.root, "0.speculative"));
    /* fetched its result 500 ms after launch, finished 100 ms later */
    cr_assert_str_eq(shs_str(x.root, "0.resultFetchStart"), "2023-11-14T22:13:24.000GMT");
    cr_assert_eq(shs_int(x.root, "0.gettingResultTime"), 100);
    /* 600 - run 550 - deserialize 10 - serialize 1 - getting result 100 < 0 */
    cr_assert_eq(shs_int(x.root, "0.schedulerDelay"), 0);
    cr_assert_eq(shs_int(x.root, "0.taskMetrics.executorRunTime"), 550);
    cr_assert_eq(shs_int(x.root, "0.taskMetrics.inputMetrics.bytesRead"), 2000);
    cr_assert_str_eq(shs_str(x.root, "0.executorLogs.stdout"), "http://host-a/stdout");
    cr_assert_not(shs_has(shs_at(x.root, "0"), "errorMessage"));
    shs_answer_free(&x);
    shs_ask(&x, &fx, BASE "/stages/0/0/taskList?length=1");
    cr_assert_eq(shs_len(x.root, "0.accumulatorUpdates"), 1);
    cr_assert_str_eq(shs_str(x.root, "0.accumulatorUpdates.0.name"), "records");
    cr_assert_str_eq(shs_str(x.root, "0.accumulatorUpdates.0.update"), "7");
    cr_assert_eq(shs_int(x.root, "0.schedulerDelay"), 89, "1000 - 900 - 10 - 1");
    shs_answer_free(&x);
}

static const char *error_of(struct shs_answer *x, const char *stage, int64_t task)
{
    char path[256];
    snprintf(path, sizeof path, BASE "/stages/%s/taskList?length=100", stage);
    shs_ask(x, &fx, path);
    for (size_t i = 0; i < shs_len(x->root, ""); i++) {
        char k[64];
        snprintf(k, sizeof k, "%zu.taskId", i);
        if (shs_int(x->root, k) != task) continue;
        snprintf(k, sizeof k, "%zu", i);
        if (!shs_has(shs_at(x->root, k), "errorMessage")) return NULL;
        snprintf(k, sizeof k, "%zu.errorMessage", i);
        return shs_str(x->root, k);
    }
    cr_assert_fail("task %lld not listed", (long long)task);
    return NULL;
}

Test(shs_tasks, error_messages_of_every_reason)
{
    struct shs_answer x;
    cr_assert_str_eq(error_of(&x, "0/0", 1),
                     "java.lang.IllegalStateException: bad row 17\n"
                     "        com.example.Job.parse(Job.scala:42)\n"
                     "        com.example.Native.call(Native Method)\n"
                     "        com.example.Anon.run(Anon.java)\n"
                     "        com.example.Gen.apply(Unknown Source)");
    shs_answer_free(&x);
    cr_assert_str_eq(error_of(&x, "0/0", 2), "another attempt succeeded");
    shs_answer_free(&x);
    cr_assert_str_eq(error_of(&x, "0/0", 5), "TaskCommitDenied (Driver denied task commit) for job: 0, partition: 2, attemptNumber: 1");
    shs_answer_free(&x);
    cr_assert_null(error_of(&x, "0/0", 0), "a success has none");
    shs_answer_free(&x);
    cr_assert_str_eq(error_of(&x, "1/0", 10),
                     "FetchFailed(BlockManagerId(2, host-b, 7337, None), shuffleId=0, mapIndex=3, mapId=3, reduceId=0, "
                     "message=\njava.io.IOException: connection reset\n)");
    shs_answer_free(&x);
    cr_assert_str_eq(error_of(&x, "1/0", 11),
                     "FetchFailed(null, shuffleId=0, mapIndex=-1, mapId=-1, reduceId=1, message=\n"
                     "Missing an output location for shuffle 0\n)");
    shs_answer_free(&x);
    cr_assert_str_eq(error_of(&x, "1/0", 12),
                     "ExecutorLostFailure (executor 2 exited unrelated to the running tasks) Reason: Container killed by YARN");
    shs_answer_free(&x);
    cr_assert_str_eq(error_of(&x, "1/0", 13), "TaskResultLost (result lost from block manager)");
    shs_answer_free(&x);
    cr_assert_str_eq(error_of(&x, "1/0", 14), "Resubmitted (resubmitted due to lost executor)");
    shs_answer_free(&x);
    cr_assert_str_eq(error_of(&x, "1/0", 15), "UnknownReason");
    shs_answer_free(&x);
    cr_assert_str_eq(error_of(&x, "2/0", 30), "unknown reason");
    shs_answer_free(&x);
    cr_assert_null(error_of(&x, "2/0", 31), "still running");
    shs_answer_free(&x);
}

Test(shs_tasks, errors)
{
    shs_expect_error(&fx, BASE "/stages/0/0/taskList?offset=two", CLARITY_EUSAGE, 400, "bad offset 'two'");
    shs_expect_error(&fx, BASE "/stages/0/0/taskList?length=", CLARITY_EUSAGE, 400, "bad length ''");
    shs_expect_error(&fx, BASE "/stages/0/0/taskList?sortBy=duration", CLARITY_EUSAGE, 400, "bad sortBy 'duration'");
    shs_expect_error(&fx, BASE "/stages/0/0/taskList?status=lost", CLARITY_EUSAGE, 400, "bad task status 'lost'");
    shs_expect_error(&fx, BASE "/stages/0/3/taskList", CLARITY_ENOTFOUND, 404, "unknown attempt for stage 0.  Found attempts: [0]");
}
