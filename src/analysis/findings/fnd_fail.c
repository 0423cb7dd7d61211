/* Failure rules: failed tasks, fetch failures, lost executors, out-of-memory kills (as
 * memory_headroom) and speculation waste. Each attempt that did not succeed held a slot: the
 * replay includes it, and the saving is the replay without it. Thresholds and why:
 * docs/findings.md. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/findings/fnd_internal.h"

/* killed speculative copies above this share of task time */
#define SPEC_MIN_SHARE 0.05
/* the lost capacity is summed over at most this many lost executors: each costs a pass over
   the attempts, and past a few dozen losses the first ones already make the finding */
#define LOST_MAX_EXECS 64
/* a task launched this long after its stage's first waited for something other than the
   launch round (Spark's locality wait is 3 s a level) */
#define LOST_LATE_MS 1000

enum cat { C_FAIL, C_FETCH, C_LOST, C_OOM, C_SPEC, C_N };

static bool has(const char *s, const char *needle) { return s && strstr(s, needle) != NULL; }

static bool oom_text(const char *s)
{
    return has(s, "OutOfMemory") || has(s, "exit code 137") || has(s, "exit code 143") || has(s, "memory limits") ||
           has(s, "exceeding memory") || has(s, "Container killed on request. Exit code is 137") ||
           has(s, "OOMKilled");
}

static enum cat cat_of(const struct clarity_app *a, size_t row, const char **why)
{
    const struct clarity_task_end_reason *r = clarity_task_end_reason(a, row);
    int64_t end = clarity_icol_get(&a->tasks.end, row);
    *why = "";
    switch (end) {
    case CLARITY_END_FETCH_FAILED: return C_FETCH;
    case CLARITY_END_EXECUTOR_LOST:
    case CLARITY_END_RESUBMITTED:
        if (r && end == CLARITY_END_EXECUTOR_LOST) {
            *why = clarity_app_str(a, r->u.executor_lost.loss_reason);
            if (oom_text(*why)) return C_OOM;
        }
        return C_LOST;
    case CLARITY_END_KILLED:
        if (r) *why = clarity_app_str(a, r->u.killed.reason);
        return C_SPEC;
    default:
        if (r && r->kind == CLARITY_END_EXCEPTION) {
            *why = clarity_app_str(a, r->u.exception.class_name);
            if (oom_text(*why) || oom_text(clarity_app_str(a, r->u.exception.description))) return C_OOM;
        }
        return C_FAIL;
    }
}

/* The replay index of the successful attempt of the same task (stage attempt and index) as
   task row `row`, SIZE_MAX when none succeeded in that stage attempt. */
static size_t retry_of(const struct fnd *x, size_t s, uint32_t row)
{
    int64_t idx = clarity_icol_get(&x->a->tasks.index, row);
    for (size_t k = 0; k < x->lsucc[s]; k++) {
        size_t j = x->lstart[s] + k;
        if (clarity_icol_get(&x->a->tasks.index, x->row[j]) == idx) return j;
    }
    return SIZE_MAX;
}

static int64_t peak_of(const struct clarity_app *a, const struct clarity_executor *e, const char *name)
{
    for (size_t i = 0; i < e->peaks.n; i++)
        if (!strcmp(clarity_app_str(a, e->peaks.p[i].name), name)) return e->peaks.p[i].value;
    return -1;
}

