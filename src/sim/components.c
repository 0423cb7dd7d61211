/* Stage spans, their pooling into replay components, a component's tasks in replay order,
 * and configured slots by index (components.h). */
#include <stdlib.h>
#include <string.h>
#include "sim/components.h"
#include "sim/workers.h"
#include "util/heap.h"

void clarity__stage_span_of(const struct clarity_task_comp *c, size_t n, struct clarity__stage_span *out)
{
    /* as clarity_replay_plan_build measures a unit: its first launch, its latest finish less
     * scheduler delay (completion messages arrive late) */
    out->cfin = (double)c[0].finish_ms - (c[0].sched_delay_ms > 0 ? c[0].sched_delay_ms : 0);
    out->first_ms = c[0].launch_ms;
    out->last_ms = c[0].finish_ms;
    for (size_t k = 1; k < n; k++) {
        double cfin = (double)c[k].finish_ms - (c[k].sched_delay_ms > 0 ? c[k].sched_delay_ms : 0);
        if (cfin > out->cfin) out->cfin = cfin;
        if (c[k].launch_ms < out->first_ms) out->first_ms = c[k].launch_ms;
        if (c[k].finish_ms > out->last_ms) out->last_ms = c[k].finish_ms;
    }
    out->start = (double)out->first_ms;
}

struct unit_key { double start; uint32_t row; };

