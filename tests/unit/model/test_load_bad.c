/* Damaged logs: every complete event is kept and the damage is counted and located. */
#include <criterion/criterion.h>
#include "load_helpers.h"

#define START "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"x\",\"App ID\":\"a-1\",\"Timestamp\":1000,\"User\":\"u\"}\n"
#define JOB "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":3,\"Submission Time\":1100,\"Stage IDs\":[],\"Properties\":{}}\n"

Test(model_bad, malformed_middle_line_is_counted_and_located)
{
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(START "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":\n" JOB, &a, &err), CLARITY_OK);
    cr_assert_eq(a->integrity.lines_malformed, 1);
    cr_assert_eq(a->integrity.nproblems, 1);
    cr_assert_eq(a->integrity.problems[0].line, 2);
    cr_assert_eq(a->integrity.problems[0].offset, strlen(START));
    cr_assert_eq(a->njobs, 1);
    cr_assert_not(a->integrity.truncated);
    clarity_app_free(a);
}

Test(model_bad, cut_last_line_is_truncation)
{
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(START JOB "{\"Event\":\"SparkListenerJobEnd\",\"Job", &a, &err), CLARITY_OK);
    cr_assert(a->integrity.truncated);
    cr_assert_eq(a->integrity.lines_malformed, 0);
    cr_assert_eq(a->njobs, 1);
    cr_assert_eq(a->integrity.jobs_without_end, 1);
    cr_assert(a->integrity.no_app_end);
    clarity_app_free(a);
}

Test(model_bad, empty_file_is_an_error)
{
    struct clarity_app *a;
    struct clarity_error err = {0};
    int rc = load_text("", &a, &err);
    cr_assert_eq(rc, CLARITY_EFORMAT);
    cr_assert_null(a);
    cr_assert(strstr(err.msg, "empty"), "message was: %s", err.msg);
}

Test(model_bad, json_that_is_not_an_event_log)
{
    struct clarity_app *a;
    struct clarity_error err = {0};
    int rc = load_text("{\"name\":\"package.json\",\"version\":\"1.0\"}\n{\"a\":1}\n", &a, &err);
    cr_assert_eq(rc, CLARITY_EFORMAT);
    cr_assert(strstr(err.msg, "no Spark events"), "message was: %s", err.msg);
    cr_assert_eq(err.line, 1);
}

Test(model_bad, deep_nesting_is_rejected_not_crashing)
{
    size_t depth = 100000;
    char *s = malloc(depth * 2 + sizeof START + 16);
    size_t n = 0;
    n += (size_t)sprintf(s, "%s", START);
    for (size_t i = 0; i < depth; i++) s[n++] = '[';
    for (size_t i = 0; i < depth; i++) s[n++] = ']';
    s[n++] = '\n';
    s[n] = '\0';
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(s, &a, &err), CLARITY_OK);
    cr_assert_eq(a->integrity.lines_malformed, 1);
    clarity_app_free(a);
    free(s);
}

Test(model_bad, invalid_utf8_is_malformed)
{
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(START "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":1,\"x\":\"\xff\xfe\"}\n" JOB, &a, &err),
                 CLARITY_OK);
    cr_assert_eq(a->integrity.lines_malformed, 1);
    cr_assert_eq(a->njobs, 1);
    clarity_app_free(a);
}

Test(model_bad, dropped_task_ends_are_detected)
{
    const char *log =
        START
        "{\"Event\":\"SparkListenerStageSubmitted\",\"Stage Info\":{\"Stage ID\":0,\"Stage Attempt ID\":0,\"Stage Name\":\"s\",\"Number of Tasks\":3}}\n"
        "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Stage Attempt ID\":0,\"Task End Reason\":{\"Reason\":\"Success\"},\"Task Info\":{\"Task ID\":5,\"Index\":0,\"Attempt\":0,\"Launch Time\":1200,\"Executor ID\":\"1\",\"Host\":\"h\",\"Finish Time\":1300}}\n"
        "{\"Event\":\"SparkListenerStageCompleted\",\"Stage Info\":{\"Stage ID\":0,\"Stage Attempt ID\":0,\"Stage Name\":\"s\",\"Number of Tasks\":3,\"Submission Time\":1150,\"Completion Time\":1400}}\n";
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(log, &a, &err), CLARITY_OK);
    cr_assert_eq(a->integrity.dropped_task_ends, 2);
    cr_assert_eq(a->integrity.task_end_without_start, 1);
    cr_assert_eq(clarity_task_finish_ms(a, 0) - clarity_task_launch_ms(a, 0), 100);
    clarity_app_free(a);
}

Test(model_bad, negative_duration_is_counted)
{
    const char *log =
        START
        "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Stage Attempt ID\":0,\"Task End Reason\":{\"Reason\":\"Success\"},\"Task Info\":{\"Task ID\":1,\"Index\":0,\"Attempt\":0,\"Launch Time\":1300,\"Executor ID\":\"1\",\"Host\":\"h\",\"Finish Time\":1200},\"Task Metrics\":{\"Executor Run Time\":10,\"Executor CPU Time\":900000000}}\n";
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(log, &a, &err), CLARITY_OK);
    cr_assert_eq(a->integrity.negative_durations, 1);
    cr_assert_eq(a->integrity.cpu_exceeds_run, 1);
    clarity_app_free(a);
}

Test(model_bad, unknown_task_fields_are_counted)
{
    const char *log =
        START
        "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Stage Attempt ID\":0,\"Vendor Tag\":1,\"Task End Reason\":{\"Reason\":\"Success\"},\"Task Info\":{\"Task ID\":1,\"Index\":0,\"Attempt\":0,\"Launch Time\":1200,\"Executor ID\":\"1\",\"Host\":\"h\",\"Finish Time\":1300,\"GPU Slot\":3},\"Task Metrics\":{\"Executor Run Time\":10,\"Fetch Backoff Count\":2,\"Shuffle Read Metrics\":{\"Fetch Wait Time\":4,\"Total Blocks Fetched\":9}}}\n";
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(log, &a, &err), CLARITY_OK);
    const struct clarity_integrity *in = &a->integrity;
    cr_assert_eq(in->fields_unknown, 3, "Total Blocks Fetched is a known 1.0-era key, not unknown");
    cr_assert_eq(in->nunknown_fields, 3);
    cr_assert_str_eq(clarity_app_str(a, in->unknown_fields[0].k), "task event.Vendor Tag");
    cr_assert_str_eq(clarity_app_str(a, in->unknown_fields[1].k), "Task Info.GPU Slot");
    cr_assert_str_eq(clarity_app_str(a, in->unknown_fields[2].k), "Task Metrics.Fetch Backoff Count");
    cr_assert_eq(clarity_task_metric(a, 0, CLARITY_TM_SR_FETCH_WAIT_MS), 4);
    clarity_app_free(a);
}
