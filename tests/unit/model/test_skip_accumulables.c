/* Loading without task accumulables (what `summary` does) must give the same model. */
#include <criterion/criterion.h>
#include "load_helpers.h"

static int load_with(const char *path, bool keep, struct clarity_app **out)
{
    struct clarity_log_file f = {.path = (char *)path};
    struct clarity_app_source src = {.path = (char *)path, .files = &f, .nfiles = 1};
    /* the lean load is what `summary` does: no accumulables, no per-task executor metrics */
    struct clarity_load_options o = {.keep_task_accumulables = keep, .skip_task_executor_metrics = !keep};
    struct clarity_error err;
    return clarity_app_load(&src, &o, out, &err);
}

Test(skip_accumulables, same_metrics_as_full_load)
{
    const char *root = getenv("CLARITY_ROOT");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/mini-3x.json", root ? root : ".");
    struct clarity_app *full, *lean;
    cr_assert_eq(load_with(path, true, &full), CLARITY_OK);
    cr_assert_eq(load_with(path, false, &lean), CLARITY_OK);
    cr_assert_eq(full->task_accums.n, 1);
    cr_assert_eq(lean->task_accums.n, 0);
    cr_assert_eq(full->tasks.n, lean->tasks.n);
    for (size_t i = 0; i < full->tasks.n; i++)
        for (int m = 0; m < CLARITY_TM_COUNT; m++)
            cr_assert_eq(clarity_task_metric(full, i, m), clarity_task_metric(lean, i, m));
    cr_assert_eq(lean->integrity.lines_malformed, 0);
    struct clarity_executor *ef = clarity_app_executor(full, "1"), *el = clarity_app_executor(lean, "1");
    cr_assert_eq(ef->peaks.n, 2, "Task Executor Metrics read in a full load");
    cr_assert_eq(el->peaks.n, 0, "and skipped in a lean one");
    clarity_app_free(full);
    clarity_app_free(lean);
}

/* An accumulable whose text looks like the end marker the blanking looks for (inside a JSON
 * string the quote is escaped, so the marker cannot match there): the line is read whole. */
Test(skip_accumulables, marker_inside_a_string_is_restored)
{
    const char *log =
        "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.5.0\"}\n"
        "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"x\",\"Timestamp\":1000,\"User\":\"u\"}\n"
        "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Stage Attempt ID\":0,\"Task End Reason\":{\"Reason\":\"Success\"},"
        "\"Task Info\":{\"Task ID\":1,\"Index\":0,\"Attempt\":0,\"Launch Time\":1200,\"Executor ID\":\"1\",\"Host\":\"h\",\"Finish Time\":1300,"
        "\"Accumulables\":[{\"ID\":5,\"Name\":\"odd\",\"Update\":\"]},\\\"Task \",\"Value\":\"x\"}]},"
        "\"Task Metrics\":{\"Executor Run Time\":77}}\n";
    char path[] = "/tmp/clarity-skip-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(log, f);
    fclose(f);
    struct clarity_app *a;
    cr_assert_eq(load_with(path, false, &a), CLARITY_OK);
    remove(path);
    cr_assert_eq(a->integrity.lines_malformed, 0);
    cr_assert_eq(a->tasks.n, 1);
    cr_assert_eq(clarity_task_metric(a, 0, CLARITY_TM_RUN_MS), 77);
    clarity_app_free(a);
}
