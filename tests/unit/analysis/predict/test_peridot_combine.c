/* The combination of PERIDOT with the per-group affine fit, and the interval rule, on worked
 * numbers (peridot_combine.c): two references growing slower than the data (PERIDOT answers),
 * two growing faster (non-linear: the affine fit answers), three references weighted by their
 * held-out error on the largest, and the interval in each case. */
#include <criterion/criterion.h>
#include <math.h>
#include "clarity/predict.h"
#include "peridot_helpers.h"

/* the nearness weight of a reference of size Dr for a target of size D */
static double near(double D, double Dr)
{
    double l = fabs(log(D / Dr));
    return 1 / ((1 + l) * (1 + l));
}

static void fit(struct peridot_ref *r, size_t n, struct peridot_model *m)
{
    struct peridot_options o;
    clarity_peridot_options_default(&o);
    struct clarity_error err = {0};
    cr_assert_eq(clarity_peridot_fit(r, n, &o, m, &err), CLARITY_OK, "%s", err.msg);
}

static struct peridot_combination at(const struct peridot_model *m, double D, double E, double *peridot)
{
    struct peridot_prediction p;
    cr_assert_eq(clarity_peridot_predict(m, D, E, &p, NULL), 0);
    struct peridot_combination c = p.comb;
    *peridot = p.total_ms;
    clarity_peridot_prediction_free(&p);
    return c;
}

/* map (variable: 8 and 16 tasks on 5 cores) then a one-task collect; F = 10 s in both */
Test(peridot_combine, two_refs_slower_than_data_answer_peridot)
{
    const struct st a[] = {{0, "map", 8, 0, 20000}, {1, "collect", 1, 22000, 24000}};
    const struct st b[] = {{0, "map", 16, 0, 38000}, {1, "collect", 1, 40000, 42000}};
    struct peridot_ref r[2] = {mkref(a, 2, 30000, 1, 5), mkref(b, 2, 48000, 2, 5)};
    struct peridot_model m;
    fit(r, 2, &m);
    /* d ln T / d ln D = ln(48/30) / ln 2 = 0.678 < 1.25 */
    cr_assert_float_eq(m.app_elasticity, log(48.0 / 30) / log(2), 1e-9);
    cr_assert(!m.nonlinear);
    double P;
    struct peridot_combination c = at(&m, 10, 20, &P);
    /* PERIDOT: 80 tasks / 20 cores = 4 waves x mean wave (20/2 + 38/4) / 2 = 9.75 s -> 39 s + F 10 s */
    cr_assert_float_eq(P, 49000, 1e-6);
    /* the candidate weights the wave times 10 and 9.5 s by nearness to 10 units: 0.0917 and
     * 0.1469 -> 9.692 s, 4 waves + F = 48.77 s */
    double W = (near(10, 1) * 10000 + near(10, 2) * 9500) / (near(10, 1) + near(10, 2));
    cr_assert_float_eq(c.peridot_near_ms, 4 * W + 10000, 1e-6);
    cr_assert_float_eq(c.peridot_near_ms, 48768.7, 0.1);
    /* affine: 20 s + 18 s/unit x 9 = 182 s at 5 cores; 20 cores take 4 of PERIDOT's 16 waves:
     * x 39/156 = 45.5 s, + F = 55.5 s */
    cr_assert_float_eq(c.affine_ms, 55500, 1e-6);
    /* not non-linear: the mean of both */
    cr_assert_float_eq(c.point_ms, (c.peridot_near_ms + 55500) / 2, 1e-6);
    cr_assert_eq(c.rule, PERIDOT_INTERVAL_TWO_REFS);
    /* hull [48.77, 55.5] s widened by 10% */
    cr_assert_float_eq(c.low_ms, c.peridot_near_ms * 0.9, 1e-6);
    cr_assert_float_eq(c.high_ms, 55500 * 1.1, 1e-6);
    cr_assert_float_eq(c.extrapolation, 5, 1e-9);
    cr_assert(c.far);   /* 10 units is 5x the largest reference */
    clarity_peridot_model_free(&m);
    clarity_peridot_ref_free(&r[0]);
    clarity_peridot_ref_free(&r[1]);
}

Test(peridot_combine, two_refs_faster_than_data_answer_affine)
{
    const struct st a[] = {{0, "map", 8, 0, 20000}, {1, "collect", 1, 22000, 24000}};
    const struct st b[] = {{0, "map", 16, 0, 80000}, {1, "collect", 1, 82000, 84000}};
    struct peridot_ref r[2] = {mkref(a, 2, 30000, 1, 5), mkref(b, 2, 90000, 2, 5)};
    struct peridot_model m;
    fit(r, 2, &m);
    cr_assert(m.nonlinear);   /* ln 3 / ln 2 = 1.585 > 1.25 */
    double P;
    struct peridot_combination c = at(&m, 4, 5, &P);
    /* PERIDOT: 32 tasks = 7 waves x (10 + 20) / 2 = 105 s + 10 s; affine: 80 + 60 x 2 = 200 s + 10 s */
    cr_assert_float_eq(P, 115000, 1e-6);
    double W = (near(4, 1) * 10000 + near(4, 2) * 20000) / (near(4, 1) + near(4, 2));   /* 16.65 s */
    cr_assert_float_eq(c.peridot_near_ms, 7 * W + 10000, 1e-6);
    cr_assert_float_eq(c.affine_ms, 210000, 1e-6);
    cr_assert_float_eq(c.point_ms, 210000, 1e-6);
    cr_assert(c.nonlinear);
    cr_assert_float_eq(c.low_ms, c.peridot_near_ms * 0.9, 1e-6);
    cr_assert_float_eq(c.high_ms, 210000 * 1.1, 1e-6);
    cr_assert(!c.far);
    /* --peridot-only: PERIDOT answers, the interval stays */
    struct peridot_options o;
    clarity_peridot_options_default(&o);
    o.no_combine = true;
    struct peridot_model m2;
    cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m2, NULL), CLARITY_OK);
    c = at(&m2, 4, 5, &P);
    cr_assert_float_eq(c.point_ms, 115000, 1e-6);
    cr_assert_float_eq(c.low_ms, 115000 * 0.9, 1e-6);   /* the hull includes Eq. 4 */
    cr_assert_float_eq(c.high_ms, 210000 * 1.1, 1e-6);
    clarity_peridot_model_free(&m2);
    clarity_peridot_model_free(&m);
    clarity_peridot_ref_free(&r[0]);
    clarity_peridot_ref_free(&r[1]);
}

