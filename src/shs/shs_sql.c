/* /sql and /sql/{executionId} (SqlResource, Spark 3.5): each execution as ExecutionData,
 * from the model's replay of the History Server's SQL listener (clarity_sql.graph, load
 * option sql_plan_graphs):
 * - executions by id, the list paged with offset and length (KVStore's skip and max);
 * - status as SQLExecutionUIData.executionStatus: a logged errorMessage decides ("" is
 *   COMPLETED), else RUNNING without an end, else FAILED when a job failed, else COMPLETED;
 * - the job id lists in the order of the listener's job map;
 * - nodes by decreasing id with their trimmed names, the codegen id of their cluster and the
 *   metrics that have a value; edges in the graph's order;
 * - details=false empties nodes and edges, planDescription=false the plan text.
 * Only executions whose SQLExecutionStart was logged are listed: SHS needs their plan graph
 * and fails a list holding one without. */
#include <stdlib.h>
#include <string.h>
#include "shs/shs_internal.h"
#include "util/jsonw.h"

static bool java_ws(char ch) { return (unsigned char)ch <= ' '; }

/* String.trim: no character <= ' ' at either end */
static void kstr_trim(struct jsonw *w, const char *key, const char *s)
{
    size_t n = strlen(s);
    while (n && java_ws(s[0])) s++, n--;
    while (n && java_ws(s[n - 1])) n--;
    clarity_jsonw_key(w, key);
    clarity_jsonw_strn(w, s, n);
}

/* getWholeStageCodegenId: the number in "WholeStageCodegen (N)" as Long.parseLong reads it */
static bool codegen_id(const char *name, int64_t *out)
{
    size_t n = strlen(name);
    while (n && java_ws(name[0])) name++, n--;
    while (n && java_ws(name[n - 1])) n--;
    static const char pre[] = "WholeStageCodegen (";
    if (n < sizeof pre || strncmp(name, "WholeStageCodegen", 17)) return false;
    const char *s = name + sizeof pre - 1, *e = name + n - 1;
    if (s >= e) return false;
    bool neg = *s == '-';
    if (*s == '-' || *s == '+') s++;
    if (s >= e) return false;
    uint64_t v = 0;
    for (; s < e; s++) {
        if (*s < '0' || *s > '9') return false;
        if (v > (UINT64_MAX - 9) / 10) return false;
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > (uint64_t)INT64_MAX + neg) return false;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

static const struct clarity_sql_value *value_of(const struct clarity_sql_graph *g, int64_t acc)
{
    size_t lo = 0, hi = g->nvalues;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->values[mid].accum_id < acc) lo = mid + 1;
        else hi = mid;
    }
    return lo < g->nvalues && g->values[lo].accum_id == acc ? &g->values[lo] : NULL;
}

static const char *status_of(const struct clarity_app *a, const struct clarity_sql *q)
{
    if (q->error_logged) return q->error && *clarity_app_str(a, q->error) ? "FAILED" : "COMPLETED";
    if (!q->end_ms) return "RUNNING";
    for (size_t i = 0; i < q->graph->njobs; i++)
        if (q->graph->job_status[i] == 2) return "FAILED";
    return "COMPLETED";
}

static void job_ids(struct jsonw *w, const char *key, const struct clarity_sql_graph *g, uint8_t status)
{
    clarity_jsonw_key(w, key);
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < g->njobs; i++)
        if (g->job_status[i] == status) clarity_jsonw_int(w, g->jobs[i]);
    clarity_jsonw_arr_end(w);
}

static void write_node(struct jsonw *w, const struct clarity_app *a, const struct clarity_sql_graph *g,
                       const struct clarity_sql_gnode *n)
{
    char text[512];
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "nodeId", n->id);
    kstr_trim(w, "nodeName", clarity_app_str(a, n->name));
    int64_t cg;
    if (n->cluster >= 0 && codegen_id(clarity_app_str(a, g->nodes[n->cluster].name), &cg))
        clarity_jsonw_kint(w, "wholeStageCodegenId", cg);
    clarity_jsonw_key(w, "metrics");
    clarity_jsonw_arr_begin(w);
    for (uint32_t i = 0; i < n->nmetrics; i++) {
        const struct clarity_sql_gmetric *m = &g->metrics[n->first_metric + i];
        const struct clarity_sql_value *v = value_of(g, m->accum_id);
        if (!v || !clarity__shs_sql_value_text(v, text, sizeof text)) continue;
        clarity_jsonw_obj_begin(w);
        kstr_trim(w, "name", clarity_app_str(a, m->name));
        clarity_jsonw_kstr(w, "value", text);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
}

