/* GRNN on LADRA's worked numbers (sigma 0.5, two samples): kernels, outputs, softmax, far queries, order and duplicate invariance. */
#include <criterion/criterion.h>
#include <math.h>
#include "math/grnn.h"

static const double X[14] = {1, 1, 1, 1, 1, 1, 1, 2, 2, 1, 1, 1, 1, 1};
static const int L[2] = {0, 1};

Test(grnn, t7_1_query_x1)
{
    double f[2], y[5], p[5];
    clarity_grnn_kernels(X, 2, 7, 0.5, X, f);
    cr_assert_float_eq(f[0], 1, 1e-12);
    cr_assert_float_eq(f[1], 0.0183156, 1e-7);
    clarity_grnn_predict(X, L, 2, 7, 5, 0.5, X, y);
    double want[5] = {0.98201, 0.01799, 0, 0, 0};
    for (int j = 0; j < 5; j++) cr_assert_float_eq(y[j], want[j], 1e-5);
    clarity_grnn_softmax(y, 5, p);
    double wp[5] = {0.39920, 0.15224, 0.14952, 0.14952, 0.14952};
    for (int j = 0; j < 5; j++) cr_assert_float_eq(p[j], wp[j], 1e-5);
}

Test(grnn, t7_2_mirror_and_midpoint)
{
    double y[5], p[5], mid[7] = {1.5, 1.5, 1, 1, 1, 1, 1}, f[2];
    clarity_grnn_predict(X, L, 2, 7, 5, 0.5, X + 7, y);
    clarity_grnn_softmax(y, 5, p);
    cr_assert_float_eq(p[1], 0.39920, 1e-5);
    cr_assert_float_eq(p[0], 0.15224, 1e-5);
    clarity_grnn_kernels(X, 2, 7, 0.5, mid, f);
    cr_assert_float_eq(f[0], 0.36788, 1e-5);
    cr_assert_float_eq(f[1], 0.36788, 1e-5);
    clarity_grnn_predict(X, L, 2, 7, 5, 0.5, mid, y);
    cr_assert_float_eq(y[0], 0.5, 1e-12);
    cr_assert_float_eq(y[1], 0.5, 1e-12);
    clarity_grnn_softmax(y, 5, p);
    double wp[5] = {0.26181, 0.26181, 0.15879, 0.15879, 0.15879};
    for (int j = 0; j < 5; j++) cr_assert_float_eq(p[j], wp[j], 1e-5);
}

Test(grnn, t7_3_softmax_one_hot)
{
    double y[5] = {1, 0, 0, 0, 0}, p[5];
    clarity_grnn_softmax(y, 5, p);
    cr_assert_float_eq(p[0], 0.40461, 1e-5);
    for (int j = 1; j < 5; j++) cr_assert_float_eq(p[j], 0.14885, 1e-5);
}

Test(grnn, t7_4_far_query_is_finite)
{
    double q[7] = {101, 1, 1, 1, 1, 1, 1}, y[5];   /* distance^2 = 1e4 from X1 */
    clarity_grnn_predict(X, L, 2, 7, 5, 0.5, q, y);
    for (int j = 0; j < 5; j++) cr_assert(isfinite(y[j]));
    cr_assert_float_eq(y[1], 1, 1e-9);   /* X2 is nearer by 2*100-... so it wins */
    double q2[7] = {-99, 1, 1, 1, 1, 1, 1};
    clarity_grnn_predict(X, L, 2, 7, 5, 0.5, q2, y);
    cr_assert_float_eq(y[0], 1, 1e-9);
}

Test(grnn, t7_5_order_and_duplicates)
{
    double xr[14] = {2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, xd[28], q[7] = {1.2, 1.4, 1, 1, 1, 1, 1};
    int lr[2] = {1, 0}, ld[4] = {0, 1, 0, 1};
    for (int i = 0; i < 14; i++) xd[i] = X[i], xd[14 + i] = X[i];
    double y[5], yr[5], yd[5];
    clarity_grnn_predict(X, L, 2, 7, 5, 0.5, q, y);
    clarity_grnn_predict(xr, lr, 2, 7, 5, 0.5, q, yr);
    clarity_grnn_predict(xd, ld, 4, 7, 5, 0.5, q, yd);
    for (int j = 0; j < 5; j++) {
        cr_assert_float_eq(y[j], yr[j], 1e-12);
        cr_assert_float_eq(y[j], yd[j], 1e-12);
    }
}
