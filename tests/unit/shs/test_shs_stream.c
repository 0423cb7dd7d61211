/* A streamed answer (clarity_shs_answer_to) must be the in-memory one byte for byte, write
 * nothing at all when the request is turned down, and logs loaded with only what the route
 * shows (clarity_shs_load_options) must give the answer a full load gives. */
#include "shs_helpers.h"

static const char *const shs_routes[] = {
    "/applications",
    "/applications?status=running",
    "/applications/app-shs-0001",
    "/applications/app-shs-0001/2",
    "/applications/app-shs-0001/2/jobs",
    "/applications/app-shs-0001/2/jobs/1",
    "/applications/app-shs-0001/2/stages",
    "/applications/app-shs-0001/2/stages?details=true&withSummaries=true",
    "/applications/app-shs-0001/2/stages?details=true&taskStatus=FAILED",
    "/applications/app-shs-0001/2/stages/1",
    "/applications/app-shs-0001/2/stages/1?details=false",
    "/applications/app-shs-0001/2/stages/1/1",
    "/applications/app-shs-0001/2/stages/1/0/taskSummary",
    "/applications/app-shs-0001/2/stages/1/0/taskList?sortBy=-runtime",
    "/applications/app-shs-0001/2/executors",
    "/applications/app-shs-0001/2/allexecutors",
    "/applications/app-shs-0001/2/environment",
    "/applications/app-shs-0001/2/allmiscellaneousprocess",
    "/applications/app-shs-0001/2/storage/rdd",
    "/applications/app-shs-0002/stages?details=true",
    "/applications/app-shs-0002/jobs",
    "/applications/app-shs-0002/executors",
    /* turned down: no route, unknown ids, a bad parameter, what the log lacks */
    "/applications/app-shs-0001/2/nothing",
    "/applications/nope/jobs",
    "/applications/app-shs-0001/2/jobs/99",
    "/applications/app-shs-0001/2/stages/99",
    "/applications/app-shs-0001/2/stages/1/7",
    "/applications/app-shs-0001/2/stages?details=maybe",
    "/applications/app-shs-0001/2/stages/1/0/taskSummary?quantiles=2",
    "/applications/app-shs-0001/2/storage/rdd/3",
    "/applications/app-shs-0001/2/logs",
};

#define NROUTES (sizeof shs_routes / sizeof *shs_routes)

static char *streamed(const struct shs_fixture *f, const char *path, bool pretty, int *rc, int *status, size_t *len)
{
    FILE *out = tmpfile();
    cr_assert_not_null(out);
    struct clarity_error err;
    *rc = clarity_shs_answer_to((struct clarity_app *const *)f->apps, f->napps, path, pretty, out, status, &err);
    long n = ftell(out);
    cr_assert_geq(n, 0);
    char *text = calloc((size_t)n + 1, 1);
    rewind(out);
    cr_assert_eq(fread(text, 1, (size_t)n, out), (size_t)n);
    fclose(out);
    *len = (size_t)n;
    return text;
}

Test(shs_stream, streamed_equals_in_memory)
{
    struct shs_fixture fx;
    shs_fixture_load(&fx, "tests/unit/shs/data");
    size_t ok = 0, refused = 0;
    for (size_t i = 0; i < NROUTES; i++)
        for (int pretty = 0; pretty <= 1; pretty++) {
            struct clarity_shs_response res;
            struct clarity_error err;
            int rc = clarity_shs_answer((struct clarity_app *const *)fx.apps, fx.napps, shs_routes[i], pretty, &res, &err);
            int src, status;
            size_t len;
            char *text = streamed(&fx, shs_routes[i], pretty, &src, &status, &len);
            cr_assert_eq(src, rc, "%s", shs_routes[i]);
            cr_assert_eq(status, res.status, "%s", shs_routes[i]);
            if (rc == CLARITY_OK) {
                cr_assert_eq(len, res.len, "%s: %zu bytes streamed, %zu in memory", shs_routes[i], len, res.len);
                cr_assert(!memcmp(text, res.body, len), "%s: streamed bytes differ", shs_routes[i]);
                ok++;
            } else {
                cr_assert_eq(len, 0, "%s: %d, yet %zu bytes written", shs_routes[i], status, len);
                cr_assert(status == 400 || status == 404, "%s: %d", shs_routes[i], status);
                refused++;
            }
            free(text);
            clarity_shs_response_free(&res);
        }
    cr_assert_eq(ok, 2 * 23);
    cr_assert_eq(refused, 2 * (NROUTES - 23));
    shs_fixture_free(&fx);
}

