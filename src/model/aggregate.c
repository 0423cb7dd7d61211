#include "clarity/model.h"
#include "model/totals_pack.h"
#include "util/hugepage.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* *d += x, held at the int64 limits: a damaged metric near INT64_MAX/MIN must not wrap a
 * sum (undefined behaviour) and a saturated total reads as absurd, not as a small number. */
static inline void sat_add(int64_t *d, int64_t x)
{
    if (__builtin_add_overflow(*d, x, d)) *d = x < 0 ? INT64_MIN : INT64_MAX;
}

/* One task attempt's figures, read from the columns once and added to the application's, its
 * stage's and its executor's totals (three reads of ~17 columns per task before). The adds
 * keep the order and the separate saturating steps of a per-total read (shuffle read is
 * remote, then local), so a saturated sum comes out as it did. */
struct task_figs {
    int64_t flags, duration, run, cpu, gc, deser, in, out, sr_remote, sr_local, sw, fetch_wait,
        sw_ns, mem_spill, disk_spill;
};

static inline void task_figs_read(struct task_figs *v, const struct clarity_app *a, size_t i)
{
    const struct clarity_tasks *tk = &a->tasks;
    v->flags = clarity_icol_get(&tk->flags, i);
    if (!(v->flags & CLARITY_TF_ENDED)) return;
    v->duration = clarity_icol_get(&tk->duration, i);
#define M(x) clarity_icol_get(&tk->m[CLARITY_TM_##x], i)
    v->run = M(RUN_MS);
    v->cpu = M(CPU_NS);
    v->gc = M(GC_MS);
    v->deser = M(DESER_MS);
    v->in = M(INPUT_BYTES);
    v->out = M(OUTPUT_BYTES);
    v->sr_remote = M(SR_REMOTE_BYTES);
    v->sr_local = M(SR_LOCAL_BYTES);
    v->sw = M(SW_BYTES);
    v->fetch_wait = M(SR_FETCH_WAIT_MS);
    v->sw_ns = M(SW_TIME_NS);
    v->mem_spill = M(MEM_SPILLED);
    v->disk_spill = M(DISK_SPILLED);
#undef M
}

static inline void task_figs_add(struct clarity_totals *t, const struct task_figs *v)
{
    int64_t f = v->flags;
    t->tasks++;
    if (f & CLARITY_TF_SPECULATIVE) t->speculative++;
    if (!(f & CLARITY_TF_ENDED)) {
        t->running++;
        return;
    }
    if (f & CLARITY_TF_KILLED) t->killed++;
    else if (f & CLARITY_TF_FAILED) t->failed++;
    else t->succeeded++;
    sat_add(&t->task_ms, v->duration);
    sat_add(&t->run_ms, v->run);
    if (v->cpu) t->cpu_logged = true;
    sat_add(&t->cpu_ns, v->cpu);
    sat_add(&t->gc_ms, v->gc);
    sat_add(&t->deser_ms, v->deser);
    sat_add(&t->input_bytes, v->in);
    sat_add(&t->output_bytes, v->out);
    sat_add(&t->shuffle_remote_bytes, v->sr_remote);
    sat_add(&t->shuffle_read_bytes, v->sr_remote);
    sat_add(&t->shuffle_read_bytes, v->sr_local);
    sat_add(&t->shuffle_write_bytes, v->sw);
    sat_add(&t->fetch_wait_ms, v->fetch_wait);
    sat_add(&t->shuffle_write_ns, v->sw_ns);
    sat_add(&t->mem_spilled, v->mem_spill);
    sat_add(&t->disk_spilled, v->disk_spill);
}

void clarity_totals_add_task(struct clarity_totals *t, const struct clarity_app *a, size_t i)
{
    struct task_figs v = {0};
    task_figs_read(&v, a, i);
    task_figs_add(t, &v);
}

static void add_totals(struct clarity_totals *d, const struct clarity_totals *x)
{
#define ADD(f) sat_add(&d->f, x->f)
    ADD(tasks); ADD(succeeded); ADD(failed); ADD(killed); ADD(running); ADD(speculative);
    ADD(task_ms); ADD(run_ms); ADD(cpu_ns); ADD(gc_ms); ADD(deser_ms); ADD(input_bytes);
    ADD(output_bytes); ADD(shuffle_read_bytes); ADD(shuffle_remote_bytes);
    ADD(shuffle_write_bytes); ADD(fetch_wait_ms); ADD(shuffle_write_ns);
    ADD(mem_spilled); ADD(disk_spilled);
#undef ADD
    d->cpu_logged |= x->cpu_logged;
}

/* Per job and per query, the stage rows whose totals make theirs, in the order they are added
 * (compressed rows: row i's links are at [off[i], off[i + 1])), and the stages' totals
 * themselves, packed (model/totals_pack.h says why). */
