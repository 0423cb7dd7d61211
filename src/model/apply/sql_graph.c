/* An SQL execution's plan graph, built from a logged sparkPlanInfo as the History Server's
 * SparkPlanGraph builds it, so the REST layer can number and link nodes as SHS does:
 * - node ids are handed out depth-first, children in logged order;
 * - a WholeStageCodegen node becomes a cluster holding the nodes of its first child's subtree
 *   down to the next InputAdapter (its members carry its codegen id);
 * - InputAdapter, BroadcastQueryStage/ShuffleQueryStage and TableCacheQueryStage are not
 *   nodes: their first child stands in their place;
 * - an exchange or subquery seen before (equal name, simpleString and children, as
 *   SparkPlanInfo.equals compares them) is not built again: an edge points to the first one.
 *   ReusedExchange and the query stages look their child up, a repeated Subquery itself;
 * - a Subquery inside a codegen cluster is built outside it.
 * Equality is tested through a structural hash, then compared in full. */
#include "model/apply/sql_listen.h"
#include <stdint.h>
#include "util/vec.h"

struct pnode {                         /* one sparkPlanInfo object, flattened */
    const char *name, *simple;
    size_t name_len, simple_len;
    cj_val metrics;
    bool has_metrics;
    size_t first_child, nchildren;     /* into the children index list */
    uint64_t hash;
};

struct gbuild {
    struct apply_ctx *c;
    struct pnode *p; size_t np, capp;
    size_t *kids; size_t nkids, capkids;
    struct clarity_sql_gnode *nodes; size_t nn, capn;
    struct clarity_sql_gmetric *ms; size_t nm, capm;
    struct clarity_sql_gedge *es; size_t ne, cape;
    struct reuse { uint64_t hash; size_t pnode; int64_t id; } *reuse; size_t nr, capr;
    int64_t next_id;
    int failed;
};

static uint64_t mix(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    return (h ^ n) * 0x9e3779b97f4a7c15ULL;
}

enum { PK_NAME, PK_SIMPLE, PK_CHILDREN, PK_METRICS, PK_COUNT };
static const cj_key pkeys[PK_COUNT] = {CJ_KEY("nodeName"), CJ_KEY("simpleString"), CJ_KEY("children"),
                                       CJ_KEY("metrics")};

/* Flattens v and its subtree; returns its index, or SIZE_MAX on failure. Children's indices
 * are listed contiguously for each node. */
static size_t flatten(struct gbuild *b, cj_val v, int depth)
{
    if (depth > 4096) return SIZE_MAX;   /* deeper than any plan: a damaged log */
    cj_val pv[PK_COUNT];
    uint64_t found = clarity_cj_pick(v, pkeys, PK_COUNT, pv);
    struct pnode *n = CLARITY_VEC_PUSH(b->p, b->np, b->capp);
    if (!n) return b->failed = 1, SIZE_MAX;
    size_t me = b->np - 1;
    const char *s = "";
    size_t len = 0;
    if ((found >> PK_NAME & 1) && clarity_cj_str(pv[PK_NAME], &s, &len)) b->p[me].name = s, b->p[me].name_len = len;
    else b->p[me].name = "";
    s = "", len = 0;
    if ((found >> PK_SIMPLE & 1) && clarity_cj_str(pv[PK_SIMPLE], &s, &len)) b->p[me].simple = s, b->p[me].simple_len = len;
    else b->p[me].simple = "";
    if (found >> PK_METRICS & 1) b->p[me].metrics = pv[PK_METRICS], b->p[me].has_metrics = true;
    /* children first counted, then flattened, then listed in one block */
    size_t nch = 0;
    cj_iter it;
    cj_val ch;
    if ((found >> PK_CHILDREN & 1) && clarity_cj_array_begin(pv[PK_CHILDREN], &it))
        while (clarity_cj_array_next(&it, &ch)) nch++;
    size_t *idx = nch ? malloc(nch * sizeof *idx) : NULL;
    if (nch && !idx) return b->failed = 1, SIZE_MAX;
    size_t k = 0;
    if (nch && clarity_cj_array_begin(pv[PK_CHILDREN], &it))
        while (clarity_cj_array_next(&it, &ch) && k < nch) {
            size_t ci = flatten(b, ch, depth + 1);
            if (ci == SIZE_MAX) {
                free(idx);
                return SIZE_MAX;
            }
            idx[k++] = ci;
        }
    if (CLARITY_VEC_RESERVE(b->kids, b->capkids, b->nkids + k)) {
        free(idx);
        return b->failed = 1, SIZE_MAX;
    }
    b->p[me].first_child = b->nkids;
    b->p[me].nchildren = k;
    uint64_t h = mix(mix(0xcbf29ce484222325ULL, b->p[me].name, b->p[me].name_len), b->p[me].simple, b->p[me].simple_len);
    for (size_t i = 0; i < k; i++) {
        b->kids[b->nkids++] = idx[i];
        h = (h ^ b->p[idx[i]].hash) * 0x100000001b3ULL + i;
    }
    b->p[me].hash = h;
    free(idx);
    return me;
}

