/* LADRA on worked numbers derived from the paper (test names tN_M number them): detection
 * (t3), smoothing (t4), factors (t5), rules (t6), evaluation helpers and speculation (t8). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/anomalies.h"

#define EPS 1e-3

static size_t flagged(const double *d, size_t n, bool sample, double *thr)
{
    *thr = clarity_ladra_threshold(d, n, 1.5, sample, NULL, NULL);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += d[i] > *thr;
    return k;
}

Test(ladra_detect, t3_1_one_outlier_in_ten)
{
    double d[10] = {10, 10, 10, 10, 10, 10, 10, 10, 10, 40}, m, s, thr;
    clarity_ladra_threshold(d, 10, 1.5, false, &m, &s);
    cr_assert_float_eq(m, 13, EPS);
    cr_assert_float_eq(s, 9, EPS);
    cr_assert_eq(flagged(d, 10, false, &thr), 1);
    cr_assert_float_eq(thr, 26.5, EPS);
    cr_assert(d[9] > thr);
    cr_assert_eq(flagged(d, 10, true, &thr), 1);
    cr_assert_float_eq(thr, 27.23, 5e-3);
}

Test(ladra_detect, t3_2_tiny_set_flags_nothing)
{
    double d[3] = {10, 10, 40}, thr, s;
    clarity_ladra_threshold(d, 3, 1.5, false, NULL, &s);
    cr_assert_float_eq(s, 14.142, EPS);
    cr_assert_eq(flagged(d, 3, false, &thr), 0);
    cr_assert_float_eq(thr, 41.21, 5e-3);
    cr_assert_eq(flagged(d, 3, true, &thr), 0);
    cr_assert_float_eq(thr, 45.98, 5e-3);
}

Test(ladra_detect, t3_3_two_outliers)
{
    double d[12] = {10, 11, 9, 10, 12, 10, 11, 9, 10, 30, 28, 10}, m, s, thr;
    clarity_ladra_threshold(d, 12, 1.5, false, &m, &s);
    cr_assert_float_eq(m, 13.333, EPS);
    cr_assert_float_eq(s, 7.063, EPS);
    cr_assert_eq(flagged(d, 12, false, &thr), 2);
    cr_assert_float_eq(thr, 23.93, 5e-3);
}

/* T3.4: first-wave tasks of 40 s, later ones of 10 s: separate thresholds, nothing flagged. */
Test(ladra_detect, t3_4_first_wave_apart)
{
    struct ladra_task t[24];
    memset(t, 0, sizeof t);
    for (int i = 0; i < 24; i++) {
        t[i].row = (uint32_t)i, t[i].host = i % 4, t[i].exec = i % 4, t[i].locality = CLARITY_LOC_NODE_LOCAL;
        if (i < 8) t[i].start_ms = 0, t[i].end_ms = 40000;
        else t[i].start_ms = 40000 + (i - 8) / 8 * 10000, t[i].end_ms = t[i].start_ms + 10000;
    }
    struct ladra_input in = {.tasks = t, .ntasks = 24, .nhosts = 4, .nstages = 1, .app_end_ms = 70000};
    struct ladra_options o;
    clarity_ladra_options_default(&o);
    struct ladra_period *p;
    size_t np;
    cr_assert_eq(clarity_ladra_detect(&in, &o, &p, &np, NULL), 0);
    for (int i = 0; i < 24; i++) {
        cr_assert_eq(t[i].initial, i < 8, "task %d", i);
        cr_assert(!t[i].raw, "task %d flagged", i);
    }
    cr_assert_eq(np, 0);
    free(p);
    /* pooled, the 40 s tasks would be flagged: mean 20, sd 14.14, threshold 41.2 > 40? no; check the rest */
    double d[24];
    for (int i = 0; i < 24; i++) d[i] = (double)(t[i].end_ms - t[i].start_ms);
    double thr;
    cr_assert_eq(flagged(d + 8, 16, false, &thr), 0);
}

static void smooth_eq(const uint8_t *in, size_t n, bool strict, const uint8_t *want)
{
    uint8_t out[16];
    clarity_ladra_smooth(in, out, n, strict);
    for (size_t i = 0; i < n; i++) cr_assert_eq(out[i], want[i], "index %zu: %d, want %d", i, out[i], want[i]);
}

Test(ladra_smooth, t4_1_isolated_one_removed)
{
    uint8_t in[11] = {0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0}, want[11] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0};
    smooth_eq(in, 11, false, want);
    smooth_eq(in, 11, true, want);
}

