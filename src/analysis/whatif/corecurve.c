/* Core-count curve: the application's successful tasks replayed on other numbers of slots with
 * the DAG-aware replay; driver-only time is added back as measured. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/model.h"
#include "analysis/whatif/curve_replay.h"
#include "sim/dag_replay.h"
#include "clarity/sim.h"
#include "clarity/whatif.h"

int clarity_curve_parse(const char *s, struct clarity_curve_ask *out, size_t cap, size_t *count, struct clarity_error *err)
{
    size_t n = 0;
    int rel = -1;
    *count = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        char buf[32];
        struct clarity_hw_value v;
        if (len == 0 || len >= sizeof buf) goto bad;
        memcpy(buf, s, len);
        buf[len] = 0;
        if (clarity_hw_parse_value(CLARITY_HW_EXECUTORS, buf, &v, NULL)) goto bad;
        if (rel >= 0 && rel != v.relative)
            return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0,
                                     "mix of relative (2x) and absolute (16) points in '%s': use one kind", s);
        rel = v.relative;
        if (n == cap) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "more than %zu points", cap);
        out[n++] = (struct clarity_curve_ask){v.v, v.relative};
        s += len + (s[len] == ',');
        continue;
    bad:
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "'%.*s' is neither a factor (0.5x, x2) nor a positive count",
                                 (int)len, s);
    }
    if (n == 0) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "no points given");
    *count = n;
    return 0;
}

void clarity_curve_free(struct clarity_curve_result *r)
{
    free(r->points);
    free(r->on_critical);
    memset(r, 0, sizeof *r);
}

struct sid { int64_t id; uint32_t row; };

static int sid_cmp(const void *pa, const void *pb)
{
    const struct sid *a = pa, *b = pb;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

/* parent -> child edges between stage attempt rows, from each stage's Parent IDs; NULL when
 * out of memory */
static struct clarity_dag_edge *stage_edges(const struct clarity_app *a, size_t *n)
{
    size_t ns = a->nstages, cap = 0;
    *n = 0;
    for (size_t s = 0; s < ns; s++) cap += a->stages[s].nparents;
    struct sid *ids = malloc((ns ? ns : 1) * sizeof *ids);
    struct clarity_dag_edge *e = NULL;
    size_t ne = 0, ecap = cap * 2 + 1;
    e = malloc(ecap * sizeof *e);
    if (!ids || !e) { free(ids); free(e); return NULL; }
    for (size_t s = 0; s < ns; s++) ids[s] = (struct sid){a->stages[s].stage_id, (uint32_t)s};
    qsort(ids, ns, sizeof *ids, sid_cmp);
    for (size_t s = 0; s < ns; s++)
        for (size_t q = 0; q < a->stages[s].nparents; q++) {
            size_t lo = 0, hi = ns;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (ids[mid].id < a->stages[s].parents[q]) lo = mid + 1; else hi = mid;
            }
            for (; lo < ns && ids[lo].id == a->stages[s].parents[q]; lo++) {   /* every attempt */
                if (ne == ecap) {
                    ecap *= 2;
                    struct clarity_dag_edge *x = realloc(e, ecap * sizeof *e);
                    if (!x) { free(ids); free(e); return NULL; }
                    e = x;
                }
                e[ne++] = (struct clarity_dag_edge){ids[lo].row, (uint32_t)s};
            }
        }
    free(ids);
    *n = ne;
    return e;
}

static int point_cmp(const void *pa, const void *pb)
{
    const struct clarity_curve_point *a = pa, *b = pb;
    if (a->slots != b->slots) return a->slots < b->slots ? -1 : 1;
    return (a->ask.v > b->ask.v) - (a->ask.v < b->ask.v);
}

/* the first point (fewest slots) within 10% of the best */
static size_t knee(const struct clarity_curve_point *p, size_t n, bool wall)
{
    double best = INFINITY;
    for (size_t i = 0; i < n; i++) best = fmin(best, wall ? p[i].predicted_ms : p[i].replay_ms);
    for (size_t i = 0; i < n; i++)
        if ((wall ? p[i].predicted_ms : p[i].replay_ms) <= 1.1 * best) return i;
    return 0;
}

