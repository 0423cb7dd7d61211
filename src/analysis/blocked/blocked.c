/* Blocked-time analysis: per group, replay with and without each resource. Three passes over
 * the task view, none holding a copy of the task table:
 *  1. per stage attempt (one worker per core): its span for the pooling, Dolly's median,
 *     counts, and its task intervals merged for the idle time;
 *  2. per replay component (one worker per core, largest first): the replays
 *     (blocked_replay.c); a component is a set of stage attempts, and a job, its query and
 *     the application that pool the same set share one replay; each group then sums its
 *     components in order;
 *  3. beside them, one pass over the successful tasks in row order summing each group's
 *     blocked time, in the order the figures were always summed (floating-point sums depend
 *     on it, and the output shows every bit). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/blocked.h"
#include "analysis/blocked/blocked_int.h"
#include "sim/workers.h"

/* ---- pass 1: stages ---- */

struct stage_job {
    const struct clarity_task_view *v;
    const uint32_t *stage_of_item;
    struct clarity__stage_span *span;
    struct clarity__blocked_stage *stage;
    struct clarity_task_comp **comps;    /* per worker, the largest stage */
    struct clarity__busy **busy;         /* per worker, likewise */
};

static int busy_cmp(const void *pa, const void *pb)
{
    const struct clarity__busy *a = pa, *b = pb;
    if (a->s != b->s) return (a->s > b->s) - (a->s < b->s);
    return (a->f > b->f) - (a->f < b->f);
}

static int one_stage(void *ctx, size_t item, size_t worker, struct clarity_error *err)
{
    struct stage_job *j = ctx;
    size_t s = j->stage_of_item[item], m = clarity_task_view_stage_size(j->v, s);
    struct clarity_task_comp *c = j->comps[worker];
    struct clarity__blocked_stage *o = &j->stage[s];
    clarity_task_view_stage_comps(j->v, s, c);
    clarity__stage_span_of(c, m, &j->span[s]);
    int rc = clarity_dolly_median(c, NULL, m, &o->dolly_median, err);
    if (rc) return rc;
    struct clarity__busy *v = j->busy[worker];
    for (size_t k = 0; k < m; k++) {
        o->cpu_tasks += c[k].cpu_logged;
        o->clamped_tasks += c[k].clamped;
        o->any_input |= clarity_task_input_bytes(&c[k]) > 0;
        v[k] = (struct clarity__busy){c[k].launch_ms, c[k].finish_ms};
    }
    /* merged as the idle-time sweep joins intervals: a start after every earlier finish
     * opens a new one */
    qsort(v, m, sizeof *v, busy_cmp);
    size_t nb = 0;
    for (size_t k = 0; k < m; k++) {
        if (nb && v[k].s <= v[nb - 1].f) {
            if (v[k].f > v[nb - 1].f) v[nb - 1].f = v[k].f;
        } else v[nb++] = v[k];
    }
    o->busy = malloc(nb * sizeof *o->busy);
    if (!o->busy) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in the blocked-time analysis");
    memcpy(o->busy, v, nb * sizeof *v);
    o->nbusy = nb;
    return 0;
}

static int stage_pass(const struct clarity_task_view *v, int threads, struct clarity__stage_span *span,
                      struct clarity__blocked_stage *stage, struct clarity_error *err)
{
    size_t ns = 0;
    for (size_t s = 0; s < v->nstages; s++) ns += clarity_task_view_stage_size(v, s) > 0;
    size_t nw = clarity__workers_count(threads, ns), big = v->max_stage ? v->max_stage : 1;
    uint32_t *items = malloc((ns ? ns : 1) * sizeof *items);
    struct clarity_task_comp **comps = calloc(nw, sizeof *comps);
    struct clarity__busy **busy = calloc(nw, sizeof *busy);
    int rc = 0;
    bool ok = items && comps && busy;
    for (size_t i = 0; ok && i < nw; i++) {
        comps[i] = malloc(big * sizeof **comps);
        busy[i] = malloc(big * sizeof **busy);
        ok = comps[i] && busy[i];
    }
    if (ok) {
        for (size_t s = 0, k = 0; s < v->nstages; s++)
            if (clarity_task_view_stage_size(v, s)) items[k++] = (uint32_t)s;
        struct stage_job j = {v, items, span, stage, comps, busy};
        rc = clarity__workers_run(threads, ns, one_stage, &j, err);
    } else rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in the blocked-time analysis");
    for (size_t i = 0; i < nw && comps && busy; i++) { free(comps[i]); free(busy[i]); }
    free(items); free(comps); free(busy);
    return rc;
}

