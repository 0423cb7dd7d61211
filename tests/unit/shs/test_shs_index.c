/* The REST layer's indexes against brute force on small random applications: every lookup
 * must give what a scan of the whole table gives, in the same order. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "shs/shs_index.h"
#include "shs/shs_internal.h"
#include "util/vec.h"

/* A small PRNG so every run draws the same applications. */
static uint64_t rnd_state;
static uint32_t rnd(uint32_t n)
{
    rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
    return n ? (uint32_t)((rnd_state >> 33) % n) : 0;
}

struct fake {
    struct clarity_app a;
    int64_t *excl_pool;
};

static void set(struct clarity_icol *c, size_t i, int64_t v, size_t cap)
{
    cr_assert_eq(clarity_icol_set(c, i, v, cap), 0);
}

/* nstages attempts over few stage ids, tasks with launch times around 0 (0 is "unknown"),
 * accumulables appended per task as TaskEnds append them, executors with exclusions. */
static void fake_app(struct fake *f, size_t nstages, size_t ntasks)
{
    memset(f, 0, sizeof *f);
    struct clarity_app *a = &f->a;
    a->nstages = nstages;
    a->stages = calloc(nstages ? nstages : 1, sizeof *a->stages);
    for (size_t i = 0; i < nstages; i++) {
        a->stages[i].stage_id = rnd((uint32_t)nstages / 2 + 1);
        a->stages[i].attempt = (int32_t)i;
    }
    a->tasks.n = a->tasks.cap = ntasks;
    cr_assert_eq(clarity_icol_reserve(&a->tasks.stage, 0, ntasks), 0);
    cr_assert_eq(clarity_icol_reserve(&a->tasks.launch_rel, 0, ntasks), 0);
    for (size_t t = 0; t < ntasks; t++) {
        set(&a->tasks.stage, t, rnd((uint32_t)nstages), ntasks);
        set(&a->tasks.launch_rel, t, (int64_t)rnd(40) - 8, ntasks);
    }
    size_t nsa = rnd(60);
    for (size_t i = 0; i < nsa; i++) {
        struct clarity_accum *x = CLARITY_VEC_PUSH(a->stage_accums.p, a->stage_accums.n, a->stage_accums.cap);
        x->owner = rnd((uint32_t)nstages);
        x->id = rnd(6);
        x->internal = rnd(4) == 0;
        x->is_sql = rnd(4) == 0;
        x->value = (int64_t)i;   /* tells equal ids apart */
    }
    /* runs of one owner, owners in any order, some past the task table */
    for (size_t k = 0, runs = rnd((uint32_t)ntasks + 1); k < runs; k++) {
        uint32_t owner = rnd((uint32_t)ntasks + 2);
        for (size_t i = 0, n = 1 + rnd(3); i < n; i++) {
            struct clarity_accum *x = CLARITY_VEC_PUSH(a->task_accums.p, a->task_accums.n, a->task_accums.cap);
            x->owner = owner;
            x->id = (int64_t)k;
        }
    }
    a->nexecs = 1 + rnd(4);
    a->execs = calloc(a->nexecs, sizeof *a->execs);
    f->excl_pool = calloc(a->nexecs * 4, sizeof *f->excl_pool);
    for (size_t e = 0; e < a->nexecs; e++) {
        a->execs[e].id = (uint32_t)(10 + e);
        a->execs[e].excluded_stages = f->excl_pool + 4 * e;
        a->execs[e].nexcluded_stages = rnd(5);
        for (size_t k = 0; k < a->execs[e].nexcluded_stages; k++) a->execs[e].excluded_stages[k] = rnd((uint32_t)nstages);
    }
}

