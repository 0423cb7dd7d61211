/* Small dense linear algebra for the prediction models (a handful of columns, at most a few
 * hundred rows). Matrices are row-major: A[i * cols + j]. Nothing here allocates more than
 * it frees before returning; no global state. */
#ifndef CLARITY_LINALG_H
#define CLARITY_LINALG_H
#include <stddef.h>
#include "clarity/error.h"

/* Least squares min ||A x - b|| by Householder QR (never the normal equations: the design
 * columns span many orders of magnitude). A column whose pivot falls below a relative
 * tolerance is treated as dependent and its x set to 0 (the basic solution). rank (may be
 * NULL) gets the numerical rank, rnorm (may be NULL) ||A x - b||. Returns 0, or
 * CLARITY_ENOMEM with err filled. */
int clarity_lsq_solve(const double *A, size_t rows, size_t cols, const double *b, double *x,
                      double *rnorm, int *rank, struct clarity_error *err);

/* Cholesky factor of a symmetric positive definite n x n matrix, in place (lower triangle).
 * Returns 0, or CLARITY_EUSAGE (err filled) when the matrix is not numerically positive
 * definite. */
int clarity_cholesky(double *L, size_t n, struct clarity_error *err);
/* Solves L L^T x = b with a factor from clarity_cholesky; x may alias b. */
void clarity_cholesky_solve(const double *L, size_t n, const double *b, double *x);

#endif