static void oom_action(struct fnd *x, struct clarity_finding *f, bool container)
{
    const struct clarity_app *a = x->a;
    int64_t heap = -1;
    for (size_t e = 0; e < a->nexecs; e++) {
        if (a->execs[e].is_driver) continue;
        int64_t h = peak_of(a, &a->execs[e], "JVMHeapMemory");
        if (h > heap) heap = h;
    }
    const char *cur = clarity_fnd_prop(a, "spark.executor.memory");
    int64_t mem = clarity_fnd_jvm_size(cur ? cur : "1g");
    if (mem <= 0) mem = clarity_fnd_jvm_size("1g");   /* unreadable setting: Spark's default */
    char p[32];
    if (container) {
        const char *oc = clarity_fnd_prop(a, "spark.executor.memoryOverhead");
        int64_t over = clarity_fnd_jvm_size(oc);
        if (over <= 0) over = mem / 10 > 384 * (int64_t)FND_MB ? mem / 10 : 384 * (int64_t)FND_MB;
        clarity_fnd_fmt_jvm(p, sizeof p, over * 2);
        clarity_fnd_action(x, f, "spark.executor.memoryOverhead", "max(384m, 10% of executor memory)", p,
                           "The container was killed for memory outside the heap: try "
                           "spark.executor.memoryOverhead=%s (twice the current).", p);
        return;
    }
    /* the heap that held: the largest peak seen plus a quarter, at least 1.5x the current */
    int64_t want = mem + mem / 2;
    if (heap > 0 && heap + heap / 4 > want) want = heap + heap / 4;
    clarity_fnd_fmt_jvm(p, sizeof p, want);
    clarity_fnd_action(x, f, "spark.executor.memory", "1g", p, "Try spark.executor.memory=%s%s, or more partitions "
                       "so each task holds less.", p, heap > 0 ? " (peak JVM heap + 25%, at least 1.5x)" : " (1.5x)");
    if (heap > 0) clarity_fnd_ev(f, "peak_jvm_heap_bytes", (double)heap, "bytes");
}

static void restore(struct fnd *x, double *alt, const uint32_t *altch, size_t *n)
{
    for (size_t k = 0; k < *n; k++) alt[altch[k]] = x->rt[altch[k]];
    *n = 0;
}

/* The wall time lost while executors that took attempts with them were gone: per such
 * executor, its slots x the time until the next executor joined (or the tasks ended), x how
 * busy the other slots were then (idle slots mean the lost ones were not needed), over the
 * slots alive before the loss. An estimate: the slot replay runs on a fixed slot count. */
static double lost_capacity_ms(const struct fnd *x)
{
    const struct clarity_app *a = x->a;
    int cpus = clarity_sim_task_cpus(a);
    int64_t last = INT64_MIN;
    for (size_t i = 0; i < x->n; i++) {
        int64_t f = clarity_task_finish_ms(a, x->row[i]);
        if (f > last) last = f;
    }
    double total = 0;
    size_t seen = 0;
    for (size_t e = 0; e < a->nexecs && seen < LOST_MAX_EXECS; e++) {
        const struct clarity_executor *ex = &a->execs[e];
        if (ex->is_driver || !ex->remove_ms || ex->total_cores <= 0 || ex->remove_ms >= last) continue;
        /* only an executor that took attempts with it (ExecutorLostFailure, not OOM) */
        bool took = false;
        for (size_t s = 0; s < a->nstages && !took; s++)
            for (size_t i = x->lstart[s] + x->lsucc[s]; i < x->lstart[s + 1] && !took; i++) {
                const char *w;
                took = cat_of(a, x->row[i], &w) == C_LOST &&
                       (uint32_t)clarity_icol_get(&a->tasks.executor, x->row[i]) == ex->id;
            }
        if (!took) continue;
        seen++;
        int64_t rm = ex->remove_ms, back = last;
        double before = 0;
        for (size_t k = 0; k < a->nexecs; k++) {
            const struct clarity_executor *o = &a->execs[k];
            if (o->is_driver || o->total_cores <= 0) continue;
            if (o->add_ms >= rm && o->add_ms < back) back = o->add_ms;
            if (o->add_ms <= rm && (!o->remove_ms || o->remove_ms >= rm)) before += o->total_cores;
        }
        double slots = before / cpus, lost = (double)ex->total_cores / cpus;
        if (back <= rm || slots <= lost) continue;
        double busy = 0;
        for (size_t i = 0; i < x->n; i++) {
            int64_t l = clarity_task_launch_ms(a, x->row[i]), f = clarity_task_finish_ms(a, x->row[i]);
            int64_t lo = l > rm ? l : rm, hi = f < back ? f : back;
            if (hi > lo) busy += (double)hi - (double)lo;
        }
        /* differences in double: a damaged log's times reach the int64 limits */
        double gap = (double)back - (double)rm;
        double util = busy / ((slots - lost) * gap);
        if (util > 1) util = 1;
        total += lost * gap * util / slots;
    }
    return total;
}

