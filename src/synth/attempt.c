/* A task attempt from launch to its TaskEnd: demands drawn at launch, phases in order,
 * failure, kill, and the bookkeeping of slots, pools and the stage when it ends. */
#include <math.h>
#include <stdlib.h>
#include "synth/internal.h"
#include "util/vec.h"

static int32_t attempt_alloc(struct sim *s)
{
    if (!s->natt_free) {
        int old = s->cap_att, nc = old ? old * 2 : 256;
        struct sy_attempt *p = realloc(s->att, (size_t)nc * sizeof *p);
        int32_t *f = realloc(s->att_free, (size_t)nc * sizeof *f);
        if (f) s->att_free = f;
        if (!p || !f) {
            if (p) s->att = p;
            SIM_FAIL(s, "out of memory");
            return -1;
        }
        s->att = p;
        for (int i = nc - 1; i >= old; i--) {
            s->att[i].used = false;
            s->att[i].timer = -1;
            s->att_free[s->natt_free++] = i;
        }
        s->cap_att = nc;
    }
    int32_t id = s->att_free[--s->natt_free];
    int32_t timer = s->att[id].timer;
    s->att[id] = (struct sy_attempt){.used = true, .fault_seen = -1, .fault_remote = -1};
    if (timer < 0) timer = clarity_timer_new(&s->heap, TK_ATTEMPT, id);
    if (timer < 0) {
        SIM_FAIL(s, "out of memory");
        return -1;
    }
    s->att[id].timer = timer;
    return id;
}

/* Execution memory a task may use before it spills: Spark's unified memory (heap - 300 MiB
 * reserved) * spark.memory.fraction 0.6, shared by the executor's task slots. */
static double exec_mem_share(const struct sy_exec *e)
{
    double usable = (e->heap - 300.0 * 1048576) * 0.6 - e->cached_bytes;
    if (usable < 64.0 * 1048576) usable = 64.0 * 1048576;
    return usable / (e->cores > 0 ? e->cores : 1);
}

void clarity_attempt_launch(struct sim *s, struct sy_stage *st, int index, struct sy_exec *e, int locality, bool speculative)
{
    const struct synth_config *c = s->cfg;
    int32_t id = attempt_alloc(s);
    if (id < 0) return;
    struct sy_attempt *a = &s->att[id];
    struct sy_ptask *pt = &st->tasks[index];
    struct sy_host *h = &s->hosts[e->host];
    a->tid = s->next_tid++;
    a->stage = st->idx;
    a->index = index;
    a->attempt = pt->nlaunched++;
    a->exec = e->idx;
    a->host = e->host;
    a->locality = locality;
    a->speculative = speculative;
    a->t_launch = s->now;
    a->first_on_exec = e->last_stage != st->idx;
    e->last_stage = st->idx;

    /* --keyed-draws: the task's work from a stream keyed by its stage and partition, so a retry
       does the same work and a re-run's task does what the first run's did (rng.h) */
    struct rng keyed, *rw = &s->rng_work, *rs = &s->rng_sched;
    if (c->keyed_draws) rng_keyed(&keyed, c->seed, 5, ((uint64_t)st->idx << 32) + (uint64_t)index), rw = rs = &keyed;
    double skew = pt->skew, noise = rng_lognormal(rw, 0.08);
    a->in_bytes = st->in_bytes * skew;
    double sr = st->sr_bytes * skew, local = s->nhosts > 1 ? 1.0 / s->nhosts : 1.0;
    a->sr_local = sr * local;
    a->sr_remote = sr - a->sr_local;
    a->sw_bytes = st->sw_bytes * skew;
    a->out_bytes = st->out_bytes * skew;
    a->mem_bytes = st->mem_bytes * skew;
    a->alloc_per_cpu = st->alloc_per_cpu * (c->gc_pressure > 0 ? c->gc_pressure : 1);
    a->result_bytes = st->result_bytes * (0.9 + 0.2 * rng_unit(rw));
    double share = exec_mem_share(e);
    if (a->mem_bytes > share) {
        a->spill_mem = a->mem_bytes - share;
        a->spill_disk = a->spill_mem * 0.35;   /* serialized and compressed on disk */
    }
    a->work[PH_LAUNCH] = 0.002 + 0.004 * rng_unit(rs);
    a->work[PH_DESER] = 0.004 + 0.01 * rng_unit(rw) + (a->first_on_exec ? 0.15 + 0.2 * rng_unit(rw) : 0);
    a->work[PH_INPUT] = st->input_kind == IN_NONE ? 0
                      : locality == LOC_PROCESS ? a->in_bytes / 2.0e9   /* deserialize cached block */
                      : a->in_bytes;
    a->work[PH_FETCH_NET] = a->sr_remote;
    a->work[PH_FETCH_DISK] = a->sr_local;
    a->work[PH_COMPUTE] = st->cpu_s * skew * noise * c->cpu_scale;
    a->work[PH_SPILL] = 2 * a->spill_disk;
    a->work[PH_SHUFFLE_WRITE] = a->sw_bytes;
    a->work[PH_OUTPUT] = a->out_bytes;
    a->work[PH_RESULT_SER] = 0.0005 + 0.002 * rng_unit(rw);
    a->work[PH_RESULT_SEND] = 0.001 + 0.003 * rng_unit(rs) + a->result_bytes / 1.0e9;
    double rec = st->input_kind != IN_NONE ? 100.0 : 60.0;   /* bytes per record */
    a->records_in = (int64_t)(a->in_bytes / rec);
    a->records_sr = (int64_t)(sr / 60.0);
    a->records_sw = (int64_t)(a->sw_bytes / 60.0);
    a->records_out = (int64_t)(a->out_bytes / 100.0);
    /* a failure throws part-way through compute; the last allowed attempt is spared so that
     * generated jobs succeed (spark.task.maxFailures) */
    if (c->failure_rate > 0 && pt->failures + 1 < 4 && rng_unit(&s->rng_fail) < c->failure_rate) {
        a->will_fail = true;
        a->work[PH_COMPUTE] *= 0.1 + 0.8 * rng_unit(&s->rng_fail);
        for (int p = PH_SPILL; p < PH_RESULT_SEND; p++) a->work[p] = 0;
        a->work[PH_RESULT_SEND] = 0.002;
    }

    pt->running++;
    pt->queued = 0;
    if (speculative) {
        pt->spec_launched = 1;
        st->spec_running++;
    }
    st->running++;
    st->launched_total++;
    s->pools[st->pool].running++;
    e->free_slots--;
    e->running++;
    e->idle_since = -1;

    clarity_host_advance(s, h);
    clarity_host_add_attempt(s, h, id);
    clarity_phase_enter(s, a, PH_LAUNCH);
    clarity_host_reschedule(s, h);
    clarity_ev_task_start(s, a);
    clarity_log_task_start(s, a);
}

