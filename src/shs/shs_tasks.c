/* Tasks as SHS shows them: TaskData (TaskDataWrapper.toApi plus executorLogs, schedulerDelay
 * and gettingResultTime from AppStatusUtils), the paged task list and its sort orders. Only
 * attempts whose TaskStart was seen exist in SHS (the LiveTask is made there). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "shs/shs_internal.h"

const char *shs_task_status(const struct clarity_app *a, size_t row)
{
    int64_t f = clarity_task_flags(a, row);
    if (!(f & CLARITY_TF_ENDED)) return clarity_icol_get(&a->tasks.getting_result, row) > 0 ? "GET RESULT" : "RUNNING";
    if (f & CLARITY_TF_FAILED) return "FAILED";
    if (f & CLARITY_TF_KILLED) return "KILLED";
    return "SUCCESS";
}

bool shs_task_success(const struct clarity_app *a, size_t row)
{
    int64_t f = clarity_task_flags(a, row);
    return (f & CLARITY_TF_ENDED) && !(f & (CLARITY_TF_FAILED | CLARITY_TF_KILLED));
}

int64_t shs_task_fetch_start(const struct clarity_app *a, size_t row)
{
    int64_t gr = clarity_icol_get(&a->tasks.getting_result, row);
    return gr > 0 ? clarity_task_launch_ms(a, row) + gr : -1;
}

static int64_t task_duration(const struct clarity_app *a, size_t row)
{
    return (clarity_task_flags(a, row) & CLARITY_TF_ENDED) ? clarity_icol_get(&a->tasks.duration, row) : -1;
}

int64_t shs_task_getting_result(const struct clarity_app *a, size_t row)
{
    int64_t fs = shs_task_fetch_start(a, row), d = task_duration(a, row);
    if (fs <= 0) return 0;
    /* a running task would use the wall clock; logs have none, so it reads 0 */
    return d > 0 ? clarity_task_launch_ms(a, row) + d - fs : 0;
}

int64_t shs_task_scheduler_delay(const struct clarity_app *a, size_t row)
{
    int64_t d = task_duration(a, row);
    if (!(clarity_task_flags(a, row) & CLARITY_TF_HAS_METRICS) || d <= 0) return 0;
    int64_t v = d - clarity_task_metric(a, row, CLARITY_TM_RUN_MS) - clarity_task_metric(a, row, CLARITY_TM_DESER_MS) -
                clarity_task_metric(a, row, CLARITY_TM_RESULT_SER_MS) - shs_task_getting_result(a, row);
    return v > 0 ? v : 0;
}

static void kmetric(struct jsonw *w, const struct clarity_app *a, size_t row, const char *k, enum clarity_tm m)
{
    jsonw_kint(w, k, clarity_task_metric(a, row, m));
}

static void task_metrics(struct jsonw *w, const struct clarity_app *a, size_t row)
{
    static const enum clarity_tm top[] = {
        CLARITY_TM_DESER_MS, CLARITY_TM_DESER_CPU_NS, CLARITY_TM_RUN_MS, CLARITY_TM_CPU_NS, CLARITY_TM_RESULT_SIZE,
        CLARITY_TM_GC_MS, CLARITY_TM_RESULT_SER_MS, CLARITY_TM_MEM_SPILLED, CLARITY_TM_DISK_SPILLED,
        CLARITY_TM_PEAK_EXEC_MEM};
    jsonw_key(w, "taskMetrics");
    jsonw_obj_begin(w);
    for (size_t i = 0; i < sizeof top / sizeof *top; i++) kmetric(w, a, row, clarity_tm_name(top[i]), top[i]);
    jsonw_key(w, "inputMetrics");
    jsonw_obj_begin(w);
    kmetric(w, a, row, "bytesRead", CLARITY_TM_INPUT_BYTES);
    kmetric(w, a, row, "recordsRead", CLARITY_TM_INPUT_RECORDS);
    jsonw_obj_end(w);
    jsonw_key(w, "outputMetrics");
    jsonw_obj_begin(w);
    kmetric(w, a, row, "bytesWritten", CLARITY_TM_OUTPUT_BYTES);
    kmetric(w, a, row, "recordsWritten", CLARITY_TM_OUTPUT_RECORDS);
    jsonw_obj_end(w);
    jsonw_key(w, "shuffleReadMetrics");
    jsonw_obj_begin(w);
    for (int m = CLARITY_TM_SR_REMOTE_BLOCKS; m <= CLARITY_TM_SR_REMOTE_REQS_MS; m++)
        kmetric(w, a, row, clarity_tm_name((enum clarity_tm)m), (enum clarity_tm)m);
    jsonw_key(w, "shufflePushReadMetrics");
    jsonw_obj_begin(w);
    for (int m = CLARITY_TM_SP_CORRUPT_MERGED_CHUNKS; m <= CLARITY_TM_SP_REMOTE_MERGED_REQS_MS; m++)
        kmetric(w, a, row, clarity_tm_name((enum clarity_tm)m), (enum clarity_tm)m);
    jsonw_obj_end(w);
    jsonw_obj_end(w);
    jsonw_key(w, "shuffleWriteMetrics");
    jsonw_obj_begin(w);
    for (int m = CLARITY_TM_SW_BYTES; m <= CLARITY_TM_SW_RECORDS; m++)
        kmetric(w, a, row, clarity_tm_name((enum clarity_tm)m), (enum clarity_tm)m);
    jsonw_obj_end(w);
    jsonw_obj_end(w);
}

