/* Straggler detection, attribution and Dolly impact, on worked cases built from the thesis'
 * rules (section 4.7: >= 1.5x the median runtime per byte is a straggler, < 1.5x explained). */
#include <criterion/criterion.h>
#include <string.h>
#include "clarity/sim.h"
#include "clarity/stragglers.h"

#define MB 1000000
#define EPS 1e-9

static void task(struct clarity_task_comp *c, double runtime, int64_t input)
{
    memset(c, 0, sizeof *c);
    c->runtime_ms = runtime;
    c->finish_ms = (int64_t)runtime;
    c->input_bytes = input;
    c->host = 1;
    c->executor = 1;
}

static size_t idx[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

Test(stragglers, t6_detection_and_gc_attribution)
{
    double rt[] = {10, 11, 10, 12, 30}, gc[] = {1, 1, 1, 1, 16};
    struct clarity_task_comp t[5];
    for (int i = 0; i < 5; i++) { task(&t[i], rt[i], 100 * MB); t[i].gc_ms = gc[i]; }
    struct clarity_stage_strag s;
    uint16_t f[5];
    double ratio[5];
    cr_assert_eq(clarity_stragglers_stage(t, idx, 5, &s, f, ratio, NULL), 0);
    cr_assert_null(s.skipped);
    cr_assert_float_eq(s.median_ipr * MB, .11, EPS);          /* ms per MB */
    cr_assert_eq(s.stragglers, 1);
    for (int i = 0; i < 4; i++) cr_assert_not(f[i] & CLARITY_SF_STRAGGLER);
    cr_assert(f[4] & CLARITY_SF_STRAGGLER);
    cr_assert_float_eq(ratio[4], .30 / .11, 1e-9);
    cr_assert(f[4] & (1u << CLARITY_SC_GC), "without GC: .14 < 1.5 x .10");
    cr_assert_not(f[4] & (1u << CLARITY_SC_SHUFFLE_READ), "no fetch wait: shuffle read explains nothing");
    cr_assert_eq(s.by_cause[CLARITY_SC_GC], 1);
    cr_assert_eq(s.explained_thesis, 1);
}

Test(stragglers, t6_threshold_is_inclusive)
{
    /* ipr exactly 1.5 x median is a straggler ([R] uses >=) */
    struct clarity_task_comp t[3];
    task(&t[0], 10, MB); task(&t[1], 10, MB); task(&t[2], 15, MB);
    struct clarity_stage_strag s;
    uint16_t f[3];
    cr_assert_eq(clarity_stragglers_stage(t, idx, 3, &s, f, NULL, NULL), 0);
    cr_assert_eq(s.stragglers, 1);
    cr_assert(f[2] & CLARITY_SF_STRAGGLER);
}

Test(stragglers, t7_dolly_impact)
{
    double rt[] = {10, 11, 10, 12, 30};
    struct clarity_task_comp t[5];
    for (int i = 0; i < 5; i++) task(&t[i], rt[i], 100 * MB);
    double d[5];
    cr_assert_eq(clarity_dolly_stage(t, idx, 5, d, NULL), 0);
    double want[] = {10, 11, 10, 11, 11};
    for (int i = 0; i < 5; i++) cr_assert_float_eq(d[i], want[i], 1e-9, "task %d: %g", i, d[i]);
    double ts5 = clarity_sim_makespan(rt, 5, 5, NULL), td5 = clarity_sim_makespan(d, 5, 5, NULL);
    cr_assert_float_eq(ts5, 30, EPS);
    cr_assert_float_eq(td5, 11, 1e-9);
    cr_assert_float_eq(1 - td5 / ts5, 19.0 / 30, 1e-9);     /* 63% */
    double ts2 = clarity_sim_makespan(rt, 5, 2, NULL), td2 = clarity_sim_makespan(d, 5, 2, NULL);
    cr_assert_float_eq(ts2, 50, EPS);
    cr_assert_float_eq(td2, 31, 1e-9);
    cr_assert_float_eq(1 - td2 / ts2, 19.0 / 50, 1e-9);     /* 38% */
}

Test(stragglers, t7_zero_input_tasks_keep_runtime)
{
    struct clarity_task_comp t[3];
    task(&t[0], 10, MB); task(&t[1], 50, 0); task(&t[2], 20, MB);
    double d[3];
    cr_assert_eq(clarity_dolly_stage(t, idx, 3, d, NULL), 0);
    cr_assert_float_eq(d[1], 50, EPS);
    cr_assert_float_eq(d[2], 15, EPS);   /* median of .010 and .020 ms/B is .015 */
}

Test(stragglers, t8_output_skew)
{
    double rt[] = {10, 10, 10, 10, 20}, out[] = {10, 10, 10, 10, 20};
    struct clarity_task_comp t[5];
    for (int i = 0; i < 5; i++) { task(&t[i], rt[i], 100 * MB); t[i].output_bytes = (int64_t)(out[i] * MB); }
    struct clarity_stage_strag s;
    uint16_t f[5];
    cr_assert_eq(clarity_stragglers_stage(t, idx, 5, &s, f, NULL, NULL), 0);
    cr_assert_eq(s.stragglers, 1);
    cr_assert(f[4] & CLARITY_SF_STRAGGLER, ".20 >= .15");
    cr_assert(f[4] & (1u << CLARITY_SC_OUTPUT_SKEW), "output rate 1.0 < 1.5");
    cr_assert_not(f[4] & (1u << CLARITY_SC_FIRST_TASK));
}

Test(stragglers, t9_first_task_jit)
{
    /* host A (1): [0,25] [0,26] [25,35] [26,36] [35,45]; host B (2): [0,24] [0,27] [24,34] [27,37] */
    int64_t sl[][3] = {{1, 0, 25}, {1, 0, 26}, {1, 25, 35}, {1, 26, 36}, {1, 35, 45},
                       {2, 0, 24}, {2, 0, 27}, {2, 24, 34}, {2, 27, 37}};
    struct clarity_task_comp t[9];
    for (int i = 0; i < 9; i++) {
        task(&t[i], (double)(sl[i][2] - sl[i][1]), 100 * MB);
        t[i].host = (uint32_t)sl[i][0];
        t[i].executor = (uint32_t)sl[i][0];
        t[i].launch_ms = sl[i][1];
        t[i].finish_ms = sl[i][2];
    }
    struct clarity_stage_strag s;
    uint16_t f[9];
    cr_assert_eq(clarity_stragglers_stage(t, idx, 9, &s, f, NULL, NULL), 0);
    cr_assert_float_eq(s.median_ipr * MB, .10, EPS);
    cr_assert_eq(s.stragglers, 4);
    int strag[] = {0, 1, 5, 6};
    for (int k = 0; k < 4; k++) {
        cr_assert(f[strag[k]] & CLARITY_SF_STRAGGLER);
        cr_assert(f[strag[k]] & (1u << CLARITY_SC_FIRST_TASK), "task %d JIT-explained", strag[k]);
    }
    /* the tasks launched exactly at their host's first finish (25 on A, 24 on B) are not
     * first tasks, and not stragglers */
    cr_assert_not(f[2] & CLARITY_SF_STRAGGLER);
    cr_assert_not(f[7] & CLARITY_SF_STRAGGLER);
    cr_assert_eq(s.by_cause[CLARITY_SC_FIRST_TASK], 4);
    cr_assert_eq(s.explained_thesis, 4);
    /* two stragglers per host, in proportion to the tasks: no slow host */
    cr_assert_eq(s.slow_host, 0);
}

Test(stragglers, t9_launch_at_first_finish_is_not_first_task)
{
    /* a straggler launched exactly at its host's first finish cannot be JIT-explained */
    struct clarity_task_comp t[4];
    task(&t[0], 10, MB); task(&t[1], 10, MB); task(&t[2], 10, MB); task(&t[3], 30, MB);
    t[3].launch_ms = 10; t[3].finish_ms = 40;
    struct clarity_stage_strag s;
    uint16_t f[4];
    cr_assert_eq(clarity_stragglers_stage(t, idx, 4, &s, f, NULL, NULL), 0);
    cr_assert(f[3] & CLARITY_SF_STRAGGLER);
    cr_assert_not(f[3] & (1u << CLARITY_SC_FIRST_TASK));
}

Test(stragglers, slow_host_and_data_skew)
{
    struct clarity_task_comp t[8];
    for (int i = 0; i < 8; i++) { task(&t[i], 10, MB); t[i].host = i < 4 ? 1 : 2; t[i].executor = t[i].host; }
    t[0].runtime_ms = 30; t[1].runtime_ms = 30; t[2].runtime_ms = 30;
    t[7].runtime_ms = 40; t[7].input_bytes = 4 * MB;   /* slow, but with 4x the data: skew, not a straggler */
    struct clarity_stage_strag s;
    uint16_t f[8];
    cr_assert_eq(clarity_stragglers_stage(t, idx, 8, &s, f, NULL, NULL), 0);
    cr_assert_eq(s.stragglers, 3);
    cr_assert_eq(s.slow_host, 1);
    cr_assert_eq(s.slow_host_stragglers, 3);
    cr_assert_eq(s.slow_host_tasks, 4);
    cr_assert(f[0] & (1u << CLARITY_SC_SLOW_HOST));
    cr_assert_not(f[7] & CLARITY_SF_STRAGGLER);
    cr_assert(f[7] & CLARITY_SF_SLOW_DATA);
    cr_assert_float_eq(s.bytes_max_over_median, 4, EPS);
    cr_assert_eq(s.slow_tasks, 4);
    cr_assert_eq(s.slow_tasks_more_data, 1);
}

Test(stragglers, edges_one_task_and_zero_input)
{
    struct clarity_task_comp t[3];
    struct clarity_stage_strag s;
    uint16_t f[3];
    task(&t[0], 10, MB);
    cr_assert_eq(clarity_stragglers_stage(t, idx, 1, &s, f, NULL, NULL), 0);
    cr_assert_eq(s.stragglers, 0);
    cr_assert_null(s.skipped);
    task(&t[0], 10, 0); task(&t[1], 99, 0); task(&t[2], 5, 0);
    cr_assert_eq(clarity_stragglers_stage(t, idx, 3, &s, f, NULL, NULL), 0);
    cr_assert_not_null(s.skipped);
    cr_assert_eq(s.stragglers, 0);
    task(&t[0], 0, MB); task(&t[1], 0, MB); task(&t[2], 7, MB);     /* median 0 ms */
    cr_assert_eq(clarity_stragglers_stage(t, idx, 3, &s, f, NULL, NULL), 0);
    cr_assert_not_null(s.skipped);
    cr_assert_eq(clarity_stragglers_stage(t, idx, 0, &s, f, NULL, NULL), 0);
    cr_assert_not_null(s.skipped);
}
