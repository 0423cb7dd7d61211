/* Exact values from tests/data/mini-3x.json, a hand-written Spark 3.4 log. */
#include <criterion/criterion.h>
#include "clarity/model.h"
#include "load_helpers.h"

static struct clarity_app *app;

static void setup(void)
{
    struct clarity_error err = {0};
    cr_assert_eq(load_fixture("mini-3x.json", &app, &err), CLARITY_OK, "load failed: %s", err.msg);
}
static void teardown(void) { clarity_app_free(app); }

TestSuite(model_mini, .init = setup, .fini = teardown);

Test(model_mini, application_header)
{
    cr_assert_str_eq(clarity_app_str(app, app->app_id), "app-20240101000000-0001");
    cr_assert_str_eq(clarity_app_str(app, app->name), "mini");
    cr_assert_str_eq(clarity_app_str(app, app->user), "alice");
    cr_assert_str_eq(clarity_app_str(app, app->spark_version), "3.4.1");
    cr_assert_eq(app->start_ms, 1704067200000LL);
    cr_assert_eq(app->end_ms, 1704067205000LL);
    cr_assert_eq(app->spark_props.n, 3);
    cr_assert_eq(app->nprofiles, 1);
}

Test(model_mini, executors)
{
    cr_assert_eq(app->nexecs, 2);
    struct clarity_executor *e1 = clarity_app_executor(app, "1"), *e2 = clarity_app_executor(app, "2");
    cr_assert(e1 && e2);
    cr_assert_str_eq(clarity_app_str(app, e1->host), "host-a");
    cr_assert_eq(e1->total_cores, 4);
    cr_assert_eq(e1->port, 40001);
    cr_assert_eq(e1->max_memory, 2000000000LL);
    cr_assert_eq(e1->log_urls.n, 1);
    cr_assert_eq(e2->remove_ms, 1704067204000LL);
    cr_assert_str_eq(clarity_app_str(app, e2->remove_reason), "idle");
    /* Task Executor Metrics feed the executor's peaks */
    cr_assert_eq(e1->peaks.n, 2);
}

Test(model_mini, jobs_and_skipped_stage)
{
    cr_assert_eq(app->njobs, 1);
    struct clarity_job *j = clarity_app_job(app, 0);
    cr_assert_eq(j->status, CLARITY_JOB_SUCCEEDED);
    cr_assert_eq(j->sql_id, 7);
    cr_assert_str_eq(clarity_app_str(app, j->group), "g1");
    cr_assert_str_eq(clarity_app_str(app, j->pool), "etl");
    cr_assert_str_eq(clarity_app_str(app, j->name), "skipped at Mini.scala:9");
    cr_assert_eq(j->num_tasks_declared, 5);
    struct clarity_stage *s1 = clarity_app_stage(app, 1, 0);
    cr_assert_eq(s1->status, CLARITY_STAGE_SKIPPED);
    struct clarity_stage *s0 = clarity_app_stage(app, 0, 0);
    cr_assert_eq(s0->status, CLARITY_STAGE_COMPLETE);
    cr_assert_eq(s0->complete_ms - s0->submit_ms, 1500);
    cr_assert_eq(s0->task_ends, 4);
    cr_assert_eq(app->nrdds, 1);
}

