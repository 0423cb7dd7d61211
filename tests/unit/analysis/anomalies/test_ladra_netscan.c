/* The fetch-wait scan (ladra_netscan.c) on worked numbers: 20 readers of 10 MB of remote
 * blocks, 1000 ms each, one a second on hosts 0-3 in turn. 12 wait 90 ms ((90 + 10) / 10 =
 * 10 ms per MB), the 8 in the middle (starts 6-13) wait 390 ms (40 ms per MB). The 25th
 * percentile of the 20 log rates (position 4.75 of the sorted 12 x ln 10, 8 x ln 40) is ln 10:
 * the reference, 10 ms/MB. Each slow reader adds ln 4 - ln 1.5 = 0.980829 to the scan, each
 * other one -ln 1.5: the stretch is the 8 slow readers, x4 over the reference, on 4 hosts,
 * 8 x (390 + 10 - 10 x 10) = 2,400 ms of fetch wait beyond it, 12% of the 20,000 ms of tasks. */
#include <criterion/criterion.h>
#include <math.h>
#include "clarity/anomalies.h"

static size_t build(struct ladra_task *t, struct ladra_metrics *m, int slow_hosts, int64_t remote_bytes)
{
    size_t n = 0;
    for (int i = 0; i < 20; i++) {
        bool slow = i >= 6 && i < 14;
        int host = slow ? (i - 6) % slow_hosts : i % 4;
        t[n] = (struct ladra_task){.start_ms = i * 1000, .end_ms = i * 1000 + 1000, .row = (uint32_t)n,
                                   .stage = i < 10 ? 0 : 1, .host = host, .exec = host};
        m[n] = (struct ladra_metrics){.tid = i, .run_ms = 1000, .cpu_ms = 500, .gc_ms = 0,
                                      .fetch_wait_ms = slow ? 390 : 90, .remote_bytes = remote_bytes};
        n++;
    }
    return n;
}

Test(ladra_netscan, slow_readers_on_every_host)
{
    struct ladra_task t[20];
    struct ladra_metrics m[20];
    size_t n = build(t, m, 4, 10000000);
    struct ladra_input in = {.tasks = t, .ntasks = n, .metrics = m, .nhosts = 4, .nstages = 2};
    struct ladra_netscan_options o;
    clarity_ladra_netscan_default(&o);
    struct ladra_net_period p;
    cr_assert_eq(clarity_ladra_netscan(&in, &o, &p, NULL), 0);
    cr_assert(p.found);
    cr_assert_eq(p.readers, 20);
    cr_assert_float_eq(p.ref_ms_per_mb, 10.0, 1e-9);
    cr_assert_eq(p.tasks, 8);
    cr_assert_eq(p.hosts, 4);
    cr_assert_eq(p.stage_runs, 2);   /* starts 6-9 in stage 0, 10-13 in stage 1 */
    cr_assert_eq(p.start_ms, 6000);
    cr_assert_eq(p.end_ms, 14000);
    cr_assert_float_eq(p.slowdown, 4.0, 1e-9);
    cr_assert_float_eq(p.excess_ms, 2400.0, 1e-6);
    cr_assert_float_eq(p.run_task_ms, 20000.0, 1e-9);
    cr_assert(p.matters);
    /* x4 is what a x5 bound refuses */
    o.min_slowdown = 5;
    cr_assert(!clarity_ladra_net_period_matters(&p, &o));
}

Test(ladra_netscan, one_host_is_not_a_network)
{
    /* the same 8 slow readers, all on host 0: that host's problem (the cross-stage scan's), not
     * a slow network */
    struct ladra_task t[20];
    struct ladra_metrics m[20];
    size_t n = build(t, m, 1, 10000000);
    struct ladra_input in = {.tasks = t, .ntasks = n, .metrics = m, .nhosts = 4, .nstages = 2};
    struct ladra_netscan_options o;
    clarity_ladra_netscan_default(&o);
    struct ladra_net_period p;
    cr_assert_eq(clarity_ladra_netscan(&in, &o, &p, NULL), 0);
    cr_assert(p.found);
    cr_assert_eq(p.tasks, 8);
    cr_assert_eq(p.hosts, 1);
    cr_assert(!p.matters);
}

