/* The History Server's SQL listener (SQLAppStatusListener) replayed while loading, so each
 * execution's metric values are the ones SHS shows, with the same quirks:
 * - a job start of an execution (re)creates the tracking of every stage it lists, attempt 0,
 *   sized by the stage's declared task count, watching the execution's metrics as they are at
 *   that moment; a stage submitted with another attempt number starts over;
 * - a TaskEnd writes each watched metric's update at the task's index (a later attempt of the
 *   index overwrites it, nothing does once an attempt of it succeeded), and keeps the largest
 *   update seen with its task;
 * - when the execution ends, the values of its stages' tracking (in its stage set's order) and
 *   then the driver's are gathered per metric; a driver value above the largest task value
 *   takes its place (shown as "(driver)"); tracking is dropped for every stage no other running
 *   execution lists;
 * - an execution is forgotten once its end and all its jobs' ends were seen; a later job
 *   brings it back with the values it had;
 * - at the end of the log, executions still running get the values gathered so far.
 * Nothing is kept per task: the model stores the figures each value string is made from. */
#include "model/apply/sql_listen.h"
#include <stddef.h>
#include <stdint.h>
#include "model/decode/task_decode.h"
#include "util/vec.h"

struct snap {                          /* an execution's metrics when a job started */
    int refs;
    size_t n;
    int64_t *acc;
    uint8_t *kind;
    struct clarity_idmap ix;           /* accumulator id -> position */
};

struct mvals { int64_t *v; int64_t max_val, max_task; bool has_max; };

struct lsm {                           /* LiveStageMetrics */
    int64_t stage_id, ntasks;
    int32_t attempt;
    struct snap *snap;
    struct mvals *mv;                  /* per snapshot position; v NULL until an update */
    uint64_t *done;                    /* indices whose attempt succeeded */
};

struct lexec {
    int64_t sql_id;
    bool live, aggregated;
    int64_t end_events;
    int64_t *macc; uint8_t *mkind; size_t nm, capm;
    struct clarity_idmap mix;          /* accumulator id -> position in macc */
    int64_t *stages; size_t nst, capst;
    struct clarity_idmap sset;
    int64_t *jobs; uint8_t *jst; size_t nj, capj, capjst;
    struct clarity_idmap jset;
    struct clarity_driver_accum *drv; size_t nd, capd;
};

struct sql_listen {
    struct lexec *ex; size_t nex, capex;
    struct clarity_idmap ex_by_sql;
    struct clarity_idmap job_exec;     /* job id -> execution (last one started it) */
    struct lsm **lsm; size_t nlsm, caplsm;
    struct clarity_idmap lsm_by_stage; /* stage id -> position + 1 in lsm (0: none) */
    int32_t *live; size_t nlive, caplive;
    struct clarity_idmap live_by_stage;/* stage id -> position in live: running executions listing it */
};

static int oom(struct apply_ctx *c)
{
    c->failed = 1;
    return -1;
}

static uint8_t kind_of(const char *s, size_t n)
{
    static const char *const names[] = {"sum", "size", "timing", "nsTiming", "average"};
    for (uint8_t k = 0; k < 5; k++)
        if (strlen(names[k]) == n && !memcmp(names[k], s, n)) return k;
    if (n > 9 && !memcmp(s, "v2Custom_", 9)) return CLARITY_SQLM_CUSTOM;
    return CLARITY_SQLM_UNKNOWN;
}

static uint8_t kind_id(struct apply_ctx *c, uint32_t type)
{
    const char *s = clarity_app_str(c->app, type);
    return kind_of(s, strlen(s));
}

/* ---- Scala 2.12's immutable Set/Map order for Int keys: up to 4 entries in insertion order,
 * beyond that a hash trie walked by 5-bit chunks of the improved hash, lowest chunk first ---- */
static uint32_t trie_key(int64_t k)
{
    uint32_t h = (uint32_t)(int32_t)k;
    h = h + ~(h << 9);
    h ^= h >> 14;
    h = h + (h << 4);
    h ^= h >> 10;
    uint32_t key = 0;
    for (int i = 0; i < 6; i++) key |= ((h >> (5 * i)) & 31u) << (27 - 5 * i);
    return key | (h >> 30);
}

