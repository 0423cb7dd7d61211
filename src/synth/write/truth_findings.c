/* truth.json's "findings": the problems the run was made to have, in the kind names of
 * `clarity findings` (docs/findings.md), so that an evaluation can score the findings against
 * them. Each entry names the knob that injected it and the figures that show it in the log.
 *
 * An entry whose cause is not a knob of its own kind (spill that a hot key caused, tiny tasks
 * that the workload has by itself, the task failures that a lost executor leaves) says
 * "secondary": true: the problem is really in the log, so a finding of that kind is right, but
 * no finding is owed for it. The true saving of an injected problem is not written here: it is
 * the difference with the same seed and options without the knob (bench/findings-eval.sh). */
#include <math.h>
#include <stdio.h>
#include "synth/internal.h"
#include "util/jsonw.h"

#define MiB (1024.0 * 1024.0)

/* slots of the executors the run starts with (static allocation) or may grow to */
static int slots(const struct sim *s)
{
    const struct synth_config *c = s->cfg;
    int execs = c->dynalloc ? c->dyn_max : c->hosts * c->executors_per_host;
    return execs * c->executor_cores;
}

static void begin(struct jsonw *w, const char *kind, const char *knob, bool secondary)
{
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "kind", kind);
    clarity_jsonw_kstr(w, "knob", knob);
    clarity_jsonw_kbool(w, "secondary", secondary);
}

static void stage_where(struct jsonw *w, const struct sy_stage *st)
{
    clarity_jsonw_kint(w, "stage", st->spark_id);
    clarity_jsonw_kint(w, "tasks", st->ntasks);
    clarity_jsonw_kint(w, "median_task_ms", llround(st->median_s * 1000));
    clarity_jsonw_kint(w, "max_task_ms", llround(st->max_s * 1000));
}

/* Stages with task durations: those that ran (a reused stage of pagerank's second job did not). */
static bool ran(const struct sy_stage *st) { return st->status == ST_DONE && st->spark_id >= 0; }

static void spill(struct sim *s, struct jsonw *w, char *knob, size_t cap)
{
    const struct synth_config *c = s->cfg;
    for (int i = 0; i < s->nstages; i++) {
        const struct sy_stage *st = &s->stages[i];
        if (!ran(st) || st->acc_sum[ACC_DISK_SPILL] <= 0) continue;
        /* the memory knob is the cause when it was given; otherwise a hot key or the workload */
        bool own = !c->heap_derived;
        /* the spill's cost: its disk time spread over the slots, against the smallest saving
         * `clarity findings` reports (2% of the run and 1 s): a spill of a few MB a task
         * costs less, and is in the log, but no finding is owed for it */
        double spill_wall_ms = st->spill_s * 1000 / (slots(s) > 0 ? slots(s) : 1);
        double run_ms = (double)(sim_ms(s, s->end_t) - c->start_ms), floor_ms = 0.02 * run_ms > 1000 ? 0.02 * run_ms : 1000;
        bool owed = spill_wall_ms >= floor_ms;
        if (own) snprintf(knob, cap, "--executor-memory %.0fMi", c->executor_heap / MiB);
        else if (i == s->skew_stage) snprintf(knob, cap, "--skew-key %g", c->skew_key);
        else snprintf(knob, cap, "workload");
        begin(w, "spill", knob, !own || !owed);
        stage_where(w, st);
        clarity_jsonw_kint(w, "spill_ms", llround(st->spill_s * 1000));
        clarity_jsonw_kint(w, "memory_bytes_spilled", st->acc_sum[ACC_MEM_SPILL]);
        clarity_jsonw_kint(w, "disk_bytes_spilled", st->acc_sum[ACC_DISK_SPILL]);
        clarity_jsonw_kint(w, "executor_heap_bytes", (int64_t)c->executor_heap);
        clarity_jsonw_obj_end(w);
    }
}

/* Fewer tasks than slots: the shuffle stages whose partition count --partitions set below the
 * slots, and (secondary) any other stage with fewer tasks than slots whose median task runs
 * at least a second: a stage that short loses under a second to idle slots. */
static void partitions(struct sim *s, struct jsonw *w, char *knob, size_t cap)
{
    const struct synth_config *c = s->cfg;
    int n = slots(s);
    for (int i = 0; i < s->nstages; i++) {
        const struct sy_stage *st = &s->stages[i];
        if (!ran(st) || st->ntasks >= n) continue;
        bool own = c->partitions > 0 && st->nparents > 0 && st->ntasks == c->partitions;
        if (!own && st->median_s < 1.0) continue;
        if (own) snprintf(knob, cap, "--partitions %d", c->partitions);
        else snprintf(knob, cap, "workload");
        begin(w, "too_few_partitions", knob, !own);
        stage_where(w, st);
        clarity_jsonw_kint(w, "slots", n);
        clarity_jsonw_obj_end(w);
    }
}

