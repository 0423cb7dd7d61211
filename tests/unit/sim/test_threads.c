/* Per-stage and per-component work runs on one worker per core: the results must not depend
 * on how many workers there are. Each analysis on a random log with 1, 2 and 5 workers,
 * compared byte for byte (every result struct is zeroed before it is filled, so padding
 * compares equal too); and blocked time against the plain whole-group replay it replaced. */
#include <criterion/criterion.h>
#include "../model/load_helpers.h"
#include "random_log.h"
#include "clarity/blocked.h"
#include "clarity/stragglers.h"
#include "clarity/whatif.h"

static struct clarity_app *load_random(uint64_t seed, int njobs)
{
    size_t n;
    char *text = random_log(seed, njobs, &n);
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(text, &a, &err), CLARITY_OK, "%s", err.msg);
    free(text);
    return a;
}

#define SAME(x, y, n) cr_assert_eq(memcmp((x), (y), (n)), 0, "%s differs", #x)

static void stragglers_same(const struct clarity_app *a, int threads)
{
    struct clarity_stragglers_result r1, r;
    cr_assert_eq(clarity_stragglers_analyze(a, CLARITY_GROUP_JOB | CLARITY_GROUP_SQL | CLARITY_GROUP_APP, 25, 1, &r1, NULL), 0);
    cr_assert_eq(clarity_stragglers_analyze(a, CLARITY_GROUP_JOB | CLARITY_GROUP_SQL | CLARITY_GROUP_APP, 25, threads, &r, NULL), 0);
    cr_assert(r1.nstages > 20 && r1.ntop == 25);
    SAME(&r.counts, &r1.counts, sizeof r.counts);
    cr_assert_eq(r.nstages, r1.nstages);
    cr_assert_eq(r.ngroups, r1.ngroups);
    cr_assert_eq(r.ntop, r1.ntop);
    SAME(r.stages, r1.stages, r.nstages * sizeof *r.stages);
    SAME(r.groups, r1.groups, r.ngroups * sizeof *r.groups);
    SAME(r.top, r1.top, r.ntop * sizeof *r.top);
    size_t strag = 0;
    for (size_t i = 0; i < r.nstages; i++) strag += r.stages[i].stragglers;
    cr_assert(strag > 0, "the log has stragglers");
    clarity_stragglers_free(&r1);
    clarity_stragglers_free(&r);
}

static void blocked_same(const struct clarity_app *a, enum clarity_slot_mode mode, int threads)
{
    struct clarity_blocked_result r1, r;
    int kinds = CLARITY_GROUP_JOB | CLARITY_GROUP_SQL | CLARITY_GROUP_APP;
    cr_assert_eq(clarity_blocked_analyze(a, kinds, mode, 1, &r1, NULL), 0);
    cr_assert_eq(clarity_blocked_analyze(a, kinds, mode, threads, &r, NULL), 0);
    cr_assert_eq(r.ngroups, r1.ngroups);
    cr_assert(r.ngroups > 10);
    SAME(&r.counts, &r1.counts, sizeof r.counts);
    cr_assert_eq(r.cpu_logged, r1.cpu_logged);
    cr_assert_eq(r.clamped, r1.clamped);
    SAME(r.groups, r1.groups, r.ngroups * sizeof *r.groups);
    clarity_blocked_free(&r1);
    clarity_blocked_free(&r);
}

static void curve_same(const struct clarity_app *a, enum clarity_slot_mode mode, int threads)
{
    struct clarity_hw hw;
    clarity_hw_from_log(a, &hw);
    struct clarity_curve_ask ask[] = {{0.5, true}, {1, true}, {2, true}, {3, false}};
    struct clarity_curve_result r1, r;
    cr_assert_eq(clarity_curve_analyze(a, &hw, mode, CLARITY_CURVE_EXECUTORS, ask, 3, 1, &r1, NULL), 0);
    cr_assert_eq(clarity_curve_analyze(a, &hw, mode, CLARITY_CURVE_EXECUTORS, ask, 3, threads, &r, NULL), 0);
    cr_assert(r1.components > 2);
    SAME(r.points, r1.points, r.npoints * sizeof *r.points);
    SAME(r.on_critical, r1.on_critical, a->nstages ? a->nstages : 1);
    struct clarity_curve_result x = r, x1 = r1;   /* the rest, pointers aside */
    x.points = x1.points = NULL;
    x.on_critical = x1.on_critical = NULL;
    SAME(&x, &x1, sizeof x);
    clarity_curve_free(&r);
    cr_assert_eq(clarity_curve_analyze(a, &hw, mode, CLARITY_CURVE_CORES, ask + 3, 1, threads, &r, NULL), 0);
    cr_assert_eq(r.points[0].slots, 3);
    clarity_curve_free(&r);
    clarity_curve_free(&r1);
}

