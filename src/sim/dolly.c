/* Dolly's rule, stage by stage (dolly.h). */
#include <stdlib.h>
#include "clarity/sim.h"
#include "util/stats.h"

int64_t clarity_task_input_bytes(const struct clarity_task_comp *c)
{
    return c->shuffle_read_bytes > 0 ? c->shuffle_read_bytes : c->input_bytes > 0 ? c->input_bytes : 0;
}

/* runtime per input byte; the caller only rates tasks with input */
static double rate(const struct clarity_task_comp *c)
{
    double r = c->runtime_ms;
    return (r > 0 ? r : 0) / (double)clarity_task_input_bytes(c);
}

int clarity_dolly_stage(const struct clarity_task_comp *all, const size_t *idx, size_t n, double *runtime,
                        struct clarity_error *err)
{
    double *buf = malloc((n ? n : 1) * sizeof *buf);
    if (!buf) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory applying Dolly's rule");
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if (clarity_task_input_bytes(&all[idx[k]]) > 0) buf[m++] = rate(&all[idx[k]]);
    double med = clarity_median_mean_mid(buf, m);
    free(buf);
    for (size_t k = 0; k < n; k++) {
        const struct clarity_task_comp *c = &all[idx[k]];
        int64_t in = clarity_task_input_bytes(c);
        runtime[k] = c->runtime_ms;
        if (in > 0 && med > 0 && c->runtime_ms / (double)in > med) runtime[k] = (double)in * med;
    }
    return 0;
}

struct srow { uint32_t stage; size_t i; };

static int srow_cmp(const void *pa, const void *pb)
{
    const struct srow *a = pa, *b = pb;
    if (a->stage != b->stage) return a->stage < b->stage ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

int clarity_tasks_by_stage(const struct clarity_task_comps *comps, size_t **idx_out, size_t **starts_out,
                           size_t *nstages, struct clarity_error *err)
{
    size_t n = comps->n;
    struct srow *v = malloc((n ? n : 1) * sizeof *v);
    size_t *idx = malloc((n ? n : 1) * sizeof *idx), *starts = malloc((n + 1) * sizeof *starts);
    if (!v || !idx || !starts) {
        free(v); free(idx); free(starts);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory grouping tasks by stage");
    }
    for (size_t i = 0; i < n; i++) v[i] = (struct srow){comps->t[i].stage, i};
    qsort(v, n, sizeof *v, srow_cmp);
    size_t ns = 0;
    for (size_t i = 0; i < n; i++) {
        idx[i] = v[i].i;
        if (i == 0 || v[i].stage != v[i - 1].stage) starts[ns++] = i;
    }
    starts[ns] = n;
    free(v);
    *idx_out = idx;
    *starts_out = starts;
    *nstages = ns;
    return 0;
}

int clarity_dolly_runtimes(const struct clarity_task_comps *comps, double *runtime, struct clarity_error *err)
{
    size_t *idx, *starts, ns;
    int rc = clarity_tasks_by_stage(comps, &idx, &starts, &ns, err);
    if (rc) return rc;
    double *tmp = malloc((comps->n ? comps->n : 1) * sizeof *tmp);
    if (!tmp) {
        free(idx); free(starts);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory applying Dolly's rule");
    }
    for (size_t s = 0; s < ns && !rc; s++) {
        size_t b = starts[s], m = starts[s + 1] - b;
        rc = clarity_dolly_stage(comps->t, idx + b, m, tmp, err);
        for (size_t k = 0; k < m && !rc; k++) runtime[idx[b + k]] = tmp[k];
    }
    free(tmp); free(idx); free(starts);
    return rc;
}
