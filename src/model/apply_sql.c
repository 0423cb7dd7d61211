/* SQL execution events (Jackson-serialized: fully qualified names, camelCase fields). */
#include "model/build.h"

static struct clarity_sql *sql_of(struct apply_ctx *c, cj_val ev)
{
    int64_t id;
    if (!cj_get_int(ev, "executionId", &id)) {
        problem(c, "SQL event without \"executionId\"");
        return NULL;
    }
    return sql_get_or_add(c, id);
}

/* Plan metrics map accumulator ids to SQL plan nodes (the SPARK-37340 join). */
static void read_plan(struct apply_ctx *c, struct clarity_sql *q, cj_val node)
{
    uint32_t name = intern_key(c, node, "nodeName");
    cj_val metrics, m, children, ch;
    cj_iter it;
    if (cj_get(node, "metrics", &metrics) && cj_array_begin(metrics, &it))
        while (cj_array_next(&it, &m)) {
            struct clarity_sql_metric *x = CLARITY_VEC_PUSH(q->metrics, q->nmetrics, q->cap_metrics);
            if (!x) {
                c->failed = 1;
                return;
            }
            x->accum_id = get_int_or(m, "accumulatorId", -1);
            x->name = intern_key(c, m, "name");
            x->type = intern_key(c, m, "metricType");
            x->node = name;
        }
    if (cj_get(node, "children", &children) && cj_array_begin(children, &it))
        while (cj_array_next(&it, &ch)) read_plan(c, q, ch);
}

void apply_sql_start(struct apply_ctx *c, cj_val ev)
{
    struct clarity_sql *q = sql_of(c, ev);
    if (!q) return;
    q->root_id = get_int_or(ev, "rootExecutionId", q->id);
    q->description = intern_key(c, ev, "description");
    q->details = intern_key(c, ev, "details");
    q->plan = intern_key(c, ev, "physicalPlanDescription");
    q->start_ms = get_int_or(ev, "time", 0);
    cj_val info;
    if (cj_get(ev, "sparkPlanInfo", &info)) read_plan(c, q, info);
}

void apply_sql_end(struct apply_ctx *c, cj_val ev)
{
    struct clarity_sql *q = sql_of(c, ev);
    if (!q) return;
    q->end_ms = get_int_or(ev, "time", 0);
    q->error = intern_key(c, ev, "errorMessage");
}

void apply_sql_adaptive(struct apply_ctx *c, cj_val ev)
{
    struct clarity_sql *q = sql_of(c, ev);
    if (!q) return;
    uint32_t plan = intern_key(c, ev, "physicalPlanDescription");
    if (plan) q->plan = plan;   /* the last AQE re-plan wins */
    cj_val info;
    if (cj_get(ev, "sparkPlanInfo", &info)) read_plan(c, q, info);
}

void apply_sql_adaptive_metrics(struct apply_ctx *c, cj_val ev)
{
    struct clarity_sql *q = sql_of(c, ev);
    cj_val arr, m;
    cj_iter it;
    if (!q || !cj_get(ev, "sqlPlanMetrics", &arr) || !cj_array_begin(arr, &it)) return;
    while (cj_array_next(&it, &m)) {
        struct clarity_sql_metric *x = CLARITY_VEC_PUSH(q->metrics, q->nmetrics, q->cap_metrics);
        if (!x) {
            c->failed = 1;
            return;
        }
        x->accum_id = get_int_or(m, "accumulatorId", -1);
        x->name = intern_key(c, m, "name");
        x->type = intern_key(c, m, "metricType");
    }
}

void apply_driver_accum_updates(struct apply_ctx *c, cj_val ev)
{
    (void)sql_of(c, ev); /* driver-side metric values are not modelled yet; the execution is */
}