/* spans 20, 38, 56 s at 1, 2, 3 units: exactly 2 + 18 D */
Test(peridot_combine, three_refs_weighted_by_holdout)
{
    const struct st a[] = {{0, "map", 8, 0, 20000}, {1, "collect", 1, 22000, 24000}};
    const struct st b[] = {{0, "map", 16, 0, 38000}, {1, "collect", 1, 40000, 42000}};
    const struct st d[] = {{0, "map", 24, 0, 56000}, {1, "collect", 1, 58000, 60000}};
    struct peridot_ref r[3] = {mkref(a, 2, 30000, 1, 5), mkref(b, 2, 48000, 2, 5), mkref(d, 2, 66000, 3, 5)};
    struct peridot_model m;
    fit(r, 3, &m);
    double P;
    struct peridot_combination c = at(&m, 6, 5, &P);
    cr_assert_eq(c.rule, PERIDOT_INTERVAL_HOLDOUT);
    /* the largest (3 units, 66 s) from the others: affine exact (error 0 + 0.1%), PERIDOT
     * 24 tasks = 5 waves x (10 and 9.5 s weighted 0.227 and 0.506 = 9.655 s) + 10 s = 58.27 s */
    double W3 = (near(3, 1) * 10000 + near(3, 2) * 9500) / (near(3, 1) + near(3, 2));
    double eP = fabs(5 * W3 + 10000 - 66000) / 66000 + 0.001, eA = 0.001;
    cr_assert_float_eq(eP, 0.118, 0.001);
    cr_assert_float_eq(c.holdout_err_peridot, eP, 1e-9);
    cr_assert_float_eq(c.holdout_err_affine, eA, 1e-9);
    double wP = eA * eA / (eA * eA + eP * eP);
    cr_assert_float_eq(c.weight_peridot, wP, 1e-9);
    /* at 6 units: PERIDOT 48 tasks = 10 waves x (10 + 9.5 + 11.2) / 3 + 10 s = 112.333 s (Eq. 4),
     * the candidate weights the three wave times by nearness to 6; affine 2 + 108 + 10 = 120 s */
    cr_assert_float_eq(P, 10 * (10000 + 9500 + 11200) / 3.0 + 10000, 1e-6);
    double W6 = (near(6, 1) * 10000 + near(6, 2) * 9500 + near(6, 3) * 11200) / (near(6, 1) + near(6, 2) + near(6, 3));
    cr_assert_float_eq(c.peridot_near_ms, 10 * W6 + 10000, 1e-6);
    cr_assert_float_eq(c.affine_ms, 120000, 1e-6);
    cr_assert_float_eq(c.point_ms, wP * c.peridot_near_ms + (1 - wP) * 120000, 1e-6);
    /* hull of PERIDOT, affine and the answer +- 0.1%, widened by 10% */
    cr_assert_float_eq(c.low_ms, c.peridot_near_ms * 0.9, 1e-6);
    cr_assert_float_eq(c.high_ms, c.point_ms * 1.001 * 1.1, 1e-6);
    clarity_peridot_model_free(&m);
    for (int i = 0; i < 3; i++) clarity_peridot_ref_free(&r[i]);
}

Test(peridot_combine, ernest_interval_rule)
{
    /* a model whose worst left-out error is 8%, trained up to scale 1 on 4 machines */
    struct ernest_model m = {0};
    m.loo.done = true;
    m.loo.max_pct = 8;
    m.max_scale = 1;
    m.max_machines = 4;
    double lo, hi;
    clarity_ernest_interval(&m, 0.5, 4, 100, &lo, &hi);   /* inside: +-8% */
    cr_assert_float_eq(lo, 92, 1e-9);
    cr_assert_float_eq(hi, 108, 1e-9);
    clarity_ernest_interval(&m, 2, 4, 100, &lo, &hi);     /* 2x beyond: 8% x (1 + ln 2) */
    cr_assert_float_eq(hi, 100 * (1 + 0.08 * (1 + log(2))), 1e-9);
    m.loo.max_pct = 1;                                    /* floor 5% */
    clarity_ernest_interval(&m, 1, 4, 100, &lo, &hi);
    cr_assert_float_eq(lo, 95, 1e-9);
}
