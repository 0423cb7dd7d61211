/* Findings on worked cases: small logs written here, each with the replay's numbers worked by
 * hand, one where the rule fires and one where it must not. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../model/load_helpers.h"
#include "analysis/findings/fnd_internal.h"
#include "clarity/findings.h"

#define MB 1000000LL

/* A log under construction: the application starts at 900, two executors of 4 cores join at
 * 950 (8 configured slots), job 0 runs stage 0; tasks are added with task(). */
struct log { char *buf; size_t len; FILE *f; int ntask; };

static void begin(struct log *l, const char *props)
{
    l->f = open_memstream(&l->buf, &l->len);
    l->ntask = 0;
    fprintf(l->f, "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.1.2\"}\n"
                  "{\"Event\":\"SparkListenerEnvironmentUpdate\",\"JVM Information\":{},\"Spark Properties\":{%s},"
                  "\"Hadoop Properties\":{},\"System Properties\":{},\"Classpath Entries\":{}}\n"
                  "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"t\",\"App ID\":\"a-1\",\"Timestamp\":900,"
                  "\"User\":\"u\"}\n", props ? props : "");
    for (int e = 1; e <= 2; e++)
        fprintf(l->f, "{\"Event\":\"SparkListenerExecutorAdded\",\"Timestamp\":950,\"Executor ID\":\"%d\",\"Executor "
                      "Info\":{\"Host\":\"h%d\",\"Total Cores\":4,\"Log Urls\":{}}}\n", e, e);
    fprintf(l->f, "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Submission Time\":950,\"Stage Infos\":[],"
                  "\"Stage IDs\":[0],\"Properties\":{}}\n");
}

/* one attempt of stage 0: launch and finish (absolute ms), shuffle bytes read, input bytes,
   disk spill; reason "Success" or an end reason object */
static void task_gc(struct log *l, int index, int attempt, long launch, long finish, long long shuffle,
                    long long input, long long spill, const char *reason, long gc)
{
    int id = l->ntask++;
    int exec = 1 + index % 2;
    bool ok = !strcmp(reason, "Success");
    fprintf(l->f, "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Stage Attempt ID\":0,\"Task Type\":"
                  "\"ResultTask\",\"Task End Reason\":%s%s%s,\"Task Info\":{\"Task ID\":%d,\"Index\":%d,\"Attempt\":%d,"
                  "\"Launch Time\":%ld,\"Executor ID\":\"%d\",\"Host\":\"h%d\",\"Locality\":\"ANY\",\"Speculative\":false,"
                  "\"Getting Result Time\":0,\"Finish Time\":%ld,\"Failed\":%s,\"Killed\":false},\"Task Metrics\":{"
                  "\"Executor Deserialize Time\":0,\"Executor Run Time\":%ld,\"JVM GC Time\":%ld,\"Result Size\":10,"
                  "\"Memory Bytes Spilled\":%lld,\"Disk Bytes Spilled\":%lld,"
                  "\"Shuffle Read Metrics\":{\"Remote Blocks Fetched\":1,\"Local Blocks Fetched\":0,\"Fetch Wait Time\":0,"
                  "\"Remote Bytes Read\":%lld,\"Local Bytes Read\":0,\"Total Records Read\":%lld},"
                  "\"Input Metrics\":{\"Bytes Read\":%lld,\"Records Read\":%lld}}}\n",
            ok ? "{\"Reason\":\"" : "", reason, ok ? "\"}" : "", id, index, attempt, launch, exec, exec, finish,
            ok ? "false" : "true", finish - launch, gc, spill * 3, spill, shuffle, shuffle / 100, input, input / 100);
}

static void task(struct log *l, int index, int attempt, long launch, long finish, long long shuffle, long long input,
                 long long spill, const char *reason)
{
    task_gc(l, index, attempt, launch, finish, shuffle, input, spill, reason, 0);
}

static struct clarity_app *end(struct log *l, long app_end)
{
    fprintf(l->f, "{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":0,\"Completion Time\":%ld,\"Job Result\":{\"Result\":"
                  "\"JobSucceeded\"}}\n{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":%ld}\n", app_end, app_end);
    fclose(l->f);
    struct clarity_app *a = NULL;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(l->buf, &a, &err), CLARITY_OK, "%s", err.msg);
    free(l->buf);
    return a;
}