Test(ladra_netscan, small_reads_are_not_readers)
{
    /* under 1 MB of remote blocks a task's wait is latency, not a rate: no reader, no stretch */
    struct ladra_task t[20];
    struct ladra_metrics m[20];
    size_t n = build(t, m, 4, 999999);
    struct ladra_input in = {.tasks = t, .ntasks = n, .metrics = m, .nhosts = 4, .nstages = 2};
    struct ladra_netscan_options o;
    clarity_ladra_netscan_default(&o);
    struct ladra_net_period p;
    cr_assert_eq(clarity_ladra_netscan(&in, &o, &p, NULL), 0);
    cr_assert(!p.found);
    cr_assert(!p.matters);
    cr_assert_eq(p.readers, 0);
    cr_assert_float_eq(p.run_task_ms, 20000.0, 1e-9);
}

Test(ladra_netscan, no_tasks)
{
    struct ladra_input in = {0};
    struct ladra_netscan_options o;
    clarity_ladra_netscan_default(&o);
    struct ladra_net_period p;
    cr_assert_eq(clarity_ladra_netscan(&in, &o, &p, NULL), 0);
    cr_assert(!p.found);
}

/* lad28: a slow spell over every reader leaves the scan no reference, and it names nothing
 * rather than guess one. A one-wave shuffle (a Sort's 64 reducers on 8 or 16 hosts of 8 slots)
 * under a throttle: here 20 readers of 10 MB, all started at 0 on hosts 0-3, each waiting 390
 * ms, 40 ms per MB where unimpeded readers would take 10. Every log rate is ln 40, so the
 * reference (their 25th percentile) is 40 ms/MB, each reader adds -ln 1.5 to the scan and no
 * stretch grows. The same readers with 12 of them outside the spell are
 * slow_readers_on_every_host's x4. (On the synth runs lad28 measured, the throttled Sorts'
 * reference was x2.0-4.75 a fault-free run's; no reader ran outside the spell.) */
Test(ladra_netscan, one_wave_under_the_spell_has_no_reference)
{
    struct ladra_task t[20];
    struct ladra_metrics m[20];
    for (int i = 0; i < 20; i++) {
        t[i] = (struct ladra_task){.start_ms = 0, .end_ms = 1000, .row = (uint32_t)i, .stage = 1, .host = i % 4, .exec = i % 4};
        m[i] = (struct ladra_metrics){.tid = i, .run_ms = 1000, .cpu_ms = 500, .fetch_wait_ms = 390, .remote_bytes = 10000000};
    }
    struct ladra_input in = {.tasks = t, .ntasks = 20, .metrics = m, .nhosts = 4, .nstages = 2};
    struct ladra_netscan_options o;
    clarity_ladra_netscan_default(&o);
    struct ladra_net_period p;
    cr_assert_eq(clarity_ladra_netscan(&in, &o, &p, NULL), 0);
    cr_assert_eq(p.readers, 20);
    cr_assert_float_eq(p.ref_ms_per_mb, 40.0, 1e-9);
    cr_assert(!p.found);
    cr_assert(!p.matters);
}

/* lad29: the blind spot above, said. The same one-wave readers: all 20 run at instant 0 (20 of
 * 20, over 3/4), waiting 20 x 390 = 7,800 ms on fetches, 39% of the 20,000 ms of tasks (over the
 * 10% that makes it material): the network is recorded as not checked, in stage 1. */
Test(ladra_netscan, one_wave_is_recorded_unchecked)
{
    struct ladra_task t[20];
    struct ladra_metrics m[20];
    for (int i = 0; i < 20; i++) {
        t[i] = (struct ladra_task){.start_ms = 0, .end_ms = 1000, .row = (uint32_t)i, .stage = 1, .host = i % 4, .exec = i % 4};
        m[i] = (struct ladra_metrics){.tid = i, .run_ms = 1000, .cpu_ms = 500, .fetch_wait_ms = 390, .remote_bytes = 10000000};
    }
    struct ladra_input in = {.tasks = t, .ntasks = 20, .metrics = m, .nhosts = 4, .nstages = 2};
    struct ladra_netscan_options o;
    clarity_ladra_netscan_default(&o);
    struct ladra_net_period p;
    cr_assert_eq(clarity_ladra_netscan(&in, &o, &p, NULL), 0);
    cr_assert_eq(p.wave_readers, 20);
    cr_assert_eq(p.wave_at_ms, 0);
    cr_assert_float_eq(p.wave_fetch_ms, 7800.0, 1e-9);
    cr_assert_eq(p.wave_nstages, 1);
    cr_assert_eq(p.wave_stages[0], 1);
    cr_assert(p.unchecked);
}

