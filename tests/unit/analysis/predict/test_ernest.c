/* Ernest on worked numbers: RCV1 fit, predictions, LOOCV, the
 * 83-candidate design, Table 1 arithmetic, and the deadline decision. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/predict.h"
#include "analysis/predict/ernest_csv.h"

static const struct ernest_point rcv1[] = {
    {32, 0.125, 7.94516801834},  {4, 0.015625, 4.72029209137}, {4, 0.021382, 4.87661099434},
    {12, 0.050164, 6.71376490593}, {12, 0.055921, 6.71519398689}, {12, 0.061678, 6.6739718914},
    {16, 0.061678, 6.83566999435},
};

static double coef(const struct ernest_model *m, enum ernest_term t)
{
    for (size_t k = 0; k < m->terms.n; k++)
        if (m->terms.t[k] == t) return m->theta[k];
    return NAN;
}

static void check_rcv1(const struct ernest_model *m)
{
    cr_assert_float_eq(coef(m, ERNEST_CONST), 1.900126870233, 1e-6);
    cr_assert_float_eq(coef(m, ERNEST_S_PER_M), 162.198212259748, 1e-5);
    cr_assert_float_eq(coef(m, ERNEST_M), 0, 1e-9);
    cr_assert_float_eq(coef(m, ERNEST_LOG_M), 1.588323622449, 1e-6);
    cr_assert_float_eq(m->rnorm, 0.272974481963, 1e-9);
}

Test(ernest, rcv1_coefficients)
{
    struct ernest_terms t;
    clarity_ernest_terms_default(&t);
    struct ernest_model m;
    cr_assert_eq(clarity_ernest_fit(rcv1, 7, &t, &m, NULL), 0);
    check_rcv1(&m);
    clarity_ernest_model_free(&m);
}

Test(ernest, rcv1_predictions)
{
    struct ernest_terms t;
    clarity_ernest_terms_default(&t);
    struct ernest_model m;
    cr_assert_eq(clarity_ernest_fit(rcv1, 7, &t, &m, NULL), 0);
    const double cores[] = {16, 32, 48, 64, 96, 128};
    const double want[] = {16.4412833, 12.4735312, 11.4279763, 11.0401262, 10.83935, 10.87389};
    for (int i = 0; i < 6; i++) cr_assert_float_eq(clarity_ernest_predict(&m, 1, cores[i]), want[i], 1e-5, "m=%g", cores[i]);
    cr_assert_float_eq(m.mean_ratio - 1, 0.000537, 5e-6);
    clarity_ernest_model_free(&m);
}

Test(ernest, rcv1_loocv)
{
    struct ernest_terms t;
    clarity_ernest_terms_default(&t);
    struct ernest_model m;
    cr_assert_eq(clarity_ernest_fit(rcv1, 7, &t, &m, NULL), 0);
    const double want[] = {8.14193, 4.79125, 5.10957, 6.48659, 6.57696, 6.68585, 6.96752};
    cr_assert(m.loo.done);
    for (int i = 0; i < 7; i++) cr_assert_float_eq(m.loo.predicted[i], want[i], 1e-5, "point %d", i);
    cr_assert_float_eq(m.loo.median_pct, 2.059, 1e-3);
    cr_assert_float_eq(m.loo.max_pct, 4.777, 1e-3);
    clarity_ernest_model_free(&m);
}

Test(ernest, rcv1_in_machines_gives_the_same_predictions)
{
    struct ernest_point pts[7];
    for (int i = 0; i < 7; i++) pts[i] = (struct ernest_point){rcv1[i].machines / 4, rcv1[i].scale, rcv1[i].seconds};
    struct ernest_terms t;
    clarity_ernest_terms_default(&t);
    struct ernest_model m;
    cr_assert_eq(clarity_ernest_fit(pts, 7, &t, &m, NULL), 0);
    cr_assert_float_eq(coef(&m, ERNEST_CONST), 4.10201095, 1e-6);
    cr_assert_float_eq(coef(&m, ERNEST_S_PER_M), 40.54955306, 1e-6);
    cr_assert_float_eq(clarity_ernest_predict(&m, 1, 4), 16.4412833, 1e-5);
    cr_assert_float_eq(clarity_ernest_predict(&m, 1, 16), 11.0401262, 1e-5);
    clarity_ernest_model_free(&m);
}

Test(ernest, rcv1_from_the_csv_fixture)
{
    const char *root = getenv("CLARITY_ROOT");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/ernest-rcv1-parsed.csv", root ? root : ".");
    struct ernest_point *pts;
    size_t n;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_ernest_csv_read(path, &pts, &n, &err), CLARITY_OK, "%s", err.msg);
    cr_assert_eq(n, 7);
    struct ernest_terms t;
    clarity_ernest_terms_default(&t);
    struct ernest_model m;
    cr_assert_eq(clarity_ernest_fit(pts, n, &t, &m, NULL), 0);
    check_rcv1(&m);
    clarity_ernest_model_free(&m);
    free(pts);
}

Test(ernest, rcv1_from_shared_data)
{
    const char *sd = getenv("SHARED_DATA");
    char path[1024];
    if (sd) snprintf(path, sizeof path, "%s/runtimes/ernest-rcv1-parsed.csv", sd);
    else {
        const char *root = getenv("CLARITY_ROOT");
        snprintf(path, sizeof path, "%s/../shared/data/runtimes/ernest-rcv1-parsed.csv", root ? root : ".");
    }
    FILE *f = fopen(path, "r");
    if (!f) cr_skip_test("no shared data at %s", path);
    fclose(f);
    struct ernest_point *pts;
    size_t n;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_ernest_csv_read(path, &pts, &n, &err), CLARITY_OK, "%s", err.msg);
    struct ernest_terms t;
    clarity_ernest_terms_default(&t);
    struct ernest_model m;
    cr_assert_eq(clarity_ernest_fit(pts, n, &t, &m, NULL), 0);
    cr_assert_float_eq(coef(&m, ERNEST_CONST), 1.9001, 1e-3);
    cr_assert_float_eq(coef(&m, ERNEST_S_PER_M), 162.198, 1e-3);
    cr_assert_float_eq(coef(&m, ERNEST_M), 0, 1e-3);
    cr_assert_float_eq(coef(&m, ERNEST_LOG_M), 1.5883, 1e-3);
    clarity_ernest_model_free(&m);
    free(pts);
}

Test(ernest, csv_errors_name_the_line)
{
    char path[] = "/tmp/clarity-ernest-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs("machines,scale,seconds\n4,0.1,5\n4,abc,6\n", f);
    fclose(f);
    struct ernest_point *pts;
    size_t n;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_ernest_csv_read(path, &pts, &n, &err), CLARITY_EFORMAT);
    cr_assert_eq(err.line, 3);
    remove(path);
}

Test(ernest, two_points_at_one_node_split_the_constant)
{
    /* two points on one machine (PERIDOT's Ernest comparison): only theta1 and theta0 + theta3
     * are identified */
    const struct ernest_point p[] = {{1, 1, 30}, {1, 2, 48}};
    struct ernest_terms t;
    clarity_ernest_terms_default(&t);
    struct ernest_model m;
    cr_assert_eq(clarity_ernest_fit(p, 2, &t, &m, NULL), 0);
    cr_assert(m.rank_deficient);
    cr_assert_float_eq(coef(&m, ERNEST_S_PER_M), 18, 1e-9);
    cr_assert_float_eq(coef(&m, ERNEST_CONST) + coef(&m, ERNEST_M), 12, 1e-9);
    cr_assert_float_eq(coef(&m, ERNEST_LOG_M), 0, 1e-12);
    /* NNLS enters the constant first (the larger dual), so theta3 = 0: the tie-break we chose */
    cr_assert_float_eq(coef(&m, ERNEST_M), 0, 1e-9);
    cr_assert_float_eq(clarity_ernest_predict(&m, 100, 8), 237, 1e-9);
    clarity_ernest_model_free(&m);
}