static const struct clarity_finding *find(const struct clarity_findings *r, enum clarity_finding_kind k)
{
    for (size_t i = 0; i < r->n; i++) if (r->f[i].kind == k) return &r->f[i];
    return NULL;
}

static void analyze(const struct clarity_app *a, bool all, struct clarity_findings *r)
{
    struct clarity_findings_options o = {.threads = 1, .keep_all = all};
    struct clarity_error err = {0};
    cr_assert_eq(clarity_findings_analyze(a, &o, r, &err), 0, "%s", err.msg);
}

Test(findings, kind_names_are_the_contract)
{
    static const char *const want[] = {
        "data_skew", "slow_host", "spill", "too_few_partitions", "tiny_tasks", "oversized_partitions",
        "idle_executors", "gc_pressure", "memory_headroom", "task_failures", "fetch_failures", "lost_executors",
        "speculation_waste", "driver_bound", "scheduler_delay", "repeated_work", "cartesian_join",
        "large_broadcast", "anomaly", "contention"};
    cr_assert_eq(sizeof want / sizeof *want, CLARITY_FK_COUNT);
    for (int k = 0; k < CLARITY_FK_COUNT; k++) cr_assert_str_eq(clarity_finding_kind_name(k), want[k]);
    cr_assert_str_eq(clarity_finding_kind_name(CLARITY_FK_COUNT), "?");
}

Test(findings, jvm_sizes)
{
    cr_assert_eq(clarity_fnd_jvm_size("4g"), 4LL << 30);
    cr_assert_eq(clarity_fnd_jvm_size("512m"), 512LL << 20);
    cr_assert_eq(clarity_fnd_jvm_size("2048"), 2048);
    cr_assert_eq(clarity_fnd_jvm_size("lots"), -1);
    cr_assert_eq(clarity_fnd_jvm_size(NULL), -1);
    char b[16];
    clarity_fnd_fmt_jvm(b, sizeof b, (6LL << 30) + (1LL << 20));
    cr_assert_str_eq(b, "7g", "rounded up");
    clarity_fnd_fmt_jvm(b, sizeof b, 300LL << 20);
    cr_assert_str_eq(b, "300m");
}

/* Ten tasks launched at 1000 on ten slots (peak concurrency), 1 s and 100 MB of shuffle each;
 * the last reads 1000 MB in 10 s. An RDD shuffle: the hot partition is taken at the median
 * (100 MB) and its 900 MB excess spread over the ten partitions in proportion to their size:
 * each grows by 1900 / 1000, to 190 MB and 1900 ms (the hot one: 10000 x 190 / 1000). Replay:
 * ten 1900 ms tasks on ten slots, 1900 against the base 10000: 8100 simulated ms saved, of
 * 10000 simulated for 10000 ms of task time (the app ran 900..11000, tasks 1000..11000):
 * 8100 ms. */
static struct clarity_app *skew_log(const char *props, bool shuffle)
{
    struct log l;
    begin(&l, props);
    for (int i = 0; i < 10; i++) {
        long long b = (i < 9 ? 100 : 1000) * MB;
        task(&l, i, 0, 1000, i < 9 ? 2000 : 11000, shuffle ? b : 0, shuffle ? 0 : b, 0, "Success");
    }
    return end(&l, 11000);
}

Test(findings, data_skew_replay_worked)
{
    struct clarity_app *a = skew_log("\"spark.sql.adaptive.enabled\":\"false\"", true);
    struct clarity_findings r;
    analyze(a, false, &r);
    const struct clarity_finding *f = find(&r, CLARITY_FK_DATA_SKEW);
    cr_assert_not_null(f);
    cr_assert_eq(f->saving_ms, 8100);
    cr_assert(strstr(f->caveat, "in proportion"), "%s", f->caveat);
    cr_assert_eq(f->method, CLARITY_FM_REPLAY);
    cr_assert_eq(f->stage, 0);
    cr_assert(f->where & CLARITY_FW_STAGE);
    /* no SQL query: an RDD shuffle, whose remedy is in the code */
    cr_assert_str_eq(f->setting, "");
    cr_assert(strstr(f->action, "Salt the hot key"), "%s", f->action);
    cr_assert_eq(r.duration_ms, 10100);
    cr_assert_eq(r.f[0].kind, CLARITY_FK_DATA_SKEW, "the largest saving ranks first");
    clarity_findings_free(&r);
    clarity_app_free(a);
}

