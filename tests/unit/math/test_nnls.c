/* NNLS against worked cases (Ernest's NNLS fits computed by hand), brute-force enumeration of supports, and the KKT conditions. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include "math/linalg.h"
#include "math/nnls.h"

/* min over every support whose OLS solution is >= 0 */
static double brute_force(const double *A, size_t rows, size_t cols, const double *b, double *best)
{
    double bestr = INFINITY;
    double *sub = malloc(sizeof *sub * rows * cols), xs[16], x[16];
    for (unsigned mask = 0; mask < (1u << cols); mask++) {
        size_t k = 0, idx[16];
        for (size_t j = 0; j < cols; j++)
            if (mask & (1u << j)) idx[k++] = j;
        double r;
        if (k == 0) {
            r = 0;
            for (size_t i = 0; i < rows; i++) r += b[i] * b[i];
            r = sqrt(r);
            for (size_t j = 0; j < cols; j++) xs[j] = 0;
        } else {
            for (size_t i = 0; i < rows; i++)
                for (size_t c = 0; c < k; c++) sub[i * k + c] = A[i * cols + idx[c]];
            cr_assert_eq(clarity_lsq_solve(sub, rows, k, b, x, &r, NULL, NULL), 0);
            bool ok = true;
            for (size_t c = 0; c < k; c++) ok &= x[c] >= -1e-12;
            if (!ok) continue;
            for (size_t j = 0; j < cols; j++) xs[j] = 0;
            for (size_t c = 0; c < k; c++) xs[idx[c]] = x[c] > 0 ? x[c] : 0;
        }
        if (r < bestr - 1e-12) {
            bestr = r;
            for (size_t j = 0; j < cols; j++) best[j] = xs[j];
        }
    }
    free(sub);
    return bestr;
}

static void check_kkt(const double *A, size_t rows, size_t cols, const double *b, const double *x)
{
    double anorm = 0, bnorm = 0;
    for (size_t i = 0; i < rows * cols; i++) anorm = fmax(anorm, fabs(A[i]));
    for (size_t i = 0; i < rows; i++) bnorm = fmax(bnorm, fabs(b[i]));
    double tol = 1e-8 * (1 + anorm * bnorm) * (double)rows;
    for (size_t j = 0; j < cols; j++) {
        cr_assert_geq(x[j], 0, "x[%zu] = %g", j, x[j]);
        double w = 0;
        for (size_t i = 0; i < rows; i++) {
            double e = b[i];
            for (size_t k = 0; k < cols; k++) e -= A[i * cols + k] * x[k];
            w += A[i * cols + j] * e;
        }
        if (x[j] > 0) cr_assert_leq(fabs(w), tol, "active w[%zu] = %g", j, w);
        else cr_assert_leq(w, tol, "inactive w[%zu] = %g", j, w);
    }
}

