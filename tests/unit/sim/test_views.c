/* The task view, stage groups, replay components, the executor-core index and the worker
 * pool, each against the plain computation it replaces, on random logs (random_log.h). */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include "../model/load_helpers.h"
#include "random_log.h"
#include "clarity/sim.h"
#include "sim/components.h"
#include "sim/workers.h"

static struct clarity_app *load_random(uint64_t seed, int njobs)
{
    size_t n;
    char *text = random_log(seed, njobs, &n);
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(text, &a, &err), CLARITY_OK, "seed %llu: %s", (unsigned long long)seed, err.msg);
    free(text);
    cr_assert(a->tasks.n > 0);
    return a;
}

Test(task_view, rows_by_stage_and_counts_equal_a_scan)
{
    for (uint64_t seed = 1; seed <= 12; seed++) {
        struct clarity_app *a = load_random(seed * 7919, 10);
        struct clarity_task_view v;
        cr_assert_eq(clarity_task_view_build(a, &v, NULL), 0);
        cr_assert_eq(v.nstages, a->nstages);
        struct clarity_task_counts k = {0};
        size_t most = 0;
        for (size_t s = 0; s < a->nstages; s++) {
            size_t m = 0;
            for (size_t i = 0; i < a->tasks.n; i++) {
                if (clarity_icol_get(&a->tasks.end, i) != CLARITY_END_SUCCESS ||
                    (size_t)clarity_icol_get(&a->tasks.stage, i) != s)
                    continue;
                cr_assert(m < clarity_task_view_stage_size(&v, s));
                cr_assert_eq(clarity_task_view_stage_rows(&v, s)[m], i, "stage %zu: rows in row order", s);
                m++;
            }
            cr_assert_eq(clarity_task_view_stage_size(&v, s), m);
            if (m > most) most = m;
        }
        for (size_t i = 0; i < a->tasks.n; i++) {
            int end = (int)clarity_icol_get(&a->tasks.end, i);
            if (end == CLARITY_END_SUCCESS) {
                k.n++;
                if (clarity_task_flags(a, i) & CLARITY_TF_SPECULATIVE) k.speculative++;
            } else if (end == CLARITY_END_RUNNING) k.without_end++;
            else if (end == CLARITY_END_KILLED) k.killed++;
            else if (end == CLARITY_END_OTHER || end == CLARITY_END_RESUBMITTED) k.other_end++;
            else k.failed++;
        }
        cr_assert_eq(v.max_stage, most);
        cr_assert(k.n > 0 && k.killed > 0 && k.failed > 0, "seed %llu: the log has each kind", (unsigned long long)seed);
        cr_assert_eq(memcmp(&v.counts, &k, sizeof k), 0);
        clarity_task_view_free(&v);
        clarity_app_free(a);
    }
}

/* the owner rule of groups.c, applied by a scan over every job for every stage */
static bool better(const struct clarity_app *a, long cur, size_t j, int64_t t)
{
    if (cur < 0) return true;
    const struct clarity_job *x = &a->jobs[j], *y = &a->jobs[cur];
    bool xe = x->submit_ms > 0 && x->submit_ms <= t, ye = y->submit_ms > 0 && y->submit_ms <= t;
    if (xe != ye) return xe;
    if (xe && x->submit_ms != y->submit_ms) return x->submit_ms > y->submit_ms;
    return x->job_id < y->job_id;
}

static long owner_by_scan(const struct clarity_app *a, size_t s)
{
    int64_t first = INT64_MAX;
    for (size_t i = 0; i < a->tasks.n; i++)
        if (clarity_icol_get(&a->tasks.end, i) == CLARITY_END_SUCCESS && (size_t)clarity_icol_get(&a->tasks.stage, i) == s &&
            clarity_task_launch_ms(a, i) < first)
            first = clarity_task_launch_ms(a, i);
    long owner = -1;
    for (size_t j = 0; j < a->njobs; j++) {
        bool lists = false;
        for (size_t k = 0; k < a->jobs[j].nstage_ids; k++) lists |= a->jobs[j].stage_ids[k] == a->stages[s].stage_id;
        for (size_t k = 0; k < a->stages[s].njob_ids; k++) lists |= a->stages[s].job_ids[k] == a->jobs[j].job_id;
        if (lists && better(a, owner, j, first)) owner = (long)j;
    }
    return owner;
}

