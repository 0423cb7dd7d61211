/* clarity diff: matching by name, plan shape and position on worked cases, the ignore rule of
 * the environment diff, and the whole analysis on two tiny hand-made logs whose stage ids are
 * shifted by one (B runs a warm-up job first), so that only matching by what the stages are
 * pairs them. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "clarity/diff.h"
#include "../../model/load_helpers.h"

Test(diff_match, same_name_by_position_not_id)
{
    /* A: x(3) y(5) x(7) z(9); B: y(10) x(11) x(12) w(13) x(14) */
    struct clarity_match_key a[] = {{"x", 0, 3}, {"y", 0, 5}, {"x", 0, 7}, {"z", 0, 9}};
    struct clarity_match_key b[] = {{"y", 0, 10}, {"x", 0, 11}, {"x", 0, 12}, {"w", 0, 13}, {"x", 0, 14}};
    long a2b[4], b2a[5];
    uint32_t oa[4], ob[5];
    cr_assert_eq(clarity_match_items(a, 4, b, 5, false, a2b, b2a, oa, ob), 0);
    long ea2b[] = {1, 0, 2, -1}, eb2a[] = {1, 0, 2, -1, -1};
    uint32_t eoa[] = {0, 0, 1, 0}, eob[] = {0, 0, 1, 0, 2};
    for (int i = 0; i < 4; i++) cr_assert_eq(a2b[i], ea2b[i], "a[%d] -> %ld", i, a2b[i]);
    for (int i = 0; i < 5; i++) cr_assert_eq(b2a[i], eb2a[i], "b[%d] -> %ld", i, b2a[i]);
    cr_assert_arr_eq(oa, eoa, sizeof oa);
    cr_assert_arr_eq(ob, eob, sizeof ob);
}

Test(diff_match, input_order_does_not_matter)
{
    /* the same items as above, listed in another order: positions follow the ids */
    struct clarity_match_key a[] = {{"x", 0, 7}, {"x", 0, 3}};
    struct clarity_match_key b[] = {{"x", 0, 12}, {"x", 0, 11}};
    long a2b[2], b2a[2];
    uint32_t oa[2], ob[2];
    cr_assert_eq(clarity_match_items(a, 2, b, 2, false, a2b, b2a, oa, ob), 0);
    cr_assert_eq(a2b[0], 0);   /* A's 2nd x (id 7) is B's 2nd x (id 12) */
    cr_assert_eq(a2b[1], 1);
    cr_assert_eq(oa[0], 1);
    cr_assert_eq(oa[1], 0);
}

Test(diff_match, shape_first_then_description)
{
    /* A runs q1 with plan S1 then with plan S2; B runs q1 once, with plan S2 and then a q2 */
    struct clarity_match_key a[] = {{"q1", 111, 1}, {"q1", 222, 2}};
    struct clarity_match_key b[] = {{"q1", 222, 5}, {"q2", 333, 6}};
    long a2b[2], b2a[2];
    uint32_t oa[2], ob[2];
    cr_assert_eq(clarity_match_items(a, 2, b, 2, true, a2b, b2a, oa, ob), 0);
    cr_assert_eq(a2b[1], 0, "same description and shape wins over position");
    cr_assert_eq(a2b[0], -1);
    cr_assert_eq(b2a[1], -1);
    /* by description alone: the first q1 with the first q1 */
    cr_assert_eq(clarity_match_items(a, 2, b, 2, false, a2b, b2a, oa, ob), 0);
    cr_assert_eq(a2b[0], 0);
    cr_assert_eq(a2b[1], -1);
    /* a plan that changed still matches by description in the second pass */
    struct clarity_match_key c[] = {{"q1", 999, 8}};
    long c2a[1], a2c[2];
    uint32_t oc[1];
    cr_assert_eq(clarity_match_items(a, 2, c, 1, true, a2c, c2a, oa, oc), 0);
    cr_assert_eq(a2c[0], 0);
    cr_assert_eq(c2a[0], 0);
}

Test(diff_match, empty_sides)
{
    struct clarity_match_key a[] = {{"x", 0, 1}};
    long a2b[1], b2a[1];
    uint32_t oa[1], ob[1];
    cr_assert_eq(clarity_match_items(a, 1, NULL, 0, true, a2b, b2a, oa, ob), 0);
    cr_assert_eq(a2b[0], -1);
    cr_assert_eq(clarity_match_items(NULL, 0, NULL, 0, true, a2b, b2a, oa, ob), 0);
}

