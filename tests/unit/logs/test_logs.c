/* Log parsers on LADRA's Fig. 2 and Fig. 3 lines and on lines as Spark 1.6, 2.x, 3.x and 4.x and JDK 8/17 write them. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "clarity/logs.h"
#include "clarity/model.h"

#define T_2017_02_22_210402 1487797442000LL   /* 2017-02-22 21:04:02 UTC */

static int parse(const char *s, struct clarity_l4j_line *x) { return clarity_l4j_parse(s, strlen(s), x); }

Test(log4j, t1_1_start_paper)
{
    struct clarity_l4j_line x;
    cr_assert_eq(parse("17/02/22 21:04:02.259 INFO TaskSetManager: Starting task 12.0 in stage 1.0 (TID 58, "
                       "10.190.128.101, partition 12, ANY, 5900 bytes)", &x), CLARITY_L4J_START);
    cr_assert_eq(x.ts_ms, T_2017_02_22_210402 + 259);
    cr_assert_eq(x.task_index, 12); cr_assert_eq(x.task_attempt, 0); cr_assert_eq(x.stage, 1);
    cr_assert_eq(x.stage_attempt, 0); cr_assert_eq(x.tid, 58); cr_assert_str_eq(x.host, "10.190.128.101");
    cr_assert_eq(x.partition, 12); cr_assert_eq(x.locality, CLARITY_LOC_ANY); cr_assert_eq(x.bytes, 5900);
    cr_assert_str_eq(x.logger, "TaskSetManager");
}

Test(log4j, t1_2_launch)
{
    struct clarity_l4j_line x;
    cr_assert_eq(parse("17/02/22 21:04:02.259 INFO CoarseGrainedSchedulerBackend$DriverEndpoint: Launching task 58 on "
                       "executor id: 1 hostname: 10.190.128.101.", &x), CLARITY_L4J_LAUNCH);
    cr_assert_eq(x.tid, 58); cr_assert_str_eq(x.executor, "1"); cr_assert_str_eq(x.host, "10.190.128.101");
}

Test(log4j, t1_3_finish)
{
    struct clarity_l4j_line x;
    cr_assert_eq(parse("17/02/22 21:04:02.276 INFO TaskSetManager: Finished task 1.0 in stage 1.0 (TID 47) in 14075 ms "
                       "on 10.190.128.101 (1/384)", &x), CLARITY_L4J_FINISH);
    cr_assert_eq(x.task_index, 1); cr_assert_eq(x.tid, 47); cr_assert_eq(x.duration_ms, 14075);
    cr_assert_str_eq(x.host, "10.190.128.101"); cr_assert_eq(x.done, 1); cr_assert_eq(x.total, 384);
    /* derived start 21:03:48.201 */
    cr_assert_eq(x.ts_ms - x.duration_ms, T_2017_02_22_210402 - 14000 + 201);
}

