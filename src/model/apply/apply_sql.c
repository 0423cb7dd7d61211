/* SQL execution events (Jackson-serialized: fully qualified names, camelCase fields). */
#include <stdlib.h>
#include <string.h>
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
enum { NODE_NAME, NODE_METRICS, NODE_CHILDREN, NODE_SIMPLE, NODE_COUNT };
static const cj_key node_keys[NODE_COUNT] = {CJ_KEY("nodeName"), CJ_KEY("metrics"), CJ_KEY("children"),
                                             CJ_KEY("simpleString")};
enum { MET_ACCUM, MET_NAME, MET_TYPE, MET_COUNT };
static const cj_key metric_keys[MET_COUNT] = {CJ_KEY("accumulatorId"), CJ_KEY("name"), CJ_KEY("metricType")};

#define FNV_OFFSET 14695981039346656037ULL
#define FNV_PRIME 1099511628211ULL

static bool ends_with(const char *s, size_t n, const char *lit)
{
    size_t l = strlen(lit);
    return n >= l && memcmp(s + n - l, lit, l) == 0;
}

/* FNV-1a of a node's text without the ids that differ between two copies of one subtree:
 * digits after '#' (expression ids "ss_item_sk#12", "[id=#45]", "subquery#921"), after
 * "plan_id=", after "Stage " (AQE's "ShuffleQueryStage 3") and inside "Codegen (" / "*(" (the
 * whole-stage-codegen id). Every other digit stays: filter constants and partition counts tell
 * two different subtrees apart. */
static uint64_t shape_text(uint64_t h, const char *s, size_t n)
{
    bool skip = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= '0' && ch <= '9') {
            if (!skip && i > 0 &&
                (s[i - 1] == '#' || ends_with(s, i, "plan_id=") || ends_with(s, i, "Stage ") ||
                 ends_with(s, i, "Codegen (") || ends_with(s, i, "*(")))
                skip = true;
            if (skip) continue;
        } else skip = false;
        h = (h ^ ch) * FNV_PRIME;
    }
    return h;
}

/* A query's plan metrics: every plan and AQE update appends to them (113 a query on NDS q72),
 * so the list grows by doubling to hundreds of entries. In the model's arena every outgrown
 * block stayed behind, zeroed and so resident: 17 MB of arena at 1 M tasks (1,875 queries)
 * for 5 MB of metrics, 12 B a task of summary's peak. Short lists stay in the arena (no malloc
 * per small query on a log of many small jobs); from CLARITY_SQL_METRICS_HEAP entries on the
 * list lives on the heap, grown by realloc, and clarity_app_free frees it (a capacity that
 * large says where it lives). Same entries in the same order either way. */
static struct clarity_sql_metric *push_metric(struct apply_ctx *c, struct clarity_sql *q)
{
    /* arena capacities double from 1, so they stay at or below half the heap's first */
    if (q->nmetrics + 1 <= CLARITY_SQL_METRICS_HEAP / 2)
        return CLARITY_VEC_PUSH_ARENA(&c->app->arena, q->metrics, q->nmetrics, q->cap_metrics);
    if (q->nmetrics + 1 > q->cap_metrics) {
        size_t nc = q->cap_metrics * 2;
        if (nc < CLARITY_SQL_METRICS_HEAP) nc = CLARITY_SQL_METRICS_HEAP;
        struct clarity_sql_metric *m;
        if (q->cap_metrics >= CLARITY_SQL_METRICS_HEAP) m = realloc(q->metrics, nc * sizeof *m);
        else if ((m = malloc(nc * sizeof *m)) && q->nmetrics) memcpy(m, q->metrics, q->nmetrics * sizeof *m);
        if (!m) return NULL;
        q->metrics = m;
        q->cap_metrics = nc;
    }
    struct clarity_sql_metric *x = &q->metrics[q->nmetrics++];
    memset(x, 0, sizeof *x);
    return x;
}

static uint64_t read_plan(struct apply_ctx *c, struct clarity_sql *q, cj_val node, uint32_t depth)
{
    struct clarity_picked p, mp;
    p.found = clarity_cj_pick(node, node_keys, NODE_COUNT, p.v);
    uint32_t name = clarity_pk_intern(c, &p, NODE_NAME);
    size_t self = q->nnodes;
    struct clarity_plan_node *pn = CLARITY_VEC_PUSH_ARENA(&c->app->arena, q->nodes, q->nnodes, q->cap_nodes);
    if (!pn) {
        c->failed = 1;
        return 0;
    }
    pn->name = name;
    pn->metric0 = (uint32_t)q->nmetrics;
    pn->depth = depth;
    const char *txt;
    size_t tlen;
    uint64_t h = FNV_OFFSET;
    if (clarity_pk_has(&p, NODE_NAME) && clarity_cj_str(p.v[NODE_NAME], &txt, &tlen)) h = shape_text(h, txt, tlen);
    h = (h ^ '|') * FNV_PRIME;
    if (clarity_pk_has(&p, NODE_SIMPLE) && clarity_cj_str(p.v[NODE_SIMPLE], &txt, &tlen)) h = shape_text(h, txt, tlen);
    cj_val m, ch;
    cj_iter it;
    if (clarity_pk_has(&p, NODE_METRICS) && clarity_cj_array_begin(p.v[NODE_METRICS], &it))
        while (clarity_cj_array_next(&it, &m)) {
            struct clarity_sql_metric *x = push_metric(c, q);
            if (!x) {
                c->failed = 1;
                return 0;
            }
            mp.found = clarity_cj_pick(m, metric_keys, MET_COUNT, mp.v);
            x->accum_id = clarity_pk_int_or(&mp, MET_ACCUM, -1);
            x->name = clarity_pk_intern(c, &mp, MET_NAME);
            x->type = clarity_pk_intern(c, &mp, MET_TYPE);
            x->node = name;
        }
    q->nodes[self].nmetric = (uint32_t)(q->nmetrics - q->nodes[self].metric0);
    /* children in order: (h, child shapes...) so a reordered join is another shape */
    if (clarity_pk_has(&p, NODE_CHILDREN) && clarity_cj_array_begin(p.v[NODE_CHILDREN], &it))
        while (clarity_cj_array_next(&it, &ch)) {
            uint64_t k = read_plan(c, q, ch, depth + 1);
            if (c->failed) return 0;
            h = (h ^ '(') * FNV_PRIME;
            for (int b = 0; b < 64; b += 8) h = (h ^ ((k >> b) & 0xff)) * FNV_PRIME;
        }
    q->nodes[self].end = (uint32_t)q->nnodes;
    q->nodes[self].shape = h;
    return h;
}

/* A new plan (the start, or an AQE update) replaces the tree; its metrics are appended to the
 * query's list as before. */
static void read_tree(struct apply_ctx *c, struct clarity_sql *q, cj_val info)
{
    q->nnodes = 0;
    (void)read_plan(c, q, info, 0);
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
        read_tree(c, q, info);
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
        read_tree(c, q, info);
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
        struct clarity_sql_metric *x = push_metric(c, q);
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
        struct clarity_driver_accum *d = CLARITY_VEC_PUSH_ARENA(&c->app->arena, q->driver_accums, q->ndriver_accums, q->cap_driver_accums);
        if (!d) {
            c->failed = 1;
            return;
        }
        d->accum_id = v[0];
        d->value = v[1];
    }
    clarity__sql_listen_driver(c, q, first);
}
