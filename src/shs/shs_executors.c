/* Executors (ExecutorSummary as LiveExecutor writes it). Storage memory use comes from block
 * updates, which event logs carry only with spark.eventLog.logBlockUpdates.enabled: without
 * them rddBlocks/memoryUsed/diskUsed read 0, as SHS shows them for such logs. */
#include <stdlib.h>
#include <string.h>
#include "shs/shs_internal.h"
#include "util/stats.h"
#include "util/jsonw.h"

/* spark.task.cpus (the last one logged, when positive), else 1: read once per request. */
static int64_t default_task_cpus(const struct clarity_app *a)
{
    int64_t cpus = 1;
    for (size_t i = 0; i < a->spark_props.n; i++)
        if (!strcmp(clarity_app_str(a, a->spark_props.p[i].k), "spark.task.cpus")) {
            long long v = atoll(clarity_app_str(a, a->spark_props.p[i].v));
            if (v > 0) cpus = v;
        }
    return cpus;
}

/* Task CPUs for a resource profile: its "cpus" task request, else the default. */
static int64_t cpus_per_task(const struct clarity_app *a, int32_t rp, int64_t cpus)
{
    for (size_t i = 0; i < a->nprofiles; i++) {
        const struct clarity_resource_profile *p = &a->profiles[i];
        if (p->id != rp) continue;
        for (size_t k = 0; k < p->ntask_requests; k++)
            if (!strcmp(clarity_app_str(a, p->task_requests[k].key), "cpus")) {
                if (p->task_requests[k].amount >= 1) cpus = (int64_t)p->task_requests[k].amount;
                break;
            }
    }
    return cpus;
}

struct res_ctx { const struct clarity_app *a; const struct clarity_executor *e; };

static void resources_body(struct jsonw *cw, const void *ctx)
{
    const struct res_ctx *c = ctx;
    for (size_t i = 0; i < c->e->nresources; i++) {
        const struct clarity_resource_info *ri = &c->e->resources[i];
        clarity_jsonw_key(cw, clarity_app_str(c->a, ri->key));
        clarity_jsonw_obj_begin(cw);
        clarity_jsonw_kstr(cw, "name", clarity_app_str(c->a, ri->name));
        clarity_jsonw_key(cw, "addresses");
        clarity_jsonw_arr_begin(cw);
        for (size_t k = 0; k < ri->naddresses; k++) clarity_jsonw_str(cw, clarity_app_str(c->a, ri->addresses[k]));
        clarity_jsonw_arr_end(cw);
        clarity_jsonw_obj_end(cw);
    }
}

/* SHS drops a stage from excludedInStages when the stage completes. */
static int excluded_stages(struct jsonw *w, const char *key, const struct shs_index *ix, const struct clarity_executor *e)
{
    const struct clarity_app *a = ix->app;
    int64_t *v = malloc((e->nexcluded_stages ? e->nexcluded_stages : 1) * sizeof *v);
    size_t n = 0;
    if (!v) return -1;
    for (size_t i = 0; i < e->nexcluded_stages; i++) {
        bool done = false;
        size_t nrows;
        const uint32_t *rows = clarity__shs_stage_rows_of(ix, e->excluded_stages[i], &nrows);
        for (size_t k = 0; k < nrows && !done; k++) done = a->stages[rows[k]].seen_completed;
        if (!done) v[n++] = e->excluded_stages[i];
    }
    qsort(v, n, sizeof *v, clarity_cmp_i64);
    clarity_jsonw_key(w, key);
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || v[i] != v[i - 1]) clarity_jsonw_int(w, v[i]);
    clarity_jsonw_arr_end(w);
    free(v);
    return 0;
}