/* Parents of every stage attempt row (CSR); stage_edges lists the edges by child already. */
static int parents_by_child(const struct clarity_app *a, size_t **off, uint32_t **par)
{
    size_t ne;
    struct clarity_dag_edge *e = stage_edges(a, &ne);
    *off = calloc(a->nstages + 2, sizeof **off);
    *par = malloc((ne ? ne : 1) * sizeof **par);
    if (!e || !*off || !*par) {
        free(e); free(*off); free(*par);
        *off = NULL; *par = NULL;
        return -1;
    }
    for (size_t i = 0; i < ne; i++) {
        (*off)[e[i].child + 1]++;
        (*par)[i] = e[i].parent;
    }
    for (size_t s = 0; s < a->nstages; s++) (*off)[s + 1] += (*off)[s];
    free(e);
    return 0;
}

/* sum of the successful tasks' runtimes in row order (one slot) */
static double serial_ms(const struct clarity_app *a)
{
    double sum = 0;
    for (size_t i = 0; i < a->tasks.n; i++) {
        if (clarity_icol_get(&a->tasks.end, i) != CLARITY_END_SUCCESS) continue;
        int64_t d = clarity_icol_get(&a->tasks.duration, i);
        sum += (double)(d < 0 ? 0 : d);
    }
    return sum;
}

int clarity_curve_analyze(const struct clarity_app *a, const struct clarity_hw *hw, enum clarity_slot_mode mode,
                          enum clarity_curve_unit unit, const struct clarity_curve_ask *ask, size_t nask, int threads,
                          struct clarity_curve_result *out, struct clarity_error *err)
{
    return clarity_curve_analyze_extra(a, hw, mode, unit, ask, nask, threads, NULL, out, err);
}