Test(ladra_smooth, t4_2_edges)
{
    uint8_t in[5] = {1, 1, 0, 1, 1}, strict[5] = {0, 1, 1, 1, 0}, edge[5] = {1, 1, 1, 1, 1};
    smooth_eq(in, 5, true, strict);
    smooth_eq(in, 5, false, edge);
}

Test(ladra_smooth, t4_3_edges)
{
    uint8_t in[10] = {0, 1, 1, 0, 1, 1, 0, 0, 0, 0};
    uint8_t strict[10] = {0, 0, 1, 1, 1, 0, 0, 0, 0, 0}, edge[10] = {1, 0, 1, 1, 1, 0, 0, 0, 0, 0};
    smooth_eq(in, 10, true, strict);
    smooth_eq(in, 10, false, edge);
}

/* T4.4: a run of smoothed 1s gives [min start, max finish]; one vector per host, so a
 * victim's abnormal tasks are not diluted by the other hosts. */
Test(ladra_smooth, t4_4_period_bounds_per_host)
{
    struct ladra_task t[40];
    memset(t, 0, sizeof t);
    for (int i = 0; i < 40; i++) {
        int h = i % 4, k = i / 4;
        t[i].row = (uint32_t)i, t[i].host = h, t[i].exec = h, t[i].locality = CLARITY_LOC_NODE_LOCAL;
        t[i].start_ms = 2000 + k * 1000;   /* none initial except k == 0 */
        t[i].end_ms = t[i].start_ms + (h == 2 && k >= 4 && k <= 7 ? 5000 : 1000);
    }
    struct ladra_input in = {.tasks = t, .ntasks = 40, .nhosts = 4, .nstages = 1, .app_end_ms = 20000};
    struct ladra_options o;
    clarity_ladra_options_default(&o);
    struct ladra_period *p;
    size_t np;
    cr_assert_eq(clarity_ladra_detect(&in, &o, &p, &np, NULL), 0);
    cr_assert_eq(np, 1);
    cr_assert_eq(p[0].host, 2);
    cr_assert_eq(p[0].tasks, 4);
    cr_assert_eq(p[0].start_ms, 2000 + 4 * 1000);
    cr_assert_eq(p[0].end_ms, 2000 + 7 * 1000 + 5000);
    /* whether it matters: 4 tasks x (5000 - median 1000) beyond the median, of 36 x 1000 +
     * 4 x 5000 in the stage; host 2 ran 8 tasks in the later set (k = 0, 1 started within 1 s
     * of the first: the first wave); 1 of the 4 hosts slow */
    cr_assert_float_eq(p[0].excess_ms, 16000, 1e-9);
    cr_assert_float_eq(p[0].stage_median_ms, 1000, 1e-9);
    cr_assert_float_eq(p[0].stage_task_ms, 56000, 1e-9);
    cr_assert_eq(p[0].host_set_tasks, 8);
    cr_assert_eq(p[0].stage_hosts, 4);
    cr_assert_eq(p[0].stage_hosts_with_period, 1);
    cr_assert(p[0].matters);
    free(p);
}

/* A slowdown on every host of the stage is the stage's own (warm-up, skew), not a host's: two
 * hosts of 20 tasks each, both slow at k = 6..8, give a period each (3 tasks, 3 x 4000 ms beyond
 * the median), and neither matters; --all-periods keeps them. */
Test(ladra_smooth, period_on_every_host_does_not_matter)
{
    struct ladra_task t[40];
    memset(t, 0, sizeof t);
    for (int i = 0; i < 40; i++) {
        int h = i % 2, k = i / 2;
        t[i].row = (uint32_t)i, t[i].host = h, t[i].exec = h, t[i].locality = CLARITY_LOC_NODE_LOCAL;
        t[i].start_ms = 2000 + k * 1000;
        t[i].end_ms = t[i].start_ms + (k >= 6 && k <= 8 ? 5000 : 1000);
    }
    struct ladra_input in = {.tasks = t, .ntasks = 40, .nhosts = 2, .nstages = 1, .app_end_ms = 30000};
    struct ladra_options o;
    clarity_ladra_options_default(&o);
    struct ladra_period *p;
    size_t np;
    cr_assert_eq(clarity_ladra_detect(&in, &o, &p, &np, NULL), 0);
    cr_assert_eq(np, 2);
    for (size_t k = 0; k < np; k++) {
        cr_assert_eq(p[k].tasks, 3);
        cr_assert_float_eq(p[k].excess_ms, 12000, 1e-9);
        cr_assert_float_eq(p[k].stage_task_ms, 64000, 1e-9);
        cr_assert_eq(p[k].stage_hosts, 2);
        cr_assert_eq(p[k].stage_hosts_with_period, 2);
        cr_assert_not(p[k].matters);
    }
    free(p);
    o.all_periods = true;
    cr_assert_eq(clarity_ladra_detect(&in, &o, &p, &np, NULL), 0);
    cr_assert(np == 2 && p[0].matters && p[1].matters);
    free(p);
}

