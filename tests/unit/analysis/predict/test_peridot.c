/* PERIDOT on worked cases derived from the paper: wave counts (Fig. 2), partial waves, variable
 * and fixed groups, a parallel group, the floating-point wave boundary, identity, properties,
 * structure mismatch, Table II arithmetic, the IS baseline, MAPE (parsing a log is in
 * test_peridot_log.c). */
#include <criterion/criterion.h>
#include <math.h>
#include "clarity/predict.h"
#include "peridot_helpers.h"

static struct peridot_options paper(void)
{
    struct peridot_options o;
    clarity_peridot_options_default(&o);
    o.fixed = PERIDOT_FIXED_CONSTANT;
    return o;
}

static double predict(const struct peridot_model *m, double D, double E)
{
    struct peridot_prediction p;
    cr_assert_eq(clarity_peridot_predict(m, D, E, &p, NULL), 0);
    double t = p.total_ms;
    clarity_peridot_prediction_free(&p);
    return t;
}

Test(peridot, t01_wave_count)
{
    cr_assert_eq(clarity_peridot_waves(8, 2), 4);
    cr_assert_eq(clarity_peridot_waves(8, 6), 2);
}

Test(peridot, t02_partial_wave_filling)
{
    for (int p = 11; p <= 15; p++) cr_assert_eq(clarity_peridot_waves(p, 5), 3, "P=%d", p);
    cr_assert_eq(clarity_peridot_waves(16, 5), 4);
    cr_assert_eq(clarity_peridot_waves(12, 5), clarity_peridot_waves(15, 5));
}

/* Test 3 in seconds: variable stage 0, fixed 1-task stage 1 */
static void test3(struct peridot_ref r[2])
{
    const struct st a[] = {{0, "map", 8, 0, 20}, {1, "collect", 1, 22, 24}};
    const struct st b[] = {{0, "map", 16, 0, 38}, {1, "collect", 1, 40, 42}};
    r[0] = mkref(a, 2, 30, 1, 5);
    r[1] = mkref(b, 2, 48, 2, 5);
}

Test(peridot, t03_single_variable_group)
{
    struct peridot_ref r[2];
    test3(r);
    for (int mode = 0; mode < 2; mode++) {   /* the paper's constant fixed groups, and auto */
        struct peridot_options o = paper();
        if (mode) o.fixed = PERIDOT_FIXED_AUTO;
        struct peridot_model m;
        struct clarity_error err = {0};
        cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_OK, "%s", err.msg);
        cr_assert_eq(m.ngroups, 2);
        cr_assert_eq(m.groups[0].kind, PERIDOT_VARIABLE);
        cr_assert_eq(m.groups[1].kind, PERIDOT_FIXED);
        cr_assert_eq(m.groups[0].waves[0], 2);
        cr_assert_eq(m.groups[0].waves[1], 4);
        cr_assert_float_eq(m.groups[0].wave_ms, 9.75, 1e-12);
        cr_assert_float_eq(m.groups[0].rho, 8, 1e-12);
        cr_assert_float_eq(m.fixed_ms[0], 10, 1e-12);
        cr_assert_float_eq(m.fixed_ms[1], 10, 1e-12);
        cr_assert_float_eq(m.fixed_hat_ms, 10, 1e-12);
        const double cases[][3] = {{10, 20, 49.0}, {100, 40, 205.0}, {3, 7, 49.0}, {50, 15, 273.25},
                                   {100, 5, 1570.0}, {1, 5, 29.5}, {2, 5, 49.0}, {10, 1000, 19.75}};
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
            cr_assert_float_eq(predict(&m, cases[i][0], cases[i][1]), cases[i][2], 1e-9, "(%g, %g)", cases[i][0], cases[i][1]);
        struct peridot_prediction p;
        clarity_peridot_predict(&m, 50, 15, &p, NULL);
        cr_assert_float_eq(p.groups[0].tasks, 400, 1e-9);
        cr_assert_eq(p.groups[0].waves, 27);
        clarity_peridot_prediction_free(&p);
        clarity_peridot_model_free(&m);
    }
    clarity_peridot_ref_free(&r[0]);
    clarity_peridot_ref_free(&r[1]);
}

