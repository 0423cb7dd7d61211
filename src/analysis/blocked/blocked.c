/* Blocked-time analysis: per group, replay with and without each resource. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/blocked.h"
#include "clarity/sim.h"

struct span { int64_t s, f; };

static int span_cmp(const void *pa, const void *pb)
{
    const struct span *a = pa, *b = pb;
    return (a->s > b->s) - (a->s < b->s);
}

/* Time within [first launch, last finish] when none of the tasks ran: driver work, job
 * gaps, waiting for slots held by other groups. The replay does not model it. false when out
 * of memory. */
static bool idle_time(const struct clarity_task_comp *all, const size_t *idx, size_t n, int64_t *idle_out,
                      int64_t *span_out)
{
    *idle_out = *span_out = 0;
    if (n == 0) return true;
    struct span *v = malloc(n * sizeof *v);
    if (!v) return false;
    for (size_t k = 0; k < n; k++) v[k] = (struct span){all[idx[k]].launch_ms, all[idx[k]].finish_ms};
    qsort(v, n, sizeof *v, span_cmp);
    int64_t idle = 0, reach = v[0].f, lo = v[0].s, hi = v[0].f;
    for (size_t k = 1; k < n; k++) {
        if (v[k].s > reach) idle += v[k].s - reach;
        if (v[k].f > reach) reach = v[k].f;
        if (v[k].f > hi) hi = v[k].f;
    }
    free(v);
    *span_out = hi - lo;
    *idle_out = idle;
    return true;
}

int clarity_blocked_group_compute(const struct clarity_app *a, const struct clarity_task_comps *comps,
                                  const size_t *idx, size_t n, const double *dolly, enum clarity_slot_mode mode,
                                  struct clarity_blocked_group *out, struct clarity_error *err)
{
    int kind = out->kind; int64_t id = out->id; size_t row = out->row;
    memset(out, 0, sizeof *out);
    out->kind = kind; out->id = id; out->row = row;
    out->tasks = n;
    if (n == 0) return 0;
    const struct clarity_task_comp *all = comps->t;
    struct clarity_sim_task *st = malloc(n * sizeof *st);
    double *rt = malloc(n * sizeof *rt);
    struct clarity_replay_plan plan;
    if (!st || !rt) {
        free(st); free(rt);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory replaying a group");
    }
    bool any_input = false;
    for (size_t k = 0; k < n; k++) {
        const struct clarity_task_comp *c = &all[idx[k]];
        st[k] = (struct clarity_sim_task){c->launch_ms, c->finish_ms, c->sched_delay_ms, c->stage};
        out->task_ms += c->runtime_ms;
        out->cpu_tasks += c->cpu_logged;
        out->clamped_tasks += c->clamped;
        any_input |= clarity_task_input_bytes(c) > 0;
    }
    int rc = clarity_replay_plan_build(st, n, mode, a, &plan, err);
    if (rc) { free(st); free(rt); return rc; }
    free(st);
    out->components = plan.ncomp;
    out->slots_min = INT32_MAX;
    for (size_t c = 0; c < plan.ncomp; c++) {
        const struct clarity_replay_component *pc = &plan.comp[c];
        if (pc->slots < out->slots_min) out->slots_min = pc->slots;
        if (pc->slots > out->slots_max) out->slots_max = pc->slots;
        out->slots_fallback += pc->slots_fallback;
        out->stages += pc->nunits;
        if (pc->nunits > 1) out->pooled_stages += pc->nunits;
    }
    for (size_t k = 0; k < n; k++) rt[k] = all[idx[k]].runtime_ms;
    out->simulated_ms = clarity_replay_plan_run(&plan, rt);
    if (!idle_time(all, idx, n, &out->idle_ms, &out->actual_ms)) {
        clarity_replay_plan_free(&plan);
        free(rt);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory replaying a group");
    }
    out->has_error = out->actual_ms > 0;
    if (out->has_error) out->replay_error = fabs(out->simulated_ms - (double)out->actual_ms) / (double)out->actual_ms;

    for (int r = 0; r < CLARITY_RES_COUNT; r++) {
        struct clarity_blocked_without *w = &out->without[r];
        w->available = r == CLARITY_RES_NON_CPU ? out->cpu_tasks == n
                       : r == CLARITY_RES_STRAGGLERS ? dolly != NULL && any_input : true;
        if (!w->available) continue;
        for (size_t k = 0; k < n; k++) {
            const struct clarity_task_comp *c = &all[idx[k]];
            rt[k] = r == CLARITY_RES_STRAGGLERS ? dolly[idx[k]] : clarity_task_without(c, (enum clarity_resource)r);
            if (rt[k] > c->runtime_ms) rt[k] = c->runtime_ms;
            if (!(rt[k] >= 0)) rt[k] = 0;
            w->blocked_ms += c->runtime_ms - rt[k];
        }
        w->simulated_ms = clarity_replay_plan_run(&plan, rt);
        /* The replay is not monotone in every case (list scheduling anomalies): shorter
         * tasks can reorder slots and end later. Report no gain rather than a loss. */
        if (w->simulated_ms > out->simulated_ms) w->simulated_ms = out->simulated_ms;
        w->improvement = out->simulated_ms > 0 ? 1 - w->simulated_ms / out->simulated_ms : 0;
    }
    clarity_replay_plan_free(&plan);
    free(rt);
    return 0;
}

int clarity_blocked_analyze(const struct clarity_app *a, int kinds, enum clarity_slot_mode mode,
                            struct clarity_blocked_result *out, struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    out->slots = mode;
    struct clarity_groups g = {0};
    double *dolly = NULL;
    int rc = clarity_task_comps_collect(a, &out->comps, err);
    if (rc) return rc;
    dolly = malloc((out->comps.n ? out->comps.n : 1) * sizeof *dolly);
    if (!dolly) goto oom;
    if ((rc = clarity_dolly_runtimes(&out->comps, dolly, err)) ||
        (rc = clarity_groups_build(a, &out->comps, kinds, &g, err)))
        goto fail;
    out->groups = calloc(g.n ? g.n : 1, sizeof *out->groups);
    if (!out->groups) goto oom;
    for (size_t i = 0; i < g.n; i++) {
        struct clarity_blocked_group *o = &out->groups[out->ngroups++];
        o->kind = g.g[i].kind; o->id = g.g[i].id; o->row = g.g[i].row;
        rc = clarity_blocked_group_compute(a, &out->comps, g.g[i].tasks, g.g[i].ntasks, dolly, mode, o, err);
        if (rc) goto fail;
    }
    free(dolly);
    clarity_groups_free(&g);
    return 0;
oom:
    rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in the blocked-time analysis");
fail:
    free(dolly);
    clarity_groups_free(&g);
    clarity_blocked_free(out);
    return rc;
}

void clarity_blocked_free(struct clarity_blocked_result *r)
{
    clarity_task_comps_free(&r->comps);
    free(r->groups);
    memset(r, 0, sizeof *r);
}