static bool same(const struct gbuild *b, size_t x, size_t y)
{
    const struct pnode *p = &b->p[x], *q = &b->p[y];
    if (x == y) return true;
    if (p->hash != q->hash || p->name_len != q->name_len || p->simple_len != q->simple_len ||
        p->nchildren != q->nchildren || memcmp(p->name, q->name, p->name_len) || memcmp(p->simple, q->simple, p->simple_len))
        return false;
    for (size_t i = 0; i < p->nchildren; i++)
        if (!same(b, b->kids[p->first_child + i], b->kids[q->first_child + i])) return false;
    return true;
}

static int64_t reused(const struct gbuild *b, size_t pn)
{
    for (size_t i = 0; i < b->nr; i++)
        if (b->reuse[i].hash == b->p[pn].hash && same(b, b->reuse[i].pnode, pn)) return b->reuse[i].id;
    return -1;
}

static bool is(const struct pnode *p, const char *lit)
{
    size_t n = strlen(lit);
    return p->name_len == n && !memcmp(p->name, lit, n);
}

static bool contains(const struct pnode *p, const char *lit)
{
    size_t n = strlen(lit);
    for (size_t i = 0; i + n <= p->name_len; i++)
        if (!memcmp(p->name + i, lit, n)) return true;
    return false;
}

static void edge(struct gbuild *b, int64_t from, int64_t to)
{
    if (to < 0) return;   /* a reused node at the root: SHS would fail; nothing to link */
    struct clarity_sql_gedge *e = CLARITY_VEC_PUSH(b->es, b->ne, b->cape);
    if (!e) {
        b->failed = 1;
        return;
    }
    e->from = from;
    e->to = to;
}

enum { GM_NAME, GM_ACCUM, GM_TYPE, GM_COUNT };
static const cj_key gmkeys[GM_COUNT] = {CJ_KEY("name"), CJ_KEY("accumulatorId"), CJ_KEY("metricType")};

static int64_t add_node(struct gbuild *b, const struct pnode *p, int32_t cluster)
{
    struct clarity_sql_gnode *n = CLARITY_VEC_PUSH(b->nodes, b->nn, b->capn);
    if (!n) return b->failed = 1, -1;
    n->id = b->next_id++;
    n->name = clarity_intern(b->c, p->name, p->name_len);
    n->cluster = cluster;
    n->first_metric = (uint32_t)b->nm;
    cj_iter it;
    cj_val m;
    if (p->has_metrics && clarity_cj_array_begin(p->metrics, &it))
        while (clarity_cj_array_next(&it, &m)) {
            cj_val v[GM_COUNT];
            uint64_t f = clarity_cj_pick(m, gmkeys, GM_COUNT, v);
            struct clarity_sql_gmetric *g = CLARITY_VEC_PUSH(b->ms, b->nm, b->capm);
            if (!g) return b->failed = 1, -1;
            if (!((f >> GM_ACCUM & 1) && clarity_cj_int(v[GM_ACCUM], &g->accum_id))) g->accum_id = -1;
            g->name = (f >> GM_NAME & 1) ? clarity_intern_val(b->c, v[GM_NAME]) : 0;
            g->type = (f >> GM_TYPE & 1) ? clarity_intern_val(b->c, v[GM_TYPE]) : 0;
        }
    b->nodes[b->nn - 1].nmetrics = (uint32_t)(b->nm - b->nodes[b->nn - 1].first_metric);
    return b->nodes[b->nn - 1].id;
}

