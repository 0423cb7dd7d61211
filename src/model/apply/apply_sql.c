/* SQL execution events (Jackson-serialized: fully qualified names, camelCase fields). */
#include "model/build.h"

static struct clarity_sql *sql_of(struct apply_ctx *c, cj_val ev)
{
    int64_t id;
    if (!clarity_cj_get_int(ev, "executionId", &id)) {
        clarity_problem(c, "SQL event without \"executionId\"");
        return NULL;
    }
    return clarity_sql_get_or_add(c, id);
}

/* Plan metrics map accumulator ids to SQL plan nodes (the SPARK-37340 join). */
static void read_plan(struct apply_ctx *c, struct clarity_sql *q, cj_val node)
{
    uint32_t name = clarity_intern_key(c, node, "nodeName");
    cj_val metrics, m, children, ch;
    cj_iter it;
    if (clarity_cj_get(node, "metrics", &metrics) && clarity_cj_array_begin(metrics, &it))
        while (clarity_cj_array_next(&it, &m)) {
            struct clarity_sql_metric *x = CLARITY_VEC_PUSH(q->metrics, q->nmetrics, q->cap_metrics);
            if (!x) {
                c->failed = 1;
                return;
            }
            x->accum_id = clarity_get_int_or(m, "accumulatorId", -1);
            x->name = clarity_intern_key(c, m, "name");
            x->type = clarity_intern_key(c, m, "metricType");
            x->node = name;
        }
    if (clarity_cj_get(node, "children", &children) && clarity_cj_array_begin(children, &it))
        while (clarity_cj_array_next(&it, &ch)) read_plan(c, q, ch);
}

void clarity_apply_sql_start(struct apply_ctx *c, cj_val ev)
{
    struct clarity_sql *q = sql_of(c, ev);
    if (!q) return;
    q->root_id = clarity_get_int_or(ev, "rootExecutionId", q->id);
    q->description = clarity_intern_key(c, ev, "description");
    q->details = clarity_intern_key(c, ev, "details");
    q->plan = clarity_intern_key(c, ev, "physicalPlanDescription");
    q->start_ms = clarity_get_int_or(ev, "time", 0);
    cj_val info;
    if (clarity_cj_get(ev, "sparkPlanInfo", &info)) read_plan(c, q, info);
}

void clarity_apply_sql_end(struct apply_ctx *c, cj_val ev)
{
    struct clarity_sql *q = sql_of(c, ev);
    if (!q) return;
    q->end_ms = clarity_get_int_or(ev, "time", 0);
    q->error = clarity_intern_key(c, ev, "errorMessage");
}

void clarity_apply_sql_adaptive(struct apply_ctx *c, cj_val ev)
{
    struct clarity_sql *q = sql_of(c, ev);
    if (!q) return;
    uint32_t plan = clarity_intern_key(c, ev, "physicalPlanDescription");
    if (plan) q->plan = plan;   /* the last AQE re-plan wins */
    cj_val info;
    if (clarity_cj_get(ev, "sparkPlanInfo", &info)) read_plan(c, q, info);
}

void clarity_apply_sql_adaptive_metrics(struct apply_ctx *c, cj_val ev)
{
    struct clarity_sql *q = sql_of(c, ev);
    cj_val arr, m;
    cj_iter it;
    if (!q || !clarity_cj_get(ev, "sqlPlanMetrics", &arr) || !clarity_cj_array_begin(arr, &it)) return;
    while (clarity_cj_array_next(&it, &m)) {
        struct clarity_sql_metric *x = CLARITY_VEC_PUSH(q->metrics, q->nmetrics, q->cap_metrics);
        if (!x) {
            c->failed = 1;
            return;
        }
        x->accum_id = clarity_get_int_or(m, "accumulatorId", -1);
        x->name = clarity_intern_key(c, m, "name");
        x->type = clarity_intern_key(c, m, "metricType");
    }
}

void clarity_apply_driver_accum_updates(struct apply_ctx *c, cj_val ev)
{
    (void)sql_of(c, ev); /* driver-side metric values are not modelled yet; the execution is */
}
