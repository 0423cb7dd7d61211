/* Slot replay: worked cases of the thesis' list scheduling (t1: 2 slots, launch-ordered runtimes
 * [10,4,6,3] -> makespan 13; t2, t3: slot inference from peak and average concurrency; t5: a job
 * is the sum of its stages' makespans), overlapping stages pooled, and edges. */
#include <criterion/criterion.h>
#include <math.h>
#include "clarity/sim.h"

#define EPS 1e-9

Test(sim_replay, t1_waves_and_slot_reuse)
{
    double orig[] = {10, 4, 6, 3}, net[] = {10, 1, 6, 1};
    double ts = clarity_sim_makespan(orig, 4, 2, NULL), tn = clarity_sim_makespan(net, 4, 2, NULL);
    cr_assert_float_eq(ts, 13, EPS);
    cr_assert_float_eq(tn, 10, EPS);
    cr_assert_float_eq(1 - tn / ts, 3.0 / 13, EPS);   /* 23.1% */
    /* naive in-place subtraction: original finishes 10,4,10,13 minus blocked 0,3,0,2 */
    double naive = fmax(fmax(10 - 0, 4 - 3), fmax(10 - 0, 13 - 2));
    cr_assert_float_eq(naive, 11, EPS);
    cr_assert(1 - naive / ts < 1 - tn / ts, "naive subtraction underestimates");
}

Test(sim_replay, t2_peak_concurrency_ends_before_starts)
{
    struct clarity_sim_task t[] = {{0, 10, 0, 0}, {0, 4, 0, 0}, {4, 10, 0, 0}, {10, 13, 0, 0}};
    cr_assert_eq(clarity_sim_peak_slots(t, 4), 2);
    cr_assert_eq(clarity_sim_observed_slots(t, 4), 2);
}

Test(sim_replay, t2_scheduler_delay_trim_removes_false_overlap)
{
    /* the first task's completion message arrived 3 ms late: without the trim it would
     * overlap the task that reused its slot */
    struct clarity_sim_task t[] = {{0, 13, 3, 0}, {10, 20, 0, 0}};
    cr_assert_eq(clarity_sim_peak_slots(t, 2), 1);
    t[0].trim_ms = 0;
    cr_assert_eq(clarity_sim_peak_slots(t, 2), 2);
}

Test(sim_replay, t3_average_concurrency_over_40_tasks)
{
    struct clarity_sim_task t[100];
    for (int i = 0; i < 100; i++) {
        int64_t s = (int64_t)(i / 8) * 10000;
        t[i] = (struct clarity_sim_task){s, s + 10000, 0, 0};
    }
    cr_assert_eq(clarity_sim_average_slots(t, 100), 8);   /* ceil(1000/130) */
    cr_assert_eq(clarity_sim_observed_slots(t, 100), 8);
    double r[100];
    for (int i = 0; i < 100; i++) r[i] = 10000;
    cr_assert_float_eq(clarity_sim_makespan(r, 100, 8, NULL), 130000, EPS);
}

Test(sim_replay, t5_multi_stage_sum)
{
    /* stage A (unit 0) as T1, then stage B (unit 1) with [5, 5] on 2 slots */
    struct clarity_sim_task t[] = {{0, 10, 0, 0}, {0, 4, 0, 0}, {4, 10, 0, 0}, {10, 13, 0, 0},
                                   {13, 18, 0, 1}, {13, 18, 0, 1}};
    struct clarity_replay_plan p;
    cr_assert_eq(clarity_replay_plan_build(t, 6, CLARITY_SLOTS_OBSERVED, NULL, &p, NULL), 0);
    cr_assert_eq(p.ncomp, 2);
    cr_assert_eq(p.comp[0].slots, 2);
    cr_assert_eq(p.comp[1].slots, 2);
    double orig[] = {10, 4, 6, 3, 5, 5}, net[] = {10, 1, 6, 1, 5, 5};
    double ts = clarity_replay_plan_run(&p, orig), tn = clarity_replay_plan_run(&p, net);
    cr_assert_float_eq(ts, 18, EPS);
    cr_assert_float_eq(tn, 15, EPS);
    cr_assert_float_eq(1 - tn / ts, 1.0 / 6, EPS);   /* 16.7% */
    clarity_replay_plan_free(&p);
}

