/* Block-update storage, exclusion, Spark 2.x peak memory, miscellaneous processes, /version and
 * the event-log ZIP over tests/unit/shs/data18 (written for these tests):
 *   app-rest18-2x.json   Spark 2.4: executors 1, 2 on host-a, 3 on host-b (no on/off-heap
 *       sizes); stage 0 caches RDD 5 (2 partitions, memory deserialized); tasks 0 (exec 1)
 *       and 1 (exec 2) carry peak memory only as the internal accumulable (4096, 8192);
 *       exec 1 excluded for stage 0, node host-b excluded for stage 0, node host-a excluded
 *       after the job; block updates: rdd_5_0 on 1 (100 B), rdd_5_1 on 3 then 2 (200 B each),
 *       broadcast_0 on 1 (50 B), then rdd_5_0 dropped from 1 (100 B); a YARN AM process.
 *   eventlog_v2_app-rest18-roll/   a rolling log: events_1, events_2 and its appstatus file.
 * The expected values are worked by hand from AppStatusListener's rules (each noted). */
#include <zlib.h>
#include "shs_helpers.h"

static struct shs_fixture fx;
static void setup(void) { shs_fixture_load(&fx, "tests/unit/shs/data18"); }
static void teardown(void) { shs_fixture_free(&fx); }
TestSuite(shs_storage, .init = setup, .fini = teardown);

#define A "/applications/app-rest18-2x"

Test(shs_storage, rdd_list_from_block_updates)
{
    struct shs_answer x;
    shs_ask(&x, &fx, A "/storage/rdd");
    cr_assert_eq(shs_len(x.root, ""), 1);
    cr_assert_eq(shs_int(x.root, "0.id"), 5);
    cr_assert_str_eq(shs_str(x.root, "0.name"), "cached");
    cr_assert_eq(shs_int(x.root, "0.numPartitions"), 2);
    /* rdd_5_0 left its only holder: one cached partition */
    cr_assert_eq(shs_int(x.root, "0.numCachedPartitions"), 1);
    cr_assert_str_eq(shs_str(x.root, "0.storageLevel"), "Memory Deserialized 1x Replicated");
    /* 100 + 200 + 200 - 100 */
    cr_assert_eq(shs_int(x.root, "0.memoryUsed"), 400);
    cr_assert_eq(shs_int(x.root, "0.diskUsed"), 0);
    /* the partition: level from where it is (2 holders), sizes summed over its holders */
    cr_assert_eq(shs_len(x.root, "0.partitions"), 1);
    cr_assert_str_eq(shs_str(x.root, "0.partitions.0.blockName"), "rdd_5_1");
    cr_assert_str_eq(shs_str(x.root, "0.partitions.0.storageLevel"), "Memory Deserialized 2x Replicated");
    cr_assert_eq(shs_int(x.root, "0.partitions.0.memoryUsed"), 400);
    cr_assert_str_eq(shs_str(x.root, "0.partitions.0.executors.0"), "3");
    cr_assert_str_eq(shs_str(x.root, "0.partitions.0.executors.1"), "2");
    /* exec 1's distribution went with its last block */
    cr_assert_eq(shs_len(x.root, "0.dataDistribution"), 2);
    cr_assert_str_eq(shs_str(x.root, "0.dataDistribution.0.address"), "host-b:7003");
    cr_assert_eq(shs_int(x.root, "0.dataDistribution.0.memoryUsed"), 200);
    /* 1000 max - 200 used when the RDD was written */
    cr_assert_eq(shs_int(x.root, "0.dataDistribution.0.memoryRemaining"), 800);
    cr_assert_not(shs_has(shs_at(x.root, "0.dataDistribution.0"), "onHeapMemoryUsed"), "exec 3 logged no on-heap size");
    cr_assert_str_eq(shs_str(x.root, "0.dataDistribution.1.address"), "host-a:7002");
    cr_assert_eq(shs_int(x.root, "0.dataDistribution.1.onHeapMemoryUsed"), 200);
    /* 600 on-heap - 200, 400 off-heap - 0 */
    cr_assert_eq(shs_int(x.root, "0.dataDistribution.1.onHeapMemoryRemaining"), 400);
    cr_assert_eq(shs_int(x.root, "0.dataDistribution.1.offHeapMemoryRemaining"), 400);
    shs_answer_free(&x);
}