Test(diff_plan, shape_ignores_ids_literals_and_details)
{
    const char *p1 = "== Physical Plan ==\n*(2) HashAggregate(keys=[k#12], functions=[count(1)])\n"
                     "+- Exchange hashpartitioning(k#12, 200), ENSURE_REQUIREMENTS, [id=#40]\n"
                     "   +- *(1) Filter (isnotnull(v#13) AND (v#13 > 5))\n"
                     "      +- FileScan parquet db.t[k#12,v#13] Location: InMemoryFileIndex[hdfs://a/t]\n\n"
                     "(1) Scan parquet\nOutput: [k#12]\n";
    const char *p2 = "== Physical Plan ==\n*(2) HashAggregate(keys=[k#77], functions=[count(1)])\n"
                     "+- Exchange hashpartitioning(k#77, 400), ENSURE_REQUIREMENTS, [id=#91]\n"
                     "   +- *(1) Filter (isnotnull(v#78) AND (v#78 > 9))\n"
                     "      +- FileScan parquet db.t[k#77,v#78] Location: InMemoryFileIndex[hdfs://b/t]\n\n"
                     "(1) Scan parquet\nOutput: [k#77, v#78]\n";
    const char *p3 = "== Physical Plan ==\n*(2) HashAggregate(keys=[k#12], functions=[count(1)])\n"
                     "+- BroadcastExchange HashedRelationBroadcastMode(List(k#12))\n"
                     "   +- *(1) Filter (isnotnull(v#13) AND (v#13 > 5))\n"
                     "      +- FileScan parquet db.t[k#12,v#13] Location: InMemoryFileIndex[hdfs://a/t]\n";
    uint64_t s1 = clarity_diff_plan_shape(p1), s2 = clarity_diff_plan_shape(p2), s3 = clarity_diff_plan_shape(p3);
    cr_assert_neq(s1, 0);
    cr_assert_eq(s1, s2, "ids, literals, partition counts, paths and the details section do not count");
    cr_assert_neq(s1, s3, "another exchange is another plan");
    cr_assert_eq(clarity_diff_plan_shape(""), 0);
    cr_assert_eq(clarity_diff_plan_shape(NULL), 0);
    cr_assert_eq(clarity_diff_plan_shape("== Physical Plan =="), 0);
}

Test(diff_config, ignore_rule)
{
    const char *ignored[] = {"spark.app.id", "spark.app.startTime", "spark.app.submitTime", "spark.driver.host",
                             "spark.driver.port", "spark.driver.appUIAddress", "spark.ui.proxyBase",
                             "spark.org.apache.hadoop.yarn.server.webproxy.amfilter.AmIpFilter.param.PROXY_HOSTS",
                             "spark.yarn.app.container.log.dir", "spark.app.initial.jar.urls", "spark.repl.class.uri",
                             "spark.databricks.clusterUsageTags.clusterId", "spark.yarn.historyServer.address"};
    const char *kept[] = {"spark.sql.shuffle.partitions", "spark.executor.memory", "spark.executor.instances",
                          "spark.databricks.driverNodeTypeId", "spark.sql.adaptive.enabled", "spark.app.name",
                          "spark.executor.cores", "spark.dynamicAllocation.maxExecutors"};
    for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++) cr_assert(clarity_diff_config_ignored(ignored[i]), "%s", ignored[i]);
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) cr_assert_not(clarity_diff_config_ignored(kept[i]), "%s", kept[i]);
}

/* ---- two tiny logs ---- */
struct tstage {
    const char *name;
    int tasks, run_ms, cpu_ms;
    long long input;
};

/* An application: the stages run one after another, one job each, every task on executor 1
 * or 2 (alternately), launched at the stage's submission and running run_ms (no scheduler
 * delay). A stage takes run_ms + 100 ms. */