Test(log4j, t1_4_spark2_spark3_and_no_millis)
{
    struct clarity_l4j_line x;
    cr_assert_eq(parse("17/02/22 21:04:02 INFO TaskSetManager: Starting task 12.0 in stage 1.0 (TID 58, 10.190.128.101, "
                       "executor 1, partition 12, ANY, 5900 bytes)", &x), CLARITY_L4J_START);
    cr_assert_eq(x.ts_ms, T_2017_02_22_210402); cr_assert(!x.ts_has_ms);
    cr_assert_str_eq(x.executor, "1"); cr_assert_eq(x.partition, 12); cr_assert_eq(x.locality, CLARITY_LOC_ANY);
    cr_assert_eq(parse("17/02/22 21:04:02 INFO TaskSetManager: Finished task 1.0 in stage 1.0 (TID 47) in 14075 ms on "
                       "10.190.128.101 (executor 1) (1/384)", &x), CLARITY_L4J_FINISH);
    cr_assert_str_eq(x.executor, "1"); cr_assert_eq(x.duration_ms, 14075); cr_assert_eq(x.total, 384);
    /* Spark 3.x: "(TID 0) (host1, executor 0, partition 0, NODE_LOCAL, 7800 bytes) " */
    cr_assert_eq(parse("24/03/01 09:00:01 INFO TaskSetManager: Starting task 0.0 in stage 0.0 (TID 0) (host1, executor 0, "
                       "partition 0, NODE_LOCAL, 7800 bytes) ", &x), CLARITY_L4J_START);
    cr_assert_str_eq(x.host, "host1"); cr_assert_str_eq(x.executor, "0"); cr_assert_eq(x.locality, CLARITY_LOC_NODE_LOCAL);
    cr_assert_eq(x.bytes, 7800);
    /* Spark 1.x: "partition 12,ANY" */
    cr_assert_eq(parse("16/01/05 10:00:00 INFO TaskSetManager: Starting task 12.0 in stage 1.0 (TID 58, node7, "
                       "partition 12,PROCESS_LOCAL, 2100 bytes)", &x), CLARITY_L4J_START);
    cr_assert_eq(x.locality, CLARITY_LOC_PROCESS_LOCAL); cr_assert_eq(x.bytes, 2100);
    /* ISO with ,SSS and a thread */
    cr_assert_eq(parse("2019-05-01 10:00:00,123 [Executor task launch worker for task 7] INFO Executor: Running task 3.0 "
                       "in stage 2.0 (TID 7)", &x), CLARITY_L4J_RUNNING);
    cr_assert_eq(x.tid, 7); cr_assert(x.ts_has_ms);
    cr_assert_eq(parse("24/03/01 09:00:06 INFO Executor: Finished task 22.0 in stage 0.0 (TID 22). 2747 bytes result "
                       "sent to driver", &x), CLARITY_L4J_EXEC_FINISHED);
    cr_assert_eq(x.tid, 22); cr_assert_eq(x.bytes, 2747);
    cr_assert_eq(parse("24/03/01 09:00:02 INFO Executor: Starting executor ID 2 on host host3", &x), CLARITY_L4J_EXECUTOR_ID);
    cr_assert_str_eq(x.executor, "2"); cr_assert_str_eq(x.host, "host3");
}

Test(log4j, spark4_json)
{
    struct clarity_l4j_line x;
    cr_assert_eq(parse("{\"ts\":\"2024-06-01T10:00:00.123Z\",\"level\":\"INFO\",\"msg\":\"Finished task 3.0 in stage 2.0 "
                       "(TID 9) in 1500 ms on host2 (executor 4) (3/8)\",\"context\":{\"executor_id\":\"4\"},"
                       "\"logger\":\"org.apache.spark.scheduler.TaskSetManager\"}", &x), CLARITY_L4J_FINISH);
    cr_assert(x.json); cr_assert_eq(x.tid, 9); cr_assert_eq(x.duration_ms, 1500); cr_assert_str_eq(x.executor, "4");
    cr_assert_str_eq(x.logger, "TaskSetManager");
    cr_assert_eq(x.ts_ms % 1000, 123);
}

Test(log4j, t1_7_noise)
{
    struct clarity_l4j_line x;
    cr_assert_eq(parse("\tat org.apache.spark.executor.Executor.run(Executor.scala:1)", &x), CLARITY_L4J_NONE);
    cr_assert_eq(parse("LogType:stderr", &x), CLARITY_L4J_NONE);
    cr_assert_eq(parse("24/03/01 09:00:02 INFO MemoryStore: MemoryStore started with capacity 9.4 GiB", &x),
                 CLARITY_L4J_OTHER);
    cr_assert_eq(parse("24/03/01 09:00:02 NOTALEVEL Foo: bar", &x), CLARITY_L4J_NONE);
}

static const char *FIG3 = "[GC (Allocation Failure) [PSYoungGen: 95744K->9080K(111616K)] 95744K->9088K(367104K), "
                          "0.0087250 secs] [Times: user=0.03, sys=0.01, real=0.01 secs]";

Test(gclog, t1_5_fig3)
{
    struct clarity_gc_rec r;
    cr_assert_eq(clarity_gc_parse_jdk8(FIG3, strlen(FIG3), &r), 0);
    cr_assert(!r.full); cr_assert_str_eq(r.cause, "Allocation Failure");
    cr_assert_float_eq(r.young_before_kb, 95744, 1e-9); cr_assert_float_eq(r.young_after_kb, 9080, 1e-9);
    cr_assert_float_eq(r.young_cap_kb, 111616, 1e-9);
    cr_assert_float_eq(r.heap_before_kb, 95744, 1e-9); cr_assert_float_eq(r.heap_after_kb, 9088, 1e-9);
    cr_assert_float_eq(r.heap_cap_kb, 367104, 1e-9);
    cr_assert_float_eq(r.pause_s, 0.0087250, 1e-12);
    cr_assert_float_eq(r.user_s, 0.03, 1e-12); cr_assert_float_eq(r.sys_s, 0.01, 1e-12);
    cr_assert_float_eq(r.real_s, 0.01, 1e-12);
    cr_assert_float_eq(r.real_s / (r.user_s + r.sys_s), 0.25, 1e-12);
    cr_assert_eq(r.ts_ms, -1);
}

