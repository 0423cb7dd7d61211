/* Householder least squares and Cholesky for the prediction models' tiny systems. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "math/linalg.h"

static int oom(struct clarity_error *err)
{
    return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in least squares");
}

int clarity_lsq_solve(const double *A, size_t rows, size_t cols, const double *b, double *x,
                      double *rnorm, int *rank_out, struct clarity_error *err)
{
    double *R = malloc(sizeof *R * (rows * cols + rows));
    if (!R) return oom(err);
    double *qb = R + rows * cols;
    memcpy(R, A, sizeof *R * rows * cols);
    memcpy(qb, b, sizeof *qb * rows);
    double amax = 0;
    for (size_t i = 0; i < rows * cols; i++)
        if (fabs(R[i]) > amax) amax = fabs(R[i]);
    /* Pivots this small relative to the largest entry are noise: the column is (numerically)
     * a combination of the earlier ones. */
    double tol = amax * 1e-12 * (double)(rows > cols ? rows : cols);
    int rank = 0;
    char *dep = calloc(cols ? cols : 1, 1);
    if (!dep) { free(R); return oom(err); }
    size_t r = 0;                            /* next row to reduce */
    for (size_t j = 0; j < cols && r < rows; j++) {
        double norm = 0;
        for (size_t i = r; i < rows; i++) norm += R[i * cols + j] * R[i * cols + j];
        norm = sqrt(norm);
        if (norm <= tol) { dep[j] = 1; continue; }
        double alpha = R[r * cols + j] > 0 ? -norm : norm;
        /* v = x - alpha e1, stored in column j below the diagonal */
        R[r * cols + j] -= alpha;
        double vnorm2 = 0;
        for (size_t i = r; i < rows; i++) vnorm2 += R[i * cols + j] * R[i * cols + j];
        for (size_t jj = j + 1; jj < cols; jj++) {
            double dot = 0;
            for (size_t i = r; i < rows; i++) dot += R[i * cols + j] * R[i * cols + jj];
            double f = 2 * dot / vnorm2;
            for (size_t i = r; i < rows; i++) R[i * cols + jj] -= f * R[i * cols + j];
        }
        double dot = 0;
        for (size_t i = r; i < rows; i++) dot += R[i * cols + j] * qb[i];
        double f = 2 * dot / vnorm2;
        for (size_t i = r; i < rows; i++) qb[i] -= f * R[i * cols + j];
        R[r * cols + j] = alpha;             /* the diagonal of R; below it is v, unused now */
        r++;
        rank++;
    }
    /* Back substitution over the independent columns; R's row for column j is the row it
     * was reduced in. */
    size_t *rowof = malloc(sizeof *rowof * (cols ? cols : 1));
    if (!rowof) { free(R); free(dep); return oom(err); }
    r = 0;
    for (size_t j = 0; j < cols; j++) {
        if (dep[j] || r >= rows) { dep[j] = 1; continue; }
        rowof[j] = r++;
    }
    for (size_t jj = cols; jj-- > 0;) {
        if (dep[jj]) { x[jj] = 0; continue; }
        size_t rr = rowof[jj];
        double s = qb[rr];
        for (size_t j2 = jj + 1; j2 < cols; j2++)
            if (!dep[j2]) s -= R[rr * cols + j2] * x[j2];
        x[jj] = s / R[rr * cols + jj];
    }
    if (rnorm) {
        double s = 0;
        for (size_t i = 0; i < rows; i++) {
            double e = -b[i];
            for (size_t j = 0; j < cols; j++) e += A[i * cols + j] * x[j];
            s += e * e;
        }
        *rnorm = sqrt(s);
    }
    free(rowof);
    free(dep);
    free(R);
    if (rank_out) *rank_out = rank;
    return 0;
}

int clarity_cholesky(double *L, size_t n, struct clarity_error *err)
{
    for (size_t j = 0; j < n; j++) {
        double d = L[j * n + j], orig = d;
        for (size_t k = 0; k < j; k++) d -= L[j * n + k] * L[j * n + k];
        /* a pivot that cancels to rounding noise means the matrix is singular */
        if (!(d > 1e-13 * orig) || !isfinite(d))
            return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "matrix is not positive definite");
        d = sqrt(d);
        L[j * n + j] = d;
        for (size_t i = j + 1; i < n; i++) {
            double s = L[i * n + j];
            for (size_t k = 0; k < j; k++) s -= L[i * n + k] * L[j * n + k];
            L[i * n + j] = s / d;
        }
        for (size_t i = 0; i < j; i++) L[i * n + j] = 0;
    }
    return 0;
}

void clarity_cholesky_solve(const double *L, size_t n, const double *b, double *x)
{
    if (x != b) memcpy(x, b, sizeof *x * n);
    for (size_t i = 0; i < n; i++) {
        double s = x[i];
        for (size_t k = 0; k < i; k++) s -= L[i * n + k] * x[k];
        x[i] = s / L[i * n + i];
    }
    for (size_t i = n; i-- > 0;) {
        double s = x[i];
        for (size_t k = i + 1; k < n; k++) s -= L[k * n + i] * x[k];
        x[i] = s / L[i * n + i];
    }
}
