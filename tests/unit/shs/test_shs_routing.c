/* Paths the History Server does not route, and how the route table tells an attempt id from
 * a resource name. */
#include "shs_helpers.h"

static struct shs_fixture fx;
static void setup(void) { shs_fixture_load(&fx, "tests/unit/shs/data"); }
static void teardown(void) { shs_fixture_free(&fx); }
TestSuite(shs_routing, .init = setup, .fini = teardown);

Test(shs_routing, unroutable_paths)
{
    const char *root = "no such path: expected /applications[/...] or /version";
    shs_expect_error(&fx, "", CLARITY_EUSAGE, 404, root);
    shs_expect_error(&fx, "/api/v1", CLARITY_EUSAGE, 404, root);
    shs_expect_error(&fx, "/api/v1/nothing", CLARITY_EUSAGE, 404, root);
    shs_expect_error(&fx, "/applications/app-shs-0002/jobs/0/tasks", CLARITY_EUSAGE, 404, "no such resource: jobs/0/tasks");
    shs_expect_error(&fx, "/applications/app-shs-0002/environment/x", CLARITY_EUSAGE, 404, "no such resource: environment/x");
    shs_expect_error(&fx, "/applications/app-shs-0001/2/nothing", CLARITY_EUSAGE, 404, "no such resource: nothing");
    shs_expect_error(&fx, "/applications/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q", CLARITY_EUSAGE, 404,
                     "path too long: /applications/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q");
}

Test(shs_routing, routes_logs_cannot_answer)
{
    /* SHS serves these from its streaming store and metrics over time, not from replayed events */
    shs_expect_error(&fx, "/applications/app-shs-0001/2/streaming", CLARITY_EUSAGE, 404, "no such resource: streaming");
    shs_expect_error(&fx, "/applications/app-shs-0002/executorMetrics", CLARITY_EUSAGE, 404, "no such resource: executorMetrics");
    /* /sql is answered (test_shs_sql.c): an application without SQL executions has none */
    struct shs_answer x;
    shs_ask(&x, &fx, "/applications/app-shs-0001/2/sql");
    cr_assert_eq(x.rc, CLARITY_OK, "%s", x.err.msg);
    cr_assert_eq(shs_len(x.root, ""), 0);
    shs_answer_free(&x);
}

Test(shs_routing, literal_resource_names_win_over_attempt_ids)
{
    /* "jobs" after the app id is the resource, not an attempt called "jobs" */
    struct shs_answer x;
    shs_ask(&x, &fx, "/applications/app-shs-0002/jobs");
    cr_assert_eq(x.rc, CLARITY_OK);
    cr_assert_eq(shs_len(x.root, ""), 1);
    shs_answer_free(&x);
    /* any other segment there is an attempt id */
    shs_expect_error(&fx, "/applications/app-shs-0002/jobz", CLARITY_ENOTFOUND, 404, "unknown app app-shs-0002, attempt jobz");
    /* under an application, withSparkUI's text whatever is missing */
    shs_expect_error(&fx, "/applications/app-shs-0002/jobz/jobs", CLARITY_ENOTFOUND, 404, "no such app: app-shs-0002");
}

Test(shs_routing, prefix_slashes_and_query_are_optional)
{
    const char *paths[] = {"applications/app-shs-0002", "/applications/app-shs-0002/", "//api/v1/applications/app-shs-0002",
                           "/api/v1/applications/app-shs-0002?unused=1&x"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        struct shs_answer x;
        shs_ask(&x, &fx, paths[i]);
        cr_assert_eq(x.rc, CLARITY_OK, "%s: %s", paths[i], x.err.msg);
        cr_assert_str_eq(shs_str(x.root, "id"), "app-shs-0002", "%s", paths[i]);
        shs_answer_free(&x);
    }
}

Test(shs_routing, no_applications)
{
    struct clarity_shs_response res;
    struct clarity_error err;
    cr_assert_eq(clarity_shs_answer(NULL, 0, "/applications", false, &res, &err), CLARITY_OK);
    cr_assert_str_eq(res.body, "[]\n");
    clarity_shs_response_free(&res);
    cr_assert_eq(clarity_shs_answer(NULL, 0, "/applications/x/jobs", false, &res, &err), CLARITY_ENOTFOUND);
    cr_assert_eq(res.status, 404);
    cr_assert_null(res.body);
    cr_assert_str_eq(err.msg, "no such app: x");
}