/* Loads every application under rel with the options the route asks for. */
static void load_for(struct shs_fixture *f, const char *rel, const char *route)
{
    char path[1024];
    const char *p[] = {shs_test_path(rel, path, sizeof path)};
    struct clarity_error err = {0};
    memset(f, 0, sizeof *f);
    cr_assert_eq(clarity_source_resolve(p, 1, &f->sources, &err), CLARITY_OK);
    for (size_t i = 0; i < f->sources.napps; i++) {
        struct clarity_load_options o = {.threads = (int)(i % 2)};
        clarity_shs_load_options(route, &o);
        cr_assert_eq(clarity_app_load(&f->sources.apps[i], &o, &f->apps[f->napps], &err), CLARITY_OK, "%s", err.msg);
        f->napps++;
    }
}

Test(shs_stream, route_load_options_give_the_same_answer)
{
    struct shs_fixture full;
    shs_fixture_load(&full, "tests/unit/shs/data");
    for (size_t i = 0; i < NROUTES; i++) {
        struct shs_fixture lean;
        load_for(&lean, "tests/unit/shs/data", shs_routes[i]);
        if (strcmp(clarity_shs_content_type(shs_routes[i]), "application/json")) {
            /* the event log ZIP: the same bytes whatever was loaded */
            struct clarity_shs_response ra, rb;
            struct clarity_error err;
            cr_assert_eq(clarity_shs_answer((struct clarity_app *const *)full.apps, full.napps, shs_routes[i], true, &ra, &err), 0);
            cr_assert_eq(clarity_shs_answer((struct clarity_app *const *)lean.apps, lean.napps, shs_routes[i], true, &rb, &err), 0);
            cr_assert(ra.len == rb.len && !memcmp(ra.body, rb.body, ra.len), "%s", shs_routes[i]);
            clarity_shs_response_free(&ra);
            clarity_shs_response_free(&rb);
            shs_fixture_free(&lean);
            continue;
        }
        struct shs_answer a, b;
        shs_ask(&a, &full, shs_routes[i]);
        shs_ask(&b, &lean, shs_routes[i]);
        cr_assert_eq(a.rc, b.rc, "%s", shs_routes[i]);
        if (a.rc == CLARITY_OK) cr_assert_str_eq(a.res.body, b.res.body, "%s", shs_routes[i]);
        shs_answer_free(&a);
        shs_answer_free(&b);
        shs_fixture_free(&lean);
    }
    shs_fixture_free(&full);
}

Test(shs_stream, load_options_follow_what_the_route_shows)
{
    struct { const char *route; bool accums, exec_metrics; } cases[] = {
        {"/applications/a/stages", false, false},
        {"/applications/a/stages?details=true", true, false},
        {"/applications/a/stages?details=maybe", false, false},
        {"/applications/a/1/stages/3", true, false},
        {"/applications/a/stages/3?details=false", false, false},
        {"/applications/a/stages/3/0/taskList", true, false},
        {"/applications/a/stages/3/0/taskSummary", false, false},
        {"/applications/a/jobs", false, false},
        {"/applications/a/executors", false, true},
        {"/applications/a/2/allexecutors", false, true},
        {"/applications/a/environment", false, false},
        {"/nothing", false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct clarity_load_options o = {.threads = 3, .quiet = true};
        clarity_shs_load_options(cases[i].route, &o);
        cr_assert_eq(o.keep_task_accumulables, cases[i].accums, "%s", cases[i].route);
        cr_assert(o.user_task_accumulables_only, "%s", cases[i].route);
        cr_assert_eq(!o.skip_task_executor_metrics, cases[i].exec_metrics, "%s", cases[i].route);
        cr_assert_eq(o.threads, 3, "other fields are left alone");
        cr_assert(o.quiet);
    }
}