static int cmp_trie(const void *x, const void *y)
{
    uint32_t a = trie_key(*(const int64_t *)x), b = trie_key(*(const int64_t *)y);
    return (a > b) - (a < b);
}

/* A permutation of ids (positions) in Scala's iteration order. */
static size_t *scala_order(const int64_t *ids, size_t n)
{
    struct pair { int64_t id; size_t pos; } *p = malloc((n ? n : 1) * sizeof *p);
    size_t *out = malloc((n ? n : 1) * sizeof *out);
    if (!p || !out) {
        free(p);
        free(out);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) p[i] = (struct pair){ids[i], i};
    if (n > 4) qsort(p, n, sizeof *p, cmp_trie);   /* id is the first member */
    for (size_t i = 0; i < n; i++) out[i] = p[i].pos;
    free(p);
    return out;
}

/* ---- executions ---- */

static struct lexec *exec_get(struct sql_listen *s, int64_t sql_id)
{
    uint32_t i;
    return clarity_idmap_get(&s->ex_by_sql, sql_id, &i) ? &s->ex[i] : NULL;
}

static struct lexec *exec_add(struct apply_ctx *c, int64_t sql_id)
{
    struct sql_listen *s = c->sql;
    struct lexec *e = CLARITY_VEC_PUSH(s->ex, s->nex, s->capex);
    if (!e || clarity_idmap_put(&s->ex_by_sql, sql_id, (uint32_t)(s->nex - 1))) return oom(c), NULL;
    e->sql_id = sql_id;
    return e;
}

static int32_t *live_slot(struct apply_ctx *c, int64_t stage, bool add)
{
    struct sql_listen *s = c->sql;
    uint32_t i;
    if (clarity_idmap_get(&s->live_by_stage, stage, &i)) return &s->live[i];
    if (!add) return NULL;
    int32_t *v = CLARITY_VEC_PUSH(s->live, s->nlive, s->caplive);
    if (!v || clarity_idmap_put(&s->live_by_stage, stage, (uint32_t)(s->nlive - 1))) return oom(c), NULL;
    return v;
}

static bool sql_stage(struct apply_ctx *c, int64_t stage)
{
    int32_t *n = live_slot(c, stage, false);
    return n && *n > 0;
}

static void set_live(struct apply_ctx *c, struct lexec *e, bool live)
{
    if (e->live == live) return;
    e->live = live;
    for (size_t i = 0; i < e->nst; i++) {
        int32_t *n = live_slot(c, e->stages[i], true);
        if (n) *n += live ? 1 : -1;
    }
}

static void add_metric(struct apply_ctx *c, struct lexec *e, int64_t acc, uint8_t kind)
{
    uint32_t i;
    if (clarity_idmap_get(&e->mix, acc, &i)) {
        e->mkind[i] = kind;   /* toMap: the last entry of an id wins */
        return;
    }
    size_t capk = e->capm;
    if (CLARITY_VEC_RESERVE(e->macc, e->capm, e->nm + 1)) return (void)oom(c);
    if (e->capm != capk || !e->mkind) {
        uint8_t *k = realloc(e->mkind, e->capm);
        if (!k) return (void)oom(c);
        e->mkind = k;
    }
    e->macc[e->nm] = acc;
    e->mkind[e->nm] = kind;
    if (clarity_idmap_put(&e->mix, acc, (uint32_t)e->nm)) return (void)oom(c);
    e->nm++;
}

static void add_graph_metrics(struct apply_ctx *c, struct lexec *e, const struct clarity_sql_graph *g)
{
    for (size_t i = 0; i < g->nmetrics; i++) add_metric(c, e, g->metrics[i].accum_id, kind_id(c, g->metrics[i].type));
}

/* ---- stage tracking ---- */

static void snap_put(struct snap *sn)
{
    if (!sn || --sn->refs > 0) return;
    free(sn->acc);
    free(sn->kind);
    clarity_idmap_free(&sn->ix);
    free(sn);
}