/* The same sizes read as input splits (no shuffle): the fix is smaller splits, so the hot
 * split is cut into pieces of the mean size, 190 MB: ceil(1000/190) = 6 pieces of 1666.7 ms.
 * Replay: nine 1 s tasks and the first piece start at 0; the other five pieces start at 1000
 * on the freed slots and end at 2666.7. Base 10000: 7333 ms saved. */
Test(findings, data_skew_input_pieces_worked)
{
    struct clarity_app *a = skew_log(NULL, false);
    struct clarity_findings r;
    analyze(a, false, &r);
    const struct clarity_finding *f = find(&r, CLARITY_FK_DATA_SKEW);
    cr_assert(f && f->saving_ms == 7333 && strstr(f->caveat, "pieces"), "%lld", f ? (long long)f->saving_ms : -1LL);
    clarity_findings_free(&r);
    clarity_app_free(a);
}

/* A slow host in a stage too small for the straggler analysis (6 tasks, under its 10): h1's
 * three tasks (even indices) take 3000 ms for 100 MB, h2's three 1000 ms, each host running its
 * three at once (the same load). h1's time per byte is 3x the other host's: a slow host. Replayed
 * at h2's median rate, the stage's makespan goes from 3000 to 1000 of 3000 simulated, for the
 * 3000 ms tasks ran (1000..4000): 2000 ms. */
Test(findings, slow_host_against_the_other_hosts)
{
    struct log l;
    begin(&l, NULL);
    for (int i = 0; i < 6; i++) task(&l, i, 0, 1000, i % 2 ? 2000 : 4000, 100 * MB, 0, 0, "Success");
    struct clarity_app *a = end(&l, 4000);
    struct clarity_findings r;
    analyze(a, false, &r);
    const struct clarity_finding *f = find(&r, CLARITY_FK_SLOW_HOST);
    cr_assert_not_null(f);
    cr_assert_str_eq(f->host, "h1");
    cr_assert_eq(f->saving_ms, 2000);
    cr_assert_eq(f->method, CLARITY_FM_REPLAY);
    clarity_findings_free(&r);
    clarity_app_free(a);
}

/* A loaded host is not a slow one: h1 runs its four tasks at once (2500 ms each), h2 its four
 * one after another (1000 ms each). h1's time per byte is 2.5x h2's, but 4 tasks ran beside each
 * of its tasks against 1 beside h2's: 2.5 / 4 = 0.63x once the load is allowed for, under 2x.
 * No slow_host, even below the reporting floor (--all). */
Test(findings, loaded_host_is_not_slow)
{
    struct log l;
    begin(&l, NULL);
    for (int i = 0; i < 8; i++) {
        long launch = i % 2 ? 1000 + 1000 * (i / 2) : 1000;
        task(&l, i, 0, launch, i % 2 ? launch + 1000 : 3500, 100 * MB, 0, 0, "Success");
    }
    struct clarity_app *a = end(&l, 5000);
    struct clarity_findings r;
    analyze(a, true, &r);
    cr_assert_null(find(&r, CLARITY_FK_SLOW_HOST));
    clarity_findings_free(&r);
    clarity_app_free(a);
}

Test(findings, no_skew_when_even)
{
    struct log l;
    begin(&l, NULL);
    for (int i = 0; i < 10; i++) task(&l, i, 0, 1000, 2000, 100 * MB, 0, 0, "Success");
    struct clarity_app *a = end(&l, 2000);
    struct clarity_findings r;
    analyze(a, true, &r);
    cr_assert_null(find(&r, CLARITY_FK_DATA_SKEW));
    cr_assert_null(find(&r, CLARITY_FK_SLOW_HOST));
    cr_assert_null(find(&r, CLARITY_FK_TASK_FAILURES));
    clarity_findings_free(&r);
    clarity_app_free(a);
}

