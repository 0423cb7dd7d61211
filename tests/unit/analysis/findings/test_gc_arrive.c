/* gc_pressure where SQL queries arrive on their own (fnd32): the saving on the log's own
 * schedule over the whole application, each stage also waiting for the stage that released it
 * and for its query's arrival. A log written here, its numbers worked by hand. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../model/load_helpers.h"
#include "clarity/findings.h"
#include "sql_events.h"

/* a job of stages first .. last (its stage infos: the model maps stages to jobs from them) */
static void job_start(FILE *f, int job, long t, int sql, int first, int last)
{
    fprintf(f, "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":%d,\"Submission Time\":%ld,\"Stage Infos\":[", job, t);
    for (int s = first; s <= last; s++)
        fprintf(f, "%s{\"Stage ID\":%d,\"Stage Attempt ID\":0,\"Stage Name\":\"s%d\",\"Number of Tasks\":1,"
                   "\"RDD Info\":[],\"Parent IDs\":[]}", s > first ? "," : "", s, s);
    fprintf(f, "],\"Stage IDs\":[");
    for (int s = first; s <= last; s++) fprintf(f, "%s%d", s > first ? "," : "", s);
    fprintf(f, "],\"Properties\":{\"spark.sql.execution.id\":\"%d\"}}\n", sql);
}

static void job_end(FILE *f, int job, long t)
{
    fprintf(f, "{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":%d,\"Completion Time\":%ld,\"Job Result\":{\"Result\":"
               "\"JobSucceeded\"}}\n", job, t);
}

/* a stage submitted (done 0) or completed at done */
static void stage(FILE *f, int id, const char *parents, long sub, long done)
{
    char end[48] = "";
    if (done) snprintf(end, sizeof end, ",\"Completion Time\":%ld", done);
    fprintf(f, "{\"Event\":\"SparkListenerStage%s\",\"Stage Info\":{\"Stage ID\":%d,\"Stage Attempt ID\":0,\"Stage "
               "Name\":\"s%d\",\"Number of Tasks\":2,\"RDD Info\":[],\"Parent IDs\":[%s],\"Submission Time\":%ld%s,"
               "\"Accumulables\":[]}}\n", done ? "Completed" : "Submitted", id, id, parents, sub, end);
}

static void task(FILE *f, int stage_id, int tid, int index, long launch, long finish, long gc)
{
    fprintf(f, "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":%d,\"Stage Attempt ID\":0,\"Task Type\":\"ResultTask\","
               "\"Task End Reason\":{\"Reason\":\"Success\"},\"Task Info\":{\"Task ID\":%d,\"Index\":%d,\"Attempt\":0,"
               "\"Launch Time\":%ld,\"Executor ID\":\"1\",\"Host\":\"h1\",\"Locality\":\"ANY\",\"Speculative\":false,"
               "\"Getting Result Time\":0,\"Finish Time\":%ld,\"Failed\":false,\"Killed\":false},\"Task Metrics\":{"
               "\"Executor Deserialize Time\":0,\"Executor Run Time\":%ld,\"JVM GC Time\":%ld,\"Result Size\":10,"
               "\"Memory Bytes Spilled\":0,\"Disk Bytes Spilled\":0,\"Input Metrics\":{\"Bytes Read\":1000000,"
               "\"Records Read\":100}}}\n", stage_id, tid, index, launch, finish, finish - launch, gc);
}

/* One executor of 2 cores. Query 0 arrives at 1000: stage 0, two tasks 1000-5000 with 1000 ms
 * of GC each. Query 1 arrives at q1 (< 5000: while query 0 runs, so on its own): stage 1's task
 * waits for a slot, 5000-7000; stage 2 (its child) is submitted 200 ms after it ends and runs
 * 7200-8200; no GC in query 1. GC: 2000 of 11000 ms of task time (18%). */