static void lsm_free(struct lsm *l)
{
    if (!l) return;
    for (size_t i = 0; l->snap && i < l->snap->n; i++) free(l->mv[i].v);
    free(l->mv);
    free(l->done);
    snap_put(l->snap);
    free(l);
}

static struct lsm *lsm_get(struct sql_listen *s, int64_t stage)
{
    uint32_t i;
    return clarity_idmap_get(&s->lsm_by_stage, stage, &i) && i ? s->lsm[i - 1] : NULL;
}

static void lsm_drop(struct sql_listen *s, size_t pos)
{
    struct lsm *l = s->lsm[pos];
    clarity_idmap_put(&s->lsm_by_stage, l->stage_id, 0);   /* an existing key: cannot fail */
    lsm_free(l);
    s->lsm[pos] = s->lsm[--s->nlsm];
    if (pos < s->nlsm) clarity_idmap_put(&s->lsm_by_stage, s->lsm[pos]->stage_id, (uint32_t)pos + 1);
}

static void lsm_put(struct apply_ctx *c, int64_t stage, int32_t attempt, int64_t ntasks, struct snap *sn)
{
    struct sql_listen *s = c->sql;
    struct lsm *l = calloc(1, sizeof *l);
    if (!l) return (void)oom(c);
    l->stage_id = stage;
    l->attempt = attempt;
    l->ntasks = ntasks < 0 ? 0 : ntasks;
    l->snap = sn;
    sn->refs++;
    l->mv = calloc(sn->n ? sn->n : 1, sizeof *l->mv);
    if (!l->mv) {
        lsm_free(l);
        return (void)oom(c);
    }
    uint32_t i;
    if (clarity_idmap_get(&s->lsm_by_stage, stage, &i) && i) {
        lsm_free(s->lsm[i - 1]);
        s->lsm[i - 1] = l;
        return;
    }
    if (CLARITY_VEC_RESERVE(s->lsm, s->caplsm, s->nlsm + 1) ||
        clarity_idmap_put(&s->lsm_by_stage, stage, (uint32_t)s->nlsm + 1)) {
        lsm_free(l);
        return (void)oom(c);
    }
    s->lsm[s->nlsm++] = l;
}

/* removeStaleMetricsData: tracking kept only for stages another running execution lists */
static void remove_stale(struct apply_ctx *c, struct lexec *e)
{
    struct sql_listen *s = c->sql;
    for (size_t i = 0; i < s->nlsm;) {
        int64_t st = s->lsm[i]->stage_id;
        int32_t *n = live_slot(c, st, false);
        uint32_t dummy;
        int32_t others = (n ? *n : 0) - (e->live && clarity_idmap_get(&e->sset, st, &dummy) ? 1 : 0);
        if (others <= 0) lsm_drop(s, i);
        else i++;
    }
}

/* ---- aggregation ---- */

static void swap64(int64_t *a, int64_t *b)
{
    int64_t t = *a;
    *a = *b;
    *b = t;
}

/* the k-th smallest of v[0..n) (v is reordered): three-way quickselect, as SQL metric
 * values repeat (every index without an update is 0) */
static int64_t select_kth(int64_t *v, size_t n, size_t k)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    for (;;) {
        if (hi - lo < 16) {
            for (ptrdiff_t i = lo + 1; i <= hi; i++)
                for (ptrdiff_t j = i; j > lo && v[j - 1] > v[j]; j--) swap64(&v[j - 1], &v[j]);
            return v[kk];
        }
        ptrdiff_t mid = lo + (hi - lo) / 2;
        int64_t a = v[lo], b = v[mid], c = v[hi];
        int64_t pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        ptrdiff_t lt = lo, i = lo, gt = hi;
        while (i <= gt) {
            if (v[i] < pivot) swap64(&v[lt++], &v[i++]);
            else if (v[i] > pivot) swap64(&v[i], &v[gt--]);
            else i++;
        }
        if (kk < lt) hi = lt - 1;
        else if (kk > gt) lo = gt + 1;
        else return pivot;
    }
}

struct gather { int64_t *v; size_t n, cap; bool present, has_max; int64_t max_val, stage, attempt, task; };