/* Task 0: 1000..2000; task 1 fails 1000..6000 and its retry runs 6000..7000. Two slots
 * (peak concurrency). The base chains the failure and its retry (the retry could start only
 * once it failed): 0 on slot 1 (0-1000), failure + retry on slot 2 (0-6000): 6000, as the
 * log ran. Without the failure task 1 runs its 1000 where the failure ran: 1000. Saved 5000
 * of 6000 simulated for 6000 ms of task time (app 900..7000, driver 100): 5000 ms. (The
 * replay in launch order alone put the retry on slot 1 at 1000 and claimed 4800 of a 5000
 * base.) */
static struct clarity_app *retry_log(const char *reason)
{
    struct log l;
    begin(&l, NULL);
    task(&l, 0, 0, 1000, 2000, 0, 10 * MB, 0, "Success");
    task(&l, 1, 0, 1000, 6000, 0, 10 * MB, 0, reason);
    task(&l, 1, 1, 6000, 7000, 0, 10 * MB, 0, "Success");
    return end(&l, 7000);
}

Test(findings, task_failure_replay_worked)
{
    struct clarity_app *a = retry_log("{\"Reason\":\"ExceptionFailure\",\"Class Name\":"
                                      "\"java.lang.IllegalStateException\",\"Description\":\"boom\",\"Stack Trace\":[],"
                                      "\"Full Stack Trace\":\"\"}");
    struct clarity_findings r;
    analyze(a, false, &r);
    const struct clarity_finding *f = find(&r, CLARITY_FK_TASK_FAILURES);
    cr_assert_not_null(f);
    cr_assert_eq(f->saving_ms, 5000);
    cr_assert(strstr(f->title, "IllegalStateException"), "%s", f->title);
    cr_assert_eq(f->ev[0].value, 1, "one failed attempt");
    cr_assert_eq(f->ev[1].value, 5000, "its 5000 ms");
    clarity_findings_free(&r);
    clarity_app_free(a);
}

/* The same shape with the attempt lost with its executor after 5000 ms: it had not finished,
 * so without the loss task 1 needs at least those 5000 ms where it ran (not its retry's 1000,
 * run later). Replay: the base chains the lost attempt and its retry on slot 2 (6000); without
 * the loss task 1 runs 5000 there: 1000 of 6000 simulated for 6000 ms of task time, 1000 ms;
 * the log's timeline agrees (task 1 ends at 1000 + 5000 = 6000, not 7000). Taking the retry's
 * 1000 ms, as an exception's failure does above, claimed 5000 ms. */
Test(findings, lost_attempt_lower_bound_worked)
{
    struct clarity_app *a = retry_log("{\"Reason\":\"ExecutorLostFailure\",\"Executor ID\":\"2\",\"Exit Caused By "
                                      "App\":true,\"Loss Reason\":\"Remote RPC client disassociated\"}");
    struct clarity_findings r;
    analyze(a, true, &r);
    const struct clarity_finding *f = find(&r, CLARITY_FK_LOST_EXECUTORS);
    cr_assert_not_null(f);
    cr_assert_eq(f->saving_ms, 1000);
    cr_assert_null(find(&r, CLARITY_FK_TASK_FAILURES));
    clarity_findings_free(&r);
    clarity_app_free(a);
}

/* One successful attempt of a stage, on executor exec with the given locality. */
static void task_loc(struct log *l, int stage, int index, long launch, long finish, int exec, const char *loc)
{
    int id = l->ntask++;
    fprintf(l->f, "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":%d,\"Stage Attempt ID\":0,\"Task Type\":"
                  "\"ResultTask\",\"Task End Reason\":{\"Reason\":\"Success\"},\"Task Info\":{\"Task ID\":%d,\"Index\":%d,"
                  "\"Attempt\":0,\"Launch Time\":%ld,\"Executor ID\":\"%d\",\"Host\":\"h%d\",\"Locality\":\"%s\","
                  "\"Speculative\":false,\"Getting Result Time\":0,\"Finish Time\":%ld,\"Failed\":false,\"Killed\":false},"
                  "\"Task Metrics\":{\"Executor Deserialize Time\":0,\"Executor Run Time\":%ld,\"JVM GC Time\":0,"
                  "\"Result Size\":10,\"Input Metrics\":{\"Bytes Read\":1000,\"Records Read\":10}}}\n",
            stage, id, index, launch, exec, exec, loc, finish, finish - launch);
}

