/* Tasks as SHS shows them: TaskData (TaskDataWrapper.toApi plus executorLogs, schedulerDelay
 * and gettingResultTime from AppStatusUtils), the paged task list and its sort orders. Only
 * attempts whose TaskStart was seen exist in SHS (the LiveTask is made there). */
#include <stdlib.h>
#include <string.h>
#include "shs/shs_internal.h"
#include "util/checked.h"
#include "util/jsonw.h"

const char *clarity__shs_task_status(const struct clarity_app *a, size_t row)
{
    int64_t f = clarity_task_flags(a, row);
    if (!(f & CLARITY_TF_ENDED)) return clarity_icol_get(&a->tasks.getting_result, row) > 0 ? "GET RESULT" : "RUNNING";
    if (f & CLARITY_TF_FAILED) return "FAILED";
    if (f & CLARITY_TF_KILLED) return "KILLED";
    return "SUCCESS";
}

bool clarity__shs_task_success(const struct clarity_app *a, size_t row)
{
    int64_t f = clarity_task_flags(a, row);
    return (f & CLARITY_TF_ENDED) && !(f & (CLARITY_TF_FAILED | CLARITY_TF_KILLED));
}

static int64_t task_fetch_start(const struct clarity_app *a, size_t row)
{
    int64_t gr = clarity_icol_get(&a->tasks.getting_result, row);
    return gr > 0 ? clarity_wrap_add(clarity_task_launch_ms(a, row), gr) : -1;
}

static int64_t task_duration(const struct clarity_app *a, size_t row)
{
    return (clarity_task_flags(a, row) & CLARITY_TF_ENDED) ? clarity_icol_get(&a->tasks.duration, row) : -1;
}

int64_t clarity__shs_task_getting_result(const struct clarity_app *a, size_t row)
{
    int64_t fs = task_fetch_start(a, row), d = task_duration(a, row);
    if (fs <= 0) return 0;
    /* a running task would use the wall clock; logs have none, so it reads 0 */
    return d > 0 ? clarity_wrap_sub(clarity_wrap_add(clarity_task_launch_ms(a, row), d), fs) : 0;
}

int64_t clarity__shs_task_scheduler_delay(const struct clarity_app *a, size_t row)
{
    int64_t d = task_duration(a, row);
    if (!(clarity_task_flags(a, row) & CLARITY_TF_HAS_METRICS) || d <= 0) return 0;
    /* JVM long arithmetic, as the History Server computes it (wraps on damaged values) */
    int64_t v = d;
    v = clarity_wrap_sub(v, clarity_task_metric(a, row, CLARITY_TM_RUN_MS));
    v = clarity_wrap_sub(v, clarity_task_metric(a, row, CLARITY_TM_DESER_MS));
    v = clarity_wrap_sub(v, clarity_task_metric(a, row, CLARITY_TM_RESULT_SER_MS));
    v = clarity_wrap_sub(v, clarity__shs_task_getting_result(a, row));
    return v > 0 ? v : 0;
}

static void kmetric(struct jsonw *w, const struct clarity_app *a, size_t row, const char *k, enum clarity_tm m)
{
    clarity_jsonw_kint(w, k, clarity__shs_task_metric(a, row, m));
}

