#include "util/stats.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

int clarity_cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

int clarity_cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* Hoare partitioning around a median-of-three pivot, O(n) on average, which matters for
 * stages of millions of tasks; a run of bad pivots falls back to sorting the rest. */
double clarity_select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1, rounds = 0;
    while (lo < hi) {
        if (++rounds > 64) {
            qsort(v + lo, hi - lo + 1, sizeof *v, clarity_cmp_double);
            return v[k];
        }
        size_t mid = lo + (hi - lo) / 2;
        double a = v[lo], b = v[mid], c = v[hi];
        double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) i++;
            while (v[j] > pivot) j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return v[k];
    }
    return v[k];
}

double clarity_median_mean_mid(double *v, size_t n)
{
    if (n == 0) return 0;
    double upper = clarity_select_kth(v, n, n / 2);
    if (n % 2) return upper;
    /* the lower middle is the largest value left of the upper one after selection */
    double lower = v[0];
    for (size_t i = 1; i < n / 2; i++)
        if (v[i] > lower) lower = v[i];
    return (lower + upper) / 2;
}

double clarity_median_upper(double *v, size_t n)
{
    return n ? clarity_select_kth(v, n, n / 2) : 0;
}

size_t clarity_spark_quantile_index(double q, size_t count)
{
    double x = q * (double)count;
    int64_t i = x >= 0 ? (int64_t)x : 0;   /* Scala's toLong truncates */
    return (size_t)i < count - 1 ? (size_t)i : count - 1;
}

double clarity_quantile_linear(const double *sorted, size_t n, double q)
{
    double pos = q * (double)(n - 1), v = sorted[(size_t)pos];
    if ((size_t)pos + 1 < n) v += (pos - floor(pos)) * (sorted[(size_t)pos + 1] - sorted[(size_t)pos]);
    return v;
}