static int exec_write(struct jsonw *w, const struct shs_agg *g, const struct shs_index *ix, int64_t task_cpus,
                      const struct clarity_executor *e)
{
    const struct clarity_app *a = g->app;
    const struct shs_exec_agg *x = &g->ex[e - a->execs];
    clarity_jsonw_obj_begin(w);
    clarity__shs_kstr_id(w, a, "id", e->id);
    char hp[512];
    const char *host = e->host ? clarity_app_str(a, e->host) : "";
    if (e->port >= 0) snprintf(hp, sizeof hp, "%s:%d", host, e->port);
    else snprintf(hp, sizeof hp, "%s", host);
    clarity_jsonw_kstr(w, "hostPort", hp);
    clarity_jsonw_kbool(w, "isActive", !e->remove_ms);
    clarity_jsonw_kint(w, "rddBlocks", e->rdd_blocks);
    clarity_jsonw_kint(w, "memoryUsed", e->mem_used);
    clarity_jsonw_kint(w, "diskUsed", e->disk_used);
    clarity_jsonw_kint(w, "totalCores", e->total_cores);
    clarity_jsonw_kint(w, "maxTasks", e->seen_added ? e->total_cores / cpus_per_task(a, e->resource_profile_id, task_cpus) : 0);
    clarity_jsonw_kint(w, "activeTasks", x->active);
    clarity_jsonw_kint(w, "failedTasks", x->failed);
    clarity_jsonw_kint(w, "completedTasks", x->completed);
    clarity_jsonw_kint(w, "totalTasks", x->total);
    /* SPARK-37493: at ApplicationEnd SHS sets the driver's totals to the application's
     * duration and to its TotalGCTime executor-metric peak (0 when not logged) */
    int64_t duration = x->tot.task_ms, gc = x->gc;
    if (e->is_driver && a->end_ms && a->start_ms) {
        if (__builtin_sub_overflow(a->end_ms, a->start_ms, &duration)) duration = 0;   /* impossible times */
        gc = 0;
        for (size_t i = 0; i < e->peaks.n; i++)
            if (!strcmp(clarity_app_str(a, e->peaks.p[i].name), "TotalGCTime")) gc = e->peaks.p[i].value;
    }
    clarity_jsonw_kint(w, "totalDuration", duration);
    clarity_jsonw_kint(w, "totalGCTime", gc);
    clarity_jsonw_kint(w, "totalInputBytes", x->input);
    clarity_jsonw_kint(w, "totalShuffleRead", x->shuffle_read);
    clarity_jsonw_kint(w, "totalShuffleWrite", x->shuffle_write);
    clarity_jsonw_kbool(w, "isBlacklisted", e->excluded);
    clarity_jsonw_kint(w, "maxMemory", e->max_memory > 0 ? e->max_memory : 0);
    clarity__shs_kdate(w, "addTime", e->add_ms);
    if (e->remove_ms) {
        clarity__shs_kdate(w, "removeTime", e->remove_ms);
        if (e->remove_reason) clarity__shs_kstr_id(w, a, "removeReason", e->remove_reason);
    }
    clarity__shs_write_kvs_obj(w, "executorLogs", a, e->is_driver && !e->log_urls.n ? &a->driver_logs : &e->log_urls);
    if (e->max_onheap >= 0) {
        clarity_jsonw_key(w, "memoryMetrics");
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "usedOnHeapStorageMemory", e->used_on_heap);
        clarity_jsonw_kint(w, "usedOffHeapStorageMemory", e->used_off_heap);
        clarity_jsonw_kint(w, "totalOnHeapStorageMemory", e->max_onheap);
        clarity_jsonw_kint(w, "totalOffHeapStorageMemory", e->max_offheap > 0 ? e->max_offheap : 0);
        clarity_jsonw_obj_end(w);
    }
    if (excluded_stages(w, "blacklistedInStages", ix, e) != 0) return -1;
    if (e->peaks.n || x->had_task_end) clarity__shs_write_peaks(w, "peakMemoryMetrics", a, &e->peaks);
    clarity__shs_write_kvs_obj(w, "attributes", a, &e->attributes);
    struct res_ctx rc = {a, e};
    if (clarity__shs_compact_object(w, "resources", e->has_resources ? resources_body : NULL, &rc) != 0) return -1;
    clarity_jsonw_kint(w, "resourceProfileId", e->resource_profile_id);
    clarity_jsonw_kbool(w, "isExcluded", e->excluded);
    if (excluded_stages(w, "excludedInStages", ix, e) != 0) return -1;
    clarity_jsonw_obj_end(w);
    return 0;
}

struct exec_sort { const struct clarity_executor *e; const char *id; };

static int cmp_exec(const void *x, const void *y)
{
    const struct exec_sort *a = x, *b = y;
    bool aa = !a->e->remove_ms, ba = !b->e->remove_ms;
    if (aa != ba) return aa ? -1 : 1;
    return -strcmp(a->id, b->id);
}

static int executors(struct shs_req *r, bool all)
{
    const struct clarity_app *a = r->app;
    struct exec_sort *v = malloc((a->nexecs ? a->nexecs : 1) * sizeof *v);
    if (!v) return clarity__shs_oom(r);
    size_t n = 0;
    for (size_t i = 0; i < a->nexecs; i++) {
        const struct clarity_executor *e = &a->execs[i];
        if (!clarity__shs_exec_visible(e) || (!all && e->remove_ms)) continue;
        v[n].e = e;
        v[n++].id = clarity_app_str(a, e->id);
    }
    /* the "active" index read in reverse: active first, ids descending */
    qsort(v, n, sizeof *v, cmp_exec);
    int rc = 0;
    int64_t task_cpus = default_task_cpus(a);
    clarity_jsonw_arr_begin(r->w);
    for (size_t i = 0; i < n && !rc; i++) rc = exec_write(r->w, r->agg, r->ix, task_cpus, v[i].e);
    clarity_jsonw_arr_end(r->w);
    free(v);
    return rc ? clarity__shs_oom(r) : CLARITY_OK;
}

int clarity__shs_executors(struct shs_req *r) { return executors(r, false); }
int clarity__shs_all_executors(struct shs_req *r) { return executors(r, true); }
