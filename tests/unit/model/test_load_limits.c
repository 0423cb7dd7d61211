/* Logs at the limits: many distinct unknown names, repeated TaskEnds, stage attempts
 * past 4096 and times at INT64_MIN/MAX. Each log is written by the test itself. */
#include <criterion/criterion.h>
#include <stdint.h>
#include "clarity/report.h"
#include "load_helpers.h"

#define START "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"x\",\"App ID\":\"a-1\",\"Timestamp\":1000,\"User\":\"u\"}\n"

/* 200,000 distinct unknown event names: each is found by hash (a linear search over the names
 * seen made this quadratic), the first 100 are listed with their counts, the rest counted. */
Test(model_limits, many_distinct_unknown_events_are_counted_and_capped)
{
    const size_t distinct = 200000;
    size_t cap = distinct * 48 + 1024, n = 0;
    char *log = malloc(cap);
    cr_assert_not_null(log);
    n += (size_t)snprintf(log + n, cap - n, "%s", START);
    for (size_t i = 0; i < distinct; i++)
        n += (size_t)snprintf(log + n, cap - n, "{\"Event\":\"com.example.Vendor%zu\"}\n", i);
    /* repeats: one listed name twice more, one unlisted name once more */
    n += (size_t)snprintf(log + n, cap - n, "{\"Event\":\"com.example.Vendor7\"}\n{\"Event\":\"com.example.Vendor7\"}\n");
    n += (size_t)snprintf(log + n, cap - n, "{\"Event\":\"com.example.Vendor150000\"}\n");
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(log, &a, &err), CLARITY_OK, "load failed: %s", err.msg);
    free(log);
    const struct clarity_integrity *in = &a->integrity;
    cr_assert_eq(in->events, distinct + 4);
    cr_assert_eq(in->events_unknown, distinct + 3);
    cr_assert_eq(in->nunknown_events, 100);
    cr_assert_eq(in->unknown_events_unlisted, distinct - 100);
    cr_assert_str_eq(clarity_app_str(a, in->unknown_events[0].k), "com.example.Vendor0");
    cr_assert_str_eq(clarity_app_str(a, in->unknown_events[99].k), "com.example.Vendor99");
    cr_assert_str_eq(clarity_app_str(a, in->unknown_events[7].k), "com.example.Vendor7");
    cr_assert_eq(in->unknown_counts[7], 3);
    cr_assert_eq(in->unknown_counts[8], 1);
    clarity_app_free(a);
}

/* The unknown task keys share the helper: 150 distinct keys list 100 and count the rest. */
Test(model_limits, unknown_task_keys_are_capped_the_same_way)
{
    size_t cap = 150 * 400 + 1024, n = 0;
    char *log = malloc(cap);
    cr_assert_not_null(log);
    n += (size_t)snprintf(log + n, cap - n, "%s", START);
    for (int i = 0; i < 150; i++)
        n += (size_t)snprintf(log + n, cap - n,
                              "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Stage Attempt ID\":0,\"Vendor Tag %d\":1,"
                              "\"Task End Reason\":{\"Reason\":\"Success\"},\"Task Info\":{\"Task ID\":%d,\"Index\":%d,\"Attempt\":0,"
                              "\"Launch Time\":1200,\"Executor ID\":\"1\",\"Host\":\"h\",\"Finish Time\":1300}}\n",
                              i % 120, i, i);
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(log, &a, &err), CLARITY_OK, "load failed: %s", err.msg);
    free(log);
    const struct clarity_integrity *in = &a->integrity;
    cr_assert_eq(in->fields_unknown, 150);
    cr_assert_eq(in->nunknown_fields, 100);
    cr_assert_eq(in->unknown_fields_unlisted, 20);
    cr_assert_str_eq(clarity_app_str(a, in->unknown_fields[5].k), "task event.Vendor Tag 5");
    cr_assert_eq(in->unknown_field_counts[5], 2, "Vendor Tag 5 comes again as task 125");
    cr_assert_eq(in->unknown_field_counts[50], 1);
    clarity_app_free(a);
}

#define TASK_END(id, finish)                                                                                      \
    "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Stage Attempt ID\":0,\"Task End Reason\":{\"Reason\":\"Success\"}," \
    "\"Task Info\":{\"Task ID\":" #id ",\"Index\":" #id ",\"Attempt\":0,\"Launch Time\":1200,\"Executor ID\":\"1\","         \
    "\"Host\":\"h\",\"Finish Time\":" #finish "},\"Task Metrics\":{\"Executor Run Time\":90}}\n"
#define END "{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":2000}\n"

/* A repeated TaskEnd is ignored and counted; the flags (summary text and JSON, fleet rows)
 * must not say "ok" then. */
