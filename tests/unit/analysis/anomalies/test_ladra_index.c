/* LADRA's shared index against brute force on small random applications: the sparse
 * (stage, host) pairs, each host's task list, the per-window host sums (difference arrays and
 * the plain loop) and, through them, the victim, its stage and every factor, bit for bit
 * against the plain per-victim loops with stages x hosts tables that they replace. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/anomalies/ladra_index.h"
#include "util/stats.h"

/* ---- a random application ---- */
static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static int64_t rint_(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }

struct app {
    struct ladra_task t[300];
    struct ladra_metrics m[300];
    struct ladra_gc g[60];
    struct ladra_input in;
};

/* huge: durations and metrics near 2^51, so sums pass 2^53 and the exact shortcuts give way
 * to the plain loops. Times repeat often (ties in every order), a few tasks end before they
 * start, some hosts or stages have no task. */
static void make(struct app *a, bool huge, bool gc)
{
    memset(a, 0, sizeof *a);
    size_t nh = (size_t)rint_(1, 6), ns = (size_t)rint_(1, 7), n = (size_t)rint_(0, 300);
    int64_t scale = huge ? (INT64_C(1) << 51) : 1000;
    for (size_t i = 0; i < n; i++) {
        struct ladra_task *t = &a->t[i];
        t->row = (uint32_t)i;
        t->stage = (int32_t)rint_(0, (int64_t)ns - 1);
        t->host = (int32_t)rint_(0, (int64_t)nh - 1);
        t->exec = t->host;
        t->start_ms = rint_(0, 20) * (huge ? scale / 8 : 500);
        t->end_ms = t->start_ms + rint_(0, 6) * scale;
        if (rnd() % 40 == 0) t->end_ms = t->start_ms - rint_(1, 3) * 100;   /* ends before it starts */
        t->locality = (int8_t)rint_(0, 5);
        struct ladra_metrics *m = &a->m[i];
        m->tid = rint_(0, 50);   /* repeats: ties fall through to the row order of the sort */
        bool has = rnd() % 8 != 0;
        int64_t big = huge ? INT64_C(1) << 40 : 1;   /* 5000 x 2^40 per task: host totals past 2^53 */
        m->run_ms = has ? rint_(-1, 5000) * big : -1;
        m->cpu_ms = has ? rint_(-1, 4000) * big : -1;
        m->gc_ms = has ? rint_(-1, 300) * big : -1;
        m->fetch_wait_ms = has ? rint_(-1, 800) * big : -1;
        m->sw_ns = has ? rint_(-1, 3) * 1000000 * (huge ? 1000000 : 1) : 0;
        m->sw_bytes = has ? rint_(0, 3) * 4096 : 0;
        m->remote_bytes = has && rnd() % 2 ? rint_(1, 4) * 1048576 : 0;
    }
    size_t ng = gc ? (size_t)rint_(0, 60) : 0;
    for (size_t i = 0; i < ng; i++)
        a->g[i] = (struct ladra_gc){.host = (int32_t)rint_(0, (int64_t)nh - 1), .ts_ms = rint_(-2, 30) * 400,
                                    .heap_after_kb = (double)rint_(100, 900), .heap_cap_kb = rnd() % 5 ? 1000 : 0,
                                    .user_s = (double)rint_(0, 5) / 100, .sys_s = (double)rint_(0, 3) / 100,
                                    .real_s = (double)rint_(0, 9) / 100};
    /* records by host then time, as the analysis sorts them */
    for (size_t i = 1; i < ng; i++)
        for (size_t j = i; j > 0 && (a->g[j - 1].host > a->g[j].host ||
                                     (a->g[j - 1].host == a->g[j].host && a->g[j - 1].ts_ms > a->g[j].ts_ms)); j--) {
            struct ladra_gc x = a->g[j];
            a->g[j] = a->g[j - 1], a->g[j - 1] = x;
        }
    a->in = (struct ladra_input){.tasks = a->t, .ntasks = n, .metrics = a->m, .gc = ng ? a->g : NULL, .ngc = ng,
                                 .nhosts = nh, .nstages = ns, .app_start_ms = 0, .app_end_ms = 25 * 500};
}

