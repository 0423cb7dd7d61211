/* What the model decodes instead of keeping raw JSON: task end reasons (a sparse table by
 * task row), resource profiles, executor resources and miscellaneous process logs. Values
 * from tests/unit/shs/data/app-shs-0001_2.json and tests/data/mini-3x.json. */
#include <criterion/criterion.h>
#include "load_helpers.h"

static struct clarity_app *app;

static void setup(void)
{
    const char *root = getenv("CLARITY_ROOT");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/unit/shs/data/app-shs-0001_2.json", root ? root : ".");
    struct clarity_log_file f = {.path = path, .codec = CLARITY_CODEC_UNKNOWN};
    struct clarity_app_source src = {.path = path, .files = &f, .nfiles = 1};
    struct clarity_error err = {0};
    cr_assert_eq(clarity_app_load(&src, NULL, &app, &err), CLARITY_OK, "load failed: %s", err.msg);
}
static void teardown(void) { clarity_app_free(app); }
TestSuite(model_typed, .init = setup, .fini = teardown);

static const struct clarity_task_end_reason *reason_of(int64_t task_id)
{
    long row = clarity_app_task_row(app, task_id);
    cr_assert_geq(row, 0, "task %lld", (long long)task_id);
    return clarity_task_end_reason(app, (size_t)row);
}

#define S(id) clarity_app_str(app, (id))

Test(model_typed, reasons_are_sparse_and_sorted_by_row)
{
    /* 1 exception, 2 kills, 1 commit denial, 6 stage-1 failures */
    cr_assert_eq(app->ntask_reasons, 10);
    for (size_t i = 1; i < app->ntask_reasons; i++) cr_assert_lt(app->task_reasons[i - 1].row, app->task_reasons[i].row);
    cr_assert_null(reason_of(0), "a success has no reason");
    cr_assert_null(reason_of(31), "a running task has no reason");
}

Test(model_typed, exception_failure_frames)
{
    const struct clarity_task_end_reason *r = reason_of(1);
    cr_assert_eq(r->kind, CLARITY_END_EXCEPTION);
    cr_assert_str_eq(S(r->u.exception.class_name), "java.lang.IllegalStateException");
    cr_assert_str_eq(S(r->u.exception.description), "bad row 17");
    cr_assert_eq(r->u.exception.full_trace, 0, "not logged");
    cr_assert_eq(r->u.exception.nframes, 4);
    const struct clarity_stack_frame *f = r->u.exception.frames;
    cr_assert_str_eq(S(f[0].declaring_class), "com.example.Job");
    cr_assert_str_eq(S(f[0].method), "parse");
    cr_assert_str_eq(S(f[0].file), "Job.scala");
    cr_assert_eq(f[0].line, 42);
    cr_assert(f[0].has_file);
    cr_assert_not(f[1].has_file);
    cr_assert_eq(f[1].line, -2, "native method");
    cr_assert_eq(f[2].line, -1);
    cr_assert_not(f[3].has_file);
}

Test(model_typed, fetch_failed)
{
    const struct clarity_task_end_reason *r = reason_of(10);
    cr_assert_eq(r->kind, CLARITY_END_FETCH_FAILED);
    cr_assert(r->logged & CLARITY_TER_BLOCK_MANAGER);
    cr_assert_str_eq(S(r->u.fetch.executor), "2");
    cr_assert_str_eq(S(r->u.fetch.host), "host-b");
    cr_assert_eq(r->u.fetch.port, 7337);
    cr_assert_eq(r->u.fetch.map_index, 3);
    cr_assert_str_eq(S(r->u.fetch.message), "java.io.IOException: connection reset");
    r = reason_of(11);
    cr_assert_not(r->logged & CLARITY_TER_BLOCK_MANAGER, "\"Block Manager Address\":null");
    cr_assert_eq(r->u.fetch.map_id, -1);
    cr_assert_eq(r->u.fetch.map_index, -1, "not logged");
    cr_assert_eq(r->u.fetch.reduce_id, 1);
}