/* ---- pass 3: blocked time summed in row order ---- */

struct sums { double task_ms, blocked[CLARITY_RES_COUNT]; };

struct row_pass {
    const struct clarity_task_view *v;
    const struct clarity__blocked_stage *stage;
    const int32_t *group_of[3];          /* per stage attempt row and kind (job, sql, app): group, -1 */
    struct sums *sums;                   /* per group */
};

static void row_pass(const struct row_pass *p)
{
    const struct clarity_app *a = p->v->app;
    for (size_t i = 0; i < a->tasks.n; i++) {
        if (clarity_icol_get(&a->tasks.end, i) != CLARITY_END_SUCCESS) continue;
        size_t s = (size_t)clarity_icol_get(&a->tasks.stage, i);
        int32_t gs[3];
        int ng = 0;
        for (int k = 0; k < 3; k++)
            if (p->group_of[k] && p->group_of[k][s] >= 0) gs[ng++] = p->group_of[k][s];
        if (!ng) continue;
        struct clarity_task_comp c;
        clarity_task_comp_from_row(a, i, &c);
        double med = p->stage[s].dolly_median;
        for (int k = 0; k < ng; k++) p->sums[gs[k]].task_ms += c.runtime_ms;
        for (int r = 0; r < CLARITY_RES_COUNT; r++) {
            double d = c.runtime_ms - clarity__blocked_without(&c, r, med);
            for (int k = 0; k < ng; k++) p->sums[gs[k]].blocked[r] += d;
        }
    }
}

/* ---- the groups' components, each distinct one once ---- */

struct comp_table {
    struct clarity__blocked_comp *c; size_t n, cap;   /* the distinct components, grown as they appear */
    uint32_t *pool; size_t used;         /* the groups' stage attempts, reordered by start */
    uint32_t *of; size_t nof;            /* per group's component in order: its distinct one */
    uint32_t *first;                     /* per group: its components in of[first[g] .. first[g + 1]) */
    uint64_t *hkey; uint32_t *hval; size_t hcap;   /* open addressing: unit-list hash -> component;
                                                      freed once every group is pooled */
};

static uint64_t units_hash(const uint32_t *u, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ u[i]) * 1099511628211ull;
    return h | 1;                        /* 0 marks an empty slot */
}

/* the component of stage set u[0..n) (new when not seen before); SIZE_MAX when out of memory */
static size_t intern(struct comp_table *t, const uint32_t *u, const struct clarity_replay_component *rc)
{
    uint64_t h = units_hash(u, rc->nunits);
    size_t i = (size_t)h & (t->hcap - 1);
    for (; t->hkey[i]; i = (i + 1) & (t->hcap - 1)) {
        const struct clarity__blocked_comp *c = &t->c[t->hval[i]];
        if (t->hkey[i] == h && c->nunits == rc->nunits && !memcmp(c->units, u, rc->nunits * sizeof *u))
            return t->hval[i];
    }
    if (t->n == t->cap) {
        /* distinct components only: a job, its query and the application mostly share theirs */
        size_t cap = t->cap ? 2 * t->cap : 64;
        void *q = realloc(t->c, cap * sizeof *t->c);
        if (!q) return SIZE_MAX;
        t->c = q;
        t->cap = cap;
    }
    t->hkey[i] = h;
    t->hval[i] = (uint32_t)t->n;
    t->c[t->n] = (struct clarity__blocked_comp){.units = u, .nunits = rc->nunits, .ntasks = rc->n,
                                               .start_ms = rc->start_ms, .end_ms = rc->end_ms};
    return t->n++;
}

static void clarity_table_free(struct comp_table *t)
{
    free(t->c); free(t->pool); free(t->of); free(t->first); free(t->hkey); free(t->hval);
    memset(t, 0, sizeof *t);
}

/* What only the pooling needed: dropped before the replays, whose results are held per group. */
static void table_shrink(struct comp_table *t)
{
    free(t->hkey); free(t->hval);
    t->hkey = NULL; t->hval = NULL; t->hcap = 0;
    void *q = realloc(t->c, (t->n ? t->n : 1) * sizeof *t->c);
    if (q) { t->c = q; t->cap = t->n ? t->n : 1; }
}