Test(model_limits, repeated_task_end_is_flagged)
{
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(START TASK_END(1, 1300) TASK_END(2, 1400) TASK_END(1, 1350) END, &a, &err), CLARITY_OK,
                 "load failed: %s", err.msg);
    cr_assert_eq(a->integrity.duplicate_task_ends, 1);
    cr_assert_eq(a->tasks.n, 2);
    cr_assert_eq(clarity_task_finish_ms(a, 0), 1300, "the first TaskEnd wins");
    char f[256];
    clarity_report_integrity_flags(a, f, sizeof f);
    cr_assert_str_eq(f, "duplicate-task-ends", "flags were: %s", f);
    clarity_app_free(a);

    /* the same log without the repeat says ok */
    cr_assert_eq(load_text(START TASK_END(1, 1300) TASK_END(2, 1400) END, &a, &err), CLARITY_OK);
    clarity_report_integrity_flags(a, f, sizeof f);
    cr_assert_str_eq(f, "ok", "flags were: %s", f);
    clarity_app_free(a);
}

Test(model_limits, skipped_long_line_is_flagged)
{
    struct clarity_app a = {0};
    a.integrity.lines_too_long = 1;
    a.end_ms = 1;
    char f[256];
    clarity_report_integrity_flags(&a, f, sizeof f);
    cr_assert_str_eq(f, "lines-too-long", "flags were: %s", f);
}

#define STAGE(id, att, n)                                                                                       \
    "{\"Event\":\"SparkListenerStageSubmitted\",\"Stage Info\":{\"Stage ID\":" #id ",\"Stage Attempt ID\":" #att \
    ",\"Stage Name\":\"s" #id "\",\"Number of Tasks\":" #n ",\"Submission Time\":1100}}\n"

/* Stage attempts were packed as id * 4096 + attempt: stage 0 attempt 4096 became stage 1
 * attempt 0. */
Test(model_limits, stage_attempt_4096_stays_apart)
{
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(START STAGE(0, 4096, 3) STAGE(1, 0, 5) STAGE(2, 8192, 7) STAGE(4, 0, 9), &a, &err), CLARITY_OK,
                 "load failed: %s", err.msg);
    cr_assert_eq(a->nstages, 4);
    struct clarity_stage *s0 = clarity_app_stage(a, 0, 4096), *s1 = clarity_app_stage(a, 1, 0);
    cr_assert(s0 && s1 && s0 != s1);
    cr_assert_eq(s0->stage_id, 0);
    cr_assert_eq(s0->attempt, 4096);
    cr_assert_eq(s0->num_tasks, 3);
    cr_assert_eq(s1->stage_id, 1);
    cr_assert_eq(s1->num_tasks, 5);
    cr_assert_eq(clarity_app_stage(a, 2, 8192)->num_tasks, 7);
    cr_assert_eq(clarity_app_stage(a, 4, 0)->num_tasks, 9);
    cr_assert_null(clarity_app_stage(a, 0, 0));
    cr_assert_eq(a->integrity.values_out_of_range, 0);
    clarity_app_free(a);
}

/* Every (stage, attempt) of a grid finds its own row: ids and attempts that the old packing
 * folded together (s * 4096 + a) and ones far apart. */
Test(model_limits, stage_grid_finds_every_attempt)
{
    size_t cap = 64 * 60 * 200 + 1024, n = 0;
    char *log = malloc(cap);
    cr_assert_not_null(log);
    n += (size_t)snprintf(log + n, cap - n, "%s", START);
    for (long s = 0; s < 60; s++)
        for (long att = 0; att < 64; att++)
            n += (size_t)snprintf(log + n, cap - n,
                                  "{\"Event\":\"SparkListenerStageSubmitted\",\"Stage Info\":{\"Stage ID\":%ld,"
                                  "\"Stage Attempt ID\":%ld,\"Number of Tasks\":%ld}}\n",
                                  s * 1000003, att * 4096, s * 100 + att);
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(log, &a, &err), CLARITY_OK, "load failed: %s", err.msg);
    free(log);
    cr_assert_eq(a->nstages, 60 * 64);
    for (long s = 0; s < 60; s++)
        for (long att = 0; att < 64; att++) {
            struct clarity_stage *st = clarity_app_stage(a, s * 1000003, (int32_t)(att * 4096));
            cr_assert(st, "stage %ld attempt %ld missing", s, att);
            cr_assert_eq(st->num_tasks, s * 100 + att);
        }
    cr_assert_null(clarity_app_stage(a, 1, 0));
    clarity_app_free(a);
}

#define MAX "9223372036854775807"
#define MIN "-9223372036854775808"

/* Times and ids at INT64_MIN/MAX: their differences overflow 64 bits (undefined behaviour,
 * which the ASan+UBSan build aborts on); they are counted as out of range instead. */