/* An executor that died held cached blocks: the tasks of later stages that would have read
 * them in its memory (PROCESS_LOCAL) waited for the locality wait, then ran elsewhere. Per
 * stage submitted after the first loss whose tasks partly read cached blocks (some
 * PROCESS_LOCAL, some not) and that had no more tasks than slots (the wait was not for a
 * slot): the stage's span less its span had the late tasks (launched >= LOST_LATE_MS after
 * the stage's first) started with the others. Wall ms, estimated: no replay has the wait.
 * Executors the driver removed (dynamic allocation) are not losses. */
static double lost_cache_ms(const struct fnd *x, const char **reason, size_t *late_tasks, size_t *stages)
{
    const struct clarity_app *a = x->a;
    int64_t loss = INT64_MAX;
    for (size_t e = 0; e < a->nexecs; e++) {
        const struct clarity_executor *ex = &a->execs[e];
        const char *why = clarity_app_str(a, ex->remove_reason);
        if (ex->is_driver || !ex->remove_ms || !*why || has(why, "killed by driver") || has(why, "decommission"))
            continue;
        if (ex->remove_ms < loss) { loss = ex->remove_ms; *reason = why; }
    }
    double total = 0;
    if (loss == INT64_MAX) return 0;
    for (size_t s = 0; s < a->nstages; s++) {
        size_t m = x->lsucc[s], proc = 0;
        if (!m) continue;
        int64_t first = INT64_MAX, end = INT64_MIN;
        for (size_t k = 0; k < m; k++) {
            size_t r = x->row[x->lstart[s] + k];
            int64_t l = clarity_task_launch_ms(a, r), f = clarity_task_finish_ms(a, r);
            if (l < first) first = l;
            if (f > end) end = f;
            proc += clarity_icol_get(&a->tasks.locality, r) == CLARITY_LOC_PROCESS_LOCAL;
        }
        if (first <= loss || !proc || proc == m) continue;
        int slots = clarity_sim_configured_slots(a, first, end);
        if (slots <= 0 || m > (size_t)slots) continue;
        double on_time = (double)first, late_rt = 0;
        size_t late = 0;
        for (size_t k = 0; k < m; k++) {
            size_t r = x->row[x->lstart[s] + k];
            int64_t l = clarity_task_launch_ms(a, r), f = clarity_task_finish_ms(a, r);
            if (clarity_icol_get(&a->tasks.locality, r) != CLARITY_LOC_PROCESS_LOCAL && (double)l - (double)first >= LOST_LATE_MS) {
                late++;
                if ((double)f - (double)l > late_rt) late_rt = (double)f - (double)l;
            } else if ((double)f > on_time) on_time = (double)f;
        }
        if (!late) continue;
        double span = (double)end - (double)first, without = on_time - (double)first;
        if (late_rt > without) without = late_rt;
        if (span > without) {
            total += span - without;
            *late_tasks += late;
            (*stages)++;
        }
    }
    return total;
}

