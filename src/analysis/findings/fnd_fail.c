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

static void restore(struct fnd *x, double *alt, uint8_t *is_head, const uint32_t *altch, size_t *n)
{
    for (size_t k = 0; k < *n; k++) alt[altch[k]] = x->rt[altch[k]], is_head[altch[k]] = 0;
    *n = 0;
}

/* A lost executor, for the timeline (timeline_ms): its slots were gone from its removal until the
 * next executor joined (the replacement: after that the capacity is the same again). */
struct lost_exec { uint32_t id; int64_t rm, back; int slots; };

/* The wall time lost while executors that took attempts with them were gone: per such
 * executor, its slots x the time until the next executor joined (or the tasks ended), x how
 * busy the other slots were then (idle slots mean the lost ones were not needed), over the
 * slots alive before the loss. An estimate: the slot replay runs on a fixed slot count. Lists
 * those executors in out (LOST_MAX_EXECS). */
static double lost_capacity_ms(const struct fnd *x, struct lost_exec *out, size_t *nout)
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
        out[(*nout)++] = (struct lost_exec){ex->id, rm, back, ex->total_cores / cpus};
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

/* Spare slot time in the timeline without the failures: [from, to). */
struct hole { double from, to; };
/* at most this many at once (the earliest kept): an estimate, and a log of thousands of lost
   attempts needs no more to show the effect */
#define MAX_HOLES 256

static void hole_add(struct hole *h, size_t *n, double from, double to)
{
    if (to <= from) return;
    if (*n < MAX_HOLES) { h[(*n)++] = (struct hole){from, to}; return; }
    size_t late = 0;
    for (size_t k = 1; k < *n; k++) if (h[k].from > h[late].from) late = k;
    if (h[late].from > from) h[late] = (struct hole){from, to};
}

/* Concurrency on one host as a step function: the integral of the number of attempts running
 * from the first event to t (load_at), from sorted +1/-1 events. */
struct step { double t; int d; };
struct load { struct step *e; double *p; int *c; size_t n; };

static int cmp_step(const void *x, const void *y)
{
    const struct step *a = x, *b = y;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    return a->d - b->d;   /* an end before a start at the same time: they did not overlap */
}

static void load_build(struct load *L)
{
    qsort(L->e, L->n, sizeof *L->e, cmp_step);
    int c = 0;
    for (size_t k = 0; k < L->n; k++) {
        L->p[k] = k ? L->p[k - 1] + (double)L->c[k - 1] * (L->e[k].t - L->e[k - 1].t) : 0;
        c += L->e[k].d;
        L->c[k] = c;
    }
}

static double load_at(const struct load *L, double t)
{
    if (!L->n || t <= L->e[0].t) return 0;
    size_t lo = 0, hi = L->n;   /* the last event at or before t */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (L->e[mid].t <= t) lo = mid;
        else hi = mid;
    }
    return L->p[lo] + (double)L->c[lo] * (t - L->e[lo].t);
}

/* The host load the lost executors' retries added: a retry ran on a surviving host beside that
 * host's own attempts, which share its disks and network (not its cores: one slot each), so
 * those attempts ran longer than they would have without it. On the tuning seeds (synth
 * wordcount and sort, 1-10) the timeline kept those longer runtimes and fell short of the re-run
 * by up to half (wordcount 6: 1.5 s against 2.5 s of stage time; sort 5: 2.1 s against 3.7 s:
 * the first wave's attempts on the hosts that took the retries ran 0.4-1.3 s longer than in the
 * re-run, where their hosts emptied as the wave ended). Per attempt of the component on a host
 * where a removed retry ran: its time outside CPU (runtime - executor CPU time; nothing when the
 * CPU time is not logged) shrinks by the share of its mean concurrency the retries made
 * (retries' overlap / all attempts' overlap with it, itself included): a bandwidth shared
 * evenly by the tasks running, an estimate. adj[m] gets component position m's runtime (the
 * logged one when nothing ran beside it). Returns -1 when out of memory. */