/* The rule's edges, one condition at a time from a period that just matters. */
Test(ladra_detect, period_matters_thresholds)
{
    struct ladra_options o;
    clarity_ladra_options_default(&o);
    cr_assert_float_eq(o.min_share, 0.006, 1e-12);
    cr_assert_float_eq(o.min_excess_ms, 1000, 1e-12);
    o.min_share = 0.01;   /* exact in binary arithmetic against 100000: 1000 */
    const struct ladra_period ok = {.excess_ms = 1000, .stage_median_ms = 100, .stage_task_ms = 100000,
                                    .host_set_tasks = LADRA_MIN_HOST_TASKS, .stage_hosts = 2, .stage_hosts_with_period = 1};
    cr_assert(clarity_ladra_period_matters(&ok, &o));
    struct ladra_period p = ok;
    p.excess_ms = 999.5;          /* under 1 s */
    cr_assert_not(clarity_ladra_period_matters(&p, &o));
    p = ok, p.stage_task_ms = 100001;   /* just under 1% of the stage */
    cr_assert_not(clarity_ladra_period_matters(&p, &o));
    p = ok, p.host_set_tasks = LADRA_MIN_HOST_TASKS - 1;   /* a lone straggler's host */
    cr_assert_not(clarity_ladra_period_matters(&p, &o));
    p = ok, p.stage_hosts = 1, p.stage_hosts_with_period = 1;   /* one host: nothing to compare with */
    cr_assert_not(clarity_ladra_period_matters(&p, &o));
    p = ok, p.stage_hosts_with_period = 2;   /* every host of the stage slow */
    cr_assert_not(clarity_ladra_period_matters(&p, &o));
    p = ok, p.stage_hosts = 5, p.stage_hosts_with_period = 4;   /* all but one */
    cr_assert(clarity_ladra_period_matters(&p, &o));
    o.all_periods = true;         /* the paper: every period */
    p = ok, p.excess_ms = 0, p.stage_hosts = 1, p.host_set_tasks = 1;
    cr_assert(clarity_ladra_period_matters(&p, &o));
}

Test(ladra_factors, t5_1_dar)
{
    double c[6] = {10, 20, 20, 20, 20, 20}, e[6] = {5, 5, 5, 5, 5, 5};
    bool cl = false;
    cr_assert_float_eq(clarity_ladra_dar(c, 6, 0, &cl), 2.0, 1e-9);
    cr_assert_float_eq(clarity_ladra_dar(e, 6, 0, &cl), 1.0, 1e-9);
    cr_assert(!cl);
    double z[3] = {0, 4, 4};
    cr_assert_float_eq(clarity_ladra_dar(z, 3, 0, &cl), 4.0, 1e-9);   /* a zero count clamps to 1 task */
    cr_assert(cl);
}

Test(ladra_factors, t5_2_dad)
{
    double a[6] = {10, 5, 5, 5, 5, 5};
    bool cl = false;
    cr_assert_float_eq(clarity_ladra_dad(a, 6, 0, &cl), 2.0, 1e-9);
}

Test(ladra_factors, t5_3_dco)
{
    double ra[2] = {0.01, 0.02}, ua[2] = {0.03, 0.02}, sa[2] = {0.01, 0.02};
    double rb[2] = {0.10, 0.05}, ub[2] = {0.04, 0.04}, sb[2] = {0.01, 0.01};
    double a = clarity_ladra_dco_node(ra, ua, sa, 2), b = clarity_ladra_dco_node(rb, ub, sb, 2);
    cr_assert_float_eq(a, 0.375, 1e-9);
    cr_assert_float_eq(b, 1.5, 1e-9);
    cr_assert_float_eq(fmax(a, b), 1.5, 1e-9);
    double r0[1] = {0.01}, z[1] = {0};
    cr_assert_eq(clarity_ladra_dco_node(r0, z, z, 1), -1);   /* records with user+sys < 0.01 s are skipped */
}