static char *make_log(const char *app_id, const char *props, const struct tstage *st, int n)
{
    size_t cap = 1 << 16, len = 0;
    char *b = malloc(cap);
#define P(...) len += (size_t)snprintf(b + len, cap - len, __VA_ARGS__)
    long long t = 1700000000000LL;
    P("{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.5.1\"}\n");
    P("{\"Event\":\"SparkListenerEnvironmentUpdate\",\"JVM Information\":{},\"Spark Properties\":{%s},"
      "\"Hadoop Properties\":{},\"System Properties\":{},\"Classpath Entries\":{}}\n", props);
    P("{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"tiny\",\"App ID\":\"%s\",\"Timestamp\":%lld,\"User\":\"u\"}\n", app_id, t);
    for (int e = 1; e <= 2; e++)
        P("{\"Event\":\"SparkListenerExecutorAdded\",\"Timestamp\":%lld,\"Executor ID\":\"%d\",\"Executor Info\":{\"Host\":\"h%d\","
          "\"Total Cores\":4,\"Log Urls\":{}}}\n", t + 10, e, e);
    int task = 0;
    t += 1000;
    for (int s = 0; s < n; s++) {
        P("{\"Event\":\"SparkListenerJobStart\",\"Job ID\":%d,\"Submission Time\":%lld,\"Stage Infos\":[{\"Stage ID\":%d,"
          "\"Stage Attempt ID\":0,\"Stage Name\":\"%s\",\"Number of Tasks\":%d,\"RDD Info\":[],\"Parent IDs\":[],\"Details\":\"\"}],"
          "\"Stage IDs\":[%d],\"Properties\":{}}\n", s, t, s, st[s].name, st[s].tasks, s);
        P("{\"Event\":\"SparkListenerStageSubmitted\",\"Stage Info\":{\"Stage ID\":%d,\"Stage Attempt ID\":0,\"Stage Name\":\"%s\","
          "\"Number of Tasks\":%d,\"RDD Info\":[],\"Parent IDs\":[],\"Details\":\"\",\"Submission Time\":%lld},\"Properties\":{}}\n",
          s, st[s].name, st[s].tasks, t);
        for (int k = 0; k < st[s].tasks; k++, task++)
            P("{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":%d,\"Stage Attempt ID\":0,\"Task Type\":\"ResultTask\","
              "\"Task End Reason\":{\"Reason\":\"Success\"},\"Task Info\":{\"Task ID\":%d,\"Index\":%d,\"Attempt\":0,"
              "\"Launch Time\":%lld,\"Executor ID\":\"%d\",\"Host\":\"h%d\",\"Locality\":\"PROCESS_LOCAL\",\"Speculative\":false,"
              "\"Getting Result Time\":0,\"Finish Time\":%lld,\"Failed\":false,\"Killed\":false,\"Accumulables\":[]},"
              "\"Task Metrics\":{\"Executor Deserialize Time\":0,\"Executor Deserialize CPU Time\":0,\"Executor Run Time\":%d,"
              "\"Executor CPU Time\":%lld,\"Result Size\":0,\"JVM GC Time\":0,\"Result Serialization Time\":0,"
              "\"Memory Bytes Spilled\":0,\"Disk Bytes Spilled\":0,\"Input Metrics\":{\"Bytes Read\":%lld,\"Records Read\":0}}}\n",
              s, task, k, t, 1 + k % 2, 1 + k % 2, t + st[s].run_ms, st[s].run_ms, (long long)st[s].cpu_ms * 1000000, st[s].input);
        P("{\"Event\":\"SparkListenerStageCompleted\",\"Stage Info\":{\"Stage ID\":%d,\"Stage Attempt ID\":0,\"Stage Name\":\"%s\","
          "\"Number of Tasks\":%d,\"RDD Info\":[],\"Parent IDs\":[],\"Details\":\"\",\"Submission Time\":%lld,\"Completion Time\":%lld}}\n",
          s, st[s].name, st[s].tasks, t, t + st[s].run_ms + 100);
        P("{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":%d,\"Completion Time\":%lld,\"Job Result\":{\"Result\":\"JobSucceeded\"}}\n", s,
          t + st[s].run_ms + 100);
        t += st[s].run_ms + 200;
    }
    P("{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":%lld}\n", t + 500);
#undef P
    return b;
}

static struct clarity_app *load(const char *text)
{
    struct clarity_app *a = NULL;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(text, &a, &err), CLARITY_OK, "%s", err.msg);
    return a;
}

static const struct clarity_diff_item *find(const struct clarity_diff_result *r, int kind, const char *name)
{
    for (size_t i = 0; i < r->nitems; i++)
        if (r->items[i].kind == kind && !strcmp(r->items[i].name, name)) return &r->items[i];
    return NULL;
}