struct clarity_totals_links {
    size_t *job_off, *sql_off;
    uint32_t *job_stage, *sql_stage;
    struct totals_pack stage;
};

/* Calls f(ctx, job row, SQL row or SIZE_MAX, stage row) for every addition of a stage's totals
 * to a job's and its query's, in the order they are made. A stage can belong to several jobs;
 * each job counts it once, as Spark's job pages do, and a job's SQL execution counts it with
 * the job. Walked from the stages' job lists through the job index, so the cost is linear in
 * stages (a loop over jobs x stages took minutes on logs of 10^5 small jobs). */
typedef void (*link_fn)(void *ctx, size_t job, size_t sql, size_t stage);
static void each_link(const struct clarity_app *a, link_fn f, void *ctx)
{
    for (size_t s = 0; s < a->nstages; s++) {
        const struct clarity_stage *st = &a->stages[s];
        for (size_t k = 0; k < st->njob_ids; k++) {
            bool dup = false;   /* a job listed twice by one stage still counts it once */
            for (size_t q = 0; q < k && !dup; q++) dup = st->job_ids[q] == st->job_ids[k];
            struct clarity_job *job = dup ? NULL : clarity_app_job(a, st->job_ids[k]);
            if (!job) continue;
            struct clarity_sql *q = job->sql_id >= 0 ? clarity_app_sql(a, job->sql_id) : NULL;
            f(ctx, (size_t)(job - a->jobs), q ? (size_t)(q - a->sqls) : SIZE_MAX, s);
        }
    }
}

static void add_link(void *ctx, size_t job, size_t sql, size_t stage)
{
    struct clarity_app_totals *t = ctx;
    add_totals(&t->job[job], &t->stage[stage]);
    if (sql != SIZE_MAX) add_totals(&t->sql[sql], &t->stage[stage]);
}

static void count_link(void *ctx, size_t job, size_t sql, size_t stage)
{
    struct clarity_totals_links *l = ctx;
    (void)stage;
    l->job_off[job + 1]++;
    if (sql != SIZE_MAX) l->sql_off[sql + 1]++;
}

/* With off[i] the start of row i's links, stores the link and advances off[i]: once every link
 * is stored, off[i] is where row i + 1's start and the offsets are shifted back by one. */
static void store_link(void *ctx, size_t job, size_t sql, size_t stage)
{
    struct clarity_totals_links *l = ctx;
    l->job_stage[l->job_off[job]++] = (uint32_t)stage;
    if (sql != SIZE_MAX) l->sql_stage[l->sql_off[sql]++] = (uint32_t)stage;
}

static void links_free(struct clarity_totals_links *l)
{
    if (!l) return;
    free(l->job_off); free(l->sql_off); free(l->job_stage); free(l->sql_stage);
    clarity__totals_pack_free(&l->stage);
    free(l);
}

/* Counts per row into off[1 ..], turns them into starts, stores, then shifts the advanced
 * starts back into place. */
static struct clarity_totals_links *links_build(const struct clarity_app *a)
{
    struct clarity_totals_links *l = calloc(1, sizeof *l);
    if (!l || a->nstages > UINT32_MAX) goto fail;
    l->job_off = calloc(a->njobs + 1, sizeof *l->job_off);
    l->sql_off = calloc(a->nsqls + 1, sizeof *l->sql_off);
    if (!l->job_off || !l->sql_off) goto fail;
    each_link(a, count_link, l);
    for (size_t i = 0; i < a->njobs; i++) l->job_off[i + 1] += l->job_off[i];
    for (size_t i = 0; i < a->nsqls; i++) l->sql_off[i + 1] += l->sql_off[i];
    l->job_stage = malloc((l->job_off[a->njobs] + 1) * sizeof *l->job_stage);
    l->sql_stage = malloc((l->sql_off[a->nsqls] + 1) * sizeof *l->sql_stage);
    if (!l->job_stage || !l->sql_stage) goto fail;
    each_link(a, store_link, l);
    memmove(l->job_off + 1, l->job_off, a->njobs * sizeof *l->job_off);
    memmove(l->sql_off + 1, l->sql_off, a->nsqls * sizeof *l->sql_off);
    l->job_off[0] = l->sql_off[0] = 0;
    return l;
fail:
    links_free(l);
    return NULL;
}