static int by_start(const void *pa, const void *pb)
{
    const struct unit_key *a = pa, *b = pb;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

int clarity__components_build(const struct clarity_task_view *v, const struct clarity__stage_span *span,
                              uint32_t *units, size_t n, struct clarity_replay_component **comp, size_t *ncomp,
                              struct clarity_error *err)
{
    *comp = NULL;
    *ncomp = 0;
    struct unit_key *k = malloc((n ? n : 1) * sizeof *k);
    struct clarity_replay_component *c = malloc((n ? n : 1) * sizeof *c);
    if (!k || !c) {
        free(k); free(c);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory pooling stages for a replay");
    }
    for (size_t i = 0; i < n; i++) k[i] = (struct unit_key){span[units[i]].start, units[i]};
    qsort(k, n, sizeof *k, by_start);
    for (size_t i = 0; i < n; i++) units[i] = k[i].row;
    size_t nc = 0, ui = 0;
    while (ui < n) {
        const struct clarity__stage_span *s = &span[units[ui]];
        size_t uj = ui + 1;
        double reach = s->cfin;
        struct clarity_replay_component *x = &c[nc++];
        *x = (struct clarity_replay_component){.first = ui, .n = clarity_task_view_stage_size(v, units[ui]),
                                               .start_ms = s->first_ms, .end_ms = s->last_ms};
        while (uj < n && span[units[uj]].start < reach) {
            const struct clarity__stage_span *t = &span[units[uj]];
            if (t->cfin > reach) reach = t->cfin;
            x->n += clarity_task_view_stage_size(v, units[uj]);
            if (t->first_ms < x->start_ms) x->start_ms = t->first_ms;
            if (t->last_ms > x->end_ms) x->end_ms = t->last_ms;
            uj++;
        }
        x->nunits = uj - ui;
        ui = uj;
    }
    free(k);
    *comp = c;
    *ncomp = nc;
    return 0;
}

static int by_launch_row(const void *pa, const void *pb)
{
    const struct clarity__launch_row *a = pa, *b = pb;
    if (a->launch != b->launch) return a->launch < b->launch ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

void clarity__component_tasks(const struct clarity_task_view *v, const uint32_t *units, size_t nunits,
                              struct clarity__launch_row *out, size_t ntasks)
{
    size_t w = 0;
    for (size_t u = 0; u < nunits; u++) {
        const uint32_t *r = clarity_task_view_stage_rows(v, units[u]);
        for (size_t k = 0, m = clarity_task_view_stage_size(v, units[u]); k < m && w < ntasks; k++)
            out[w++] = (struct clarity__launch_row){clarity_task_launch_ms(v->app, r[k]), r[k]};
    }
    qsort(out, w, sizeof *out, by_launch_row);
}

/* ---- configured slots by index ---- */

struct core_ev { int64_t t, delta; };

static int ev_cmp(const void *pa, const void *pb)
{
    const struct core_ev *a = pa, *b = pb;
    return (a->t > b->t) - (a->t < b->t);
}

static void line_free(struct clarity__core_line *l)
{
    if (l->max)
        for (size_t i = 0; i < l->levels; i++) free(l->max[i]);
    free(l->max);
    free(l->t);
    memset(l, 0, sizeof *l);
}

/* The timeline of the executors (drivers false) or the driver; -1 out of memory, 1 when an
 * executor was removed before it was added. */
static int line_build(const struct clarity_app *a, bool drivers, struct clarity__core_line *l)
{
    memset(l, 0, sizeof *l);
    struct core_ev *e = malloc((2 * a->nexecs + 1) * sizeof *e);
    if (!e) return -1;
    size_t m = 0;
    int odd = 0;
    for (size_t i = 0; i < a->nexecs; i++) {
        const struct clarity_executor *x = &a->execs[i];
        if (x->is_driver != drivers || x->total_cores <= 0) continue;
        if (x->remove_ms && x->remove_ms < x->add_ms) odd = 1;
        e[m++] = (struct core_ev){x->add_ms, x->total_cores};
        if (x->remove_ms) e[m++] = (struct core_ev){x->remove_ms, -x->total_cores};
    }
    qsort(e, m, sizeof *e, ev_cmp);
    size_t n = 0;
    int64_t alive = 0;
    l->t = malloc((m ? m : 1) * sizeof *l->t);
    int64_t *v = malloc((m ? m : 1) * sizeof *v);
    if (!l->t || !v) { free(e); free(v); line_free(l); return -1; }
    /* cores alive after every event of each distinct time */
    for (size_t i = 0; i < m; i++) {
        alive += e[i].delta;
        if (i + 1 < m && e[i + 1].t == e[i].t) continue;
        l->t[n] = e[i].t;
        v[n++] = alive;
    }
    free(e);
    l->n = n;
    size_t levels = 1;
    while (((size_t)1 << levels) <= n) levels++;
    l->max = calloc(levels, sizeof *l->max);
    if (!l->max) { free(v); line_free(l); return -1; }
    l->levels = levels;
    l->max[0] = v;
    for (size_t k = 1; k < levels; k++) {
        size_t half = (size_t)1 << (k - 1), len = n - ((size_t)1 << k) + 1;
        l->max[k] = malloc(len * sizeof **l->max);
        if (!l->max[k]) { line_free(l); return -1; }
        for (size_t i = 0; i < len; i++) {
            int64_t x = l->max[k - 1][i], y = l->max[k - 1][i + half];
            l->max[k][i] = x > y ? x : y;
        }
    }
    return odd;
}

/* number of event times <= t */
static size_t upto(const struct clarity__core_line *l, int64_t t)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (l->t[mid] <= t) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* Most cores alive at any instant of [from, to]: those alive after every event up to from,
 * and after each later event time up to to. Events at one instant apply removals first in
 * the scan, so the count in between is never above both ends: the ends suffice. */
static int64_t line_peak(const struct clarity__core_line *l, int64_t from, int64_t to)
{
    size_t p = upto(l, from), q = upto(l, to);
    int64_t peak = p ? l->max[0][p - 1] : 0;
    if (q > p) {
        size_t k = 0;
        while (((size_t)2 << k) <= q - p) k++;
        int64_t x = l->max[k][p], y = l->max[k][q - ((size_t)1 << k)];
        if (x > peak) peak = x;
        if (y > peak) peak = y;
    }
    return peak;
}

int clarity__slot_index_build(const struct clarity_app *a, struct clarity__slot_index *x, struct clarity_error *err)
{
    memset(x, 0, sizeof *x);
    x->app = a;
    x->task_cpus = clarity_sim_task_cpus(a);
    int r1 = line_build(a, false, &x->exec), r2 = r1 < 0 ? -1 : line_build(a, true, &x->driver);
    if (r1 < 0 || r2 < 0) {
        clarity__slot_index_free(x);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory indexing executor cores");
    }
    x->scan = r1 || r2;
    return 0;
}

int clarity__slot_index_query(const struct clarity__slot_index *x, int64_t from_ms, int64_t to_ms)
{
    if (x->scan || from_ms > to_ms) return clarity_sim_configured_slots(x->app, from_ms, to_ms);
    int64_t cores = line_peak(&x->exec, from_ms, to_ms);
    if (cores <= 0) cores = line_peak(&x->driver, from_ms, to_ms);   /* local mode */
    int64_t slots = cores / x->task_cpus;
    return slots > INT32_MAX ? INT32_MAX : (int)slots;
}

void clarity__slot_index_free(struct clarity__slot_index *x)
{
    line_free(&x->exec);
    line_free(&x->driver);
    memset(x, 0, sizeof *x);
}

#define END_LESS(ctx, a, b) ((a) < (b))
CLARITY_HEAP_DEFINE(endq, double, void *, END_LESS, CLARITY_HEAP_NOT_INDEXED)

int clarity__observed_slots_sorted(const struct clarity_sim_task *t, size_t n, double *heap)
{
    if (n == 0) return 0;
    /* at each start, the tasks still running (an end and a start at one instant do not
     * overlap); the most at once is clarity_sim_peak_slots' sweep over sorted edges */
    size_t h = 0, peak = 1;
    for (size_t i = 0; i < n; i++) {
        double s = (double)t[i].launch_ms, f = (double)t[i].finish_ms - (t[i].trim_ms > 0 ? t[i].trim_ms : 0);
        if (!(f > s)) continue;   /* an empty occupancy never overlaps anything */
        while (h && heap[0] <= s) endq_pop(NULL, heap, &h);
        endq_push(NULL, heap, &h, f);
        if (h > peak) peak = h;
    }
    int p = peak > INT32_MAX ? INT32_MAX : (int)peak;
    if (n <= CLARITY_SIM_PEAK_MAX_TASKS || (size_t)p * 2 > n) return p;
    return clarity_sim_average_slots(t, n);
}

int clarity__component_slots(const struct clarity__slot_index *x, const struct clarity_sim_task *t, size_t n,
                             int64_t start_ms, int64_t end_ms, double *heap, bool *fallback)
{
    int slots = x ? clarity__slot_index_query(x, start_ms, end_ms) : 0;
    *fallback = false;
    if (slots <= 0) {
        *fallback = x != NULL;
        slots = clarity__observed_slots_sorted(t, n, heap);
    }
    return slots;
}

/* ---- spans of every stage ---- */

struct span_job {
    const struct clarity_task_view *v;
    const uint32_t *units;
    struct clarity__stage_span *span;
    struct clarity_task_comp **comps;    /* per worker */
};

static int one_span(void *ctx, size_t item, size_t worker, struct clarity_error *err)
{
    (void)err;
    struct span_job *j = ctx;
    size_t s = j->units[item];
    clarity_task_view_stage_comps(j->v, s, j->comps[worker]);
    clarity__stage_span_of(j->comps[worker], clarity_task_view_stage_size(j->v, s), &j->span[s]);
    return 0;
}

size_t clarity__stages_with_tasks(const struct clarity_task_view *v, uint32_t *units)
{
    size_t n = 0;
    for (size_t s = 0; s < v->nstages; s++)
        if (clarity_task_view_stage_size(v, s)) units[n++] = (uint32_t)s;
    return n;
}

int clarity__stage_spans(const struct clarity_task_view *v, int threads, struct clarity__stage_span *span,
                         struct clarity_error *err)
{
    uint32_t *units = malloc((v->nstages ? v->nstages : 1) * sizeof *units);
    size_t n = units ? clarity__stages_with_tasks(v, units) : 0;
    size_t nw = clarity__workers_count(threads, n), big = v->max_stage ? v->max_stage : 1;
    struct clarity_task_comp **comps = calloc(nw, sizeof *comps);
    bool ok = units && comps;
    for (size_t i = 0; ok && i < nw; i++) ok = (comps[i] = malloc(big * sizeof **comps)) != NULL;
    int rc;
    if (ok) {
        struct span_job j = {v, units, span, comps};
        rc = clarity__workers_run(threads, n, one_span, &j, err);
    } else rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory measuring stages");
    for (size_t i = 0; comps && i < nw; i++) free(comps[i]);
    free(comps);
    free(units);
    return rc;
}