/* Non-internal, non-SQL accumulables of the task, as LiveEntityHelpers.newAccumulatorInfos. */
static void task_accums(struct jsonw *w, const struct shs_agg *g, size_t row)
{
    const struct clarity_app *a = g->app;
    jsonw_key(w, "accumulatorUpdates");
    jsonw_arr_begin(w);
    for (size_t k = 0; k < g->acc_n[row]; k++) {
        const struct clarity_accum *x = &a->task_accums.p[g->acc_first[row] + k];
        if (x->internal || x->is_sql) continue;
        jsonw_obj_begin(w);
        jsonw_kint(w, "id", x->id);
        shs_kstr_id(w, a, "name", x->name);
        char ab[32];
        if (x->has_update) jsonw_kstr(w, "update", clarity_accum_text(a, x, true, ab, sizeof ab));
        jsonw_kstr(w, "value", clarity_accum_text(a, x, false, ab, sizeof ab));
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

void shs_task_write(struct shs_ctx *c, const struct shs_agg *g, size_t row)
{
    struct jsonw *w = c->w;
    const struct clarity_app *a = g->app;
    const struct clarity_tasks *t = &a->tasks;
    jsonw_obj_begin(w);
    jsonw_kint(w, "taskId", clarity_icol_get(&t->task_id, row));
    jsonw_kint(w, "index", clarity_icol_get(&t->index, row));
    jsonw_kint(w, "attempt", clarity_icol_get(&t->attempt, row));
    jsonw_kint(w, "partitionId", clarity_icol_get(&t->partition, row));
    shs_kdate(w, "launchTime", clarity_task_launch_ms(a, row));
    int64_t fs = shs_task_fetch_start(a, row);
    if (fs > 0) shs_kdate(w, "resultFetchStart", fs);
    int64_t d = task_duration(a, row);
    if (d > 0) jsonw_kint(w, "duration", d);
    uint32_t ex = (uint32_t)clarity_icol_get(&t->executor, row);
    shs_kstr_id(w, a, "executorId", ex);
    shs_kstr_id(w, a, "host", (uint32_t)clarity_icol_get(&t->host, row));
    jsonw_kstr(w, "status", shs_task_status(a, row));
    jsonw_kstr(w, "taskLocality", clarity_locality_name((int)clarity_icol_get(&t->locality, row)));
    jsonw_kbool(w, "speculative", clarity_task_flags(a, row) & CLARITY_TF_SPECULATIVE);
    task_accums(w, g, row);
    char *msg = (clarity_task_flags(a, row) & CLARITY_TF_ENDED) ? shs_error_message(g, row) : NULL;
    if (msg) jsonw_kstr(w, "errorMessage", msg);
    free(msg);
    if (clarity_task_flags(a, row) & CLARITY_TF_HAS_METRICS) task_metrics(w, a, row);
    const struct clarity_executor *e = shs_exec_by_sid(a, ex, NULL);
    static const struct clarity_kvs none;
    const struct clarity_kvs *logs = !e || !shs_exec_visible(e) ? &none : e->is_driver && !e->log_urls.n ? &a->driver_logs : &e->log_urls;
    shs_write_kvs_obj(w, "executorLogs", a, logs);
    jsonw_kint(w, "schedulerDelay", shs_task_scheduler_delay(a, row));
    jsonw_kint(w, "gettingResultTime", shs_task_getting_result(a, row));
    jsonw_obj_end(w);
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
    return shs_task_success(a, row) ? v : -v - 1;
}

static bool parse_int(const char *s, int64_t *out)
{
    char *end;
    if (!s || !*s) return false;
    long long v = strtoll(s, &end, 10);
    if (*end) return false;
    *out = v;
    return true;
}

enum shs_status shs_task_list(struct shs_ctx *c, const struct shs_agg *g, const struct clarity_stage *s)
{
    const struct clarity_app *a = g->app;
    int64_t offset = 0, length = 20;
    const char *v;
    if ((v = shs_query_get(c->q, "offset")) && !parse_int(v, &offset))
        return shs_fail(c, SHS_BAD_PATH, "bad offset '%s'", v);
    if ((v = shs_query_get(c->q, "length")) && !parse_int(v, &length))
        return shs_fail(c, SHS_BAD_PATH, "bad length '%s'", v);
    int sort = 0; /* 0 id, 1 increasing runtime, -1 decreasing */
    if ((v = shs_query_get(c->q, "sortBy"))) {
        if (!strcasecmp(v, "ID")) sort = 0;
        else if (!strcasecmp(v, "increasingRuntime") || !strcasecmp(v, "runtime") || !strcasecmp(v, "INCREASING_RUNTIME")) sort = 1;
        else if (!strcasecmp(v, "decreasingRuntime") || !strcasecmp(v, "-runtime") || !strcasecmp(v, "DECREASING_RUNTIME")) sort = -1;
        else return shs_fail(c, SHS_BAD_PATH, "bad sortBy '%s'", v);
    }
    const char *st[16];
    char scratch[512];
    size_t nst = shs_query_list(c->q, "status", st, 16, scratch, sizeof scratch);
    for (size_t i = 0; i < nst; i++) {
        static const char *ok[] = {"RUNNING", "KILLED", "FAILED", "SUCCESS", "UNKNOWN"};
        bool found = false;
        for (size_t k = 0; k < 5; k++) found |= !strcasecmp(st[i], ok[k]);
        if (!found) return shs_fail(c, SHS_BAD_PATH, "bad task status '%s'", st[i]);
    }
    size_t srow = (size_t)(s - a->stages), n = 0;
    struct sort_key *keys = malloc((a->tasks.n ? a->tasks.n : 1) * sizeof *keys);
    if (!keys) return shs_fail(c, SHS_NOT_FOUND, "out of memory");
    for (size_t r = 0; r < a->tasks.n; r++) {
        if ((size_t)clarity_icol_get(&a->tasks.stage, r) != srow || !(clarity_task_flags(a, r) & CLARITY_TF_GOT_START)) continue;
        if (nst) {
            const char *ts = shs_task_status(a, r);
            if (!strcmp(ts, "GET RESULT")) ts = "RUNNING";
            bool keep = false;
            for (size_t i = 0; i < nst; i++) keep |= !strcasecmp(st[i], ts);
            if (!keep) continue;
        }
        keys[n].id = clarity_icol_get(&a->tasks.task_id, r);
        keys[n].key = sort ? run_time_index(a, r) : 0;
        keys[n++].row = r;
    }
    qsort(keys, n, sizeof *keys, cmp_key);
    jsonw_arr_begin(c->w);
    for (int64_t i = offset < 0 ? 0 : offset, k = 0; i < (int64_t)n && k < length; i++, k++)
        shs_task_write(c, g, keys[sort < 0 ? n - 1 - (size_t)i : (size_t)i].row);
    jsonw_arr_end(c->w);
    free(keys);
    return SHS_OK;
}