Test(sim_replay, overlapping_stages_pool_into_components)
{
    /* units 0 and 1 overlap; unit 2 starts exactly when they end (no overlap); units 3 and 4
     * overlap each other: two pooled components and one single */
    struct clarity_sim_task t[] = {{0, 10, 0, 0}, {5, 12, 0, 1}, {12, 20, 0, 2},
                                   {30, 40, 0, 3}, {35, 45, 0, 4}, {31, 33, 0, 3}};
    struct clarity_replay_plan p;
    cr_assert_eq(clarity_replay_plan_build(t, 6, CLARITY_SLOTS_OBSERVED, NULL, &p, NULL), 0);
    cr_assert_eq(p.ncomp, 3);
    cr_assert_eq(p.comp[0].nunits, 2);
    cr_assert_eq(p.comp[1].nunits, 1);
    cr_assert_eq(p.comp[2].nunits, 2);
    cr_assert_eq(p.comp[2].n, 3);
    /* launch order inside the pooled component: 30, 31, 35 */
    cr_assert_eq(p.order[p.comp[2].first], 3);
    cr_assert_eq(p.order[p.comp[2].first + 1], 5);
    cr_assert_eq(p.order[p.comp[2].first + 2], 4);
    clarity_replay_plan_free(&p);
}

Test(sim_replay, launch_order_not_finish_order)
{
    /* sorting by finish would put the long task last and inflate the makespan */
    struct clarity_sim_task t[] = {{0, 3, 0, 0}, {0, 100, 0, 0}, {3, 6, 0, 0}};
    struct clarity_replay_plan p;
    cr_assert_eq(clarity_replay_plan_build(t, 3, CLARITY_SLOTS_OBSERVED, NULL, &p, NULL), 0);
    double r[] = {3, 100, 3};
    cr_assert_float_eq(clarity_replay_plan_run(&p, r), 100, EPS);
    clarity_replay_plan_free(&p);
}

Test(sim_replay, edges_no_nan_no_negative)
{
    cr_assert_float_eq(clarity_sim_makespan(NULL, 0, 4, NULL), 0, EPS);
    double one[] = {7};
    cr_assert_float_eq(clarity_sim_makespan(one, 1, 0, NULL), 7, EPS);   /* slots < 1 -> 1 */
    double odd[] = {-5, NAN, 4};
    cr_assert_float_eq(clarity_sim_makespan(odd, 3, 1, NULL), 4, EPS);
    struct clarity_sim_task z[] = {{5, 5, 0, 0}, {5, 5, 0, 0}};           /* zero-length tasks */
    cr_assert_eq(clarity_sim_peak_slots(z, 2), 1);
    cr_assert_eq(clarity_sim_average_slots(z, 2), 1);
    struct clarity_replay_plan p;
    cr_assert_eq(clarity_replay_plan_build(z, 0, CLARITY_SLOTS_OBSERVED, NULL, &p, NULL), 0);
    cr_assert_eq(p.ncomp, 0);
    cr_assert_float_eq(clarity_replay_plan_run(&p, NULL), 0, EPS);
    clarity_replay_plan_free(&p);
}

Test(sim_replay, single_wave_over_40_tasks_uses_peak)
{
    /* 60 tasks all launched at 0, one straggler: the average (ceil(sum/span)) would give
     * fewer slots than tasks and invent a second wave; fewer than two waves -> peak */
    struct clarity_sim_task t[60];
    for (int i = 0; i < 60; i++) t[i] = (struct clarity_sim_task){0, i == 0 ? 100 : 50, 0, 0};
    cr_assert_eq(clarity_sim_average_slots(t, 60), 31);
    cr_assert_eq(clarity_sim_observed_slots(t, 60), 60);
}
