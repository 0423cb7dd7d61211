/* The label a synth run trains with: its first fault's kind when the fault delayed a task. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "analysis/anomalies/ladra_train.h"

static int label_of(const char *truth)
{
    char dir[] = "/tmp/clarity-truth-XXXXXX", path[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/truth.json", dir);
    if (truth) {
        FILE *f = fopen(path, "w");
        fputs(truth, f);
        fclose(f);
    }
    int label = clarity_ladra_truth_label(dir);
    remove(path);
    rmdir(dir);
    return label;
}

Test(ladra_train, truth_labels)
{
    cr_assert_eq(label_of("{\"faults\": []}"), LADRA_NORMAL);
    cr_assert_eq(label_of("{\"seed\": 3}"), LADRA_NORMAL);
    cr_assert_eq(label_of("{\"faults\": [{\"kind\": \"cpu-hog\", \"affected_tasks\": 12}]}"), LADRA_CPU);
    cr_assert_eq(label_of("{\"faults\": [{\"kind\": \"memory-hog\", \"affected_tasks\": 1}]}"), LADRA_MEMORY);
    cr_assert_eq(label_of("{\"faults\": [{\"kind\": \"network\", \"affected_tasks\": 4}]}"), LADRA_NETWORK);
    /* the first fault decides, and one that delayed nothing leaves the run normal */
    cr_assert_eq(label_of("{\"faults\": [{\"kind\": \"disk-hog\", \"affected_tasks\": 2}, "
                          "{\"kind\": \"cpu-hog\", \"affected_tasks\": 9}]}"), LADRA_DISK);
    cr_assert_eq(label_of("{\"faults\": [{\"kind\": \"disk-hog\", \"affected_tasks\": 0}]}"), LADRA_NORMAL);
    cr_assert_eq(label_of("not json"), -1);
    cr_assert_eq(label_of(NULL), -1);
}

static int nruns;
static int last_status;
static void on_run(void *ctx, const struct clarity_ladra_train_run *run)
{
    (void)ctx;
    nruns++;
    last_status = run->status;
}

Test(ladra_train, directories_without_truth_or_log_are_skipped)
{
    char dir[] = "/tmp/clarity-train-XXXXXX", path[64];
    cr_assert_not_null(mkdtemp(dir));
    const char *dirs[2] = {"/nonexistent/run", dir};
    snprintf(path, sizeof path, "%s/truth.json", dir);
    FILE *f = fopen(path, "w");
    fputs("{\"faults\": []}", f);
    fclose(f);
    struct ladra_model m = {.sigma = 0.5, .xsigma = 1, .nfeat = LADRA_NFEAT};
    size_t runs[LADRA_NCLASS] = {0};
    struct clarity_error err;
    nruns = 0;
    cr_assert_eq(clarity_ladra_train(dirs, 1, &m, runs, on_run, NULL, &err), CLARITY_OK);
    cr_assert_eq(nruns, 1);
    cr_assert_eq(last_status, CLARITY_LADRA_RUN_NO_TRUTH);
    cr_assert_eq(clarity_ladra_train(dirs + 1, 1, &m, runs, on_run, NULL, &err), CLARITY_OK);
    cr_assert_eq(nruns, 2);
    cr_assert_eq(last_status, CLARITY_LADRA_RUN_NO_EVENT_LOG);
    cr_assert_eq(m.n, 0);
    for (int c = 0; c < LADRA_NCLASS; c++) cr_assert_eq(runs[c], 0);
    clarity_ladra_model_free(&m);
    remove(path);
    rmdir(dir);
}