static void test4(struct peridot_ref r[2])
{
    const struct st a[] = {{0, "s0", 1, 1000, 3000}, {1, "s1", 8, 5000, 25000}, {2, "s2", 2, 5002, 9000},
                           {3, "s3", 4, 5003, 27000}, {4, "s4", 10, 25010, 40000}};
    const struct st b[] = {{0, "s0", 1, 1000, 3000}, {1, "s1", 16, 5000, 45000}, {2, "s2", 2, 5002, 9000},
                           {3, "s3", 8, 5003, 44000}, {4, "s4", 10, 45010, 60000}};
    r[0] = mkref(a, 5, 100000, 1, 5);
    r[1] = mkref(b, 5, 121000, 2, 5);
}

static void check_test4(const struct peridot_model *m)
{
    cr_assert_eq(m->ngroups, 3);
    cr_assert_eq(m->groups[0].n, 1);
    cr_assert_eq(m->groups[1].n, 3);
    cr_assert_eq(m->groups[2].n, 1);
    cr_assert_eq(m->members[m->groups[2].first], 4);
    cr_assert_eq(m->nvariable, 1);
    cr_assert_eq(m->groups[1].kind, PERIDOT_VARIABLE);
    cr_assert_eq(m->groups[1].tasks[0], 14);
    cr_assert_eq(m->groups[1].tasks[1], 26);
    cr_assert_float_eq(m->groups[1].span_ms[1], 40000, 1e-9);
    cr_assert_float_eq(m->groups[1].wave_ms, 7000, 1e-9);
    cr_assert_float_eq(m->fixed_ms[0], 78000, 1e-9);
    cr_assert_float_eq(m->fixed_ms[1], 81000, 1e-9);
    cr_assert_float_eq(m->fixed_hat_ms, 79500, 1e-9);
    cr_assert_float_eq(predict(m, 10, 20), 128500, 1e-6);
    cr_assert_float_eq(predict(m, 100, 40), 317500, 1e-6);
}

Test(peridot, t04_parallel_group)
{
    struct peridot_ref r[2];
    test4(r);
    struct peridot_options o = paper();
    struct peridot_model m;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_OK, "%s", err.msg);
    check_test4(&m);
    clarity_peridot_model_free(&m);
    o.grouping = PERIDOT_GROUP_TOLERANCE;   /* delta = 50 ms gives the same groups */
    cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_OK, "%s", err.msg);
    check_test4(&m);
    clarity_peridot_model_free(&m);
    o = paper();
    o.fixed = PERIDOT_FIXED_AUTO;           /* s0 and s4 did not grow: still constant */
    cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_OK, "%s", err.msg);
    check_test4(&m);
    clarity_peridot_model_free(&m);
    clarity_peridot_ref_free(&r[0]);
    clarity_peridot_ref_free(&r[1]);
}

Test(peridot, t05_floating_point_wave_boundary)
{
    const struct st a[] = {{0, "x", 3, 0, 10}}, b[] = {{0, "x", 6, 0, 10}};
    struct peridot_ref r[2] = {mkref(a, 1, 20, 0.3, 12), mkref(b, 1, 20, 0.6, 12)};
    struct peridot_options o = paper();
    struct peridot_model m;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_OK);
    struct peridot_prediction p;
    clarity_peridot_predict(&m, 1.2, 12, &p, NULL);
    cr_assert_gt(p.groups[0].tasks, 12.0);   /* Eq. 3 evaluated literally overshoots ... */
    cr_assert_eq(p.groups[0].waves, 1);      /* ... and must still be one wave */
    clarity_peridot_prediction_free(&p);
    clarity_peridot_model_free(&m);
    clarity_peridot_ref_free(&r[0]);
    clarity_peridot_ref_free(&r[1]);
}

Test(peridot, t06_identity)
{
    /* W = 10 in both, F = 5 in both, P proportional to D */
    const struct st a[] = {{0, "x", 10, 0, 20}}, b[] = {{0, "x", 30, 0, 60}};
    struct peridot_ref r[2] = {mkref(a, 1, 25, 1, 5), mkref(b, 1, 65, 3, 5)};
    struct peridot_options o = paper();
    struct peridot_model m;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_OK);
    cr_assert_eq(predict(&m, 1, 5), 25);
    cr_assert_eq(predict(&m, 3, 5), 65);
    clarity_peridot_model_free(&m);
    clarity_peridot_ref_free(&r[0]);
    clarity_peridot_ref_free(&r[1]);
}