Test(diff_analyze, shifted_ids_matched_by_name)
{
    struct tstage sa[] = {{"map at X.scala:1", 2, 1000, 800, 100000000}, {"reduce at X.scala:2", 2, 500, 400, 0}};
    struct tstage sb[] = {{"warmup at W.scala:5", 1, 100, 50, 0},
                          {"map at X.scala:1", 2, 2000, 1800, 200000000},
                          {"reduce at X.scala:2", 2, 500, 400, 0}};
    char *la = make_log("app-1", "\"spark.app.id\":\"app-1\",\"spark.driver.port\":\"4001\",\"spark.sql.shuffle.partitions\":\"200\","
                        "\"spark.eventLog.dir\":\"/logs/app-1\"", sa, 2);
    char *lb = make_log("app-2", "\"spark.app.id\":\"app-2\",\"spark.driver.port\":\"4777\",\"spark.sql.shuffle.partitions\":\"400\","
                        "\"spark.eventLog.dir\":\"/logs/app-2\"", sb, 3);
    struct clarity_app *a = load(la), *b = load(lb);
    free(la);
    free(lb);
    struct clarity_diff_result r;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_diff_analyze(a, b, NULL, &r, &err), 0);
    cr_assert_eq(r.nstages, 3);
    const struct clarity_diff_item *m = find(&r, CLARITY_DK_STAGE, "map at X.scala:1");
    cr_assert_not_null(m);
    cr_assert_eq(m->a_id, 0);
    cr_assert_eq(m->b_id, 1, "B's map is stage 1: matched by name, not id");
    cr_assert_eq(m->a.wall_ms, 1100);
    cr_assert_eq(m->b.wall_ms, 2100);
    cr_assert_eq(m->delta_ms, 1000);
    cr_assert_eq(m->moved, CLARITY_DC_CPU);
    cr_assert_float_eq(m->moved_ms, 2000.0, 1e-9, "2 tasks x (1800 - 800) ms of CPU");
    cr_assert_float_eq(m->b.comp_ms[CLARITY_DC_OTHER] - m->a.comp_ms[CLARITY_DC_OTHER], 0.0, 1e-9, "2 x 200 ms both sides");
    cr_assert_eq(m->data_moved, CLARITY_DD_INPUT_BYTES);
    cr_assert_eq(m->a.data[CLARITY_DD_INPUT_BYTES], 200000000);
    cr_assert_eq(m->b.data[CLARITY_DD_INPUT_BYTES], 400000000);
    cr_assert_eq(m->a.executors, 2);
    const struct clarity_diff_item *rd = find(&r, CLARITY_DK_STAGE, "reduce at X.scala:2");
    cr_assert_eq(rd->a_id, 1);
    cr_assert_eq(rd->b_id, 2);
    cr_assert_eq(rd->delta_ms, 0);
    cr_assert_eq(rd->moved, -1);
    const struct clarity_diff_item *w = find(&r, CLARITY_DK_STAGE, "warmup at W.scala:5");
    cr_assert_eq(w->a_id, -1, "only in B");
    cr_assert_eq(w->b_id, 0);
    cr_assert_eq(r.items[0].a_id, 0, "most changed first: map (+1000 ms)");
    cr_assert_eq(r.top_stage, 0);
    /* jobs are named after their last stage: map's job is job 0 in A and job 1 in B */
    const struct clarity_diff_item *j = find(&r, CLARITY_DK_JOB, "map at X.scala:1");
    cr_assert_eq(j->a_id, 0);
    cr_assert_eq(j->b_id, 1);
    cr_assert_eq(j->a.tasks, 2);
    /* application: A 1000 + (1200 + 700) + 500 = 3400 ms; B 1000 + (300 + 2200 + 700) + 500 = 4700 ms */
    cr_assert_eq(r.a.wall_ms, 3400);
    cr_assert_eq(r.b.wall_ms, 4700);
    cr_assert_float_eq(r.change_pct, 100.0 * 1300 / 3400, 1e-9);
    cr_assert_not(r.no_change);
    /* configuration: the id and port are ignored, the event log dir differs only by the app id */
    cr_assert_eq(r.nconfig, 1);
    cr_assert_str_eq(r.config[0].key, "spark.sql.shuffle.partitions");
    cr_assert_str_eq(r.config[0].a, "200");
    cr_assert_str_eq(r.config[0].b, "400");
    cr_assert_eq(r.config[0].change, CLARITY_CFG_CHANGED);
    cr_assert_eq(r.nconfig_ignored, 3, "spark.app.id, spark.driver.port, spark.eventLog.dir");
    /* causes: the setting, then input (200 MB -> 400 MB: +100%), tasks 4 -> 5 (+25%), CPU */
    cr_assert_geq(r.ncauses, 4);
    cr_assert_eq(r.causes[0].kind, CLARITY_CAUSE_CONFIG);
    cr_assert_eq(r.causes[1].kind, CLARITY_CAUSE_INPUT_SIZE);
    cr_assert_float_eq(r.causes[1].a, 2e8, 1e-6);
    cr_assert_float_eq(r.causes[1].b, 4e8, 1e-6);
    cr_assert_eq(r.causes[2].kind, CLARITY_CAUSE_TASK_COUNT);
    cr_assert_eq(r.causes[3].kind, CLARITY_CAUSE_COMPONENT);
    cr_assert_str_eq(r.causes[3].what, "cpu_ms");
    clarity_diff_free(&r);
    clarity_app_free(a);
    clarity_app_free(b);
}

