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
    shs_expect_error(&fx, "/applications/app-nope", CLARITY_ENOTFOUND, 404, "no such app: app-nope");
    shs_expect_error(&fx, "/applications/app-nope/jobs", CLARITY_ENOTFOUND, 404, "no such app: app-nope");
    shs_expect_error(&fx, "/applications/app-shs-0001/3", CLARITY_ENOTFOUND, 404, "unknown app attempt: app-shs-0001/3");
    shs_expect_error(&fx, "/applications/app-shs-0001/3/jobs", CLARITY_ENOTFOUND, 404, "unknown app attempt: app-shs-0001/3");
    /* attempts with ids must be named */
    shs_expect_error(&fx, "/applications/app-shs-0001/jobs", CLARITY_ENOTFOUND, 404,
                     "no such app: app-shs-0001 (it has attempts; name one: /applications/app-shs-0001/<attemptId>/...)");
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