Test(peridot, t07_properties_randomised)
{
    unsigned seed = 42;
    for (int trial = 0; trial < 200; trial++) {
        int ng = 1 + (int)((unsigned)rand_r(&seed) % 5u);
        struct st a[5], b[5];
        int64_t t1 = 0, t2 = 0;
        bool any_var = false;
        for (int g = 0; g < ng; g++) {
            int64_t p1 = 1 + rand_r(&seed) % 50, p2 = rand_r(&seed) % 3 ? p1 * 2 + rand_r(&seed) % 5 : p1;
            int64_t s1 = 100 + rand_r(&seed) % 5000, s2 = s1 + rand_r(&seed) % 5000;
            any_var |= p1 != p2;
            a[g] = (struct st){g, "g", p1, t1, t1 + s1};
            b[g] = (struct st){g, "g", p2, t2, t2 + s2};
            t1 += s1 + 10;
            t2 += s2 + 10;
        }
        struct peridot_ref r[2] = {mkref(a, (size_t)ng, t1 + 500, 1, 4), mkref(b, (size_t)ng, t2 + 700, 2, 4)};
        struct peridot_options o = paper();
        struct peridot_model m;
        struct clarity_error err = {0};
        cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_OK, "%s", err.msg);
        cr_assert_eq(m.all_fixed, !any_var);
        double sumw = 0;
        for (size_t g = 0; g < m.ngroups; g++)
            if (m.groups[g].kind == PERIDOT_VARIABLE) sumw += m.groups[g].wave_ms;
        double prevD = -1;
        for (double D = 0.5; D < 300; D *= 1.7) {
            double prevE = INFINITY;
            for (double E = 1; E <= 256; E *= 2) {
                double t = predict(&m, D, E);
                cr_assert_leq(t, prevE + 1e-9, "not non-increasing in E");
                prevE = t;
                if (any_var) cr_assert_geq(t, m.fixed_hat_ms + sumw - 1e-9);
                else cr_assert_eq(t, m.fixed_hat_ms);
                if (prevD > 0) cr_assert_geq(t, predict(&m, prevD, E) - 1e-9, "not non-decreasing in D");
            }
            prevD = D;
        }
        clarity_peridot_model_free(&m);
        clarity_peridot_ref_free(&r[0]);
        clarity_peridot_ref_free(&r[1]);
    }
}

Test(peridot, t08_structure_mismatch)
{
    const struct st a[] = {{0, "x", 3, 0, 10}, {1, "y", 1, 20, 30}};
    const struct st b[] = {{0, "x", 6, 0, 10}, {1, "z", 1, 20, 30}};
    const struct st c[] = {{0, "x", 6, 0, 10}};
    struct peridot_ref r[3] = {mkref(a, 2, 40, 1, 4), mkref(b, 2, 40, 2, 4), mkref(c, 1, 40, 2, 4)};
    struct peridot_options o = paper();
    struct peridot_model m;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_EFORMAT);
    cr_assert(strstr(err.msg, "group 2"), "%s", err.msg);
    cr_assert(strstr(err.msg, "\"y\"") && strstr(err.msg, "\"z\""), "%s", err.msg);
    struct peridot_ref r2[2] = {r[0], r[2]};
    cr_assert_eq(clarity_peridot_fit(r2, 2, &o, &m, &err), CLARITY_EFORMAT);
    cr_assert(strstr(err.msg, "2 vs 1 stage groups"), "%s", err.msg);
    for (int i = 0; i < 3; i++) clarity_peridot_ref_free(&r[i]);
}

Test(peridot, t10_table2_arithmetic)
{
    /* 35 sequential-or-parallel stages, one parallel group of 5 submitted together: 31 groups */
    struct st a[35];
    int64_t t = 0;
    for (int i = 0; i < 35; i++) {
        if (i >= 10 && i < 15) {               /* stages 10..14 submitted within 3 ms */
            a[i] = (struct st){i, "p", 4, t + (i - 10), t + 1000 + 10 * (i - 10)};
            if (i == 14) t += 1100;
            continue;
        }
        a[i] = (struct st){i, "s", 1, t, t + 100};
        t += 110;
    }
    struct peridot_ref r[2] = {mkref(a, 35, t + 50, 1, 4), mkref(a, 35, t + 50, 2, 4)};
    struct peridot_options o = paper();
    struct peridot_model m;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_OK);
    cr_assert_eq(m.ngroups, 31);
    cr_assert(m.all_fixed);
    clarity_peridot_model_free(&m);
    clarity_peridot_ref_free(&r[0]);
    clarity_peridot_ref_free(&r[1]);
}