/* Pools every group's stages into components (on the stage spans) and keeps each distinct
 * stage set once. */
static int build_table(const struct clarity_task_view *v, const struct clarity__stage_span *span,
                       const struct clarity_groups *g, struct comp_table *t, struct clarity_error *err)
{
    memset(t, 0, sizeof *t);
    size_t total = 0;
    for (size_t i = 0; i < g->n; i++) total += g->g[i].nstages;
    /* a group has at most one component per stage; indexes are 32-bit */
    if (total >= UINT32_MAX) goto oom;
    t->hcap = 16;
    while (t->hcap < 2 * total) t->hcap *= 2;
    t->pool = malloc((total ? total : 1) * sizeof *t->pool);
    t->of = malloc((total ? total : 1) * sizeof *t->of);
    t->first = malloc((g->n + 1) * sizeof *t->first);
    t->hkey = calloc(t->hcap, sizeof *t->hkey);
    t->hval = malloc(t->hcap * sizeof *t->hval);
    if (!t->pool || !t->of || !t->first || !t->hkey || !t->hval) goto oom;
    for (size_t i = 0; i < g->n; i++) {
        uint32_t *u = t->pool + t->used;
        memcpy(u, g->g[i].stages, g->g[i].nstages * sizeof *u);
        t->used += g->g[i].nstages;
        struct clarity_replay_component *rc;
        size_t nrc;
        int rc_ = clarity__components_build(v, span, u, g->g[i].nstages, &rc, &nrc, err);
        if (rc_) { clarity_table_free(t); return rc_; }
        t->first[i] = (uint32_t)t->nof;
        for (size_t k = 0; k < nrc; k++) {
            size_t c = intern(t, u + rc[k].first, &rc[k]);
            if (c == SIZE_MAX) { free(rc); goto oom; }
            t->of[t->nof++] = (uint32_t)c;
        }
        free(rc);
    }
    t->first[g->n] = (uint32_t)t->nof;
    table_shrink(t);
    return 0;
oom:
    clarity_table_free(t);
    return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in the blocked-time analysis");
}

/* ---- the replays and the row pass on the workers ---- */

struct replay_job {
    const struct clarity__blocked_ctx *x;
    struct comp_table *t;
    const size_t *order;                 /* item - 1 -> component, largest first */
    struct clarity__blocked_scratch *ws;
    const struct row_pass *rows;
};

static int one_item(void *ctx, size_t item, size_t worker, struct clarity_error *err)
{
    struct replay_job *j = ctx;
    if (item == 0) {
        row_pass(j->rows);
        return 0;
    }
    return clarity__blocked_replay(j->x, &j->t->c[j->order[item - 1]], &j->ws[worker], err);
}

static int bigger_first(const void *pa, const void *pb, void *ctx)
{
    const struct comp_table *t = ctx;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    if (t->c[a].ntasks != t->c[b].ntasks) return t->c[a].ntasks > t->c[b].ntasks ? -1 : 1;
    return (a > b) - (a < b);
}

/* A group's figures from its components' replays, summed in component (start) order as one
 * replay of the whole group sums them. */
