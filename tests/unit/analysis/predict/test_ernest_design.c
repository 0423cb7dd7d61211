/* Experiment design on the reference scenario of Ernest's reference code README (parts 4-32 of
 * 256, machines 1-8, 4 cores per machine, budget 20: 83 candidates, trace 3.4622016) and the
 * deadline decision. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include "clarity/predict.h"

static void readme_scenario(struct ernest_design_options *o)
{
    clarity_ernest_design_defaults(o);
    o->scale_min = 4.0 / 256;
    o->scale_max = 32.0 / 256;
    o->total_parts = 256;
    o->machines_min = 1;
    o->machines_max = 8;
    o->cores_per_machine = 4;
}

Test(ernest_design, reference_scenario_optimum)
{
    struct ernest_design_options o;
    readme_scenario(&o);
    struct ernest_design d;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_ernest_design_run(&o, &d, &err), 0, "%s", err.msg);
    cr_assert_eq(d.n, 83);
    int per_m[9] = {0};
    for (size_t i = 0; i < d.n; i++) per_m[(int)d.c[i].machines]++;
    const int want[9] = {0, 20, 17, 14, 12, 9, 6, 4, 1};
    for (int m = 1; m <= 8; m++) cr_assert_eq(per_m[m], want[m], "m=%d", m);
    cr_assert(d.converged);
    cr_assert_float_eq(d.f, 3.4622016, 1e-7);
    int ones = 0;
    for (size_t i = 0; i < d.n; i++)
        if (d.c[i].lambda > 1 - 1e-5) ones++;
    cr_assert_eq(ones, 13);
    /* fractional points */
    struct { double m, s, l; } frac[] = {{1, 0.125, 0.428494}, {3, 0.078947, 0.239819},
                                         {1, 0.032895, 0.123916}, {7, 0.119243, 0.123557}};
    for (int k = 0; k < 4; k++) {
        bool found = false;
        for (size_t i = 0; i < d.n; i++)
            if (d.c[i].machines == frac[k].m && fabs(d.c[i].scale - frac[k].s) < 1e-6) {
                /* cvxopt's lambdas are accurate to about 1e-5; ours pass the KKT check below */
                cr_assert_float_eq(d.c[i].lambda, frac[k].l, 3e-5, "(%g, %g)", frac[k].m, frac[k].s);
                found = true;
            }
        cr_assert(found);
    }
    cr_assert_float_eq(d.nu, 0.11691, 1e-5);
    cr_assert_eq(d.nselected, 14);
    cr_assert_float_eq(d.selected_cost, 23.7726, 1e-4);
    cr_assert_float_eq(d.selected_trace, 3.32786, 1e-5);
    /* ties at lambda = 1 go to the cheaper point: (7, 0.107730) at cost 0.98496 */
    cr_assert_eq(d.c[d.order[0]].machines, 7);
    cr_assert_float_eq(d.c[d.order[0]].scale, 0.107730, 1e-6);
    clarity_ernest_design_free(&d);
}

Test(ernest_design, normalization_matters)
{
    struct ernest_design_options o;
    readme_scenario(&o);
    o.no_normalize = true;
    struct ernest_design d;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_ernest_design_run(&o, &d, &err), 0, "%s", err.msg);
    cr_assert_eq(d.nselected, 7);
    bool has81 = false;
    for (size_t i = 0; i < d.n; i++)
        if (d.c[i].machines == 1 && fabs(d.c[i].scale - 0.119243) < 1e-6) {
            cr_assert_float_eq(d.c[i].lambda, 0.8228, 1e-4);
            has81 = true;
        }
    cr_assert(has81);
    clarity_ernest_design_free(&d);
}

Test(ernest_design, paper_grid_regression_values)
{
    struct ernest_design_options o;
    clarity_ernest_design_defaults(&o);
    o.scale_min = 0.01;
    o.scale_max = 0.10;
    o.points = 10;
    o.machines_max = 5;
    struct ernest_design d;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_ernest_design_run(&o, &d, &err), 0, "%s", err.msg);
    cr_assert_eq(d.n, 50);
    cr_assert_float_eq(d.f, 7.993655, 1e-6);
    clarity_ernest_design_free(&d);
    o.budget = 10;
    cr_assert_eq(clarity_ernest_design_run(&o, &d, &err), 0, "%s", err.msg);
    cr_assert_float_eq(d.f, 12.167579, 1e-6);
    clarity_ernest_design_free(&d);
}