Test(gclog, t1_5_jdk8_comma_and_wrapped_with_stamps)
{
    struct clarity_gc_parser p;
    clarity_gc_parser_init(&p);
    struct clarity_gc_rec r;
    const char *l1 = "2017-02-22T21:04:02.259+0000: 12.345: [GC (Allocation Failure) [PSYoungGen: 95744K->9080K(111616K)] ";
    const char *l2 = "95744K->9088K(367104K), 0.0087250 secs] ";
    const char *l3 = "[Times: user=0.03 sys=0.01, real=0.01 secs] ";
    cr_assert_eq(clarity_gc_feed(&p, l1, strlen(l1), &r), 0);
    cr_assert_eq(clarity_gc_feed(&p, l2, strlen(l2), &r), 0);
    cr_assert_eq(clarity_gc_feed(&p, l3, strlen(l3), &r), 1);
    cr_assert_eq(r.ts_ms, T_2017_02_22_210402 + 259);
    cr_assert_float_eq(r.uptime_s, 12.345, 1e-9);
    cr_assert_float_eq(r.heap_after_kb, 9088, 1e-9); cr_assert_float_eq(r.user_s, 0.03, 1e-12);
    /* zone offsets move the stamp to UTC */
    const char *z = "2017-02-22T22:04:02.259+0100: [GC (Allocation Failure) [PSYoungGen: 1K->1K(2K)] 1K->1K(4K), 0.001 "
                    "secs] [Times: user=0.00 sys=0.00, real=0.00 secs]";
    cr_assert_eq(clarity_gc_feed(&p, z, strlen(z), &r), 1);
    cr_assert_eq(r.ts_ms, T_2017_02_22_210402 + 259);
}

Test(gclog, t1_6_full_gc)
{
    const char *s = "2024-03-01T09:00:26.054+0000: 25.229: [Full GC (Ergonomics) [PSYoungGen: 80831K->0K(5592405K)] "
                    "[ParOldGen: 1105795K->1005795K(11184811K)] 1186626K->1005795K(16777216K), [Metaspace: "
                    "60000K->60000K(1099776K)], 0.9123456 secs] [Times: user=2.50 sys=0.05, real=0.91 secs]";
    struct clarity_gc_rec r;
    cr_assert_eq(clarity_gc_parse_jdk8(s, strlen(s), &r), 0);
    cr_assert(r.full); cr_assert_str_eq(r.cause, "Ergonomics");
    cr_assert_float_eq(r.heap_before_kb, 1186626, 1e-9); cr_assert_float_eq(r.heap_after_kb, 1005795, 1e-9);
    cr_assert_float_eq(r.heap_cap_kb, 16777216, 1e-9); cr_assert_float_eq(r.pause_s, 0.9123456, 1e-12);
    cr_assert_float_eq(r.real_s, 0.91, 1e-12);
}

Test(gclog, jdk8_g1_details)
{
    const char *lines[] = {
        "2019-05-01T10:00:05.000+0000: 5.000: [GC pause (G1 Evacuation Pause) (young), 0.0123456 secs]",
        "   [Parallel Time: 10.5 ms, GC Workers: 4]",
        "      [GC Worker Start (ms): Min: 5000.1, Avg: 5000.2, Max: 5000.3, Diff: 0.2]",
        "   [Eden: 24.0M(24.0M)->0.0B(13.0M) Survivors: 0.0B->3072.0K Heap: 24.0M(256.0M)->5.1M(256.0M)]",
        " [Times: user=0.03 sys=0.00, real=0.01 secs] "};
    struct clarity_gc_parser p;
    clarity_gc_parser_init(&p);
    struct clarity_gc_rec r;
    int got = 0;
    for (int i = 0; i < 5; i++) got += clarity_gc_feed(&p, lines[i], strlen(lines[i]), &r);
    cr_assert_eq(got, 1);
    cr_assert_str_eq(r.cause, "G1 Evacuation Pause");
    cr_assert_float_eq(r.heap_before_kb, 24 * 1024, 1e-9);
    cr_assert_float_eq(r.heap_after_kb, 5.1 * 1024, 1e-6);
    cr_assert_float_eq(r.heap_cap_kb, 256 * 1024, 1e-9);
    cr_assert_float_eq(r.pause_s, 0.0123456, 1e-12);
    cr_assert_float_eq(r.user_s, 0.03, 1e-12);
}