#define LOAD_MAX_HOSTS 64
static int unloaded_runtimes(const struct fnd *x, const struct clarity_replay_component *k, const uint8_t *is_head,
                             double *adj)
{
    const struct clarity_app *a = x->a;
    int64_t hosts[LOAD_MAX_HOSTS];
    size_t nh = 0;
    for (size_t m = 0; m < k->n; m++) {
        size_t i = x->plan.order[k->first + m];
        int64_t l = clarity_task_launch_ms(a, x->row[i]), f = clarity_task_finish_ms(a, x->row[i]);
        adj[m] = f > l ? (double)f - (double)l : 0;
        bool removed = (x->mod[i] != x->rt[i] || x->split[i] > 1) && !is_head[i];
        if (!removed || nh == LOAD_MAX_HOSTS) continue;
        int64_t h = clarity_icol_get(&a->tasks.host, x->row[i]);
        size_t q = 0;
        while (q < nh && hosts[q] != h) q++;
        if (q == nh) hosts[nh++] = h;
    }
    struct load all = {0}, ret = {0};
    size_t cap = 2 * k->n;
    all.e = malloc(cap * sizeof *all.e), ret.e = malloc(cap * sizeof *ret.e);
    all.p = malloc(cap * sizeof *all.p), ret.p = malloc(cap * sizeof *ret.p);
    all.c = malloc(cap * sizeof *all.c), ret.c = malloc(cap * sizeof *ret.c);
    int rc = 0;
    if (!all.e || !ret.e || !all.p || !ret.p || !all.c || !ret.c) { rc = -1; nh = 0; }
    for (size_t q = 0; q < nh; q++) {
        all.n = ret.n = 0;
        for (size_t m = 0; m < k->n; m++) {
            size_t i = x->plan.order[k->first + m];
            if (clarity_icol_get(&a->tasks.host, x->row[i]) != hosts[q] || !(adj[m] > 0)) continue;
            double l = (double)clarity_task_launch_ms(a, x->row[i]), f = l + adj[m];
            all.e[all.n++] = (struct step){l, 1};
            all.e[all.n++] = (struct step){f, -1};
            if ((x->mod[i] != x->rt[i] || x->split[i] > 1) && !is_head[i]) {
                ret.e[ret.n++] = (struct step){l, 1};
                ret.e[ret.n++] = (struct step){f, -1};
            }
        }
        load_build(&all);
        load_build(&ret);
        for (size_t m = 0; m < k->n; m++) {
            size_t i = x->plan.order[k->first + m];
            if (clarity_icol_get(&a->tasks.host, x->row[i]) != hosts[q] || !(adj[m] > 0)) continue;
            if (x->mod[i] != x->rt[i] || x->split[i] > 1) continue;   /* not kept as logged */
            double l = (double)clarity_task_launch_ms(a, x->row[i]), f = l + adj[m];
            double conc = load_at(&all, f) - load_at(&all, l), extra = load_at(&ret, f) - load_at(&ret, l);
            if (!(extra > 0) || !(conc > extra)) continue;
            double cpu = (double)clarity_task_metric(a, x->row[i], CLARITY_TM_CPU_NS) / 1e6;
            if (!(cpu > 0)) continue;   /* no CPU time logged: no way to tell what was shared */
            double io = adj[m] - (cpu < adj[m] ? cpu : adj[m]);
            adj[m] -= io * extra / conc;
        }
    }
    free(all.e), free(ret.e), free(all.p), free(ret.p), free(all.c), free(ret.c);
    return rc;
}

/* One placement of a component's attempts for timeline_ms: a task that now succeeds on its
 * failed attempt ends at that attempt's launch + its runtime, a removed attempt not at all, a
 * kept one on the earliest spare time before its launch (consuming it) or where it ran, with
 * runtime adj[m] (NULL: the logged one). Returns the new end; *old_end gets the logged one. */
static double place(const struct fnd *x, const struct clarity_replay_component *k, const uint8_t *is_head,
                    struct hole *holes, size_t nh, const double *sfirst, const double *adj, double *old_end)
{
    const struct clarity_app *a = x->a;
    double new_end = -1e300;
    for (size_t m = 0; m < k->n; m++) {
        size_t i = x->plan.order[k->first + m];
        int64_t l = clarity_task_launch_ms(a, x->row[i]), f = clarity_task_finish_ms(a, x->row[i]);
        if (f < l) f = l;
        if ((double)f > *old_end) *old_end = (double)f;
        double rt = adj ? adj[m] : (double)f - (double)l, nf = (double)l + rt;
        bool changed = x->mod[i] != x->rt[i] || x->split[i] > 1;
        if (changed && is_head[i]) nf = (double)l + x->mod[i];   /* the task succeeds here */
        else if (changed) continue;                              /* removed */
        else if (nh) {
            double first = sfirst[clarity_icol_get(&a->tasks.stage, x->row[i])];
            size_t best = SIZE_MAX;
            for (size_t h = 0; h < nh; h++) {
                double at = holes[h].from > first ? holes[h].from : first;
                if (at < (double)l && (double)l <= holes[h].to && (best == SIZE_MAX || holes[h].from < holes[best].from))
                    best = h;
            }
            if (best != SIZE_MAX) {
                double at = holes[best].from > first ? holes[best].from : first;
                nf = at + rt;
                holes[best].from = (double)l;   /* the attempt's own slot from its launch on */
            }
        }
        if (nf > new_end) new_end = nf;
    }
    return new_end;
}

