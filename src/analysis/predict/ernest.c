/* Ernest's model: terms, NNLS fit, leave-one-out cross-validation, prediction. The
 * experiment design and configuration choice are in ernest_design.c and ernest_choose.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/predict.h"
#include "math/nnls.h"
#include "util/stats.h"

static const char *const term_names[ERNEST_TERM_COUNT] = {
    "1", "s/m", "log(m)", "m", "sqrt(m)", "s^2/m", "n*log(n)^2/m", "s",
};

const char *clarity_ernest_term_name(enum ernest_term t)
{
    return (unsigned)t < ERNEST_TERM_COUNT ? term_names[t] : "?";
}

int clarity_ernest_term_parse(const char *name)
{
    static const struct { const char *alias; int t; } aliases[] = {
        {"const", ERNEST_CONST}, {"log m", ERNEST_LOG_M}, {"logm", ERNEST_LOG_M}, {"sqrt", ERNEST_SQRT_M},
        {"sqrtm", ERNEST_SQRT_M}, {"s2/m", ERNEST_S2_PER_M}, {"s^2/m", ERNEST_S2_PER_M},
        {"nlog2n/m", ERNEST_NLOG2N_PER_M},
    };
    for (int t = 0; t < ERNEST_TERM_COUNT; t++)
        if (!strcmp(name, term_names[t])) return t;
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
        if (!strcmp(name, aliases[i].alias)) return aliases[i].t;
    return -1;
}

void clarity_ernest_terms_default(struct ernest_terms *t)
{
    memset(t, 0, sizeof *t);
    t->t[0] = ERNEST_CONST;
    t->t[1] = ERNEST_S_PER_M;
    t->t[2] = ERNEST_LOG_M;
    t->t[3] = ERNEST_M;
    t->n = 4;
}

int clarity_ernest_terms_add(struct ernest_terms *t, const char *list, struct clarity_error *err)
{
    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ",");
        char name[32];
        if (len && len < sizeof name) {
            memcpy(name, p, len);
            name[len] = 0;
            int k = clarity_ernest_term_parse(name);
            if (k >= 0) {
                bool have = false;
                for (size_t i = 0; i < t->n; i++) have |= t->t[i] == (enum ernest_term)k;
                if (!have && t->n < ERNEST_MAX_TERMS) t->t[t->n++] = (enum ernest_term)k;
                p += len + (p[len] == ',');
                continue;
            }
        }
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, (uint64_t)(p - list), "unknown term '%.*s'",
                                 (int)len, p);
    }
    return 0;
}

double clarity_ernest_feature(const struct ernest_terms *t, size_t k, double s, double m)
{
    switch (t->t[k]) {
    case ERNEST_CONST: return 1;
    case ERNEST_S_PER_M: return s / m;
    case ERNEST_LOG_M: return log(m);
    case ERNEST_M: return m;
    case ERNEST_SQRT_M: return sqrt(m);
    case ERNEST_S2_PER_M: return s * s / m;
    case ERNEST_NLOG2N_PER_M: {
        double n = s * (t->rows > 0 ? t->rows : 1);
        double l = n > 1 ? log(n) : 0;
        return n * l * l / m;
    }
    case ERNEST_S: return s;
    default: return 0;
    }
}

double clarity_ernest_predict(const struct ernest_model *m, double scale, double machines)
{
    double t = 0;
    for (size_t k = 0; k < m->terms.n; k++) t += m->theta[k] * clarity_ernest_feature(&m->terms, k, scale, machines);
    return t;
}

/* NNLS on the points except `skip` (SIZE_MAX: none). */
static int fit_theta(const struct ernest_point *pts, size_t n, size_t skip, const struct ernest_terms *terms,
                     double *theta, struct clarity_nnls_result *res, struct clarity_error *err)
{
    size_t d = terms->n, rows = 0;
    double *A = malloc(sizeof *A * (n * d + n));
    if (!A) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory fitting Ernest");
    double *y = A + n * d;
    for (size_t i = 0; i < n; i++) {
        if (i == skip) continue;
        for (size_t k = 0; k < d; k++) A[rows * d + k] = clarity_ernest_feature(terms, k, pts[i].scale, pts[i].machines);
        y[rows++] = pts[i].seconds;
    }
    int rc = clarity_nnls(A, rows, d, y, theta, res, err);
    free(A);
    return rc;
}