/* The application's, stages' and executors' totals, in one pass over the task rows. */
static int compute_tasks(const struct clarity_app *a, struct clarity_app_totals *t)
{
    t->stage = calloc(a->nstages + 1, sizeof *t->stage);
    t->exec = calloc(a->nexecs + 1, sizeof *t->exec);
    if (!t->stage || !t->exec) return -1;
    /* written once each, front to back: see util/hugepage.h */
    clarity_hugepage_advise(t->stage, (a->nstages + 1) * sizeof *t->stage);
    for (size_t i = 0; i < a->tasks.n; i++) {
        struct task_figs v = {0};
        task_figs_read(&v, a, i);
        task_figs_add(&t->app, &v);
        size_t s = (size_t)clarity_icol_get(&a->tasks.stage, i);
        task_figs_add(&t->stage[s], &v);
        uint32_t ex = (uint32_t)clarity_icol_get(&a->tasks.executor, i), erow;
        if (clarity_idmap_get(&a->exec_by_name, ex, &erow)) task_figs_add(&t->exec[erow], &v);
    }
    return 0;
}

int clarity_totals_compute(const struct clarity_app *a, struct clarity_app_totals *t)
{
    memset(t, 0, sizeof *t);
    t->job = calloc(a->njobs + 1, sizeof *t->job);
    t->sql = calloc(a->nsqls + 1, sizeof *t->sql);
    if (!t->job || !t->sql || compute_tasks(a, t) != 0) {
        clarity_totals_free(t);
        return -1;
    }
    clarity_hugepage_advise(t->job, (a->njobs + 1) * sizeof *t->job);
    clarity_hugepage_advise(t->sql, (a->nsqls + 1) * sizeof *t->sql);
    each_link(a, add_link, t);
    return 0;
}

/* Open stages' sums while the task rows are read: one slot per stage between its first and
 * its last task row (as many as ran at once), reused once the stage is packed. */
struct open_sums {
    struct clarity_totals *acc;
    uint32_t *free_slots;
    size_t nacc, nfree, cap;
};

static long open_slot(struct open_sums *o)
{
    if (o->nfree) return o->free_slots[--o->nfree];
    if (o->nacc == o->cap) {
        size_t nc = o->cap ? o->cap * 2 : 64;
        struct clarity_totals *acc = realloc(o->acc, nc * sizeof *acc);
        if (!acc) return -1;
        o->acc = acc;
        uint32_t *fs = realloc(o->free_slots, nc * sizeof *fs);
        if (!fs) return -1;
        o->free_slots = fs;
        o->cap = nc;
    }
    return (long)o->nacc++;
}

/* The application's and executors' totals, and each stage's packed, in one pass over the task
 * rows in row order (so every saturating sum is made in the order compute_tasks makes it): a
 * stage's sums live in an open slot from its first task row to its last, then are packed. */
static int compute_lean_tasks(const struct clarity_app *a, struct clarity_app_totals *t, struct totals_pack *p)
{
    size_t ns = a->nstages, nt = a->tasks.n;
    struct open_sums o = {0};
    int rc = -1;
    /* last[s]: stage s's last task row + 1 (0: none); slot[s]: its open slot + 1 */
    uint32_t *last = calloc(ns + 1, sizeof *last), *slot = calloc(ns + 1, sizeof *slot);
    t->exec = calloc(a->nexecs + 1, sizeof *t->exec);
    if (!last || !slot || !t->exec || nt >= UINT32_MAX || clarity__totals_pack_init(p, ns) != 0) goto out;
    for (size_t i = 0; i < nt; i++) {
        size_t s = (size_t)clarity_icol_get(&a->tasks.stage, i);
        if (s < ns) last[s] = (uint32_t)i + 1;
    }
    for (size_t i = 0; i < nt; i++) {
        struct task_figs v = {0};
        task_figs_read(&v, a, i);
        task_figs_add(&t->app, &v);
        uint32_t ex = (uint32_t)clarity_icol_get(&a->tasks.executor, i), erow;
        if (clarity_idmap_get(&a->exec_by_name, ex, &erow)) task_figs_add(&t->exec[erow], &v);
        size_t s = (size_t)clarity_icol_get(&a->tasks.stage, i);
        if (s >= ns) continue;
        if (!slot[s]) {
            long k = open_slot(&o);
            if (k < 0) goto out;
            o.acc[k] = (struct clarity_totals){0};
            slot[s] = (uint32_t)k + 1;
        }
        struct clarity_totals *x = &o.acc[slot[s] - 1];
        task_figs_add(x, &v);
        if (last[s] == i + 1) {
            if (clarity__totals_pack_put(p, s, x) != 0) goto out;
            o.free_slots[o.nfree++] = slot[s] - 1;
        }
    }
    for (size_t s = 0; s < ns; s++) {
        static const struct clarity_totals none;
        if (!last[s] && clarity__totals_pack_put(p, s, &none) != 0) goto out;
    }
    rc = 0;
out:
    free(last);
    free(slot);
    free(o.acc);
    free(o.free_slots);
    return rc;
}

