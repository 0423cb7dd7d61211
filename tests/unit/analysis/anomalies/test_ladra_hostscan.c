/* The cross-stage host scan (ladra_hostscan.c) on worked numbers: 4 stages on 4 hosts, 4
 * tasks of 1000 ms per host and stage, one host's tasks 1500 ms. Per stage the log durations
 * are 12 x ln 1000 and 4 x ln 1500 (d = ln 1.5 = 0.405465 apart), so their sd is
 * d x sqrt(0.25 x 0.75) = 0.175572 and the slow host's residual against the other three
 * hosts' mean log duration is d / sd = 1 / sqrt(0.1875) = 2.309401 per task; a normal host's
 * is -(4/12) d / sd = -0.769800 (the slow host is among its others). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/anomalies.h"

/* nst stages x nh hosts x 4 tasks; tasks of host `slow` in stages [s0, s1) last slow_ms. */
static size_t build(struct ladra_task *t, int nst, int nh, int slow, int s0, int s1, int64_t slow_ms)
{
    size_t n = 0;
    for (int s = 0; s < nst; s++)
        for (int h = 0; h < nh; h++)
            for (int k = 0; k < 4; k++) {
                int64_t d = h == slow && s >= s0 && s < s1 ? slow_ms : 1000;
                int64_t st = (int64_t)s * 10000 + k * 2000;
                t[n] = (struct ladra_task){.start_ms = st, .end_ms = st + d, .row = (uint32_t)n, .stage = s,
                                           .host = h, .exec = h, .locality = CLARITY_LOC_NODE_LOCAL};
                n++;
            }
    return n;
}

Test(ladra_hostscan, slow_host_across_four_stages)
{
    struct ladra_task t[64];
    size_t n = build(t, 4, 4, 2, 0, 4, 1500);
    struct ladra_input in = {.tasks = t, .ntasks = n, .nhosts = 4, .nstages = 4};
    struct ladra_hostscan_options o;
    clarity_ladra_hostscan_default(&o);
    struct ladra_host_period *p;
    size_t np;
    cr_assert_eq(clarity_ladra_hostscan(&in, &o, &p, &np, NULL), 0);
    /* only the slow host has a stretch (the others' residuals are all negative) */
    cr_assert_eq(np, 1);
    cr_assert_eq(p[0].host, 2);
    cr_assert_eq(p[0].tasks, 16);
    cr_assert_eq(p[0].stage_runs, 4);
    cr_assert_float_eq(p[0].z, 16 * 2.309401 / 4, 1e-4);   /* 9.2376 */
    cr_assert_float_eq(p[0].slowdown, 1.5, 1e-9);
    cr_assert_float_eq(p[0].excess_ms, 16 * 500.0, 1e-6);
    cr_assert_float_eq(p[0].run_task_ms, 48 * 1000.0 + 16 * 1500.0, 1e-6);
    cr_assert_eq(p[0].start_ms, 0);
    cr_assert_eq(p[0].end_ms, 3 * 10000 + 3 * 2000 + 1500);
    cr_assert(p[0].matters);
    free(p);
}

Test(ladra_hostscan, one_stage_is_not_enough_evidence)
{
    /* the same slowdown in one stage of four: 4 tasks, z = 4 x 2.309401 / 2 = 4.62 < 5 */
    struct ladra_task t[64];
    size_t n = build(t, 4, 4, 1, 2, 3, 1500);
    struct ladra_input in = {.tasks = t, .ntasks = n, .nhosts = 4, .nstages = 4};
    struct ladra_hostscan_options o;
    clarity_ladra_hostscan_default(&o);
    struct ladra_host_period *p;
    size_t np;
    cr_assert_eq(clarity_ladra_hostscan(&in, &o, &p, &np, NULL), 0);
    cr_assert_eq(np, 1);
    cr_assert_eq(p[0].host, 1);
    cr_assert_eq(p[0].tasks, 4);
    cr_assert_float_eq(p[0].z, 4.618802, 1e-4);
    cr_assert(!p[0].matters);
    /* its z is what fails: with a bound of 4.5 and 4 tasks allowed it would matter */
    o.min_z = 4.5, o.min_tasks = 4;
    cr_assert(clarity_ladra_host_period_matters(&p[0], &o));
    free(p);
}

Test(ladra_hostscan, two_hosts_compare_nothing)
{
    /* with two hosts one cannot tell a slow host from a fast one: no residual, no stretch */
    struct ladra_task t[32];
    size_t n = build(t, 4, 2, 0, 0, 4, 1500);
    struct ladra_input in = {.tasks = t, .ntasks = n, .nhosts = 2, .nstages = 4};
    struct ladra_hostscan_options o;
    clarity_ladra_hostscan_default(&o);
    struct ladra_host_period *p;
    size_t np;
    cr_assert_eq(clarity_ladra_hostscan(&in, &o, &p, &np, NULL), 0);
    cr_assert_eq(np, 0);
    free(p);
}

Test(ladra_hostscan, small_share_of_a_long_run_does_not_matter)
{
    /* 16 slow tasks as in the first test, plus 4000 tasks of 1000 ms on every host in other
     * stages: the stretch is as significant, but its 8 s are 0.19% of the run's task time */
    size_t big = 4 + 250;   /* stages */
    struct ladra_task *t = malloc(big * 16 * sizeof *t);
    cr_assert_not_null(t);
    size_t n = build(t, (int)big, 4, 3, 0, 4, 1500);
    struct ladra_input in = {.tasks = t, .ntasks = n, .nhosts = 4, .nstages = big};
    struct ladra_hostscan_options o;
    clarity_ladra_hostscan_default(&o);
    struct ladra_host_period *p;
    size_t np;
    cr_assert_eq(clarity_ladra_hostscan(&in, &o, &p, &np, NULL), 0);
    cr_assert_eq(np, 1);
    cr_assert_float_eq(p[0].z, 9.237604, 1e-4);
    cr_assert_float_eq(p[0].excess_ms, 8000, 1e-6);
    cr_assert_float_eq(p[0].excess_ms / p[0].run_task_ms, 8000.0 / (n * 1000.0 + 8000), 1e-12);
    cr_assert(!p[0].matters);
    free(p), free(t);
}
