/* /sql and /sql/{executionId}. Two logs, loaded with the SQL listener's replay:
 * - tests/unit/shs/data_sql/app-sql18-0001.json, written for these tests (Spark 3.5 shapes):
 *   execution 0 with a codegen cluster, an InputAdapter, a reused exchange and one metric of
 *   each type; 1 running after a failed job; 2 ended with an error and no job; 3 ended without
 *   errorMessage (an older Spark) after a failed job;
 * - tests/data/spark-3.1-app-20200706201101-0003.json, a real Spark 3.1 log (one execution,
 *   three jobs of 16 tasks, driver values for two broadcasts).
 * Every expected value is worked out by hand from the events (in the comments), by the
 * History Server's rules. */
#include "shs_helpers.h"

static struct shs_fixture fx, real;

static void load_sql(struct shs_fixture *f, const char *rel)
{
    char path[1024];
    const char *p[] = {shs_test_path(rel, path, sizeof path)};
    struct clarity_error err = {0};
    memset(f, 0, sizeof *f);
    cr_assert_eq(clarity_source_resolve(p, 1, &f->sources, &err), CLARITY_OK, "resolve %s: %s", p[0], err.msg);
    struct clarity_load_options o = {.threads = 1};
    clarity_shs_load_options("/applications/x/sql", &o);
    cr_assert(o.sql_plan_graphs, "the /sql route asks for the SQL listener's replay");
    cr_assert_eq(clarity_app_load(&f->sources.apps[0], &o, &f->apps[0], &err), CLARITY_OK, "load: %s", err.msg);
    f->napps = 1;
}

static void setup(void)
{
    load_sql(&fx, "tests/unit/shs/data_sql/app-sql18-0001.json");
    load_sql(&real, "tests/data/spark-3.1-app-20200706201101-0003.json");
}
static void teardown(void)
{
    shs_fixture_free(&fx);
    shs_fixture_free(&real);
}
TestSuite(shs_sql, .init = setup, .fini = teardown);

#define Q0 "/applications/app-sql18-0001/sql/0"

Test(shs_sql, graph_nodes_edges_and_codegen_ids)
{
    struct shs_answer x;
    shs_ask(&x, &fx, Q0);
    cr_assert_eq(x.rc, CLARITY_OK, "%s", x.err.msg);
    /* Union 0, Exchange 1, WholeStageCodegen (1) 2 (a cluster), Filter 3 in it, InputAdapter
     * skipped, Scan 4 outside the cluster; the ReusedExchange's child equals the Exchange:
     * no node, an edge 1 -> 0 */
    cr_assert_eq(shs_len(x.root, "nodes"), 5);
    cr_assert_eq(shs_int(x.root, "nodes.0.nodeId"), 4, "nodes by decreasing id");
    cr_assert_str_eq(shs_str(x.root, "nodes.0.nodeName"), "Scan");
    cr_assert_not(shs_has(shs_at(x.root, "nodes.0"), "wholeStageCodegenId"), "the InputAdapter ends the cluster");
    cr_assert_str_eq(shs_str(x.root, "nodes.1.nodeName"), "Filter");
    cr_assert_eq(shs_int(x.root, "nodes.1.wholeStageCodegenId"), 1);
    cr_assert_str_eq(shs_str(x.root, "nodes.2.nodeName"), "WholeStageCodegen (1)");
    cr_assert_not(shs_has(shs_at(x.root, "nodes.2"), "wholeStageCodegenId"), "a cluster is not its own member");
    cr_assert_eq(shs_len(x.root, "edges"), 4);
    int64_t want[4][2] = {{1, 0}, {3, 1}, {4, 3}, {1, 0}};
    char k[64];
    for (int i = 0; i < 4; i++) {
        snprintf(k, sizeof k, "edges.%d.fromId", i);
        cr_assert_eq(shs_int(x.root, k), want[i][0], "%s", k);
        snprintf(k, sizeof k, "edges.%d.toId", i);
        cr_assert_eq(shs_int(x.root, k), want[i][1], "%s", k);
    }
    shs_answer_free(&x);
}

