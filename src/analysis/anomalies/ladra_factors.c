/* The seven LADRA factors (paper section 5, Eq. 3-10). Each is about 1 on a
 * healthy run and grows with the victim's trouble. Without GC logs, DCO, MCS and DMC are
 * approximated from task metrics and flagged (the event-log-only mode). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/anomalies.h"

double clarity_ladra_dar(const double *count, size_t nh, size_t v, bool *clamped)
{
    if (nh < 2) return 1;
    double others = 0, kv = count[v];
    for (size_t j = 0; j < nh; j++) others += j == v ? 0 : count[j];
    if (kv <= 0) kv = 1, *clamped = true;   /* zero counts clamp to 1 task, flagged */
    return others / (double)(nh - 1) / kv;
}

double clarity_ladra_dad(const double *avg, size_t nh, size_t v, bool *clamped)
{
    if (nh < 2) return 1;
    double others = 0;
    for (size_t j = 0; j < nh; j++) others += j == v ? 0 : avg[j];
    others /= (double)(nh - 1);
    if (others <= 0) others = 1, *clamped = true;
    return avg[v] / others;
}

double clarity_ladra_dco_node(const double *real, const double *user, const double *sys, size_t n)
{
    double s = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        double cpu = user[i] + sys[i];
        if (cpu < 0.01) continue;   /* skip user+sys < 0.01 s: 0.00+0.00 is common and says nothing */
        s += real[i] / cpu, k++;
    }
    return k ? s / (double)k : -1;
}

double clarity_ladra_trapezoid(const double *x, const double *y, size_t n)
{
    double a = 0;
    for (size_t i = 1; i < n; i++) a += (x[i] - x[i - 1]) * (y[i] + y[i - 1]) / 2;
    return a;
}

double clarity_ladra_ars(const double *p, size_t nh)
{
    double prod = 1;
    for (size_t j = 0; j < nh; j++) prod *= p[j];
    return exp((double)nh * prod);
}

double clarity_ladra_dmc_node(const double *x, const double *y, size_t n)
{
    if (n < 2) return -1;
    double h = 0;
    for (size_t i = 1; i < n; i++) {
        double dx = x[i] - x[i - 1];
        if (dx <= 0) continue;
        double m = (y[i] - y[i - 1]) / dx, v = exp(-fabs(m)) * dx;
        h = v > h ? v : h;
    }
    return h;
}

/* ---- the whole vector ---- */
static bool overlaps(const struct ladra_task *t, int64_t a, int64_t b) { return t->start_ms < b && t->end_ms > a; }
static double dur(const struct ladra_task *t) { return (double)(t->end_ms - t->start_ms); }

/* Area under a node's heap-after-GC curve (the live data, KB) over [a, b], by trapezoids. Every
 * node is integrated over the same window, a simplification of the paper's separate stable
 * points: piecewise linear through the points, held flat before the first and after the last so
 * every node covers the same span. */
static double curve_area(const double *x, const double *y, size_t n, double a, double b)
{
    if (!n || b <= a) return 0;
    double area = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        double x0 = fmax(x[i], a), x1 = fmin(x[i + 1], b);
        if (x1 <= x0 || x[i + 1] <= x[i]) continue;
        double s = (y[i + 1] - y[i]) / (x[i + 1] - x[i]);
        area += (x1 - x0) * ((y[i] + s * (x0 - x[i])) + (y[i] + s * (x1 - x[i]))) / 2;
    }
    if (a < x[0]) area += (fmin(x[0], b) - a) * y[0];
    if (b > x[n - 1]) area += (b - fmax(x[n - 1], a)) * y[n - 1];
    return area;
}

struct hostgc { double *x, *y, *frac, *real, *user, *sys; size_t n; };

