/* Queries, jobs and stages as the DAGScheduler runs them: a query's jobs one after another,
 * a job's stages as soon as their parents are done, ids handed out at submission. */
#include <math.h>
#include <stdlib.h>
#include "synth/internal.h"

static bool parents_done(const struct sim *s, const struct sy_stage *st)
{
    for (int i = 0; i < st->nparents; i++)
        if (s->stages[st->parents[i]].status != ST_DONE) return false;
    return true;
}

/* --skew-key F: one key holds F of the stage's shuffle data, as a hot join or group key does.
 * The stage's total stays what it was; partition skew_part gets F of it and the others share
 * the rest in their drawn proportions. Everything a task reads, spills and writes follows its
 * size factor, so the hot task also needs F of the stage's memory. */
static void hot_partition(struct sim *s, struct sy_stage *st)
{
    int hot = s->skew_part;
    double total = 0;
    for (int i = 0; i < st->ntasks; i++) total += st->tasks[i].skew;
    double rest = total - st->tasks[hot].skew, f = s->cfg->skew_key;
    if (rest <= 0) return;
    for (int i = 0; i < st->ntasks; i++)
        st->tasks[i].skew = i == hot ? (float)(f * total) : (float)(st->tasks[i].skew * (1 - f) * total / rest);
    s->skew_share = f;
}

static void stage_submit(struct sim *s, struct sy_stage *st)
{
    st->status = ST_RUNNING;
    st->submit_t = s->now;
    st->acc_base = s->next_accum;
    s->next_accum += 40;
    struct sy_query *q = &s->queries[st->query];
    st->pool = q->pool;
    st->tasks = calloc((size_t)st->ntasks, sizeof *st->tasks);
    if (!st->tasks) {
        SIM_FAIL(s, "out of memory");
        return;
    }
    int nrep = s->nhosts < 3 ? s->nhosts : 3;
    /* --keyed-draws: the stage's partitions from a stream of its own (rng.h) */
    struct rng keyed, *rw = &s->rng_work;
    if (s->cfg->keyed_draws) rng_keyed(&keyed, s->cfg->seed, 1, (uint64_t)st->idx), rw = &keyed;
    for (int i = 0; i < st->ntasks; i++) {
        struct sy_ptask *pt = &st->tasks[i];
        pt->skew = (float)rng_lognormal(rw, s->cfg->skew);
        pt->cache_exec = -1;
        pt->pref_host[0] = pt->pref_host[1] = pt->pref_host[2] = -1;
        if (st->input_kind != IN_HDFS) continue;
        /* HDFS block replicas on distinct hosts */
        for (int k = 0; k < nrep; k++) {
            int h, dup;
            do {
                h = rng_int(rw, s->nhosts);
                dup = 0;
                for (int m = 0; m < k; m++) dup |= pt->pref_host[m] == h;
            } while (dup);
            pt->pref_host[k] = (int16_t)h;
        }
    }
    if (st->idx == s->skew_stage) hot_partition(s, st);
    /* cached input: the executor that computed each block holds it */
    if (st->input_kind == IN_CACHE && st->cache_src >= 0) {
        struct sy_stage *src = &s->stages[st->cache_src];
        for (int i = 0; i < st->ntasks; i++) {
            int e = src->tasks && i < src->ntasks ? src->tasks[i].cache_exec : -1;
            st->tasks[i].cache_exec = (e >= 0 && s->execs[e].alive) ? e : -1;
        }
    }
    clarity_ev_stage_submitted(s, st);
    clarity_log_driver(s, "DAGScheduler", "Submitting %s %d (%s), which has no missing parents",
               st->result ? "ResultStage" : "ShuffleMapStage", st->spark_id, st->name);
    clarity_log_driver(s, "TaskSchedulerImpl", "Adding task set %d.0 with %d tasks resource profile 0", st->spark_id, st->ntasks);
    clarity_taskset_create(s, st);
    clarity_sched_offer_all(s);
}

static void submit_ready(struct sim *s, struct sy_job *j)
{
    for (int k = 0; k < j->nstages; k++) {
        struct sy_stage *st = &s->stages[j->stages[k]];
        if ((st->status == ST_NEW || st->status == ST_WAITING) && parents_done(s, st)) stage_submit(s, st);
        else if (st->status == ST_NEW) st->status = ST_WAITING;
    }
}

