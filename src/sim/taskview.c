/* The successful task attempts of an application, indexed by stage attempt: a counting sort of
 * row numbers, so analyses can walk one stage at a time without copying the task table. */
#include <stdlib.h>
#include <string.h>
#include "clarity/sim.h"

int clarity_task_view_build(const struct clarity_app *a, struct clarity_task_view *v, struct clarity_error *err)
{
    memset(v, 0, sizeof *v);
    v->app = a;
    size_t n = a->tasks.n, ns = a->nstages;
    if (n > UINT32_MAX)
        return clarity_error_set(err, CLARITY_EFORMAT, NULL, 0, 0, "%zu task attempts: more than a 32-bit index holds", n);
    v->nstages = ns;
    v->start = calloc(ns + 2, sizeof *v->start);
    if (!v->start) goto oom;
    /* pass 1: successful tasks per stage (counted one slot ahead, then summed into starts) */
    struct clarity_task_counts *k = &v->counts;
    for (size_t i = 0; i < n; i++) {
        int end = (int)clarity_icol_get(&a->tasks.end, i);
        if (end != CLARITY_END_SUCCESS) {
            if (end == CLARITY_END_RUNNING) k->without_end++;
            else if (end == CLARITY_END_KILLED) k->killed++;
            else if (end == CLARITY_END_OTHER || end == CLARITY_END_RESUBMITTED) k->other_end++;
            else k->failed++;
            continue;
        }
        k->n++;
        if (clarity_task_flags(a, i) & CLARITY_TF_SPECULATIVE) k->speculative++;
        v->start[clarity_icol_get(&a->tasks.stage, i) + 2]++;
    }
    for (size_t s = 0; s < ns; s++) {
        if (v->start[s + 2] > v->max_stage) v->max_stage = v->start[s + 2];
        v->start[s + 2] += v->start[s + 1];
    }
    v->rows = malloc((k->n ? k->n : 1) * sizeof *v->rows);
    if (!v->rows) goto oom;
    /* pass 2: start[s + 1] is the fill position of stage s; it ends as stage s + 1's start */
    for (size_t i = 0; i < n; i++)
        if (clarity_icol_get(&a->tasks.end, i) == CLARITY_END_SUCCESS)
            v->rows[v->start[clarity_icol_get(&a->tasks.stage, i) + 1]++] = (uint32_t)i;
    return 0;
oom:
    clarity_task_view_free(v);
    return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory indexing tasks");
}

void clarity_task_view_free(struct clarity_task_view *v)
{
    free(v->rows);
    free(v->start);
    memset(v, 0, sizeof *v);
}

void clarity_task_view_stage_comps(const struct clarity_task_view *v, size_t s, struct clarity_task_comp *c)
{
    const uint32_t *r = clarity_task_view_stage_rows(v, s);
    size_t m = clarity_task_view_stage_size(v, s);
    for (size_t k = 0; k < m; k++) clarity_task_comp_from_row(v->app, r[k], &c[k]);
}