Test(shs_storage, one_rdd_and_unknown_rdd)
{
    struct shs_answer x;
    shs_ask(&x, &fx, A "/storage/rdd/5");
    cr_assert_eq(shs_int(x.root, "id"), 5);
    cr_assert_eq(shs_int(x.root, "memoryUsed"), 400);
    shs_answer_free(&x);
    shs_expect_error(&fx, A "/storage/rdd/6", CLARITY_ENOTFOUND, 404, "unknown rdd: 6");
}

Test(shs_storage, executors_storage_use)
{
    struct shs_answer x;
    shs_ask(&x, &fx, A "/executors");
    cr_assert_eq(shs_len(x.root, ""), 4);
    cr_assert_str_eq(shs_str(x.root, "3.id"), "1");
    /* exec 1: rdd_5_0 added then dropped, broadcast_0 kept: 100 + 50 - 100 */
    cr_assert_eq(shs_int(x.root, "3.rddBlocks"), 0);
    cr_assert_eq(shs_int(x.root, "3.memoryUsed"), 50);
    cr_assert_eq(shs_int(x.root, "3.memoryMetrics.usedOnHeapStorageMemory"), 50);
    cr_assert_str_eq(shs_str(x.root, "2.id"), "2");
    cr_assert_eq(shs_int(x.root, "2.rddBlocks"), 1);
    cr_assert_eq(shs_int(x.root, "2.memoryUsed"), 200);
    cr_assert_str_eq(shs_str(x.root, "1.id"), "3");
    cr_assert_eq(shs_int(x.root, "1.rddBlocks"), 1);
    cr_assert_eq(shs_int(x.root, "1.memoryUsed"), 200);
    cr_assert_not(shs_has(shs_at(x.root, "1"), "memoryMetrics"));
    shs_answer_free(&x);
}

Test(shs_storage, node_exclusion_spares_the_driver)
{
    struct shs_answer x;
    shs_ask(&x, &fx, A "/executors");
    cr_assert_str_eq(shs_str(x.root, "0.id"), "driver");
    cr_assert_not(shs_bool(x.root, "0.isExcluded"), "the driver shares host-a but is never excluded");
    cr_assert(shs_bool(x.root, "3.isExcluded"), "exec 1 on host-a");
    cr_assert(shs_bool(x.root, "3.isBlacklisted"));
    cr_assert(shs_bool(x.root, "2.isExcluded"), "exec 2 on host-a");
    cr_assert_not(shs_bool(x.root, "1.isExcluded"), "exec 3 is on host-b");
    /* stage 0 completed: SHS drops it from excludedInStages */
    cr_assert_eq(shs_len(x.root, "3.excludedInStages"), 0);
    cr_assert_eq(shs_len(x.root, "1.excludedInStages"), 0);
    shs_answer_free(&x);
}

Test(shs_storage, stage_exclusion_in_executor_summary)
{
    struct shs_answer x;
    shs_ask(&x, &fx, A "/stages/0/0");
    cr_assert_eq(shs_len(x.root, "executorSummary"), 3);
    cr_assert(shs_bool(x.root, "executorSummary.1.isExcludedForStage"));
    cr_assert(shs_bool(x.root, "executorSummary.1.isBlacklistedForStage"));
    cr_assert_not(shs_bool(x.root, "executorSummary.2.isExcludedForStage"));
    /* exec 3 ran nothing: its entry exists because host-b was excluded for the stage */
    cr_assert(shs_bool(x.root, "executorSummary.3.isExcludedForStage"));
    cr_assert_eq(shs_int(x.root, "executorSummary.3.taskTime"), 0);
    shs_answer_free(&x);
}

