/* The seven LADRA factors (paper section 5, Eq. 3-10). Each is about 1 on a
 * healthy run and grows with the victim's trouble. Without GC logs, DCO, MCS and DMC are
 * approximated from task metrics and flagged (the event-log-only mode). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/anomalies/ladra_index.h"

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

/* A host's GC records (in time order); x is relative to the window being computed. */
struct hostgc { double *x, *y, *frac, *real, *user, *sys; const struct ladra_gc **g; size_t n; };

static void hostgc_free(struct hostgc *hg, size_t nh)
{
    if (hg)
        for (size_t j = 0; j < nh; j++)
            free(hg[j].x), free(hg[j].y), free(hg[j].frac), free(hg[j].real), free(hg[j].user), free(hg[j].sys),
                free(hg[j].g);
    free(hg);
}

static struct hostgc *hostgc_build(const struct ladra_input *in)
{
    size_t nh = in->nhosts;
    struct hostgc *hg = calloc(nh ? nh : 1, sizeof *hg);
    if (!hg) return NULL;
    for (size_t i = 0; i < in->ngc; i++) hg[in->gc[i].host].n++;
    for (size_t j = 0; j < nh; j++) {
        size_t m = hg[j].n ? hg[j].n : 1;
        hg[j].x = malloc(m * sizeof(double)), hg[j].y = malloc(m * sizeof(double));
        hg[j].frac = malloc(m * sizeof(double)), hg[j].real = malloc(m * sizeof(double));
        hg[j].user = malloc(m * sizeof(double)), hg[j].sys = malloc(m * sizeof(double));
        hg[j].g = malloc(m * sizeof *hg[j].g);
        if (!hg[j].x || !hg[j].y || !hg[j].frac || !hg[j].real || !hg[j].user || !hg[j].sys || !hg[j].g) {
            hostgc_free(hg, nh);
            return NULL;
        }
        hg[j].n = 0;
    }
    for (size_t i = 0; i < in->ngc; i++) {   /* records arrive in time order per host */
        const struct ladra_gc *g = &in->gc[i];
        struct hostgc *h = &hg[g->host];
        h->g[h->n] = g;
        h->y[h->n] = g->heap_after_kb;
        h->frac[h->n] = g->heap_cap_kb > 0 ? g->heap_after_kb / g->heap_cap_kb : 0;
        h->real[h->n] = g->real_s, h->user[h->n] = g->user_s, h->sys[h->n] = g->sys_s;
        h->n++;
    }
    return hg;
}

/* The pair (stage s, host v), NULL when v has no task in s. */
static const struct ladra_pair *pair_of(const struct ladra_index *x, size_t s, int32_t v)
{
    size_t lo = x->pair_off[s], hi = x->pair_off[s + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->pairs[mid].host < v) lo = mid + 1;
        else hi = mid;
    }
    return lo < x->pair_off[s + 1] && x->pairs[lo].host == v ? &x->pairs[lo] : NULL;
}

/* DLD: mean duration of the victim's first task (earliest start) per stage over the other
 * hosts' first tasks, over stages with tasks on the victim and elsewhere. */
static double dld(const struct ladra_index *x, const struct ladra_stage_scratch *sc, int32_t v)
{
    double vs = 0, os = 0;
    size_t vk = 0, ok = 0;
    for (size_t i = 0; i < sc->nlist; i++) {
        size_t s = (size_t)sc->list[i];
        const struct ladra_pair *pv = pair_of(x, s, v);
        if (!pv || pv->first_start == INT64_MAX) continue;
        double o = 0;
        size_t k = 0;
        if (x->exact_first) o = x->first_sum[s] - pv->first_dur, k = x->first_n[s] - 1;
        else
            for (size_t j = x->pair_off[s]; j < x->pair_off[s + 1]; j++)
                if (x->pairs[j].host != v && x->pairs[j].first_start != INT64_MAX) o += x->pairs[j].first_dur, k++;
        if (!k) continue;
        vs += pv->first_dur, vk++, os += o / (double)k, ok++;
    }
    return vk && os > 0 ? (vs / (double)vk) / (os / (double)ok) : 1;
}

