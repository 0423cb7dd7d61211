/* Lawson-Hanson NNLS. Dimensions are tiny (a few columns, tens of rows), so every least
 * squares subproblem is solved from scratch with Householder QR: the code stays simple and
 * there is nothing to gain from updating factorizations. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "math/linalg.h"
#include "math/nnls.h"

double clarity_nnls_tolerance(const double *A, size_t rows, size_t cols)
{
    double norm1 = 0;                        /* max column abs sum */
    for (size_t j = 0; j < cols; j++) {
        double s = 0;
        for (size_t i = 0; i < rows; i++) s += fabs(A[i * cols + j]);
        if (s > norm1) norm1 = s;
    }
    return 10 * DBL_EPSILON * norm1 * (double)(rows > cols ? rows : cols);
}

/* z[P] = least squares on the passive columns; z elsewhere 0. */
static int solve_passive(const double *A, size_t rows, size_t cols, const double *b,
                         const char *passive, double *sub, double *zs, double *z, struct clarity_error *err)
{
    size_t k = 0;
    for (size_t j = 0; j < cols; j++)
        if (passive[j]) k++;
    for (size_t i = 0; i < rows; i++) {
        size_t c = 0;
        for (size_t j = 0; j < cols; j++)
            if (passive[j]) sub[i * k + c++] = A[i * cols + j];
    }
    int rc = clarity_lsq_solve(sub, rows, k, b, zs, NULL, NULL, err);
    if (rc) return rc;
    size_t c = 0;
    for (size_t j = 0; j < cols; j++) z[j] = passive[j] ? zs[c++] : 0;
    return 0;
}

int clarity_nnls(const double *A, size_t rows, size_t cols, const double *b, double *x,
                 struct clarity_nnls_result *res, struct clarity_error *err)
{
    struct clarity_nnls_result r = {0};
    int rc = 0;
    size_t n = cols ? cols : 1;
    double *As = malloc(sizeof *As * (rows * n * 2 + 5 * n + rows));
    char *passive = calloc(n, 2);
    if (!As || !passive) goto oom;
    double *sub = As + rows * n, *scale = sub + rows * n, *z = scale + n, *zs = z + n, *w = zs + n;
    double *xs = w + n, *resid = xs + n;
    char *rejected = passive + n;

    for (size_t j = 0; j < cols; j++) {
        double s = 0;
        for (size_t i = 0; i < rows; i++) s += A[i * cols + j] * A[i * cols + j];
        scale[j] = s > 0 ? 1 / sqrt(s) : 0;  /* an all-zero column stays zero, x_j = 0 */
        for (size_t i = 0; i < rows; i++) As[i * cols + j] = A[i * cols + j] * scale[j];
        xs[j] = 0;
    }
    {
        double *tmp = malloc(sizeof *tmp * (cols ? cols : 1));
        int rk = 0;
        if (!tmp) goto oom;
        rc = clarity_lsq_solve(As, rows, cols, b, tmp, NULL, &rk, err);
        free(tmp);
        if (rc) goto fail;
        r.rank_deficient = (size_t)rk < cols;
    }
    double tol = clarity_nnls_tolerance(As, rows, cols);
    int maxit = 30 * (int)n;
    r.converged = true;
    for (;;) {
        for (size_t i = 0; i < rows; i++) {
            double e = b[i];
            for (size_t j = 0; j < cols; j++) e -= As[i * cols + j] * xs[j];
            resid[i] = e;
        }
        for (size_t j = 0; j < cols; j++) {
            double s = 0;
            for (size_t i = 0; i < rows; i++) s += As[i * cols + j] * resid[i];
            w[j] = s;
        }
        size_t best = cols;
        for (size_t j = 0; j < cols; j++)
            if (!passive[j] && !rejected[j] && scale[j] > 0 && w[j] > tol && (best == cols || w[j] > w[best]))
                best = j;
        if (best == cols) break;
        if (r.iterations >= maxit) { r.converged = false; break; }
        r.iterations++;
        passive[best] = 1;
        if ((rc = solve_passive(As, rows, cols, b, passive, sub, zs, z, err))) goto fail;
        /* A column that enters with a non-positive coefficient would leave again at once
         * (a zero step): degenerate, so skip it until the residual changes. */
        if (z[best] <= 0) {
            passive[best] = 0;
            rejected[best] = 1;
            continue;
        }
        memset(rejected, 0, n);
        for (int inner = 0; inner < 30 * (int)n; inner++) {
            bool allpos = true;
            for (size_t j = 0; j < cols; j++)
                if (passive[j] && z[j] <= 0) allpos = false;
            if (allpos) break;
            double alpha = 2;
            size_t hit = cols;
            for (size_t j = 0; j < cols; j++)
                if (passive[j] && z[j] <= 0) {
                    double a = xs[j] / (xs[j] - z[j]);
                    if (a < alpha) { alpha = a; hit = j; }
                }
            for (size_t j = 0; j < cols; j++) {
                xs[j] += alpha * (z[j] - xs[j]);
                /* the blocking variable lands on 0 exactly; rounding may leave others at or
                 * just below it */
                if (passive[j] && (j == hit || xs[j] <= 0)) {
                    passive[j] = 0;
                    xs[j] = 0;
                }
            }
            if ((rc = solve_passive(As, rows, cols, b, passive, sub, zs, z, err))) goto fail;
        }
        memcpy(xs, z, sizeof *xs * cols);
    }
    double rn = 0;
    for (size_t i = 0; i < rows; i++) {
        double e = b[i];
        for (size_t j = 0; j < cols; j++) e -= As[i * cols + j] * xs[j];
        rn += e * e;
    }
    r.rnorm = sqrt(rn);
    for (size_t j = 0; j < cols; j++) {
        x[j] = xs[j] * scale[j];
        if (xs[j] > 0) r.nonzero++;
    }
    if (res) *res = r;
    free(As);
    free(passive);
    return 0;
oom:
    rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in NNLS");
fail:
    free(As);
    free(passive);
    return rc;
}