Test(ladra_factors, t5_4_mcs)
{
    double x[3] = {0, 10, 20}, yn[3] = {100, 300, 500}, yv[3] = {100, 150, 200};
    double an = clarity_ladra_trapezoid(x, yn, 3), av = clarity_ladra_trapezoid(x, yv, 3);
    cr_assert_float_eq(an, 6000, 1e-9);
    cr_assert_float_eq(av, 3000, 1e-9);
    cr_assert_float_eq(an / av, 2.0, 1e-9);
}

Test(ladra_factors, t5_5_ars)
{
    double h[6] = {.5, .5, .5, .5, .5, .5}, z[6] = {0, .5, .5, .5, .5, .5}, one[6] = {1, 1, 1, 1, 1, 1};
    cr_assert_float_eq(clarity_ladra_ars(h, 6), 1.09829, 1e-5);
    cr_assert_float_eq(clarity_ladra_ars(z, 6), 1.0, 1e-12);
    cr_assert_float_eq(clarity_ladra_ars(one, 6), 403.429, 1e-3);
}

Test(ladra_factors, t5_6_dmc)
{
    double x1[3] = {0, 10, 40}, y1[3] = {.2, .3, .3};
    double x2[3] = {0, 10, 20}, y2[3] = {.2, .4, .6};
    double x3[3] = {0, 5, 15}, y3[3] = {.2, .25, .35};
    double h1 = clarity_ladra_dmc_node(x1, y1, 3), h2 = clarity_ladra_dmc_node(x2, y2, 3), h3 = clarity_ladra_dmc_node(x3, y3, 3);
    cr_assert_float_eq(h1, 30, 1e-9);
    cr_assert_float_eq(h2, 9.80199, 1e-5);
    cr_assert_float_eq(h3, 9.90050, 1e-5);
    cr_assert_float_eq(h1 / h2, 3.06060, 1e-5);
    cr_assert_float_eq(fmax(h1, fmax(h2, h3)) / fmin(h1, fmin(h2, h3)), 3.06060, 1e-5);
    cr_assert_eq(clarity_ladra_dmc_node(x1, y1, 1), -1);   /* a node with fewer than 2 records has no H */
}

/* T5.7 DLD and T5.8 balanced run through the whole factor computation. */
/* Task `row` (its id too) of duration d; m[row] gets run and CPU time d, no GC, no fetch wait. */
static struct ladra_task mk(struct ladra_metrics *m, uint32_t row, int32_t stage, int32_t host, int64_t s, int64_t d)
{
    m[row] = (struct ladra_metrics){.tid = row, .run_ms = d, .cpu_ms = d};
    return (struct ladra_task){.row = row, .stage = stage, .host = host, .exec = host, .start_ms = s, .end_ms = s + d,
                               .locality = CLARITY_LOC_NODE_LOCAL};
}

Test(ladra_factors, t5_7_dld)
{
    /* victim host 0: first tasks 6 s and 8 s; others (1, 2): means 3 s and 4 s */
    struct ladra_metrics m[6];
    struct ladra_task t[] = {mk(m, 0, 0, 0, 0, 6000), mk(m, 1, 0, 1, 0, 2000), mk(m, 2, 0, 2, 0, 4000),
                             mk(m, 3, 1, 0, 10000, 8000), mk(m, 4, 1, 1, 10000, 4000), mk(m, 5, 1, 2, 10000, 4000)};
    struct ladra_input in = {.tasks = t, .ntasks = 6, .metrics = m, .nhosts = 3, .nstages = 2, .app_end_ms = 20000};
    struct ladra_factors f;
    cr_assert_eq(clarity_ladra_factors_compute(&in, NULL, 0, 0, &f, NULL), 0);
    cr_assert_float_eq(f.f[LADRA_DLD], 2.0, 1e-9);
}