/* Executor 2 dies at 2500 holding the cached blocks of stage 0 ("Command exited with code
 * 137"); stage 1 reads them: index 0 PROCESS_LOCAL 3000..4000 on executor 1, index 1 waited
 * (launched 3000 ms after the stage's first) and ran ANY 6000..7000. Stage 1 had 2 tasks on
 * 4 slots, so the wait was not for a slot: its span 4000 would have been max(1000, 1000) =
 * 1000 had index 1 started with index 0: 3000 ms, estimated. The same log where the driver
 * removed executor 2 (dynamic allocation: "Executor killed by driver.") loses nothing. */
static struct clarity_app *cache_log(const char *reason)
{
    struct log l;
    begin(&l, NULL);
    task_loc(&l, 0, 0, 1000, 2000, 1, "NODE_LOCAL");
    task_loc(&l, 0, 1, 1000, 2000, 2, "NODE_LOCAL");
    fprintf(l.f, "{\"Event\":\"SparkListenerExecutorRemoved\",\"Timestamp\":2500,\"Executor ID\":\"2\",\"Removed "
                 "Reason\":\"%s\"}\n", reason);
    task_loc(&l, 1, 0, 3000, 4000, 1, "PROCESS_LOCAL");
    task_loc(&l, 1, 1, 6000, 7000, 1, "ANY");
    return end(&l, 7000);
}

Test(findings, lost_cache_wait_worked)
{
    struct clarity_app *a = cache_log("Command exited with code 137");
    struct clarity_findings r;
    analyze(a, false, &r);
    const struct clarity_finding *f = find(&r, CLARITY_FK_LOST_EXECUTORS);
    cr_assert_not_null(f);
    cr_assert_eq(f->saving_ms, 3000);
    cr_assert_eq(f->method, CLARITY_FM_ESTIMATE);
    cr_assert(strstr(f->title, "cached blocks"), "%s", f->title);
    clarity_findings_free(&r);
    clarity_app_free(a);
    a = cache_log("Executor killed by driver.");
    analyze(a, true, &r);
    cr_assert_null(find(&r, CLARITY_FK_LOST_EXECUTORS));
    clarity_findings_free(&r);
    clarity_app_free(a);
}

/* Two tasks of 8 s reading 100 MB each, on 8 configured slots (two executors of 4 cores).
 * Repartitioned to the 8 slots (200 MB / 128 MiB asks for only 2): each task split into
 * 8 / 2 = 4 pieces of 2000, 8 pieces on 8 slots: 2000 instead of 8000. 6000 of 8000 simulated for 8000 ms of
 * task time (app 900..9000, tasks 1000..9000): 6000 ms. */
Test(findings, too_few_partitions_worked)
{
    struct log l;
    begin(&l, "\"spark.sql.shuffle.partitions\":\"2\"");
    task(&l, 0, 0, 1000, 9000, 0, 100 * MB, 0, "Success");
    task(&l, 1, 0, 1000, 9000, 0, 100 * MB, 0, "Success");
    struct clarity_app *a = end(&l, 9000);
    struct clarity_findings r;
    analyze(a, false, &r);
    const struct clarity_finding *f = find(&r, CLARITY_FK_TOO_FEW_PARTITIONS);
    cr_assert_not_null(f);
    cr_assert_eq(f->saving_ms, 6000);
    cr_assert_eq(r.slots, 8);
    clarity_findings_free(&r);
    clarity_app_free(a);
}

