/* The selection-based median must equal the sorted one on every shape of input. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include "clarity/taskcomp.h"

static int dc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

Test(median, equals_sorted_median_on_ties_runs_and_random)
{
    unsigned seed = 7;
    for (int t = 0; t < 20000; t++) {
        size_t n = 1 + (size_t)(rand_r(&seed) % 60);
        double v[64], w[64];
        int mode = t % 4;
        for (size_t i = 0; i < n; i++) {
            v[i] = mode == 0 ? rand_r(&seed) % 5 : mode == 1 ? (double)i : mode == 2 ? (double)(n - i)
                                                                                  : (rand_r(&seed) % 1000) / 7.0;
            w[i] = v[i];
        }
        qsort(w, n, sizeof *w, dc);
        double want = n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
        cr_assert_eq(clarity_median_numpy(v, n), want, "n=%zu mode=%d", n, mode);
    }
    cr_assert_eq(clarity_median_numpy(NULL, 0), 0);
}
