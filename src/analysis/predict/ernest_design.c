/* Which small runs to make: Ernest's A-optimal experiment design over a (scale, machines)
 * candidate grid, with ref-code's defaults (amplab/ernest expt_design.py): 20 scales,
 * cost (s / s_min) / m, budget 20, features divided by the candidates' column means, and
 * every candidate with lambda > 0.3 selected. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "math/design.h"
#include "clarity/predict.h"
#include "math/linalg.h"

void clarity_ernest_design_defaults(struct ernest_design_options *o)
{
    memset(o, 0, sizeof *o);
    o->points = 20;
    o->machines_min = 1;
    o->machines_max = 16;
    o->cores_per_machine = 2;
    o->budget = 20;
    o->threshold = 0.3;
    clarity_ernest_terms_default(&o->terms);
}

static int add_candidate(struct ernest_design *d, size_t *cap, double s, double m)
{
    if (d->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        void *p = realloc(d->c, nc * sizeof *d->c);
        if (!p) return -1;
        d->c = p;
        *cap = nc;
    }
    d->c[d->n++] = (struct ernest_candidate){.scale = s, .machines = m};
    return 0;
}

static int build_grid(const struct ernest_design_options *o, struct ernest_design *d)
{
    size_t cap = 0;
    int np = o->points > 1 ? o->points : 1;
    for (int k = 0; k < np; k++) {
        /* numpy.linspace: start + k * step, the last point exactly the end */
        double s = np == 1 ? o->scale_min
                 : k == np - 1 ? o->scale_max
                 : o->scale_min + k * ((o->scale_max - o->scale_min) / (np - 1));
        for (int m = o->machines_min; m <= o->machines_max; m = o->powers_of_two ? m * 2 : m + 1) {
            /* ref-code's filter: at least one partition per core (numpy round = rint) */
            if (o->total_parts > 0 && rint(s * o->total_parts) < (double)o->cores_per_machine * m) continue;
            if (add_candidate(d, &cap, s, m) < 0) return -1;
            struct ernest_candidate *c = &d->c[d->n - 1];
            c->cost = (s / o->scale_min) / m;
            if (o->total_parts > 0) c->partitions = (long)ceil(s * o->total_parts);
            if (m <= 0) break;
        }
    }
    return 0;
}

/* *rank of the selected rows' features (ascending order of selection). */
static int selected_rank(const double *a, size_t d, const size_t *order, size_t k, int *rank,
                         struct clarity_error *err)
{
    double *A = malloc(sizeof *A * (k * d + k + d));
    if (!A) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    double *b = A + k * d, *x = b + k;
    for (size_t i = 0; i < k; i++) {
        memcpy(A + i * d, a + order[i] * d, sizeof *A * d);
        b[i] = 0;
    }
    int rc = clarity_lsq_solve(A, k, d, b, x, NULL, rank, err);
    free(A);
    return rc;
}

int clarity_ernest_design_run(const struct ernest_design_options *o, struct ernest_design *out, struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    if (!(o->scale_min > 0) || o->scale_max < o->scale_min || o->machines_min < 1 || o->machines_max < o->machines_min)
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0,
                                 "the scale range must be positive and the machine range start at 1 or more");
    if (build_grid(o, out) < 0) {
        clarity_ernest_design_free(out);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    }
    size_t n = out->n, d = o->terms.n;
    if (!n)
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0,
                                 "no candidate passes the one-partition-per-core filter");
    double *a = malloc(sizeof *a * n * d), *cost = malloc(sizeof *cost * n);
    out->order = malloc(sizeof *out->order * n);
    if (!a || !cost || !out->order) {
        free(a); free(cost); clarity_ernest_design_free(out);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    }
    double mean[ERNEST_MAX_TERMS] = {0};
    for (size_t i = 0; i < n; i++) {
        cost[i] = out->c[i].cost;
        for (size_t k = 0; k < d; k++) {
            a[i * d + k] = clarity_ernest_feature(&o->terms, k, out->c[i].scale, out->c[i].machines);
            mean[k] += a[i * d + k] / (double)n;
        }
    }
    if (!o->no_normalize)
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < d; k++)
                if (mean[k] != 0) a[i * d + k] /= mean[k];
    struct clarity_design_problem p = {.a = a, .n = n, .d = d, .cost = cost, .budget = o->budget};
    struct clarity_design_result r;
    int rc = clarity_design_solve(&p, &r, err);
    if (rc) {
        free(a); free(cost); clarity_ernest_design_free(out);
        if (rc == CLARITY_ENOMEM) return rc;
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0,
                                 "the candidates cannot determine every term (e.g. one machine count only makes log(m) "
                                 "and m collinear with the constant): widen the machine or scale range");
    }
    out->f = r.f;
    out->nu = r.nu;
    out->iterations = r.iterations;
    out->converged = r.converged;
    for (size_t i = 0; i < n; i++) out->c[i].lambda = r.lambda[i];
    clarity_design_result_free(&r);

    /* every candidate ordered by lambda descending, cheaper first on ties, then index */
    for (size_t i = 0; i < n; i++) out->order[i] = i;
    for (size_t i = 1; i < n; i++) {             /* insertion sort: stable, n is small */
        size_t v = out->order[i], j = i;
        while (j > 0) {
            const struct ernest_candidate *x = &out->c[out->order[j - 1]], *y = &out->c[v];
            bool before = y->lambda > x->lambda || (y->lambda == x->lambda && y->cost < x->cost);
            if (!before) break;
            out->order[j] = out->order[j - 1];
            j--;
        }
        out->order[j] = v;
    }
    size_t k = 0;
    while (k < n && out->c[out->order[k]].lambda > o->threshold) k++;
    /* the selection must determine the model; pad in lambda order when it does not */
    while (k < n) {
        if (k >= d) {
            int rank = 0;
            if ((rc = selected_rank(a, d, out->order, k, &rank, err))) break;
            if (rank >= (int)d) break;
        }
        k++;
        out->rank_padded = true;
    }
    double *ones = rc ? NULL : calloc(n, sizeof *ones);
    if (!ones) {
        free(a); free(cost); clarity_ernest_design_free(out);
        return rc ? rc : clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    }
    out->nselected = k;
    for (size_t i = 0; i < k; i++) {
        out->c[out->order[i]].selected = true;
        out->selected_cost += out->c[out->order[i]].cost;
        ones[out->order[i]] = 1;
    }
    out->selected_trace = clarity_design_objective(&p, ones, NULL);
    free(ones);
    free(a);
    free(cost);
    return 0;
}

void clarity_ernest_design_free(struct ernest_design *d)
{
    free(d->c);
    free(d->order);
    d->c = NULL;
    d->order = NULL;
}