/* DCO, MCS and DMC from the GC records inside the window [ws, we] (log mode). */
static void gc_factors(const struct ladra_input *in, struct hostgc *hg, int32_t v, int64_t ws, int64_t we,
                       struct ladra_factors *out, bool *cl)
{
    size_t nh = in->nhosts;
    for (size_t j = 0; j < nh; j++)
        for (size_t i = 0; i < hg[j].n; i++) hg[j].x[i] = (double)(hg[j].g[i]->ts_ms - ws) / 1000.0;
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
        if (varea <= 0) varea = 1e-9, *cl = true;   /* a zero victim area: clamp and say so */
        out->f[LADRA_MCS] = oarea / (double)narea / varea;
    }
}

/* The vector of victim v against stage st and window sums w; a (8 x nh) is scratch. */
static void factors_one(const struct ladra_input *in, const struct ladra_index *x, const struct ladra_stage_scratch *sc,
                        const struct ladra_win *w, struct hostgc *hg, double *a, double *fwa, struct ladra_factors *out)
{
    size_t nh = in->nhosts;
    int32_t v = out->victim, st = out->stage;
    int64_t ws = out->win_start_ms, we = out->win_end_ms;
    memset(a, 0, nh * 8 * sizeof *a);
    double *cnt = a, *sum = a + nh, *prob_n = a + 2 * nh, *prob_d = a + 3 * nh, *run = a + 4 * nh, *cpu = a + 5 * nh,
           *gc = a + 6 * nh, *fw = a + 7 * nh;
    for (size_t k = x->pair_off[st]; k < x->pair_off[st + 1]; k++)
        cnt[x->pairs[k].host] = (double)x->pairs[k].tasks, sum[x->pairs[k].host] = x->pairs[k].dur_sum;
    for (size_t j = 0; j < nh; j++)
        prob_d[j] = w[j].cnt, prob_n[j] = w[j].abn, run[j] = w[j].run, cpu[j] = w[j].cpu, gc[j] = w[j].gc, fw[j] = w[j].fw;
    bool cl = false;
    if (nh >= 2) {
        out->f[LADRA_DAR] = clarity_ladra_dar(cnt, nh, (size_t)v, &cl);
        for (size_t j = 0; j < nh; j++) sum[j] = cnt[j] ? sum[j] / cnt[j] : 0;
        if (sum[v] <= 0) sum[v] = 1, cl = true;
        out->f[LADRA_DAD] = clarity_ladra_dad(sum, nh, (size_t)v, &cl);
        for (size_t j = 0; j < nh; j++) prob_n[j] = prob_d[j] ? prob_n[j] / prob_d[j] : 0;
        out->f[LADRA_ARS] = clarity_ladra_ars(prob_n, nh);
        out->f[LADRA_DLD] = dld(x, sc, v);
    }
    if (in->ngc) gc_factors(in, hg, v, ws, we, out, &cl);
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
                double r = fw[j] / run[j] + 0.05;
                mx = fmax(mx, r), mn = fmin(mn, r);
            }
        if (mx > 0) out->f[LADRA_EDMC] = mx / mn;
    }
    if (!in->ngc) {
        out->flags |= LADRA_APPROX_DCO | LADRA_APPROX_MCS | LADRA_APPROX_DMC;
        out->f[LADRA_DCO] = out->f[LADRA_EDCO], out->f[LADRA_MCS] = out->f[LADRA_EMCS];
        out->f[LADRA_DMC] = out->f[LADRA_EDMC];
    }
    if (cl) out->flags |= LADRA_CLAMPED;
    clarity__ladra_extended_from(w, x->slow, x->nslow, nh, v, out->f, fwa);
}