int clarity_curve_analyze_extra(const struct clarity_app *a, const struct clarity_hw *hw, enum clarity_slot_mode mode,
                                enum clarity_curve_unit unit, const struct clarity_curve_ask *ask, size_t nask,
                                int threads, const double *extra_ms, struct clarity_curve_result *out,
                                struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    out->mode = mode;
    struct clarity_task_view v;
    struct clarity__slot_index index = {0};
    struct clarity__stage_span *span = NULL;
    struct clarity_replay_component *comp = NULL;
    uint32_t *units = NULL, *par = NULL;
    size_t *par_off = NULL, ncomp = 0;
    double *factor = NULL;
    int *absolute = NULL;
    struct clarity__curve_out co = {0};
    int rc = clarity_task_view_build(a, &v, err);
    if (rc) return rc;
    size_t ns = a->nstages;
    span = calloc(ns ? ns : 1, sizeof *span);
    units = malloc((ns ? ns : 1) * sizeof *units);
    out->points = calloc(nask ? nask : 1, sizeof *out->points);
    out->on_critical = calloc(ns ? ns : 1, 1);
    factor = calloc(nask ? nask : 1, sizeof *factor);
    absolute = calloc(nask ? nask : 1, sizeof *absolute);
    if (!span || !units || !out->points || !out->on_critical || !factor || !absolute || parents_by_child(a, &par_off, &par)) goto oom;
    if (mode == CLARITY_SLOTS_CONFIGURED && (rc = clarity__slot_index_build(a, &index, err))) goto fail;
    if ((rc = clarity__stage_spans(&v, threads, span, err))) goto fail;
    size_t nu = clarity__stages_with_tasks(&v, units);
    if ((rc = clarity__components_build(&v, span, units, nu, &comp, &ncomp, err))) goto fail;
    out->serial_ms = serial_ms(a);
    out->tasks = v.counts.n;
    out->components = ncomp;
    struct clarity_replay_plan spans_only = {.comp = comp, .ncomp = ncomp};   /* all driver time reads */
    clarity_app_driver_time(a, &spans_only, &out->actual_ms, &out->driver_ms);
    out->base_executors = hw->v[CLARITY_HW_EXECUTORS];
    out->base_cores = clarity_hw_cores(hw);
    out->cores_observed = hw->src[CLARITY_HW_CORES_PER_HOST] == CLARITY_HWS_OBSERVED;
    double per_exec = out->base_executors > 0 ? out->base_cores / out->base_executors : out->base_cores;
    int cpus = hw->task_cpus > 0 ? hw->task_cpus : 1;
    for (size_t i = 0; i < nask; i++) {
        struct clarity_curve_point *pt = &out->points[out->npoints++];
        pt->ask = ask[i];
        if (ask[i].relative) {
            factor[i] = ask[i].v;
            pt->executors = factor[i] * out->base_executors;
            pt->cores = factor[i] * out->base_cores;
        } else if (unit == CLARITY_CURVE_EXECUTORS) {
            pt->executors = ask[i].v;
            pt->cores = ask[i].v * per_exec;
        } else {
            pt->cores = ask[i].v;
            pt->executors = per_exec > 0 ? ask[i].v / per_exec : ask[i].v;
        }
        double slots = floor(pt->cores / cpus + 1e-9);
        pt->slots = slots < 1 ? 1 : slots > INT32_MAX ? INT32_MAX : (int)slots;
        if (!ask[i].relative) absolute[i] = pt->slots;
    }

    size_t nc = ncomp ? ncomp : 1;
    co.slots = malloc(nc * sizeof *co.slots);
    co.fallback = malloc(nc * sizeof *co.fallback);
    co.edges = malloc(nc * sizeof *co.edges);
    co.critical = malloc(nc * sizeof *co.critical);
    co.observed = malloc(nc * sizeof *co.observed);
    co.point = malloc(nc * (nask ? nask : 1) * sizeof *co.point);
    if (!co.slots || !co.fallback || !co.edges || !co.critical || !co.observed || !co.point) goto oom;
    co.on_critical = out->on_critical;
    struct clarity__curve_ctx x = {&v, mode == CLARITY_SLOTS_CONFIGURED ? &index : NULL, units, comp, par_off, par,
                                   nask, factor, absolute, extra_ms};
    if ((rc = clarity__curve_replay(&x, ncomp, threads, &co, err))) goto fail;
    /* components run back to back: sums in component order */
    for (size_t c = 0; c < ncomp; c++) {
        out->internal_edges += co.edges[c];
        out->critical_path_ms += co.critical[c];
        out->observed_replay_ms += co.observed[c];
    }
    double measured = (double)(out->actual_ms - out->driver_ms);
    out->replay_error = measured > 0 ? (out->observed_replay_ms - measured) / measured : 0;
    for (size_t i = 0; i < nask; i++) {
        struct clarity_curve_point *pt = &out->points[i];
        pt->slots_min = INT32_MAX;
        for (size_t c = 0; c < ncomp; c++) {
            int s = clarity__curve_slots(co.slots[c], factor[i], absolute[i]);
            if (s < pt->slots_min) pt->slots_min = s;
            if (s > pt->slots_max) pt->slots_max = s;
            pt->replay_ms += co.point[c * nask + i];
        }
        if (ncomp == 0) pt->slots_min = pt->slots_max = pt->slots;
        pt->predicted_ms = pt->replay_ms + (double)out->driver_ms;
        pt->calibrated_ms = (double)out->driver_ms +
                            (out->observed_replay_ms > 0 ? measured * pt->replay_ms / out->observed_replay_ms : 0);
        pt->core_hours = pt->cores * pt->predicted_ms / 3.6e6;
        pt->efficiency = clarity_slot_share(out->serial_ms, pt->slots, pt->replay_ms);
    }
    qsort(out->points, out->npoints, sizeof *out->points, point_cmp);
    out->knee = knee(out->points, out->npoints, true);
    out->knee_replay = knee(out->points, out->npoints, false);
    goto done;
oom:
    rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in the core-count curve");
fail:
    clarity_curve_free(out);
done:
    free(co.slots); free(co.fallback); free(co.edges); free(co.critical); free(co.observed); free(co.point);
    free(span); free(units); free(comp); free(par_off); free(par); free(factor); free(absolute);
    clarity__slot_index_free(&index);
    clarity_task_view_free(&v);
    return rc;
}