Test(groups, stage_lists_equal_an_owner_scan)
{
    for (uint64_t seed = 1; seed <= 12; seed++) {
        struct clarity_app *a = load_random(seed * 104729, 14);
        struct clarity_task_view v;
        struct clarity_groups g;
        cr_assert_eq(clarity_task_view_build(a, &v, NULL), 0);
        cr_assert_eq(clarity_groups_build(&v, CLARITY_GROUP_JOB | CLARITY_GROUP_SQL | CLARITY_GROUP_APP, &g, NULL), 0);
        cr_assert_eq(g.n, a->njobs + a->nsqls + 1);
        long *owner = malloc(a->nstages * sizeof *owner);
        for (size_t s = 0; s < a->nstages; s++) owner[s] = owner_by_scan(a, s);
        for (size_t i = 0; i < g.n; i++) {
            const struct clarity_group *x = &g.g[i];
            if (i > 0 && x->kind == g.g[i - 1].kind) cr_assert(x->id > g.g[i - 1].id, "by id");
            size_t m = 0, tasks = 0;
            for (size_t s = 0; s < a->nstages; s++) {
                size_t n = clarity_task_view_stage_size(&v, s);
                bool in = false;
                if (n == 0) continue;
                if (x->kind == CLARITY_GROUP_APP) in = true;
                else if (x->kind == CLARITY_GROUP_JOB) in = owner[s] == (long)x->row;
                else in = owner[s] >= 0 && a->jobs[owner[s]].sql_id == a->sqls[x->row].id;
                if (!in) continue;
                cr_assert(m < x->nstages);
                cr_assert_eq(x->stages[m], s, "group %zu: stages ascending", i);
                m++;
                tasks += n;
            }
            cr_assert_eq(x->nstages, m, "group %zu (%s %lld)", i, clarity_group_kind_name(x->kind), (long long)x->id);
            cr_assert_eq(x->ntasks, tasks);
        }
        free(owner);
        clarity_groups_free(&g);
        clarity_task_view_free(&v);
        clarity_app_free(a);
    }
}

Test(slot_index, configured_slots_equal_the_scan)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 300; round++) {
        struct clarity_executor ex[40];
        size_t n = (size_t)rl_int(&seed, 0, 40);
        bool odd = round % 5 == 0;   /* some executors removed before they were added */
        for (size_t i = 0; i < n; i++) {
            memset(&ex[i], 0, sizeof ex[i]);
            ex[i].add_ms = rl_int(&seed, 0, 6) ? rl_int(&seed, 0, 100) : 0;
            ex[i].remove_ms = rl_int(&seed, 0, 2) ? 0 : odd ? rl_int(&seed, 0, 100) : ex[i].add_ms + rl_int(&seed, 0, 50);
            ex[i].total_cores = (int32_t)rl_int(&seed, -1, 8);
            ex[i].is_driver = rl_int(&seed, 0, 9) == 0;
        }
        struct clarity_app a;
        memset(&a, 0, sizeof a);
        a.execs = ex;
        a.nexecs = n;
        struct clarity__slot_index x;
        cr_assert_eq(clarity__slot_index_build(&a, &x, NULL), 0);
        for (int q = 0; q < 60; q++) {
            int64_t from = rl_int(&seed, -5, 160), to = from + rl_int(&seed, 0, 60);
            cr_assert_eq(clarity__slot_index_query(&x, from, to), clarity_sim_configured_slots(&a, from, to),
                         "round %d: [%lld, %lld]", round, (long long)from, (long long)to);
        }
        clarity__slot_index_free(&x);
    }
}

/* Components pooled from stage spans equal clarity_replay_plan_build's over every task. */
static void components_equal_the_plan(uint64_t seed, enum clarity_slot_mode mode)
{
    struct clarity_app *a = load_random(seed, 16);
    struct clarity_task_view v;
    cr_assert_eq(clarity_task_view_build(a, &v, NULL), 0);
    size_t n = v.counts.n;
    uint32_t *row = malloc(n * sizeof *row);
    struct clarity_sim_task *t = malloc(n * sizeof *t);
    size_t k = 0;
    for (size_t i = 0; i < a->tasks.n; i++) {
        if (clarity_icol_get(&a->tasks.end, i) != CLARITY_END_SUCCESS) continue;
        struct clarity_task_comp c;
        clarity_task_comp_from_row(a, i, &c);
        row[k] = (uint32_t)i;
        t[k++] = (struct clarity_sim_task){c.launch_ms, c.finish_ms, c.sched_delay_ms, c.stage};
    }
    struct clarity_replay_plan p;
    cr_assert_eq(clarity_replay_plan_build(t, n, mode, a, &p, NULL), 0);

    struct clarity__stage_span *span = calloc(a->nstages, sizeof *span);
    uint32_t *units = malloc(a->nstages * sizeof *units);
    struct clarity_replay_component *comp;
    size_t ncomp;
    struct clarity__slot_index x;
    cr_assert_eq(clarity__slot_index_build(a, &x, NULL), 0);
    cr_assert_eq(clarity__stage_spans(&v, 2, span, NULL), 0);
    size_t nu = clarity__stages_with_tasks(&v, units);
    cr_assert_eq(clarity__components_build(&v, span, units, nu, &comp, &ncomp, NULL), 0);
    cr_assert_eq(ncomp, p.ncomp, "seed %llu", (unsigned long long)seed);
    cr_assert(ncomp > 2, "seed %llu: several components", (unsigned long long)seed);
    struct clarity__launch_row *lr = malloc(n * sizeof *lr);
    struct clarity_sim_task *ct = malloc(n * sizeof *ct);
    double *heap = malloc(n * sizeof *heap);
    for (size_t c = 0; c < ncomp; c++) {
        const struct clarity_replay_component *q = &comp[c], *r = &p.comp[c];
        cr_assert_eq(q->n, r->n);
        cr_assert_eq(q->nunits, r->nunits);
        cr_assert_eq(q->start_ms, r->start_ms);
        cr_assert_eq(q->end_ms, r->end_ms);
        clarity__component_tasks(&v, units + q->first, q->nunits, lr, q->n);
        for (size_t i = 0; i < q->n; i++) {
            cr_assert_eq(lr[i].row, row[p.order[r->first + i]], "component %zu: launch order", c);
            ct[i] = t[p.order[r->first + i]];
        }
        bool fb;
        int slots = clarity__component_slots(mode == CLARITY_SLOTS_CONFIGURED ? &x : NULL, ct, q->n, q->start_ms, q->end_ms,
                                             heap, &fb);
        cr_assert_eq(slots, r->slots);
        cr_assert_eq(fb, r->slots_fallback);
    }
    free(lr); free(ct); free(heap); free(comp); free(units); free(span); free(row); free(t);
    clarity__slot_index_free(&x);
    clarity_replay_plan_free(&p);
    clarity_task_view_free(&v);
    clarity_app_free(a);
}