static void group_figures(const struct comp_table *t, size_t gi, const struct clarity_group *g,
                          const struct clarity__blocked_stage *stage, struct clarity_blocked_group *out)
{
    out->tasks = g->ntasks;
    if (g->ntasks == 0) return;
    bool any_input = false;
    for (size_t k = 0; k < g->nstages; k++) {
        const struct clarity__blocked_stage *s = &stage[g->stages[k]];
        out->cpu_tasks += s->cpu_tasks;
        out->clamped_tasks += s->clamped_tasks;
        any_input |= s->any_input;
    }
    double without[CLARITY_RES_COUNT] = {0};
    out->components = t->first[gi + 1] - t->first[gi];
    out->slots_min = INT32_MAX;
    for (size_t k = t->first[gi]; k < t->first[gi + 1]; k++) {
        const struct clarity__blocked_comp *c = &t->c[t->of[k]];
        if (c->slots < out->slots_min) out->slots_min = c->slots;
        if (c->slots > out->slots_max) out->slots_max = c->slots;
        out->slots_fallback += c->fallback;
        out->stages += c->nunits;
        if (c->nunits > 1) out->pooled_stages += c->nunits;
        out->simulated_ms += c->ms[0];
        for (int r = 0; r < CLARITY_RES_COUNT; r++) without[r] += c->ms[1 + r];
    }
    out->has_error = out->actual_ms > 0;
    if (out->has_error) out->replay_error = fabs(out->simulated_ms - (double)out->actual_ms) / (double)out->actual_ms;
    for (int r = 0; r < CLARITY_RES_COUNT; r++) {
        struct clarity_blocked_without *w = &out->without[r];
        w->available = r == CLARITY_RES_NON_CPU ? out->cpu_tasks == g->ntasks : r == CLARITY_RES_STRAGGLERS ? any_input : true;
        if (!w->available) continue;
        w->simulated_ms = without[r];
        /* The replay is not monotone in every case (list scheduling anomalies): shorter
         * tasks can reorder slots and end later. Report no gain rather than a loss. */
        if (w->simulated_ms > out->simulated_ms) w->simulated_ms = out->simulated_ms;
        w->improvement = out->simulated_ms > 0 ? 1 - w->simulated_ms / out->simulated_ms : 0;
    }
}

/* The analysis; each group's figures go to each(ctx, ...) in group order as soon as they are
 * final, so no array of every group's result is held (a group is 392 bytes, two per job). */
static int analyze(const struct clarity_app *a, int kinds, enum clarity_slot_mode mode, int threads,
                   struct clarity_blocked_result *out, clarity_blocked_group_fn each, void *ctx,
                   struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    out->slots = mode;
    struct clarity_task_view v;
    struct clarity_groups g = {0};
    struct clarity__slot_index index = {0};
    struct comp_table t = {0};
    struct clarity__stage_span *span = NULL;
    struct clarity__blocked_stage *stage = NULL;
    struct clarity__blocked_scratch *ws = NULL;
    struct clarity__busy *busy = NULL;
    size_t cap_busy = 0;
    struct sums *sums = NULL;
    int32_t *group_of[3] = {NULL, NULL, NULL};
    size_t *order = NULL, nw = 0;
    int rc = clarity_task_view_build(a, &v, err);
    if (rc) return rc;
    out->counts = v.counts;
    size_t ns = a->nstages;
    span = calloc(ns ? ns : 1, sizeof *span);
    stage = calloc(ns ? ns : 1, sizeof *stage);
    if (!span || !stage) goto oom;
    if (mode == CLARITY_SLOTS_CONFIGURED && (rc = clarity__slot_index_build(a, &index, err))) goto fail;
    if ((rc = stage_pass(&v, threads, span, stage, err))) goto fail;
    for (size_t s = 0; s < ns; s++) {
        out->cpu_logged += stage[s].cpu_tasks;
        out->clamped += stage[s].clamped_tasks;
    }
    if ((rc = clarity_groups_build(&v, kinds, &g, err))) goto fail;
    if (g.n >= INT32_MAX) goto oom;
    if ((rc = build_table(&v, span, &g, &t, err))) goto fail;
    free(span);                          /* the stage spans served the pooling only */
    span = NULL;

    sums = calloc(g.n ? g.n : 1, sizeof *sums);
    order = malloc((t.n ? t.n : 1) * sizeof *order);
    if (!sums || !order) goto oom;
    for (size_t i = 0; i < g.n; i++) {
        int k = g.g[i].kind == CLARITY_GROUP_JOB ? 0 : g.g[i].kind == CLARITY_GROUP_SQL ? 1 : 2;
        if (!group_of[k]) {
            if (!(group_of[k] = malloc((ns ? ns : 1) * sizeof *group_of[k]))) goto oom;
            for (size_t s = 0; s < ns; s++) group_of[k][s] = -1;
        }
        for (size_t q = 0; q < g.g[i].nstages; q++) group_of[k][g.g[i].stages[q]] = (int32_t)i;
    }
    /* the largest components first, so the last ones to finish are small */
    for (size_t i = 0; i < t.n; i++) order[i] = i;
    qsort_r(order, t.n, sizeof *order, bigger_first, &t);
    nw = clarity__workers_count(threads, t.n + 1);
    if (!(ws = calloc(nw, sizeof *ws))) goto oom;
    struct clarity__blocked_ctx x = {&v, mode == CLARITY_SLOTS_CONFIGURED ? &index : NULL, stage};
    struct row_pass rp = {&v, stage, {group_of[0], group_of[1], group_of[2]}, sums};
    struct replay_job j = {&x, &t, order, ws, &rp};
    if ((rc = clarity__workers_run(threads, t.n + 1, one_item, &j, err))) goto fail;
    for (size_t i = 0; i < nw; i++) clarity__blocked_scratch_free(&ws[i]);
    for (int k = 0; k < 3; k++) { free(group_of[k]); group_of[k] = NULL; }
    free(order);
    order = NULL;

    /* the idle sweep's buffer sized for the largest group first, so that once groups are
     * handed out nothing can fail but the caller */
    for (size_t i = 0; i < g.n; i++) {
        size_t n = 0;
        for (size_t k = 0; k < g.g[i].nstages; k++) n += stage[g.g[i].stages[k]].nbusy;
        if (n > cap_busy) cap_busy = n;
    }
    if (cap_busy && !(busy = malloc(cap_busy * sizeof *busy))) goto oom;
    out->ngroups = g.n;
    for (size_t i = 0; i < g.n; i++) {
        struct clarity_blocked_group o = {0};
        o.kind = g.g[i].kind; o.id = g.g[i].id; o.row = g.g[i].row;
        if (!clarity__blocked_idle(stage, g.g[i].stages, g.g[i].nstages, &busy, &cap_busy, &o.idle_ms, &o.actual_ms))
            goto oom;
        group_figures(&t, i, &g.g[i], stage, &o);
        if (o.tasks) o.task_ms = sums[i].task_ms;
        for (int r = 0; r < CLARITY_RES_COUNT; r++)
            if (o.without[r].available) o.without[r].blocked_ms = sums[i].blocked[r];
        if ((rc = each(ctx, out, &o, err))) goto fail;
    }
    goto done;
oom:
    rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in the blocked-time analysis");
fail:
    out->ngroups = 0;
done:
    for (size_t i = 0; i < nw; i++) clarity__blocked_scratch_free(&ws[i]);
    free(ws);
    for (size_t s = 0; stage && s < ns; s++) free(stage[s].busy);
    for (int k = 0; k < 3; k++) free(group_of[k]);
    free(span); free(stage); free(sums); free(order); free(busy);
    clarity_table_free(&t);
    clarity__slot_index_free(&index);
    clarity_groups_free(&g);
    clarity_task_view_free(&v);
    return rc;
}