Test(model_typed, killed_denied_and_lost)
{
    const struct clarity_task_end_reason *r = reason_of(2);
    cr_assert_eq(r->kind, CLARITY_END_KILLED);
    cr_assert(r->logged & CLARITY_TER_KILL_REASON);
    cr_assert_str_eq(S(r->u.killed.reason), "another attempt succeeded");
    r = reason_of(30);
    cr_assert_eq(r->kind, CLARITY_END_KILLED);
    cr_assert_not(r->logged & CLARITY_TER_KILL_REASON, "bare {\"Reason\":\"TaskKilled\"}");
    r = reason_of(5);
    cr_assert_eq(r->kind, CLARITY_END_COMMIT_DENIED);
    cr_assert_eq(r->u.commit_denied.job_id, 0);
    cr_assert_eq(r->u.commit_denied.partition, 2);
    cr_assert_eq(r->u.commit_denied.attempt, 1);
    r = reason_of(12);
    cr_assert_eq(r->kind, CLARITY_END_EXECUTOR_LOST);
    cr_assert_str_eq(S(r->u.executor_lost.executor), "2");
    cr_assert_not(r->u.executor_lost.exit_caused_by_app);
    cr_assert(r->logged & CLARITY_TER_LOSS_REASON);
    cr_assert_str_eq(S(r->u.executor_lost.loss_reason), "Container killed by YARN");
    cr_assert_eq(reason_of(13)->kind, CLARITY_END_TASK_RESULT_LOST);
    cr_assert_eq(reason_of(14)->kind, CLARITY_END_RESUBMITTED);
    cr_assert_eq(reason_of(15)->kind, CLARITY_END_UNKNOWN_REASON);
}

Test(model_typed, profiles_resources_and_process_logs)
{
    cr_assert_eq(app->nprofiles, 1);
    const struct clarity_resource_profile *p = &app->profiles[0];
    cr_assert(p->has_exec_requests && p->has_task_requests);
    cr_assert_eq(p->nexec_requests, 2);
    cr_assert_str_eq(S(p->exec_requests[1].key), "gpu");
    cr_assert_eq(p->exec_requests[1].amount, 2);
    cr_assert_str_eq(S(p->exec_requests[1].vendor), "nvidia.com");
    cr_assert_eq(p->ntask_requests, 2);
    cr_assert_str_eq(S(p->task_requests[0].name), "cpus");
    cr_assert_eq(p->task_requests[1].amount, 0.5);
    const struct clarity_executor *e = clarity_app_executor(app, "1");
    cr_assert(e->has_resources);
    cr_assert_eq(e->nresources, 1);
    cr_assert_str_eq(S(e->resources[0].name), "gpu");
    cr_assert_eq(e->resources[0].naddresses, 2);
    cr_assert_str_eq(S(e->resources[0].addresses[1]), "1");
    e = clarity_app_executor(app, "2");
    cr_assert(e->has_resources, "\"Resources\":{}");
    cr_assert_eq(e->nresources, 0);
    cr_assert_not(clarity_app_executor(app, "driver")->has_resources);
    cr_assert_eq(app->nmisc, 1);
    cr_assert(app->misc[0].has_logs);
    cr_assert_eq(app->misc[0].logs.n, 1);
    cr_assert_str_eq(S(app->misc[0].logs.p[0].v), "http://host-c/am/stdout");
}

Test(model_typed, full_stack_trace_when_logged)
{
    struct clarity_app *mini;
    struct clarity_error err = {0};
    cr_assert_eq(load_fixture("mini-3x.json", &mini, &err), CLARITY_OK, "%s", err.msg);
    const struct clarity_task_end_reason *r = clarity_task_end_reason(mini, (size_t)clarity_app_task_row(mini, 1));
    cr_assert_not_null(r);
    cr_assert_str_eq(clarity_app_str(mini, r->u.exception.full_trace), "java.lang.RuntimeException: boom");
    cr_assert_eq(r->u.exception.nframes, 0, "\"Stack Trace\":[]");
    clarity_app_free(mini);
}
