/* executorMetricsDistributions (stages with withSummaries=true), as
 * AppStatusStore.stageExecutorSummary computes it: over the stage attempt's executorSummary
 * entries, each figure sorted and read at min(trunc(q * n), n - 1) for every quantile; the
 * peak memory metrics over the entries that have them (peakMemoryMetrics shown), per
 * ExecutorMetricType name. No entries: the field is left out, as SHS leaves it out. */
#include <stdlib.h>
#include "shs/shs_internal.h"
#include "util/checked.h"
#include "util/jsonw.h"
#include "util/stats.h"

static void quantiles_of(struct jsonw *w, const char *key, int64_t *v, size_t n, const double *qs, size_t nq)
{
    qsort(v, n, sizeof *v, clarity_cmp_i64);
    clarity_jsonw_key(w, key);
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < nq; i++) clarity_jsonw_double(w, (double)v[clarity_shs_quantile_index(qs[i], n)]);
    clarity_jsonw_arr_end(w);
}

int clarity__shs_exec_metric_distributions(struct shs_req *r, const struct shs_stage_agg *sa, const struct clarity_stage *s,
                                           const double *qs, size_t nq)
{
    struct shs_exec_entry *e;
    size_t n;
    if (clarity__shs_stage_exec_entries(sa, s, &e, &n) != 0) return clarity__shs_oom(r);
    if (!n) {
        free(e);
        return CLARITY_OK;
    }
    int64_t *v = malloc(n * sizeof *v);
    if (!v) {
        free(e);
        return clarity__shs_oom(r);
    }
    static const struct { const char *k; enum clarity_tm m; } fig[] = {
        {"inputBytes", CLARITY_TM_INPUT_BYTES}, {"inputRecords", CLARITY_TM_INPUT_RECORDS},
        {"outputBytes", CLARITY_TM_OUTPUT_BYTES}, {"outputRecords", CLARITY_TM_OUTPUT_RECORDS},
        {"shuffleRead", CLARITY_TM_SR_REMOTE_BYTES},   /* + local bytes, below */
        {"shuffleReadRecords", CLARITY_TM_SR_RECORDS}, {"shuffleWrite", CLARITY_TM_SW_BYTES},
        {"shuffleWriteRecords", CLARITY_TM_SW_RECORDS}, {"memoryBytesSpilled", CLARITY_TM_MEM_SPILLED},
        {"diskBytesSpilled", CLARITY_TM_DISK_SPILLED},
    };
    struct jsonw *w = r->w;
    clarity_jsonw_key(w, "executorMetricsDistributions");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_key(w, "quantiles");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < nq; i++) clarity_jsonw_double(w, qs[i]);
    clarity_jsonw_arr_end(w);
#define EACH(expr) for (size_t i = 0; i < n; i++) v[i] = e[i].es ? (expr) : 0
    EACH(e[i].es->task_time);
    quantiles_of(w, "taskTime", v, n, qs, nq);
    EACH(e[i].es->failed);
    quantiles_of(w, "failedTasks", v, n, qs, nq);
    EACH(e[i].es->succeeded);
    quantiles_of(w, "succeededTasks", v, n, qs, nq);
    EACH(e[i].es->killed);
    quantiles_of(w, "killedTasks", v, n, qs, nq);
    for (size_t f = 0; f < sizeof fig / sizeof *fig; f++) {
        enum clarity_tm m = fig[f].m;
        if (m == CLARITY_TM_SR_REMOTE_BYTES) EACH(clarity_wrap_add(e[i].es->m[m], e[i].es->m[CLARITY_TM_SR_LOCAL_BYTES]));
        else EACH(e[i].es->m[m]);
        quantiles_of(w, fig[f].k, v, n, qs, nq);
    }
#undef EACH
    /* the entries that show peakMemoryMetrics */
    size_t np = 0;
    for (size_t i = 0; i < n; i++)
        if (e[i].peaks || e[i].had_end) e[np++] = e[i];
    clarity_jsonw_key(w, "peakMemoryMetrics");
    clarity_jsonw_obj_begin(w);
    /* none: SHS would index an empty list; an empty object is answered instead */
    for (size_t k = 0; np && k < CLARITY__SHS_NPEAKS; k++) {
        for (size_t i = 0; i < np; i++) v[i] = clarity__shs_peak_value(r->app, e[i].peaks, k);
        quantiles_of(w, clarity__shs_peak_names[k], v, np, qs, nq);
    }
    clarity_jsonw_obj_end(w);
    clarity_jsonw_obj_end(w);
    free(v);
    free(e);
    return CLARITY_OK;
}
