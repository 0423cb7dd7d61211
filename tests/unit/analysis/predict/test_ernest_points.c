/* A model file written by the report (`ernest fit --json`) reads back to the same training
 * points, terms and scale unit. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analysis/predict/ernest_points.h"
#include "clarity/report.h"
#include "util/jsonw.h"

static const struct ernest_point pts[] = {
    {32, 0.125, 7.94516801834},  {4, 0.015625, 4.72029209137}, {4, 0.021382, 4.87661099434},
    {12, 0.050164, 6.71376490593}, {12, 0.055921, 6.71519398689}, {16, 0.061678, 6.83566999435},
};

Test(ernest_points, model_file_round_trip)
{
    struct ernest_terms terms;
    clarity_ernest_terms_default(&terms);
    cr_assert_eq(clarity_ernest_terms_add(&terms, "sqrt(m)", NULL), 0);
    struct ernest_model m;
    cr_assert_eq(clarity_ernest_fit(pts, 6, &terms, &m, NULL), 0);
    char path[] = "/tmp/clarity-ernest-XXXXXX.json";
    int fd = mkstemps(path, 5);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    struct jsonw w;
    clarity_jsonw_init(&w, f, true);
    struct ernest_report rep = {.command = "fit", .model = &m, .scale_unit = "GB of input", .loo_threshold_pct = 10};
    cr_assert_eq(clarity_report_ernest_json(&w, &rep, NULL), 0);
    clarity_jsonw_end(&w);
    fclose(f);
    clarity_ernest_model_free(&m);

    cr_assert(clarity_ernest_is_model_file(path));
    struct ernest_point *back = NULL;
    size_t n = 0;
    struct ernest_terms t2;
    char unit[128];
    struct clarity_error err;
    cr_assert_eq(clarity_ernest_model_read(path, &back, &n, &t2, unit, sizeof unit, &err), CLARITY_OK, "%s", err.msg);
    cr_assert_eq(n, 6);
    for (size_t i = 0; i < n; i++) {
        cr_assert_float_eq(back[i].machines, pts[i].machines, 1e-12);
        cr_assert_float_eq(back[i].scale, pts[i].scale, 1e-12);
        cr_assert_float_eq(back[i].seconds, pts[i].seconds, 1e-9);
    }
    cr_assert_eq(t2.n, 5);
    cr_assert_eq(t2.t[4], ERNEST_SQRT_M);
    cr_assert_str_eq(unit, "GB of input");
    free(back);
    remove(path);
}

Test(ernest_points, not_a_model)
{
    char path[] = "/tmp/clarity-ernest-XXXXXX.json";
    int fd = mkstemps(path, 5);
    FILE *f = fdopen(fd, "w");
    fputs("{\"schema\": \"clarity.ernest/1\", \"command\": \"design\"}\n", f);
    fclose(f);
    cr_assert(clarity_ernest_is_model_file(path));
    struct ernest_point *back = NULL;
    size_t n = 0;
    struct ernest_terms t;
    char unit[128];
    struct clarity_error err;
    cr_assert_eq(clarity_ernest_model_read(path, &back, &n, &t, unit, sizeof unit, &err), CLARITY_EFORMAT);
    cr_assert_str_eq(err.msg, "not a clarity.ernest/1 model with training points");
    cr_assert_str_eq(err.file, path);
    free(back);
    remove(path);
    cr_assert_eq(clarity_ernest_model_read(path, &back, &n, &t, unit, sizeof unit, &err), CLARITY_EIO);
    cr_assert_str_eq(err.msg, "cannot open");
    cr_assert_not(clarity_ernest_is_model_file("/tmp/model.csv"));
}
