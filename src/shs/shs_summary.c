/* taskSummary quantiles as AppStatusStore.taskSummary computes them over an in-memory store:
 * count = successful tasks, and for each metric the successful tasks with a value >= 0 sorted
 * by it, read at row min(trunc(q * count), count - 1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "shs/shs_internal.h"
#include "util/stats.h"
#include "util/checked.h"
#include "util/jsonw.h"

size_t clarity_shs_quantile_index(double q, size_t count) { return clarity_spark_quantile_index(q, count); }

enum sm {
    SM_DURATION = -1, SM_GETTING_RESULT = -2, SM_SCHED_DELAY = -3, SM_SR_BYTES = -4, SM_SR_BLOCKS = -5,
};

static int64_t metric_value(const struct clarity_app *a, size_t row, int m)
{
    switch (m) {
    case SM_DURATION: return clarity_icol_get(&a->tasks.duration, row);
    case SM_GETTING_RESULT: return clarity__shs_task_getting_result(a, row);
    case SM_SCHED_DELAY: return clarity__shs_task_scheduler_delay(a, row);
    case SM_SR_BYTES:
        return clarity_wrap_add(clarity_task_metric(a, row, CLARITY_TM_SR_LOCAL_BYTES), clarity_task_metric(a, row, CLARITY_TM_SR_REMOTE_BYTES));
    case SM_SR_BLOCKS:
        return clarity_wrap_add(clarity_task_metric(a, row, CLARITY_TM_SR_LOCAL_BLOCKS), clarity_task_metric(a, row, CLARITY_TM_SR_REMOTE_BLOCKS));
    default: return clarity__shs_task_metric(a, row, (enum clarity_tm)m);
    }
}

struct dist_ctx {
    const struct clarity_app *a;
    const size_t *rows;    /* successful tasks with metrics */
    size_t nrows, count;
    const double *qs;
    size_t nq;
    double *scratch;
};

static void dist(struct jsonw *w, struct dist_ctx *d, const char *key, int m)
{
    size_t n = 0;
    for (size_t i = 0; i < d->nrows; i++) {
        int64_t v = metric_value(d->a, d->rows[i], m);
        if (v >= 0) d->scratch[n++] = (double)v;
    }
    qsort(d->scratch, n, sizeof *d->scratch, clarity_cmp_double);
    clarity_jsonw_key(w, key);
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < d->nq; i++) {
        size_t k = clarity_shs_quantile_index(d->qs[i], d->count);
        clarity_jsonw_double(w, k < n ? d->scratch[k] : NAN);
    }
    clarity_jsonw_arr_end(w);
}

static void write_distributions(struct jsonw *w, struct dist_ctx *d)
{
    static const struct { const char *k; int m; } top[] = {
        {"duration", SM_DURATION}, {"executorDeserializeTime", CLARITY_TM_DESER_MS},
        {"executorDeserializeCpuTime", CLARITY_TM_DESER_CPU_NS}, {"executorRunTime", CLARITY_TM_RUN_MS},
        {"executorCpuTime", CLARITY_TM_CPU_NS}, {"resultSize", CLARITY_TM_RESULT_SIZE},
        {"jvmGcTime", CLARITY_TM_GC_MS}, {"resultSerializationTime", CLARITY_TM_RESULT_SER_MS},
        {"gettingResultTime", SM_GETTING_RESULT}, {"schedulerDelay", SM_SCHED_DELAY},
        {"peakExecutionMemory", CLARITY_TM_PEAK_EXEC_MEM}, {"memoryBytesSpilled", CLARITY_TM_MEM_SPILLED},
        {"diskBytesSpilled", CLARITY_TM_DISK_SPILLED},
    };
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_key(w, "quantiles");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < d->nq; i++) clarity_jsonw_double(w, d->qs[i]);
    clarity_jsonw_arr_end(w);
    for (size_t i = 0; i < sizeof top / sizeof *top; i++) dist(w, d, top[i].k, top[i].m);
    clarity_jsonw_key(w, "inputMetrics");
    clarity_jsonw_obj_begin(w);
    dist(w, d, "bytesRead", CLARITY_TM_INPUT_BYTES);
    dist(w, d, "recordsRead", CLARITY_TM_INPUT_RECORDS);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "outputMetrics");
    clarity_jsonw_obj_begin(w);
    dist(w, d, "bytesWritten", CLARITY_TM_OUTPUT_BYTES);
    dist(w, d, "recordsWritten", CLARITY_TM_OUTPUT_RECORDS);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "shuffleReadMetrics");
    clarity_jsonw_obj_begin(w);
    dist(w, d, "readBytes", SM_SR_BYTES);
    dist(w, d, "readRecords", CLARITY_TM_SR_RECORDS);
    dist(w, d, "remoteBlocksFetched", CLARITY_TM_SR_REMOTE_BLOCKS);
    dist(w, d, "localBlocksFetched", CLARITY_TM_SR_LOCAL_BLOCKS);
    dist(w, d, "fetchWaitTime", CLARITY_TM_SR_FETCH_WAIT_MS);
    dist(w, d, "remoteBytesRead", CLARITY_TM_SR_REMOTE_BYTES);
    dist(w, d, "remoteBytesReadToDisk", CLARITY_TM_SR_REMOTE_BYTES_TO_DISK);
    dist(w, d, "totalBlocksFetched", SM_SR_BLOCKS);
    dist(w, d, "remoteReqsDuration", CLARITY_TM_SR_REMOTE_REQS_MS);
    clarity_jsonw_key(w, "shufflePushReadMetricsDist");
    clarity_jsonw_obj_begin(w);
    for (int m = CLARITY_TM_SP_CORRUPT_MERGED_CHUNKS; m <= CLARITY_TM_SP_REMOTE_MERGED_REQS_MS; m++)
        dist(w, d, clarity_tm_name((enum clarity_tm)m), m);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "shuffleWriteMetrics");
    clarity_jsonw_obj_begin(w);
    dist(w, d, "writeBytes", CLARITY_TM_SW_BYTES);
    dist(w, d, "writeRecords", CLARITY_TM_SW_RECORDS);
    dist(w, d, "writeTime", CLARITY_TM_SW_TIME_NS);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_obj_end(w);
}