Test(ladra_factors, t5_8_balanced_run)
{
    struct ladra_task t[24];
    struct ladra_metrics m[24];
    for (int i = 0; i < 24; i++) t[i] = mk(m, (uint32_t)i, i / 12, i % 4, (i / 12) * 10000 + (i % 12) / 4 * 2000, 2000);
    struct ladra_gc g[12];
    for (int i = 0; i < 12; i++)
        g[i] = (struct ladra_gc){.host = i / 3, .ts_ms = (i % 3) * 5000, .heap_after_kb = 100 + 50 * (i % 3),
                                 .heap_cap_kb = 1000, .user_s = .02, .sys_s = .02, .real_s = .04};
    struct ladra_input in = {.tasks = t, .ntasks = 24, .metrics = m, .nhosts = 4, .nstages = 2, .gc = g, .ngc = 12,
                             .app_end_ms = 20000};
    struct ladra_options o;
    clarity_ladra_options_default(&o);
    struct ladra_period *p;
    size_t np;
    cr_assert_eq(clarity_ladra_detect(&in, &o, &p, &np, NULL), 0);
    cr_assert_eq(np, 0);
    struct ladra_factors f;
    cr_assert_eq(clarity_ladra_factors_compute(&in, p, np, -1, &f, NULL), 0);
    int ones[] = {LADRA_DAR, LADRA_DAD, LADRA_MCS, LADRA_ARS, LADRA_DMC, LADRA_DLD};
    for (size_t k = 0; k < sizeof ones / sizeof *ones; k++)
        cr_assert_float_eq(f.f[ones[k]], 1.0, 1e-9, "%s = %g", clarity_ladra_factor_name(ones[k]), f.f[ones[k]]);
    cr_assert_float_eq(f.f[LADRA_DCO], 1.0, 1e-9);
    free(p);
}

Test(ladra_rules, t6_1_all_ones)
{
    double f[7] = {1, 1, 1, 1, 1, 1, 1}, s[4], p[4];
    clarity_ladra_rules(f, s, p);
    for (int c = 0; c < 4; c++) {
        cr_assert_float_eq(s[c], 1.0, 1e-12);
        cr_assert_float_eq(p[c], 0, 1e-12);
    }
}

Test(ladra_rules, t6_2_cpu_first)
{
    double f[7] = {2, 2, 1, 1, 1, 1, 1}, s[4], p[4];
    clarity_ladra_rules(f, s, p);
    cr_assert_float_eq(s[0], 1.6, 1e-12);
    cr_assert_float_eq(p[0], 0.375, 1e-12);
    cr_assert_float_eq(s[1], 1.5, 1e-12);
    cr_assert_float_eq(p[1], 0.3333, 1e-4);
    cr_assert_float_eq(s[2], 1.1, 1e-12);
    cr_assert_float_eq(p[2], 0.0909, 1e-4);
    cr_assert_float_eq(p[3], 0, 1e-12);
}

Test(ladra_rules, t6_3_network_first)
{
    double f[7] = {1, 1.2, 1, 1, 1.0983, 3.0606, 1}, s[4], p[4];
    clarity_ladra_rules(f, s, p);
    cr_assert_float_eq(s[2], 2.08962, 1e-5);
    cr_assert_float_eq(p[2], 0.5214, 1e-4);
    cr_assert_float_eq(s[0], 1.06, 1e-12);
    cr_assert_float_eq(p[0], 0.0566, 1e-4);
    cr_assert_float_eq(s[1], 1.05, 1e-12);
    cr_assert_float_eq(p[1], 0.0476, 1e-4);
    cr_assert_float_eq(p[3], 0, 1e-12);
}

Test(ladra_eval, t8_1_rates)
{
    cr_assert_float_eq(clarity_ladra_tpr(48, 2), 0.96, 1e-12);
    cr_assert_float_eq(clarity_ladra_fpr(3, 47), 0.06, 1e-12);
    cr_assert_float_eq(clarity_ladra_fpr_paper(3, 48, 47), 0.0316, 1e-4);
    cr_assert_float_eq(clarity_ladra_precision(48, 3), 48.0 / 51, 1e-12);
}

Test(ladra_eval, t8_3_speculation)
{
    double d[10] = {10, 10, 10, 10, 10, 10, 10, 10, 10, 40}, thr;
    uint8_t fl[10];
    size_t flagged = 0;
    cr_assert_eq(clarity_ladra_speculation(d, 10, 0.75, 1.5, 0, fl, &thr, &flagged, NULL), 0);
    cr_assert_eq(flagged, 1);
    cr_assert_float_eq(thr, 15, 1e-12);
    cr_assert(fl[9]);
    double n[8] = {10, 10, 12, 12, 13, 13, 14, 14};
    uint8_t fn[8];
    cr_assert_eq(clarity_ladra_speculation(n, 8, 0.75, 1.5, 0, fn, &thr, &flagged, NULL), 0);
    cr_assert_eq(flagged, 0);
    cr_assert_float_eq(thr, 18, 1e-12);
}
