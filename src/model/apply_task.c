/* Task start, getting-result and end: Task Info, Task Metrics of every version, end reasons. */
#include "model/build.h"
#include "model/metric_keys.h"

static int set_col(struct apply_ctx *c, struct clarity_icol *col, size_t row, int64_t v)
{
    if (clarity_icol_set(col, row, v, c->app->tasks.cap) != 0) c->failed = 1;
    return 0;
}

/* One pass over a metrics object; keys outside the group are ignored (1.0-era keys). */
static void read_metric_group(struct apply_ctx *c, size_t row, cj_val obj, int (*lookup)(const char *, size_t))
{
    cj_iter it;
    const char *k;
    size_t kl;
    cj_val v;
    if (!cj_object_begin(obj, &it)) return;
    while (cj_object_next(&it, &k, &kl, &v)) {
        int m = lookup(k, kl);
        int64_t x;
        if (m >= 0 && cj_int(v, &x)) set_col(c, &c->app->tasks.m[m], row, x);
    }
}

static int tasks_reserve(struct apply_ctx *c)
{
    struct clarity_tasks *t = &c->app->tasks;
    if (t->n < t->cap) return 0;
    size_t ncap = t->cap ? t->cap * 2 : 1024;
    struct clarity_icol *cols[] = {&t->task_id, &t->stage, &t->index, &t->attempt, &t->partition,
                                   &t->launch_rel, &t->duration, &t->getting_result, &t->executor,
                                   &t->host, &t->locality, &t->end, &t->flags};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        if (clarity_icol_reserve(cols[i], t->cap, ncap) != 0) return -1;
    for (int m = 0; m < CLARITY_TM_COUNT; m++)
        if (clarity_icol_reserve(&t->m[m], t->cap, ncap) != 0) return -1;
    t->cap = ncap;
    return 0;
}

static int locality_of(const char *s, size_t n)
{
    static const char *names[] = {"PROCESS_LOCAL", "NODE_LOCAL", "NO_PREF", "RACK_LOCAL", "ANY"};
    for (int i = 0; i < 5; i++)
        if (strlen(names[i]) == n && memcmp(names[i], s, n) == 0) return i;
    return CLARITY_LOC_UNKNOWN;
}

/* Finds or creates the row for the task in "Task Info"; fills its identity fields. */
static long task_row(struct apply_ctx *c, cj_val ev, cj_val info, bool *created)
{
    struct clarity_app *a = c->app;
    struct clarity_tasks *t = &a->tasks;
    int64_t tid;
    *created = false;
    if (!cj_get_int(info, "Task ID", &tid)) {
        problem(c, "task event without \"Task Info\".\"Task ID\"");
        return -1;
    }
    uint32_t row;
    if (clarity_idmap_get(&a->task_by_id, tid, &row)) return row;
    if (tasks_reserve(c) != 0) {
        c->failed = 1;
        return -1;
    }
    row = (uint32_t)t->n++;
    if (clarity_idmap_put(&a->task_by_id, tid, row) != 0) {
        c->failed = 1;
        return -1;
    }
    *created = true;
    int64_t sid = -1, satt = 0;
    cj_get_int(ev, "Stage ID", &sid);
    cj_get_int(ev, "Stage Attempt ID", &satt);
    struct clarity_stage *st = stage_get_or_add(c, sid, (int32_t)satt);
    if (!st) return -1;
    set_col(c, &t->task_id, row, tid);
    set_col(c, &t->stage, row, st - a->stages);
    set_col(c, &t->index, row, get_int_or(info, "Index", 0));
    set_col(c, &t->attempt, row, get_int_or(info, "Attempt", 0));
    set_col(c, &t->partition, row, get_int_or(info, "Partition ID", -1));
    int64_t launch = get_int_or(info, "Launch Time", 0);
    if (!a->time_base) a->time_base = a->start_ms ? a->start_ms : launch;
    set_col(c, &t->launch_rel, row, launch - a->time_base);
    const char *s;
    size_t n;
    if (cj_get_str(info, "Executor ID", &s, &n)) {
        struct clarity_executor *e = exec_get_or_add(c, s, n);
        if (e) set_col(c, &t->executor, row, e->id);
    }
    uint32_t host = intern_key(c, info, "Host");
    set_col(c, &t->host, row, host);
    set_col(c, &t->locality, row, cj_get_str(info, "Locality", &s, &n) ? locality_of(s, n) : CLARITY_LOC_UNKNOWN);
    bool spec = false;
    cj_get_bool(info, "Speculative", &spec);
    set_col(c, &t->flags, row, spec ? CLARITY_TF_SPECULATIVE : 0);
    return row;
}