static void figures(struct gather *g, uint8_t kind, struct clarity_sql_value *out)
{
    uint64_t total = 0;   /* a Java long's sum: wraps */
    if (kind == CLARITY_SQLM_SUM) {
        for (size_t i = 0; i < g->n; i++) total += (uint64_t)g->v[i];
        out->n = (int64_t)g->n;
        out->total = (int64_t)total;
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < g->n; i++)
        if (kind == CLARITY_SQLM_AVERAGE ? g->v[i] > 0 : g->v[i] >= 0) g->v[n++] = g->v[i];
    out->n = (int64_t)n;
    if (!n) return;
    int64_t mn = g->v[0], mx = g->v[0];
    for (size_t i = 0; i < n; i++) {
        total += (uint64_t)g->v[i];
        if (g->v[i] < mn) mn = g->v[i];
        if (g->v[i] > mx) mx = g->v[i];
    }
    out->total = (int64_t)total;
    out->min = mn;
    out->max = mx;
    out->med = n > 2 ? select_kth(g->v, n, n / 2) : (n == 2 ? mx : mn);
}

static int cmp_value(const void *x, const void *y)
{
    const struct clarity_sql_value *a = x, *b = y;
    return (a->accum_id > b->accum_id) - (a->accum_id < b->accum_id);
}

static int push_vals(struct gather *g, const int64_t *v, size_t n)
{
    if (CLARITY_VEC_RESERVE(g->v, g->cap, g->n + n)) return -1;
    if (n) memcpy(g->v + g->n, v, n * sizeof *v);
    g->n += n;
    g->present = true;
    return 0;
}

static void aggregate(struct apply_ctx *c, struct lexec *e)
{
    if (e->aggregated) return;
    e->aggregated = true;
    struct clarity_sql *q = clarity_app_sql(c->app, e->sql_id);
    if (!q || !q->graph) return;
    struct gather *g = calloc(e->nm ? e->nm : 1, sizeof *g);
    size_t *order = scala_order(e->stages, e->nst);
    if (!g || !order) goto fail;
    for (size_t k = 0; k < e->nst; k++) {
        struct lsm *l = lsm_get(c->sql, e->stages[order[k]]);
        if (!l) continue;
        for (size_t j = 0; j < l->snap->n; j++) {
            uint32_t i;
            if (!clarity_idmap_get(&e->mix, l->snap->acc[j], &i)) continue;
            if (l->mv[j].v && push_vals(&g[i], l->mv[j].v, (size_t)l->ntasks)) goto fail;
            if (l->mv[j].has_max && (!g[i].has_max || l->mv[j].max_val > g[i].max_val)) {
                g[i].has_max = true;
                g[i].max_val = l->mv[j].max_val;
                g[i].stage = l->stage_id;
                g[i].attempt = l->attempt;
                g[i].task = l->mv[j].max_task;
            }
        }
    }
    for (size_t d = 0; d < e->nd; d++) {
        uint32_t i;
        if (!clarity_idmap_get(&e->mix, e->drv[d].accum_id, &i)) continue;
        if (g[i].present && g[i].has_max && e->drv[d].value > g[i].max_val) g[i].has_max = false;
        if (push_vals(&g[i], &e->drv[d].value, 1)) goto fail;
    }
    size_t nv = 0;
    for (size_t i = 0; i < e->nm; i++) nv += g[i].present;
    struct clarity_sql_value *vals = calloc(nv ? nv : 1, sizeof *vals);
    if (!vals) goto fail;
    nv = 0;
    for (size_t i = 0; i < e->nm; i++) {
        if (!g[i].present) continue;
        struct clarity_sql_value *v = &vals[nv++];
        v->accum_id = e->macc[i];
        v->kind = e->mkind[i];
        figures(&g[i], v->kind, v);
        v->has_max = g[i].has_max;
        v->max_stage = g[i].stage;
        v->max_attempt = g[i].attempt;
        v->max_task = g[i].task;
    }
    qsort(vals, nv, sizeof *vals, cmp_value);
    free(q->graph->values);
    q->graph->values = vals;
    q->graph->nvalues = nv;
    for (size_t i = 0; i < e->nm; i++) free(g[i].v);
    free(g);
    free(order);
    return;
fail:
    if (g)
        for (size_t i = 0; i < e->nm; i++) free(g[i].v);
    free(g);
    free(order);
    oom(c);
}

