/* A random but plausible event log for the tests that compare a fast path with a plain one:
 * executors added and removed on a few hosts, jobs (some in SQL queries, some running at the
 * same time) whose stages depend on earlier ones, reuse an earlier job's stage or are retried,
 * and tasks with every metric the analyses read, some failed, killed or speculative. */
#ifndef TEST_RANDOM_LOG_H
#define TEST_RANDOM_LOG_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t rl_next(uint64_t *s)
{
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    return *s;
}
static int64_t rl_int(uint64_t *s, int64_t lo, int64_t hi) { return lo + (int64_t)(rl_next(s) % (uint64_t)(hi - lo + 1)); }

/* One task's TaskStart and TaskEnd. */
static void rl_task(FILE *f, uint64_t *s, int64_t tid, int64_t stage, int att, int64_t launch, int nexec)
{
    int ex = (int)rl_int(s, 1, nexec), host = ex % 3;
    int64_t dur = rl_int(s, 0, 30) < 2 ? 0 : rl_int(s, 5, rl_int(s, 0, 9) ? 400 : 3000);
    int roll = (int)rl_int(s, 0, 99);
    const char *reason = roll < 85 ? "{\"Reason\":\"Success\"}"
                         : roll < 92 ? "{\"Reason\":\"TaskKilled\",\"Kill Reason\":\"another attempt succeeded\"}"
                                     : "{\"Reason\":\"ExceptionFailure\",\"Class Name\":\"E\",\"Description\":\"d\","
                                       "\"Stack Trace\":[],\"Full Stack Trace\":\"\"}";
    const char *spec = rl_int(s, 0, 20) ? "false" : "true";
    const char *loc[] = {"PROCESS_LOCAL", "NODE_LOCAL", "RACK_LOCAL", "ANY"};
    const char *l = loc[rl_int(s, 0, 3)];
    fprintf(f, "{\"Event\":\"SparkListenerTaskStart\",\"Stage ID\":%lld,\"Stage Attempt ID\":%d,\"Task Info\":{\"Task ID\":%lld,"
               "\"Index\":%lld,\"Attempt\":0,\"Launch Time\":%lld,\"Executor ID\":\"%d\",\"Host\":\"h%d\",\"Locality\":\"%s\","
               "\"Speculative\":%s,\"Getting Result Time\":0,\"Finish Time\":0,\"Failed\":false,\"Killed\":false}}\n",
            (long long)stage, att, (long long)tid, (long long)tid, (long long)launch, ex, host, l, spec);
    if (rl_int(s, 0, 60) == 0) return;   /* its TaskEnd was dropped */
    int64_t run = dur ? rl_int(s, dur / 2, dur) : 0, gc = rl_int(s, 0, run / 4 + 1), fetch = rl_int(s, 0, run / 3 + 1);
    int64_t shuffle = rl_int(s, 0, 3) ? rl_int(s, 0, 1 << 22) : 0, input = rl_int(s, 0, 2) ? rl_int(s, 0, 1 << 24) : 0;
    int64_t got = rl_int(s, 0, 4) ? 0 : launch + dur - rl_int(s, 0, 5);
    fprintf(f, "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":%lld,\"Stage Attempt ID\":%d,\"Task Type\":\"ShuffleMapTask\","
               "\"Task End Reason\":%s,\"Task Info\":{\"Task ID\":%lld,\"Index\":%lld,\"Attempt\":0,\"Launch Time\":%lld,"
               "\"Executor ID\":\"%d\",\"Host\":\"h%d\",\"Locality\":\"%s\",\"Speculative\":%s,\"Getting Result Time\":%lld,"
               "\"Finish Time\":%lld,\"Failed\":false,\"Killed\":false},\"Task Metrics\":{\"Executor Deserialize Time\":%lld,"
               "\"Executor Deserialize CPU Time\":%lld,\"Executor Run Time\":%lld,\"Executor CPU Time\":%lld,"
               "\"Result Size\":100,\"JVM GC Time\":%lld,\"Result Serialization Time\":%lld,\"Memory Bytes Spilled\":0,"
               "\"Disk Bytes Spilled\":%lld,\"Shuffle Read Metrics\":{\"Remote Blocks Fetched\":%d,\"Local Blocks Fetched\":1,"
               "\"Fetch Wait Time\":%lld,\"Remote Bytes Read\":%lld,\"Remote Bytes Read To Disk\":0,\"Local Bytes Read\":%lld,"
               "\"Total Records Read\":%lld},\"Shuffle Write Metrics\":{\"Shuffle Bytes Written\":%lld,"
               "\"Shuffle Write Time\":%lld,\"Shuffle Records Written\":%lld},\"Input Metrics\":{\"Bytes Read\":%lld,"
               "\"Records Read\":%lld},\"Output Metrics\":{\"Bytes Written\":%lld,\"Records Written\":3}}}\n",
            (long long)stage, att, reason, (long long)tid, (long long)tid, (long long)launch, ex, host, l, spec,
            (long long)got, (long long)(launch + dur), (long long)rl_int(s, 0, 20), (long long)rl_int(s, 0, 20000000),
            (long long)run, (long long)(rl_int(s, 0, 9) ? rl_int(s, 0, run + 1) * 1000000 : 0), (long long)gc,
            (long long)rl_int(s, 0, 5), (long long)(rl_int(s, 0, 5) ? 0 : rl_int(s, 0, 1 << 20)), shuffle ? 2 : 0,
            (long long)fetch, (long long)(shuffle * 3 / 4), (long long)(shuffle / 4), (long long)(shuffle / 100),
            (long long)rl_int(s, 0, 1 << 20), (long long)rl_int(s, 0, 9000000), (long long)rl_int(s, 0, 500),
            (long long)input, (long long)(input / 50), (long long)(rl_int(s, 0, 3) ? 0 : rl_int(s, 0, 1 << 20)));
}