void apply_task_start(struct apply_ctx *c, cj_val ev)
{
    cj_val info;
    bool created;
    if (!cj_get(ev, "Task Info", &info)) {
        problem(c, "SparkListenerTaskStart without \"Task Info\"");
        return;
    }
    long row = task_row(c, ev, info, &created);
    if (row < 0) return;
    struct clarity_tasks *t = &c->app->tasks;
    set_col(c, &t->flags, (size_t)row, clarity_icol_get(&t->flags, (size_t)row) | CLARITY_TF_GOT_START);
}

void apply_task_getting_result(struct apply_ctx *c, cj_val ev)
{
    cj_val info;
    bool created;
    if (!cj_get(ev, "Task Info", &info)) return;
    long row = task_row(c, ev, info, &created);
    if (row < 0) return;
    int64_t gr = get_int_or(info, "Getting Result Time", 0);
    if (gr > 0) set_col(c, &c->app->tasks.getting_result, (size_t)row, gr - clarity_task_launch_ms(c->app, (size_t)row));
}

static int end_reason(const char *s, size_t n)
{
    static const struct { const char *name; int end; } r[] = {
        {"Success", CLARITY_END_SUCCESS}, {"Resubmitted", CLARITY_END_RESUBMITTED},
        {"TaskResultLost", CLARITY_END_TASK_RESULT_LOST}, {"UnknownReason", CLARITY_END_UNKNOWN_REASON},
        {"FetchFailed", CLARITY_END_FETCH_FAILED}, {"ExceptionFailure", CLARITY_END_EXCEPTION},
        {"TaskKilled", CLARITY_END_KILLED}, {"TaskCommitDenied", CLARITY_END_COMMIT_DENIED},
        {"ExecutorLostFailure", CLARITY_END_EXECUTOR_LOST},
    };
    for (size_t i = 0; i < sizeof r / sizeof *r; i++)
        if (strlen(r[i].name) == n && memcmp(r[i].name, s, n) == 0) return r[i].end;
    return CLARITY_END_OTHER;
}

static void read_task_metrics(struct apply_ctx *c, size_t row, cj_val tm)
{
    cj_iter it, it2;
    const char *k, *k2;
    size_t kl, kl2;
    cj_val v, v2;
    if (!cj_object_begin(tm, &it)) return;
    while (cj_object_next(&it, &k, &kl, &v)) {
        if (cj_type(v) != CJ_OBJECT) {
            int m = metric_key_top(k, kl);
            int64_t x;
            if (m >= 0 && cj_int(v, &x)) set_col(c, &c->app->tasks.m[m], row, x);
            continue;
        }
        if (kl == 20 && !memcmp(k, "Shuffle Read Metrics", 20)) {
            read_metric_group(c, row, v, metric_key_shuffle_read);
            cj_object_begin(v, &it2);
            while (cj_object_next(&it2, &k2, &kl2, &v2))
                if ((kl2 == 25 && !memcmp(k2, "Shuffle Push Read Metrics", 25)) ||
                    (kl2 == 18 && !memcmp(k2, "Push Based Shuffle", 18)))
                    read_metric_group(c, row, v2, metric_key_shuffle_push);
        } else if (kl == 21 && !memcmp(k, "Shuffle Write Metrics", 21)) {
            read_metric_group(c, row, v, metric_key_shuffle_write);
        } else if (kl == 13 && !memcmp(k, "Input Metrics", 13)) {
            read_metric_group(c, row, v, metric_key_input);
        } else if (kl == 14 && !memcmp(k, "Output Metrics", 14)) {
            read_metric_group(c, row, v, metric_key_output);
        }
    }
}

/* Spark 2.x kept peak execution memory only as an internal accumulator. */
static void peak_memory_from_accumulables(struct apply_ctx *c, size_t row, cj_val info)
{
    cj_val arr, a, v;
    cj_iter it;
    const char *name;
    size_t n;
    static const char key[] = "internal.metrics.peakExecutionMemory";
    if (!cj_get(info, "Accumulables", &arr) || !cj_array_begin(arr, &it)) return;
    while (cj_array_next(&it, &a)) {
        int64_t x;
        if (cj_get_str(a, "Name", &name, &n) && n == sizeof key - 1 && memcmp(name, key, n) == 0 &&
            cj_get(a, "Update", &v) && value_as_int(v, &x)) {
            set_col(c, &c->app->tasks.m[CLARITY_TM_PEAK_EXEC_MEM], row, x);
            return;
        }
    }
}