Test(shs_storage, spark2_peak_execution_memory_reads_zero)
{
    /* JsonProtocol reads "Peak Execution Memory" from Task Metrics only (Spark 3.0+): the
     * internal accumulable (4096, 8192 here) is not shown, so SHS answers 0 */
    struct shs_answer x;
    shs_ask(&x, &fx, A "/stages/0/0");
    cr_assert_eq(shs_int(x.root, "peakExecutionMemory"), 0);
    cr_assert_eq(shs_int(x.root, "tasks.0.taskMetrics.peakExecutionMemory"), 0);
    cr_assert_eq(shs_int(x.root, "tasks.1.taskMetrics.peakExecutionMemory"), 0);
    shs_answer_free(&x);
    /* the model keeps the value for the analyses */
    const struct clarity_app *a = NULL;
    for (size_t i = 0; i < fx.napps; i++)
        if (!strcmp(clarity_app_str(fx.apps[i], fx.apps[i]->app_id), "app-rest18-2x")) a = fx.apps[i];
    cr_assert_not_null(a);
    cr_assert(a->peak_exec_mem_from_accums);
    int64_t sum = 0;
    for (size_t i = 0; i < a->tasks.n; i++) sum += clarity_task_metric(a, i, CLARITY_TM_PEAK_EXEC_MEM);
    cr_assert_eq(sum, 4096 + 8192);
}

Test(shs_storage, miscellaneous_process)
{
    struct shs_answer x;
    shs_ask(&x, &fx, A "/allmiscellaneousprocess");
    cr_assert_str_eq(shs_str(x.root, "0.id"), "yarn-am");
    cr_assert(shs_bool(x.root, "0.isActive"), "the listener marks every process it hears of active");
    cr_assert_eq(shs_int(x.root, "0.totalCores"), 1);
    cr_assert_str_eq(shs_str(x.root, "0.processLogs.stdout"), "http://host-c:8042/stdout");
    cr_assert_str_eq(shs_str(x.root, "0.processLogs.stderr"), "http://host-c:8042/stderr");
    shs_answer_free(&x);
}

Test(shs_storage, version)
{
    struct shs_answer x;
    shs_ask(&x, &fx, "/api/v1/version");
    cr_assert_str_eq(x.res.body, "{\n  \"spark\" : \"" CLARITY_SHS_SPARK_VERSION "\"\n}\n");
    cr_assert_str_eq(x.res.content_type, "application/json");
    shs_answer_free(&x);
}

/* ---- the event log ZIP ---- */

static uint32_t le32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }

struct zip_ent { char name[128]; uint32_t crc, usize; };

/* Reads the central directory: the end record's count and offset, then each entry. */
static size_t zip_entries(const unsigned char *z, size_t len, struct zip_ent *out, size_t max)
{
    cr_assert_geq(len, 22);
    const unsigned char *end = z + len - 22;
    cr_assert_eq(le32(end), 0x06054b50u, "end of central directory last, no comment");
    size_t n = le16(end + 10), at = le32(end + 16);
    cr_assert_leq(n, max);
    for (size_t i = 0; i < n; i++) {
        const unsigned char *c = z + at;
        cr_assert_eq(le32(c), 0x02014b50u);
        size_t nlen = le16(c + 28), xlen = le16(c + 30), clen = le16(c + 32);
        cr_assert_lt(nlen, sizeof out[i].name);
        memcpy(out[i].name, c + 46, nlen);
        out[i].name[nlen] = 0;
        out[i].crc = le32(c + 16);
        out[i].usize = le32(c + 24);
        cr_assert_eq(le32(z + le32(c + 42)), 0x04034b50u, "local header where the entry says");
        at += 46 + nlen + xlen + clen;
    }
    return n;
}

static void expect_file(const struct zip_ent *e, const char *rel)
{
    char path[1024], buf[1 << 16];
    FILE *f = fopen(shs_test_path(rel, path, sizeof path), "rb");
    cr_assert_not_null(f, "%s", path);
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    cr_assert_eq(e->usize, n, "%s size", e->name);
    cr_assert_eq(e->crc, (uint32_t)crc32(0L, (const Bytef *)buf, (uInt)n), "%s CRC", e->name);
}