/* The log as one string (malloc'd); ntasks gets the task attempts written. */
static char *random_log(uint64_t seed, int njobs, size_t *ntasks)
{
    uint64_t st = seed ? seed : 1, *s = &st;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fprintf(f, "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.4.1\"}\n"
               "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"r\",\"App ID\":\"app-r\",\"Timestamp\":1000,"
               "\"User\":\"u\"}\n");
    int nexec = (int)rl_int(s, 2, 6);
    for (int e = 1; e <= nexec; e++) {
        fprintf(f, "{\"Event\":\"SparkListenerExecutorAdded\",\"Timestamp\":%lld,\"Executor ID\":\"%d\",\"Executor Info\":"
                   "{\"Host\":\"h%d\",\"Total Cores\":%d,\"Log Urls\":{}}}\n",
                (long long)rl_int(s, 500, 20000), e, e % 3, (int)rl_int(s, 1, 8));
        if (rl_int(s, 0, 2) == 0)
            fprintf(f, "{\"Event\":\"SparkListenerExecutorRemoved\",\"Timestamp\":%lld,\"Executor ID\":\"%d\","
                       "\"Removed Reason\":\"idle\"}\n", (long long)rl_int(s, 20000, 80000), e);
    }
    int64_t stage_id = 0, tid = 0, t = 2000;
    for (int j = 0; j < njobs; j++) {
        int sql = rl_int(s, 0, 2) ? (int)rl_int(s, 0, njobs / 3 + 1) : -1;
        if (sql >= 0)
            fprintf(f, "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\",\"executionId\":%d,"
                       "\"description\":\"q%d\",\"details\":\"\",\"physicalPlanDescription\":\"\",\"sparkPlanInfo\":"
                       "{\"nodeName\":\"X\",\"simpleString\":\"X\",\"children\":[],\"metadata\":{},\"metrics\":[]},"
                       "\"time\":%lld}\n", sql, sql, (long long)t);
        int nst = (int)rl_int(s, 1, 4);
        int64_t first = stage_id, reuse = stage_id > 0 && rl_int(s, 0, 3) == 0 ? rl_int(s, 0, stage_id - 1) : -1;
        fprintf(f, "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":%d,\"Submission Time\":%lld,\"Stage IDs\":[", j, (long long)t);
        for (int k = 0; k < nst; k++) fprintf(f, "%s%lld", k ? "," : "", (long long)(first + k));
        if (reuse >= 0) fprintf(f, ",%lld", (long long)reuse);
        fprintf(f, "],\"Properties\":{");
        if (sql >= 0) fprintf(f, "\"spark.sql.execution.id\":\"%d\"", sql);
        fprintf(f, "}}\n");
        int64_t st0 = t, end = t;
        for (int k = 0; k < nst; k++, stage_id++) {
            int attempts = rl_int(s, 0, 8) ? 1 : 2;
            for (int att = 0; att < attempts; att++) {
                int64_t sub = st0 + rl_int(s, 0, 600) * k + rl_int(s, 0, 50);
                fprintf(f, "{\"Event\":\"SparkListenerStageSubmitted\",\"Stage Info\":{\"Stage ID\":%lld,\"Stage Attempt ID\":%d,"
                           "\"Stage Name\":\"s%lld\",\"Number of Tasks\":9,\"RDD Info\":[],\"Parent IDs\":[",
                        (long long)stage_id, att, (long long)stage_id);
                if (k > 0) fprintf(f, "%lld", (long long)(first + rl_int(s, 0, k - 1)));
                if (k > 1 && rl_int(s, 0, 1)) fprintf(f, ",%lld", (long long)first);
                fprintf(f, "],\"Details\":\"\",\"Submission Time\":%lld,\"Accumulables\":[]},\"Properties\":{}}\n", (long long)sub);
                int n = (int)rl_int(s, 1, rl_int(s, 0, 3) ? 40 : 160);
                int64_t launch = sub + rl_int(s, 1, 30);
                for (int q = 0; q < n; q++) {
                    launch += rl_int(s, 0, 3) ? 0 : rl_int(s, 0, 40);
                    rl_task(f, s, tid++, stage_id, att, launch, nexec);
                    if (launch + 3000 > end) end = launch + 3000;
                }
                fprintf(f, "{\"Event\":\"SparkListenerStageCompleted\",\"Stage Info\":{\"Stage ID\":%lld,\"Stage Attempt ID\":%d,"
                           "\"Stage Name\":\"s\",\"Number of Tasks\":9,\"RDD Info\":[],\"Parent IDs\":[],\"Details\":\"\","
                           "\"Submission Time\":%lld,\"Completion Time\":%lld,\"Accumulables\":[]}}\n",
                        (long long)stage_id, att, (long long)sub, (long long)end);
            }
        }
        fprintf(f, "{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":%d,\"Completion Time\":%lld,\"Job Result\":"
                   "{\"Result\":\"JobSucceeded\"}}\n", j, (long long)end);
        /* the next job starts after this one, or while it runs */
        t = rl_int(s, 0, 2) ? end + rl_int(s, 0, 500) : st0 + rl_int(s, 0, 1000);
    }
    fprintf(f, "{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":%lld}\n", (long long)(t + 5000));
    fclose(f);
    *ntasks = (size_t)tid;
    return buf;
}
#endif
