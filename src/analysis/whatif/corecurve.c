/* Core-count curve: the application's successful tasks replayed on other numbers of slots with
 * the DAG-aware replay; driver-only time is added back as measured. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/model.h"
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

int clarity_curve_analyze(const struct clarity_app *a, const struct clarity_hw *hw, enum clarity_slot_mode mode,
                          enum clarity_curve_unit unit, const struct clarity_curve_ask *ask, size_t nask,
                          struct clarity_curve_result *out, struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    out->mode = mode;
    struct clarity_task_comps comps;
    struct clarity_dag_plan plan = {0};
    struct clarity_sim_task *st = NULL;
    double *rt = NULL;
    struct clarity_dag_edge *edges = NULL;
    size_t nedges = 0;
    int rc = clarity_task_comps_collect(a, &comps, err);
    if (rc) return rc;
    size_t n = comps.n;
    st = malloc((n ? n : 1) * sizeof *st);
    rt = malloc((n ? n : 1) * sizeof *rt);
    edges = stage_edges(a, &nedges);
    out->points = calloc(nask ? nask : 1, sizeof *out->points);
    if (!st || !rt || !edges || !out->points) goto oom;
    for (size_t k = 0; k < n; k++) {
        const struct clarity_task_comp *c = &comps.t[k];
        st[k] = (struct clarity_sim_task){c->launch_ms, c->finish_ms, c->sched_delay_ms, c->stage};
        rt[k] = c->runtime_ms;
        out->serial_ms += c->runtime_ms;
    }
    if ((rc = clarity_dag_plan_build(st, n, mode, a, edges, nedges, &plan, err))) goto fail;
    out->tasks = n;
    out->components = plan.base.ncomp;
    out->internal_edges = plan.internal_edges;
    clarity_app_driver_time(a, &plan.base, &out->actual_ms, &out->driver_ms);
    if ((rc = clarity_dag_plan_critical_path(&plan, rt, &out->critical_path_ms, err)) ||
        (rc = clarity_dag_plan_run(&plan, rt, 1.0, 0, &out->observed_replay_ms, err)))
        goto fail;
    double measured = (double)(out->actual_ms - out->driver_ms);
    out->replay_error = measured > 0 ? (out->observed_replay_ms - measured) / measured : 0;
    out->base_executors = hw->v[CLARITY_HW_EXECUTORS];
    out->base_cores = clarity_hw_cores(hw);
    out->cores_observed = hw->src[CLARITY_HW_CORES_PER_HOST] == CLARITY_HWS_OBSERVED;
    double per_exec = out->base_executors > 0 ? out->base_cores / out->base_executors : out->base_cores;
    int cpus = hw->task_cpus > 0 ? hw->task_cpus : 1;

    for (size_t i = 0; i < nask; i++) {
        struct clarity_curve_point *pt = &out->points[out->npoints++];
        pt->ask = ask[i];
        double factor = 0;
        int absolute = 0;
        if (ask[i].relative) {
            factor = ask[i].v;
            pt->executors = factor * out->base_executors;
            pt->cores = factor * out->base_cores;
        } else if (unit == CLARITY_CURVE_EXECUTORS) {
            pt->executors = ask[i].v;
            pt->cores = ask[i].v * per_exec;
        } else {
            pt->cores = ask[i].v;
            pt->executors = per_exec > 0 ? ask[i].v / per_exec : ask[i].v;
        }
        double slots = floor(pt->cores / cpus + 1e-9);
        pt->slots = slots < 1 ? 1 : slots > INT32_MAX ? INT32_MAX : (int)slots;
        if (!ask[i].relative) absolute = pt->slots;
        pt->slots_min = INT32_MAX;
        for (size_t c = 0; c < plan.base.ncomp; c++) {
            int s = clarity_dag_component_slots(&plan, c, factor, absolute);
            if (s < pt->slots_min) pt->slots_min = s;
            if (s > pt->slots_max) pt->slots_max = s;
        }
        if (plan.base.ncomp == 0) pt->slots_min = pt->slots_max = pt->slots;
        if ((rc = clarity_dag_plan_run(&plan, rt, factor, absolute, &pt->replay_ms, err))) goto fail;
        pt->predicted_ms = pt->replay_ms + (double)out->driver_ms;
        pt->calibrated_ms = (double)out->driver_ms +
                            (out->observed_replay_ms > 0 ? measured * pt->replay_ms / out->observed_replay_ms : 0);
        pt->core_hours = pt->cores * pt->predicted_ms / 3.6e6;
        pt->efficiency = clarity_slot_share(out->serial_ms, pt->slots, pt->replay_ms);
    }
    qsort(out->points, out->npoints, sizeof *out->points, point_cmp);
    out->knee = knee(out->points, out->npoints, true);
    out->knee_replay = knee(out->points, out->npoints, false);
    clarity_dag_plan_free(&plan);
    clarity_task_comps_free(&comps);
    free(st); free(rt); free(edges);
    return 0;
oom:
    rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in the core-count curve");
fail:
    clarity_dag_plan_free(&plan);
    clarity_task_comps_free(&comps);
    free(st); free(rt); free(edges);
    clarity_curve_free(out);
    return rc;
}
