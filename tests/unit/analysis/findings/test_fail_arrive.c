/* task_failures where SQL queries arrive on their own (fnd36): a query that started just after
 * another ended (nothing open, within 2 s) is read as that one's next statement and moves up
 * with it; held at its own logged arrival it does not. The failures' saving takes the smaller
 * of the two shifts. A log written here, its numbers worked by hand. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../model/load_helpers.h"
#include "clarity/findings.h"
#include "sql_events.h"

/* job `job` of the one stage `s`, in query `sql`, from t to end */
static void job(FILE *f, int id, long t, long end, int sql, int s)
{
    fprintf(f, "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":%d,\"Submission Time\":%ld,\"Stage Infos\":[{\"Stage "
               "ID\":%d,\"Stage Attempt ID\":0,\"Stage Name\":\"s%d\",\"Number of Tasks\":2,\"RDD Info\":[],\"Parent "
               "IDs\":[]}],\"Stage IDs\":[%d],\"Properties\":{\"spark.sql.execution.id\":\"%d\"}}\n",
            id, t, s, s, s, sql);
    fprintf(f, "{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":%d,\"Completion Time\":%ld,\"Job Result\":{\"Result\":"
               "\"JobSucceeded\"}}\n", id, end);
}

static void stage(FILE *f, int id, long sub, long done)
{
    fprintf(f, "{\"Event\":\"SparkListenerStageCompleted\",\"Stage Info\":{\"Stage ID\":%d,\"Stage Attempt ID\":0,"
               "\"Stage Name\":\"s%d\",\"Number of Tasks\":2,\"RDD Info\":[],\"Parent IDs\":[],\"Submission Time\":%ld,"
               "\"Completion Time\":%ld,\"Accumulables\":[]}}\n", id, id, sub, done);
}

/* an attempt; failed: ended with an exception */
static void task(FILE *f, int stage_id, int tid, int index, int attempt, long launch, long finish, bool failed)
{
    fprintf(f, "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":%d,\"Stage Attempt ID\":0,\"Task Type\":\"ResultTask\","
               "\"Task End Reason\":%s,\"Task Info\":{\"Task ID\":%d,\"Index\":%d,\"Attempt\":%d,"
               "\"Launch Time\":%ld,\"Executor ID\":\"1\",\"Host\":\"h1\",\"Locality\":\"ANY\",\"Speculative\":false,"
               "\"Getting Result Time\":0,\"Finish Time\":%ld,\"Failed\":%s,\"Killed\":false},\"Task Metrics\":{"
               "\"Executor Deserialize Time\":0,\"Executor Run Time\":%ld,\"JVM GC Time\":0,\"Result Size\":10,"
               "\"Memory Bytes Spilled\":0,\"Disk Bytes Spilled\":0,\"Input Metrics\":{\"Bytes Read\":1000000,"
               "\"Records Read\":100}}}\n", stage_id,
            failed ? "{\"Reason\":\"ExceptionFailure\",\"Class Name\":\"java.io.IOException\",\"Description\":\"boom\","
                     "\"Stack Trace\":[],\"Full Stack Trace\":\"\"}" : "{\"Reason\":\"Success\"}",
            tid, index, attempt, launch, finish, failed ? "true" : "false", finish - launch);
}

/* One executor of 2 cores.
 * Query 0 arrives at 1000: stage 0, task 0 fails 1000-3000 and its retry runs 3000-5000 on the
 *   same slot; task 1 runs 1000-3000. The query ends at 5000.
 * Query 1 arrives at 3500 (query 0 open: on its own): stage 1, one task 3500-4500.
 * Query 2 arrives at q2 (nothing open, q2 - 5000 after query 0's end): stage 2, task 0 fails
 *   q2 .. q2+500, its retry runs q2+500 .. q2+1500. The application's last task ends at q2+1500. */
