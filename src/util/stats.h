/* Order statistics. Medians come in the variants the analyses define them by, named so a
 * caller picks one on purpose:
 *   clarity_median_mean_mid  even n: the mean of the two middle values (numpy, R, the papers'
 *                            "median")
 *   clarity_median_upper     even n: the upper middle value, v[n/2] of the sorted values
 *                            (Spark's checkSpeculatableTasks reads a sorted array this way)
 * Both select in place in O(n) (quickselect): v is reordered, so pass a copy when its order
 * matters afterwards. NaN is not ordered: the result on an array holding NaN is unspecified. */
#ifndef CLARITY_UTIL_STATS_H
#define CLARITY_UTIL_STATS_H
#include <stddef.h>

/* qsort comparators, ascending. Values that are neither less nor greater (NaN) compare equal. */
int clarity_cmp_double(const void *a, const void *b);
int clarity_cmp_i64(const void *a, const void *b);

/* The k-th smallest of v[0..n) (0-based, k < n), moving v around; on return every v[i] with
 * i < k is <= it and every one after is >= it. */
double clarity_select_kth(double *v, size_t n, size_t k);
double clarity_median_mean_mid(double *v, size_t n);   /* 0 when n is 0 */
double clarity_median_upper(double *v, size_t n);      /* 0 when n is 0 */

/* Spark's quantile rule (AppStatusStore.taskSummary, the History Server's task summaries):
 * quantile q of count sorted values is the one at index min(trunc(q x count), count - 1);
 * trunc as Scala's toLong, so 0.05 x 20 = 1.0000000000000002 reads index 1, not 0. */
size_t clarity_spark_quantile_index(double q, size_t count);

/* Quantile q (0..1) of n >= 1 ascending values, interpolated linearly between the two nearest
 * ranks as numpy's default does: position q x (n - 1). */
double clarity_quantile_linear(const double *sorted, size_t n, double q);

#endif
