/* Every History Server route: the input is the request path and query string, answered over
 * three fixture logs loaded once (a Spark 3.1 application with SQL, a Spark 1.2 one, and a
 * small three-job one). Each 200 answer is written again pretty-printed. */
#include "clarity/model.h"
#include "clarity/shs.h"
#include "fuzz.h"

static struct clarity_app_set set;
static struct clarity_app *apps[8];
static size_t napps;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static const char *const names[] = {"tests/data/spark-3.1-app-20200706201101-0003.json",
                                        "tests/data/spark-1.2-local-1422981780767.json", "tests/data/mini-3x.json"};
    char buf[3][1024];
    const char *paths[3];
    for (int i = 0; i < 3; i++) {
        snprintf(buf[i], sizeof buf[i], "%s/%s", fuzz_root(), names[i]);
        paths[i] = buf[i];
    }
    /* with the SQL listener's replay, so /sql is answered too */
    struct clarity_load_options app = {.keep_task_accumulables = true, .sql_plan_graphs = true, .threads = 1, .quiet = true};
    struct clarity_load_set_options so = {.app = &app, .workers = 1};
    struct clarity_error err = {0};
    if (clarity_load_set(paths, 3, &so, &set, &err) != CLARITY_OK) {
        fprintf(stderr, "shs harness: cannot load the fixtures under %s: %s\n", fuzz_root(), err.msg);
        exit(1);
    }
    for (size_t i = 0; i < set.n && napps < 8; i++)
        if (set.apps[i].app) apps[napps++] = set.apps[i].app;
    if (napps != 3) {
        fprintf(stderr, "shs harness: %zu of 3 fixtures loaded\n", napps);
        exit(1);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *path = malloc(size + 1);
    if (!path) return 0;
    memcpy(path, data, size);
    path[size] = 0;
    struct clarity_shs_response res;
    struct clarity_error err = {0};
    int rc = clarity_shs_answer(apps, napps, path, false, &res, &err);
    if (rc == CLARITY_OK) {
        if (res.status != 200 || !res.body || !res.len || res.len != strlen(res.body) || res.body[res.len - 1] != '\n') abort();
        clarity_shs_response_free(&res);
        if (clarity_shs_answer(apps, napps, path, true, &res, &err) == CLARITY_OK) clarity_shs_response_free(&res);
    } else if (res.body || res.status == 200) {
        abort();
    }
    free(path);
    return 0;
}