static void write_exec(struct shs_req *r, const struct clarity_sql *q)
{
    struct jsonw *w = r->w;
    const struct clarity_app *a = r->app;
    const struct clarity_sql_graph *g = q->graph;
    bool details = r->p->details, plan = r->p->plan_description;
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "id", q->id);
    clarity_jsonw_kstr(w, "status", status_of(a, q));
    clarity__shs_kstr_id(w, a, "description", q->description);
    clarity_jsonw_kstr(w, "planDescription", plan && q->plan ? clarity_app_str(a, q->plan) : "");
    clarity__shs_kdate(w, "submissionTime", q->start_ms);
    /* SHS measures a running execution up to the time of the request: not from a log */
    /* a Java long's difference: wraps on damaged times instead of overflowing */
    if (q->end_ms) clarity_jsonw_kint(w, "duration", (int64_t)((uint64_t)q->end_ms - (uint64_t)q->start_ms));
    job_ids(w, "runningJobIds", g, 0);
    job_ids(w, "successJobIds", g, 1);
    job_ids(w, "failedJobIds", g, 2);
    clarity_jsonw_key(w, "nodes");
    clarity_jsonw_arr_begin(w);
    for (size_t i = details ? g->nnodes : 0; i-- > 0;) write_node(w, a, g, &g->nodes[i]);
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "edges");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; details && i < g->nedges; i++) {
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "fromId", g->edges[i].from);
        clarity_jsonw_kint(w, "toId", g->edges[i].to);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
}

static bool listed(const struct clarity_sql *q) { return q->started && q->graph; }

/* The model holds no graphs when it was loaded without the option: nothing right to say. */
static int need_graphs(struct shs_req *r)
{
    for (size_t i = 0; i < r->app->nsqls; i++)
        if (r->app->sqls[i].started && !r->app->sqls[i].graph)
            return clarity__shs_fail(r, SHS_INTERNAL, "SQL plan graphs were not loaded (load option sql_plan_graphs)");
    return CLARITY_OK;
}

int clarity__shs_sql_check(struct shs_req *r)
{
    int rc = need_graphs(r);
    if (rc) return rc;
    /* KVStoreView.max refuses a length that is not positive: SHS fails such a list */
    if (!r->have_sql_id && r->p->length <= 0)
        return clarity__shs_fail(r, SHS_BAD_PARAM, "length must be positive, got %lld", (long long)r->p->length);
    if (!r->have_sql_id) return CLARITY_OK;
    const struct clarity_sql *q = clarity_app_sql(r->app, r->sql_id);
    if (!q || !listed(q)) return clarity__shs_fail(r, SHS_NOT_FOUND, "unknown query execution id: %lld", (long long)r->sql_id);
    return CLARITY_OK;
}

int clarity__shs_sql_one(struct shs_req *r)
{
    write_exec(r, clarity_app_sql(r->app, r->sql_id));
    return CLARITY_OK;
}

static int cmp_sql_id(const void *x, const void *y)
{
    const struct clarity_sql *a = *(const struct clarity_sql *const *)x, *b = *(const struct clarity_sql *const *)y;
    return (a->id > b->id) - (a->id < b->id);
}

int clarity__shs_sql_list(struct shs_req *r)
{
    const struct clarity_app *a = r->app;
    const struct clarity_sql **rows = malloc((a->nsqls ? a->nsqls : 1) * sizeof *rows);
    if (!rows) return clarity__shs_oom(r);
    size_t n = 0;
    for (size_t i = 0; i < a->nsqls; i++)
        if (listed(&a->sqls[i])) rows[n++] = &a->sqls[i];
    /* the store's natural index: by execution id */
    qsort(rows, n, sizeof *rows, cmp_sql_id);
    size_t from = r->p->offset > 0 ? (size_t)r->p->offset : 0;
    clarity_jsonw_arr_begin(r->w);
    for (size_t i = from, k = 0; i < n && (int64_t)k < r->p->length; i++, k++) write_exec(r, rows[i]);
    clarity_jsonw_arr_end(r->w);
    free(rows);
    return CLARITY_OK;
}