Test(nnls, identity_drops_the_negative)
{
    double A[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, b[3] = {1, -2, 3}, x[3];
    struct clarity_nnls_result r;
    cr_assert_eq(clarity_nnls(A, 3, 3, b, x, &r, NULL), 0);
    cr_assert_float_eq(x[0], 1, 1e-12);
    cr_assert_float_eq(x[1], 0, 1e-12);
    cr_assert_float_eq(x[2], 3, 1e-12);
    cr_assert_float_eq(r.rnorm, 2, 1e-12);
    cr_assert(r.converged);
}

Test(nnls, constraint_active_differs_from_ols)
{
    double A[6] = {1, 0, 1, 1, 0, 1}, b[3] = {2, 1, -1}, x[2], ols[2];
    struct clarity_nnls_result r;
    cr_assert_eq(clarity_nnls(A, 3, 2, b, x, &r, NULL), 0);
    cr_assert_float_eq(x[0], 1.5, 1e-12);
    cr_assert_float_eq(x[1], 0, 1e-12);
    cr_assert_float_eq(r.rnorm, 1.2247449, 1e-7);
    cr_assert_eq(clarity_lsq_solve(A, 3, 2, b, ols, NULL, NULL, NULL), 0);
    cr_assert_float_eq(ols[0], 2, 1e-12);
    cr_assert_float_eq(ols[1], -1, 1e-12);
}

Test(nnls, all_zero_solution)
{
    double A[6] = {1, 2, 3, 4, 5, 6}, b[3] = {-1, -2, -3}, x[2] = {9, 9};
    struct clarity_nnls_result r;
    cr_assert_eq(clarity_nnls(A, 3, 2, b, x, &r, NULL), 0);
    cr_assert_eq(x[0], 0);
    cr_assert_eq(x[1], 0);
    cr_assert_eq(r.nonzero, 0);
    cr_assert_float_eq(r.rnorm, sqrt(14), 1e-12);
}

Test(nnls, exact_fit)
{
    /* b = A (2, 0.5, 3) exactly, all positive: NNLS is OLS with zero residual */
    double A[12] = {1, 1, 0, 1, 2, 1, 1, 3, 4, 1, 5, 9}, t[3] = {2, 0.5, 3}, b[4], x[3];
    for (int i = 0; i < 4; i++) b[i] = A[i * 3] * t[0] + A[i * 3 + 1] * t[1] + A[i * 3 + 2] * t[2];
    struct clarity_nnls_result r;
    cr_assert_eq(clarity_nnls(A, 4, 3, b, x, &r, NULL), 0);
    for (int j = 0; j < 3; j++) cr_assert_float_eq(x[j], t[j], 1e-10);
    cr_assert_leq(r.rnorm, 1e-10);
    cr_assert_not(r.rank_deficient);
}

Test(nnls, rank_deficient_is_flagged_and_still_optimal)
{
    /* column 3 = column 1 + column 2: infinitely many minimizers, any is fine if optimal */
    double A[12] = {1, 0, 1, 0, 1, 1, 1, 1, 2, 2, 1, 3}, b[4] = {1, 2, 3, 4.5}, x[3], bf[3];
    struct clarity_nnls_result r;
    cr_assert_eq(clarity_nnls(A, 4, 3, b, x, &r, NULL), 0);
    cr_assert(r.rank_deficient);
    double best = brute_force(A, 4, 3, b, bf);
    cr_assert_float_eq(r.rnorm, best, 1e-10);
    check_kkt(A, 4, 3, b, x);
}

Test(nnls, fewer_rows_than_columns)
{
    double A[6] = {1, 2, 3, 4, 5, 6}, b[2] = {1, 1}, x[3], bf[3];
    struct clarity_nnls_result r;
    cr_assert_eq(clarity_nnls(A, 2, 3, b, x, &r, NULL), 0);
    cr_assert(r.rank_deficient);
    cr_assert_float_eq(r.rnorm, brute_force(A, 2, 3, b, bf), 1e-10);
    check_kkt(A, 2, 3, b, x);
}

Test(nnls, zero_column_gets_zero)
{
    double A[6] = {0, 1, 0, 2, 0, 3}, b[3] = {1, 2, 3}, x[2];
    cr_assert_eq(clarity_nnls(A, 3, 2, b, x, NULL, NULL), 0);
    cr_assert_eq(x[0], 0);
    cr_assert_float_eq(x[1], 1, 1e-12);
}

/* random problems, columns of very different scales like Ernest's features */
Test(nnls, random_against_brute_force_and_kkt)
{
    unsigned seed = 12345;
    for (int trial = 0; trial < 400; trial++) {
        size_t rows = 2 + (size_t)(rand_r(&seed) % 12), cols = 1 + (size_t)(rand_r(&seed) % 7);
        double A[14 * 8], b[14], x[8], bf[8], scale[8];
        for (size_t j = 0; j < cols; j++) scale[j] = pow(10, (double)(rand_r(&seed) % 7) - 3);
        for (size_t i = 0; i < rows; i++) {
            for (size_t j = 0; j < cols; j++) A[i * cols + j] = scale[j] * ((double)rand_r(&seed) / RAND_MAX - 0.3);
            b[i] = 10 * ((double)rand_r(&seed) / RAND_MAX - 0.4);
        }
        struct clarity_nnls_result r;
        cr_assert_eq(clarity_nnls(A, rows, cols, b, x, &r, NULL), 0);
        cr_assert(r.converged, "trial %d", trial);
        double best = brute_force(A, rows, cols, b, bf);
        cr_assert_leq(r.rnorm, best * (1 + 1e-9) + 1e-9, "trial %d: %.15g vs brute force %.15g", trial, r.rnorm, best);
        check_kkt(A, rows, cols, b, x);
    }
}
