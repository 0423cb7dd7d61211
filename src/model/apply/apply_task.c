/* Task start, getting-result and end, applied to the model from decoded records
 * (task_decode.c), whichever thread decoded them. */
#include "model/apply/sql_listen.h"
#include "model/decode/task_decode.h"

/* About 17 columns are set per task event: a value that fits the column's width is stored
 * here, inline; only a widening goes through clarity_icol_set. */
static inline void set_col(struct apply_ctx *c, struct clarity_icol *col, size_t row, int64_t v)
{
    switch (col->width) {
    case 0:
        if (v == 0) return;   /* an all-zero column stores nothing */
        break;
    case 1:
        if (v >= INT8_MIN && v <= INT8_MAX) {
            ((int8_t *)col->data)[row] = (int8_t)v;
            return;
        }
        break;
    case 2:
        if (v >= INT16_MIN && v <= INT16_MAX) {
            ((int16_t *)col->data)[row] = (int16_t)v;
            return;
        }
        break;
    case 4:
        if (v >= INT32_MIN && v <= INT32_MAX) {
            ((int32_t *)col->data)[row] = (int32_t)v;
            return;
        }
        break;
    case 8:
        ((int64_t *)col->data)[row] = v;
        return;
    default: break;
    }
    if (clarity_icol_set(col, row, v, c->app->tasks.cap) != 0) c->failed = 1;
}

