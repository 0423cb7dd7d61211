/* General regression neural network (Specht 1991) as LADRA uses it (Eq. 13-15):
 * one Gaussian pattern neuron per training sample, outputs = kernel-weighted mean of the
 * samples' one-hot labels. Training is storing the samples. */
#ifndef CLARITY_GRNN_H
#define CLARITY_GRNN_H
#include <stddef.h>

/* x: n samples of dim values (row-major); label[i] in [0, nclass). Writes y[nclass]
 * (sums to 1). The kernel exponents are shifted by the smallest squared distance before
 * exp, so nothing underflows: y is unchanged and a far query still gets its nearest samples' labels, never
 * NaN. With n == 0, y is uniform. */
void clarity_grnn_predict(const double *x, const int *label, size_t n, size_t dim, size_t nclass, double sigma,
                  const double *q, double *y);
/* Raw kernel values F_i = exp(-d_i^2 / 2 sigma^2) (unshifted), for inspection and tests. */
void clarity_grnn_kernels(const double *x, size_t n, size_t dim, double sigma, const double *q, double *f);
void clarity_grnn_softmax(const double *y, size_t k, double *p);

#endif
