/* .../executors, .../allexecutors, .../environment, .../storage/rdd and
 * .../allmiscellaneousprocess over attempt "2" of app-shs-0001. */
#include "shs_helpers.h"

static struct shs_fixture fx;
static void setup(void) { shs_fixture_load(&fx, "tests/unit/shs/data"); }
static void teardown(void) { shs_fixture_free(&fx); }
TestSuite(shs_executors, .init = setup, .fini = teardown);

#define BASE "/applications/app-shs-0001/2"

Test(shs_executors, active_executors_ids_descending)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/executors");
    cr_assert_eq(shs_len(x.root, ""), 2, "executor 2 was removed");
    cr_assert_str_eq(shs_str(x.root, "0.id"), "driver");
    cr_assert_str_eq(shs_str(x.root, "1.id"), "1");
    cr_assert_str_eq(shs_str(x.root, "0.hostPort"), "drv:7077");
    /* SPARK-37493: the driver's totalDuration is the application's duration */
    cr_assert_eq(shs_int(x.root, "0.totalDuration"), 20000);
    cr_assert_eq(shs_int(x.root, "0.maxMemory"), 1000000);
    shs_answer_free(&x);
}

Test(shs_executors, totals_of_an_executor)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/executors");
    cr_assert_eq(shs_int(x.root, "1.totalCores"), 4);
    /* the profile's task requests 2 cpus */
    cr_assert_eq(shs_int(x.root, "1.maxTasks"), 2);
    /* tasks 0 2 4 10 12 14 20 21 22 30 */
    cr_assert_eq(shs_int(x.root, "1.totalTasks"), 10);
    cr_assert_eq(shs_int(x.root, "1.completedTasks"), 5);
    cr_assert_eq(shs_int(x.root, "1.failedTasks"), 3, "FetchFailed, ExecutorLostFailure, Resubmitted");
    cr_assert_eq(shs_int(x.root, "1.activeTasks"), 0);
    cr_assert_eq(shs_int(x.root, "1.totalDuration"), 4020);
    /* the Resubmitted task's 1000 ms of GC are the first attempt's: not counted again */
    cr_assert_eq(shs_int(x.root, "1.totalGCTime"), 20);
    cr_assert_eq(shs_int(x.root, "1.totalInputBytes"), 3000);
    cr_assert_eq(shs_int(x.root, "1.totalShuffleRead"), 600);
    cr_assert(shs_bool(x.root, "1.isActive"));
    cr_assert_eq(shs_len(x.root, "1.resources"), 1);
    cr_assert_str_eq(shs_str(x.root, "1.resources.gpu.name"), "gpu");
    cr_assert_str_eq(shs_str(x.root, "1.resources.gpu.addresses.1"), "1");
    cr_assert_not_null(strstr(x.res.body, "\"resources\" : {\"gpu\":{\"name\":\"gpu\",\"addresses\":[\"0\",\"1\"]}},"),
                       "logged resources on one line, as always printed");
    shs_answer_free(&x);
}

Test(shs_executors, all_executors_include_removed_ones)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/allexecutors");
    cr_assert_eq(shs_len(x.root, ""), 3);
    cr_assert_str_eq(shs_str(x.root, "2.id"), "2");
    cr_assert_not(shs_bool(x.root, "2.isActive"));
    cr_assert_str_eq(shs_str(x.root, "2.removeReason"), "lost");
    cr_assert_eq(shs_int(x.root, "2.totalTasks"), 8);
    cr_assert_eq(shs_int(x.root, "2.activeTasks"), 1, "task 31 never ended");
    cr_assert_eq(shs_len(x.root, "2.resources"), 0);
    shs_answer_free(&x);
}

Test(shs_executors, environment)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/environment");
    cr_assert_str_eq(shs_str(x.root, "runtime.javaVersion"), "11.0.2 (Oracle Corporation)");
    cr_assert_str_eq(shs_str(x.root, "runtime.scalaVersion"), "version 2.12.15");
    /* sorted by key, secrets redacted */
    cr_assert_eq(shs_len(x.root, "sparkProperties"), 3);
    cr_assert_str_eq(shs_str(x.root, "sparkProperties.0.0"), "spark.app.name");
    cr_assert_str_eq(shs_str(x.root, "sparkProperties.1.0"), "spark.db.password");
    cr_assert_str_eq(shs_str(x.root, "sparkProperties.1.1"), "*********(redacted)");
    cr_assert_str_eq(shs_str(x.root, "hadoopProperties.0.1"), "file:///");
    cr_assert_str_eq(shs_str(x.root, "classpathEntries.0.0"), "/opt/spark/jars/a.jar");
    cr_assert_eq(shs_len(x.root, "resourceProfiles"), 1);
    cr_assert_eq(shs_int(x.root, "resourceProfiles.0.id"), 0);
    cr_assert_eq(shs_int(x.root, "resourceProfiles.0.executorResources.cores.amount"), 4);
    cr_assert_str_eq(shs_str(x.root, "resourceProfiles.0.executorResources.gpu.discoveryScript"), "/opt/gpu.sh");
    cr_assert_str_eq(shs_str(x.root, "resourceProfiles.0.executorResources.gpu.vendor"), "nvidia.com");
    cr_assert_eq(shs_dbl(x.root, "resourceProfiles.0.taskResources.cpus.amount"), 2.0);
    cr_assert_eq(shs_dbl(x.root, "resourceProfiles.0.taskResources.gpu.amount"), 0.5);
    shs_answer_free(&x);
    /* attempt 1 logged no EnvironmentUpdate */
    shs_expect_error(&fx, "/applications/app-shs-0001/1/environment", CLARITY_ENOTFOUND, 404, "no environment in the log");
}

Test(shs_executors, storage_and_misc_processes)
{
    struct shs_answer x;
    shs_ask(&x, &fx, BASE "/storage/rdd");
    cr_assert_eq(shs_len(x.root, ""), 0, "no block updates in the log");
    shs_answer_free(&x);
    shs_expect_error(&fx, BASE "/storage/rdd/3", CLARITY_ENOTFOUND, 404, "unknown rdd: 3");
    shs_expect_error(&fx, BASE "/storage/rdd/three", CLARITY_EUSAGE, 404, "bad rdd id 'three'");
    shs_ask(&x, &fx, BASE "/allmiscellaneousprocess");
    cr_assert_eq(shs_len(x.root, ""), 1);
    cr_assert_str_eq(shs_str(x.root, "0.id"), "yarn-am");
    cr_assert_str_eq(shs_str(x.root, "0.hostPort"), "host-c:8042");
    cr_assert_eq(shs_int(x.root, "0.totalCores"), 1);
    cr_assert(shs_bool(x.root, "0.isActive"));
    cr_assert_str_eq(shs_str(x.root, "0.processLogs.stdout"), "http://host-c/am/stdout");
    shs_answer_free(&x);
    shs_ask(&x, &fx, "/applications/app-shs-0002/allmiscellaneousprocess");
    cr_assert_eq(shs_len(x.root, ""), 0);
    shs_answer_free(&x);
}
