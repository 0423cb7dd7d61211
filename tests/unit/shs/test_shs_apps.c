/* /applications, /applications/ID and /applications/ID/ATTEMPT over tests/unit/shs/data:
 * app-shs-0001 (attempts "2" and "1") and the running app-shs-0002. */
#include "shs_helpers.h"

static struct shs_fixture fx;
static void setup(void) { shs_fixture_load(&fx, "tests/unit/shs/data"); }
static void teardown(void) { shs_fixture_free(&fx); }
TestSuite(shs_apps, .init = setup, .fini = teardown);

Test(shs_apps, list_orders_by_end_time_and_groups_attempts)
{
    struct shs_answer x;
    shs_ask(&x, &fx, "/api/v1/applications");
    cr_assert_eq(x.rc, CLARITY_OK);
    cr_assert_eq(shs_len(x.root, ""), 2);
    /* the "endTime" index read in reverse: the running app (end -1) comes last */
    cr_assert_str_eq(shs_str(x.root, "0.id"), "app-shs-0001");
    cr_assert_str_eq(shs_str(x.root, "0.name"), "shs-fixture");
    cr_assert_eq(shs_len(x.root, "0.attempts"), 2);
    /* attempts newest start first */
    cr_assert_str_eq(shs_str(x.root, "0.attempts.0.attemptId"), "2");
    cr_assert_str_eq(shs_str(x.root, "0.attempts.1.attemptId"), "1");
    cr_assert_eq(shs_int(x.root, "0.attempts.0.duration"), 20000);
    cr_assert_str_eq(shs_str(x.root, "0.attempts.0.startTime"), "2023-11-14T22:13:20.000GMT");
    cr_assert_str_eq(shs_str(x.root, "0.attempts.0.appSparkVersion"), "3.3.0");
    cr_assert_str_eq(shs_str(x.root, "1.id"), "app-shs-0002");
    cr_assert_not(shs_bool(x.root, "1.attempts.0.completed"));
    cr_assert_eq(shs_int(x.root, "1.attempts.0.endTimeEpoch"), -1);
    cr_assert_str_eq(shs_str(x.root, "1.attempts.0.endTime"), "1969-12-31T23:59:59.999GMT");
    cr_assert_not(shs_has(shs_at(x.root, "1.attempts.0"), "attemptId"), "an attempt without id has no attemptId");
    shs_answer_free(&x);
}

Test(shs_apps, status_and_limit)
{
    struct shs_answer x;
    shs_ask(&x, &fx, "/applications?status=running");
    cr_assert_eq(shs_len(x.root, ""), 1);
    cr_assert_str_eq(shs_str(x.root, "0.id"), "app-shs-0002");
    shs_answer_free(&x);
    shs_ask(&x, &fx, "/applications?status=COMPLETED");
    cr_assert_eq(shs_len(x.root, ""), 1);
    cr_assert_str_eq(shs_str(x.root, "0.id"), "app-shs-0001");
    shs_answer_free(&x);
    shs_ask(&x, &fx, "/applications?status=running&status=completed&limit=1");
    cr_assert_eq(shs_len(x.root, ""), 1);
    cr_assert_str_eq(shs_str(x.root, "0.id"), "app-shs-0001");
    shs_answer_free(&x);
    shs_ask(&x, &fx, "/applications?limit=0");
    cr_assert_eq(shs_len(x.root, ""), 0);
    shs_answer_free(&x);
}

Test(shs_apps, bad_list_parameters_are_400)
{
    shs_expect_error(&fx, "/applications?status=done", CLARITY_EUSAGE, 400, "bad application status 'done'");
    shs_expect_error(&fx, "/applications?limit=ten", CLARITY_EUSAGE, 400, "bad limit 'ten'");
}