Test(shs_sql, metric_values_by_hand)
{
    struct shs_answer x;
    shs_ask(&x, &fx, Q0);
    /* scan time (nsTiming, name logged " scan time ": trimmed): only index 0 of 3 reported
     * 2,500,000 ns; the two other indices count as 0 -> 3 valid values, total 2 ms (ns cut to
     * ms), min 0, median 0, max 2 ms from task 0 */
    cr_assert_str_eq(shs_str(x.root, "nodes.0.metrics.0.name"), "scan time");
    cr_assert_str_eq(shs_str(x.root, "nodes.0.metrics.0.value"),
                     "total (min, med, max (stageId: taskId))\n2 ms (0 ms, 0 ms, 2 ms (stage 0.0: task 0))");
    /* average (tenths): 15 and 25, the empty index left out (> 0 only); median sorted[1] */
    cr_assert_str_eq(shs_str(x.root, "nodes.0.metrics.1.value"),
                     "(min, med, max (stageId: taskId)):\n(1.5, 2.5, 2.5 (stage 0.0: task 3))");
    /* sum: 5 (index 0) + 4 (index 1's retry overwrote the failed attempt's 7) + 6 (index 2;
     * the speculative copy's 100 came after index 2 succeeded: ignored) */
    cr_assert_str_eq(shs_str(x.root, "nodes.1.metrics.0.value"), "15");
    /* timing: 1250 + 999 + 1250 = 3499 ms -> 3.499f s -> "3.5 s"; median 1250 -> 1.25f ->
     * Java rounds half up: "1.3 s"; the largest update seen was the failed attempt's 3000
     * (task 1): SHS names that task though the value shown is 1250 */
    cr_assert_str_eq(shs_str(x.root, "nodes.2.metrics.0.value"),
                     "total (min, med, max (stageId: taskId))\n3.5 s (999 ms, 1.3 s, 1.3 s (stage 0.0: task 1))");
    /* size from the driver only: 4096 then 3,145,728 -> total 3,149,824 = 3.004 MiB; no task
     * value: "(driver)"; the update of accumulator 999 (no node) is ignored */
    cr_assert_str_eq(shs_str(x.root, "nodes.3.nodeName"), "Exchange");
    cr_assert_str_eq(shs_str(x.root, "nodes.3.metrics.0.value"),
                     "total (min, med, max (stageId: taskId))\n3.0 MiB (4.0 KiB, 3.0 MiB, 3.0 MiB (driver))");
    cr_assert_eq(shs_len(x.root, "nodes.4.metrics"), 0, "Union has no metrics");
    shs_answer_free(&x);
}

Test(shs_sql, status_jobs_and_times)
{
    struct shs_answer x;
    shs_ask(&x, &fx, "/applications/app-sql18-0001/sql");
    cr_assert_eq(shs_len(x.root, ""), 4);
    cr_assert_str_eq(shs_str(x.root, "0.status"), "COMPLETED", "errorMessage \"\"");
    cr_assert_str_eq(shs_str(x.root, "0.submissionTime"), "2023-11-14T22:13:21.000GMT");
    cr_assert_eq(shs_int(x.root, "0.duration"), 700);
    cr_assert_eq(shs_int(x.root, "0.successJobIds.0"), 0);
    cr_assert_str_eq(shs_str(x.root, "0.planDescription"), "== Physical Plan ==\nplan 0");
    cr_assert_str_eq(shs_str(x.root, "1.status"), "RUNNING", "no end, though its job failed");
    cr_assert_not(shs_has(shs_at(x.root, "1"), "duration"), "SHS counts a running one to the request's time");
    cr_assert_eq(shs_int(x.root, "1.failedJobIds.0"), 1);
    /* values gathered so far (the replay's end): the failed task's 1,000,000 ns */
    cr_assert_str_eq(shs_str(x.root, "1.nodes.0.metrics.0.value"), "1 ms");
    cr_assert_str_eq(shs_str(x.root, "2.status"), "FAILED", "errorMessage \"boom\"");
    cr_assert_eq(shs_len(x.root, "2.successJobIds"), 0);
    cr_assert_str_eq(shs_str(x.root, "3.status"), "FAILED", "no errorMessage: a failed job decides");
    shs_answer_free(&x);
}

