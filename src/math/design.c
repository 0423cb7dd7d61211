/* Spectral projected gradient (Birgin, Martinez, Raydan) for the A-optimal design. The
 * Barzilai-Borwein step adapts to the objective's curvature, which differs by orders of
 * magnitude between candidates; a non-monotone Armijo search keeps it globally convergent.
 * Steps that make M singular get an infinite objective and are backtracked. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "math/design.h"
#include "math/linalg.h"
#include "util/stats.h"

#define MAX_D 16

double clarity_design_objective(const struct clarity_design_problem *p, const double *lambda, double *grad)
{
    size_t d = p->d;
    if (d > MAX_D) return INFINITY;
    double L[MAX_D * MAX_D] = {0};
    for (size_t i = 0; i < p->n; i++) {
        if (lambda[i] == 0) continue;
        const double *a = p->a + i * d;
        for (size_t r = 0; r < d; r++)
            for (size_t c = 0; c <= r; c++) L[r * d + c] += lambda[i] * a[r] * a[c];
    }
    for (size_t r = 0; r < d; r++)
        for (size_t c = r + 1; c < d; c++) L[r * d + c] = L[c * d + r];
    if (clarity_cholesky(L, d, NULL)) return INFINITY;   /* singular: no finite objective */
    double f = 0, e[MAX_D], col[MAX_D];
    for (size_t k = 0; k < d; k++) {         /* trace(M^-1) = sum_k e_k^T M^-1 e_k */
        memset(e, 0, sizeof e);
        e[k] = 1;
        clarity_cholesky_solve(L, d, e, col);
        f += col[k];
    }
    if (!(f > 0) || !isfinite(f)) return INFINITY;
    if (grad)
        for (size_t i = 0; i < p->n; i++) {
            clarity_cholesky_solve(L, d, p->a + i * d, col);
            double s = 0;
            for (size_t k = 0; k < d; k++) s += col[k] * col[k];
            grad[i] = -s;
        }
    return f;
}

static double clipped_cost(const double *v, const double *cost, size_t n, double tau)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        double x = v[i] - tau * cost[i];
        s += cost[i] * (x < 0 ? 0 : x > 1 ? 1 : x);
    }
    return s;
}

void clarity_design_project(const double *v, const double *cost, size_t n, double budget, double *out)
{
    double tau = 0;
    if (clipped_cost(v, cost, n, 0) > budget) {
        /* c^T clip(v - tau c) is piecewise linear and non-increasing in tau: bisect for the
         * tau that spends exactly the budget. */
        double lo = 0, hi = 0;
        for (size_t i = 0; i < n; i++)
            if (v[i] / cost[i] > hi) hi = v[i] / cost[i];
        for (int it = 0; it < 200 && hi - lo > 1e-17 * (hi > 1 ? hi : 1); it++) {
            double mid = 0.5 * (lo + hi);
            if (clipped_cost(v, cost, n, mid) > budget) lo = mid;
            else hi = mid;
        }
        tau = hi;
    }
    for (size_t i = 0; i < n; i++) {
        double x = v[i] - tau * cost[i];
        out[i] = x < 0 ? 0 : x > 1 ? 1 : x;
    }
}

static double stationarity(const struct clarity_design_problem *p, const double *x, const double *g, double *tmp)
{
    for (size_t i = 0; i < p->n; i++) tmp[i] = x[i] - g[i];
    clarity_design_project(tmp, p->cost, p->n, p->budget, tmp);
    double m = 0;
    for (size_t i = 0; i < p->n; i++)
        if (fabs(tmp[i] - x[i]) > m) m = fabs(tmp[i] - x[i]);
    return m;
}

int clarity_design_solve(const struct clarity_design_problem *p, struct clarity_design_result *r,
                         struct clarity_error *err)
{
    memset(r, 0, sizeof *r);
    size_t n = p->n;
    if (!n) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "no candidate");
    if (p->d > MAX_D) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "more than %d features", MAX_D);
    double *buf = malloc(sizeof *buf * n * 6);
    r->lambda = malloc(sizeof *r->lambda * n);
    if (!buf || !r->lambda) {
        free(buf);
        clarity_design_result_free(r);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in the experiment design");
    }
    double *x = r->lambda, *g = buf, *xn = buf + n, *gn = buf + 2 * n, *dir = buf + 3 * n, *tmp = buf + 4 * n;
    double csum = 0;
    for (size_t i = 0; i < n; i++) csum += p->cost[i];
    double start = csum > p->budget ? p->budget / csum : 1;
    for (size_t i = 0; i < n; i++) x[i] = start;
    double f = clarity_design_objective(p, x, g);
    if (!isfinite(f)) {
        free(buf);
        clarity_design_result_free(r);
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "the candidates do not span every feature");
    }

    enum { MEMORY = 10, MAXIT = 20000 };
    double hist[MEMORY];
    for (int k = 0; k < MEMORY; k++) hist[k] = f;
    double alpha = 1;
    {
        double gmax = 0;
        for (size_t i = 0; i < n; i++) if (fabs(g[i]) > gmax) gmax = fabs(g[i]);
        if (gmax > 0) alpha = 1 / gmax;
    }
    int it;
    double st = stationarity(p, x, g, tmp);
    for (it = 0; it < MAXIT && st >= 1e-13; it++) {
        for (size_t i = 0; i < n; i++) tmp[i] = x[i] - alpha * g[i];
        clarity_design_project(tmp, p->cost, n, p->budget, tmp);
        double gd = 0;
        for (size_t i = 0; i < n; i++) { dir[i] = tmp[i] - x[i]; gd += g[i] * dir[i]; }
        double fref = hist[0];
        for (int k = 1; k < MEMORY; k++) if (hist[k] > fref) fref = hist[k];
        double t = 1, fn = INFINITY;
        for (int ls = 0; ls < 60; ls++) {
            for (size_t i = 0; i < n; i++) xn[i] = x[i] + t * dir[i];
            fn = clarity_design_objective(p, xn, gn);
            if (isfinite(fn) && fn <= fref + 1e-4 * t * gd) break;
            t *= 0.5;
        }
        if (!isfinite(fn)) break;
        double ss = 0, sy = 0, rel = fabs(f - fn) / (fabs(f) > 0 ? fabs(f) : 1);
        for (size_t i = 0; i < n; i++) {
            double s = xn[i] - x[i], y = gn[i] - g[i];
            ss += s * s;
            sy += s * y;
        }
        memcpy(x, xn, sizeof *x * n);
        memcpy(g, gn, sizeof *g * n);
        f = fn;
        hist[it % MEMORY] = f;
        alpha = sy > 0 ? ss / sy : 1e10;
        if (alpha < 1e-12) alpha = 1e-12;
        if (alpha > 1e12) alpha = 1e12;
        st = stationarity(p, x, g, tmp);
        if (ss == 0 && rel == 0) break;
    }
    r->f = f;
    r->iterations = it;
    r->stationarity = st;
    r->converged = st < 1e-8;
    for (size_t i = 0; i < n; i++) r->spent += p->cost[i] * x[i];
    size_t nf = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] > 1e-6 && x[i] < 1 - 1e-6) tmp[nf++] = -g[i] / p->cost[i];
    if (nf) {
        r->nu = clarity_median_upper(tmp, nf);
    }
    free(buf);
    return 0;
}

void clarity_design_result_free(struct clarity_design_result *r)
{
    free(r->lambda);
    r->lambda = NULL;
}