Test(shs_apps, one_application_and_its_attempts)
{
    struct shs_answer x;
    shs_ask(&x, &fx, "/applications/app-shs-0001");
    cr_assert_str_eq(shs_str(x.root, "id"), "app-shs-0001");
    cr_assert_eq(shs_len(x.root, "attempts"), 2);
    shs_answer_free(&x);
    shs_ask(&x, &fx, "/applications/app-shs-0001/1");
    cr_assert_str_eq(shs_str(x.root, "attemptId"), "1");
    cr_assert_eq(shs_int(x.root, "duration"), 5000);
    cr_assert_eq(shs_int(x.root, "startTimeEpoch"), 1699990000000LL);
    cr_assert_str_eq(shs_str(x.root, "sparkUser"), "bob");
    cr_assert(shs_bool(x.root, "completed"));
    shs_answer_free(&x);
    /* percent-encoded segments are decoded */
    shs_ask(&x, &fx, "/applications/app%2Dshs%2D0002");
    cr_assert_str_eq(shs_str(x.root, "name"), "still-running");
    shs_answer_free(&x);
}

Test(shs_apps, unknown_applications_and_attempts_are_404)
{
    /* SHS's texts: OneApplicationResource, OneApplicationAttemptResource, withSparkUI */
    shs_expect_error(&fx, "/applications/app-nope", CLARITY_ENOTFOUND, 404, "unknown app: app-nope");
    shs_expect_error(&fx, "/applications/app-nope/jobs", CLARITY_ENOTFOUND, 404, "no such app: app-nope");
    shs_expect_error(&fx, "/applications/app-shs-0001/3", CLARITY_ENOTFOUND, 404, "unknown app app-shs-0001, attempt 3");
    shs_expect_error(&fx, "/applications/app-nope/3", CLARITY_ENOTFOUND, 404, "unknown app app-nope, attempt 3");
    shs_expect_error(&fx, "/applications/app-shs-0001/3/jobs", CLARITY_ENOTFOUND, 404, "no such app: app-shs-0001");
    /* attempts with ids must be named */
    shs_expect_error(&fx, "/applications/app-shs-0001/jobs", CLARITY_ENOTFOUND, 404, "no such app: app-shs-0001");
}

Test(shs_apps, compact_and_pretty)
{
    struct shs_answer x;
    shs_ask_opt(&x, &fx, "/applications/app-shs-0001/1", false);
    cr_assert_eq(x.rc, CLARITY_OK);
    cr_assert_eq(strchr(x.res.body, '\n'), x.res.body + x.res.len - 1, "compact: one line");
    cr_assert(!strncmp(x.res.body, "{\"attemptId\":\"1\",", 17), "%s", x.res.body);
    shs_answer_free(&x);
    shs_ask(&x, &fx, "/applications/app-shs-0001/1");
    cr_assert(!strncmp(x.res.body, "{\n  \"attemptId\" : \"1\",\n", 23), "Jackson's pretty printing: %s", x.res.body);
    shs_answer_free(&x);
}

/* ApplicationListResource's date windows. The fixture: app-shs-0001 attempt "1" runs
 * 2023-11-14T19:26:40-19:26:45 GMT, attempt "2" 22:13:20-22:13:40; app-shs-0002 starts
 * 2023-11-16T02:00:00 and is running. */
static size_t list_ids(const char *path, const char **ids, size_t max)
{
    struct shs_answer x;
    shs_ask(&x, &fx, path);
    cr_assert_eq(x.rc, CLARITY_OK, "%s: %s", path, x.err.msg);
    size_t n = (size_t)shs_len(x.root, "");
    static char keep[8][32];
    for (size_t i = 0; i < n && i < max; i++) {
        char k[32];
        snprintf(k, sizeof k, "%zu.id", i);
        snprintf(keep[i], sizeof keep[i], "%s", shs_str(x.root, k));
        ids[i] = keep[i];
    }
    shs_answer_free(&x);
    return n;
}

