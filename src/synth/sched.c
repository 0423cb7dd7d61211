/* The task scheduler: task sets per stage, FIFO or FAIR pools, delay scheduling for
 * locality (spark.locality.wait), speculation (spark.speculation.*), as TaskSchedulerImpl and
 * TaskSetManager do it, one executor offer at a time. */
#include <math.h>
#include <stdlib.h>
#include "synth/internal.h"
#include "util/stats.h"
#include "util/vec.h"

static void push(struct sim *s, int32_t **q, int *n, size_t *cap, int32_t v)
{
    if (CLARITY_VEC_RESERVE(*q, *cap, (size_t)*n + 1)) {
        SIM_FAIL(s, "out of memory");
        return;
    }
    (*q)[(*n)++] = v;
}

void clarity_taskset_enqueue(struct sim *s, struct sy_stage *st, int i)
{
    struct sy_ptask *pt = &st->tasks[i];
    pt->queued = 1;
    st->pending++;
    push(s, &st->pend_all, &st->npend_all, &st->cap_pend_all, i);
    for (int k = 0; k < 3; k++)
        if (pt->pref_host[k] >= 0 && st->pend_host)
            push(s, &st->pend_host[pt->pref_host[k]], &st->npend_host[pt->pref_host[k]],
                 &st->cap_pend_host[pt->pref_host[k]], i);
    if (pt->cache_exec >= 0 && pt->cache_exec < st->nexec_q)
        push(s, &st->pend_exec[pt->cache_exec], &st->npend_exec[pt->cache_exec], &st->cap_pend_exec[pt->cache_exec], i);
}

void clarity_taskset_create(struct sim *s, struct sy_stage *st)
{
    bool host_pref = false, exec_pref = false;
    for (int i = 0; i < st->ntasks; i++) {
        host_pref |= st->tasks[i].pref_host[0] >= 0;
        exec_pref |= st->tasks[i].cache_exec >= 0;
    }
    if (host_pref || exec_pref) {
        st->pend_host = calloc((size_t)s->nhosts, sizeof *st->pend_host);
        st->npend_host = calloc((size_t)s->nhosts, sizeof(int));
        st->cap_pend_host = calloc((size_t)s->nhosts, sizeof *st->cap_pend_host);
        st->cur_host = calloc((size_t)s->nhosts, sizeof(int));
        if (!st->pend_host || !st->npend_host || !st->cap_pend_host || !st->cur_host) SIM_FAIL(s, "out of memory");
    }
    if (exec_pref) {
        st->nexec_q = s->nexecs;
        st->pend_exec = calloc((size_t)st->nexec_q, sizeof *st->pend_exec);
        st->npend_exec = calloc((size_t)st->nexec_q, sizeof(int));
        st->cap_pend_exec = calloc((size_t)st->nexec_q, sizeof *st->cap_pend_exec);
        st->cur_exec = calloc((size_t)st->nexec_q, sizeof(int));
        if (!st->pend_exec || !st->npend_exec || !st->cap_pend_exec || !st->cur_exec) SIM_FAIL(s, "out of memory");
        /* cached blocks on this host also make a task NODE_LOCAL there */
        for (int i = 0; i < st->ntasks; i++)
            if (st->tasks[i].cache_exec >= 0 && st->tasks[i].pref_host[0] < 0)
                st->tasks[i].pref_host[0] = (int16_t)s->execs[st->tasks[i].cache_exec].host;
    }
    if (s->err) return;
    st->nlevels = 0;
    if (exec_pref) st->levels[st->nlevels++] = LOC_PROCESS;
    if (host_pref || exec_pref) st->levels[st->nlevels++] = LOC_NODE;
    st->levels[st->nlevels++] = (host_pref || exec_pref) ? LOC_ANY : LOC_NO_PREF;
    st->loc_level = 0;
    st->loc_last = s->now;
    st->loc_timer = clarity_timer_new(&s->heap, TK_LOCALITY, st->idx);
    for (int i = 0; i < st->ntasks; i++) clarity_taskset_enqueue(s, st, i);
    if (CLARITY_VEC_RESERVE(s->active, s->cap_active, (size_t)s->nactive + 1)) {
        SIM_FAIL(s, "out of memory");
        return;
    }
    s->active[s->nactive++] = st->idx;
}

void clarity_taskset_remove(struct sim *s, struct sy_stage *st)
{
    for (int i = 0; i < s->nactive; i++)
        if (s->active[i] == st->idx) {
            for (int k = i + 1; k < s->nactive; k++) s->active[k - 1] = s->active[k];
            s->nactive--;
            break;
        }
    if (st->loc_timer >= 0) clarity_timer_release(&s->heap, st->loc_timer);
    st->loc_timer = -1;
    for (int h = 0; st->pend_host && h < s->nhosts; h++) free(st->pend_host[h]);
    for (int e = 0; st->pend_exec && e < st->nexec_q; e++) free(st->pend_exec[e]);
    free(st->pend_host); free(st->npend_host); free(st->cap_pend_host); free(st->cur_host);
    free(st->pend_exec); free(st->npend_exec); free(st->cap_pend_exec); free(st->cur_exec);
    free(st->pend_all);
    free(st->spec_q);
    st->pend_host = NULL; st->pend_exec = NULL; st->pend_all = NULL; st->spec_q = NULL;
    st->npend_all = st->cap_pend_all = st->cur_all = st->nspec_q = st->cap_spec_q = st->cur_spec = 0;
}