Test(findings, enough_partitions_no_finding)
{
    struct log l;
    begin(&l, NULL);
    for (int i = 0; i < 8; i++) task(&l, i, 0, 1000, 9000, 0, 100 * MB, 0, "Success");
    struct clarity_app *a = end(&l, 9000);
    struct clarity_findings r;
    analyze(a, true, &r);
    cr_assert_null(find(&r, CLARITY_FK_TOO_FEW_PARTITIONS));
    cr_assert_null(find(&r, CLARITY_FK_TINY_TASKS));
    cr_assert_null(find(&r, CLARITY_FK_SPILL));
    clarity_findings_free(&r);
    clarity_app_free(a);
}

/* Eight tasks of 10 s, each spilling 200 MB to disk: estimated 2 x 200 MB / 100 MB/s = 4 s
 * each (no CPU time logged, so no cap). Replay: 10000 -> 6000 on 8 slots: 4000 of 10000
 * simulated for 10000 ms: 4000 ms, labelled an estimate. */
Test(findings, spill_estimate_worked)
{
    struct log l;
    begin(&l, NULL);
    for (int i = 0; i < 8; i++) task(&l, i, 0, 1000, 11000, 0, 100 * MB, 200 * MB, "Success");
    struct clarity_app *a = end(&l, 11000);
    struct clarity_findings r;
    analyze(a, false, &r);
    const struct clarity_finding *f = find(&r, CLARITY_FK_SPILL);
    cr_assert_not_null(f);
    cr_assert_eq(f->saving_ms, 4000);
    cr_assert_eq(f->method, CLARITY_FM_ESTIMATE);
    cr_assert_str_eq(f->setting, "spark.executor.memory");
    cr_assert_str_eq(f->current, "not set (default 1g)");
    cr_assert_str_eq(f->proposed, "2g");
    clarity_findings_free(&r);
    clarity_app_free(a);
}

Test(findings, empty_application)
{
    struct log l;
    begin(&l, NULL);
    struct clarity_app *a = end(&l, 5000);
    struct clarity_findings r;
    analyze(a, true, &r);
    cr_assert_eq(r.n, 0);
    cr_assert_eq(r.tasks, 0);
    clarity_findings_free(&r);
    clarity_app_free(a);
}

static double evidence(const struct clarity_finding *f, const char *name)
{
    for (size_t i = 0; i < f->nev; i++) if (!strcmp(f->ev[i].name, name)) return f->ev[i].value;
    cr_assert_fail("no evidence %s", name);
    return -1;
}

/* Eight tasks of 10 s on 8 slots, 2 s of GC each (20% of task time, over the 10% rule). The
 * fix keeps a healthy heap's GC, 2% of a task's other time: 0.02 x 8000 = 160 ms a task, so
 * each replays at 8160 ms: 1840 of 10000 simulated for 10000 ms of task time, 1840 ms
 * [estimate]. With no GC at all (the bound, in the evidence) 8000: 2000 ms. The proposal:
 * 1.5x spark.executor.memory. */
Test(findings, gc_pressure_worked)
{
    struct log l;
    begin(&l, "\"spark.executor.memory\":\"4g\"");
    for (int i = 0; i < 8; i++) task_gc(&l, i, 0, 1000, 11000, 0, 100 * MB, 0, "Success", 2000);
    struct clarity_app *a = end(&l, 11000);
    struct clarity_findings r;
    analyze(a, false, &r);
    const struct clarity_finding *f = find(&r, CLARITY_FK_GC_PRESSURE);
    cr_assert_not_null(f);
    cr_assert_eq(f->saving_ms, 1840);
    cr_assert_eq(f->method, CLARITY_FM_ESTIMATE);
    cr_assert_eq(evidence(f, "gc_ms"), 16000);
    cr_assert_eq(evidence(f, "gc_kept_ms"), 8 * 160);
    cr_assert_eq(evidence(f, "no_gc_saving_ms"), 2000);
    cr_assert_not_null(strstr(f->caveat, "2%"), "%s", f->caveat);
    cr_assert_not_null(strstr(f->caveat, "at most 2.0 s"), "%s", f->caveat);
    cr_assert_str_eq(f->current, "4g");
    cr_assert_str_eq(f->proposed, "6g");
    clarity_findings_free(&r);
    clarity_app_free(a);
}