static void clarity_task_metrics(struct jsonw *w, const struct clarity_app *a, size_t row)
{
    static const enum clarity_tm top[] = {
        CLARITY_TM_DESER_MS, CLARITY_TM_DESER_CPU_NS, CLARITY_TM_RUN_MS, CLARITY_TM_CPU_NS, CLARITY_TM_RESULT_SIZE,
        CLARITY_TM_GC_MS, CLARITY_TM_RESULT_SER_MS, CLARITY_TM_MEM_SPILLED, CLARITY_TM_DISK_SPILLED,
        CLARITY_TM_PEAK_EXEC_MEM};
    clarity_jsonw_key(w, "taskMetrics");
    clarity_jsonw_obj_begin(w);
    for (size_t i = 0; i < sizeof top / sizeof *top; i++) kmetric(w, a, row, clarity_tm_name(top[i]), top[i]);
    clarity_jsonw_key(w, "inputMetrics");
    clarity_jsonw_obj_begin(w);
    kmetric(w, a, row, "bytesRead", CLARITY_TM_INPUT_BYTES);
    kmetric(w, a, row, "recordsRead", CLARITY_TM_INPUT_RECORDS);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "outputMetrics");
    clarity_jsonw_obj_begin(w);
    kmetric(w, a, row, "bytesWritten", CLARITY_TM_OUTPUT_BYTES);
    kmetric(w, a, row, "recordsWritten", CLARITY_TM_OUTPUT_RECORDS);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "shuffleReadMetrics");
    clarity_jsonw_obj_begin(w);
    for (int m = CLARITY_TM_SR_REMOTE_BLOCKS; m <= CLARITY_TM_SR_REMOTE_REQS_MS; m++)
        kmetric(w, a, row, clarity_tm_name((enum clarity_tm)m), (enum clarity_tm)m);
    clarity_jsonw_key(w, "shufflePushReadMetrics");
    clarity_jsonw_obj_begin(w);
    for (int m = CLARITY_TM_SP_CORRUPT_MERGED_CHUNKS; m <= CLARITY_TM_SP_REMOTE_MERGED_REQS_MS; m++)
        kmetric(w, a, row, clarity_tm_name((enum clarity_tm)m), (enum clarity_tm)m);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "shuffleWriteMetrics");
    clarity_jsonw_obj_begin(w);
    for (int m = CLARITY_TM_SW_BYTES; m <= CLARITY_TM_SW_RECORDS; m++)
        kmetric(w, a, row, clarity_tm_name((enum clarity_tm)m), (enum clarity_tm)m);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_obj_end(w);
}

/* Non-internal, non-SQL accumulables of the task, as LiveEntityHelpers.newAccumulatorInfos. */
static void task_accums(struct jsonw *w, const struct shs_index *ix, size_t row)
{
    const struct clarity_app *a = ix->app;
    size_t first, n = clarity__shs_task_accums_of(ix, row, &first);
    clarity_jsonw_key(w, "accumulatorUpdates");
    clarity_jsonw_arr_begin(w);
    for (size_t k = 0; k < n; k++) {
        const struct clarity_accum *x = &a->task_accums.p[first + k];
        if (x->internal || x->is_sql) continue;
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "id", x->id);
        clarity__shs_kstr_id(w, a, "name", x->name);
        char ab[32];
        if (x->has_update) clarity_jsonw_kstr(w, "update", clarity_accum_text(a, x, true, ab, sizeof ab));
        clarity_jsonw_kstr(w, "value", clarity_accum_text(a, x, false, ab, sizeof ab));
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
}