void apply_task_end(struct apply_ctx *c, cj_val ev)
{
    struct clarity_app *a = c->app;
    struct clarity_tasks *t = &a->tasks;
    cj_val info, reason, tm, em;
    bool created;
    if (!cj_get(ev, "Task Info", &info)) {
        problem(c, "SparkListenerTaskEnd without \"Task Info\"");
        return;
    }
    long srow = task_row(c, ev, info, &created);
    if (srow < 0) return;
    size_t row = (size_t)srow;
    int64_t flags = clarity_icol_get(&t->flags, row);
    if (flags & CLARITY_TF_ENDED) {
        a->integrity.duplicate_task_ends++;
        return;
    }
    if (created) a->integrity.task_end_without_start++;
    int64_t launch = clarity_task_launch_ms(a, row);
    int64_t finish = get_int_or(info, "Finish Time", 0);
    int64_t dur = finish ? finish - launch : 0;
    if (dur < 0) {
        a->integrity.negative_durations++;
        problem(c, "task %lld finishes %lld ms before it launches", (long long)clarity_icol_get(&t->task_id, row),
                (long long)-dur);
    }
    set_col(c, &t->duration, row, dur);
    int64_t gr = get_int_or(info, "Getting Result Time", 0);
    if (gr > 0) set_col(c, &t->getting_result, row, gr - launch);
    bool b;
    flags |= CLARITY_TF_ENDED;
    if (cj_get_bool(info, "Failed", &b) && b) flags |= CLARITY_TF_FAILED;
    if (cj_get_bool(info, "Killed", &b) && b) flags |= CLARITY_TF_KILLED;
    if (cj_get_bool(info, "Speculative", &b) && b) flags |= CLARITY_TF_SPECULATIVE;
    const char *s;
    size_t n;
    if (cj_get_str(ev, "Task Type", &s, &n) && n == 10 && memcmp(s, "ResultTask", 10) == 0)
        flags |= CLARITY_TF_RESULT_TASK;
    int end = CLARITY_END_SUCCESS;
    if (cj_get(ev, "Task End Reason", &reason)) {
        if (cj_get_str(reason, "Reason", &s, &n)) end = end_reason(s, n);
        if (end != CLARITY_END_SUCCESS) {
            struct clarity_task_reason *r = VEC_PUSH(a->task_reasons, a->ntask_reasons, a->cap_task_reasons);
            if (!r) {
                c->failed = 1;
                return;
            }
            r->row = (uint32_t)row;
            r->reason_json = intern_json(c, reason);
        }
    }
    set_col(c, &t->end, row, end);
    if (cj_get(ev, "Task Metrics", &tm) && cj_type(tm) == CJ_OBJECT) {
        flags |= CLARITY_TF_HAS_METRICS;
        read_task_metrics(c, row, tm);
        if (!clarity_icol_get(&t->m[CLARITY_TM_PEAK_EXEC_MEM], row)) peak_memory_from_accumulables(c, row, info);
    }
    set_col(c, &t->flags, row, flags);

    int64_t stage_row = clarity_icol_get(&t->stage, row);
    struct clarity_stage *st = &a->stages[stage_row];
    st->task_ends++;
    if (cj_get(ev, "Task Executor Metrics", &em) && cj_type(em) == CJ_OBJECT) {
        uint32_t ex = (uint32_t)clarity_icol_get(&t->executor, row);
        uint32_t erow;
        if (clarity_idmap_get(&a->exec_by_name, ex, &erow)) read_peaks(c, em, &a->execs[erow].peaks);
    }
    cj_val acc;
    if (c->opt->keep_task_accumulables && cj_get(info, "Accumulables", &acc))
        read_accumulables(c, acc, (uint32_t)row, &a->task_accums, true);

    /* unit sanity: a CPU time far above the run time usually means ms and ns were mixed up */
    int64_t run = clarity_icol_get(&t->m[CLARITY_TM_RUN_MS], row);
    int64_t cpu = clarity_icol_get(&t->m[CLARITY_TM_CPU_NS], row);
    if (cpu / 1000000 > run + run / 5 + 50) a->integrity.cpu_exceeds_run++;
    int64_t swt = clarity_icol_get(&t->m[CLARITY_TM_SW_TIME_NS], row);
    if (swt / 1000000 > run + 1000) a->integrity.sw_time_suspect_units++;
}
