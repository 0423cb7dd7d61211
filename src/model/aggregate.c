#include "clarity/model.h"
#include <stdlib.h>
#include <string.h>

/* *d += x, held at the int64 limits: a damaged metric near INT64_MAX/MIN must not wrap a
 * sum (undefined behaviour) and a saturated total reads as absurd, not as a small number. */
static inline void sat_add(int64_t *d, int64_t x)
{
    if (__builtin_add_overflow(*d, x, d)) *d = x < 0 ? INT64_MIN : INT64_MAX;
}

void clarity_totals_add_task(struct clarity_totals *t, const struct clarity_app *a, size_t i)
{
    const struct clarity_tasks *tk = &a->tasks;
    int64_t f = clarity_icol_get(&tk->flags, i);
    t->tasks++;
    if (f & CLARITY_TF_SPECULATIVE) t->speculative++;
    if (!(f & CLARITY_TF_ENDED)) {
        t->running++;
        return;
    }
    if (f & CLARITY_TF_KILLED) t->killed++;
    else if (f & CLARITY_TF_FAILED) t->failed++;
    else t->succeeded++;
    sat_add(&t->task_ms, clarity_icol_get(&tk->duration, i));
#define M(x) clarity_icol_get(&tk->m[CLARITY_TM_##x], i)
    sat_add(&t->run_ms, M(RUN_MS));
    int64_t cpu = M(CPU_NS);
    if (cpu) t->cpu_logged = true;
    sat_add(&t->cpu_ns, cpu);
    sat_add(&t->gc_ms, M(GC_MS));
    sat_add(&t->deser_ms, M(DESER_MS));
    sat_add(&t->input_bytes, M(INPUT_BYTES));
    sat_add(&t->output_bytes, M(OUTPUT_BYTES));
    sat_add(&t->shuffle_remote_bytes, M(SR_REMOTE_BYTES));
    sat_add(&t->shuffle_read_bytes, M(SR_REMOTE_BYTES));
    sat_add(&t->shuffle_read_bytes, M(SR_LOCAL_BYTES));
    sat_add(&t->shuffle_write_bytes, M(SW_BYTES));
    sat_add(&t->fetch_wait_ms, M(SR_FETCH_WAIT_MS));
    sat_add(&t->shuffle_write_ns, M(SW_TIME_NS));
    sat_add(&t->mem_spilled, M(MEM_SPILLED));
    sat_add(&t->disk_spilled, M(DISK_SPILLED));
#undef M
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

int clarity_totals_compute(const struct clarity_app *a, struct clarity_app_totals *t)
{
    memset(t, 0, sizeof *t);
    t->stage = calloc(a->nstages + 1, sizeof *t->stage);
    t->job = calloc(a->njobs + 1, sizeof *t->job);
    t->exec = calloc(a->nexecs + 1, sizeof *t->exec);
    t->sql = calloc(a->nsqls + 1, sizeof *t->sql);
    if (!t->stage || !t->job || !t->exec || !t->sql) {
        clarity_totals_free(t);
        return -1;
    }
    for (size_t i = 0; i < a->tasks.n; i++) {
        clarity_totals_add_task(&t->app, a, i);
        size_t s = (size_t)clarity_icol_get(&a->tasks.stage, i);
        clarity_totals_add_task(&t->stage[s], a, i);
        uint32_t ex = (uint32_t)clarity_icol_get(&a->tasks.executor, i), erow;
        if (clarity_idmap_get(&a->exec_by_name, ex, &erow)) clarity_totals_add_task(&t->exec[erow], a, i);
    }
    /* A stage can belong to several jobs; each job counts it once, as Spark's job pages do, and
     * a job's SQL execution counts it with the job. Walked from the stages' job lists through
     * the job index, so the cost is linear in stages (a loop over jobs x stages took minutes
     * on logs of 10^5 small jobs). */
    for (size_t s = 0; s < a->nstages; s++) {
        const struct clarity_stage *st = &a->stages[s];
        for (size_t k = 0; k < st->njob_ids; k++) {
            bool dup = false;   /* a job listed twice by one stage still counts it once */
            for (size_t q = 0; q < k && !dup; q++) dup = st->job_ids[q] == st->job_ids[k];
            struct clarity_job *job = dup ? NULL : clarity_app_job(a, st->job_ids[k]);
            if (!job) continue;
            add_totals(&t->job[job - a->jobs], &t->stage[s]);
            struct clarity_sql *q = job->sql_id >= 0 ? clarity_app_sql(a, job->sql_id) : NULL;
            if (q) add_totals(&t->sql[q - a->sqls], &t->stage[s]);
        }
    }
    return 0;
}

void clarity_totals_free(struct clarity_app_totals *t)
{
    free(t->stage); free(t->job); free(t->exec); free(t->sql);
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
