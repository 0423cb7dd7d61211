/* Straggler analysis over a whole application: every stage attempt, then totals per job,
 * SQL query and application, and the slowest tasks. */
#include <stdlib.h>
#include <string.h>
#include "clarity/stragglers.h"

struct slow { double runtime; size_t i; };

static int slow_cmp(const void *pa, const void *pb)
{
    const struct slow *a = pa, *b = pb;
    if (a->runtime != b->runtime) return a->runtime > b->runtime ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

static int stage_order(const void *pa, const void *pb, void *ctx)
{
    const struct clarity_app *a = ctx;
    const struct clarity_stage *x = &a->stages[((const struct clarity_stage_strag *)pa)->stage];
    const struct clarity_stage *y = &a->stages[((const struct clarity_stage_strag *)pb)->stage];
    if (x->stage_id != y->stage_id) return x->stage_id < y->stage_id ? -1 : 1;
    return (x->attempt > y->attempt) - (x->attempt < y->attempt);
}

int clarity_stragglers_analyze(const struct clarity_app *a, int kinds, size_t top_n,
                               struct clarity_stragglers_result *out, struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = clarity_task_comps_collect(a, &out->comps, err);
    if (rc) return rc;
    size_t n = out->comps.n;
    size_t *idx = NULL, *starts = NULL, ns = 0;
    out->flags = calloc(n ? n : 1, sizeof *out->flags);
    out->ratio = calloc(n ? n : 1, sizeof *out->ratio);
    uint16_t *f = malloc((n ? n : 1) * sizeof *f);
    double *r = malloc((n ? n : 1) * sizeof *r);
    long *stage_slot = NULL;
    struct clarity_groups groups = {0};
    if (!out->flags || !out->ratio || !f || !r) goto oom;
    if ((rc = clarity_tasks_by_stage(&out->comps, &idx, &starts, &ns, err))) goto fail;
    out->stages = calloc(ns ? ns : 1, sizeof *out->stages);
    if (!out->stages) goto oom;
    for (size_t s = 0; s < ns; s++) {
        size_t b = starts[s], m = starts[s + 1] - b;
        if ((rc = clarity_stragglers_stage(out->comps.t, idx + b, m, &out->stages[s], f, r, err))) goto fail;
        for (size_t k = 0; k < m; k++) {
            out->flags[idx[b + k]] = f[k];
            out->ratio[idx[b + k]] = r[k];
        }
    }
    out->nstages = ns;
    qsort_r(out->stages, ns, sizeof *out->stages, stage_order, (void *)a);

    stage_slot = malloc((a->nstages ? a->nstages : 1) * sizeof *stage_slot);
    if (!stage_slot) goto oom;
    if ((rc = clarity_groups_build(a, &out->comps, kinds, &groups, err))) goto fail;
    for (size_t s = 0; s < a->nstages; s++) stage_slot[s] = -1;
    for (size_t s = 0; s < ns; s++) stage_slot[out->stages[s].stage] = (long)s;
    out->groups = calloc(groups.n ? groups.n : 1, sizeof *out->groups);
    if (!out->groups) goto oom;
    for (size_t gi = 0; gi < groups.n; gi++) {
        const struct clarity_group *g = &groups.g[gi];
        struct clarity_straggler_group *o = &out->groups[out->ngroups++];
        o->kind = g->kind; o->id = g->id; o->row = g->row;
        o->tasks = g->ntasks; o->stages = g->nstages;
        for (size_t k = 0; k < g->ntasks; k++) {
            uint16_t fl = out->flags[g->tasks[k]];
            if (!(fl & CLARITY_SF_STRAGGLER)) continue;
            o->stragglers++;
            if (fl & CLARITY_SC_THESIS_MASK) o->explained_thesis++;
            if (fl & ((1u << CLARITY_SC_COUNT) - 1)) o->explained++;
            for (int q = 0; q < CLARITY_SC_COUNT; q++)
                if (fl & (1u << q)) o->by_cause[q]++;
        }
        /* stage attempts of the group that had a straggler analysis */
        for (size_t k = 0; k < g->ntasks; k++) {
            long s = stage_slot[out->comps.t[g->tasks[k]].stage];
            if (s >= 0 && !out->stages[s].skipped) { stage_slot[out->comps.t[g->tasks[k]].stage] = -2 - s; o->stages_analyzed++; }
        }
        for (size_t k = 0; k < g->ntasks; k++) {
            long s = stage_slot[out->comps.t[g->tasks[k]].stage];
            if (s <= -2) stage_slot[out->comps.t[g->tasks[k]].stage] = -2 - s;
        }
    }

    if (top_n > n) top_n = n;
    struct slow *sl = malloc((n ? n : 1) * sizeof *sl);
    out->top = malloc((top_n ? top_n : 1) * sizeof *out->top);
    if (!sl || !out->top) { free(sl); goto oom; }
    for (size_t i = 0; i < n; i++) sl[i] = (struct slow){out->comps.t[i].runtime_ms, i};
    qsort(sl, n, sizeof *sl, slow_cmp);
    for (size_t i = 0; i < top_n; i++) out->top[i] = sl[i].i;
    out->ntop = top_n;
    free(sl);

    free(f); free(r); free(idx); free(starts); free(stage_slot);
    clarity_groups_free(&groups);
    return 0;
oom:
    rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory analysing stragglers");
fail:
    free(f); free(r); free(idx); free(starts); free(stage_slot);
    clarity_groups_free(&groups);
    clarity_stragglers_free(out);
    return rc;
}

void clarity_stragglers_free(struct clarity_stragglers_result *r)
{
    clarity_task_comps_free(&r->comps);
    free(r->flags);
    free(r->ratio);
    free(r->stages);
    free(r->groups);
    free(r->top);
    memset(r, 0, sizeof *r);
}
