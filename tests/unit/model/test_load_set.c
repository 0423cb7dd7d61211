/* clarity_load_set on tests/data: every application in path order, failures kept in the set,
 * progress reported, nothing printed. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "clarity/model.h"

static const char *data_dir(void)
{
    static char path[1024];
    const char *root = getenv("CLARITY_ROOT");
    snprintf(path, sizeof path, "%s/tests/data", root ? root : ".");
    return path;
}

struct calls { size_t n, last_done, last_total; };
static void count_progress(void *ctx, size_t done, size_t total)
{
    struct calls *c = ctx;
    c->n++;
    c->last_done = done;
    c->last_total = total;
}

Test(load_set, directory_of_fixtures)
{
    const char *paths[1] = {data_dir()};
    struct clarity_load_options lean = {.skip_task_executor_metrics = true};
    struct calls calls = {0};
    struct clarity_load_set_options so = {.app = &lean, .workers = 2, .progress = count_progress, .progress_ctx = &calls};
    struct clarity_app_set set;
    struct clarity_error err;
    cr_assert_eq(clarity_load_set(paths, 1, &so, &set, &err), CLARITY_OK, "%s", err.msg);
    /* codec-sample, findings-plan, mini-3x, peridot-ref-1, peridot-ref-2,
     * photon-db13.3-q88-excerpt, spark-1.2-local, spark-3.1 */
    cr_assert_eq(set.n, 8);
    cr_assert_eq(set.nfailed, 0);
    cr_assert_eq(set.resolve_err.code, 0);
    cr_assert_eq(set.sources.nnotes, 2);   /* the CSV and the Python script */
    for (size_t i = 0; i < set.n; i++) {
        cr_assert_not_null(set.apps[i].app);
        cr_assert_eq(set.apps[i].src, &set.sources.apps[i]);
        if (i) cr_assert(strcmp(set.apps[i - 1].src->path, set.apps[i].src->path) < 0, "sources in path order");
    }
    cr_assert(strstr(set.apps[2].src->path, "mini-3x.json"));
    cr_assert_str_eq(clarity_app_str(set.apps[2].app, set.apps[2].app->app_id), "app-20240101000000-0001");
    /* the last call says everything is done */
    cr_assert_geq(calls.n, 1);
    cr_assert_eq(calls.last_done, 8);
    cr_assert_eq(calls.last_total, 8);
    clarity_app_set_free(&set);
    cr_assert_eq(set.n, 0);
    cr_assert_null(set.apps);
}

Test(load_set, failures_stay_in_the_set)
{
    char dir[] = "/tmp/clarity-load-set-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char good[1100], bad[1100], mini[1100];
    snprintf(mini, sizeof mini, "%s/mini-3x.json", data_dir());
    snprintf(good, sizeof good, "%s/app-good", dir);
    snprintf(bad, sizeof bad, "%s/app-notalog", dir);
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", mini, good);
    cr_assert_eq(system(cmd), 0);
    FILE *f = fopen(bad, "w");
    fputs("{\"name\":\"x\",\"dependencies\":{}}\n", f);
    fclose(f);

    const char *paths[1] = {dir};
    struct clarity_app_set set;
    struct clarity_error err;
    cr_assert_eq(clarity_load_set(paths, 1, NULL, &set, &err), CLARITY_OK);
    cr_assert_eq(set.n, 2);
    cr_assert_eq(set.nfailed, 1);
    cr_assert_not_null(set.apps[0].app);      /* app-good sorts first */
    cr_assert_null(set.apps[1].app);
    cr_assert_eq(set.apps[1].err.code, CLARITY_EFORMAT);
    cr_assert(strstr(set.apps[1].err.msg, "no Spark events"), "%s", set.apps[1].err.msg);
    clarity_app_set_free(&set);

    /* only the bad one: nothing loads, the error is the application's */
    const char *only[1] = {bad};
    cr_assert_eq(clarity_load_set(only, 1, NULL, &set, &err), CLARITY_EFORMAT);
    cr_assert_eq(set.n, 1);
    cr_assert_eq(set.nfailed, 1);
    cr_assert(strstr(err.msg, "no Spark events"), "%s", err.msg);
    clarity_app_set_free(&set);
    remove(good);
    remove(bad);
    rmdir(dir);
}

Test(load_set, missing_path_beside_a_good_one)
{
    char mini[1100];
    snprintf(mini, sizeof mini, "%s/mini-3x.json", data_dir());
    const char *paths[2] = {"/nonexistent/clarity-log", mini};
    struct clarity_app_set set;
    struct clarity_error err;
    /* the good log still loads; the missing path is kept as the resolve error */
    cr_assert_eq(clarity_load_set(paths, 2, NULL, &set, &err), CLARITY_OK);
    cr_assert_eq(set.n, 1);
    cr_assert_not_null(set.apps[0].app);
    cr_assert_eq(set.resolve_err.code, CLARITY_EIO);
    cr_assert_str_eq(set.resolve_err.file, "/nonexistent/clarity-log");
    clarity_app_set_free(&set);

    cr_assert_eq(clarity_load_set(paths, 1, NULL, &set, &err), CLARITY_EIO);
    cr_assert_eq(set.n, 0);
    cr_assert_str_eq(err.file, "/nonexistent/clarity-log");
    clarity_app_set_free(&set);
}

/* Streaming: every application handed over once, in source order, loaded (its model readable
 * in the callback) and freed afterwards; with 1 worker and with 2. */
struct handed { size_t n, loaded; bool in_order; char first_id[64]; };
static void record_each(void *ctx, const struct clarity_app_set *set, size_t i)
{
    struct handed *h = ctx;
    if (i != h->n) h->in_order = false;
    h->n++;
    const struct clarity_app *a = set->apps[i].app;
    if (a) {
        h->loaded++;
        /* the applications before i have been released already */
        for (size_t k = 0; k < i; k++)
            if (set->apps[k].app) h->in_order = false;
        if (i == 2) snprintf(h->first_id, sizeof h->first_id, "%s", clarity_app_str(a, a->app_id));
    }
}

Test(load_set, streaming_hands_over_in_order_and_frees)
{
    for (int workers = 1; workers <= 2; workers++) {
        const char *paths[1] = {data_dir()};
        struct clarity_load_options lean = {.skip_task_executor_metrics = true};
        struct handed h = {.in_order = true};
        struct clarity_load_set_options so = {.app = &lean, .workers = workers, .each = record_each, .each_ctx = &h};
        struct clarity_app_set set;
        struct clarity_error err;
        cr_assert_eq(clarity_load_set(paths, 1, &so, &set, &err), CLARITY_OK, "%s", err.msg);
        cr_assert_eq(set.n, 8);
        cr_assert_eq(h.n, 8, "workers %d: %zu handed over", workers, h.n);
        cr_assert_eq(h.loaded, 8);
        cr_assert(h.in_order, "workers %d: out of order or not freed", workers);
        cr_assert_str_eq(h.first_id, "app-20240101000000-0001");   /* mini-3x.json */
        for (size_t i = 0; i < set.n; i++) {
            cr_assert_null(set.apps[i].app);
            cr_assert(set.apps[i].released);
        }
        cr_assert_eq(set.nfailed, 0);
        clarity_app_set_free(&set);
    }
}