/* Successful started tasks of the stage (NULL: count only); *count includes those without
 * metrics, *nrows those with. */
static void success_rows(const struct shs_index *ix, const struct clarity_stage *s, size_t *out, size_t *nrows,
                         size_t *count)
{
    const struct clarity_app *a = ix->app;
    size_t n;
    const uint32_t *rows = clarity__shs_stage_task_rows(ix, (size_t)(s - a->stages), &n);
    *nrows = *count = 0;
    for (size_t i = 0; i < n; i++) {
        size_t r = rows[i];
        if (!(clarity_task_flags(a, r) & CLARITY_TF_GOT_START) || !clarity__shs_task_success(a, r)) continue;
        (*count)++;
        if (clarity_task_flags(a, r) & CLARITY_TF_HAS_METRICS) {
            if (out) out[*nrows] = r;
            (*nrows)++;
        }
    }
}

/* Writes the distributions of the stage's successful tasks; as_field writes them as the
 * stage's "taskMetricsDistributions" and nothing when there are none (SHS omits the None). */
int clarity__shs_task_metric_distributions(struct shs_req *r, const struct clarity_stage *s, const double *qs,
                                           size_t nq, bool as_field)
{
    struct dist_ctx d = {.a = r->app, .qs = qs, .nq = nq};
    size_t nstage;
    clarity__shs_stage_task_rows(r->ix, (size_t)(s - r->app->stages), &nstage);
    size_t *rows = malloc((nstage ? nstage : 1) * sizeof *rows);
    if (rows) success_rows(r->ix, s, rows, &d.nrows, &d.count);
    d.rows = rows;
    d.scratch = malloc((d.nrows ? d.nrows : 1) * sizeof *d.scratch);
    int rc = CLARITY_OK;
    if (!rows || !d.scratch) rc = clarity__shs_oom(r);
    else if (d.count) {
        if (as_field) clarity_jsonw_key(r->w, "taskMetricsDistributions");
        write_distributions(r->w, &d);
    }
    free(rows);
    free(d.scratch);
    return rc;
}

/* SHS answers 404 for a stage attempt without a successful task. */
int clarity__shs_task_summary_check(struct shs_req *r)
{
    size_t nrows, count;
    success_rows(r->ix, r->stage, NULL, &nrows, &count);
    if (count) return CLARITY_OK;
    return clarity__shs_fail(r, SHS_NOT_FOUND, "no tasks reported metrics for %lld / %d yet", (long long)r->stage->stage_id,
                             r->stage->attempt);
}

int clarity__shs_task_summary(struct shs_req *r)
{
    return clarity__shs_task_metric_distributions(r, r->stage, r->p->quantiles, r->p->nquantiles, false);
}