/* The same saving read from the log's own timeline: each component (overlapping stages)
 * ends at its last finish; without the failures each chained task finishes at its failed
 * attempt's launch plus its successful attempt's runtime, a removed attempt not at all, every
 * other attempt when it did. Sum over the components the changes touch of how much earlier
 * they end, in wall ms. The slot replay starts every task of a component at once on its
 * observed slots, so it misses what the log shows: a stage whose first attempts launched late
 * (executors still joining) and retries that waited for a slot or a locality level; here a
 * failure that made its stage's tail is seen as such.
 * With lost executors (lost != NULL), the slots they would have kept are spare time too: each
 * lost slot from the removal (or from the end of the task that now runs on to success there)
 * until the replacement joined, and the slot of each removed retry while it ran. Attempts that
 * launched later (in launch order, not before their stage's first launch) start on the
 * earliest such spare time instead, and free it again at their own launch time: the count of
 * busy slots never exceeds the slots of the run without the loss. The failures of a failed
 * attempt that is not an executor loss are not filled in this way: its task held its slot
 * longer without the failure, so its retry's slot is not spare. Reads x->mod (a modification
 * in progress). */
static double timeline_ms(struct fnd *x, const uint8_t *is_head, const struct lost_exec *lost, size_t nlost,
                          struct hole *holes, double *sfirst)
{
    const struct clarity_app *a = x->a;
    double total = 0;
    for (size_t t = 0; t < x->ntouched; t++) {
        uint32_t c = x->comp_of[x->touched[t]];
        if (x->comp_mark[c]) continue;
        x->comp_mark[c] = 1;
        const struct clarity_replay_component *k = &x->plan.comp[c];
        double old_end = -1e300;
        size_t nh = 0;
        for (size_t m = 0; m < k->n && nlost; m++) {
            size_t i = x->plan.order[k->first + m];
            if (x->mod[i] == x->rt[i] && x->split[i] <= 1) continue;
            int64_t l = clarity_task_launch_ms(a, x->row[i]), f = clarity_task_finish_ms(a, x->row[i]);
            uint32_t ex = (uint32_t)clarity_icol_get(&a->tasks.executor, x->row[i]);
            if (!is_head[i]) {   /* a removed retry (or further attempt): its slot is spare while it ran */
                hole_add(holes, &nh, (double)l, (double)f);
                continue;
            }
            for (size_t e = 0; e < nlost; e++)
                if (lost[e].id == ex) hole_add(holes, &nh, (double)l + x->mod[i], (double)lost[e].back);
        }
        for (size_t e = 0; e < nlost; e++) {   /* the lost executors' slots that ran nothing then */
            int busy = 0;
            for (size_t m = 0; m < k->n; m++) {
                size_t i = x->plan.order[k->first + m];
                busy += is_head[i] && (uint32_t)clarity_icol_get(&a->tasks.executor, x->row[i]) == lost[e].id;
            }
            for (int sl = busy; sl < lost[e].slots; sl++) hole_add(holes, &nh, (double)lost[e].rm, (double)lost[e].back);
        }
        /* the stage attempts' first launches (the order is the launch order): no attempt
           moves before its stage began */
        for (size_t m = 0; m < k->n && nh; m++) {
            size_t i = x->plan.order[k->first + m];
            int64_t s = clarity_icol_get(&a->tasks.stage, x->row[i]);
            double l = (double)clarity_task_launch_ms(a, x->row[i]);
            if (l < sfirst[s]) sfirst[s] = l;
        }
        /* with lost executors: each kept attempt's runtime without the retries' host load */
        double *adj = nlost && nh ? malloc((k->n ? k->n : 1) * sizeof *adj) : NULL;
        if (adj && unloaded_runtimes(x, k, is_head, adj)) free(adj), adj = NULL;
        double new_end = place(x, k, is_head, holes, nh, sfirst, adj, &old_end);
        free(adj);
        if (new_end > -1e300 && old_end > new_end) total += old_end - new_end;
        for (size_t m = 0; m < k->n && nh; m++) sfirst[clarity_icol_get(&a->tasks.stage, x->row[x->plan.order[k->first + m]])] = 1e300;
    }
    for (size_t t = 0; t < x->ntouched; t++) x->comp_mark[x->comp_of[x->touched[t]]] = 0;
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
    uint8_t *is_head = calloc(x->n ? x->n : 1, 1);   /* a failed attempt its task now succeeds on */
    struct hole *holes = malloc(MAX_HOLES * sizeof *holes);
    double *sfirst = malloc((a->nstages ? a->nstages : 1) * sizeof *sfirst);
    struct lost_exec lost[LOST_MAX_EXECS];
    size_t nlost = 0, naltch = 0;
    if (!alt || !head || !altch || !is_head || !holes || !sfirst) { x->oom = 1; goto done; }
    for (size_t s = 0; s < a->nstages; s++) sfirst[s] = 1e300;
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
                    /* An attempt lost with its executor had not finished: its task needed at
                       least the time it had already run there. The retry ran later, often on a
                       host with spare slots once the wave's first attempts had ended, and
                       shorter than the first attempt would have beside its wave (tuning seed
                       pagerank 43: the two attempts lost after 9.0 s, their retries alone on
                       their hosts 7.2 and 7.7 s, the same tasks 9.2 and 9.3 s in the run
                       without the kill; the saving 9.0 s against the re-run's 7.5 s, 7.7 s
                       with this). Not for exceptions: a failed attempt may have been slow for
                       the reason it failed. */
                    double first = c == C_LOST && x->rt[i] > x->rt[j] ? x->rt[i] : x->rt[j];
                    clarity_fnd_mod_set(x, i, first);
                    clarity_fnd_mod_set(x, j, 0);
                    alt[i] = x->rt[i] + x->rt[j];
                    alt[j] = 0;
                    head[j] = (uint32_t)i;
                    is_head[i] = 1;
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
            restore(x, alt, is_head, altch, &naltch);
            continue;
        }
        /* a lost executor's cores were missing until a replacement joined: wall ms, estimated
           (the replay runs each component on fixed slots) */
        double cap_ms = c == C_LOST ? lost_capacity_ms(x, lost, &nlost) + cache_ms : 0;
        /* never more than the run (and a damaged log's extreme times stay in int64) */
        if (cap_ms > (double)x->duration_ms) cap_ms = x->duration_ms > 0 ? (double)x->duration_ms : 0;
        if (cache_ms > cap_ms) cache_ms = cap_ms;
        /* speculation's cost is also core time, and an out-of-memory death is always kept:
           neither may be skipped for a small wall saving; the others save at most the time of
           the attempts they remove (and the capacity a lost executor took) */
        /* the log's timeline with the failures removed (not for fetch failures: their
           stage attempts' recomputed tasks are not chained) */
        double tl_ms = (c == C_FAIL || c == C_LOST || c == C_OOM) && x->ntouched ? timeline_ms(x, is_head, lost, c == C_LOST ? nlost : 0, holes, sfirst) : 0;
        double to_sim = x->task_span_ms > 0 ? x->sim_total / (double)x->task_span_ms : 0;
        double bound = c == C_SPEC || c == C_OOM ? 1e300 : ms[c] + failed_stage_ms + cap_ms * to_sim;
        if (tl_ms * to_sim > bound) bound = tl_ms * to_sim;
        x->base_alt = alt;
        x->alt_delta = 0;
        x->arr_own = c == C_FAIL;
        x->arr_wall_own = -1;
        double sim = x->ntouched ? clarity_fnd_mod_end(x, 0, bound) : (bound >= x->min_sim ? 0 : -1);
        double alt_delta = x->alt_delta, held = x->arr_wall, held_own = x->arr_wall_own;
        x->arr_own = false;
        x->base_alt = NULL;
        restore(x, alt, is_head, altch, &naltch);
        if (sim < 0) continue;
        static const enum clarity_finding_kind kinds[C_N] = {CLARITY_FK_TASK_FAILURES, CLARITY_FK_FETCH_FAILURES,
                                                             CLARITY_FK_LOST_EXECUTORS, CLARITY_FK_MEMORY_HEADROOM,
                                                             CLARITY_FK_SPECULATION_WASTE};
        struct clarity_finding *f = clarity_fnd_add(x, kinds[c]);
        if (!f) goto done;
        /* against the chained base: the one the saving was measured from */
        /* The larger of two models, each missing what the other has: the slot replay (tasks
           reflow onto freed slots, but all start at once) plus the lost capacity estimated
           from utilisation, and the log's own timeline (launch offsets and waits as logged,
           the lost slots given back until a replacement joined). Then the cached blocks'
           wait, which neither has. */
        int64_t replay_ms = clarity_fnd_wall_alt(x, sim, alt_delta);
        double model = (double)replay_ms + (cap_ms - cache_ms);
        /* Task failures: the timeline alone when it has the failures. Once the simulator's
           re-runs kept each stage's data (synth --keyed-draws), the larger of the two was the
           replay in every over-estimate of the tuning seeds (1-10, 41-50: wordcount 3 found
           4.5 s by the replay against 2.5 s by the re-run, the timeline 3.3 s; TPC-DS mixes,
           whose queries arrive on a clock the replay does not keep, 66% median error): the
           replay starts a component's tasks at once and chains each failed attempt with its
           retry on one slot, longer than the log shows when the retry ran beside other work.
           The timeline alone: median error 9% (as the larger: 9%), p90 33% (71%).
           Lost executors likewise (fnd21, tuning seeds 1-10 and 41-50, 43 owed runs): the
           larger was the replay plus the capacity estimate in the worst over-estimates (sort 47:
           2.86 s against the re-run's 1.44 s, the timeline 1.69 s; kmeans 41-45 +4% to +14%),
           since the replay starts the component's tasks at once and the estimate assumes the
           lost slots were needed. The timeline alone: median 7% -> 5%, p90 28% -> 26%, largest
           99% -> 48%; three wordcount runs go lower (-31% -> -48% the worst). */
        bool by_tl = c == C_FAIL || c == C_LOST ? tl_ms > 0 : tl_ms > model;
        if (by_tl) model = tl_ms;
        f->saving_ms = (int64_t)(model + cache_ms + 0.5);
        /* queries arriving on their own (fnd_arrive.c): neither model keeps their arrivals, so
           the failures' saving is at most what the arrival-held replay moves the end by */
        if (held >= 0 && (c == C_FAIL || c == C_LOST || c == C_OOM)) {
            f->arrivals = 1;
            /* Task failures: the arrival-held replay reads a query that started with nothing
               open within 2 s of another's end as that one's next statement, so it moves up
               with it; it may as well have arrived on its own clock, and the log cannot tell
               the two apart. The smaller of the two readings (every query held at its own
               logged arrival; fnd36): on seeds 1-95's TPC-DS mixes with failures, 12 of 45
               logs had such a query, all of them arriving on a clock; it changed one saving,
               mix 22 (the last query started 10 ms after the one before it ended, which saved
               2.2 s the last query did not get: 4.74 s against the re-run's 2.51 s, now 2.67 s) */
            if (held_own >= 0 && held_own < held) held = held_own;
            if (held + cache_ms < (double)f->saving_ms) f->saving_ms = (int64_t)(held + cache_ms + 0.5);
        }
        /* estimated where the capacity or the cache wait (assumed rates, no replay) make over
           half of it */
        double est = (by_tl ? 0 : cap_ms - cache_ms) + cache_ms;
        f->method = est > 0.5 * (double)f->saving_ms ? CLARITY_FM_ESTIMATE : CLARITY_FM_REPLAY;
        f->confidence = cap_ms > 0 ? CLARITY_FC_MEDIUM : CLARITY_FC_HIGH;
        if (c != C_SPEC && c != C_FETCH && by_tl)
            snprintf(f->caveat, sizeof f->caveat, c == C_LOST ? "the log's timeline, each task succeeding on its first "
                     "attempt; lost slots kept until a replacement joined, later attempts moved onto them and onto the "
                     "retries' slots, less the host share the retries took (estimated)" : "the log's own timeline with "
                     "each task succeeding on its first attempt, where and when it launched");
        else if (c != C_SPEC && c != C_FETCH)
            snprintf(f->caveat, sizeof f->caveat, "replayed with each task succeeding on its first attempt (a retry "
                     "starts only once its attempt failed)%s", cap_ms > 0 ? "; plus the lost executors' cores missing "
                     "until a replacement joined, while the other slots were busy (estimated)" : "");
        char d[24];
        clarity_fnd_dur(d, sizeof d, ms[c]);
        const char *w = why[c] && *why[c] ? why[c] : NULL;
        clarity_fnd_ev(f, "attempts", (double)count[c], "attempts");
        clarity_fnd_ev(f, "attempt_ms", ms[c], "ms");
        if (tl_ms > 0) {
            clarity_fnd_ev(f, "replay_saving_ms", (double)replay_ms, "ms");
            clarity_fnd_ev(f, "timeline_saving_ms", tl_ms, "ms");
        }
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
    free(alt); free(head); free(altch); free(is_head); free(holes); free(sfirst);
}