Test(gclog, unified_g1)
{
    const char *lines[] = {
        "[2024-03-01T09:00:01.718+0000][0.012s][info][gc,init] Version: 17.0.10+7 (release)",
        "[2024-03-01T09:00:07.321+0000][5.603s][info][gc,start    ] GC(0) Pause Young (Normal) (G1 Evacuation Pause)",
        "[2024-03-01T09:00:07.466+0000][5.748s][info][gc          ] GC(0) Pause Young (Normal) (G1 Evacuation Pause) "
        "5521M->222M(16384M) 145.527ms",
        "[2024-03-01T09:00:07.466+0000][5.748s][info][gc,cpu      ] GC(0) User=0.36s Sys=0.01s Real=0.15s",
        "[12.000s][info][gc] GC(1) Pause Full (System.gc()) 300M->200M(16384M) 500.000ms"};
    struct clarity_gc_parser p;
    clarity_gc_parser_init(&p);
    struct clarity_gc_rec r;
    int got = 0;
    for (int i = 0; i < 4; i++) got += clarity_gc_feed(&p, lines[i], strlen(lines[i]), &r);
    cr_assert_eq(got, 1);
    cr_assert_eq(r.ts_ms, 1709283607466LL);
    cr_assert_float_eq(r.heap_after_kb, 222 * 1024, 1e-9); cr_assert_float_eq(r.heap_cap_kb, 16384 * 1024, 1e-9);
    cr_assert_float_eq(r.pause_s, 0.145527, 1e-9); cr_assert_float_eq(r.real_s, 0.15, 1e-12);
    cr_assert_str_eq(r.cause, "G1 Evacuation Pause");
    cr_assert_eq(clarity_gc_feed(&p, lines[4], strlen(lines[4]), &r), 0);
    cr_assert_eq(clarity_gc_finish(&p, &r), 1);
    cr_assert(r.full); cr_assert_eq(r.ts_ms, -1); cr_assert_float_eq(r.uptime_s, 12, 1e-9);
}

/* A YARN-aggregated file with two containers, each announcing its executor; uptime-only GC
 * lines get times from the executor's first log4j line (the JVM started about then); noise is counted by pattern. */
Test(logdir, yarn_aggregated_join)
{
    char path[] = "/tmp/clarity-logs-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "Container: container_1_0001_01_000002 on node5_8041\n"
               "LogType:stderr\nLogLength:300\nLog Contents:\n"
               "24/03/01 09:00:00 INFO Executor: Starting executor ID 1 on host node5\n"
               "24/03/01 09:00:01 INFO Executor: Running task 0.0 in stage 0.0 (TID 0)\n"
               "24/03/01 09:00:03 INFO Executor: Finished task 0.0 in stage 0.0 (TID 0). 1000 bytes result sent to driver\n"
               "24/03/01 09:00:03 INFO MemoryStore: Block broadcast_1 stored as values in memory\n"
               "End of LogType:stderr\n"
               "Container: container_1_0001_01_000003 on node6_8041\n"
               "LogType:stdout\nLog Contents:\n"
               "24/03/01 09:00:00 INFO Executor: Starting executor ID 2 on host node6\n"
               "2.500: [GC (Allocation Failure) [PSYoungGen: 100K->10K(200K)] 100K->20K(1000K), 0.0100000 secs] "
               "[Times: user=0.02 sys=0.00, real=0.01 secs]\n"
               "some unexpected text 12345\n");
    fclose(f);
    struct clarity_logs L;
    clarity_logs_init(&L);
    struct clarity_error err = {0};
    cr_assert_eq(clarity_logs_read_file(&L, path, NULL, NULL, &err), 0);
    clarity_logs_finish(&L);
    unlink(path);
    cr_assert_eq(L.nexecs, 2);
    struct clarity_log_exec *e1, *e2, *e3;
    cr_assert_eq(clarity_logs_exec(&L, "1", false, &e1, NULL), 0);
    cr_assert_eq(clarity_logs_exec(&L, "2", false, &e2, NULL), 0);
    cr_assert(e1 && e2);
    cr_assert_eq(clarity_logs_exec(&L, "3", false, &e3, NULL), CLARITY_ENOTFOUND);
    cr_assert_null(e3);
    cr_assert_str_eq(e1->host, "node5"); cr_assert_str_eq(e2->host, "node6");
    cr_assert_eq(L.ntasks, 1); cr_assert_eq(L.tasks[0].tid, 0);
    cr_assert_eq(e2->ngc, 1);
    cr_assert_eq(e2->gc[0].ts_ms, 1709283600000LL + 2500);
    cr_assert(L.yarn_headers >= 8);
    bool noise = false;
    for (size_t i = 0; i < L.nunknown; i++) noise |= !strcmp(L.unknown[i].key, "text some unexpected text #");
    cr_assert(noise);
    clarity_logs_free(&L);
}