int clarity_blocked_analyze_each(const struct clarity_app *a, int kinds, enum clarity_slot_mode mode, int threads,
                                 struct clarity_blocked_result *head, clarity_blocked_group_fn each, void *ctx,
                                 struct clarity_error *err)
{
    return analyze(a, kinds, mode, threads, head, each, ctx, err);
}

/* the whole result: each group copied into the array, allocated at the first (ngroups is
 * known by then) */
static int collect(void *ctx, const struct clarity_blocked_result *head, const struct clarity_blocked_group *g,
                   struct clarity_error *err)
{
    struct clarity_blocked_group **v = ctx;
    if (!v[0]) {
        if (!(v[0] = malloc(head->ngroups * sizeof *v[0])))
            return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in the blocked-time analysis");
        v[1] = v[0];
    }
    *v[1]++ = *g;
    return 0;
}

int clarity_blocked_analyze(const struct clarity_app *a, int kinds, enum clarity_slot_mode mode, int threads,
                            struct clarity_blocked_result *out, struct clarity_error *err)
{
    struct clarity_blocked_group *v[2] = {NULL, NULL};
    int rc = analyze(a, kinds, mode, threads, out, collect, v, err);
    if (rc) {
        free(v[0]);
        memset(out, 0, sizeof *out);
        return rc;
    }
    /* no group at all: an empty array, as before */
    out->groups = v[0] ? v[0] : calloc(1, sizeof *out->groups);
    if (!out->groups) {
        memset(out, 0, sizeof *out);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in the blocked-time analysis");
    }
    return 0;
}

void clarity_blocked_free(struct clarity_blocked_result *r)
{
    free(r->groups);
    memset(r, 0, sizeof *r);
}