int clarity__shs_task_write(struct shs_req *r, size_t row)
{
    struct jsonw *w = r->w;
    const struct clarity_app *a = r->app;
    const struct clarity_tasks *t = &a->tasks;
    bool oom = false;
    char *msg = (clarity_task_flags(a, row) & CLARITY_TF_ENDED) ? clarity__shs_error_message(a, row, &oom) : NULL;
    if (oom) return clarity__shs_oom(r);
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "taskId", clarity_icol_get(&t->task_id, row));
    clarity_jsonw_kint(w, "index", clarity_icol_get(&t->index, row));
    clarity_jsonw_kint(w, "attempt", clarity_icol_get(&t->attempt, row));
    clarity_jsonw_kint(w, "partitionId", clarity_icol_get(&t->partition, row));
    clarity__shs_kdate(w, "launchTime", clarity_task_launch_ms(a, row));
    int64_t fs = task_fetch_start(a, row);
    if (fs > 0) clarity__shs_kdate(w, "resultFetchStart", fs);
    int64_t d = task_duration(a, row);
    if (d > 0) clarity_jsonw_kint(w, "duration", d);
    uint32_t ex = (uint32_t)clarity_icol_get(&t->executor, row);
    clarity__shs_kstr_id(w, a, "executorId", ex);
    clarity__shs_kstr_id(w, a, "host", (uint32_t)clarity_icol_get(&t->host, row));
    clarity_jsonw_kstr(w, "status", clarity__shs_task_status(a, row));
    clarity_jsonw_kstr(w, "taskLocality", clarity_locality_name((int)clarity_icol_get(&t->locality, row)));
    clarity_jsonw_kbool(w, "speculative", clarity_task_flags(a, row) & CLARITY_TF_SPECULATIVE);
    task_accums(w, r->ix, row);
    if (msg) clarity_jsonw_kstr(w, "errorMessage", msg);
    free(msg);
    if (clarity_task_flags(a, row) & CLARITY_TF_HAS_METRICS) clarity_task_metrics(w, a, row);
    const struct clarity_executor *e = clarity__shs_exec_by_sid(a, ex, NULL);
    static const struct clarity_kvs none;
    const struct clarity_kvs *logs = !e || !clarity__shs_exec_visible(e) ? &none
                                     : e->is_driver && !e->log_urls.n ? &a->driver_logs : &e->log_urls;
    clarity__shs_write_kvs_obj(w, "executorLogs", a, logs);
    clarity_jsonw_kint(w, "schedulerDelay", clarity__shs_task_scheduler_delay(a, row));
    clarity_jsonw_kint(w, "gettingResultTime", clarity__shs_task_getting_result(a, row));
    clarity_jsonw_obj_end(w);
    return CLARITY_OK;
}

/* ---- task list ---- */

struct sort_key { int64_t key, id; size_t row; };

static int cmp_key(const void *x, const void *y)
{
    const struct sort_key *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* The EXEC_RUN_TIME index value: -1 without metrics, -(v+1) for unsuccessful tasks. */
static int64_t run_time_index(const struct clarity_app *a, size_t row)
{
    if (!(clarity_task_flags(a, row) & CLARITY_TF_HAS_METRICS)) return -1;
    int64_t v = clarity_task_metric(a, row, CLARITY_TM_RUN_MS);
    return clarity__shs_task_success(a, row) ? v : -v - 1;
}

int clarity__shs_task_list(struct shs_req *r)
{
    const struct clarity_app *a = r->app;
    const struct shs_params *p = r->p;
    const struct clarity_stage *s = r->stage;
    size_t srow = (size_t)(s - a->stages), n = 0, nrows;
    const uint32_t *rows = clarity__shs_stage_task_rows(r->ix, srow, &nrows);
    struct sort_key *keys = malloc((nrows ? nrows : 1) * sizeof *keys);
    if (!keys) return clarity__shs_oom(r);
    for (size_t i = 0; i < nrows; i++) {
        size_t t = rows[i];
        if (!(clarity_task_flags(a, t) & CLARITY_TF_GOT_START)) continue;
        const char *ts = clarity__shs_task_status(a, t);
        /* v1.TaskStatus has no GET RESULT: such a task is RUNNING */
        if (!strcmp(ts, "GET RESULT")) ts = "RUNNING";
        if (!clarity__shs_status_wanted(ts, p->status, p->nstatus)) continue;
        keys[n].id = clarity_icol_get(&a->tasks.task_id, t);
        keys[n].key = p->sort ? run_time_index(a, t) : 0;
        keys[n++].row = t;
    }
    qsort(keys, n, sizeof *keys, cmp_key);
    int rc = CLARITY_OK;
    clarity_jsonw_arr_begin(r->w);
    for (int64_t i = p->offset < 0 ? 0 : p->offset, k = 0; i < (int64_t)n && k < p->length && !rc; i++, k++)
        rc = clarity__shs_task_write(r, keys[p->sort < 0 ? n - 1 - (size_t)i : (size_t)i].row);
    clarity_jsonw_arr_end(r->w);
    free(keys);
    return rc;
}