Test(ernest_design, beats_the_cheapest_first_baseline)
{
    struct ernest_design_options o;
    readme_scenario(&o);
    struct ernest_design d;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_ernest_design_run(&o, &d, &err), 0, "%s", err.msg);
    /* Baseline (Ernest section 6.5): cheapest candidates first until the cost matches. */
    size_t idx[83];
    for (size_t i = 0; i < d.n; i++) idx[i] = i;
    for (size_t i = 1; i < d.n; i++)
        for (size_t j = i; j > 0 && d.c[idx[j]].cost < d.c[idx[j - 1]].cost; j--) {
            size_t t = idx[j]; idx[j] = idx[j - 1]; idx[j - 1] = t;
        }
    double spent = 0, M[16] = {0};
    size_t k = 0;
    while (k < d.n && spent + d.c[idx[k]].cost <= d.selected_cost) spent += d.c[idx[k++]].cost;
    cr_assert_eq(k, 21);
    /* the baseline's A-value, features normalized as the design's */
    double mean[4] = {0};
    for (size_t i = 0; i < d.n; i++) {
        double a[4] = {1, d.c[i].scale / d.c[i].machines, log(d.c[i].machines), d.c[i].machines};
        for (int j = 0; j < 4; j++) mean[j] += a[j] / (double)d.n;
    }
    for (size_t q = 0; q < k; q++) {
        const struct ernest_candidate *c = &d.c[idx[q]];
        double a[4] = {1, c->scale / c->machines, log(c->machines), c->machines};
        for (int r = 0; r < 4; r++)
            for (int j = 0; j < 4; j++) M[r * 4 + j] += a[r] / mean[r] * a[j] / mean[j];
    }
    /* trace of the inverse via Gauss-Jordan on the 4x4 */
    double inv[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (int c = 0; c < 4; c++) {
        int p = c;
        for (int r = c + 1; r < 4; r++) if (fabs(M[r * 4 + c]) > fabs(M[p * 4 + c])) p = r;
        for (int j = 0; j < 4; j++) {
            double t = M[c * 4 + j]; M[c * 4 + j] = M[p * 4 + j]; M[p * 4 + j] = t;
            t = inv[c * 4 + j]; inv[c * 4 + j] = inv[p * 4 + j]; inv[p * 4 + j] = t;
        }
        double piv = M[c * 4 + c];
        for (int j = 0; j < 4; j++) { M[c * 4 + j] /= piv; inv[c * 4 + j] /= piv; }
        for (int r = 0; r < 4; r++) {
            if (r == c) continue;
            double f = M[r * 4 + c];
            for (int j = 0; j < 4; j++) { M[r * 4 + j] -= f * M[c * 4 + j]; inv[r * 4 + j] -= f * inv[c * 4 + j]; }
        }
    }
    double tr = inv[0] + inv[5] + inv[10] + inv[15];
    cr_assert_float_eq(tr, 65.63, 0.01);
    cr_assert_gt(tr, 15 * d.selected_trace);
    clarity_ernest_design_free(&d);
}

Test(ernest_design, single_machine_count_is_refused)
{
    struct ernest_design_options o;
    clarity_ernest_design_defaults(&o);
    o.scale_min = 0.01;
    o.scale_max = 0.1;
    o.machines_min = o.machines_max = 4;
    struct ernest_design d;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_ernest_design_run(&o, &d, &err), CLARITY_EUSAGE);
    cr_assert(strstr(err.msg, "cannot determine every term"), "%s", err.msg);
}

/* a synthetic model: per-iteration time x 40 iterations x 1.15 first meets 3600 s at 16 machines */
Test(ernest_choose, deadline_fewest_and_cheapest)
{
    struct ernest_model m = {0};
    clarity_ernest_terms_default(&m.terms);
    /* 40 iterations of 10 s + 1075 s / m: 1.15 * t first meets 3600 s at m = 16 */
    m.theta[0] = 40 * 10;
    m.theta[1] = 40 * 1075.0;
    struct ernest_choose_options o = {.scale = 1, .deadline_s = 3600, .machines_min = 1, .machines_max = 64,
                                      .margin = 0.15};
    struct ernest_choice c;
    clarity_ernest_choose(&m, &o, &c);
    double t15 = clarity_ernest_predict(&m, 1, 15) * 1.15, t16 = clarity_ernest_predict(&m, 1, 16) * 1.15;
    cr_assert_gt(t15, 3600);
    cr_assert_leq(t16, 3600);
    cr_assert(c.found);
    cr_assert_eq(c.machines, 16);
    o.price_per_machine_hour = 0.35;
    o.hourly_billing = true;
    clarity_ernest_choose(&m, &o, &c);
    cr_assert_eq(c.machines, 16);
    cr_assert_float_eq(c.cost, 5.60, 1e-9);
    cr_assert_float_eq(64 * 0.35 * ceil(clarity_ernest_predict(&m, 1, 64) * 1.15 / 3600), 22.40, 1e-9);
}

Test(ernest_choose, unreachable_deadline_and_extrapolation)
{
    struct ernest_point p[] = {{1, 0.01, 100}, {2, 0.01, 60}, {4, 0.02, 70}, {8, 0.05, 90}, {2, 0.05, 250}};
    struct ernest_terms t;
    clarity_ernest_terms_default(&t);
    struct ernest_model m;
    cr_assert_eq(clarity_ernest_fit(p, 5, &t, &m, NULL), 0);
    struct ernest_choose_options o = {.scale = 1, .deadline_s = 1, .machines_min = 1, .machines_max = 64, .margin = -1};
    struct ernest_choice c;
    clarity_ernest_choose(&m, &o, &c);
    cr_assert_not(c.found);
    cr_assert(c.extrap.far);
    cr_assert_float_eq(c.extrap.scale_factor, 20, 1e-12);
    cr_assert_float_eq(c.margin, m.loo.max_pct / 100, 1e-12);
    clarity_ernest_model_free(&m);
}