/* The kept GC is per task, so the task with the most time outside GC sets the end: four tasks
 * of 10 s with 3 s of GC (7000 + 140 = 7140 ms after the fix) and four with 1 s (9000 + 180 =
 * 9180 ms), on 8 slots: 16000 ms of GC in 80000 (20%). The stage ends at 9180 instead of
 * 10000: 820 ms (no GC at all: 1000 ms). */
Test(findings, gc_pressure_kept_per_task)
{
    struct log l;
    begin(&l, NULL);
    for (int i = 0; i < 8; i++) task_gc(&l, i, 0, 1000, 11000, 0, 100 * MB, 0, "Success", i < 4 ? 3000 : 1000);
    struct clarity_app *a = end(&l, 11000);
    struct clarity_findings r;
    analyze(a, true, &r);
    const struct clarity_finding *f = find(&r, CLARITY_FK_GC_PRESSURE);
    cr_assert_not_null(f);
    cr_assert_eq(f->saving_ms, 820);
    cr_assert_eq(evidence(f, "gc_kept_ms"), 4 * 140 + 4 * 180);
    cr_assert_eq(evidence(f, "no_gc_saving_ms"), 1000);
    cr_assert_str_eq(f->current, "not set (default 1g)");
    clarity_findings_free(&r);
    clarity_app_free(a);
}

/* The saving on the log's own schedule (fnd28): executor 1 (even indexes) starts its four
 * tasks at 1000, executor 2 its four at 3000 (it joined late); each runs 5000 ms with 1000 of
 * GC. Executor 1 then runs two more tasks of 2000 ms (500 of GC) as its first ones end at 6000,
 * ending at 8000 with executor 2's: 9000 ms of GC in 44000 (20%). The fix keeps 2% of each
 * task's other time: 80 ms of the 5000-ms tasks (cut 920), 30 of the 2000-ms ones (cut 470).
 * On the logged slots executor 1's chains end at 1000 + 4080 + 1530 = 6610, executor 2's at
 * 3000 + 4080 = 7080: the stage ends 920 ms earlier (no GC at all: 8000 - 7000 = 1000). The
 * component replay started all eight slots together (makespan 7000 -> 5610) and said 1390. */
Test(findings, gc_pressure_on_logged_schedule)
{
    struct log l;
    begin(&l, NULL);
    for (int i = 0; i < 8; i++) {
        long launch = i % 2 ? 3000 : 1000;
        task_gc(&l, i, 0, launch, launch + 5000, 0, 100 * MB, 0, "Success", 1000);
    }
    task_gc(&l, 8, 0, 6000, 8000, 0, 100 * MB, 0, "Success", 500);
    task_gc(&l, 10, 0, 6000, 8000, 0, 100 * MB, 0, "Success", 500);
    struct clarity_app *a = end(&l, 8000);
    struct clarity_findings r;
    analyze(a, true, &r);
    const struct clarity_finding *f = find(&r, CLARITY_FK_GC_PRESSURE);
    cr_assert_not_null(f);
    cr_assert_eq(f->saving_ms, 920);
    cr_assert_eq(f->method, CLARITY_FM_ESTIMATE);
    cr_assert_eq(evidence(f, "gc_ms"), 9000);
    cr_assert_eq(evidence(f, "gc_kept_ms"), 8 * 80 + 2 * 30);
    cr_assert_eq(evidence(f, "no_gc_saving_ms"), 1000);
    cr_assert_not_null(strstr(f->caveat, "log's own schedule"), "%s", f->caveat);
    clarity_findings_free(&r);
    clarity_app_free(a);
}

Test(findings, gc_under_threshold_no_finding)
{
    struct log l;
    begin(&l, NULL);
    for (int i = 0; i < 8; i++) task_gc(&l, i, 0, 1000, 11000, 0, 100 * MB, 0, "Success", 900);
    struct clarity_app *a = end(&l, 11000);
    struct clarity_findings r;
    analyze(a, true, &r);
    cr_assert_null(find(&r, CLARITY_FK_GC_PRESSURE), "9%% GC is under the 10%% rule");
    clarity_findings_free(&r);
    clarity_app_free(a);
}