/* ---- the plain loops (what the index replaces), reading task metrics by row ---- */
static const struct ladra_metrics *M(const struct ladra_input *in, const struct ladra_task *t) { return &in->metrics[t->row]; }
static double dur(const struct ladra_task *t) { return (double)(t->end_ms - t->start_ms); }

static int by_stage_ref(const void *a, const void *b, void *ctx)
{
    const struct ladra_task *t = ctx;
    int32_t x = t[*(const size_t *)a].stage, y = t[*(const size_t *)b].stage;
    return x != y ? (x < y ? -1 : 1) : (*(const size_t *)a < *(const size_t *)b ? -1 : 1);
}

static void ref_victim(const struct ladra_input *in, int32_t force, int32_t *victim, int32_t *stage, double *host_excess,
                       double *stage_med)
{
    size_t nh = in->nhosts, ns = in->nstages, n = in->ntasks;
    double *med = calloc(ns ? ns : 1, sizeof *med), *ex = calloc(nh ? nh : 1, sizeof *ex);
    double *sx = calloc((ns ? ns : 1) * (nh ? nh : 1), sizeof *sx), *abn = calloc(ns ? ns : 1, sizeof *abn);
    size_t *ix = malloc((n ? n : 1) * sizeof *ix);
    double *d = malloc((n ? n : 1) * sizeof *d);
    for (size_t i = 0; i < n; i++) ix[i] = i;
    qsort_r(ix, n, sizeof *ix, by_stage_ref, in->tasks);
    for (size_t a = 0; a < n;) {
        size_t b = a;
        int32_t s = in->tasks[ix[a]].stage;
        while (b < n && in->tasks[ix[b]].stage == s) b++;
        for (size_t i = 0; i < b - a; i++) d[i] = dur(&in->tasks[ix[a + i]]);
        med[s] = clarity_median_mean_mid(d, b - a);
        a = b;
    }
    for (size_t i = 0; i < n; i++) {
        const struct ladra_task *t = &in->tasks[i];
        double e = dur(t) - med[t->stage];
        if (e > 0) ex[t->host] += e, sx[(size_t)t->stage * nh + (size_t)t->host] += e;
    }
    int32_t v = 0;
    if (nh > LADRA_VICTIM_EXCESS_MAX_HOSTS) {
        /* more hosts: the slowest against the others per task, by the plain loops: each task's
         * load by brute force (its overlap with every task of its host, over its duration) */
        double *sc = calloc(nh, sizeof *sc), *cn = calloc(nh, sizeof *cn), *conc = malloc(n * sizeof *conc),
               *lost = calloc(nh, sizeof *lost);
        for (size_t i = 0; i < n; i++) {
            const struct ladra_task *t = &in->tasks[i];
            double di = dur(t), o = 0;
            for (size_t j = 0; j < n; j++) {
                const struct ladra_task *u = &in->tasks[j];
                int64_t ue = u->end_ms > u->start_ms ? u->end_ms : u->start_ms, te = t->end_ms > t->start_ms ? t->end_ms : t->start_ms;
                int64_t a = t->start_ms > u->start_ms ? t->start_ms : u->start_ms, b = te < ue ? te : ue;
                if (u->host == t->host && b > a) o += (double)(b - a);
            }
            conc[i] = di > 0 && o > 0 ? o / di : 1;
        }
        for (size_t a = 0; a < n;) {
            size_t b = a, m;
            int32_t s = in->tasks[ix[a]].stage;
            while (b < n && in->tasks[ix[b]].stage == s) b++;
            m = b - a;
            double *hs = calloc(nh, sizeof *hs), *hn = calloc(nh, sizeof *hn), my = 0, mc = 0, sxy = 0, sxx = 0, all = 0;
            size_t hosts = 0;
            for (size_t k = a; k < b; k++) hosts += hn[in->tasks[ix[k]].host]++ == 0;
            if (hosts >= 2) {
                for (size_t k = 0; k < m; k++) d[k] = log(fmax(dur(&in->tasks[ix[a + k]]), 1)), my += d[k], mc += log(conc[ix[a + k]]);
                my /= (double)m, mc /= (double)m;
                for (size_t k = 0; k < m; k++) {
                    double c = log(conc[ix[a + k]]) - mc;
                    sxy += c * (d[k] - my), sxx += c * c;
                }
                double sl = sxx > 0 ? fmin(fmax(sxy / sxx, 0), 1) : 0;
                for (size_t k = 0; k < m; k++) d[k] -= sl * log(conc[ix[a + k]]), all += d[k], hs[in->tasks[ix[a + k]].host] += d[k];
                for (size_t k = 0; k < m; k++) {
                    int32_t h = in->tasks[ix[a + k]].host;
                    double dl = d[k] - (all - hs[h]) / ((double)m - hn[h]);
                    sc[h] += dl, cn[h]++;
                    lost[h] += dur(&in->tasks[ix[a + k]]) * (1 - exp(-dl));
                }
            }
            free(hs), free(hn);
            a = b;
        }
        for (size_t j = 0; j < nh; j++) sc[j] /= cn[j] + 2;
        for (size_t j = 1; j < nh; j++)
            if (sc[j] > sc[v]) v = (int32_t)j;
        /* then the host that lost the most time among those at >= 0.4 of the top score */
        if (sc[v] > 0) {
            double lo = 0.4 * sc[v];
            for (size_t j = 0; j < nh; j++)
                if (sc[j] >= lo && lost[j] > lost[v]) v = (int32_t)j;
        }
        free(sc), free(cn), free(conc), free(lost);
    } else
        for (size_t j = 1; j < nh; j++)
            if (ex[j] > ex[v]) v = (int32_t)j;
    if (force >= 0 && (size_t)force < nh) v = force;
    for (size_t i = 0; i < n; i++) {
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
    free(med), free(ex), free(sx), free(abn), free(ix), free(d);
}

struct acc { double run, cpu, gc, fw, swns, swb, slow, nslow, fw_in, run_in, fw_out, run_out, rb_in; };

static void ref_extended(const struct ladra_input *in, int32_t v, int64_t ws, int64_t we, const double *stage_med,
                         double f[LADRA_NFEAT])
{
    for (int k = LADRA_NFACTOR; k < LADRA_EDCO; k++) f[k] = 1;
    size_t nh = in->nhosts;
    if (nh < 2) return;
    struct acc *h = calloc(nh, sizeof *h);
    double *fwa = malloc(nh * sizeof *fwa);
    for (size_t i = 0; i < in->ntasks; i++) {
        const struct ladra_task *t = &in->tasks[i];
        const struct ladra_metrics *m = M(in, t);
        struct acc *a = &h[t->host];
        double d = dur(t);
        if (stage_med && stage_med[t->stage] > 0) a->slow += d / stage_med[t->stage], a->nslow++;
        if (m->run_ms <= 0) continue;
        bool inside = t->start_ms < we && t->end_ms > ws;
        if (m->remote_bytes > 0) {
            double fw = m->fetch_wait_ms > 0 ? (double)m->fetch_wait_ms : 0;
            if (inside) a->run_in += (double)m->run_ms, a->fw_in += fw, a->rb_in += (double)m->remote_bytes;
            else a->run_out += (double)m->run_ms, a->fw_out += fw;
        }
        if (!inside) continue;
        a->run += (double)m->run_ms;
        if (m->cpu_ms >= 0) a->cpu += (double)m->cpu_ms;
        if (m->gc_ms > 0) a->gc += (double)m->gc_ms;
        if (m->fetch_wait_ms > 0) a->fw += (double)m->fetch_wait_ms;
        if (m->sw_bytes > 0 && m->sw_ns >= 0) a->swns += (double)m->sw_ns, a->swb += (double)m->sw_bytes;
    }
    const struct acc *x = &h[v];
    double o_cpe = 0, o_gcs = 0, o_fwv = 0, o_swt = 0, o_sld = 0;
    size_t k_cpe = 0, k_sw = 0, k_sld = 0, k_fwa = 0;
    for (size_t j = 0; j < nh; j++) {
        if ((int32_t)j == v) continue;
        const struct acc *a = &h[j];
        if (a->run > 0) {
            o_cpe += a->cpu / a->run, o_gcs += a->gc / a->run, o_fwv += a->fw / a->run, k_cpe++;
            if (a->run_in > 0 && a->run_out > 0)
                fwa[k_fwa++] = (a->fw_in / a->run_in + 0.05) / (a->fw_out / a->run_out + 0.05);
        }
        if (a->swb > 0) o_swt += a->swns / a->swb, k_sw++;
        if (a->nslow > 0) o_sld += a->slow / a->nslow, k_sld++;
    }
    if (k_cpe && x->run > 0) {
        double ce = x->cpu / x->run;
        if (ce > 0) f[LADRA_CPE] = o_cpe / (double)k_cpe / ce;
        f[LADRA_GCS] = (x->gc / x->run + 0.01) / (o_gcs / (double)k_cpe + 0.01);
        f[LADRA_FWV] = (x->fw / x->run + 0.05) / (o_fwv / (double)k_cpe + 0.05);
    }
    if (k_fwa) f[LADRA_FWA] = clarity_median_mean_mid(fwa, k_fwa);
    double fw_all = 0, rb_all = 0;
    for (size_t j = 0; j < nh; j++) fw_all += h[j].fw_in, rb_all += h[j].rb_in;
    f[LADRA_FWB] = rb_all > 0 ? fw_all / (rb_all / 1048576.0) : 0;
    if (k_sw && x->swb > 0 && o_swt > 0) f[LADRA_SWT] = (x->swns / x->swb) / (o_swt / (double)k_sw);
    if (k_sld && x->nslow > 0 && o_sld > 0) f[LADRA_SLD] = (x->slow / x->nslow) / (o_sld / (double)k_sld);
    free(fwa), free(h);
}

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

static void ref_factors(const struct ladra_input *in, const struct ladra_period *p, size_t np, int32_t victim,
                        struct ladra_factors *out)
{
    memset(out, 0, sizeof *out);
    size_t nh = in->nhosts, ns = in->nstages, n = in->ntasks;
    for (int f = 0; f < LADRA_NFEAT; f++) out->f[f] = 1;
    if (!n || !nh) return;
    if (nh < 2) out->flags |= LADRA_SINGLE_HOST;
    double *a = calloc(nh * 8, sizeof *a), *med = calloc(ns, sizeof *med);
    int64_t *first = malloc(ns * nh * sizeof *first);
    double *firstd = malloc(ns * nh * sizeof *firstd);
    int32_t v, st;
    ref_victim(in, victim, &v, &st, NULL, med);
    out->victim = v, out->stage = st;
    double *cnt = a, *sum = a + nh, *prob_n = a + 2 * nh, *prob_d = a + 3 * nh, *run = a + 4 * nh, *cpu = a + 5 * nh,
           *gc = a + 6 * nh, *fw = a + 7 * nh;
    int64_t ws = INT64_MAX, we = INT64_MIN;
    for (size_t i = 0; i < np; i++)
        if (p[i].host == v) ws = p[i].start_ms < ws ? p[i].start_ms : ws, we = p[i].end_ms > we ? p[i].end_ms : we;
    if (ws == INT64_MAX) ws = in->app_start_ms, we = in->app_end_ms;
    if (we <= ws) we = ws + 1;
    out->win_start_ms = ws, out->win_end_ms = we;
    for (size_t i = 0; i < ns * nh; i++) first[i] = INT64_MAX, firstd[i] = 0;
    for (size_t i = 0; i < n; i++) {
        const struct ladra_task *t = &in->tasks[i];
        const struct ladra_metrics *m = M(in, t);
        if (t->stage == st) cnt[t->host]++, sum[t->host] += dur(t);
        size_t k = (size_t)t->stage * nh + (size_t)t->host;
        if (t->start_ms < first[k]) first[k] = t->start_ms, firstd[k] = dur(t);
        if (t->start_ms < we && t->end_ms > ws) {
            prob_d[t->host]++;
            prob_n[t->host] += t->smooth && !t->skew_suspect;
            if (m->run_ms > 0 && m->cpu_ms >= 0) run[t->host] += (double)m->run_ms, cpu[t->host] += (double)m->cpu_ms;
            if (m->gc_ms >= 0 && m->run_ms > 0) gc[t->host] += (double)m->gc_ms;
            if (m->fetch_wait_ms >= 0) fw[t->host] += (double)m->fetch_wait_ms;
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
        double dco = -1, hmax = -1, hmin = INFINITY, oarea = 0, varea = 0;
        size_t narea = 0, nH = 0;
        double span = (double)(we - ws) / 1000.0;
        double x[60], y[60], frac[60], real[60], user[60], sys[60];
        for (size_t j = 0; j < nh; j++) {
            size_t hn = 0;
            for (size_t i = 0; i < in->ngc; i++) {
                const struct ladra_gc *g = &in->gc[i];
                if (g->host != (int32_t)j) continue;
                x[hn] = (double)(g->ts_ms - ws) / 1000.0, y[hn] = g->heap_after_kb;
                frac[hn] = g->heap_cap_kb > 0 ? g->heap_after_kb / g->heap_cap_kb : 0;
                real[hn] = g->real_s, user[hn] = g->user_s, sys[hn] = g->sys_s, hn++;
            }
            size_t lo = 0, hi = 0;
            while (lo < hn && x[lo] < 0) lo++;
            for (hi = lo; hi < hn && x[hi] <= span; hi++) {}
            double d = clarity_ladra_dco_node(real + lo, user + lo, sys + lo, hi - lo);
            dco = d > dco ? d : dco;
            double H = clarity_ladra_dmc_node(x + lo, frac + lo, hi - lo);
            if (H >= 0) hmax = H > hmax ? H : hmax, hmin = H < hmin ? H : hmin, nH++;
            if (hn) {
                double ar = curve_area(x, y, hn, 0, span);
                if ((int32_t)j == v) varea = ar;
                else oarea += ar, narea++;
            }
        }
        if (dco > 0) out->f[LADRA_DCO] = dco;
        if (nH >= 2) out->f[LADRA_DMC] = hmin > 0 ? hmax / hmin : 1e6;
        if (narea) {
            if (varea <= 0) varea = 1e-9, cl = true;
            out->f[LADRA_MCS] = oarea / (double)narea / varea;
        }
    }
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
    ref_extended(in, v, ws, we, med, out->f);
    free(a), free(med), free(first), free(firstd);
}

/* Bit for bit: the same doubles, not nearly the same. */
static void same_factors(const struct ladra_factors *x, const struct ladra_factors *y, int trial, int32_t victim)
{
    cr_assert_eq(x->victim, y->victim, "trial %d victim %d", trial, victim);
    cr_assert_eq(x->stage, y->stage, "trial %d victim %d: stage %d, want %d", trial, victim, x->stage, y->stage);
    cr_assert_eq(x->win_start_ms, y->win_start_ms, "trial %d", trial);
    cr_assert_eq(x->win_end_ms, y->win_end_ms, "trial %d", trial);
    cr_assert_eq(x->flags, y->flags, "trial %d victim %d", trial, victim);
    for (int k = 0; k < LADRA_NFEAT; k++)
        cr_assert(!memcmp(&x->f[k], &y->f[k], sizeof x->f[k]), "trial %d victim %d: %s = %.17g, want %.17g", trial,
                  victim, clarity_ladra_factor_name(k), x->f[k], y->f[k]);
}

static void same_win(const struct ladra_win *x, const struct ladra_win *y, size_t nh, int trial)
{
    for (size_t h = 0; h < nh; h++) {
        const double *a = &x[h].cnt, *b = &y[h].cnt;
        for (size_t k = 0; k < sizeof *x / sizeof(double); k++)
            cr_assert(!memcmp(&a[k], &b[k], sizeof a[k]), "trial %d host %zu field %zu: %.17g, want %.17g", trial, h, k,
                      a[k], b[k]);
    }
}

/* ---- the index itself ---- */
Test(ladra_index, pairs_and_host_lists_match_brute_force)
{
    rng_state = 11;
    static struct app a;
    for (int trial = 0; trial < 300; trial++) {
        make(&a, trial % 5 == 4, false);
        const struct ladra_input *in = &a.in;
        struct ladra_index x;
        cr_assert_eq(clarity__ladra_index_build(&x, in, NULL), 0);
        size_t npairs = 0;
        for (size_t s = 0; s < in->nstages; s++) {
            cr_assert_leq(x.pair_off[s], x.pair_off[s + 1]);
            size_t k = x.pair_off[s];
            for (size_t h = 0; h < in->nhosts; h++) {
                /* brute force: the tasks of (s, h) in task order */
                uint32_t cnt = 0;
                int64_t first = INT64_MAX;
                double fd = 0, sum = 0;
                for (size_t i = 0; i < in->ntasks; i++) {
                    const struct ladra_task *t = &in->tasks[i];
                    if ((size_t)t->stage != s || (size_t)t->host != h) continue;
                    cnt++, sum += dur(t);
                    if (t->start_ms < first) first = t->start_ms, fd = dur(t);
                }
                if (!cnt) continue;
                cr_assert_lt(k, x.pair_off[s + 1], "trial %d: pair (%zu, %zu) missing", trial, s, h);
                const struct ladra_pair *p = &x.pairs[k++];
                cr_assert_eq(p->host, (int32_t)h, "trial %d: pairs of stage %zu out of host order", trial, s);
                cr_assert_eq(p->tasks, cnt);
                cr_assert_eq(p->first_start, first);
                cr_assert(!memcmp(&p->first_dur, &fd, sizeof fd) && !memcmp(&p->dur_sum, &sum, sizeof sum));
                npairs++;
            }
            cr_assert_eq(k, x.pair_off[s + 1], "trial %d: stage %zu has pairs without tasks", trial, s);
        }
        cr_assert_eq(x.npairs, npairs);
        for (size_t h = 0; h < in->nhosts; h++) {
            size_t k = x.host_off[h];
            for (size_t i = 0; i < in->ntasks; i++)
                if ((size_t)in->tasks[i].host == h) {
                    cr_assert_lt(k, x.host_off[h + 1]);
                    cr_assert_eq(x.host_ix[k++], i, "trial %d: host %zu's tasks out of task order", trial, h);
                }
            cr_assert_eq(k, x.host_off[h + 1]);
        }
        /* excess, medians and the stage of every possible victim against the plain rule */
        for (int32_t v = -1; v < (int32_t)in->nhosts; v++) {
            int32_t rv, rs, fv, fs;
            double rex[8], rmed[8], fex[8], fmed[8];
            ref_victim(in, v, &rv, &rs, rex, rmed);
            cr_assert_eq(clarity_ladra_victim(in, v, &fv, &fs, fex, fmed, NULL), 0);
            cr_assert_eq(fv, rv, "trial %d", trial);
            cr_assert_eq(fs, rs, "trial %d force %d: stage %d, want %d", trial, v, fs, rs);
            cr_assert(!memcmp(fex, rex, in->nhosts * sizeof *rex) && !memcmp(fmed, rmed, in->nstages * sizeof *rmed));
        }
        clarity__ladra_index_free(&x);
    }
}

Test(ladra_index, window_sums_match_the_plain_loop)
{
    rng_state = 12;
    static struct app a;
    int swept = 0, direct = 0;
    for (int trial = 0; trial < 300; trial++) {
        make(&a, trial % 4 == 3, false);
        const struct ladra_input *in = &a.in;
        /* flags matter for the abnormal count */
        for (size_t i = 0; i < in->ntasks; i++) a.t[i].smooth = rnd() % 3 == 0, a.t[i].skew_suspect = rnd() % 5 == 0;
        int64_t ws[9], we[9];
        size_t nq = (size_t)rint_(1, 9);
        int64_t unit = trial % 4 == 3 ? (INT64_C(1) << 51) / 8 : 500;
        for (size_t q = 0; q < nq; q++) {
            ws[q] = rint_(-2, 22) * unit;
            we[q] = ws[q] + rint_(1, 12) * unit;
            if (q && rnd() % 4 == 0) ws[q] = ws[q - 1];   /* equal starts and ends across windows */
            if (q && rnd() % 4 == 0) we[q] = we[q - 1] > ws[q] ? we[q - 1] : ws[q] + 1;
        }
        struct ladra_winsums s;
        cr_assert_eq(clarity__ladra_winsums_build(&s, in, ws, we, nq, NULL), 0);
        *(s.direct ? &direct : &swept) += 1;
        struct ladra_win w[8], want[8];
        for (size_t q = 0; q < nq; q++) {
            clarity__ladra_winsums_get(&s, q, w);
            clarity__ladra_win_direct(in, ws[q], we[q], want);
            same_win(w, want, in->nhosts, trial);
        }
        clarity__ladra_winsums_free(&s);
    }
    cr_assert_gt(swept, 100);   /* both ways were taken */
    cr_assert_gt(direct, 10);
}

/* The whole vector: detection's marks and periods, then the run's victim and every host. */
Test(ladra_index, factors_match_the_plain_loops)
{
    rng_state = 13;
    static struct app a;
    struct ladra_options o;
    clarity_ladra_options_default(&o);
    for (int trial = 0; trial < 400; trial++) {
        make(&a, trial % 5 == 4, trial % 3 == 1);
        struct ladra_input *in = &a.in;
        struct ladra_period *p;
        size_t np;
        cr_assert_eq(clarity_ladra_detect(in, &o, &p, &np, NULL), 0);
        for (int32_t v = -1; v < (int32_t)in->nhosts + 1; v++) {
            struct ladra_factors got, want;
            cr_assert_eq(clarity_ladra_factors_compute(in, p, np, v, &got, NULL), 0);
            ref_factors(in, p, np, v, &want);
            same_factors(&got, &want, trial, v);
        }
        /* all victims in one batch, as the analysis asks */
        struct ladra_index x;
        int32_t vic[8];
        struct ladra_factors got[8], want;
        size_t nv = 0;
        vic[nv++] = -1;
        for (size_t j = 0; j < in->nhosts; j++) vic[nv++] = (int32_t)j;
        cr_assert_eq(clarity__ladra_index_build(&x, in, NULL), 0);
        cr_assert_eq(clarity__ladra_factors_batch(in, &x, p, np, vic, nv, got, NULL), 0);
        for (size_t k = 0; k < nv; k++) {
            ref_factors(in, p, np, vic[k], &want);
            same_factors(&got[k], &want, trial, vic[k]);
        }
        clarity__ladra_index_free(&x);
        free(p);
    }
}

/* Two detection workers mark the same tasks and find the same periods, in the same order, as one. */
Test(ladra_detect, two_workers_same_as_one)
{
    rng_state = 14;
    static struct app a;
    static struct ladra_task one[300];
    struct ladra_options o;
    clarity_ladra_options_default(&o);
    size_t total = 0;
    for (int trial = 0; trial < 200; trial++) {
        make(&a, false, false);
        struct ladra_input *in = &a.in;
        struct ladra_period *p1, *p2;
        size_t n1, n2;
        o.threads = 1;
        cr_assert_eq(clarity_ladra_detect(in, &o, &p1, &n1, NULL), 0);
        memcpy(one, a.t, in->ntasks * sizeof *one);
        o.threads = 2;
        cr_assert_eq(clarity_ladra_detect(in, &o, &p2, &n2, NULL), 0);
        for (size_t i = 0; i < in->ntasks; i++) {
            const struct ladra_task *x = &one[i], *y = &a.t[i];
            cr_assert(x->initial == y->initial && x->raw == y->raw && x->smooth == y->smooth &&
                          x->skew_suspect == y->skew_suspect && x->speculation == y->speculation,
                      "trial %d task %zu", trial, i);
        }
        cr_assert_eq(n1, n2, "trial %d", trial);
        for (size_t k = 0; k < n1; k++)
            cr_assert(p1[k].host == p2[k].host && p1[k].exec == p2[k].exec && p1[k].stage == p2[k].stage &&
                          p1[k].start_ms == p2[k].start_ms && p1[k].end_ms == p2[k].end_ms && p1[k].tasks == p2[k].tasks,
                      "trial %d period %zu", trial, k);
        total += n1;
        free(p1), free(p2);
    }
    cr_assert_gt(total, 50);   /* periods were found to compare */
}
