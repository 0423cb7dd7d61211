#include <math.h>
#include <stdlib.h>
#include "math/grnn.h"

static double sqdist(const double *a, const double *b, size_t dim)
{
    double s = 0;
    for (size_t k = 0; k < dim; k++) s += (a[k] - b[k]) * (a[k] - b[k]);
    return s;
}

void clarity_grnn_kernels(const double *x, size_t n, size_t dim, double sigma, const double *q, double *f)
{
    for (size_t i = 0; i < n; i++) f[i] = exp(-sqdist(x + i * dim, q, dim) / (2 * sigma * sigma));
}

void clarity_grnn_predict(const double *x, const int *label, size_t n, size_t dim, size_t nclass, double sigma,
                  const double *q, double *y)
{
    for (size_t j = 0; j < nclass; j++) y[j] = n ? 0 : 1.0 / (double)nclass;
    if (!n) return;
    /* Shift by the nearest sample so the largest kernel is exp(0) = 1: SD can never
     * underflow to 0 however far the query is, and the ratio S_j/SD is unchanged. */
    double dmin = INFINITY;
    for (size_t i = 0; i < n; i++) {
        double d = sqdist(x + i * dim, q, dim);
        if (d < dmin) dmin = d;
    }
    double sd = 0;
    for (size_t i = 0; i < n; i++) {
        double fi = exp(-(sqdist(x + i * dim, q, dim) - dmin) / (2 * sigma * sigma));
        sd += fi;
        if (label[i] >= 0 && (size_t)label[i] < nclass) y[label[i]] += fi;
    }
    for (size_t j = 0; j < nclass; j++) y[j] /= sd;
}

void clarity_grnn_softmax(const double *y, size_t k, double *p)
{
    double mx = -INFINITY, s = 0;
    for (size_t j = 0; j < k; j++) mx = y[j] > mx ? y[j] : mx;
    for (size_t j = 0; j < k; j++) s += p[j] = exp(y[j] - mx);
    for (size_t j = 0; j < k; j++) p[j] /= s;
}