static int pop(const struct sy_stage *st, const int32_t *q, int n, int *cur)
{
    while (*cur < n) {
        int i = q[*cur];
        if (st->tasks[i].queued) return i;
        (*cur)++;
    }
    return -1;
}

/* Query priority first (query-priority; the scheduler iQCAR's DYNP rules assume: a higher
 * priority's task sets are offered every free slot first; Spark itself has none), then Spark's
 * FairSchedulingAlgorithm on pools (needy pools first, then running/weight), FIFO (job id,
 * then stage id) inside a pool and in FIFO mode. In FIFO mode every query is in pool 0 unless
 * query-pool gave one a dedicated pool, so pools differ only then. */
static int compare_stages(const struct sim *s, int a, int b)
{
    const struct sy_stage *x = &s->stages[a], *y = &s->stages[b];
    double px = s->queries[x->query].priority, py = s->queries[y->query].priority;
    if (px != py) return px > py ? -1 : 1;
    if (x->pool != y->pool) {
        const struct sy_pool *p = &s->pools[x->pool], *q = &s->pools[y->pool];
        bool pn = p->running < p->min_share, qn = q->running < q->min_share;
        double pr = p->running / fmax(p->min_share, 1.0), qr = q->running / fmax(q->min_share, 1.0);
        double pw = p->running / p->weight, qw = q->running / q->weight;
        if (pn && !qn) return -1;
        if (!pn && qn) return 1;
        if (pn && qn && pr != qr) return pr < qr ? -1 : 1;
        if (!pn && !qn && pw != qw) return pw < qw ? -1 : 1;
        return x->pool < y->pool ? -1 : 1;
    }
    int ja = s->jobs[x->job].spark_id, jb = s->jobs[y->job].spark_id;
    if (ja != jb) return ja < jb ? -1 : 1;
    return x->spark_id < y->spark_id ? -1 : (x->spark_id > y->spark_id);
}

/* The wait runs out at loc_last + w, the very sum the locality timer is armed at
 * (clarity_sched_offer), so the timer's firing always finds the level moved on. Comparing
 * now - loc_last with w instead could round below w at that instant (16.751452059627127 -
 * 13.751452059627129 = 2.9999999999999982 in kmeans seed 23, --kill-executor 3@7.1s): the level
 * stayed, the timer was not re-armed (its time was not after now), and a stage whose pending
 * tasks all needed the next level waited forever, which stalled the simulation. */
static int allowed_level(struct sim *s, struct sy_stage *st)
{
    double w = s->cfg->locality_wait_s;
    while (st->loc_level < st->nlevels - 1 && s->now >= st->loc_last + w) {
        st->loc_last += w;
        st->loc_level++;
    }
    return st->loc_level;
}

/* One task of st for executor e, or -1; *loc gets its locality. */
static int pick(struct sim *s, struct sy_stage *st, struct sy_exec *e, int *loc)
{
    int lvl = st->levels[allowed_level(s, st)];
    int i;
    if (st->pend_exec && e->idx < st->nexec_q &&
        (i = pop(st, st->pend_exec[e->idx], st->npend_exec[e->idx], &st->cur_exec[e->idx])) >= 0) {
        *loc = LOC_PROCESS;
        return i;
    }
    if (st->pend_host && lvl >= LOC_NODE &&
        (i = pop(st, st->pend_host[e->host], st->npend_host[e->host], &st->cur_host[e->host])) >= 0) {
        *loc = LOC_NODE;
        return i;
    }
    if (lvl == LOC_NO_PREF || lvl == LOC_ANY) {
        if ((i = pop(st, st->pend_all, st->npend_all, &st->cur_all)) >= 0) {
            *loc = lvl;
            return i;
        }
    }
    return -1;
}

/* A speculative copy for e: never on a host already running the task. */
static int pick_spec(struct sim *s, struct sy_stage *st, struct sy_exec *e)
{
    for (int k = st->cur_spec; k < st->nspec_q; k++) {
        int i = st->spec_q[k];
        struct sy_ptask *pt = &st->tasks[i];
        if (pt->done || pt->spec_launched || !pt->running) {
            if (k == st->cur_spec) st->cur_spec++;
            continue;
        }
        bool same_host = false;
        for (int a = 0; a < s->cap_att && !same_host; a++)
            same_host = s->att[a].used && s->att[a].stage == st->idx && s->att[a].index == i && s->att[a].host == e->host;
        if (!same_host) return i;
    }
    return -1;
}

