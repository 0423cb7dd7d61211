/* Non-negative least squares, min ||A x - b|| subject to x >= 0, by the Lawson-Hanson
 * active-set method (the algorithm behind scipy.optimize.nnls, which Ernest used). */
#ifndef CLARITY_NNLS_H
#define CLARITY_NNLS_H
#include <stdbool.h>
#include <stddef.h>
#include "clarity/error.h"

struct clarity_nnls_result {
    double rnorm;          /* ||A x - b|| */
    int iterations;        /* outer iterations (columns moved into the passive set) */
    int nonzero;           /* coefficients > 0 */
    bool converged;        /* false when the iteration cap stopped it */
    bool rank_deficient;   /* A itself has rank < cols: the solution may not be unique */
};

/* A is rows x cols, row-major. x gets cols values. Returns 0, or CLARITY_ENOMEM with err filled.
 * Columns are scaled to unit norm internally (NNLS is equivariant under positive column
 * scaling, and the features span orders of magnitude), then x is unscaled. */
int clarity_nnls(const double *A, size_t rows, size_t cols, const double *b, double *x,
                 struct clarity_nnls_result *res, struct clarity_error *err);

/* The dual w = A^T (b - A x) and the tolerance the solver stops at, for KKT checks. */
double clarity_nnls_tolerance(const double *A, size_t rows, size_t cols);

#endif