/* update(): an execution whose end and every job's end were seen stops being tracked */
static void update(struct apply_ctx *c, struct lexec *e)
{
    if (!e->live || e->end_events < (int64_t)e->nj + 1) return;
    remove_stale(c, e);
    set_live(c, e, false);
}

/* ---- event hooks ---- */

static struct clarity_sql_graph *graph_of(struct apply_ctx *c, struct clarity_sql *q)
{
    if (!q->graph) q->graph = clarity_arena_alloc(&c->app->arena, sizeof *q->graph);
    if (!q->graph) oom(c);
    return q->graph;
}

void clarity__sql_listen_start(struct apply_ctx *c, struct clarity_sql *q, cj_val plan)
{
    if (!c->sql) return;
    struct clarity_sql_graph *g = graph_of(c, q);
    if (!g || clarity__sql_graph_build(c, g, plan)) return (void)oom(c);
    struct lexec *e = exec_get(c->sql, q->id);
    if (!e && !(e = exec_add(c, q->id))) return;
    set_live(c, e, true);
    /* exec.metrics = the plan's metrics */
    e->nm = 0;
    clarity_idmap_free(&e->mix);
    add_graph_metrics(c, e, g);
}

void clarity__sql_listen_adaptive(struct apply_ctx *c, struct clarity_sql *q, cj_val plan)
{
    if (!c->sql) return;
    struct clarity_sql_graph *g = graph_of(c, q);
    if (!g || clarity__sql_graph_build(c, g, plan)) return (void)oom(c);
    struct lexec *e = exec_get(c->sql, q->id);
    if (e) add_graph_metrics(c, e, g);   /* exec.metrics ++= the new plan's */
}

void clarity__sql_listen_adaptive_metrics(struct apply_ctx *c, struct clarity_sql *q, cj_val metrics)
{
    if (!c->sql) return;
    struct lexec *e = exec_get(c->sql, q->id);
    cj_iter it;
    cj_val m;
    if (!e || !clarity_cj_array_begin(metrics, &it)) return;
    while (clarity_cj_array_next(&it, &m)) {
        int64_t acc;
        const char *t = "";
        size_t tn = 0;
        if (!clarity_cj_get_int(m, "accumulatorId", &acc)) continue;
        clarity_cj_get_str(m, "metricType", &t, &tn);
        add_metric(c, e, acc, kind_of(t, tn));
    }
}

void clarity__sql_listen_end(struct apply_ctx *c, struct clarity_sql *q)
{
    if (!c->sql) return;
    struct lexec *e = exec_get(c->sql, q->id);
    if (!e || !e->live) return;
    aggregate(c, e);
    remove_stale(c, e);
    e->end_events++;
    update(c, e);
}

void clarity__sql_listen_driver(struct apply_ctx *c, struct clarity_sql *q, size_t first_new)
{
    if (!c->sql) return;
    struct lexec *e = exec_get(c->sql, q->id);
    if (!e || !e->live) return;
    for (size_t i = first_new; i < q->ndriver_accums; i++) {
        struct clarity_driver_accum *d = CLARITY_VEC_PUSH(e->drv, e->nd, e->capd);
        if (!d) return (void)oom(c);
        *d = q->driver_accums[i];
    }
}

static void add_stage(struct apply_ctx *c, struct lexec *e, int64_t st)
{
    uint32_t dummy;
    if (clarity_idmap_get(&e->sset, st, &dummy)) return;
    if (CLARITY_VEC_RESERVE(e->stages, e->capst, e->nst + 1) || clarity_idmap_put(&e->sset, st, (uint32_t)e->nst))
        return (void)oom(c);
    e->stages[e->nst++] = st;
    if (e->live) {
        int32_t *n = live_slot(c, st, true);
        if (n) ++*n;
    }
}