int clarity__ladra_factors_batch(const struct ladra_input *in, const struct ladra_index *x, const struct ladra_period *p,
                                 size_t np, const int32_t *victim, size_t nq, struct ladra_factors *out,
                                 struct clarity_error *err)
{
    size_t nh = in->nhosts, n = in->ntasks;
    for (size_t q = 0; q < nq; q++) {
        memset(&out[q], 0, sizeof out[q]);
        for (int f = 0; f < LADRA_NFEAT; f++) out[q].f[f] = 1;
    }
    if (!n || !nh || !nq) return 0;
    int rc = 0;
    int64_t *pws = malloc(nh * sizeof *pws), *pwe = malloc(nh * sizeof *pwe);
    int64_t *ws = malloc(nq * sizeof *ws), *we = malloc(nq * sizeof *we);
    double *a = malloc(nh * 8 * sizeof *a), *fwa = malloc(nh * sizeof *fwa);
    struct ladra_win *w = malloc(nh * sizeof *w);
    struct hostgc *hg = in->ngc ? hostgc_build(in) : NULL;
    struct ladra_stage_scratch sc = {0};
    struct ladra_winsums sums = {0};
    if (!pws || !pwe || !ws || !we || !a || !fwa || !w || (in->ngc && !hg) || clarity__ladra_scratch_init(&sc, in->nstages)) {
        rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in LADRA");
        goto out;
    }
    /* j' of the run: by the rule for this host count (ladra_index.c) */
    int32_t v0 = clarity__ladra_run_victim(x);
    /* Window for ARS, MCS, DCO and DMC: [earliest start, latest end] of the victim's abnormal
     * periods, else the whole application. */
    for (size_t j = 0; j < nh; j++) pws[j] = INT64_MAX, pwe[j] = INT64_MIN;
    for (size_t i = 0; i < np; i++) {
        int32_t h = p[i].host;
        if (h < 0 || (size_t)h >= nh) continue;
        pws[h] = p[i].start_ms < pws[h] ? p[i].start_ms : pws[h];
        pwe[h] = p[i].end_ms > pwe[h] ? p[i].end_ms : pwe[h];
    }
    for (size_t q = 0; q < nq; q++) {
        int32_t v = victim[q] >= 0 && (size_t)victim[q] < nh ? victim[q] : v0;
        int64_t s = pws[v], e = pwe[v];
        if (s == INT64_MAX) s = in->app_start_ms, e = in->app_end_ms;
        if (e <= s) e = s + 1;
        out[q].victim = v, ws[q] = out[q].win_start_ms = s, we[q] = out[q].win_end_ms = e;
        if (nh < 2) out[q].flags |= LADRA_SINGLE_HOST;
    }
    if ((rc = clarity__ladra_winsums_build(&sums, in, ws, we, nq, err))) goto out;
    for (size_t q = 0; q < nq; q++) {
        out[q].stage = clarity__ladra_host_stages(x, in, out[q].victim, &sc);
        clarity__ladra_winsums_get(&sums, q, w);
        factors_one(in, x, &sc, w, hg, a, fwa, &out[q]);
    }
out:
    clarity__ladra_winsums_free(&sums);
    clarity__ladra_scratch_free(&sc);
    hostgc_free(hg, nh);
    free(pws), free(pwe), free(ws), free(we), free(a), free(fwa), free(w);
    return rc;
}

int clarity_ladra_factors_compute(const struct ladra_input *in, const struct ladra_period *p, size_t np, int32_t victim,
                                  struct ladra_factors *out, struct clarity_error *err)
{
    struct ladra_index x;
    int rc = clarity__ladra_index_build(&x, in, err);
    if (rc) return rc;
    rc = clarity__ladra_factors_batch(in, &x, p, np, &victim, 1, out, err);
    clarity__ladra_index_free(&x);
    return rc;
}