Test(diff_analyze, identical_is_no_change)
{
    struct tstage s[] = {{"map at X.scala:1", 3, 700, 600, 5000}};
    char *l = make_log("app-1", "\"spark.app.id\":\"app-1\"", s, 1);
    struct clarity_app *a = load(l), *b = load(l);
    free(l);
    struct clarity_diff_result r;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_diff_analyze(a, b, NULL, &r, &err), 0);
    cr_assert(r.no_change);
    cr_assert_eq(r.ncauses, 0);
    cr_assert_eq(r.nconfig, 0);
    cr_assert_eq(r.change_pct, 0);
    cr_assert_eq(r.top_stage, SIZE_MAX);
    cr_assert_eq(r.nstages, 1);
    cr_assert_eq(r.items[0].delta_ms, 0);
    cr_assert_eq(r.a.tasks, 3);
    cr_assert_eq(r.a_cores, 8);
    clarity_diff_free(&r);
    clarity_app_free(a);
    clarity_app_free(b);
}

/* The CLI's order: A's side built and A's model freed before B is read. The result must not
 * point into either model (ASan catches a use after free) and must equal the worked figures
 * of shifted_ids_matched_by_name. */
Test(diff_sides, built_one_model_at_a_time)
{
    struct tstage sa[] = {{"map at X.scala:1", 2, 1000, 800, 100000000}, {"reduce at X.scala:2", 2, 500, 400, 0}};
    struct tstage sb[] = {{"warmup at W.scala:5", 1, 100, 50, 0},
                          {"map at X.scala:1", 2, 2000, 1800, 200000000},
                          {"reduce at X.scala:2", 2, 500, 400, 0}};
    char *la = make_log("app-1", "\"spark.app.id\":\"app-1\",\"spark.sql.shuffle.partitions\":\"200\"", sa, 2);
    char *lb = make_log("app-2", "\"spark.app.id\":\"app-2\",\"spark.sql.shuffle.partitions\":\"400\"", sb, 3);
    struct clarity_diff_options opt = {.threads = 1};
    struct clarity_diff_app *xa = NULL, *xb = NULL;
    struct clarity_error err = {0};
    struct clarity_app *a = load(la);
    cr_assert_eq(clarity_diff_app_build(a, &opt, &xa, &err), 0);
    clarity_app_free(a);
    struct clarity_app *b = load(lb);
    cr_assert_eq(clarity_diff_app_build(b, &opt, &xb, &err), 0);
    clarity_app_free(b);
    free(la);
    free(lb);
    cr_assert_str_eq(clarity_diff_app_ident(xa)->app_id, "app-1");
    struct clarity_diff_result r;
    cr_assert_eq(clarity_diff_compare(xa, xb, &opt, &r, &err), 0);
    clarity_diff_app_free(xa);
    clarity_diff_app_free(xb);
    cr_assert_str_eq(r.a_app.app_id, "app-1");
    cr_assert_str_eq(r.b_app.app_id, "app-2");
    cr_assert_null(r.a_app.attempt_id);
    /* 3 stages (2 matched, warm-up only in B) + 3 jobs the same way: exactly 6 items */
    cr_assert_eq(r.nstages, 3);
    cr_assert_eq(r.njobs, 3);
    cr_assert_eq(r.nitems, 6 + r.nsqls);
    const struct clarity_diff_item *m = find(&r, CLARITY_DK_STAGE, "map at X.scala:1");
    cr_assert_not_null(m);
    cr_assert_eq(m->b_id, 1);
    cr_assert_eq(m->delta_ms, 1000);
    cr_assert_eq(r.a.wall_ms, 3400);
    cr_assert_eq(r.b.wall_ms, 4700);
    cr_assert_eq(r.nconfig, 1);
    cr_assert_str_eq(r.config[0].key, "spark.sql.shuffle.partitions");
    cr_assert_str_eq(r.config[0].a, "200");
    cr_assert_str_eq(r.config[0].b, "400");
    cr_assert(r.findings_compared);
    clarity_diff_free(&r);
}