void clarity_query_arrive(struct sim *s, int qi)
{
    struct sy_query *q = &s->queries[qi];
    q->started = true;
    q->start_t = s->now;
    if (q->sql) {
        q->sql_id = s->next_sql_id++;
        clarity_ev_sql_start(s, q);
    }
    /* --driver-gap: driver-side work (planning, a collect, local code) before the first job */
    s->driver_gap_total += s->cfg->driver_gap_s;
    struct rng keyed, *rs = &s->rng_sched;
    if (s->cfg->keyed_draws) rng_keyed(&keyed, s->cfg->seed, 2, (uint64_t)qi), rs = &keyed;
    clarity_timer_set(&s->heap, clarity_timer_new(&s->heap, TK_JOB_SUBMIT, qi),
                      s->now + 0.05 + 0.25 * rng_unit(rs) + s->cfg->driver_gap_s);
}

void clarity_job_submit_next(struct sim *s, int qi)
{
    struct sy_query *q = &s->queries[qi];
    struct sy_job *j = &s->jobs[q->jobs[q->cur_job]];
    j->spark_id = s->next_job_id++;
    j->submitted = true;
    j->submit_t = s->now;
    for (int k = 0; k < j->nstages; k++) {
        struct sy_stage *st = &s->stages[j->stages[k]];
        if (st->spark_id >= 0) continue;
        st->spark_id = s->next_stage_id++;
        st->job = j->idx;
        st->rdd_base = s->next_rdd_id;
        st->nrdds = st->input_kind == IN_HDFS ? 3 : 2;
        s->next_rdd_id += st->nrdds;
    }
    clarity_ev_job_start(s, j);
    clarity_log_driver(s, "DAGScheduler", "Got job %d (%s) with %d output partitions", j->spark_id, j->call_site,
               s->stages[j->stages[j->nstages - 1]].ntasks);
    submit_ready(s, j);
}

static void job_done(struct sim *s, struct sy_job *j)
{
    j->done = true;
    j->end_t = s->now;
    clarity_ev_job_end(s, j);
    clarity_log_driver(s, "DAGScheduler", "Job %d finished: %s, took %.6f s", j->spark_id, j->call_site, j->end_t - j->submit_t);
    struct sy_query *q = &s->queries[j->query];
    struct rng keyed, *rs = &s->rng_sched;   /* --keyed-draws: by query and job, and the end */
    if (s->cfg->keyed_draws)
        rng_keyed(&keyed, s->cfg->seed, 3, ((uint64_t)q->idx << 20) + (uint64_t)q->cur_job + 1), rs = &keyed;
    if (++q->cur_job < q->njobs) {
        s->driver_gap_total += s->cfg->driver_gap_s;   /* and between its jobs */
        clarity_timer_set(&s->heap, clarity_timer_new(&s->heap, TK_JOB_SUBMIT, q->idx),
                          s->now + q->gap_s * (0.5 + rng_unit(rs)) + s->cfg->driver_gap_s);
        return;
    }
    q->done = true;
    q->end_t = s->now + 0.005;
    if (q->sql) clarity_ev_sql_end(s, q);
    if (++s->queries_done == s->nqueries) {
        if (s->cfg->keyed_draws) rng_keyed(&keyed, s->cfg->seed, 4, 0);   /* the end: one key */
        clarity_timer_set(&s->heap, s->end_timer, s->now + 0.5 + rng_unit(rs));
    }
}

void clarity_stage_task_succeeded(struct sim *s, struct sy_stage *st)
{
    if (++st->succeeded < st->ntasks) return;
    st->status = ST_DONE;
    st->done_t = s->now;
    clarity_taskset_remove(s, st);
    clarity_ev_stage_completed(s, st);
    clarity_log_driver(s, "DAGScheduler", "%s %d (%s) finished in %.3f s", st->result ? "ResultStage" : "ShuffleMapStage",
               st->spark_id, st->name, st->done_t - st->submit_t);
    clarity_truth_stage_done(s, st);
    if (st->caches)
        for (int i = 0; i < st->ntasks; i++) {
            int e = st->tasks[i].cache_exec;
            if (e >= 0) s->execs[e].cached_bytes += st->mem_bytes * st->tasks[i].skew * 0.5;
        }
    struct sy_query *q = &s->queries[st->query];
    if (q->cur_job >= q->njobs) return;
    struct sy_job *j = &s->jobs[q->jobs[q->cur_job]];
    if (s->stages[j->stages[j->nstages - 1]].status == ST_DONE) job_done(s, j);
    else submit_ready(s, j);
}