static struct snap *snapshot(struct apply_ctx *c, const struct lexec *e)
{
    struct snap *sn = calloc(1, sizeof *sn);
    if (!sn) return oom(c), NULL;
    sn->n = e->nm;
    sn->acc = malloc((e->nm ? e->nm : 1) * sizeof *sn->acc);
    sn->kind = malloc(e->nm ? e->nm : 1);
    if (!sn->acc || !sn->kind) {
        snap_put(sn);
        return oom(c), NULL;
    }
    for (size_t i = 0; i < e->nm; i++) {
        sn->acc[i] = e->macc[i];
        sn->kind[i] = e->mkind[i];
        if (clarity_idmap_put(&sn->ix, e->macc[i], (uint32_t)i)) {
            snap_put(sn);
            return oom(c), NULL;
        }
    }
    return sn;
}

void clarity__sql_listen_job_start(struct apply_ctx *c, int64_t sql_id, int64_t job_id, cj_val ev)
{
    if (!c->sql) return;
    struct lexec *e = exec_get(c->sql, sql_id);
    if (!e) {
        /* a job before its execution's start: a new, empty execution */
        if (!(e = exec_add(c, sql_id))) return;
        set_live(c, e, true);
    } else if (!e->live) {
        /* a finished execution read back from the store: its values stay as they were */
        e->end_events = (int64_t)e->nj + 1;
        set_live(c, e, true);
    }
    cj_val v, info;
    cj_iter it;
    if (e->nm && clarity_cj_get(ev, "Stage Infos", &v) && clarity_cj_array_begin(v, &it)) {
        struct snap *sn = snapshot(c, e);
        if (!sn) return;
        sn->refs = 1;
        while (clarity_cj_array_next(&it, &info)) {
            int64_t sid;
            if (!clarity_cj_get_int(info, "Stage ID", &sid)) continue;
            lsm_put(c, sid, 0, clarity_get_int_or(info, "Number of Tasks", 0), sn);
            if (c->failed) break;
        }
        snap_put(sn);
    }
    uint32_t pos;
    if (clarity_idmap_get(&e->jset, job_id, &pos)) e->jst[pos] = 0;
    else {
        size_t capj = e->capj;
        if (CLARITY_VEC_RESERVE(e->jobs, e->capj, e->nj + 1)) return (void)oom(c);
        if (capj != e->capj || !e->jst) {
            uint8_t *s = realloc(e->jst, e->capj);
            if (!s) return (void)oom(c);
            e->jst = s;
        }
        if (clarity_idmap_put(&e->jset, job_id, (uint32_t)e->nj)) return (void)oom(c);
        e->jobs[e->nj] = job_id;
        e->jst[e->nj++] = 0;
    }
    if (clarity_idmap_put(&c->sql->job_exec, job_id, (uint32_t)(e - c->sql->ex))) return (void)oom(c);
    if (clarity_cj_get(ev, "Stage IDs", &v) && clarity_cj_array_begin(v, &it)) {
        cj_val x;
        while (clarity_cj_array_next(&it, &x)) {
            int64_t sid;
            if (clarity_cj_int(x, &sid)) add_stage(c, e, sid);
        }
    }
    update(c, e);
}

void clarity__sql_listen_job_end(struct apply_ctx *c, int64_t job_id)
{
    if (!c->sql) return;
    uint32_t ei, pos;
    if (!clarity_idmap_get(&c->sql->job_exec, job_id, &ei)) return;
    struct lexec *e = &c->sql->ex[ei];
    if (!e->live || !clarity_idmap_get(&e->jset, job_id, &pos)) return;
    const struct clarity_job *j = clarity_app_job(c->app, job_id);
    e->jst[pos] = j && j->status == CLARITY_JOB_SUCCEEDED ? 1 : 2;
    e->end_events++;
    update(c, e);
}

void clarity__sql_listen_stage_submitted(struct apply_ctx *c, int64_t stage_id, int64_t attempt)
{
    if (!c->sql || !sql_stage(c, stage_id)) return;
    struct lsm *l = lsm_get(c->sql, stage_id);
    if (l && l->attempt != attempt) lsm_put(c, stage_id, (int32_t)attempt, l->ntasks, l->snap);
}