Test(ernest, table1_arithmetic)
{
    struct ernest_model m = {0};
    clarity_ernest_terms_default(&m.terms);
    const double kmeans[4] = {0.00, 149.58, 0.54, 0.05}, regression[4] = {0.64, 630.93, 1.50, 0.09};
    for (int k = 0; k < 4; k++) m.theta[k] = kmeans[k];
    cr_assert_float_eq(clarity_ernest_predict(&m, 1, 1), 149.63, 1e-4);
    cr_assert_float_eq(clarity_ernest_predict(&m, 1, 16), 11.6459, 1e-4);
    cr_assert_float_eq(clarity_ernest_predict(&m, 1, 64), 7.7830, 1e-4);
    for (int k = 0; k < 4; k++) m.theta[k] = regression[k];
    cr_assert_float_eq(clarity_ernest_predict(&m, 1, 45), 24.4207, 1e-4);
    /* time-optimal machine count by search over 1..1000 */
    struct ernest_choose_options o = {.scale = 1, .deadline_s = 1e9, .machines_min = 1, .machines_max = 1000};
    struct ernest_choice c;
    clarity_ernest_choose(&m, &o, &c);
    cr_assert_eq(c.fastest_machines, 76);
    cr_assert_float_eq(c.fastest_s, 22.27781, 1e-5);
    for (int k = 0; k < 4; k++) m.theta[k] = kmeans[k];
    clarity_ernest_choose(&m, &o, &c);
    cr_assert_eq(c.fastest_machines, 50);
    cr_assert_float_eq(c.fastest_s, 7.604092, 1e-6);
}