Test(peridot, t11_ideal_scaling_baseline)
{
    struct peridot_ref r[2];
    test3(r);
    struct peridot_options o = paper();
    struct peridot_model m;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_OK);
    cr_assert_float_eq(clarity_peridot_ideal_scaling_ref(&m, 1, 100, 40), 300, 1e-9);
    cr_assert_float_eq(clarity_peridot_ideal_scaling(&m, 100, 40), (300 + 30 * 100 * 5 / 40.0) / 2, 1e-9);
    clarity_peridot_model_free(&m);
    clarity_peridot_ref_free(&r[0]);
    clarity_peridot_ref_free(&r[1]);
}

Test(peridot, t12_ernest_with_two_references)
{
    const struct ernest_point p[] = {{1, 1, 30}, {1, 2, 48}};
    struct ernest_terms t;
    clarity_ernest_terms_default(&t);
    struct ernest_model m;
    cr_assert_eq(clarity_ernest_fit(p, 2, &t, &m, NULL), 0);
    cr_assert_float_eq(m.theta[1], 18, 1e-9);
    cr_assert_float_eq(m.theta[0] + m.theta[3], 12, 1e-9);
    cr_assert_float_eq(clarity_ernest_predict(&m, 100, 8), 237, 1e-9);
    clarity_ernest_model_free(&m);
}

Test(peridot, t13_mape_excludes_references)
{
    const double pred[] = {29.5, 49, 110, 90}, actual[] = {30, 48, 100, 100};
    const bool ref[] = {true, true, false, false};
    cr_assert_float_eq(clarity_peridot_mape(pred, actual, ref, 4), 10, 1e-12);
    cr_assert(isnan(clarity_peridot_mape(pred, actual, ref, 2)));
}

/* Beyond the paper: a fixed partition count whose time grows with the data */
Test(peridot, fixed_partitions_scale_with_data_per_task)
{
    const struct st a[] = {{0, "load", 1200, 0, 20000}, {1, "save", 1, 20010, 21010}};
    const struct st b[] = {{0, "load", 1200, 0, 40000}, {1, "save", 1, 40010, 41010}};
    struct peridot_ref r[2] = {mkref(a, 2, 22000, 2, 40), mkref(b, 2, 42000, 4, 40)};
    struct peridot_options o;
    clarity_peridot_options_default(&o);
    struct peridot_model m;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_OK);
    cr_assert_eq(m.groups[0].kind, PERIDOT_FIXED_DATA_SCALED);
    cr_assert_float_eq(m.groups[0].elasticity, 1, 1e-12);
    cr_assert_eq(m.groups[1].kind, PERIDOT_FIXED);
    cr_assert_not(m.all_fixed);
    cr_assert_float_eq(m.fixed_hat_ms, 2000, 1e-9);
    /* 10x the data: 10x the first group; twice the cores: half of it */
    cr_assert_float_eq(predict(&m, 20, 40), 200000 + 2000, 1e-6);
    cr_assert_float_eq(predict(&m, 20, 80), 100000 + 2000, 1e-6);
    clarity_peridot_model_free(&m);
    o.fixed = PERIDOT_FIXED_CONSTANT;        /* the paper predicts no growth at all */
    cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_OK);
    cr_assert(m.all_fixed);
    cr_assert_float_eq(predict(&m, 20, 40), 32000, 1e-6);
    clarity_peridot_model_free(&m);
    o.scale_fixed = true;                    /* --scale-fixed: wave-scaled with cores only */
    cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_OK);
    cr_assert_eq(m.groups[0].kind, PERIDOT_FIXED_WAVE_SCALED);
    cr_assert_float_eq(predict(&m, 20, 80), 15000 + 2000, 1e-6);
    clarity_peridot_model_free(&m);
    clarity_peridot_ref_free(&r[0]);
    clarity_peridot_ref_free(&r[1]);
}

Test(peridot, missing_sizes_are_usage_errors)
{
    const struct st a[] = {{0, "x", 3, 0, 10}};
    struct peridot_ref r[2] = {mkref(a, 1, 20, 0, 4), mkref(a, 1, 20, 2, 0)};
    struct peridot_options o = paper();
    struct peridot_model m;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_EUSAGE);
    cr_assert(strstr(err.msg, "--ref-size"));
    r[0].data_size = 1;
    cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_EUSAGE);
    cr_assert(strstr(err.msg, "--ref-cores"));
    cr_assert_eq(clarity_peridot_fit(r, 1, &o, &m, &err), CLARITY_EUSAGE);
    clarity_peridot_ref_free(&r[0]);
    clarity_peridot_ref_free(&r[1]);
}