static struct clarity_app *two_queries(long q1)
{
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    fprintf(f, "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.5.1\"}\n"
               "{\"Event\":\"SparkListenerEnvironmentUpdate\",\"JVM Information\":{},\"Spark Properties\":{"
               "\"spark.executor.memory\":\"4g\"},\"Hadoop Properties\":{},\"System Properties\":{},\"Classpath Entries\":{}}\n"
               "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"t\",\"App ID\":\"a-1\",\"Timestamp\":900,"
               "\"User\":\"u\"}\n"
               "{\"Event\":\"SparkListenerExecutorAdded\",\"Timestamp\":950,\"Executor ID\":\"1\",\"Executor Info\":"
               "{\"Host\":\"h1\",\"Total Cores\":2,\"Log Urls\":{}}}\n");
    sql_start(f, 0, 1000);
    job_start(f, 0, 1000, 0, 0, 0);
    stage(f, 0, "", 1000, 0);
    sql_start(f, 1, q1);
    job_start(f, 1, q1, 1, 1, 2);
    stage(f, 1, "", q1, 0);
    task(f, 0, 0, 0, 1000, 5000, 1000);
    task(f, 0, 1, 1, 1000, 5000, 1000);
    stage(f, 0, "", 1000, 5000);
    job_end(f, 0, 5000);
    sql_end(f, 0, 5000);
    task(f, 1, 2, 0, 5000, 7000, 0);
    stage(f, 1, "", q1, 7000);
    stage(f, 2, "1", 7200, 0);
    task(f, 2, 3, 0, 7200, 8200, 0);
    stage(f, 2, "1", 7200, 8200);
    job_end(f, 1, 8200);
    sql_end(f, 1, 8200);
    fprintf(f, "{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":8300}\n");
    fclose(f);
    struct clarity_app *a = NULL;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(buf, &a, &err), CLARITY_OK, "%s", err.msg);
    free(buf);
    return a;
}

/* gc_pressure of two_queries(q1): its saving, kept GC and no-GC bound */
static void gc_of(long q1, int64_t *saving, double *kept, double *bound)
{
    struct clarity_app *a = two_queries(q1);
    struct clarity_findings r;
    struct clarity_findings_options o = {.threads = 1, .keep_all = true};
    struct clarity_error err = {0};
    cr_assert_eq(clarity_findings_analyze(a, &o, &r, &err), CLARITY_OK, "%s", err.msg);
    const struct clarity_finding *g = NULL;
    for (size_t i = 0; i < r.n; i++)
        if (r.f[i].kind == CLARITY_FK_GC_PRESSURE) g = &r.f[i];
    cr_assert_not_null(g);
    cr_assert_eq(g->method, CLARITY_FM_ESTIMATE);
    cr_assert_eq(g->arrivals, 1, "queries arrive on their own here");
    cr_assert_not_null(strstr(g->caveat, "log's own schedule"), "%s", g->caveat);
    *saving = g->saving_ms;
    for (size_t i = 0; i < g->nev; i++) {
        if (!strcmp(g->ev[i].name, "gc_kept_ms")) *kept = g->ev[i].value;
        if (!strcmp(g->ev[i].name, "no_gc_saving_ms")) *bound = g->ev[i].value;
    }
    clarity_findings_free(&r);
    clarity_app_free(a);
}

/* Query 1 arrives at 3000. The fix keeps 2% of each stage-0 task's 3000 ms outside GC: 60, so
 * 940 cut, ending at 4060. Stage 1's task waited for that slot: it runs 4060-6060; stage 2 is
 * ready 200 ms after, at 6260, and ends at 7260: 940 ms earlier. No GC at all: 1000. */
Test(gc_arrive, waits_for_the_slot)
{
    int64_t saving = -1;
    double kept = -1, bound = -1;
    gc_of(3000, &saving, &kept, &bound);
    cr_assert_eq(saving, 940);
    cr_assert_eq(kept, 2 * 60);
    cr_assert_eq(bound, 1000);
}

/* Query 1 arrives at 4500: the slot is free at 4060 but the query is not there yet: stage 1
 * runs 4500-6500, stage 2 6700-7700: 500 ms earlier, not the 940 the slot alone gives. With no
 * GC at all the arrival holds it the same: 500. */
Test(gc_arrive, held_at_arrival)
{
    int64_t saving = -1;
    double kept = -1, bound = -1;
    gc_of(4500, &saving, &kept, &bound);
    cr_assert_eq(saving, 500);
    cr_assert_eq(kept, 2 * 60);
    cr_assert_eq(bound, 500);
}