/* A stretch of readers one after another (slow_readers_on_every_host: each ends as the next
 * starts) never has two running at once: one reader is the widest wave, the scan has its
 * reference, and it finds the slow ones. */
Test(ladra_netscan, readers_in_turn_are_checked)
{
    struct ladra_task t[20];
    struct ladra_metrics m[20];
    size_t n = build(t, m, 4, 10000000);
    struct ladra_input in = {.tasks = t, .ntasks = n, .metrics = m, .nhosts = 4, .nstages = 2};
    struct ladra_netscan_options o;
    clarity_ladra_netscan_default(&o);
    struct ladra_net_period p;
    cr_assert_eq(clarity_ladra_netscan(&in, &o, &p, NULL), 0);
    cr_assert_eq(p.wave_readers, 1);
    cr_assert_eq(p.wave_at_ms, 0);
    cr_assert_float_eq(p.wave_fetch_ms, 90.0, 1e-9);
    cr_assert(p.matters);
    cr_assert(!p.unchecked);
}

/* Both bounds on worked numbers. 20 readers of 10 MB, 1000 ms each: `inwave` of them start at 0
 * (stages 2 and 0 in turn), the others at 2000, after the wave ended; every one waits `fw` ms,
 * the same rate, so no stretch grows. The share's base is 20,000 ms of tasks, 10% = 2,000 ms. */
static void two_waves(int inwave, int64_t fw, struct ladra_net_period *p)
{
    struct ladra_task t[20];
    struct ladra_metrics m[20];
    for (int i = 0; i < 20; i++) {
        int64_t s = i < inwave ? 0 : 2000;
        t[i] = (struct ladra_task){.start_ms = s, .end_ms = s + 1000, .row = (uint32_t)i, .stage = i < inwave ? (i % 2 ? 0 : 2) : 1,
                                   .host = i % 4, .exec = i % 4};
        m[i] = (struct ladra_metrics){.tid = i, .run_ms = 1000, .cpu_ms = 500, .fetch_wait_ms = fw, .remote_bytes = 10000000};
    }
    struct ladra_input in = {.tasks = t, .ntasks = 20, .metrics = m, .nhosts = 4, .nstages = 3};
    struct ladra_netscan_options o;
    clarity_ladra_netscan_default(&o);
    cr_assert_eq(clarity_ladra_netscan(&in, &o, p, NULL), 0);
    cr_assert(!p->matters);
}

Test(ladra_netscan, unchecked_bounds)
{
    struct ladra_net_period p;
    /* 16 of 20 at once (64 > 60: under a quarter outside), 16 x 125 = 2,000 ms = 10%: unchecked */
    two_waves(16, 125, &p);
    cr_assert_eq(p.wave_readers, 16);
    cr_assert_float_eq(p.wave_fetch_ms, 2000.0, 1e-9);
    cr_assert_eq(p.wave_nstages, 2);
    cr_assert_eq(p.wave_stages[0], 0);
    cr_assert_eq(p.wave_stages[1], 2);
    cr_assert(p.unchecked);
    /* 16 x 124 = 1,984 ms, 9.92%: not material */
    two_waves(16, 124, &p);
    cr_assert_float_eq(p.wave_fetch_ms, 1984.0, 1e-9);
    cr_assert(!p.unchecked);
    /* 15 of 20 at once (60, not over 60): a quarter of the readers ran outside the wave, the
     * 25th percentile (position 4.75 of 20) rests mostly on them: checked */
    two_waves(15, 200, &p);
    cr_assert_eq(p.wave_readers, 15);
    cr_assert(!p.unchecked);
}
