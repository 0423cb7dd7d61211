/* LADRA's victim host j' and stage i*. j' is the host whose tasks spent the most time beyond
 * their stage's median, not the one with the most smoothed-abnormal tasks: measured on synth
 * runs, that picked the faulty host more often (include/clarity/anomalies.h). Factors are
 * computed for normal runs too, since the GRNN trains on them. */
#include <stdlib.h>
#include <string.h>
#include "clarity/anomalies.h"
#include "util/stats.h"

static int by_stage(const void *a, const void *b, void *ctx)
{
    const struct ladra_task *t = ctx;
    int32_t x = t[*(const size_t *)a].stage, y = t[*(const size_t *)b].stage;
    return x != y ? (x < y ? -1 : 1) : (*(const size_t *)a < *(const size_t *)b ? -1 : 1);
}

/* Median duration of every stage (0 for a stage with no task). */
static int stage_medians(const struct ladra_input *in, double *med)
{
    size_t n = in->ntasks;
    size_t *ix = malloc((n ? n : 1) * sizeof *ix);
    double *d = malloc((n ? n : 1) * sizeof *d);
    if (!ix || !d) return free(ix), free(d), -1;
    for (size_t i = 0; i < n; i++) ix[i] = i;
    qsort_r(ix, n, sizeof *ix, by_stage, in->tasks);
    for (size_t s = 0; s < in->nstages; s++) med[s] = 0;
    for (size_t a = 0; a < n;) {
        size_t b = a;
        int32_t s = in->tasks[ix[a]].stage;
        while (b < n && in->tasks[ix[b]].stage == s) b++;
        size_t m = b - a;
        for (size_t i = 0; i < m; i++) d[i] = (double)(in->tasks[ix[a + i]].end_ms - in->tasks[ix[a + i]].start_ms);
        med[s] = clarity_median_mean_mid(d, m);
        a = b;
    }
    free(ix), free(d);
    return 0;
}

int clarity_ladra_victim(const struct ladra_input *in, int32_t force, int32_t *victim, int32_t *stage, double *host_excess,
                 double *stage_med, struct clarity_error *err)
{
    size_t nh = in->nhosts, ns = in->nstages;
    *victim = 0, *stage = 0;
    double *med = calloc(ns ? ns : 1, sizeof *med), *ex = calloc(nh ? nh : 1, sizeof *ex);
    double *sx = calloc((ns ? ns : 1) * (nh ? nh : 1), sizeof *sx), *abn = calloc((ns ? ns : 1), sizeof *abn);
    int rc = 0;
    if (!med || !ex || !sx || !abn || stage_medians(in, med)) {
        rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in LADRA");
        goto out;
    }
    for (size_t i = 0; i < in->ntasks; i++) {
        const struct ladra_task *t = &in->tasks[i];
        double e = (double)(t->end_ms - t->start_ms) - med[t->stage];
        if (e > 0) ex[t->host] += e, sx[(size_t)t->stage * nh + (size_t)t->host] += e;
    }
    /* j': the most excess time. Ties (a perfectly balanced run) go to the lowest index, so
     * the choice is deterministic. */
    int32_t v = 0;
    for (size_t j = 1; j < nh; j++)
        if (ex[j] > ex[v]) v = (int32_t)j;
    if (force >= 0 && (size_t)force < nh) v = force;
    /* i*: the stage with the most abnormal tasks on j', else the most excess time of j'. */
    for (size_t i = 0; i < in->ntasks; i++) {
        const struct ladra_task *t = &in->tasks[i];
        if (t->host == v && t->smooth && !t->skew_suspect) abn[t->stage]++;
    }
    int32_t st = 0;
    for (size_t s = 1; s < ns; s++)
        if (abn[s] > abn[st] || (abn[s] == abn[st] && sx[s * nh + (size_t)v] > sx[(size_t)st * nh + (size_t)v]))
            st = (int32_t)s;
    *victim = v, *stage = st;
    if (host_excess) memcpy(host_excess, ex, nh * sizeof *ex);
    if (stage_med) memcpy(stage_med, med, ns * sizeof *med);
out:
    free(med), free(ex), free(sx), free(abn);
    return rc;
}