static int order_cmp_ctx_stage(const struct sim *s, int a, int b) { return compare_stages(s, a, b); }

void clarity_sched_offer(struct sim *s, struct sy_exec *e)
{
    int order[256];
    while (!s->err && e->alive && e->ready && !e->removing && e->free_slots > 0 && s->nactive) {
        int n = s->nactive < 256 ? s->nactive : 256;
        for (int i = 0; i < n; i++) order[i] = s->active[i];
        for (int i = 1; i < n; i++)   /* insertion sort: few task sets, stable, deterministic */
            for (int k = i; k > 0 && order_cmp_ctx_stage(s, order[k], order[k - 1]) < 0; k--) {
                int t = order[k]; order[k] = order[k - 1]; order[k - 1] = t;
            }
        bool launched = false;
        for (int k = 0; k < n && !launched; k++) {
            struct sy_stage *st = &s->stages[order[k]];
            int loc, lvl_before = st->loc_level;
            int i = pick(s, st, e, &loc);
            if (i >= 0) {
                st->pending--;
                if (loc == LOC_PROCESS || loc == LOC_NODE) {
                    /* delay scheduling resets to the level it just launched at */
                    for (int l = 0; l < st->nlevels; l++)
                        if (st->levels[l] == loc) st->loc_level = l;
                    st->loc_last = s->now;
                } else if (loc == LOC_ANY && st->loc_level != lvl_before) {
                    st->loc_last = s->now;
                }
                clarity_attempt_launch(s, st, i, e, loc, false);
                launched = true;
                break;
            }
            if (st->pending > 0 && st->loc_level < st->nlevels - 1 && st->loc_timer >= 0) {
                double t = st->loc_last + s->cfg->locality_wait_s;
                /* a wait that has already run out is not why nothing launched (nothing fits this
                 * executor): re-arming it at a past time would fire it forever at this instant */
                if (t > s->now && (s->heap.timers[st->loc_timer].pos < 0 || s->heap.timers[st->loc_timer].t != t))
                    clarity_timer_set(&s->heap, st->loc_timer, t);
            }
            if (s->cfg->speculation && st->pending == 0 && (i = pick_spec(s, st, e)) >= 0) {
                clarity_attempt_launch(s, st, i, e, st->levels[st->nlevels - 1] == LOC_NO_PREF ? LOC_NO_PREF : LOC_ANY, true);
                launched = true;
            }
        }
        if (!launched) break;
    }
}

void clarity_sched_offer_all(struct sim *s)
{
    for (int i = 0; i < s->nexecs && !s->err; i++)
        if (s->execs[i].alive && s->execs[i].free_slots > 0) clarity_sched_offer(s, &s->execs[i]);
}

void clarity_sched_locality_timer(struct sim *s, int stage)
{
    (void)stage;
    clarity_sched_offer_all(s);
}

/* TaskSetManager.checkSpeculatableTasks: once a quantile of the stage has succeeded, a task
 * running longer than multiplier x the median success (and 100 ms) gets a copy. */
void clarity_spec_tick(struct sim *s)
{
    bool any = false;
    for (int k = 0; k < s->nactive; k++) {
        struct sy_stage *st = &s->stages[s->active[k]];
        int need = (int)floor(s->cfg->spec_quantile * st->ntasks);
        if (need < 1) need = 1;
        if (st->nsucc_dur < need || st->succeeded >= st->ntasks) continue;
        double *d = malloc((size_t)st->nsucc_dur * sizeof *d);
        if (!d) return;
        memcpy(d, st->succ_dur, (size_t)st->nsucc_dur * sizeof *d);
        /* the element at index round(0.5 * (n - 1)) of the sorted durations, i.e. n / 2 */
        double med = clarity_median_upper(d, (size_t)st->nsucc_dur);
        free(d);
        double thr = fmax(s->cfg->spec_multiplier * med, 0.1);
        for (int a = 0; a < s->cap_att; a++) {
            struct sy_attempt *at = &s->att[a];
            if (!at->used || at->stage != st->idx) continue;
            struct sy_ptask *pt = &st->tasks[at->index];
            if (pt->done || pt->speculatable || pt->running != 1 || s->now - at->t_launch <= thr) continue;
            pt->speculatable = 1;
            push(s, &st->spec_q, &st->nspec_q, &st->cap_spec_q, at->index);
            any = true;
        }
    }
    if (any) clarity_sched_offer_all(s);
}

int clarity_pending_tasks(const struct sim *s)
{
    int n = 0;
    for (int k = 0; k < s->nactive; k++) n += s->stages[s->active[k]].pending;
    return n;
}

int clarity_running_tasks(const struct sim *s)
{
    int n = 0;
    for (int k = 0; k < s->nactive; k++) n += s->stages[s->active[k]].running;
    return n;
}