void clarity_fnd_failure_rules(struct fnd *x)
{
    const struct clarity_app *a = x->a;
    size_t count[C_N] = {0};
    double ms[C_N] = {0};
    const char *why[C_N] = {0};
    double task_ms = 0;
    bool container_oom = false;
    for (size_t s = 0; s < a->nstages; s++)
        for (size_t i = x->lstart[s]; i < x->lstart[s + 1]; i++) task_ms += x->rt[i];
    size_t failed_stages = 0;
    double failed_stage_ms = 0;
    /* The base of a failure's replay: each failed attempt chained with its task's successful
       retry (alt), since the retry could only start once the attempt had failed; the replay
       in launch order alone would start the retry in the first free slot, sooner than it
       could, and miss the tail a late failure adds to its stage. head: per successful
       attempt, the failed attempt its chain hangs on. */
    double *alt = malloc((x->n ? x->n : 1) * sizeof *alt);
    uint32_t *head = malloc((x->n ? x->n : 1) * sizeof *head), *altch = malloc((x->n ? x->n : 1) * sizeof *altch);
    size_t naltch = 0;
    if (!alt || !head || !altch) { x->oom = 1; goto done; }
    if (x->n) memcpy(alt, x->rt, x->n * sizeof *alt);
    for (enum cat c = 0; c < C_N; c++) {
        for (size_t s = 0; s < a->nstages; s++) {
            for (size_t i = x->lstart[s] + x->lsucc[s]; i < x->lstart[s + 1]; i++) {
                const char *w;
                if (cat_of(a, x->row[i], &w) != c) continue;
                if (c == C_SPEC && !(clarity_task_flags(a, x->row[i]) & CLARITY_TF_SPECULATIVE) &&
                    !has(w, "another attempt succeeded"))
                    continue;   /* killed for another reason: the job was cancelled, not speculation */
                count[c]++;
                ms[c] += x->rt[i];
                if (!why[c] || !*why[c]) why[c] = w;
                if (c == C_OOM && !has(w, "OutOfMemory")) container_oom = true;
                /* The retry waited for the failure: it launched after it, often in the last
                   wave. Without the failure the task succeeds on its first attempt, where the
                   failed one ran: the successful attempt's runtime moves to the failed one's
                   place in the launch order (once per task; further failures only vanish). */
                size_t j = retry_of(x, s, x->row[i]);
                bool chain = c != C_SPEC && c != C_FETCH && j != SIZE_MAX;
                if (chain && x->mod[j] == x->rt[j]) {
                    clarity_fnd_mod_set(x, i, x->rt[j]);
                    clarity_fnd_mod_set(x, j, 0);
                    alt[i] = x->rt[i] + x->rt[j];
                    alt[j] = 0;
                    head[j] = (uint32_t)i;
                    altch[naltch++] = (uint32_t)i;
                    altch[naltch++] = (uint32_t)j;
                } else {
                    clarity_fnd_mod_set(x, i, 0);
                    if (chain) {   /* a further failure of the same task: one chain */
                        alt[head[j]] += x->rt[i];
                        alt[i] = 0;
                        altch[naltch++] = (uint32_t)i;
                    }
                }
            }
            /* a fetch failure fails its stage attempt: the attempt's successful tasks are
               recomputed by the next attempt, so they were wasted too */
            if (c == C_FETCH && a->stages[s].status == CLARITY_STAGE_FAILED && count[c]) {
                for (size_t k = 0; k < x->lsucc[s]; k++) {
                    size_t i = x->lstart[s] + k;
                    failed_stage_ms += x->rt[i];
                    clarity_fnd_mod_set(x, i, 0);
                }
                failed_stages++;
            }
        }
        const char *cache_why = NULL;
        size_t cache_tasks = 0, cache_stages = 0;
        double cache_ms = c == C_LOST ? lost_cache_ms(x, &cache_why, &cache_tasks, &cache_stages) : 0;
        if ((!count[c] && cache_ms <= 0) || (c == C_SPEC && ms[c] < SPEC_MIN_SHARE * task_ms)) {
            clarity_fnd_mod_cancel(x);
            restore(x, alt, altch, &naltch);
            continue;
        }
        /* a lost executor's cores were missing until a replacement joined: wall ms, estimated
           (the replay runs each component on fixed slots) */
        double cap_ms = c == C_LOST ? lost_capacity_ms(x) + cache_ms : 0;
        /* never more than the run (and a damaged log's extreme times stay in int64) */
        if (cap_ms > (double)x->duration_ms) cap_ms = x->duration_ms > 0 ? (double)x->duration_ms : 0;
        if (cache_ms > cap_ms) cache_ms = cap_ms;
        /* speculation's cost is also core time, and an out-of-memory death is always kept:
           neither may be skipped for a small wall saving; the others save at most the time of
           the attempts they remove (and the capacity a lost executor took) */
        double bound = c == C_SPEC || c == C_OOM ? 1e300
                     : ms[c] + failed_stage_ms + (x->task_span_ms > 0 ? cap_ms * x->sim_total / (double)x->task_span_ms : 0);
        x->base_alt = alt;
        x->alt_delta = 0;
        double sim = x->ntouched ? clarity_fnd_mod_end(x, 0, bound) : (bound >= x->min_sim ? 0 : -1);
        double alt_delta = x->alt_delta;
        x->base_alt = NULL;
        restore(x, alt, altch, &naltch);
        if (sim < 0) continue;
        static const enum clarity_finding_kind kinds[C_N] = {CLARITY_FK_TASK_FAILURES, CLARITY_FK_FETCH_FAILURES,
                                                             CLARITY_FK_LOST_EXECUTORS, CLARITY_FK_MEMORY_HEADROOM,
                                                             CLARITY_FK_SPECULATION_WASTE};
        struct clarity_finding *f = clarity_fnd_add(x, kinds[c]);
        if (!f) return;
        /* against the chained base: the one the saving was measured from */
        f->saving_ms = clarity_fnd_wall_alt(x, sim, alt_delta) + (int64_t)(cap_ms + 0.5);
        f->method = cap_ms > 0.5 * (double)f->saving_ms ? CLARITY_FM_ESTIMATE : CLARITY_FM_REPLAY;
        f->confidence = cap_ms > 0 ? CLARITY_FC_MEDIUM : CLARITY_FC_HIGH;
        if (c != C_SPEC && c != C_FETCH)
            snprintf(f->caveat, sizeof f->caveat, "replayed with each task succeeding on its first attempt (a retry "
                     "starts only once its attempt failed)%s", cap_ms > 0 ? "; plus the lost executors' cores missing "
                     "until a replacement joined, while the other slots were busy (estimated)" : "");
        char d[24];
        clarity_fnd_dur(d, sizeof d, ms[c]);
        const char *w = why[c] && *why[c] ? why[c] : NULL;
        clarity_fnd_ev(f, "attempts", (double)count[c], "attempts");
        clarity_fnd_ev(f, "attempt_ms", ms[c], "ms");
        switch (c) {
        case C_FAIL:
            snprintf(f->title, sizeof f->title, "Task failures: %zu attempt(s) failed%s%.80s%s, %s of task time lost",
                     count[c], w ? " (" : "", w ? w : "", w ? ")" : "", d);
            clarity_fnd_action(x, f, NULL, NULL, NULL, "Fix the exception the attempts failed with (clarity summary "
                               "--failures shows the stack); retries only repeat the work.");
            break;
        case C_FETCH:
            snprintf(f->title, sizeof f->title, "Fetch failures: %zu attempt(s) could not read shuffle data; %zu stage "
                     "attempt%s recomputed, %s of task time lost", count[c], failed_stages, failed_stages == 1 ? "" : "s",
                     clarity_fnd_dur(d, sizeof d, ms[c] + failed_stage_ms));
            clarity_fnd_ev(f, "failed_stage_attempts", (double)failed_stages, "stage_attempts");
            clarity_fnd_ev(f, "failed_stage_task_ms", failed_stage_ms, "ms");
            {
                const char *ess = clarity_fnd_prop(a, "spark.shuffle.service.enabled");
                if (!ess || strcmp(ess, "true"))
                    clarity_fnd_action(x, f, "spark.shuffle.service.enabled", "false", "true",
                                       "Shuffle files died with their executor: try the external shuffle service "
                                       "(spark.shuffle.service.enabled=true), and see why executors were lost.");
                else
                    clarity_fnd_action(x, f, "spark.shuffle.io.maxRetries", "3", "10",
                                       "Try spark.shuffle.io.maxRetries=10 and spark.shuffle.io.retryWait=30s; check "
                                       "the hosts the failed fetches named.");
            }
            break;
        case C_LOST:
            if (count[c])
                snprintf(f->title, sizeof f->title, "Lost executors: %zu attempt(s) ended with their executor lost%s%.80s%s, "
                         "%s of task time", count[c], w ? " (" : "", w ? w : "", w ? ")" : "", d);
            else {
                w = cache_why;
                snprintf(f->title, sizeof f->title, "Lost executors: an executor died with its cached blocks (%.80s); %zu "
                         "task(s) of %zu later stage(s) waited, then read elsewhere", w ? w : "", cache_tasks, cache_stages);
            }
            if (cap_ms - cache_ms > 0) clarity_fnd_ev(f, "missing_capacity_ms", cap_ms - cache_ms, "ms");
            if (cache_ms > 0) {
                clarity_fnd_ev(f, "lost_cache_wait_ms", cache_ms, "ms");
                clarity_fnd_ev(f, "lost_cache_tasks", (double)cache_tasks, "tasks");
                snprintf(f->caveat, sizeof f->caveat, "%s%s", count[c] ? "replayed with each task succeeding on its first "
                         "attempt; " : "", "plus, estimated: the lost executors' cores missing until a replacement "
                         "joined, and the wait of later tasks whose cached blocks died with it");
            }
            if (has(w, "preempt") || has(w, "decommission"))
                clarity_fnd_action(x, f, "spark.decommission.enabled", "false", "true",
                                   "Executors were preempted: try spark.decommission.enabled=true (with "
                                   "spark.storage.decommission.enabled) so their work migrates.");
            else
                clarity_fnd_action(x, f, NULL, NULL, NULL, "Read the executor logs for why they died (memory "
                                   "overhead, node loss, preemption); give the application stable nodes.");
            break;
        case C_OOM:
            snprintf(f->title, sizeof f->title, "Out of memory: %zu attempt(s) died of it%s%.80s%s, %s of task time "
                     "lost", count[c], w ? " (" : "", w ? w : "", w ? ")" : "", d);
            oom_action(x, f, container_oom);
            break;
        case C_SPEC: {
            int cpus = clarity_sim_task_cpus(a);
            f->saving_core_ms = (int64_t)(ms[c] * cpus);
            snprintf(f->title, sizeof f->title, "Speculation waste: %zu speculative cop%s were killed after %s of "
                     "task time (%.0f%%)", count[c], count[c] == 1 ? "y" : "ies", d, task_ms > 0 ? 100 * ms[c] / task_ms : 0);
            clarity_fnd_ev(f, "task_ms", task_ms, "ms");
            {
                /* speculate later than now: twice the current multiplier, at least 3 */
                const char *cm = clarity_fnd_prop(a, "spark.speculation.multiplier");
                double mult = cm ? atof(cm) : 1.5;
                char p[16];
                snprintf(p, sizeof p, "%g", mult * 2 > 3 ? mult * 2 : 3);
                clarity_fnd_action(x, f, "spark.speculation.multiplier", "1.5", p,
                                   "Speculate later: spark.speculation.multiplier=%s and spark.speculation.quantile=0.9;"
                                   " or fix the cause of the slow tasks (skew, a slow host).", p);
            }
            break;
        }
        default: break;
        }
    }
done:
    free(alt); free(head); free(altch);
}
