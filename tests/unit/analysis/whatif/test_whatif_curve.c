/* The DAG-aware replay under the core-count curve: dependencies, equality with the blocked-
 * time replay when there are none, bounds, and the curve on the project's fixtures. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include "../../model/load_helpers.h"
#include "clarity/blocked.h"
#include "sim/dag_replay.h"
#include "clarity/whatif.h"

#define EPS 1e-9

/* clarity_dag_makespan, asserting it succeeded */
static double dag_makespan(const double *r, const uint32_t *u, size_t n, size_t nu, const size_t *off,
                           const uint32_t *par, int slots)
{
    double m = -1;
    cr_assert_eq(clarity_dag_makespan(r, u, n, nu, off, par, slots, &m, NULL), 0);
    return m;
}
/* clarity_dag_plan_run and clarity_dag_plan_critical_path, asserting they succeeded */
static double plan_run(const struct clarity_dag_plan *p, const double *rt, double factor, int absolute)
{
    double m = -1;
    cr_assert_eq(clarity_dag_plan_run(p, rt, factor, absolute, &m, NULL), 0);
    return m;
}
static double critical_path(const struct clarity_dag_plan *p, const double *rt)
{
    double m = -1;
    cr_assert_eq(clarity_dag_plan_critical_path(p, rt, &m, NULL), 0);
    return m;
}

Test(dag_replay, child_waits_for_parent_independent_stage_shares_slots)
{
    /* list order: A (0,1), C (2), B (3..6); B depends on A; C is independent */
    double r[] = {10, 10, 12, 5, 5, 5, 5};
    uint32_t u[] = {0, 0, 2, 1, 1, 1, 1};
    size_t off[] = {0, 0, 1, 1};   /* unit 1 (B) has parent 0 (A) */
    uint32_t par[] = {0};
    /* 4 slots: A and C start at 0, the fourth slot idles until A ends at 10; B1-B3 run
     * 10-15, B4 takes C's slot at 12 and ends at 17 */
    cr_assert_float_eq(dag_makespan(r, u, 7, 3, off, par, 4), 17, EPS);
    /* without the dependency it is the blocked-time list scheduling: B starts at once */
    cr_assert_float_eq(dag_makespan(r, u, 7, 3, NULL, NULL, 4), 15, EPS);
    cr_assert_float_eq(clarity_sim_makespan(r, 7, 4, NULL), 15, EPS);
    /* infinite slots: the longest chain, A then B, against C */
    cr_assert_float_eq(dag_makespan(r, u, 7, 3, off, par, 100), 15, EPS);
    /* one slot: everything in a row */
    cr_assert_float_eq(dag_makespan(r, u, 7, 3, off, par, 1), 52, EPS);
}

Test(dag_replay, cycle_is_broken_not_hung)
{
    double r[] = {1, 2};
    uint32_t u[] = {0, 1};
    size_t off[] = {0, 1, 2};
    uint32_t par[] = {1, 0};
    double m = dag_makespan(r, u, 2, 2, off, par, 2);
    cr_assert(m >= 2 && m <= 3);
}

/* xorshift: deterministic, no global state */
static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    return *s;
}