Test(shs_storage, logs_zip_of_a_single_file)
{
    struct shs_answer x = {0};
    x.rc = clarity_shs_answer((struct clarity_app *const *)fx.apps, fx.napps, A "/logs", true, &x.res, &x.err);
    cr_assert_eq(x.rc, CLARITY_OK, "%s", x.err.msg);
    cr_assert_str_eq(x.res.content_type, "application/octet-stream");
    cr_assert_str_eq(x.res.filename, "eventLogs-app-rest18-2x.zip");
    struct zip_ent e[8];
    cr_assert_eq(zip_entries((const unsigned char *)x.res.body, x.res.len, e, 8), 1);
    cr_assert_str_eq(e[0].name, "app-rest18-2x.json", "a single file is named as the file");
    expect_file(&e[0], "tests/unit/shs/data18/app-rest18-2x.json");
    clarity_shs_response_free(&x.res);
    cr_assert_str_eq(clarity_shs_content_type("/api/v1/applications/x/1/logs"), "application/octet-stream");
    cr_assert_str_eq(clarity_shs_content_type("/api/v1/applications/x/jobs"), "application/json");
}

Test(shs_storage, logs_zip_of_a_rolling_directory)
{
    struct shs_answer x = {0};
    x.rc = clarity_shs_answer((struct clarity_app *const *)fx.apps, fx.napps, "/applications/app-rest18-roll/logs", true,
                              &x.res, &x.err);
    cr_assert_eq(x.rc, CLARITY_OK, "%s", x.err.msg);
    struct zip_ent e[8];
    /* the directory, then every file in it by name, as zipEventLogFiles writes them */
    cr_assert_eq(zip_entries((const unsigned char *)x.res.body, x.res.len, e, 8), 4);
    cr_assert_str_eq(e[0].name, "eventlog_v2_app-rest18-roll/");
    cr_assert_eq(e[0].usize, 0);
    cr_assert_str_eq(e[1].name, "eventlog_v2_app-rest18-roll/appstatus_app-rest18-roll");
    cr_assert_str_eq(e[2].name, "eventlog_v2_app-rest18-roll/events_1_app-rest18-roll");
    cr_assert_str_eq(e[3].name, "eventlog_v2_app-rest18-roll/events_2_app-rest18-roll");
    expect_file(&e[2], "tests/unit/shs/data18/eventlog_v2_app-rest18-roll/events_1_app-rest18-roll");
    expect_file(&e[3], "tests/unit/shs/data18/eventlog_v2_app-rest18-roll/events_2_app-rest18-roll");
    clarity_shs_response_free(&x.res);
    shs_expect_error(&fx, "/applications/app-rest18-roll/3/logs", CLARITY_ENOTFOUND, 404,
                     "unknown app attempt: app-rest18-roll/3");
}

Test(shs_storage, executor_metrics_distributions)
{
    /* over the stage's 3 executorSummary entries: exec 1 and 2 ran a 1000 ms task each, exec
     * 3 is there by exclusion only; quantile q reads sorted[min(trunc(3q), 2)] */
    struct shs_answer x;
    shs_ask(&x, &fx, A "/stages/0/0?withSummaries=true");
    const double want_time[] = {0, 0, 1000, 1000, 1000}, want_ok[] = {0, 0, 1, 1, 1};
    cr_assert_eq(shs_len(x.root, "executorMetricsDistributions.quantiles"), 5);
    for (int i = 0; i < 5; i++) {
        char p[96];
        snprintf(p, sizeof p, "executorMetricsDistributions.taskTime.%d", i);
        cr_assert_eq(shs_dbl(x.root, p), want_time[i], "%s", p);
        snprintf(p, sizeof p, "executorMetricsDistributions.succeededTasks.%d", i);
        cr_assert_eq(shs_dbl(x.root, p), want_ok[i], "%s", p);
    }
    /* peaks over the two entries that show peakMemoryMetrics (none logged: zeros) */
    cr_assert_eq(shs_len(x.root, "executorMetricsDistributions.peakMemoryMetrics"), 21);
    cr_assert_eq(shs_dbl(x.root, "executorMetricsDistributions.peakMemoryMetrics.JVMHeapMemory.4"), 0);
    shs_answer_free(&x);
    /* without withSummaries the field is absent */
    shs_ask(&x, &fx, A "/stages/0/0");
    cr_assert_not(shs_has(x.root, "executorMetricsDistributions"));
    shs_answer_free(&x);
}
