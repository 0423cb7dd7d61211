/* The cross-stage host scan (ladra_hostscan.c) on worked numbers: 4 stages on 4 hosts, 4
 * tasks of 1000 ms per host and stage, one host's tasks 1500 ms (d = ln 1.5 = 0.405465). Each
 * task is measured against the other hosts' tasks of its stage, in units of their spread: the
 * slow host's others all last 1000 ms (spread 0, floored at 0.05), so its residual is
 * d / 0.05 = 8.109302 per task; a normal host's others are 8 x ln 1000 and 4 x ln 1500, mean
 * d/3 above ln 1000 and sd d sqrt(2)/3 = 0.191141, so its residual is -(d/3) / 0.191141 =
 * -0.707107 (the slow host is among its others). With the whole stage's spread (the slow
 * host's own tasks in it: d sqrt(0.25 x 0.75) = 0.175572) the slow host read 2.309401. */
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
    cr_assert_float_eq(p[0].z, 16 * 8.109302 / 4, 1e-4);   /* 32.4372 */
    cr_assert_float_eq(p[0].slowdown, 1.5, 1e-9);
    cr_assert_float_eq(p[0].excess_ms, 16 * 500.0, 1e-6);
    cr_assert_float_eq(p[0].run_task_ms, 48 * 1000.0 + 16 * 1500.0, 1e-6);
    cr_assert_eq(p[0].start_ms, 0);
    cr_assert_eq(p[0].end_ms, 3 * 10000 + 3 * 2000 + 1500);
    cr_assert(p[0].matters);
    free(p);
}

Test(ladra_hostscan, one_stage_against_the_spread_floor)
{
    /* the same slowdown in one stage of four: 4 tasks, z = 4 x 8.109302 / 2 = 16.22 (the other
     * hosts' tasks are alike, so the floor of their spread is the unit), 2 s beyond the others
     * (3.0% of the run's task time), but 4 tasks are under the 5 a stretch needs; with 4
     * allowed it matters (with the whole stage's spread it read 4 x 2.309401 / 2 = 4.62, under
     * the z bound too). The floor bounds how much a perfectly regular stage makes of a small
     * difference: at 0.2 the residual is d / 0.2 = 2.027326 and z 4.05 < 5.5 */
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
    cr_assert_float_eq(p[0].z, 16.218604, 1e-4);
    cr_assert_float_eq(p[0].excess_ms, 2000, 1e-6);
    cr_assert(!p[0].matters);
    o.min_tasks = 4;
    cr_assert(clarity_ladra_host_period_matters(&p[0], &o));
    free(p);
    o.min_sd = 0.2;
    cr_assert_eq(clarity_ladra_hostscan(&in, &o, &p, &np, NULL), 0);
    cr_assert_eq(np, 1);
    cr_assert_float_eq(p[0].z, 4.054651, 1e-4);
    cr_assert(!p[0].matters);
    free(p);
}

Test(ladra_hostscan, two_host_stages_when_asked)
{
    /* --host-scan-stage-hosts 2: two hosts are compared; the slow host's other is all 1000 ms
     * (floor 0.05): 16 x 8.109302 / 4 = 32.44; the fast host reads -d / 0.05 per task, no stretch */
    struct ladra_task t[32];
    size_t n = build(t, 4, 2, 0, 0, 4, 1500);
    struct ladra_input in = {.tasks = t, .ntasks = n, .nhosts = 2, .nstages = 4};
    struct ladra_hostscan_options o;
    clarity_ladra_hostscan_default(&o);
    o.stage_hosts = 2;
    struct ladra_host_period *p;
    size_t np;
    cr_assert_eq(clarity_ladra_hostscan(&in, &o, &p, &np, NULL), 0);
    cr_assert_eq(np, 1);
    cr_assert_eq(p[0].host, 0);
    cr_assert_float_eq(p[0].z, 32.437208, 1e-4);
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
    cr_assert_float_eq(p[0].z, 32.437208, 1e-4);
    cr_assert_float_eq(p[0].excess_ms, 8000, 1e-6);
    cr_assert_float_eq(p[0].excess_ms / p[0].run_task_ms, 8000.0 / (n * 1000.0 + 8000), 1e-12);
    cr_assert(!p[0].matters);
    free(p), free(t);
}