Test(dag_replay, plan_equals_blocked_replay_without_edges_and_bounds_hold)
{
    uint64_t seed = 88172645463325252ull;
    for (int round = 0; round < 200; round++) {
        size_t n = 1 + next(&seed) % 120, nstages = 1 + next(&seed) % 6;
        struct clarity_sim_task *t = malloc(n * sizeof *t);
        double *rt = malloc(n * sizeof *rt), serial = 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t s = (uint32_t)(next(&seed) % nstages);
            int64_t launch = (int64_t)(s * 50 + next(&seed) % 80), dur = 1 + (int64_t)(next(&seed) % 40);
            t[i] = (struct clarity_sim_task){launch, launch + dur, 0, s};
            rt[i] = (double)dur;
            serial += rt[i];
        }
        struct clarity_dag_edge e[8];
        size_t ne = 0;
        for (uint32_t s = 1; s < nstages && ne < 8; s++)
            if (next(&seed) % 2) e[ne++] = (struct clarity_dag_edge){(uint32_t)(next(&seed) % s), s};
        struct clarity_replay_plan plain;
        struct clarity_dag_plan none, dag;
        cr_assert_eq(clarity_replay_plan_build(t, n, CLARITY_SLOTS_OBSERVED, NULL, &plain, NULL), 0);
        cr_assert_eq(clarity_dag_plan_build(t, n, CLARITY_SLOTS_OBSERVED, NULL, NULL, 0, &none, NULL), 0);
        cr_assert_eq(clarity_dag_plan_build(t, n, CLARITY_SLOTS_OBSERVED, NULL, e, ne, &dag, NULL), 0);
        cr_assert_eq(none.internal_edges, 0);
        cr_assert_eq(plan_run(&none, rt, 1, 0), clarity_replay_plan_run(&plain, rt),
                     "round %d: no dependencies = the blocked-time replay, exactly", round);
        double cp = critical_path(&dag, rt);
        for (int slots = 1; slots <= 130; slots += 1 + slots / 4) {
            double m = plan_run(&dag, rt, 0, slots);
            cr_assert(m >= cp - EPS && m <= serial + EPS, "round %d slots %d: %g outside [%g, %g]", round, slots, m, cp,
                      serial);
        }
        cr_assert_float_eq(plan_run(&dag, rt, 0, 1), serial, EPS);
        cr_assert_float_eq(plan_run(&dag, rt, 0, (int)n), cp, EPS, "as many slots as tasks: the critical path");
        clarity_replay_plan_free(&plain);
        clarity_dag_plan_free(&none);
        clarity_dag_plan_free(&dag);
        free(t);
        free(rt);
    }
}

/* The curve on a real fixture reproduces blocked-time's t_s at 1x and stays within bounds. */
static void curve_on_fixture(const char *name)
{
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_fixture(name, &a, &err), CLARITY_OK, "%s", err.msg);
    struct clarity_hw hw;
    clarity_hw_from_log(a, &hw);
    struct clarity_curve_ask ask[] = {{0.25, true}, {0.5, true}, {1, true}, {2, true}, {4, true}, {1000, true}};
    struct clarity_curve_result c;
    cr_assert_eq(clarity_curve_analyze(a, &hw, CLARITY_SLOTS_OBSERVED, CLARITY_CURVE_EXECUTORS, ask, 6, 0, &c, NULL), 0);
    struct clarity_blocked_result b;
    cr_assert_eq(clarity_blocked_analyze(a, CLARITY_GROUP_APP, CLARITY_SLOTS_OBSERVED, 0, &b, NULL), 0);
    cr_assert_eq(c.internal_edges, 0, "%s: stages that overlapped never depend on each other here", name);
    cr_assert_float_eq(c.observed_replay_ms, b.groups[0].simulated_ms, EPS, "%s: t_s", name);
    cr_assert_float_eq(c.points[2].replay_ms, b.groups[0].simulated_ms, EPS);
    for (size_t i = 0; i < c.npoints; i++) {
        cr_assert(c.points[i].replay_ms >= c.critical_path_ms - EPS && c.points[i].replay_ms <= c.serial_ms + EPS);
        if (i) cr_assert(c.points[i].replay_ms <= c.points[i - 1].replay_ms + EPS, "%s: monotonic", name);
        cr_assert_float_eq(c.points[i].predicted_ms, c.points[i].replay_ms + (double)c.driver_ms, EPS);
    }
    cr_assert_float_eq(c.points[5].replay_ms, c.critical_path_ms, EPS);
    cr_assert(c.driver_ms >= 0 && c.driver_ms <= c.actual_ms);
    /* the stages marked critical are the path: their longest successful tasks sum to its length */
    double on_path = 0;
    size_t marked = 0;
    for (size_t s = 0; s < a->nstages; s++) {
        if (!c.on_critical[s]) continue;
        marked++;
        int64_t longest = 0;
        for (size_t i = 0; i < a->tasks.n; i++)
            if ((size_t)clarity_icol_get(&a->tasks.stage, i) == s &&
                clarity_icol_get(&a->tasks.end, i) == CLARITY_END_SUCCESS &&
                clarity_icol_get(&a->tasks.duration, i) > longest)
                longest = clarity_icol_get(&a->tasks.duration, i);
        on_path += (double)longest;
    }
    cr_assert_gt(marked, 0, "%s: a path with tasks has stages", name);
    cr_assert_float_eq(on_path, c.critical_path_ms, EPS, "%s: stages marked critical", name);
    clarity_blocked_free(&b);
    clarity_curve_free(&c);
    clarity_app_free(a);
}