static void resources_same(const struct clarity_app *a, int threads)
{
    struct clarity_hw hw, twice;
    clarity_hw_from_log(a, &hw);
    twice = hw;
    twice.v[CLARITY_HW_NET_GBPS] *= 2;
    struct clarity_resource_result r1, r;
    cr_assert_eq(clarity_resources_analyze(a, &hw, &twice, 1, &r1, NULL), 0);
    cr_assert_eq(clarity_resources_analyze(a, &hw, &twice, threads, &r, NULL), 0);
    cr_assert_eq(r.nstages, r1.nstages);
    cr_assert_eq(r.njobs, r1.njobs);
    SAME(r.stages, r1.stages, r.nstages * sizeof *r.stages);
    SAME(r.jobs, r1.jobs, r.njobs * sizeof *r.jobs);
    struct clarity_resource_result x = r, x1 = r1;   /* the rest, pointers aside */
    x.stages = x1.stages = NULL;
    x.jobs = x1.jobs = NULL;
    SAME(&x, &x1, sizeof x);
    clarity_resources_free(&r);
    clarity_resources_free(&r1);
}

Test(threads, every_analysis_the_same_with_1_2_and_5_workers)
{
    for (uint64_t seed = 1; seed <= 3; seed++) {
        struct clarity_app *a = load_random(seed * 2654435761u, 30);
        for (int threads = 2; threads <= 5; threads += 3) {
            stragglers_same(a, threads);
            blocked_same(a, CLARITY_SLOTS_OBSERVED, threads);
            blocked_same(a, CLARITY_SLOTS_CONFIGURED, threads);
            curve_same(a, CLARITY_SLOTS_OBSERVED, threads);
            curve_same(a, CLARITY_SLOTS_CONFIGURED, threads);
            resources_same(a, threads);
        }
        clarity_app_free(a);
    }
}

/* ---- blocked time against the plain replay of each whole group ---- */

static int row_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return (a > b) - (a < b);
}

struct span { int64_t s, f; };
static int span_cmp(const void *pa, const void *pb)
{
    const struct span *a = pa, *b = pb;
    return (a->s > b->s) - (a->s < b->s);
}

/* one group as blocked time replayed it before it worked stage by stage: every task of the
 * group in row order, one plan, every variant replayed over it */
static void reference(const struct clarity_app *a, const struct clarity_task_view *v, const struct clarity_group *g,
                      enum clarity_slot_mode mode, struct clarity_blocked_group *out)
{
    memset(out, 0, sizeof *out);
    size_t n = g->ntasks;
    out->tasks = n;
    if (!n) return;
    uint32_t *rows = malloc(n * sizeof *rows);
    size_t k = 0;
    for (size_t q = 0; q < g->nstages; q++)
        for (size_t i = 0; i < clarity_task_view_stage_size(v, g->stages[q]); i++)
            rows[k++] = clarity_task_view_stage_rows(v, g->stages[q])[i];
    qsort(rows, n, sizeof *rows, row_cmp);
    struct clarity_task_comp *c = malloc(n * sizeof *c);
    struct clarity_sim_task *st = malloc(n * sizeof *st);
    double *dolly = malloc(n * sizeof *dolly), *rt = malloc(n * sizeof *rt);
    struct span *sp = malloc(n * sizeof *sp);
    bool any_input = false;
    for (size_t i = 0; i < n; i++) {
        clarity_task_comp_from_row(a, rows[i], &c[i]);
        st[i] = (struct clarity_sim_task){c[i].launch_ms, c[i].finish_ms, c[i].sched_delay_ms, c[i].stage};
        out->task_ms += c[i].runtime_ms;
        out->cpu_tasks += c[i].cpu_logged;
        any_input |= clarity_task_input_bytes(&c[i]) > 0;
        sp[i] = (struct span){c[i].launch_ms, c[i].finish_ms};
    }
    /* Dolly per stage, over all the stage's tasks */
    for (size_t q = 0; q < g->nstages; q++) {
        size_t m = clarity_task_view_stage_size(v, g->stages[q]);
        struct clarity_task_comp *sc = malloc(m * sizeof *sc);
        double *d = malloc(m * sizeof *d);
        clarity_task_view_stage_comps(v, g->stages[q], sc);
        cr_assert_eq(clarity_dolly_stage(sc, NULL, m, d, NULL), 0);
        for (size_t j = 0; j < m; j++) {
            uint32_t *at = bsearch(&clarity_task_view_stage_rows(v, g->stages[q])[j], rows, n, sizeof *rows, row_cmp);
            dolly[at - rows] = d[j];
        }
        free(sc);
        free(d);
    }
    struct clarity_replay_plan p;
    cr_assert_eq(clarity_replay_plan_build(st, n, mode, a, &p, NULL), 0);
    out->components = p.ncomp;
    out->slots_min = INT32_MAX;
    for (size_t q = 0; q < p.ncomp; q++) {
        if (p.comp[q].slots < out->slots_min) out->slots_min = p.comp[q].slots;
        if (p.comp[q].slots > out->slots_max) out->slots_max = p.comp[q].slots;
        out->stages += p.comp[q].nunits;
    }
    for (size_t i = 0; i < n; i++) rt[i] = c[i].runtime_ms;
    out->simulated_ms = clarity_replay_plan_run(&p, rt);
    qsort(sp, n, sizeof *sp, span_cmp);
    int64_t reach = sp[0].f, hi = sp[0].f;
    for (size_t i = 1; i < n; i++) {
        if (sp[i].s > reach) out->idle_ms += sp[i].s - reach;
        if (sp[i].f > reach) reach = sp[i].f;
        if (sp[i].f > hi) hi = sp[i].f;
    }
    out->actual_ms = hi - sp[0].s;
    for (int r = 0; r < CLARITY_RES_COUNT; r++) {
        struct clarity_blocked_without *w = &out->without[r];
        w->available = r == CLARITY_RES_NON_CPU ? out->cpu_tasks == n : r == CLARITY_RES_STRAGGLERS ? any_input : true;
        if (!w->available) continue;
        for (size_t i = 0; i < n; i++) {
            rt[i] = r == CLARITY_RES_STRAGGLERS ? dolly[i] : clarity_task_without(&c[i], (enum clarity_resource)r);
            if (rt[i] > c[i].runtime_ms) rt[i] = c[i].runtime_ms;
            if (!(rt[i] >= 0)) rt[i] = 0;
            w->blocked_ms += c[i].runtime_ms - rt[i];
        }
        w->simulated_ms = clarity_replay_plan_run(&p, rt);
        if (w->simulated_ms > out->simulated_ms) w->simulated_ms = out->simulated_ms;
    }
    clarity_replay_plan_free(&p);
    free(rows); free(c); free(st); free(dolly); free(rt); free(sp);
}