static void fake_free(struct fake *f)
{
    clarity_icol_free(&f->a.tasks.stage);
    clarity_icol_free(&f->a.tasks.launch_rel);
    free(f->a.stages);
    free(f->a.stage_accums.p);
    free(f->a.task_accums.p);
    free(f->a.execs);
    free(f->excl_pool);
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* The window test every job used to run on every task. */
static bool in_window(int64_t submit, int64_t end, int64_t t)
{
    if (submit > 0 && t && t < submit) return false;
    if (end > 0 && t > end) return false;
    return true;
}

static void check_tasks(const struct shs_index *x, const struct clarity_app *a)
{
    uint32_t *want = malloc((a->tasks.n + 1) * sizeof *want), *got = malloc((a->tasks.n + 1) * sizeof *got);
    for (size_t s = 0; s < a->nstages; s++) {
        size_t nw = 0, n;
        for (size_t t = 0; t < a->tasks.n; t++)
            if ((size_t)clarity_icol_get(&a->tasks.stage, t) == s) want[nw++] = (uint32_t)t;
        const uint32_t *rows = clarity__shs_stage_task_rows(x, s, &n);
        cr_assert_eq(n, nw, "stage %zu: %zu rows, want %zu", s, n, nw);
        for (size_t i = 0; i < n; i++) cr_assert_eq(rows[i], want[i], "stage %zu row %zu", s, i);
        cr_assert_leq(n, x->max_stage_tasks);
        /* windows with and without bounds, around the launch times drawn */
        for (int k = 0; k < 6; k++) {
            int64_t submit = (int64_t)rnd(30) - 5, end = (int64_t)rnd(40) - 5;
            if (k == 0) submit = end = 0;
            size_t ng = clarity__shs_stage_tasks_in_window(x, s, submit, end, got);
            nw = 0;
            for (size_t i = 0; i < n; i++)
                if (in_window(submit, end, clarity_task_launch_ms(a, rows[i]))) want[nw++] = rows[i];
            qsort(got, ng, sizeof *got, cmp_u32);
            cr_assert_eq(ng, nw, "stage %zu window [%lld, %lld]: %zu tasks, want %zu", s, (long long)submit,
                         (long long)end, ng, nw);
            for (size_t i = 0; i < ng; i++) cr_assert_eq(got[i], want[i]);
        }
    }
    free(want);
    free(got);
}

static void check_stage_ids(const struct shs_index *x, const struct clarity_app *a)
{
    for (int64_t id = -1; id <= (int64_t)a->nstages; id++) {
        size_t n, k = 0;
        const uint32_t *rows = clarity__shs_stage_rows_of(x, id, &n);
        for (size_t i = 0; i < a->nstages; i++)
            if (a->stages[i].stage_id == id) {
                cr_assert_lt(k, n, "stage id %lld: too few rows", (long long)id);
                cr_assert_eq(rows[k++], i);
            }
        cr_assert_eq(k, n, "stage id %lld: %zu rows, want %zu", (long long)id, n, k);
    }
}

static void check_accums(const struct shs_index *x, const struct clarity_app *a)
{
    /* stage: the shown ones of the stage, stable-sorted by id (insertion sort) */
    const struct clarity_accums *sa = &a->stage_accums;
    uint32_t *want = malloc((sa->n + 1) * sizeof *want);
    for (size_t s = 0; s < a->nstages; s++) {
        size_t nw = 0, n;
        for (size_t i = 0; i < sa->n; i++) {
            if (sa->p[i].owner != s || sa->p[i].internal || sa->p[i].is_sql) continue;
            size_t k = nw++;
            while (k > 0 && sa->p[want[k - 1]].id > sa->p[i].id) {
                want[k] = want[k - 1];
                k--;
            }
            want[k] = (uint32_t)i;
        }
        const uint32_t *pos = clarity__shs_stage_accums_of(x, s, &n);
        cr_assert_eq(n, nw, "stage %zu: %zu accumulables, want %zu", s, n, nw);
        for (size_t i = 0; i < n; i++) cr_assert_eq(pos[i], want[i], "stage %zu accumulable %zu", s, i);
    }
    free(want);
    /* task: the first position of the task's and how many it has */
    const struct clarity_accums *ta = &a->task_accums;
    for (size_t t = 0; t < a->tasks.n; t++) {
        size_t wfirst = 0, wn = 0, first;
        for (size_t i = ta->n; i-- > 0;)
            if (ta->p[i].owner == t) wfirst = i, wn++;
        size_t n = clarity__shs_task_accums_of(x, t, &first);
        cr_assert_eq(n, wn, "task %zu: %zu accumulables, want %zu", t, n, wn);
        if (n) cr_assert_eq(first, wfirst, "task %zu", t);
    }
}

Test(shs_index, every_lookup_matches_a_scan)
{
    rnd_state = 22;
    for (int round = 0; round < 300; round++) {
        struct fake f;
        size_t ns = rnd(12);
        fake_app(&f, ns, ns ? rnd(80) : 0);
        struct shs_index x;
        unsigned all = SHS_IX_TASKS | SHS_IX_LAUNCH | SHS_IX_STAGE_IDS | SHS_IX_ACCUMS;
        cr_assert_eq(clarity__shs_index_build(&x, &f.a, all), 0);
        check_tasks(&x, &f.a);
        check_stage_ids(&x, &f.a);
        check_accums(&x, &f.a);
        clarity__shs_index_free(&x);
        fake_free(&f);
    }
}

Test(shs_index, only_the_parts_asked_for)
{
    rnd_state = 7;
    struct fake f;
    fake_app(&f, 5, 20);
    struct shs_index x;
    cr_assert_eq(clarity__shs_index_build(&x, &f.a, SHS_IX_LAUNCH), 0);
    cr_assert_not_null(x.task_rows, "the launch order implies the stage groups");
    cr_assert_not_null(x.task_rows_by_launch);
    cr_assert_null(x.stage_by_id);
    cr_assert_null(x.stage_acc);
    clarity__shs_index_free(&x);
    fake_free(&f);
}

/* killedTasksSummary: counts by text in first-seen order, whatever the number of texts. */
Test(shs_index, counts_by_hash_match_a_list)
{
    rnd_state = 3;
    for (int round = 0; round < 20; round++) {
        struct shs_counts c = {0};
        uint32_t distinct = 1 + rnd(round < 10 ? 5 : 400);
        char seen_text[400][32];
        int64_t seen_n[400];
        size_t nseen = 0;
        for (int i = 0; i < 1000; i++) {
            char t[32];
            snprintf(t, sizeof t, "reason %u", rnd(distinct));
            int64_t n = 1 + rnd(3);
            cr_assert_eq(clarity__shs_counts_add(&c, t, n), 0);
            size_t k = 0;
            while (k < nseen && strcmp(seen_text[k], t)) k++;
            if (k == nseen) {
                snprintf(seen_text[nseen], sizeof seen_text[0], "%s", t);
                seen_n[nseen++] = 0;
            }
            seen_n[k] += n;
        }
        cr_assert_eq(c.n, nseen);
        for (size_t k = 0; k < nseen; k++) {
            cr_assert_str_eq(c.p[k].text, seen_text[k]);
            cr_assert_eq(c.p[k].n, seen_n[k], "%s", seen_text[k]);
        }
        cr_assert_eq(clarity__shs_counts_add(&c, NULL, 1), 0, "no text: nothing counted");
        cr_assert_eq(c.n, nseen);
        clarity__shs_counts_free(&c);
    }
}