static void build(struct gbuild *b, size_t pn, int64_t parent, int32_t cluster, int depth)
{
    if (b->failed || depth > 4096) return;
    const struct pnode *p = &b->p[pn];
    size_t first = p->nchildren ? b->kids[p->first_child] : SIZE_MAX;
    if (p->name_len >= 17 && !memcmp(p->name, "WholeStageCodegen", 17)) {
        int64_t id = add_node(b, p, -1);
        if (id < 0 || first == SIZE_MAX) return;
        build(b, first, parent, (int32_t)(b->nn - 1), depth + 1);
    } else if (is(p, "InputAdapter") || is(p, "TableCacheQueryStage")) {
        if (first != SIZE_MAX) build(b, first, parent, -1, depth + 1);
    } else if (is(p, "BroadcastQueryStage") || is(p, "ShuffleQueryStage")) {
        if (first == SIZE_MAX) return;
        int64_t to = reused(b, first);
        if (to >= 0) edge(b, to, parent);
        else build(b, first, parent, -1, depth + 1);
    } else if ((is(p, "Subquery") || is(p, "SubqueryBroadcast")) && cluster >= 0) {
        build(b, pn, parent, -1, depth + 1);
    } else if ((is(p, "Subquery") || is(p, "SubqueryBroadcast")) && reused(b, pn) >= 0) {
        edge(b, reused(b, pn), parent);
    } else if (is(p, "ReusedSubquery")) {
        if (first != SIZE_MAX) build(b, first, parent, cluster, depth + 1);
    } else if (is(p, "ReusedExchange") && first != SIZE_MAX && reused(b, first) >= 0) {
        edge(b, reused(b, first), parent);
    } else {
        int64_t id = add_node(b, p, cluster);
        if (id < 0) return;
        if (contains(p, "Exchange") || is(p, "Subquery") || is(p, "SubqueryBroadcast")) {
            struct reuse *r = CLARITY_VEC_PUSH(b->reuse, b->nr, b->capr);
            if (!r) {
                b->failed = 1;
                return;
            }
            r->hash = p->hash;
            r->pnode = pn;
            r->id = id;
        }
        edge(b, id, parent);
        for (size_t i = 0; i < b->p[pn].nchildren; i++) build(b, b->kids[b->p[pn].first_child + i], id, cluster, depth + 1);
    }
}

static void *arena_copy(struct clarity_arena *a, const void *src, size_t bytes)
{
    if (!bytes) return NULL;
    void *d = clarity_arena_alloc(a, bytes);
    if (d) memcpy(d, src, bytes);
    return d;
}

int clarity__sql_graph_build(struct apply_ctx *c, struct clarity_sql_graph *g, cj_val plan)
{
    struct gbuild b = {.c = c};
    size_t root = flatten(&b, plan, 0);
    int rc = 0;
    if (root != SIZE_MAX) build(&b, root, -1, -1, 0);
    if (b.failed) rc = -1;
    else if (root != SIZE_MAX) {
        struct clarity_arena *ar = &c->app->arena;
        g->nodes = arena_copy(ar, b.nodes, b.nn * sizeof *b.nodes);
        g->metrics = arena_copy(ar, b.ms, b.nm * sizeof *b.ms);
        g->edges = arena_copy(ar, b.es, b.ne * sizeof *b.es);
        if ((b.nn && !g->nodes) || (b.nm && !g->metrics) || (b.ne && !g->edges)) rc = -1;
        g->nnodes = b.nn;
        g->nmetrics = b.nm;
        g->nedges = b.ne;
    }
    free(b.p);
    free(b.kids);
    free(b.nodes);
    free(b.ms);
    free(b.es);
    free(b.reuse);
    return rc;
}
