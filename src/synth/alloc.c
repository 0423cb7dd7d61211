/* Executors: static allocation at start, or dynamic allocation as ExecutorAllocationManager
 * does it (backlog timeout 1 s, requests doubling, idle timeout 60 s). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "synth/internal.h"
#include "util/vec.h"

#define BACKLOG_TIMEOUT 1.0
#define IDLE_TIMEOUT 60.0

int clarity_exec_create(struct sim *s, int host, double ready_t)
{
    struct sy_host *h = &s->hosts[host];
    if (h->nexecs >= 16) return -1;
    if (CLARITY_VEC_RESERVE(s->execs, s->cap_execs, (size_t)s->nexecs + 1)) {
        SIM_FAIL(s, "out of memory");
        return -1;
    }
    struct sy_exec *e = &s->execs[s->nexecs];
    *e = (struct sy_exec){0};
    e->idx = s->nexecs++;
    e->host = host;
    snprintf(e->id, sizeof e->id, "%d", s->next_exec_id++);
    e->cores = s->cfg->executor_cores;
    e->free_slots = e->cores;
    e->heap = s->cfg->executor_heap;
    e->alive = true;
    e->ready_t = ready_t;
    e->jvm_start = ready_t - 1.2 - 0.6 * rng_unit(&s->rng_jvm);
    e->idle_since = -1;
    e->last_stage = -1;
    e->timer = clarity_timer_new(&s->heap, TK_EXEC, e->idx);
    if (e->timer < 0 || clarity_timer_set(&s->heap, e->timer, ready_t)) {
        SIM_FAIL(s, "out of memory");
        return -1;
    }
    h->execs[h->nexecs++] = e->idx;
    s->execs_alive++;
    return e->idx;
}

void clarity_exec_timer(struct sim *s, int ei)
{
    struct sy_exec *e = &s->execs[ei];
    if (!e->alive) return;
    if (!e->ready) {
        struct sy_host *h = &s->hosts[e->host];
        clarity_host_advance(s, h);
        e->ready = true;
        e->idle_since = s->now;
        clarity_jvm_init(s, e);
        clarity_log_exec_start(s, e);
        clarity_ev_executor_added(s, e);
        clarity_host_reschedule(s, h);
        clarity_sched_offer(s, e);
        return;
    }
    clarity_jvm_collect(s, e);
}

void clarity_exec_remove(struct sim *s, struct sy_exec *e, const char *reason)
{
    struct sy_host *h = &s->hosts[e->host];
    e->alive = false;
    e->removed_t = s->now;
    s->execs_alive--;
    clarity_timer_cancel(&s->heap, e->timer);
    for (int k = 0; k < h->nexecs; k++)
        if (h->execs[k] == e->idx) {
            h->execs[k] = h->execs[--h->nexecs];
            break;
        }
    clarity_ev_executor_removed(s, e, reason);
    if (e->log) {
        fclose(e->log);
        e->log = NULL;
    }
    if (e->gc) {
        fclose(e->gc);
        e->gc = NULL;
    }
}

void clarity_exec_idle_check(struct sim *s, struct sy_exec *e)
{
    if (!e->running && e->idle_since < 0) e->idle_since = s->now;
}

/* Host with the fewest live executors that still has cores for one more. */
static int place(const struct sim *s)
{
    int best = -1;
    for (int h = 0; h < s->nhosts; h++) {
        const struct sy_host *x = &s->hosts[h];
        if ((x->nexecs + 1) * s->cfg->executor_cores > x->cores || x->nexecs >= 16) continue;
        if (best < 0 || x->nexecs < s->hosts[best].nexecs) best = h;
    }
    return best;
}

void clarity_alloc_tick(struct sim *s)
{
    const struct synth_config *c = s->cfg;
    int pending = clarity_pending_tasks(s), running = clarity_running_tasks(s);
    int target = (int)ceil((double)(pending + running) / c->executor_cores);
    if (target < c->dyn_min) target = c->dyn_min;
    if (target > c->dyn_max) target = c->dyn_max;
    if (pending > 0) {
        if (s->backlog_since < 0) s->backlog_since = s->now;
        if (s->now - s->backlog_since >= BACKLOG_TIMEOUT) {
            int add = target - s->execs_alive;
            if (add > s->add_step) add = s->add_step;
            for (int i = 0; i < add; i++) {
                int h = place(s);
                if (h < 0) break;
                clarity_exec_create(s, h, s->now + 2.0 + 3.0 * rng_unit(&s->rng_sched));
            }
            if (add > 0) s->add_step *= 2;
            s->backlog_since = s->now;
        }
    } else {
        s->backlog_since = -1;
        s->add_step = 1;
    }
    for (int i = 0; i < s->nexecs; i++) {
        struct sy_exec *e = &s->execs[i];
        if (!e->alive || !e->ready || e->running || e->idle_since < 0 || e->cached_bytes > 0) continue;
        if (s->now - e->idle_since >= IDLE_TIMEOUT && s->execs_alive > c->dyn_min && pending == 0)
            clarity_exec_remove(s, e, "Executor killed by driver.");
    }
}

/* --kill-executor: the executor's JVM dies (an OOM kill: exit code 137) at the given time. Its
 * running attempts fail with ExecutorLostFailure and are queued again; the block manager goes,
 * and with it the cached blocks. Map outputs survive: the model runs the external shuffle
 * service, so no FetchFailed follows. Under static allocation the cluster manager starts a
 * replacement on the same host 4 s later (a standalone Worker relaunching its executor); under
 * dynamic allocation the allocation manager asks for one when the backlog calls for it. */
void clarity_exec_kill(struct sim *s, int k)
{
    const char *id = s->cfg->kill[k].executor;
    struct sy_exec *e = NULL;
    for (int i = 0; i < s->nexecs && !e; i++)
        if (s->execs[i].alive && s->execs[i].ready && !strcmp(s->execs[i].id, id)) e = &s->execs[i];
    if (!e) return;   /* not (or no longer) running: nothing to kill, and the truth says so */
    struct sy_host *h = &s->hosts[e->host];
    /* downwards: removing slot i moves the last attempt (already looked at) into it */
    s->kill_attempts[k] = 0;
    /* the blocks it held: those registered (cached_bytes, at their stage's end) and those its
       tasks computed in a stage still running (each successful task's block stays where it ran) */
    s->kill_cached[k] = e->cached_bytes;
    for (int i = 0; i < s->nstages; i++) {
        const struct sy_stage *st = &s->stages[i];
        if (!st->caches || !st->tasks || st->status != ST_RUNNING) continue;
        for (int t = 0; t < st->ntasks; t++)
            if (st->tasks[t].cache_exec == e->idx) s->kill_cached[k] += st->mem_bytes * st->tasks[t].skew * 0.5;
    }
    for (int i = h->natt - 1; i >= 0; i--)
        if (s->att[h->att[i]].exec == e->idx) {
            clarity_attempt_lose(s, h->att[i]);
            s->kill_attempts[k]++;
        }
    e->lost = true;
    clarity_log_driver(s, "TaskSchedulerImpl", "Lost executor %s on %s: Command exited with code 137", e->id, h->name);
    clarity_exec_remove(s, e, "Command exited with code 137");
    s->kill_exec[k] = e->idx;
    if (!s->cfg->dynalloc) clarity_exec_create(s, h->idx, s->now + 4.0);
    clarity_sched_offer_all(s);
}