int clarity_ladra_factors_compute(const struct ladra_input *in, const struct ladra_period *p, size_t np, int32_t victim,
                          struct ladra_factors *out, struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    size_t nh = in->nhosts, ns = in->nstages, n = in->ntasks;
    for (int f = 0; f < LADRA_NFEAT; f++) out->f[f] = 1;
    if (!n || !nh) return 0;
    if (nh < 2) out->flags |= LADRA_SINGLE_HOST;
    int rc = 0;
    double *a = calloc(nh * 8, sizeof *a);
    double *med = calloc(ns ? ns : 1, sizeof *med);
    int64_t *first = malloc(ns * nh * sizeof *first + 1);
    double *firstd = malloc(ns * nh * sizeof *firstd + 1);
    struct hostgc *hg = calloc(nh, sizeof *hg);
    int32_t v, st;
    if (!a || !med || !first || !firstd || !hg) {
        rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in LADRA");
        goto out;
    }
    if ((rc = clarity_ladra_victim(in, victim, &v, &st, NULL, med, err))) goto out;
    out->victim = v, out->stage = st;
    double *cnt = a, *sum = a + nh, *prob_n = a + 2 * nh, *prob_d = a + 3 * nh, *run = a + 4 * nh, *cpu = a + 5 * nh,
           *gc = a + 6 * nh, *fw = a + 7 * nh;

    /* Window for ARS, MCS, DCO and DMC: [earliest start, latest end] of the victim's abnormal
     * periods, else the whole application. */
    int64_t ws = INT64_MAX, we = INT64_MIN;
    for (size_t i = 0; i < np; i++)
        if (p[i].host == v) ws = p[i].start_ms < ws ? p[i].start_ms : ws, we = p[i].end_ms > we ? p[i].end_ms : we;
    if (ws == INT64_MAX) ws = in->app_start_ms, we = in->app_end_ms;
    if (we <= ws) we = ws + 1;
    out->win_start_ms = ws, out->win_end_ms = we;

    for (size_t i = 0; i < ns * nh; i++) first[i] = INT64_MAX, firstd[i] = 0;
    for (size_t i = 0; i < n; i++) {
        const struct ladra_task *t = &in->tasks[i];
        if (t->stage == st) cnt[t->host]++, sum[t->host] += dur(t);
        size_t k = (size_t)t->stage * nh + (size_t)t->host;
        if (t->start_ms < first[k]) first[k] = t->start_ms, firstd[k] = dur(t);
        if (overlaps(t, ws, we)) {
            prob_d[t->host]++;
            prob_n[t->host] += t->smooth && !t->skew_suspect;
            if (t->run_ms > 0 && t->cpu_ms >= 0) run[t->host] += (double)t->run_ms, cpu[t->host] += (double)t->cpu_ms;
            if (t->gc_ms >= 0 && t->run_ms > 0) gc[t->host] += (double)t->gc_ms;
            if (t->fetch_wait_ms >= 0) fw[t->host] += (double)t->fetch_wait_ms;
        }
    }
    bool cl = false;
    if (nh >= 2) {
        out->f[LADRA_DAR] = clarity_ladra_dar(cnt, nh, (size_t)v, &cl);
        for (size_t j = 0; j < nh; j++) sum[j] = cnt[j] ? sum[j] / cnt[j] : 0;
        if (sum[v] <= 0) sum[v] = 1, cl = true;
        out->f[LADRA_DAD] = clarity_ladra_dad(sum, nh, (size_t)v, &cl);
        for (size_t j = 0; j < nh; j++) prob_n[j] = prob_d[j] ? prob_n[j] / prob_d[j] : 0;
        out->f[LADRA_ARS] = clarity_ladra_ars(prob_n, nh);
        /* DLD: mean duration of the victim's first task (earliest start) per stage over the other
         * hosts' first tasks, over stages with tasks on the victim and elsewhere. */
        double vs = 0, os = 0;
        size_t vk = 0, ok = 0;
        for (size_t s = 0; s < ns; s++) {
            if (first[s * nh + (size_t)v] == INT64_MAX) continue;
            double o = 0;
            size_t k = 0;
            for (size_t j = 0; j < nh; j++)
                if ((int32_t)j != v && first[s * nh + j] != INT64_MAX) o += firstd[s * nh + j], k++;
            if (!k) continue;
            vs += firstd[s * nh + (size_t)v], vk++, os += o / (double)k, ok++;
        }
        if (vk && os > 0) out->f[LADRA_DLD] = (vs / (double)vk) / (os / (double)ok);
    }

    if (in->ngc) {
        /* Log mode: DCO, MCS and DMC from the GC records inside the window. */
        for (size_t i = 0; i < in->ngc; i++) hg[in->gc[i].host].n++;
        for (size_t j = 0; j < nh; j++) {
            size_t m = hg[j].n ? hg[j].n : 1;
            hg[j].x = malloc(m * sizeof(double)), hg[j].y = malloc(m * sizeof(double));
            hg[j].frac = malloc(m * sizeof(double)), hg[j].real = malloc(m * sizeof(double));
            hg[j].user = malloc(m * sizeof(double)), hg[j].sys = malloc(m * sizeof(double));
            if (!hg[j].x || !hg[j].y || !hg[j].frac || !hg[j].real || !hg[j].user || !hg[j].sys) {
                rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in LADRA");
                goto out;
            }
            hg[j].n = 0;
        }
        for (size_t i = 0; i < in->ngc; i++) {   /* records arrive in time order per host */
            const struct ladra_gc *g = &in->gc[i];
            struct hostgc *h = &hg[g->host];
            h->x[h->n] = (double)(g->ts_ms - ws) / 1000.0;
            h->y[h->n] = g->heap_after_kb;
            h->frac[h->n] = g->heap_cap_kb > 0 ? g->heap_after_kb / g->heap_cap_kb : 0;
            h->real[h->n] = g->real_s, h->user[h->n] = g->user_s, h->sys[h->n] = g->sys_s;
            h->n++;
        }
        double dco = -1, hmax = -1, hmin = INFINITY, oarea = 0, varea = 0;
        size_t narea = 0, nH = 0;
        double span = (double)(we - ws) / 1000.0;
        for (size_t j = 0; j < nh; j++) {
            struct hostgc *h = &hg[j];
            size_t lo = 0, hi = 0;   /* records inside [0, span] */
            while (lo < h->n && h->x[lo] < 0) lo++;
            for (hi = lo; hi < h->n && h->x[hi] <= span; hi++) {}
            double d = clarity_ladra_dco_node(h->real + lo, h->user + lo, h->sys + lo, hi - lo);
            dco = d > dco ? d : dco;
            double H = clarity_ladra_dmc_node(h->x + lo, h->frac + lo, hi - lo);
            if (H >= 0) hmax = H > hmax ? H : hmax, hmin = H < hmin ? H : hmin, nH++;
            if (h->n) {
                double ar = curve_area(h->x, h->y, h->n, 0, span);
                if ((int32_t)j == v) varea = ar;
                else oarea += ar, narea++;
            }
        }
        if (dco > 0) out->f[LADRA_DCO] = dco;
        if (nH >= 2) out->f[LADRA_DMC] = hmin > 0 ? hmax / hmin : 1e6;
        if (narea) {
            if (varea <= 0) varea = 1e-9, cl = true;   /* a zero victim area: clamp and say so */
            out->f[LADRA_MCS] = oarea / (double)narea / varea;
        }
    }
    /* The event-log approximations, computed in both modes: they are eDCO, eMCS and eDMC, and
     * without GC logs also DCO, MCS and DMC.
     * DCO ~ wall over CPU time of the tasks in the window (what real/(user+sys) measures for
     *       GC threads), per host, over the same ratio on all hosts; max over hosts.
     * MCS ~ the victim's GC time per run ms over the others' (its heap churned harder).
     * DMC ~ max over min of each host's shuffle fetch-wait share of run time (+0.05 so a
     *       host that never waits does not divide by zero). */
    out->f[LADRA_EDCO] = out->f[LADRA_EMCS] = out->f[LADRA_EDMC] = 1;
    double tr = 0, tc = 0;
    for (size_t j = 0; j < nh; j++) tr += run[j], tc += cpu[j];
    if (tc > 0) {
        double all = tr / tc, mx = 0;
        for (size_t j = 0; j < nh; j++)
            if (cpu[j] > 0) mx = fmax(mx, run[j] / cpu[j] / all);
        if (mx > 0) out->f[LADRA_EDCO] = mx;
    }
    if (nh >= 2) {
        double o = 0;
        size_t k = 0;
        for (size_t j = 0; j < nh; j++)
            if ((int32_t)j != v && run[j] > 0) o += gc[j] / run[j], k++;
        if (k && run[v] > 0) out->f[LADRA_EMCS] = (gc[v] / run[v] + 0.01) / (o / (double)k + 0.01);
        double mx = -1, mn = INFINITY;
        for (size_t j = 0; j < nh; j++)
            if (run[j] > 0) {
                double w = fw[j] / run[j] + 0.05;
                mx = fmax(mx, w), mn = fmin(mn, w);
            }
        if (mx > 0) out->f[LADRA_EDMC] = mx / mn;
    }
    if (!in->ngc) {
        out->flags |= LADRA_APPROX_DCO | LADRA_APPROX_MCS | LADRA_APPROX_DMC;
        out->f[LADRA_DCO] = out->f[LADRA_EDCO], out->f[LADRA_MCS] = out->f[LADRA_EMCS];
        out->f[LADRA_DMC] = out->f[LADRA_EDMC];
    }
    if (cl) out->flags |= LADRA_CLAMPED;
    rc = clarity_ladra_extended(in, v, ws, we, med, out->f, err);
out:
    if (hg)
        for (size_t j = 0; j < nh; j++)
            free(hg[j].x), free(hg[j].y), free(hg[j].frac), free(hg[j].real), free(hg[j].user), free(hg[j].sys);
    free(hg), free(a), free(med), free(first), free(firstd);
    return rc;
}