Test(shs_sql, parameters_and_errors)
{
    struct shs_answer x;
    shs_ask(&x, &fx, Q0 "?details=false&planDescription=false");
    cr_assert_eq(shs_len(x.root, "nodes"), 0);
    cr_assert_eq(shs_len(x.root, "edges"), 0);
    cr_assert_str_eq(shs_str(x.root, "planDescription"), "");
    shs_answer_free(&x);
    shs_ask(&x, &fx, "/applications/app-sql18-0001/sql?offset=1&length=2");
    cr_assert_eq(shs_len(x.root, ""), 2);
    cr_assert_eq(shs_int(x.root, "0.id"), 1);
    cr_assert_eq(shs_int(x.root, "1.id"), 2);
    shs_answer_free(&x);
    shs_ask(&x, &fx, "/applications/app-sql18-0001/sql?offset=9");
    cr_assert_eq(shs_len(x.root, ""), 0);
    shs_answer_free(&x);
    shs_expect_error(&fx, "/applications/app-sql18-0001/sql/7", CLARITY_ENOTFOUND, 404, "unknown query execution id: 7");
    shs_expect_error(&fx, "/applications/app-sql18-0001/sql/x", CLARITY_EUSAGE, 404, NULL);
    shs_expect_error(&fx, "/applications/app-sql18-0001/sql?length=0", CLARITY_EUSAGE, 400, NULL);
    shs_expect_error(&fx, "/applications/app-sql18-0001/sql?details=maybe", CLARITY_EUSAGE, 400, NULL);
}

Test(shs_sql, real_spark31_log)
{
    struct shs_answer x;
    shs_ask(&x, &real, "/applications/app-20200706201101-0003/sql/0");
    cr_assert_eq(x.rc, CLARITY_OK, "%s", x.err.msg);
    cr_assert_eq(shs_len(x.root, "successJobIds"), 3);
    /* WholeStageCodegen (1) (node 4), accumulator 6, stage 1's 16 tasks: twelve 20 ms and
     * four 21 ms: total 324 ms, median sorted[8] = 20, max 21 first reached by task 19 */
    cr_assert_str_eq(shs_str(x.root, "nodes.5.nodeName"), "WholeStageCodegen (1)");
    cr_assert_str_eq(shs_str(x.root, "nodes.5.metrics.0.value"),
                     "total (min, med, max (stageId: taskId))\n324 ms (20 ms, 20 ms, 21 ms (stage 1.0: task 19))");
    /* BroadcastExchange (node 7), "data size" from the driver alone: 1,048,632 B / 1024 =
     * 1024.05 KiB; "time to collect" 1736 ms */
    cr_assert_str_eq(shs_str(x.root, "nodes.2.nodeName"), "BroadcastExchange");
    cr_assert_str_eq(shs_str(x.root, "nodes.2.metrics.0.value"), "1024.1 KiB");
    cr_assert_str_eq(shs_str(x.root, "nodes.2.metrics.1.value"), "1.7 s");
    /* WholeStageCodegen (2), stage 2: 16 values from 1467 to 1593 ms summing to 25,080 ms;
     * median sorted[8] = 1566 ms; the max 1593 first reached by task 42 */
    cr_assert_str_eq(shs_str(x.root, "nodes.8.metrics.0.value"),
                     "total (min, med, max (stageId: taskId))\n25.1 s (1.5 s, 1.6 s, 1.6 s (stage 2.0: task 42))");
    shs_answer_free(&x);
}