Test(model_limits, extreme_values_load_and_are_counted)
{
    const char *log =
        "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"x\",\"App ID\":\"a-1\",\"Timestamp\":" MIN ",\"User\":\"u\"}\n"
        "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":" MAX ",\"Submission Time\":" MIN ",\"Stage Infos\":[{\"Stage ID\":" MAX
        ",\"Stage Attempt ID\":" MAX ",\"Stage Name\":\"s\",\"Number of Tasks\":" MAX "}],\"Stage IDs\":[" MAX "," MIN "],\"Properties\":{}}\n"
        "{\"Event\":\"SparkListenerStageSubmitted\",\"Stage Info\":{\"Stage ID\":" MIN ",\"Stage Attempt ID\":0,\"Stage Name\":\"s\","
        "\"Number of Tasks\":" MIN ",\"Submission Time\":" MAX "}}\n"
        "{\"Event\":\"SparkListenerTaskStart\",\"Stage ID\":" MIN ",\"Stage Attempt ID\":0,\"Task Info\":{\"Task ID\":" MAX
        ",\"Index\":" MAX ",\"Attempt\":" MAX ",\"Launch Time\":" MAX ",\"Executor ID\":\"1\",\"Host\":\"h\"}}\n"
        "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":" MIN ",\"Stage Attempt ID\":0,\"Task End Reason\":{\"Reason\":\"Success\"},"
        "\"Task Info\":{\"Task ID\":" MAX ",\"Index\":" MAX ",\"Attempt\":" MAX ",\"Launch Time\":" MAX ",\"Executor ID\":\"1\","
        "\"Host\":\"h\",\"Getting Result Time\":" MAX ",\"Finish Time\":" MIN "},\"Task Metrics\":{\"Executor Run Time\":" MIN
        ",\"Executor CPU Time\":" MAX ",\"JVM GC Time\":" MAX ",\"Shuffle Write Metrics\":{\"Shuffle Bytes Written\":" MAX
        ",\"Shuffle Write Time\":" MAX "}}}\n"
        "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":" MIN ",\"Stage Attempt ID\":0,\"Task End Reason\":{\"Reason\":\"Success\"},"
        "\"Task Info\":{\"Task ID\":" MIN ",\"Index\":0,\"Attempt\":0,\"Launch Time\":" MIN ",\"Executor ID\":\"1\","
        "\"Host\":\"h\",\"Getting Result Time\":" MAX ",\"Finish Time\":" MAX "},\"Task Metrics\":{\"Executor Run Time\":" MAX
        ",\"Executor CPU Time\":" MIN ",\"JVM GC Time\":" MAX ",\"Shuffle Write Metrics\":{\"Shuffle Bytes Written\":" MAX "}}}\n"
        "{\"Event\":\"SparkListenerStageCompleted\",\"Stage Info\":{\"Stage ID\":" MIN ",\"Stage Attempt ID\":0,\"Stage Name\":\"s\","
        "\"Number of Tasks\":" MIN ",\"Submission Time\":" MIN ",\"Completion Time\":" MAX "}}\n"
        "{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":" MAX ",\"Completion Time\":" MAX ",\"Job Result\":{\"Result\":\"JobSucceeded\"}}\n"
        "{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":" MAX "}\n";
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(log, &a, &err), CLARITY_OK, "load failed: %s", err.msg);
    const struct clarity_integrity *in = &a->integrity;
    cr_assert_eq(a->nstages, 2);
    struct clarity_stage *big = clarity_app_stage(a, INT64_MAX, INT32_MAX), *small = clarity_app_stage(a, INT64_MIN, 0);
    cr_assert(big && small && big != small);
    cr_assert_eq(a->tasks.n, 2);
    /* the job's stage attempt (clamped to INT32_MAX), task MAX's launch (MAX - MIN from the
     * application start) and getting-result time, task MIN's getting-result and finish times */
    cr_assert_eq(in->values_out_of_range, 5, "counted %llu", (unsigned long long)in->values_out_of_range);
    for (size_t i = 0; i < a->tasks.n; i++)
        cr_assert_eq(clarity_task_finish_ms(a, i), clarity_task_launch_ms(a, i), "row %zu: an overflowing duration is 0", i);
    /* the figures derived from them stay defined */
    cr_assert_eq(clarity_job_duration_ms(a, clarity_app_job(a, INT64_MAX)), -1);
    cr_assert_eq(clarity_stage_duration_ms(a, small), -1);
    cr_assert_eq(clarity_app_duration_ms(a), -1);
    struct clarity_app_totals t;
    cr_assert_eq(clarity_totals_compute(a, &t), 0);
    cr_assert_eq(t.app.gc_ms, INT64_MAX, "a sum past the limit is held there");
    cr_assert_eq(t.app.shuffle_write_bytes, INT64_MAX);
    clarity_totals_free(&t);
    char f[256];
    clarity_report_integrity_flags(a, f, sizeof f);
    cr_assert(strstr(f, "values-out-of-range"), "flags were: %s", f);
    clarity_app_free(a);
}
