/* The A-optimal design solver: closed forms (orthogonal candidates, a line and a quadratic on
 * {-1, 0, 1}, a budget that does not bind, scaling) and the KKT certificate. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include "math/design.h"

static void solve(const double *a, size_t n, size_t d, const double *c, double B, struct clarity_design_result *r)
{
    struct clarity_design_problem p = {.a = a, .n = n, .d = d, .cost = c, .budget = B};
    cr_assert_eq(clarity_design_solve(&p, r, NULL), 0);
    cr_assert(r->converged, "stationarity %g after %d iterations", r->stationarity, r->iterations);
}

Test(design, orthogonal_candidates)
{
    double a[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, c[4] = {1, 4, 9, 16};
    struct clarity_design_result r;
    solve(a, 4, 4, c, 2, &r);
    double want[4] = {0.2, 0.1, 0.2 / 3, 0.05};
    for (int i = 0; i < 4; i++) cr_assert_float_eq(r.lambda[i], want[i], 1e-7);
    cr_assert_float_eq(r.f, 50, 1e-7);
    cr_assert_float_eq(r.spent, 2, 1e-9);
    clarity_design_result_free(&r);
}

Test(design, straight_line_ignores_the_middle)
{
    double a[6] = {1, -1, 1, 1, 1, 0}, c[3] = {1, 1, 1};
    struct clarity_design_result r;
    solve(a, 3, 2, c, 1, &r);
    cr_assert_float_eq(r.lambda[0], 0.5, 1e-7);
    cr_assert_float_eq(r.lambda[1], 0.5, 1e-7);
    cr_assert_float_eq(r.lambda[2], 0, 1e-7);
    cr_assert_float_eq(r.f, 2, 1e-8);
    clarity_design_result_free(&r);
}

Test(design, quadratic_on_three_points)
{
    double a[9] = {1, -1, 1, 1, 0, 0, 1, 1, 1}, c[3] = {1, 1, 1};
    struct clarity_design_result r;
    solve(a, 3, 3, c, 1, &r);
    cr_assert_float_eq(r.lambda[0], 0.25, 1e-7);
    cr_assert_float_eq(r.lambda[1], 0.5, 1e-7);
    cr_assert_float_eq(r.lambda[2], 0.25, 1e-7);
    cr_assert_float_eq(r.f, 8, 1e-7);
    clarity_design_result_free(&r);
}

Test(design, budget_not_binding_takes_everything)
{
    double a[6] = {1, -1, 1, 1, 1, 0}, c[3] = {1, 2, 3};
    struct clarity_design_result r;
    solve(a, 3, 2, c, 10, &r);
    for (int i = 0; i < 3; i++) cr_assert_float_eq(r.lambda[i], 1, 1e-12);
    clarity_design_result_free(&r);
}

Test(design, doubling_the_budget_doubles_lambda)
{
    double a[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, c[4] = {1, 4, 9, 16};
    struct clarity_design_result r1, r2;
    solve(a, 4, 4, c, 1, &r1);
    solve(a, 4, 4, c, 2, &r2);
    for (int i = 0; i < 4; i++) cr_assert_float_eq(r2.lambda[i], 2 * r1.lambda[i], 1e-7);
    cr_assert_float_eq(r2.f, r1.f / 2, 1e-6);
    clarity_design_result_free(&r1);
    clarity_design_result_free(&r2);
}

Test(design, singular_candidates_are_refused)
{
    double a[4] = {1, 1, 2, 2}, c[2] = {1, 1};
    struct clarity_design_problem p = {.a = a, .n = 2, .d = 2, .cost = c, .budget = 1};
    struct clarity_design_result r;
    cr_assert_eq(clarity_design_solve(&p, &r, NULL), CLARITY_EUSAGE);
}

Test(design, projection_spends_the_budget)
{
    double v[4] = {0.9, 2, -1, 0.5}, c[4] = {1, 2, 1, 1}, out[4];
    clarity_design_project(v, c, 4, 1, out);
    double spent = 0;
    for (int i = 0; i < 4; i++) {
        cr_assert(out[i] >= 0 && out[i] <= 1);
        spent += c[i] * out[i];
    }
    cr_assert_float_eq(spent, 1, 1e-12);
}

/* KKT and the identity sum lambda_i (-g_i) = trace(M^-1), on random instances */
Test(design, random_kkt_certificate)
{
    unsigned seed = 7;
    for (int trial = 0; trial < 5; trial++) {
        enum { N = 50, D = 4 };
        double a[N * D], c[N], g[N];
        for (int i = 0; i < N * D; i++) a[i] = (double)rand_r(&seed) / RAND_MAX * 2 - 1;
        for (int i = 0; i < N; i++) c[i] = 0.1 + (double)rand_r(&seed) / RAND_MAX;
        struct clarity_design_result r;
        solve(a, N, D, c, 5, &r);
        struct clarity_design_problem p = {.a = a, .n = N, .d = D, .cost = c, .budget = 5};
        double f = clarity_design_objective(&p, r.lambda, g), s = 0;
        for (int i = 0; i < N; i++) s += r.lambda[i] * -g[i];
        cr_assert_float_eq(s, f, 1e-9 * f);
        for (int i = 0; i < N; i++) {
            double ri = -g[i] / c[i];
            if (r.lambda[i] > 1e-6 && r.lambda[i] < 1 - 1e-6) cr_assert_float_eq(ri, r.nu, 1e-4 * r.nu);
            else if (r.lambda[i] <= 1e-6) cr_assert_leq(ri, r.nu * (1 + 1e-4));
            else cr_assert_geq(ri, r.nu * (1 - 1e-4));
        }
        clarity_design_result_free(&r);
    }
}