Test(whatif_curve, fixtures_reproduce_blocked_ts)
{
    curve_on_fixture("mini-3x.json");
    curve_on_fixture("spark-3.1-app-20200706201101-0003.json");
    curve_on_fixture("spark-1.2-local-1422981780767.json");
}

Test(whatif_curve, spark31_numbers)
{
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_fixture("spark-3.1-app-20200706201101-0003.json", &a, &err), CLARITY_OK, "%s", err.msg);
    struct clarity_hw hw;
    clarity_hw_from_log(a, &hw);
    cr_assert_float_eq(hw.v[CLARITY_HW_HOSTS], 1, EPS);
    cr_assert_float_eq(hw.v[CLARITY_HW_EXECUTORS], 1, EPS);
    cr_assert_float_eq(clarity_hw_cores(&hw), 16, EPS);
    cr_assert_eq(hw.src[CLARITY_HW_CORES_PER_HOST], CLARITY_HWS_LOG);
    cr_assert_eq(hw.src[CLARITY_HW_DISK_MB_S], CLARITY_HWS_DEFAULT);
    struct clarity_curve_ask ask[] = {{8, false}, {16, false}, {32, false}};
    struct clarity_curve_result c;
    cr_assert_eq(clarity_curve_analyze(a, &hw, CLARITY_SLOTS_OBSERVED, CLARITY_CURVE_CORES, ask, 3, 0, &c, NULL), 0);
    cr_assert_eq(c.points[0].slots, 8);
    cr_assert_eq(c.points[2].slots, 32);
    /* every stage has 16 tasks: 32 slots cannot beat the longest task of each stage */
    cr_assert_float_eq(c.points[2].replay_ms, c.critical_path_ms, EPS);
    /* 6 minutes of driver time around 3.5 s of tasks: even 8 cores are within 10% of the best */
    cr_assert_gt(c.driver_ms, 300000);
    cr_assert_eq(c.knee, 0);
    cr_assert_float_eq(c.points[1].core_hours, 16 * c.points[1].predicted_ms / 3.6e6, EPS);
    clarity_curve_free(&c);

    struct clarity_resource_result r;
    cr_assert_eq(clarity_resources_analyze(a, &hw, NULL, 0, &r, NULL), 0);
    cr_assert_eq(r.nstages, 3);
    cr_assert_eq(r.njobs, 3);
    cr_assert_eq(r.cpu_fallback_tasks, 0, "Spark 3.1 logs CPU time");
    cr_assert_not(r.scen[CLARITY_SCEN_WHATIF].present);
    double sum = 0;
    for (size_t i = 0; i < r.nstages; i++) sum += r.stages[i].ideal.model_ms;
    cr_assert_float_eq(r.scen[CLARITY_SCEN_BASE].model_ms, sum, EPS);
    cr_assert_float_eq(r.scen[CLARITY_SCEN_BASE].predicted_ms, (double)r.actual_ms, EPS, "no change: the actual time");
    for (int k = CLARITY_SCEN_INF_CPU; k <= CLARITY_SCEN_INF_NETWORK; k++)
        cr_assert(r.scen[k].predicted_ms <= r.actual_ms + EPS);
    cr_assert(r.total.cpu_ms >= 9.35e3 && r.total.cpu_ms < 20e3, "summary: CPU 9.4 s, plus deserialize CPU: %g", r.total.cpu_ms);
    clarity_resources_free(&r);
    clarity_app_free(a);
}

Test(whatif_curve, spark12_falls_back_to_run_minus_blocked)
{
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_fixture("spark-1.2-local-1422981780767.json", &a, &err), CLARITY_OK, "%s", err.msg);
    struct clarity_hw hw;
    clarity_hw_from_log(a, &hw);
    cr_assert_eq(hw.src[CLARITY_HW_CORES_PER_HOST], CLARITY_HWS_OBSERVED, "Spark 1.2 local: no executor cores");
    cr_assert(clarity_hw_cores(&hw) >= 1);
    struct clarity_resource_result r;
    cr_assert_eq(clarity_resources_analyze(a, &hw, NULL, 0, &r, NULL), 0);
    cr_assert_eq(r.cpu_fallback_tasks, r.tasks);
    cr_assert(r.total.cpu_ms > 0);
    clarity_resources_free(&r);
    clarity_app_free(a);
}
