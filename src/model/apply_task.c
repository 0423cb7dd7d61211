/* Task start, getting-result and end: Task Info, Task Metrics of every version, end reasons. */
#include "model/build.h"
#include "model/metric_keys.h"

/* Task events have at most ~20 members per object; members past this are ignored. */
#define MAX_MEMBERS 64

static int set_col(struct apply_ctx *c, struct clarity_icol *col, size_t row, int64_t v)
{
    if (clarity_icol_set(col, row, v, c->app->tasks.cap) != 0) c->failed = 1;
    return 0;
}

/* Keys Spark wrote that clarity deliberately does not keep (1.x-era fields, the push-read
 * sub-object read separately, block updates). */
static bool ignored_metric_key(const char *k, size_t kl)
{
    static const char *const keys[] = {"Shuffle Finish Time", "Total Blocks Fetched", "Remote Fetch Time",
                                       "Data Read Method", "Data Write Method", "Updated Blocks", "Host Name",
                                       "Shuffle Push Read Metrics", "Push Based Shuffle"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strlen(keys[i]) == kl && !memcmp(keys[i], k, kl)) return true;
    return false;
}

/* One pass over a metrics object; unknown keys are counted. */
static void read_metric_group(struct apply_ctx *c, size_t row, cj_val obj, int (*lookup)(const char *, size_t))
{
    cj_member mem[MAX_MEMBERS];
    size_t nm = cj_object_members(obj, mem, MAX_MEMBERS);
    for (size_t i = 0; i < nm && i < MAX_MEMBERS; i++) {
        const char *k = mem[i].key;
        size_t kl = mem[i].klen;
        cj_val v = mem[i].val;
        int m = lookup(k, kl);
        int64_t x;
        if (m >= 0 && cj_int(v, &x)) set_col(c, &c->app->tasks.m[m], row, x);
        else if (m < 0 && !ignored_metric_key(k, kl)) unknown_field(c, "Task Metrics", k, kl);
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

/* A task event's top-level fields and its Task Info, each read in one pass over its keys:
 * task events are nearly every line of a log, and per-key lookups cost a scan each. */
struct task_event {
    int64_t stage_id, stage_attempt;
    cj_val info, reason, metrics, exec_metrics;
    bool has_info, has_reason, has_metrics, has_exec_metrics, result_task;
};
struct task_info {
    int64_t tid, index, attempt, partition, launch, getting, finish;
    const char *exec, *host, *loc;
    size_t exec_len, host_len, loc_len;
    bool has_tid, spec, failed, killed, has_accums;
    cj_val accums;
};

#define KEY(lit) (kl == sizeof lit - 1 && !memcmp(k, lit, sizeof lit - 1))

static void read_task_event(struct apply_ctx *c, cj_val ev, struct task_event *e)
{
    memset(e, 0, sizeof *e);
    e->stage_id = -1;
    cj_member mem[MAX_MEMBERS];
    size_t nm = cj_object_members(ev, mem, MAX_MEMBERS);
    for (size_t i = 0; i < nm && i < MAX_MEMBERS; i++) {
        const char *k = mem[i].key;
        size_t kl = mem[i].klen;
        cj_val v = mem[i].val;
        if (KEY("Task Info")) e->has_info = true, e->info = v;
        else if (KEY("Stage ID")) cj_int(v, &e->stage_id);
        else if (KEY("Stage Attempt ID")) cj_int(v, &e->stage_attempt);
        else if (KEY("Task End Reason")) e->has_reason = true, e->reason = v;
        else if (KEY("Task Metrics")) e->has_metrics = cj_type(v) == CJ_OBJECT, e->metrics = v;
        else if (KEY("Task Executor Metrics")) e->has_exec_metrics = cj_type(v) == CJ_OBJECT, e->exec_metrics = v;
        else if (KEY("Task Type")) {
            const char *s;
            size_t n;
            e->result_task = cj_str(v, &s, &n) && n == 10 && !memcmp(s, "ResultTask", 10);
        } else if (!KEY("Event")) unknown_field(c, "task event", k, kl);
    }
}

static void read_task_info(struct apply_ctx *c, cj_val info, struct task_info *t)
{
    memset(t, 0, sizeof *t);
    t->partition = -1;
    cj_member mem[MAX_MEMBERS];
    size_t nm = cj_object_members(info, mem, MAX_MEMBERS);
    for (size_t i = 0; i < nm && i < MAX_MEMBERS; i++) {
        const char *k = mem[i].key;
        size_t kl = mem[i].klen;
        cj_val v = mem[i].val;
        if (KEY("Task ID")) t->has_tid = cj_int(v, &t->tid);
        else if (KEY("Index")) cj_int(v, &t->index);
        else if (KEY("Attempt")) cj_int(v, &t->attempt);
        else if (KEY("Partition ID")) cj_int(v, &t->partition);
        else if (KEY("Launch Time")) cj_int(v, &t->launch);
        else if (KEY("Executor ID")) cj_str(v, &t->exec, &t->exec_len);
        else if (KEY("Host")) cj_str(v, &t->host, &t->host_len);
        else if (KEY("Locality")) cj_str(v, &t->loc, &t->loc_len);
        else if (KEY("Speculative")) cj_bool(v, &t->spec);
        else if (KEY("Getting Result Time")) cj_int(v, &t->getting);
        else if (KEY("Finish Time")) cj_int(v, &t->finish);
        else if (KEY("Failed")) cj_bool(v, &t->failed);
        else if (KEY("Killed")) cj_bool(v, &t->killed);
        else if (KEY("Accumulables")) t->has_accums = true, t->accums = v;
        else unknown_field(c, "Task Info", k, kl);
    }
}

/* Spark numbers tasks 0, 1, 2... in launch order, so a plain array indexed by task id finds a
 * row with one load instead of a hash probe; ids far outside that range use the hash map. */
static bool task_dense_ok(const struct clarity_app *a, int64_t tid)
{
    return tid >= 0 && tid < (1 << 28) && (size_t)tid < 4 * (a->tasks.n + 4096);
}

static bool task_lookup(const struct clarity_app *a, int64_t tid, uint32_t *row)
{
    if (tid >= 0 && (size_t)tid < a->task_dense_cap && a->task_dense[tid]) {
        *row = a->task_dense[tid] - 1;
        return true;
    }
    return clarity_idmap_get(&a->task_by_id, tid, row);
}

static int task_remember(struct clarity_app *a, int64_t tid, uint32_t row)
{
    if (!task_dense_ok(a, tid)) return clarity_idmap_put(&a->task_by_id, tid, row);
    if ((size_t)tid >= a->task_dense_cap) {
        size_t cap = a->task_dense_cap ? a->task_dense_cap : 4096;
        while (cap <= (size_t)tid) cap *= 2;
        uint32_t *p = realloc(a->task_dense, cap * sizeof *p);
        if (!p) return -1;
        memset(p + a->task_dense_cap, 0, (cap - a->task_dense_cap) * sizeof *p);
        a->task_dense = p;
        a->task_dense_cap = cap;
    }
    a->task_dense[tid] = row + 1;
    return 0;
}

/* Finds or creates the row for the task; fills its identity fields when new. */
static long task_row(struct apply_ctx *c, const struct task_event *e, const struct task_info *ti, bool *created)
{
    struct clarity_app *a = c->app;
    struct clarity_tasks *t = &a->tasks;
    *created = false;
    if (!ti->has_tid) {
        problem(c, "task event without \"Task Info\".\"Task ID\"");
        return -1;
    }
    uint32_t row;
    if (task_lookup(a, ti->tid, &row)) return row;
    if (tasks_reserve(c) != 0) {
        c->failed = 1;
        return -1;
    }
    row = (uint32_t)t->n++;
    if (task_remember(a, ti->tid, row) != 0) {
        c->failed = 1;
        return -1;
    }
    *created = true;
    struct clarity_stage *st = stage_get_or_add(c, e->stage_id, (int32_t)e->stage_attempt);
    if (!st) return -1;
    set_col(c, &t->task_id, row, ti->tid);
    set_col(c, &t->stage, row, st - a->stages);
    set_col(c, &t->index, row, ti->index);
    set_col(c, &t->attempt, row, ti->attempt);
    set_col(c, &t->partition, row, ti->partition);
    if (!a->time_base) a->time_base = a->start_ms ? a->start_ms : ti->launch;
    set_col(c, &t->launch_rel, row, ti->launch - a->time_base);
    if (ti->exec) {
        struct clarity_executor *x = NULL;
        uint32_t row_e;
        uint32_t id = intern_memo(c, &c->last_exec, ti->exec, ti->exec_len);
        if (clarity_idmap_get(&a->exec_by_name, id, &row_e)) x = &a->execs[row_e];
        else x = exec_get_or_add(c, ti->exec, ti->exec_len);
        if (x) set_col(c, &t->executor, row, x->id);
    }
    if (ti->host) set_col(c, &t->host, row, intern_memo(c, &c->last_host, ti->host, ti->host_len));
    set_col(c, &t->locality, row, ti->loc ? locality_of(ti->loc, ti->loc_len) : CLARITY_LOC_UNKNOWN);
    set_col(c, &t->flags, row, ti->spec ? CLARITY_TF_SPECULATIVE : 0);
    return row;
}

static bool task_event_row(struct apply_ctx *c, cj_val ev, const char *what, struct task_event *e,
                           struct task_info *ti, size_t *row, bool *created)
{
    read_task_event(c, ev, e);
    if (!e->has_info) {
        problem(c, "%s without \"Task Info\"", what);
        return false;
    }
    read_task_info(c, e->info, ti);
    long r = task_row(c, e, ti, created);
    if (r < 0) return false;
    *row = (size_t)r;
    return true;
}

void apply_task_start(struct apply_ctx *c, cj_val ev)
{
    struct task_event e;
    struct task_info ti;
    size_t row;
    bool created;
    if (!task_event_row(c, ev, "SparkListenerTaskStart", &e, &ti, &row, &created)) return;
    struct clarity_tasks *t = &c->app->tasks;
    set_col(c, &t->flags, row, clarity_icol_get(&t->flags, row) | CLARITY_TF_GOT_START);
}

void apply_task_getting_result(struct apply_ctx *c, cj_val ev)
{
    struct task_event e;
    struct task_info ti;
    size_t row;
    bool created;
    if (!task_event_row(c, ev, "SparkListenerTaskGettingResult", &e, &ti, &row, &created)) return;
    if (ti.getting > 0) set_col(c, &c->app->tasks.getting_result, row, ti.getting - clarity_task_launch_ms(c->app, row));
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
    cj_iter it2;
    const char *k2;
    size_t kl2;
    cj_val v2;
    cj_member mem[MAX_MEMBERS];
    size_t nm = cj_object_members(tm, mem, MAX_MEMBERS);
    for (size_t i = 0; i < nm && i < MAX_MEMBERS; i++) {
        const char *k = mem[i].key;
        size_t kl = mem[i].klen;
        cj_val v = mem[i].val;
        if (cj_type(v) != CJ_OBJECT) {
            int m = metric_key_top(k, kl);
            int64_t x;
            if (m >= 0 && cj_int(v, &x)) set_col(c, &c->app->tasks.m[m], row, x);
            else if (m < 0 && !ignored_metric_key(k, kl)) unknown_field(c, "Task Metrics", k, kl);
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
        } else if (!ignored_metric_key(k, kl)) unknown_field(c, "Task Metrics", k, kl);
    }
}

/* Spark 2.x kept peak execution memory only as an internal accumulator. */
static void peak_memory_from_accumulables(struct apply_ctx *c, size_t row, cj_val arr)
{
    cj_val a, v;
    cj_iter it;
    const char *name;
    size_t n;
    static const char key[] = "internal.metrics.peakExecutionMemory";
    if (!cj_array_begin(arr, &it)) return;
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
    struct task_event e;
    struct task_info ti;
    size_t row;
    bool created;
    if (!task_event_row(c, ev, "SparkListenerTaskEnd", &e, &ti, &row, &created)) return;
    int64_t flags = clarity_icol_get(&t->flags, row);
    if (flags & CLARITY_TF_ENDED) {
        a->integrity.duplicate_task_ends++;
        return;
    }
    if (created) a->integrity.task_end_without_start++;
    int64_t launch = clarity_task_launch_ms(a, row);
    int64_t dur = ti.finish ? ti.finish - launch : 0;
    if (dur < 0) {
        a->integrity.negative_durations++;
        problem(c, "task %lld finishes %lld ms before it launches", (long long)ti.tid, (long long)-dur);
    }
    set_col(c, &t->duration, row, dur);
    if (ti.getting > 0) set_col(c, &t->getting_result, row, ti.getting - launch);
    flags |= CLARITY_TF_ENDED;
    if (ti.failed) flags |= CLARITY_TF_FAILED;
    if (ti.killed) flags |= CLARITY_TF_KILLED;
    if (ti.spec) flags |= CLARITY_TF_SPECULATIVE;
    if (e.result_task) flags |= CLARITY_TF_RESULT_TASK;
    int end = CLARITY_END_SUCCESS;
    const char *s;
    size_t n;
    if (e.has_reason) {
        if (cj_get_str(e.reason, "Reason", &s, &n)) end = end_reason(s, n);
        if (end != CLARITY_END_SUCCESS) {
            struct clarity_task_reason *r = VEC_PUSH(a->task_reasons, a->ntask_reasons, a->cap_task_reasons);
            if (!r) {
                c->failed = 1;
                return;
            }
            r->row = (uint32_t)row;
            r->reason_json = intern_json(c, e.reason);
        }
    }
    set_col(c, &t->end, row, end);
    if (e.has_metrics) {
        flags |= CLARITY_TF_HAS_METRICS;
        read_task_metrics(c, row, e.metrics);
        if (!clarity_icol_get(&t->m[CLARITY_TM_PEAK_EXEC_MEM], row) && ti.has_accums)
            peak_memory_from_accumulables(c, row, ti.accums);
    }
    set_col(c, &t->flags, row, flags);

    struct clarity_stage *st = &a->stages[clarity_icol_get(&t->stage, row)];
    st->task_ends++;
    if (e.has_exec_metrics) {
        uint32_t ex = (uint32_t)clarity_icol_get(&t->executor, row);
        uint32_t erow;
        if (clarity_idmap_get(&a->exec_by_name, ex, &erow)) read_peaks(c, e.exec_metrics, &a->execs[erow].peaks);
    }
    if (c->opt->keep_task_accumulables && ti.has_accums)
        read_accumulables(c, ti.accums, (uint32_t)row, &a->task_accums, true);

    /* unit sanity: a CPU time far above the run time usually means ms and ns were mixed up */
    int64_t run = clarity_icol_get(&t->m[CLARITY_TM_RUN_MS], row);
    int64_t cpu = clarity_icol_get(&t->m[CLARITY_TM_CPU_NS], row);
    if (cpu / 1000000 > run + run / 5 + 50) a->integrity.cpu_exceeds_run++;
    int64_t swt = clarity_icol_get(&t->m[CLARITY_TM_SW_TIME_NS], row);
    if (swt / 1000000 > run + 1000) a->integrity.sw_time_suspect_units++;
}