Test(model_mini, tasks_metrics_and_units)
{
    cr_assert_eq(app->tasks.n, 4);
    long r0 = clarity_app_task_row(app, 0);
    cr_assert_geq(r0, 0);
    cr_assert_eq(clarity_task_launch_ms(app, (size_t)r0), 1704067202300LL);
    cr_assert_eq(clarity_task_finish_ms(app, (size_t)r0), 1704067203300LL);
    cr_assert_eq(clarity_task_metric(app, (size_t)r0, CLARITY_TM_RUN_MS), 950);
    cr_assert_eq(clarity_task_metric(app, (size_t)r0, CLARITY_TM_CPU_NS), 800000000LL);
    cr_assert_eq(clarity_task_metric(app, (size_t)r0, CLARITY_TM_SW_TIME_NS), 25000000LL);
    cr_assert_eq(clarity_task_metric(app, (size_t)r0, CLARITY_TM_SR_REMOTE_BYTES), 3000);
    cr_assert_eq(clarity_task_metric(app, (size_t)r0, CLARITY_TM_SP_MERGED_FALLBACK), 1, "\"Push Based Shuffle\" spelling");
    cr_assert_eq(clarity_task_metric(app, (size_t)r0, CLARITY_TM_DISK_SPILLED), 4096);
    long r1 = clarity_app_task_row(app, 1);
    cr_assert_eq(clarity_task_metric(app, (size_t)r1, CLARITY_TM_SP_MERGED_FALLBACK), 3,
                 "\"Shuffle Push Read Metrics\" / \"Merged Fallback Count\" spelling");
    cr_assert(clarity_task_flags(app, (size_t)r1) & CLARITY_TF_FAILED);
    cr_assert_eq(clarity_icol_get(&app->tasks.end, (size_t)r1), CLARITY_END_EXCEPTION);
    cr_assert_eq(app->ntask_reasons, 1);
    cr_assert_eq(clarity_icol_get(&app->tasks.locality, (size_t)r1), CLARITY_LOC_NODE_LOCAL);
    long r2 = clarity_app_task_row(app, 2);
    cr_assert_not(clarity_task_flags(app, (size_t)r2) & CLARITY_TF_HAS_METRICS, "\"Task Metrics\":null");
    cr_assert_eq(clarity_task_metric(app, (size_t)r2, CLARITY_TM_RUN_MS), 0);
    /* the SQL metric accumulable is kept as an integer parsed from its string */
    cr_assert_eq(app->task_accums.n, 1);
    cr_assert_eq(app->task_accums.p[0].update, 12);
    cr_assert(app->task_accums.p[0].is_sql);
}

Test(model_mini, sql_and_integrity)
{
    cr_assert_eq(app->nsqls, 1);
    struct clarity_sql *q = clarity_app_sql(app, 7);
    cr_assert_eq(q->end_ms - q->start_ms, 1900);
    cr_assert_eq(q->njob_ids, 1);
    cr_assert_eq(q->nmetrics, 1);
    cr_assert_eq(q->metrics[0].accum_id, 101);
    const struct clarity_integrity *in = &app->integrity;
    cr_assert_eq(in->events, 24);
    cr_assert_eq(in->events_unknown, 1);
    cr_assert_eq(in->nunknown_events, 1);
    cr_assert_str_eq(clarity_app_str(app, in->unknown_events[0].k), "com.example.VendorEvent");
    cr_assert_eq(in->lines_malformed, 0);
    cr_assert_eq(in->dropped_task_ends, 0);
    cr_assert_eq(in->task_start_without_end, 0);
    cr_assert_not(in->truncated);
}

Test(model_mini, totals)
{
    struct clarity_app_totals t;
    cr_assert_eq(clarity_totals_compute(app, &t), 0);
    cr_assert_eq(t.app.tasks, 4);
    cr_assert_eq(t.app.succeeded, 3);
    cr_assert_eq(t.app.failed, 1);
    cr_assert_eq(t.app.run_ms, 950 + 480 + 590);
    cr_assert_eq(t.app.input_bytes, 1500000);
    cr_assert_eq(t.app.shuffle_read_bytes, 4000);
    cr_assert_eq(t.job[0].tasks, 4);
    cr_assert_eq(t.sql[0].run_ms, 2020);
    cr_assert_eq(t.exec[0].tasks, 2);
    clarity_totals_free(&t);
}

Test(model_mini, bytes_per_task_under_budget)
{
    /* a tiny table is dominated by its initial capacity; check the per-row cost of columns */
    size_t row_bytes = 0;
    for (int m = 0; m < CLARITY_TM_COUNT; m++) row_bytes += app->tasks.m[m].width;
    cr_assert_lt(row_bytes, 100);
}