static struct clarity_app *three_queries(long q2)
{
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    fprintf(f, "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.5.1\"}\n"
               "{\"Event\":\"SparkListenerEnvironmentUpdate\",\"JVM Information\":{},\"Spark Properties\":{},"
               "\"Hadoop Properties\":{},\"System Properties\":{},\"Classpath Entries\":{}}\n"
               "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"t\",\"App ID\":\"a-1\",\"Timestamp\":900,"
               "\"User\":\"u\"}\n"
               "{\"Event\":\"SparkListenerExecutorAdded\",\"Timestamp\":950,\"Executor ID\":\"1\",\"Executor Info\":"
               "{\"Host\":\"h1\",\"Total Cores\":2,\"Log Urls\":{}}}\n");
    sql_start(f, 0, 1000);
    task(f, 0, 0, 0, 0, 1000, 3000, true);
    task(f, 0, 1, 1, 0, 1000, 3000, false);
    task(f, 0, 2, 0, 1, 3000, 5000, false);
    stage(f, 0, 1000, 5000);
    job(f, 0, 1000, 5000, 0, 0);
    sql_end(f, 0, 5000);
    sql_start(f, 1, 3500);
    task(f, 1, 3, 0, 0, 3500, 4500, false);
    stage(f, 1, 3500, 4500);
    job(f, 1, 3500, 4500, 1, 1);
    sql_end(f, 1, 4500);
    sql_start(f, 2, q2);
    task(f, 2, 4, 0, 0, q2, q2 + 500, true);
    task(f, 2, 5, 0, 1, q2 + 500, q2 + 1500, false);
    stage(f, 2, q2, q2 + 1500);
    job(f, 2, q2, q2 + 1500, 2, 2);
    sql_end(f, 2, q2 + 1500);
    fprintf(f, "{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":%ld}\n", q2 + 1600);
    fclose(f);
    struct clarity_app *a = NULL;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(buf, &a, &err), CLARITY_OK, "%s", err.msg);
    free(buf);
    return a;
}

/* task_failures of three_queries(q2): its saving and its timeline figure */
static void fail_of(long q2, int64_t *saving, double *timeline)
{
    struct clarity_app *a = three_queries(q2);
    struct clarity_findings r;
    struct clarity_findings_options o = {.threads = 1, .keep_all = true};
    struct clarity_error err = {0};
    cr_assert_eq(clarity_findings_analyze(a, &o, &r, &err), CLARITY_OK, "%s", err.msg);
    const struct clarity_finding *g = NULL;
    for (size_t i = 0; i < r.n; i++)
        if (r.f[i].kind == CLARITY_FK_TASK_FAILURES) g = &r.f[i];
    cr_assert_not_null(g);
    cr_assert_eq(g->arrivals, 1, "queries arrive on their own here");
    *saving = g->saving_ms;
    for (size_t i = 0; i < g->nev; i++)
        if (!strcmp(g->ev[i].name, "timeline_saving_ms")) *timeline = g->ev[i].value;
    clarity_findings_free(&r);
    clarity_app_free(a);
}

/* Query 2 arrives 50 ms after query 0's end: read as its next statement (a chain), it moves up
 * with it. Without the failures task 0 of stage 0 ends at 3000, and so does query 0; query 2,
 * 50 ms later at 3050, runs its task 3050-4050; query 1 ends at 4500: the end moves from 6550
 * to 4500, 2050 ms. Held at its own arrival, query 2 runs 5050-6050: 500 ms. The timeline:
 * stages 0-1 end at 4500 instead of 5000, stage 2 at 6050 instead of 6550: 1000. The saving:
 * the smallest, 500 (before fnd36: min(timeline, chained shift) = 1000). */
Test(fail_arrive, chained_query_held_at_its_arrival)
{
    int64_t saving = -1;
    double timeline = -1;
    fail_of(5050, &saving, &timeline);
    cr_assert_eq(timeline, 1000);
    cr_assert_eq(saving, 500);
}

/* Query 2 arrives 3000 ms after query 0's end (past the 2 s chain window): on its own either
 * way, both readings give 500, and the saving is 500 as before. */
Test(fail_arrive, query_on_its_own_unchanged)
{
    int64_t saving = -1;
    double timeline = -1;
    fail_of(8000, &saving, &timeline);
    cr_assert_eq(timeline, 1000);
    cr_assert_eq(saving, 500);
}