Test(ernest, extra_terms)
{
    struct ernest_terms t;
    clarity_ernest_terms_default(&t);
    struct clarity_error err = {0};
    cr_assert_eq(clarity_ernest_terms_add(&t, "sqrt(m),s^2/m", &err), 0);
    cr_assert_eq(t.n, 6);
    cr_assert_str_eq(clarity_ernest_term_name(t.t[4]), "sqrt(m)");
    cr_assert_float_eq(clarity_ernest_feature(&t, 4, 0.5, 16), 4, 1e-12);
    cr_assert_float_eq(clarity_ernest_feature(&t, 5, 0.5, 2), 0.125, 1e-12);
    const char *list = "sqrt(m),cube";
    cr_assert_eq(clarity_ernest_terms_add(&t, list, &err), CLARITY_EUSAGE);
    const char *bad = list + err.offset;   /* the error points at the unknown term */
    cr_assert_eq(strcspn(bad, ","), 4);
    cr_assert_eq(strncmp(bad, "cube", 4), 0);
    cr_assert_str_eq(err.msg, "unknown term 'cube'");
}

/* Beyond ERNEST_LOO_MAX points every ceil(n / max)-th point is left out (a refit per point grew
 * as n^2): 2,500 points leave out every 3rd, 834 of them, and the others have no left-out value. */
Test(ernest, loocv_bounded_past_max_points)
{
    size_t n = 2500;
    struct ernest_point *pts = malloc(n * sizeof *pts);
    cr_assert(pts);
    for (size_t i = 0; i < n; i++) {
        double m = (double)(1 + i % 16), s = 0.01 + 0.001 * (double)(i % 90);
        pts[i] = (struct ernest_point){m, s, 2 + 40 * s / m + 0.5 * log(m) + 0.01 * m};
    }
    struct ernest_terms t;
    clarity_ernest_terms_default(&t);
    struct ernest_model m;
    cr_assert_eq(clarity_ernest_fit(pts, n, &t, &m, NULL), 0);
    cr_assert(m.loo.done);
    cr_assert_eq(m.loo.left_out, 834);
    cr_assert(!isnan(m.loo.predicted[0]) && !isnan(m.loo.predicted[3]));
    cr_assert(isnan(m.loo.predicted[1]) && isnan(m.loo.predicted[2]));
    cr_assert_lt(m.loo.median_pct, 1e-6);   /* noise-free points: every refit is exact */
    clarity_ernest_model_free(&m);
    free(pts);

    struct ernest_model small;   /* under the bound every point is left out */
    cr_assert_eq(clarity_ernest_fit(rcv1, 7, &t, &small, NULL), 0);
    cr_assert_eq(small.loo.left_out, 7);
    clarity_ernest_model_free(&small);
}