/* Every task column to ncap rows; t->cap is set only when all of them got there. */
static int tasks_reserve_cols(struct clarity_tasks *t, size_t ncap)
{
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

static int tasks_reserve(struct apply_ctx *c)
{
    struct clarity_tasks *t = &c->app->tasks;
    if (t->n < t->cap) return 0;
    /* doubling up to a million rows, then a million at a time: on big logs the slack of a
     * doubled table would cost more than the rows themselves (glibc moves large blocks with
     * mremap, so the extra reallocations copy nothing) */
    size_t step = !t->cap ? 1024 : t->cap < (1u << 20) ? t->cap * 2 : t->cap + (1u << 20);
    size_t proj = clarity__model_projected(c, t->cap, t->n + 1);   /* once, to the log's projected rows (grow.h) */
    if (proj > step && proj < UINT32_MAX) {
        if (tasks_reserve_cols(t, proj) == 0) return 0;
        /* a projection beyond the memory there is: the plain step may still fit (columns
         * already grown to the projection are shrunk back to it) */
    }
    return tasks_reserve_cols(t, step);
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
    if (clarity_vec_grow_zeroed((void **)&a->task_dense, &a->task_dense_cap, (size_t)tid + 1, sizeof *a->task_dense, 4096) != 0)
        return -1;
    a->task_dense[tid] = row + 1;
    return 0;
}

int clarity__model_tasks_reindex(struct clarity_app *a)
{
    for (size_t row = 0; row < a->tasks.n; row++)
        if (task_remember(a, clarity_icol_get(&a->tasks.task_id, row), (uint32_t)row) != 0) return -1;
    return 0;
}

/* a - b for two logged times; when the difference overflows 64 bits (damaged or hostile
 * values near INT64_MIN/MAX) it is counted as out of range and taken as 0, so every later
 * sum of the launch and the duration stays representable. */
static int64_t time_diff(struct apply_ctx *c, int64_t tid, const char *what, int64_t a, int64_t b)
{
    int64_t d;
    if (!__builtin_sub_overflow(a, b, &d)) return d;
    c->app->integrity.values_out_of_range++;
    clarity_problem(c, "task %lld: %s time %lld out of range", (long long)tid, what, (long long)a);
    return 0;
}

/* Finds or creates the row for the task; fills its identity fields when new. */
static long task_row(struct apply_ctx *c, const struct task_rec *r, bool *created)
{
    struct clarity_app *a = c->app;
    struct clarity_tasks *t = &a->tasks;
    *created = false;
    uint32_t row;
    bool fold = clarity__model_folds(c);
    if (fold ? clarity__model_fold_get(c, r->tid, &row) : task_lookup(a, r->tid, &row)) return row;
    /* folding: a free row first (the table holds only running tasks) */
    if (!fold || clarity__model_fold_take(c, r->tid, &row) != 0) {
        if (tasks_reserve(c) != 0) {
            c->failed = 1;
            return -1;
        }
        row = (uint32_t)t->n++;
    }
    if ((fold ? clarity__model_fold_put(c, r->tid, row) : task_remember(a, r->tid, row)) != 0) {
        c->failed = 1;
        return -1;
    }
    *created = true;
    struct clarity_stage *st = clarity_stage_get_or_add(c, r->stage_id, r->stage_attempt);
    if (!st) return -1;
    set_col(c, &t->task_id, row, r->tid);
    set_col(c, &t->stage, row, st - a->stages);
    set_col(c, &t->index, row, r->index);
    set_col(c, &t->attempt, row, r->attempt);
    set_col(c, &t->partition, row, r->partition);
    if (!a->time_base) a->time_base = a->start_ms ? a->start_ms : r->launch;
    set_col(c, &t->launch_rel, row, time_diff(c, r->tid, "launch", r->launch, a->time_base));
    if (r->exec) {
        struct clarity_executor *x = NULL;
        uint32_t row_e;
        uint32_t id = clarity_intern_memo(c, &c->last_exec, task_rec_exec(r), r->exec_len);
        if (clarity_idmap_get(&a->exec_by_name, id, &row_e)) x = &a->execs[row_e];
        else x = clarity_exec_get_or_add(c, task_rec_exec(r), r->exec_len);
        if (x) set_col(c, &t->executor, row, x->id);
    }
    if (r->host) set_col(c, &t->host, row, clarity_intern_memo(c, &c->last_host, task_rec_host(r), r->host_len));
    set_col(c, &t->locality, row, r->locality);
    set_col(c, &t->flags, row, r->spec ? CLARITY_TF_SPECULATIVE : 0);
    return row;
}

static void apply_end(struct apply_ctx *c, const struct task_rec *r, size_t row, bool created)
{
    struct clarity_app *a = c->app;
    struct clarity_tasks *t = &a->tasks;
    int64_t flags = clarity_icol_get(&t->flags, row);
    if (flags & CLARITY_TF_ENDED) {
        a->integrity.duplicate_task_ends++;
        return;
    }
    if (created) a->integrity.task_end_without_start++;
    int64_t launch = clarity_task_launch_ms(a, row);
    int64_t dur = r->finish ? time_diff(c, r->tid, "finish", r->finish, launch) : 0;
    if (dur < 0) {
        a->integrity.negative_durations++;
        clarity_problem(c, "task %lld finishes %llu ms before it launches", (long long)r->tid, 0ull - (unsigned long long)dur);
    }
    set_col(c, &t->duration, row, dur);
    if (r->getting > 0) set_col(c, &t->getting_result, row, time_diff(c, r->tid, "getting result", r->getting, launch));
    flags |= CLARITY_TF_ENDED;
    if (r->failed) flags |= CLARITY_TF_FAILED;
    if (r->killed) flags |= CLARITY_TF_KILLED;
    if (r->spec) flags |= CLARITY_TF_SPECULATIVE;
    if (r->result_task) flags |= CLARITY_TF_RESULT_TASK;
    if (r->end != CLARITY_END_SUCCESS && r->has_reason) {
        clarity__model_task_end_reason_read(c, r->reason, (uint32_t)row, r->end);
        if (c->failed) return;
    }
    set_col(c, &t->end, row, r->end);
    if (r->has_metrics) {
        flags |= CLARITY_TF_HAS_METRICS;
        if (r->peak_from_accums) a->peak_exec_mem_from_accums = true;
        for (uint64_t mask = r->metric_mask; mask; mask &= mask - 1) {
            int m = __builtin_ctzll(mask);
            set_col(c, &t->m[m], row, r->m[m]);
        }
    }
    set_col(c, &t->flags, row, flags);

    struct clarity_stage *st = &a->stages[clarity_icol_get(&t->stage, row)];
    st->task_ends++;
    if (r->has_exec_metrics || r->nexec_vals) {
        uint32_t ex = (uint32_t)clarity_icol_get(&t->executor, row);
        uint32_t erow;
        if (clarity_idmap_get(&a->exec_by_name, ex, &erow)) {
            struct clarity_peaks *pk = &a->execs[erow].peaks;
            if (r->has_exec_metrics) clarity_read_peaks(c, r->exec_metrics, pk);
            for (size_t i = 0; i < r->nexec_vals; i++)
                clarity_read_peak_value(c, pk, r->exec_vals[i].pos, r->exec_vals[i].name, r->exec_vals[i].value);
        }
    }
    clarity__sql_listen_task_end(c, r);
    /* a folded row is reused: its accumulables, the last ones pushed, are handed over with it
     * and dropped then (task_fold.c), so they never name another task */
    if (r->has_accums && c->opt->keep_task_accumulables)
        clarity_read_accumulables(c, r->accums, (uint32_t)row, &a->task_accums, true,
                                  c->opt->user_task_accumulables_only, NULL, 0);
    else if (r->has_accums && c->opt->ntask_accumulable_names)
        clarity_read_accumulables(c, r->accums, (uint32_t)row, &a->task_accums, true, false,
                                  c->opt->task_accumulable_names, c->opt->ntask_accumulable_names);

    /* unit sanity: a CPU time far above the run time usually means ms and ns were mixed up */
    int64_t run = r->m[CLARITY_TM_RUN_MS], cpu = r->m[CLARITY_TM_CPU_NS], swt = r->m[CLARITY_TM_SW_TIME_NS];
    int64_t cpu_cap, swt_cap;   /* an overflowing bound (a damaged run time) is no evidence */
    if (!__builtin_add_overflow(run, run / 5 + 50, &cpu_cap) && cpu / 1000000 > cpu_cap) a->integrity.cpu_exceeds_run++;
    if (!__builtin_add_overflow(run, 1000, &swt_cap) && swt / 1000000 > swt_cap) a->integrity.sw_time_suspect_units++;
}

/* ---- load option only_stage ---- */


/* What a whole load takes from a task of another stage besides its row: its stage and
 * executor rows (their order and what SHS sees of them), the time base of every launch time,
 * whether peak execution memory came from an accumulable, and executor peaks. */
static void other_stage_task(struct apply_ctx *c, const struct task_rec *r, bool first)
{
    struct clarity_app *a = c->app;
    if (first) {
        if (!clarity_stage_get_or_add(c, r->stage_id, r->stage_attempt)) return;
        if (!a->time_base) a->time_base = a->start_ms ? a->start_ms : r->launch;
        if (r->host) clarity_intern_memo(c, &c->last_host, task_rec_host(r), r->host_len);
    }
    struct clarity_executor *x = NULL;
    if (r->exec) {
        uint32_t id = clarity_intern_memo(c, &c->last_exec, task_rec_exec(r), r->exec_len);
        uint32_t row_e;
        if (clarity_idmap_get(&a->exec_by_name, id, &row_e)) x = &a->execs[row_e];
        else if (first) x = clarity_exec_get_or_add(c, task_rec_exec(r), r->exec_len);
    }
    if (r->kind != TASK_END) return;
    if (r->has_metrics && r->peak_from_accums) a->peak_exec_mem_from_accums = true;
    if (x && (r->has_exec_metrics || r->nexec_vals)) {
        if (r->has_exec_metrics) clarity_read_peaks(c, r->exec_metrics, &x->peaks);
        for (size_t i = 0; i < r->nexec_vals; i++)
            clarity_read_peak_value(c, &x->peaks, r->exec_vals[i].pos, r->exec_vals[i].name, r->exec_vals[i].value);
    }
}

/* Whether the task's events are kept (only_stage, no_task_rows): a task id already in the
 * table is, one already seen with another stage is not, and a new one by the stage its event
 * names (with no_task_rows: none). */
static bool only_stage_keeps(struct apply_ctx *c, const struct task_rec *r)
{
    uint32_t row;
    if (task_lookup(c->app, r->tid, &row)) return true;
    if (clarity_idset_has(&c->other_stage, r->tid)) {
        other_stage_task(c, r, false);
        return false;
    }
    if (c->opt->only_stage && r->stage_id == c->opt->only_stage_id) return true;
    if (clarity_idset_add(&c->other_stage, r->tid) != 0) {
        c->failed = 1;
        return false;
    }
    other_stage_task(c, r, true);
    return false;
}

void clarity_apply_task_rec(struct apply_ctx *c, const struct task_rec *r)
{
    static const char *const what[] = {"SparkListenerTaskStart", "SparkListenerTaskGettingResult",
                                       "SparkListenerTaskEnd"};
    for (size_t i = 0; i < r->nunknown; i++) clarity_unknown_field(c, r->unknown[i].where, r->unknown[i].key, r->unknown[i].len);
    if (r->unknown_total > r->nunknown) c->app->integrity.fields_unknown += r->unknown_total - r->nunknown;
    if (!r->has_tid) {
        clarity_problem(c, "%s without \"Task Info\".\"Task ID\"", what[r->kind]);
        return;
    }
    if ((c->opt->only_stage || c->opt->no_task_rows) && !c->opt->sql_plan_graphs && !only_stage_keeps(c, r)) return;
    /* a folded task's row is gone: what a whole load would change in it cannot be applied */
    if (clarity__model_folds(c) && clarity__model_fold_done(c, r->tid)) {
        c->app->tasks_refolded++;
        return;
    }
    bool created;
    long srow = task_row(c, r, &created);
    if (srow < 0) return;
    size_t row = (size_t)srow;
    struct clarity_tasks *t = &c->app->tasks;
    switch (r->kind) {
    case TASK_START:
        set_col(c, &t->flags, row, clarity_icol_get(&t->flags, row) | CLARITY_TF_GOT_START);
        break;
    case TASK_GETTING_RESULT:
        if (r->getting > 0)
            set_col(c, &t->getting_result, row, time_diff(c, r->tid, "getting result", r->getting, clarity_task_launch_ms(c->app, row)));
        break;
    case TASK_END:
        apply_end(c, r, row, created);
        if (clarity__model_folds(c) && !c->failed) clarity__model_fold_release(c, (uint32_t)row);
        break;
    }
}

static void apply_kind(struct apply_ctx *c, cj_val ev, enum task_kind kind)
{
    struct task_rec r;
    clarity_task_rec_decode(ev, kind, &r);
    clarity_apply_task_rec(c, &r);
}

void clarity_apply_task_start(struct apply_ctx *c, cj_val ev) { apply_kind(c, ev, TASK_START); }
void clarity_apply_task_getting_result(struct apply_ctx *c, cj_val ev) { apply_kind(c, ev, TASK_GETTING_RESULT); }
void clarity_apply_task_end(struct apply_ctx *c, cj_val ev) { apply_kind(c, ev, TASK_END); }