/* The unit texts alone, on values chosen at their edges (shs_sqlfmt.c, internal). */
bool clarity__shs_sql_value_text(const struct clarity_sql_value *v, char *out, size_t cap);
static const char *text(uint8_t kind, int64_t n, int64_t total, int64_t mn, int64_t med, int64_t mx)
{
    static char buf[512];
    struct clarity_sql_value v = {.kind = kind, .n = n, .total = total, .min = mn, .med = med, .max = mx,
                                  .has_max = true, .max_stage = 3, .max_attempt = 1, .max_task = 77};
    cr_assert(clarity__shs_sql_value_text(&v, buf, sizeof buf));
    return buf;
}

Test(shs_sql, unit_texts)
{
    cr_assert_str_eq(text(CLARITY_SQLM_SUM, 3, -1234567, 0, 0, 0), "-1,234,567");
    cr_assert_str_eq(text(CLARITY_SQLM_SUM, 0, 0, 0, 0, 0), "0");
    cr_assert_str_eq(text(CLARITY_SQLM_TIMING, 1, 999, 999, 999, 999), "999 ms");
    cr_assert_str_eq(text(CLARITY_SQLM_TIMING, 1, 1250, 1250, 1250, 1250), "1.3 s");       /* half up */
    cr_assert_str_eq(text(CLARITY_SQLM_TIMING, 1, 59999, 59999, 59999, 59999), "60.0 s");
    cr_assert_str_eq(text(CLARITY_SQLM_TIMING, 1, 90000, 90000, 90000, 90000), "1.5 m");
    cr_assert_str_eq(text(CLARITY_SQLM_TIMING, 1, 4050000, 4050000, 4050000, 4050000), "1.13 h"); /* 1.125 */
    cr_assert_str_eq(text(CLARITY_SQLM_NS_TIMING, 1, 1999999, 1999999, 1999999, 1999999), "1 ms");
    cr_assert_str_eq(text(CLARITY_SQLM_SIZE, 1, 2047, 2047, 2047, 2047), "2047.0 B");
    cr_assert_str_eq(text(CLARITY_SQLM_SIZE, 1, 2048, 2048, 2048, 2048), "2.0 KiB");
    cr_assert_str_eq(text(CLARITY_SQLM_SIZE, 1, 2150, 2150, 2150, 2150), "2.1 KiB");         /* 2.0996 */
    cr_assert_str_eq(text(CLARITY_SQLM_SIZE, 1, 3174, 3174, 3174, 3174), "3.1 KiB");         /* 3.0996 */
    cr_assert_str_eq(text(CLARITY_SQLM_SIZE, 1, 3123, 3123, 3123, 3123), "3.0 KiB");         /* 3.0498 */
    cr_assert_str_eq(text(CLARITY_SQLM_SIZE, 1, 3124, 3124, 3124, 3124), "3.1 KiB");         /* 3.05078 */
    cr_assert_str_eq(text(CLARITY_SQLM_SIZE, 1, 1LL << 40, 1LL << 40, 1LL << 40, 1LL << 40), "1024.0 GiB");
    cr_assert_str_eq(text(CLARITY_SQLM_SIZE, 0, 0, 0, 0, 0), "0.0 B");
    cr_assert_str_eq(text(CLARITY_SQLM_AVERAGE, 1, 12345, 12345, 12345, 12345), "1,234.5");
    cr_assert_str_eq(text(CLARITY_SQLM_AVERAGE, 1, 20, 20, 20, 20), "2");
    cr_assert_str_eq(text(CLARITY_SQLM_AVERAGE, 0, 0, 0, 0, 0), "0");
    cr_assert_str_eq(text(CLARITY_SQLM_CUSTOM, 2, 0, 0, 0, 0), "N/A");
    cr_assert_str_eq(text(CLARITY_SQLM_SIZE, 2, 3072, 1024, 2048, 2048),
                     "total (min, med, max (stageId: taskId))\n3.0 KiB (1024.0 B, 2.0 KiB, 2.0 KiB (stage 3.1: task 77))");
    struct clarity_sql_value u = {.kind = CLARITY_SQLM_UNKNOWN, .n = 1};
    char buf[64];
    cr_assert_not(clarity__shs_sql_value_text(&u, buf, sizeof buf), "SHS fails on an unknown type");
}