Test(components, pooled_stages_equal_the_replay_plan)
{
    for (uint64_t seed = 1; seed <= 10; seed++) {
        components_equal_the_plan(seed * 31337, CLARITY_SLOTS_OBSERVED);
        components_equal_the_plan(seed * 31337, CLARITY_SLOTS_CONFIGURED);
    }
}

static int by_launch(const void *pa, const void *pb)
{
    const struct clarity_sim_task *a = pa, *b = pb;
    return (a->launch_ms > b->launch_ms) - (a->launch_ms < b->launch_ms);
}

Test(components, observed_slots_by_sweep_equal_the_sorted_edges)
{
    uint64_t seed = 0x2545f4914f6cdd1dull;
    struct clarity_sim_task t[200];
    double heap[200];
    for (int round = 0; round < 2000; round++) {
        size_t n = (size_t)rl_int(&seed, 0, 200);
        int64_t span = rl_int(&seed, 1, 400);
        for (size_t i = 0; i < n; i++) {
            int64_t s = rl_int(&seed, 0, span), d = rl_int(&seed, 0, 4) ? rl_int(&seed, 0, 120) : 0;
            double trim = rl_int(&seed, 0, 3) ? 0 : (double)rl_int(&seed, -5, 40) + 0.5;
            t[i] = (struct clarity_sim_task){s, s + d, trim, 0};
        }
        qsort(t, n, sizeof *t, by_launch);
        cr_assert_eq(clarity__observed_slots_sorted(t, n, heap), clarity_sim_observed_slots(t, n), "round %d, %zu tasks",
                     round, n);
    }
}

struct count_ctx { atomic_int *seen; size_t fail_a, fail_b; size_t nworkers; };

static int count_item(void *ctx, size_t item, size_t worker, struct clarity_error *err)
{
    struct count_ctx *c = ctx;
    cr_assert(worker < c->nworkers);
    atomic_fetch_add(&c->seen[item], 1);
    if (item == c->fail_a || item == c->fail_b)
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "item %zu failed", item);
    return 0;
}

Test(workers, every_item_once_and_the_lowest_failure)
{
    int threads[] = {1, 2, 3, 8, 0};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        for (size_t n = 0; n < 300; n += 37) {
            atomic_int *seen = calloc(n + 1, sizeof *seen);
            struct count_ctx c = {seen, SIZE_MAX, SIZE_MAX, clarity__workers_count(threads[t], n)};
            cr_assert_eq(clarity__workers_run(threads[t], n, count_item, &c, NULL), 0);
            for (size_t i = 0; i < n; i++) cr_assert_eq(atomic_load(&seen[i]), 1, "threads %d: item %zu", threads[t], i);
            free(seen);
        }
        atomic_int seen[100] = {0};
        struct count_ctx c = {seen, 61, 17, clarity__workers_count(threads[t], 100)};
        struct clarity_error err = {0};
        cr_assert_eq(clarity__workers_run(threads[t], 100, count_item, &c, &err), CLARITY_ENOMEM);
        cr_assert_str_eq(err.msg, "item 17 failed", "threads %d: the lowest failing item", threads[t]);
        for (size_t i = 0; i < 17; i++) cr_assert_eq(atomic_load(&seen[i]), 1, "items before it all ran");
    }
    cr_assert_eq(clarity__workers_count(1, 1000), 1);
    cr_assert_eq(clarity__workers_count(4, 3), 3);
    cr_assert_eq(clarity__workers_count(200, 1000), 64);
    cr_assert_eq(clarity__workers_count(0, 0), 1);
}