/* The minimum-saving filter: the skew case of data_skew_replay_worked saves 8100 ms of 10100
 * and is kept; asking for at least 85% of the run drops it (its replay is then skipped). */
Test(findings, minimum_saving_filter)
{
    struct clarity_app *a = skew_log(NULL, true);
    struct clarity_findings_options o = {.threads = 1, .min_share = 0.85};
    struct clarity_findings r;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_findings_analyze(a, &o, &r, &err), 0);
    cr_assert_null(find(&r, CLARITY_FK_DATA_SKEW));
    clarity_findings_free(&r);
    o.min_share = 0.75;
    cr_assert_eq(clarity_findings_analyze(a, &o, &r, &err), 0);
    cr_assert_not_null(find(&r, CLARITY_FK_DATA_SKEW), "8100 of 10100 is 80%%");
    clarity_findings_free(&r);
    clarity_app_free(a);
}

/* Spill on a skewed stage is not counted twice. skew_log's shapes (nine 1 s tasks of 100 MB,
 * one 10 s task of 1000 MB, an RDD shuffle) with the nine spilling 25 MB each (2 x 25 MB at
 * 100 MB/s: 500 ms each) and the hot one 200 MB (4000 ms). The data_skew replay runs the hot
 * task at the median size without that spill: 8100 ms as in data_skew_replay_worked. Before,
 * the spill replay also cut the hot task to 6000 ms: 4000 ms, and the two summed to 12100 ms
 * of a 10100 ms run. Now it replays only the nine's spill: they end at 500 ms, the hot task
 * still at 10000, so 0 ms, and with the filter on there is no spill finding at all. */
static struct clarity_app *skew_spill_log(bool others_spill)
{
    struct log l;
    begin(&l, NULL);
    for (int i = 0; i < 10; i++) {
        long long b = (i < 9 ? 100 : 1000) * MB, sp = i < 9 ? (others_spill ? 25 * MB : 0) : 200 * MB;
        task(&l, i, 0, 1000, i < 9 ? 2000 : 11000, b, 0, sp, "Success");
    }
    return end(&l, 11000);
}

Test(findings, skew_spill_not_counted_twice)
{
    struct clarity_app *a = skew_spill_log(true);
    struct clarity_findings r;
    analyze(a, true, &r);
    const struct clarity_finding *sk = find(&r, CLARITY_FK_DATA_SKEW), *sp = find(&r, CLARITY_FK_SPILL);
    cr_assert(sk && sp);
    cr_assert_eq(sk->saving_ms, 8100);
    cr_assert_eq(sp->saving_ms, 0, "the hot task's spill is in data_skew's 8100: %lld", (long long)sp->saving_ms);
    cr_assert_eq(evidence(sp, "overlaps_data_skew"), 1);
    cr_assert_eq(evidence(sp, "skewed_tasks_disk_spilled_bytes"), 200 * MB);
    cr_assert_eq(evidence(sp, "spilling_tasks_counted"), 9);
    cr_assert_eq(evidence(sp, "disk_spilled_bytes"), 425 * MB, "the stage's total, as before");
    cr_assert(strstr(sp->caveat, "9 tasks not skewed"), "%s", sp->caveat);
    clarity_findings_free(&r);
    analyze(a, false, &r);
    cr_assert_not_null(find(&r, CLARITY_FK_DATA_SKEW));
    cr_assert_null(find(&r, CLARITY_FK_SPILL));
    clarity_findings_free(&r);
    clarity_app_free(a);
}

/* Only the hot task spilled: the data_skew finding holds all of it, no spill finding even
   unfiltered (before: 4000 ms on top of data_skew's 8100) */
Test(findings, skew_spill_only_hot_task)
{
    struct clarity_app *a = skew_spill_log(false);
    struct clarity_findings r;
    analyze(a, true, &r);
    cr_assert_not_null(find(&r, CLARITY_FK_DATA_SKEW));
    cr_assert_null(find(&r, CLARITY_FK_SPILL));
    clarity_findings_free(&r);
    clarity_app_free(a);
}