Test(shs_apps, date_windows)
{
    const char *ids[8];
    /* a GMT day: only the running app starts after 2023-11-15 */
    cr_assert_eq(list_ids("/applications?minDate=2023-11-15", ids, 8), 1);
    cr_assert_str_eq(ids[0], "app-shs-0002");
    /* date-time form: attempt "1" starts before 20:00, so its application is kept */
    cr_assert_eq(list_ids("/applications?maxDate=2023-11-14T20:00:00.000GMT", ids, 8), 1);
    cr_assert_str_eq(ids[0], "app-shs-0001");
    /* an offset zone: 21:00+01:00 is 20:00 GMT, the same window */
    cr_assert_eq(list_ids("/applications?maxDate=2023-11-14T21:00:00.000GMT%2B01:00", ids, 8), 1);
    /* the end window: attempt "2" ends 22:13:40; the running app passes while maxEndDate is
     * in the future (its default, 3000-01-01) */
    cr_assert_eq(list_ids("/applications?minEndDate=2023-11-14T22:13:30.000GMT", ids, 8), 2);
    cr_assert_eq(list_ids("/applications?minEndDate=2023-11-14T22:13:41.000GMT&status=completed", ids, 8), 0);
    /* a past maxEndDate drops every running application */
    cr_assert_eq(list_ids("/applications?maxEndDate=2023-11-14T22:00:00.000GMT", ids, 8), 1);
    cr_assert_str_eq(ids[0], "app-shs-0001");
    /* start and end from different attempts do not combine: attempt "1" starts before 20:00 but
     * ends before 22:13:30, attempt "2" ends after but starts after */
    cr_assert_eq(list_ids("/applications?maxDate=2023-11-14T20:00:00.000GMT&minEndDate=2023-11-14T22:13:30.000GMT&status=completed",
                          ids, 8), 0);
    /* limit counts listed applications, after the filter */
    cr_assert_eq(list_ids("/applications?minDate=2023-11-14&limit=1", ids, 8), 1);
    cr_assert_str_eq(ids[0], "app-shs-0001");
}

Test(shs_apps, bad_dates_are_400_as_simple_date_param)
{
    shs_expect_error(&fx, "/applications?minDate=yesterday", CLARITY_EUSAGE, 400, "Couldn't parse date: yesterday");
    shs_expect_error(&fx, "/applications?maxEndDate=2015/02/10", CLARITY_EUSAGE, 400, "Couldn't parse date: 2015/02/10");
}

Test(shs_apps, filter_api_matches_by_hand)
{
    struct clarity_shs_app_filter f;
    struct clarity_error err;
    cr_assert_eq(clarity_shs_app_filter_parse("minDate=2015-02-10&maxEndDate=2015-05-06T13:03:00.950GMT&limit=3", &f, &err),
                 CLARITY_OK);
    cr_assert_eq(f.min_start_ms, 1423526400000LL);           /* 2015-02-10T00:00:00 GMT */
    cr_assert_eq(f.max_end_ms, 1430917380950LL);             /* 2015-05-06T13:03:00.950 GMT */
    cr_assert_eq(f.max_start_ms, 32503680000000LL);          /* default 3000-01-01 */
    cr_assert_eq(f.limit, 3);
    cr_assert(f.running && f.completed);
    struct clarity_shs_attempt_info a = {.app_id = "x", .start_ms = 1423526400000LL, .end_ms = 1430917380950LL};
    const struct clarity_shs_attempt_info *att[] = {&a};
    cr_assert(clarity_shs_app_filter_match(&f, att, 1, 0));
    a.end_ms++;
    cr_assert_not(clarity_shs_app_filter_match(&f, att, 1, 0));
    /* running: the end window holds while maxEndDate is after now */
    a.end_ms = 0;
    cr_assert(clarity_shs_app_filter_match(&f, att, 1, 1430917380949LL));
    cr_assert_not(clarity_shs_app_filter_match(&f, att, 1, 1430917380950LL));
    cr_assert_eq(clarity_shs_app_filter_parse("status=RUNNING", &f, &err), CLARITY_OK);
    cr_assert(f.running && !f.completed);
    cr_assert_eq(clarity_shs_app_filter_parse("minEndDate=soon", &f, &err), CLARITY_EUSAGE);
    cr_assert_str_eq(err.msg, "Couldn't parse date: soon");
}