void clarity__sql_listen_task_end(struct apply_ctx *c, const struct task_rec *r)
{
    if (!c->sql || !r->has_accums || !sql_stage(c, r->stage_id)) return;
    struct lsm *l = lsm_get(c->sql, r->stage_id);
    if (!l || l->attempt != r->stage_attempt) return;
    int64_t idx = r->index;
    if (idx >= 0 && idx < l->ntasks && l->done && (l->done[idx >> 6] >> (idx & 63) & 1)) return;
    cj_iter it;
    cj_val a;
    if (!clarity_cj_array_begin(r->accums, &it)) return;
    while (clarity_cj_array_next(&it, &a)) {
        int64_t id, val;
        cj_val up;
        uint32_t j;
        if (!clarity_cj_get_int(a, "ID", &id) || !clarity_cj_get(a, "Update", &up) || !clarity_idmap_get(&l->snap->ix, id, &j))
            continue;
        /* SHS reads the update as text and converts it: a value that is not a long stops the
         * event there */
        if (!clarity_value_as_int(up, &val)) return;
        struct mvals *m = &l->mv[j];
        if (!m->v && !(m->v = calloc(l->ntasks ? (size_t)l->ntasks : 1, sizeof *m->v))) return (void)oom(c);
        if (idx < 0 || idx >= l->ntasks) return;   /* out of the array: SHS fails the event here */
        m->v[idx] = val;
        if (l->snap->kind[j] != CLARITY_SQLM_SUM) {
            if (!m->has_max) m->has_max = true, m->max_val = val, m->max_task = r->tid;
            else if (val > m->max_val) m->max_val = val, m->max_task = r->tid;
        }
    }
    if (r->finish && !r->failed && !r->killed && idx >= 0 && idx < l->ntasks) {
        if (!l->done && !(l->done = calloc((size_t)(l->ntasks + 63) / 64, sizeof *l->done))) return (void)oom(c);
        l->done[idx >> 6] |= 1ull << (idx & 63);
    }
}

void clarity__sql_listen_finish(struct apply_ctx *c)
{
    struct sql_listen *s = c->sql;
    if (!s) return;
    for (size_t i = 0; i < s->nex && !c->failed; i++) {
        struct lexec *e = &s->ex[i];
        if (e->live) aggregate(c, e);
        struct clarity_sql *q = clarity_app_sql(c->app, e->sql_id);
        if (!q || !q->graph || !e->nj) continue;
        size_t *order = scala_order(e->jobs, e->nj);
        q->graph->jobs = malloc(e->nj * sizeof *q->graph->jobs);
        q->graph->job_status = malloc(e->nj);
        if (!order || !q->graph->jobs || !q->graph->job_status) {
            free(order);
            return (void)oom(c);
        }
        for (size_t k = 0; k < e->nj; k++) {
            q->graph->jobs[k] = e->jobs[order[k]];
            q->graph->job_status[k] = e->jst[order[k]];
        }
        q->graph->njobs = e->nj;
        free(order);
    }
}

int clarity__sql_listen_new(struct apply_ctx *c)
{
    return (c->sql = calloc(1, sizeof *c->sql)) ? 0 : -1;
}

void clarity__sql_listen_free(struct apply_ctx *c)
{
    struct sql_listen *s = c->sql;
    if (!s) return;
    for (size_t i = 0; i < s->nex; i++) {
        struct lexec *e = &s->ex[i];
        free(e->macc);
        free(e->mkind);
        free(e->stages);
        free(e->jobs);
        free(e->jst);
        free(e->drv);
        clarity_idmap_free(&e->mix);
        clarity_idmap_free(&e->sset);
        clarity_idmap_free(&e->jset);
    }
    for (size_t i = 0; i < s->nlsm; i++) lsm_free(s->lsm[i]);
    free(s->ex);
    free(s->lsm);
    free(s->live);
    clarity_idmap_free(&s->ex_by_sql);
    clarity_idmap_free(&s->job_exec);
    clarity_idmap_free(&s->lsm_by_stage);
    clarity_idmap_free(&s->live_by_stage);
    free(s);
    c->sql = NULL;
}