static void attempt_finish(struct sim *s, int32_t id, int end)
{
    struct sy_attempt *a = &s->att[id];
    struct sy_stage *st = &s->stages[a->stage];
    struct sy_ptask *pt = &st->tasks[a->index];
    struct sy_exec *e = &s->execs[a->exec];
    a->end_phase = a->phase;
    for (int p = a->phase < PH_COUNT ? a->phase + 1 : PH_COUNT; p <= PH_COUNT; p++) a->t_phase[p] = s->now;
    a->t_phase[PH_COUNT] = s->now;
    a->phase = PH_COUNT;
    st->spill_s += a->t_phase[PH_SPILL + 1] - a->t_phase[PH_SPILL];
    clarity_timer_cancel(&s->heap, a->timer);
    clarity_ev_task_end(s, a, end);
    clarity_log_task_end(s, a, end, sim_ms(s, s->now) - sim_ms(s, a->t_launch));
    clarity_truth_attempt_end(s, a, end);
    pt->running--;
    if (a->speculative) st->spec_running--;
    st->running--;
    s->pools[st->pool].running--;
    e->free_slots++;
    e->running--;
    e->busy_s += s->now - a->t_launch;
    s->task_s += s->now - a->t_launch;
    s->task_gc_s += a->gc_s;
    if (!e->running) e->idle_since = s->now;
    a->used = false;
    s->att_free[s->natt_free++] = id;
    if (end == 1) {
        if (a->lost) st->lost_attempts++;
        else st->failed_attempts++;
        pt->failures++;
        if (!pt->done && !pt->running) clarity_taskset_enqueue(s, st, a->index);
    }
}

void clarity_attempt_kill(struct sim *s, int32_t id)
{
    struct sy_attempt *a = &s->att[id];
    struct sy_host *h = &s->hosts[a->host];
    clarity_host_advance(s, h);
    clarity_host_remove_attempt(s, h, id);
    clarity_host_reschedule(s, h);
    a->killed = true;
    attempt_finish(s, id, 2);
}

/* Its executor died under it: Spark's ExecutorLostFailure. The attempt counts as failed (the
 * loss was caused by the application, as an OOM kill is) and its task is queued again. */
void clarity_attempt_lose(struct sim *s, int32_t id)
{
    struct sy_attempt *a = &s->att[id];
    struct sy_host *h = &s->hosts[a->host];
    clarity_host_advance(s, h);
    clarity_host_remove_attempt(s, h, id);
    clarity_host_reschedule(s, h);
    a->lost = true;
    attempt_finish(s, id, 1);
}

void clarity_attempt_timer(struct sim *s, int32_t id)
{
    struct sy_attempt *a = &s->att[id];
    struct sy_host *h = &s->hosts[a->host];
    clarity_host_advance(s, h);
    a->remaining = 0;
    int next = a->phase + 1;
    if (a->will_fail && next > PH_COMPUTE && next < PH_RESULT_SEND) {
        for (int p = next; p < PH_RESULT_SEND; p++) a->t_phase[p] = s->now;   /* the exception skips them */
        next = PH_RESULT_SEND;
    }
    clarity_phase_enter(s, a, next);
    if (a->phase < PH_COUNT) {
        clarity_host_reschedule(s, h);
        return;
    }
    clarity_host_remove_attempt(s, h, id);
    clarity_host_reschedule(s, h);
    int stage = a->stage, index = a->index, exec = a->exec;
    bool ok = !a->will_fail;
    double dur = s->now - a->t_launch;
    struct sy_stage *st = &s->stages[stage];
    bool first = ok && !st->tasks[index].done;
    if (first) {
        st->tasks[index].done = 1;
        if (!CLARITY_VEC_RESERVE(st->succ_dur, st->cap_succ_dur, (size_t)st->nsucc_dur + 1))
            st->succ_dur[st->nsucc_dur++] = dur;
        if (st->caches) st->tasks[index].cache_exec = exec;
    }
    attempt_finish(s, id, ok ? 0 : 1);
    if (first && st->tasks[index].running) {
        /* the other copy lost the race: Spark kills it ("another attempt succeeded") */
        for (int i = 0; i < s->cap_att; i++)
            if (s->att[i].used && s->att[i].stage == stage && s->att[i].index == index) clarity_attempt_kill(s, i);
    }
    if (first) clarity_stage_task_succeeded(s, st);
    struct sy_exec *e = &s->execs[exec];
    if (e->alive) clarity_sched_offer(s, e);
    if (e->alive && !e->running) clarity_exec_idle_check(s, e);
}
