/* Medians, selection, Spark's quantile rule and the comparators, on worked values. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "util/stats.h"

Test(stats, medians_odd_and_even)
{
    double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2}, even2[] = {4, 1, 3, 2}, one[] = {7};
    cr_assert_eq(clarity_median_mean_mid(odd, 3), 3);
    cr_assert_eq(clarity_median_mean_mid(even, 4), 2.5, "mean of the middle two, 2 and 3");
    cr_assert_eq(clarity_median_upper(even2, 4), 3, "the upper middle");
    cr_assert_eq(clarity_median_mean_mid(one, 1), 7);
    cr_assert_eq(clarity_median_mean_mid(NULL, 0), 0);
    cr_assert_eq(clarity_median_upper(NULL, 0), 0);
    double ties[] = {2, 2, 9, 2, 9, 9};
    cr_assert_eq(clarity_median_mean_mid(ties, 6), 5.5);
}

/* The selection-based medians must equal the sorted ones on every shape of input. */
Test(stats, select_equals_sorting_on_ties_runs_and_random)
{
    unsigned seed = 7;
    for (int t = 0; t < 20000; t++) {
        size_t n = 1 + (size_t)(rand_r(&seed) % 60);
        double v[64], w[64], u[64], orig[64];
        int mode = t % 4;
        for (size_t i = 0; i < n; i++) {
            v[i] = mode == 0 ? rand_r(&seed) % 5 : mode == 1 ? (double)i : mode == 2 ? (double)(n - i)
                                                                                  : (rand_r(&seed) % 1000) / 7.0;
            w[i] = u[i] = orig[i] = v[i];
        }
        qsort(w, n, sizeof *w, clarity_cmp_double);
        double want = n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
        cr_assert_eq(clarity_median_mean_mid(v, n), want, "n=%zu mode=%d", n, mode);
        cr_assert_eq(clarity_median_upper(u, n), w[n / 2], "n=%zu mode=%d", n, mode);
        size_t k = (size_t)rand_r(&seed) % n;
        memcpy(u, orig, n * sizeof *u);
        cr_assert_eq(clarity_select_kth(u, n, k), w[k]);
        for (size_t i = 0; i < k; i++) cr_assert_leq(u[i], w[k]);
        for (size_t i = k + 1; i < n; i++) cr_assert_geq(u[i], w[k]);
    }
}

/* AppStatusStore.taskSummary reads the sorted successful tasks at min(trunc(q*n), n-1). */
Test(stats, spark_quantiles_worked)
{
    const double qs[] = {0.05, 0.25, 0.5, 0.75, 0.95};
    const size_t ten[] = {0, 2, 5, 7, 9};
    for (size_t i = 0; i < 5; i++) cr_assert_eq(clarity_spark_quantile_index(qs[i], 10), ten[i], "q=%g", qs[i]);
    /* 0.05 x 20 = 1.0000000000000002: index 1; 0.74 x 20 = 14.8: truncated to 14, not rounded */
    cr_assert_eq(clarity_spark_quantile_index(0.05, 20), 1);
    cr_assert_eq(clarity_spark_quantile_index(0.74, 20), 14);
    cr_assert_eq(clarity_spark_quantile_index(0.95, 20), 19);
    cr_assert_eq(clarity_spark_quantile_index(1.0, 7), 6, "q = 1 clamps to the last");
    cr_assert_eq(clarity_spark_quantile_index(0.0, 7), 0);
    /* durations 10..100 ms of ten tasks: the History Server's default quantiles */
    double d[] = {100, 20, 90, 30, 80, 40, 70, 50, 60, 10};
    qsort(d, 10, sizeof *d, clarity_cmp_double);
    const double want[] = {10, 30, 60, 80, 100};
    for (size_t i = 0; i < 5; i++) cr_assert_eq(d[clarity_spark_quantile_index(qs[i], 10)], want[i]);
}

Test(stats, comparators)
{
    double a = 1, b = 2, nan = NAN;
    cr_assert_eq(clarity_cmp_double(&a, &b), -1);
    cr_assert_eq(clarity_cmp_double(&b, &a), 1);
    cr_assert_eq(clarity_cmp_double(&a, &a), 0);
    cr_assert_eq(clarity_cmp_double(&a, &nan), 0, "NaN is neither less nor greater");
    int64_t x = INT64_MIN, y = INT64_MAX;
    cr_assert_eq(clarity_cmp_i64(&x, &y), -1, "no overflow on the extremes");
    cr_assert_eq(clarity_cmp_i64(&y, &x), 1);
    cr_assert_eq(clarity_cmp_i64(&x, &x), 0);
}

/* numpy.percentile's default (linear): position q x (n - 1), between the two nearest ranks */
Test(stats, quantile_linear_worked)
{
    const double five[] = {1, 2, 3, 4, 5}, two[] = {10, 20}, four[] = {1, 2, 4, 8}, one[] = {7};
    cr_assert_float_eq(clarity_quantile_linear(five, 5, 0.25), 2.0, 1e-12);     /* position 1 */
    cr_assert_float_eq(clarity_quantile_linear(two, 2, 0.25), 12.5, 1e-12);     /* 10 + 0.25 x 10 */
    cr_assert_float_eq(clarity_quantile_linear(four, 4, 0.25), 1.75, 1e-12);    /* 1 + 0.75 x (2 - 1) */
    cr_assert_float_eq(clarity_quantile_linear(four, 4, 1.0), 8.0, 1e-12);      /* the last rank */
    cr_assert_float_eq(clarity_quantile_linear(one, 1, 0.25), 7.0, 1e-12);
}