/* Very many very short tasks: at least twice as many tasks as slots and a median under 200 ms,
 * where launching, deserializing and reporting a task (10-20 ms each) is a large share. */
static void tiny(struct sim *s, struct jsonw *w, char *knob, size_t cap)
{
    const struct synth_config *c = s->cfg;
    int n = slots(s);
    for (int i = 0; i < s->nstages; i++) {
        const struct sy_stage *st = &s->stages[i];
        if (!ran(st) || st->ntasks < 2 * n || st->median_s >= 0.2) continue;
        bool by_parts = c->partitions > 0 && st->nparents > 0 && st->ntasks == c->partitions;
        bool by_split = st->input_kind == IN_HDFS && c->split_bytes < 128 * MiB;
        if (by_parts) snprintf(knob, cap, "--partitions %d", c->partitions);
        else if (by_split) snprintf(knob, cap, "--split %.0fKi", c->split_bytes / 1024);
        else snprintf(knob, cap, "workload");
        begin(w, "tiny_tasks", knob, !by_parts && !by_split);
        stage_where(w, st);
        clarity_jsonw_kint(w, "slots", n);
        clarity_jsonw_obj_end(w);
        /* the same tasks seen from the scheduler: launch and result overheads are a large
         * share of each; a scheduler-delay finding on the stage is right, but not owed */
        begin(w, "scheduler_delay", knob, true);
        stage_where(w, st);
        clarity_jsonw_obj_end(w);
    }
}

/* --idle-executors; and (secondary) any run whose executors sat idle over half their core
 * time (a job smaller than the cluster, long driver gaps) */
static void idle(struct sim *s, struct jsonw *w, char *knob, size_t cap)
{
    const struct synth_config *c = s->cfg;
    double alloc = 0, busy = 0;
    for (int i = 0; i < s->nexecs; i++) {
        const struct sy_exec *e = &s->execs[i];
        if (!e->ready) continue;
        alloc += ((e->alive ? s->end_t : e->removed_t) - e->ready_t) * e->cores;
        busy += e->busy_s;
    }
    bool own = c->idle_executors > 0;
    if (!own && !(alloc > 0 && busy < 0.5 * alloc)) return;
    if (own) snprintf(knob, cap, "--idle-executors %d", c->idle_executors);
    else snprintf(knob, cap, "workload");
    begin(w, "idle_executors", knob, !own);
    clarity_jsonw_kint(w, "executors", s->nexecs);
    clarity_jsonw_kint(w, "extra_executors", (int64_t)c->idle_executors * c->executors_per_host);
    clarity_jsonw_kint(w, "core_ms_allocated", llround(alloc * 1000));
    clarity_jsonw_kint(w, "core_ms_busy", llround(busy * 1000));
    clarity_jsonw_kdouble(w, "idle_share", alloc > 0 ? round((1 - busy / alloc) * 1000) / 1000 : 0);
    clarity_jsonw_obj_end(w);
}

static void failures(struct sim *s, struct jsonw *w, char *knob, size_t cap)
{
    const struct synth_config *c = s->cfg;
    int failed = 0, lost = 0;
    for (int i = 0; i < s->nstages; i++) failed += s->stages[i].failed_attempts, lost += s->stages[i].lost_attempts;
    if (failed > 0) {
        snprintf(knob, cap, "--failure-rate %g", c->failure_rate);
        begin(w, "task_failures", knob, false);
        clarity_jsonw_kint(w, "failed_attempts", failed);
        clarity_jsonw_obj_end(w);
    }
    for (int k = 0; k < c->nkill; k++) {
        if (s->kill_exec[k] < 0) continue;   /* the executor was not running then */
        const struct sy_exec *e = &s->execs[s->kill_exec[k]];
        snprintf(knob, cap, "--kill-executor %s@%gs", c->kill[k].executor, c->kill[k].at_s);
        /* an executor killed while it ran nothing and held no cached block lost nothing: it is
         * gone from the log (ExecutorRemoved), so a finding is not wrong, but none is owed */
        bool effect = s->kill_attempts[k] > 0 || s->kill_cached[k] > 0;
        begin(w, "lost_executors", knob, !effect);
        clarity_jsonw_kstr(w, "executor", e->id);
        clarity_jsonw_kstr(w, "host", s->hosts[e->host].name);
        clarity_jsonw_kint(w, "removed_ms", sim_ms(s, e->removed_t));
        clarity_jsonw_kint(w, "lost_attempts", s->kill_attempts[k]);
        clarity_jsonw_kint(w, "lost_cached_bytes", llround(s->kill_cached[k]));
        clarity_jsonw_obj_end(w);
    }
    if (lost > 0) {
        /* the attempts an executor took with it are task failures too (ExecutorLostFailure);
         * the knob named is the last kill's, as the lost_executors entry above spells it */
        begin(w, "task_failures", knob, true);
        clarity_jsonw_kint(w, "failed_attempts", lost);
        clarity_jsonw_obj_end(w);
    }
}

