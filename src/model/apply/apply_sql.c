/* SQL execution events (Jackson-serialized: fully qualified names, camelCase fields). */
#include "model/apply/sql_listen.h"

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
/* Plan nodes and metrics are read with one pass over each object's members (clarity_cj_pick):
 * a query's plan has a few to hundreds of them, and lookups by name walked each object once per
 * field. */
enum { NODE_NAME, NODE_METRICS, NODE_CHILDREN, NODE_COUNT };
static const cj_key node_keys[NODE_COUNT] = {CJ_KEY("nodeName"), CJ_KEY("metrics"), CJ_KEY("children")};
enum { MET_ACCUM, MET_NAME, MET_TYPE, MET_COUNT };
static const cj_key metric_keys[MET_COUNT] = {CJ_KEY("accumulatorId"), CJ_KEY("name"), CJ_KEY("metricType")};

static void read_plan(struct apply_ctx *c, struct clarity_sql *q, cj_val node)
{
    struct clarity_picked p, mp;
    p.found = clarity_cj_pick(node, node_keys, NODE_COUNT, p.v);
    uint32_t name = clarity_pk_intern(c, &p, NODE_NAME);
    cj_val m, ch;
    cj_iter it;
    if (clarity_pk_has(&p, NODE_METRICS) && clarity_cj_array_begin(p.v[NODE_METRICS], &it))
        while (clarity_cj_array_next(&it, &m)) {
            struct clarity_sql_metric *x = CLARITY_VEC_PUSH_SMALL(q->metrics, q->nmetrics, q->cap_metrics);
            if (!x) {
                c->failed = 1;
                return;
            }
            mp.found = clarity_cj_pick(m, metric_keys, MET_COUNT, mp.v);
            x->accum_id = clarity_pk_int_or(&mp, MET_ACCUM, -1);
            x->name = clarity_pk_intern(c, &mp, MET_NAME);
            x->type = clarity_pk_intern(c, &mp, MET_TYPE);
            x->node = name;
        }
    if (clarity_pk_has(&p, NODE_CHILDREN) && clarity_cj_array_begin(p.v[NODE_CHILDREN], &it))
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
    q->started = true;
    cj_val info;
    if (clarity_cj_get(ev, "sparkPlanInfo", &info)) {
        read_plan(c, q, info);
        clarity__sql_listen_start(c, q, info);
    }
}

void clarity_apply_sql_end(struct apply_ctx *c, cj_val ev)
{
    struct clarity_sql *q = sql_of(c, ev);
    if (!q) return;
    q->end_ms = clarity_get_int_or(ev, "time", 0);
    cj_val err;
    /* Spark 3.4+ logs "errorMessage" on every end, "" when the query succeeded: its absence
     * (older logs) is told apart, as the History Server's status depends on it */
    q->error_logged = clarity_cj_get(ev, "errorMessage", &err) && clarity_cj_type(err) == CJ_STRING;
    q->error = q->error_logged ? clarity_intern_val(c, err) : 0;
    clarity__sql_listen_end(c, q);
}

void clarity_apply_sql_adaptive(struct apply_ctx *c, cj_val ev)
{
    struct clarity_sql *q = sql_of(c, ev);
    if (!q) return;
    uint32_t plan = clarity_intern_key(c, ev, "physicalPlanDescription");
    if (plan) q->plan = plan;   /* the last AQE re-plan wins */
    cj_val info;
    if (clarity_cj_get(ev, "sparkPlanInfo", &info)) {
        read_plan(c, q, info);
        clarity__sql_listen_adaptive(c, q, info);
    }
}

void clarity_apply_sql_adaptive_metrics(struct apply_ctx *c, cj_val ev)
{
    struct clarity_sql *q = sql_of(c, ev);
    cj_val arr, m;
    cj_iter it;
    if (!q || !clarity_cj_get(ev, "sqlPlanMetrics", &arr) || !clarity_cj_array_begin(arr, &it)) return;
    while (clarity_cj_array_next(&it, &m)) {
        struct clarity_sql_metric *x = CLARITY_VEC_PUSH_SMALL(q->metrics, q->nmetrics, q->cap_metrics);
        if (!x) {
            c->failed = 1;
            return;
        }
        x->accum_id = clarity_get_int_or(m, "accumulatorId", -1);
        x->name = clarity_intern_key(c, m, "name");
        x->type = clarity_intern_key(c, m, "metricType");
    }
    clarity__sql_listen_adaptive_metrics(c, q, arr);
}

/* "accumUpdates": [[id, value], ...]; kept for every execution in log order, since rules
 * (a broadcast's size) and the History Server's metric values read them */
void clarity_apply_driver_accum_updates(struct apply_ctx *c, cj_val ev)
{
    struct clarity_sql *q = sql_of(c, ev);
    cj_val arr, pair, x;
    cj_iter it, pit;
    if (!q || !clarity_cj_get(ev, "accumUpdates", &arr) || !clarity_cj_array_begin(arr, &it)) return;
    size_t first = q->ndriver_accums;
    while (clarity_cj_array_next(&it, &pair)) {
        int64_t v[2];
        int k = 0;
        if (!clarity_cj_array_begin(pair, &pit)) continue;
        while (k < 2 && clarity_cj_array_next(&pit, &x) && clarity_value_as_int(x, &v[k])) k++;
        if (k < 2) {
            clarity_problem(c, "SparkListenerDriverAccumUpdates: an update is not [id, value]");
            continue;
        }
        struct clarity_driver_accum *d = CLARITY_VEC_PUSH_SMALL(q->driver_accums, q->ndriver_accums, q->cap_driver_accums);
        if (!d) {
            c->failed = 1;
            return;
        }
        d->accum_id = v[0];
        d->value = v[1];
    }
    clarity__sql_listen_driver(c, q, first);
}