/* clarity_l4j_timestamp takes a length, so its buffer need not be NUL-terminated: a line that
 * ends right after "24/03" or "2024-03" was read one byte past its end (ASan's build catches it).
 * Each prefix is copied into a malloc'd buffer of exactly its length. */
Test(log4j, timestamp_prefix_reads_nothing_past_its_length)
{
    static const char *const prefixes[] = {"24/03", "2024-03", "24/03/1", "24/03/17 10:1", "24/03/17 10:15:3",
                                           "2024-03-17", "2024-03-17 10:15", "2024-03-17T10:15:30,1"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
        size_t n = strlen(prefixes[i]);
        char *buf = malloc(n);
        cr_assert_not_null(buf);
        memcpy(buf, prefixes[i], n);
        int64_t ms = -1;
        bool has_ms = true;
        size_t used = clarity_l4j_timestamp(buf, n, &ms, &has_ms);
        free(buf);
        if (i < 6) cr_assert_eq(used, 0, "%s", prefixes[i]);
    }
    /* the whole timestamp at the very end of the buffer is still read */
    const char full[] = "2024-03-17T10:15:30";
    char *buf = malloc(sizeof full - 1);
    cr_assert_not_null(buf);
    memcpy(buf, full, sizeof full - 1);
    int64_t ms = 0;
    bool has_ms = true;
    size_t used = clarity_l4j_timestamp(buf, sizeof full - 1, &ms, &has_ms);
    free(buf);
    cr_assert_eq(used, 19);
    cr_assert_eq(ms, 1710670530000LL);
    cr_assert(!has_ms);
}

/* An uptime stamp no JVM can have (1.7e78 s, found by the fuzzer) is not an uptime: it is
 * absent (-1), so the record keeps no absolute time instead of overflowing the conversion of
 * uptime to milliseconds (undefined behaviour before); a century-long uptime is still read. */
Test(gclog, uptime_out_of_range_is_absent)
{
    struct clarity_gc_rec r;
    const char *huge = "16666666666666666666666666666666666666666666666666666666666666666666666666666666.5: "
                       "[GC (Allocation Failure) [PSYoungGen: 100K->10K(200K)] 100K->20K(1000K), 0.0100000 secs] "
                       "[Times: user=0.02 sys=0.00, real=0.01 secs]";
    cr_assert_eq(clarity_gc_parse_jdk8(huge, strlen(huge), &r), 0);
    cr_assert_float_eq(r.uptime_s, -1, 1e-12);
    const char *neg = "-5.0: [GC (Allocation Failure) [PSYoungGen: 1K->1K(2K)] 1K->1K(4K), 0.001 secs]";
    cr_assert_eq(clarity_gc_parse_jdk8(neg, strlen(neg), &r), 0);
    cr_assert_float_eq(r.uptime_s, -1, 1e-12);
    const char *old = "3000000000.5: [GC (Allocation Failure) [PSYoungGen: 1K->1K(2K)] 1K->1K(4K), 0.001 secs]";
    cr_assert_eq(clarity_gc_parse_jdk8(old, strlen(old), &r), 0);
    cr_assert_float_eq(r.uptime_s, 3000000000.5, 1e-3);
}