static int loocv(struct ernest_model *m, struct clarity_error *err)
{
    size_t n = m->npoints;
    m->loo.predicted = calloc(n, sizeof *m->loo.predicted);
    double *pct = calloc(n, sizeof *pct);
    if (!m->loo.predicted || !pct) {
        free(pct);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory fitting Ernest");
    }
    if (n < 2) { free(pct); return 0; }
    struct ernest_model sub = {.terms = m->terms};
    size_t stride = n > ERNEST_LOO_MAX ? (n + ERNEST_LOO_MAX - 1) / ERNEST_LOO_MAX : 1;
    size_t k = (n + stride - 1) / stride;   /* points left out: 0, stride, 2 stride, ... */
    for (size_t i = 0, j = 0; i < n; i++) {
        if (i % stride) {
            m->loo.predicted[i] = NAN;
            continue;
        }
        int rc = fit_theta(m->points, n, i, &m->terms, sub.theta, NULL, err);
        if (rc) { free(pct); return rc; }
        double p = clarity_ernest_predict(&sub, m->points[i].scale, m->points[i].machines);
        double a = m->points[i].seconds, e = p - a;
        m->loo.predicted[i] = p;
        m->loo.press += e * e;
        pct[j] = a != 0 ? 100 * fabs(e) / fabs(a) : INFINITY;
        m->loo.mean_pct += pct[j] / (double)k;
        if (pct[j] > m->loo.max_pct) m->loo.max_pct = pct[j];
        j++;
    }
    m->loo.left_out = k;
    m->loo.median_pct = clarity_median_mean_mid(pct, k);
    m->loo.done = true;
    free(pct);
    return 0;
}

int clarity_ernest_fit(const struct ernest_point *pts, size_t n, const struct ernest_terms *terms,
               struct ernest_model *out, struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    out->terms = *terms;
    if (!n) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "no training point");
    if (!terms->n) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "no model term");
    out->points = malloc(sizeof *pts * n);
    if (!out->points) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory fitting Ernest");
    memcpy(out->points, pts, sizeof *pts * n);
    out->npoints = n;
    struct clarity_nnls_result res;
    int rc = fit_theta(pts, n, (size_t)-1, terms, out->theta, &res, err);
    if (rc) { clarity_ernest_model_free(out); return rc; }
    out->rnorm = res.rnorm;
    out->rss = res.rnorm * res.rnorm;
    out->rank_deficient = res.rank_deficient;
    out->few_points = n < terms->n + 1;
    out->min_scale = out->max_scale = pts[0].scale;
    out->min_machines = out->max_machines = pts[0].machines;
    for (size_t i = 0; i < n; i++) {
        out->mean_ratio += clarity_ernest_predict(out, pts[i].scale, pts[i].machines) / pts[i].seconds / (double)n;
        if (pts[i].scale < out->min_scale) out->min_scale = pts[i].scale;
        if (pts[i].scale > out->max_scale) out->max_scale = pts[i].scale;
        if (pts[i].machines < out->min_machines) out->min_machines = pts[i].machines;
        if (pts[i].machines > out->max_machines) out->max_machines = pts[i].machines;
    }
    if ((rc = loocv(out, err))) clarity_ernest_model_free(out);
    return rc;
}

void clarity_ernest_model_free(struct ernest_model *m)
{
    free(m->points);
    free(m->loo.predicted);
    m->points = NULL;
    m->loo.predicted = NULL;
}

/* The paper trains on up to 10% of the data and 16 machines and predicts the full data on 64:
 * that much is its normal use. Beyond it the model has not been validated. */
struct clarity_ernest_extrapolation clarity_ernest_extrapolation(const struct ernest_model *m, double scale, double machines)
{
    struct clarity_ernest_extrapolation e = {1, 1, false};
    if (m->max_scale > 0 && scale > m->max_scale) e.scale_factor = scale / m->max_scale;
    if (m->max_machines > 0 && machines > m->max_machines) e.machines_factor = machines / m->max_machines;
    e.far = e.scale_factor > 10 || e.machines_factor > 4;
    return e;
}

void clarity_ernest_interval(const struct ernest_model *m, double scale, double machines, double predicted_s, double *low_s,
                             double *high_s)
{
    struct clarity_ernest_extrapolation e = clarity_ernest_extrapolation(m, scale, machines);
    double f = e.scale_factor > e.machines_factor ? e.scale_factor : e.machines_factor;
    double loo = m->loo.done && isfinite(m->loo.max_pct) ? m->loo.max_pct / 100 : 0;
    double h = (loo > 0.05 ? loo : 0.05) * (1 + log(f > 1 ? f : 1));
    double lo = predicted_s * (1 - h);
    *low_s = lo > 0 ? lo : 0;
    *high_s = predicted_s * (1 + h);
}