Test(threads, blocked_equals_the_whole_group_replay)
{
    for (uint64_t seed = 1; seed <= 4; seed++) {
        struct clarity_app *a = load_random(seed * 40503, 24);
        struct clarity_task_view v;
        struct clarity_groups g;
        int kinds = CLARITY_GROUP_JOB | CLARITY_GROUP_SQL | CLARITY_GROUP_APP;
        cr_assert_eq(clarity_task_view_build(a, &v, NULL), 0);
        cr_assert_eq(clarity_groups_build(&v, kinds, &g, NULL), 0);
        size_t pooled = 0;
        for (int mode = 0; mode < 2; mode++) {
            struct clarity_blocked_result r;
            cr_assert_eq(clarity_blocked_analyze(a, kinds, (enum clarity_slot_mode)mode, 2, &r, NULL), 0);
            cr_assert_eq(r.ngroups, g.n);
            for (size_t i = 0; i < g.n; i++) {
                struct clarity_blocked_group ref, *x = &r.groups[i];
                reference(a, &v, &g.g[i], (enum clarity_slot_mode)mode, &ref);
                /* exact: the same sums in the same order */
                cr_assert_eq(x->tasks, ref.tasks);
                cr_assert_eq(x->task_ms, ref.task_ms, "group %zu", i);
                cr_assert_eq(x->components, ref.components);
                pooled += x->pooled_stages;
                cr_assert_eq(x->stages, ref.stages);
                cr_assert_eq(x->slots_min, ref.slots_min);
                cr_assert_eq(x->slots_max, ref.slots_max);
                cr_assert_eq(x->simulated_ms, ref.simulated_ms, "group %zu", i);
                cr_assert_eq(x->idle_ms, ref.idle_ms);
                cr_assert_eq(x->actual_ms, ref.actual_ms);
                for (int q = 0; q < CLARITY_RES_COUNT; q++) {
                    cr_assert_eq(x->without[q].available, ref.without[q].available);
                    cr_assert_eq(x->without[q].simulated_ms, ref.without[q].simulated_ms, "group %zu res %d", i, q);
                    cr_assert_eq(x->without[q].blocked_ms, ref.without[q].blocked_ms, "group %zu res %d", i, q);
                }
            }
            clarity_blocked_free(&r);
        }
        cr_assert(pooled > 0, "seed %llu: some stages overlapped and were replayed together", (unsigned long long)seed);
        clarity_groups_free(&g);
        clarity_task_view_free(&v);
        clarity_app_free(a);
    }
}