int clarity_totals_compute_lean(const struct clarity_app *a, struct clarity_app_totals *t)
{
    memset(t, 0, sizeof *t);
    if (!(t->links = links_build(a)) || compute_lean_tasks(a, t, &t->links->stage) != 0) {
        clarity_totals_free(t);
        return -1;
    }
    return 0;
}

void clarity_totals_stage(const struct clarity_app_totals *t, size_t i, struct clarity_totals *out)
{
    if (t->stage) *out = t->stage[i];
    else if (t->links && i < t->links->stage.n) clarity__totals_pack_get(&t->links->stage, i, out);
    else *out = (struct clarity_totals){0};
}

/* Sums the stage totals of links [lo, hi) into *out, from zero, in the order the whole
 * computation adds them, so saturated sums come out alike. */
static void sum_links(const struct clarity_app_totals *t, const uint32_t *stage, size_t lo, size_t hi,
                      struct clarity_totals *out)
{
    *out = (struct clarity_totals){0};
    for (size_t k = lo; k < hi; k++) {
        struct clarity_totals x;
        clarity_totals_stage(t, stage[k], &x);
        add_totals(out, &x);
    }
}

void clarity_totals_job(const struct clarity_app_totals *t, size_t i, struct clarity_totals *out)
{
    if (t->job) *out = t->job[i];
    else if (t->links) sum_links(t, t->links->job_stage, t->links->job_off[i], t->links->job_off[i + 1], out);
    else *out = (struct clarity_totals){0};
}

void clarity_totals_sql(const struct clarity_app_totals *t, size_t i, struct clarity_totals *out)
{
    if (t->sql) *out = t->sql[i];
    else if (t->links) sum_links(t, t->links->sql_stage, t->links->sql_off[i], t->links->sql_off[i + 1], out);
    else *out = (struct clarity_totals){0};
}

void clarity_totals_free(struct clarity_app_totals *t)
{
    free(t->stage); free(t->job); free(t->exec); free(t->sql);
    links_free(t->links);
    memset(t, 0, sizeof *t);
}

int64_t clarity_stage_duration_ms(const struct clarity_app *a, const struct clarity_stage *s)
{
    (void)a;
    int64_t d;   /* an overflowing difference (damaged times) is as unknown as a missing one */
    if (s->submit_ms && s->complete_ms && !__builtin_sub_overflow(s->complete_ms, s->submit_ms, &d)) return d;
    return -1;
}

int64_t clarity_job_duration_ms(const struct clarity_app *a, const struct clarity_job *j)
{
    (void)a;
    int64_t d;
    if (j->submit_ms && j->end_ms && !__builtin_sub_overflow(j->end_ms, j->submit_ms, &d)) return d;
    return -1;
}

int64_t clarity_app_last_time_ms(const struct clarity_app *a)
{
    int64_t last = a->end_ms > a->start_ms ? a->end_ms : a->start_ms;
    for (size_t i = 0; i < a->njobs; i++) {
        if (a->jobs[i].end_ms > last) last = a->jobs[i].end_ms;
        if (a->jobs[i].submit_ms > last) last = a->jobs[i].submit_ms;
    }
    for (size_t i = 0; i < a->nstages; i++)
        if (a->stages[i].complete_ms > last) last = a->stages[i].complete_ms;
    /* a query's end and an executor's removal are logged after the last job and task: an
     * application without ApplicationEnd ran at least until them. Not an executor's addition:
     * it comes before its tasks, and where it does not (test fixtures edited by hand add
     * executors years later) it would stretch the application to that date */
    for (size_t i = 0; i < a->nsqls; i++) {
        if (a->sqls[i].end_ms > last) last = a->sqls[i].end_ms;
        if (a->sqls[i].start_ms > last) last = a->sqls[i].start_ms;
    }
    /* ... and only executors added while the application ran (the edited fixtures also remove
     * them years later) */
    int64_t ran_until = last;
    for (size_t i = 0; i < a->nexecs; i++)
        if (a->execs[i].remove_ms > last && a->execs[i].add_ms <= ran_until) last = a->execs[i].remove_ms;
    for (size_t i = 0; i < a->tasks.n; i++) {
        int64_t f = clarity_task_finish_ms(a, i), l = clarity_task_launch_ms(a, i);
        if (f > last) last = f;
        if (l > last) last = l;
    }
    return last;
}

int64_t clarity_app_duration_ms(const struct clarity_app *a)
{
    if (!a->start_ms) return -1;
    int64_t d;
    if (__builtin_sub_overflow(a->end_ms ? a->end_ms : clarity_app_last_time_ms(a), a->start_ms, &d)) return -1;
    return d;
}