static void gc_driver_faults(struct sim *s, struct jsonw *w, char *knob, size_t cap)
{
    const struct synth_config *c = s->cfg;
    /* --gc-pressure; and (secondary) GC over a tenth of the tasks' time without it (a small
     * heap: --executor-memory) */
    bool own = c->gc_pressure > 1;
    if (own || (s->task_s > 0 && s->task_gc_s >= 0.1 * s->task_s)) {
        if (own) snprintf(knob, cap, "--gc-pressure %g", c->gc_pressure);
        else if (!c->heap_derived) snprintf(knob, cap, "--executor-memory %.0fMi", c->executor_heap / MiB);
        else snprintf(knob, cap, "workload");
        begin(w, "gc_pressure", knob, !own);
        /* what Spark's "JVM GC Time" sums to, against the tasks' run time */
        clarity_jsonw_kint(w, "task_gc_ms", llround(s->task_gc_s * 1000));
        clarity_jsonw_kint(w, "task_ms", llround(s->task_s * 1000));
        clarity_jsonw_kdouble(w, "gc_share", s->task_s > 0 ? round(s->task_gc_s / s->task_s * 1000) / 1000 : 0);
        clarity_jsonw_obj_end(w);
    }
    if (c->driver_gap_s > 0) {
        snprintf(knob, cap, "--driver-gap %gs", c->driver_gap_s);
        begin(w, "driver_bound", knob, false);
        clarity_jsonw_kint(w, "driver_gap_ms", llround(s->driver_gap_total * 1000));
        clarity_jsonw_obj_end(w);
    }
    for (int i = 0; i < c->nfaults; i++) {
        const struct synth_fault *f = &c->faults[i];
        /* a fault on a host that ran nothing of the application then (a cached kmeans on few
         * executors) leaves no trace in its log: no slow host to find */
        if (s->nfault_tasks[i] == 0) continue;
        if (f->end_s < 0) /* the whole run, as it was given */
            snprintf(knob, cap, "--fault %s@host%d:%g", clarity_synth_fault_kind_name(f->kind), f->host, f->intensity);
        else
            snprintf(knob, cap, "--fault %s@host%d:%gs-%gs:%g", clarity_synth_fault_kind_name(f->kind), f->host, f->start_s,
                     f->end_s, f->intensity);
        begin(w, "slow_host", knob, false);
        clarity_jsonw_kstr(w, "host", s->hosts[f->host - 1].name);
        clarity_jsonw_kstr(w, "fault", clarity_synth_fault_kind_name(f->kind));
        clarity_jsonw_kint(w, "fault_id", i);
        clarity_jsonw_kint(w, "affected_tasks", s->nfault_tasks[i]);
        clarity_jsonw_obj_end(w);
    }
}

void clarity_truth_findings(struct sim *s, struct jsonw *w)
{
    char knob[128];
    clarity_jsonw_key(w, "findings");
    clarity_jsonw_arr_begin(w);
    if (s->skew_stage >= 0 && s->skew_share > 0) {
        const struct sy_stage *st = &s->stages[s->skew_stage];
        snprintf(knob, sizeof knob, "--skew-key %g", s->cfg->skew_key);
        begin(w, "data_skew", knob, false);
        stage_where(w, st);
        clarity_jsonw_kint(w, "partition", s->skew_part);
        clarity_jsonw_kdouble(w, "share", s->skew_share);
        clarity_jsonw_obj_end(w);
    }
    spill(s, w, knob, sizeof knob);
    partitions(s, w, knob, sizeof knob);
    tiny(s, w, knob, sizeof knob);
    idle(s, w, knob, sizeof knob);
    failures(s, w, knob, sizeof knob);
    gc_driver_faults(s, w, knob, sizeof knob);
    clarity_jsonw_arr_end(w);
}
