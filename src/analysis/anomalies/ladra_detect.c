/* LADRA detection (paper section 4, Eq. 1-2): per stage, over successful attempts only, a
 * threshold mean + 1.5 population sd for the first wave (tasks starting within 1 s of the
 * stage's first) and one for the rest; a set of fewer than 3 tasks is merged into the other.
 * Labels are smoothed per (host, stage, set) in start order with a width-5 window, without
 * recursion; runs of smoothed 1s become abnormal periods. Spark's speculation rule beside it. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "util/checked.h"
#include "clarity/anomalies.h"
#include "util/stats.h"

static int oom(struct clarity_error *err)
{
    return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in LADRA");
}

void clarity_ladra_options_default(struct ladra_options *o)
{
    *o = (struct ladra_options){.lambda = 1.5, .init_tol_ms = 1000, .skew_filter = true, .min_period_tasks = 1,
                                .spec_quantile = 0.75, .spec_multiplier = 1.5, .spec_min_ms = 100,
                                .min_share = LADRA_MIN_SHARE, .min_excess_ms = LADRA_MIN_EXCESS_MS};
    clarity_ladra_hostscan_default(&o->host);
    clarity_ladra_netscan_default(&o->net);
}

/* Why each condition (measured on synth's training seeds and the shared real logs):
 * - a slowdown on every host that ran the stage is the stage's own (JVM warm-up in a first
 *   stage, a skewed query), not a host's: on nds_q72_dataproc_2_2 it was most of the 134
 *   periods; a stage on one host has no other host to tell a slow host from a slow stage;
 * - a host with one or two tasks in the stage set was never smoothed (the width-5 window had
 *   no neighbours): its "period" is a lone straggler (a 63.8 s task of 4 on four hosts);
 * - an excess under 1 s, or under 0.6% of the stage's task time, costs the run nothing worth a
 *   look (the 100-200 ms periods of q72).
 * None of the first two cost a true period on synth; the third costs some (docs/anomalies.md). */
bool clarity_ladra_period_matters(const struct ladra_period *p, const struct ladra_options *o)
{
    if (o->all_periods) return true;
    return p->stage_hosts >= 2 && p->stage_hosts_with_period < p->stage_hosts && p->host_set_tasks >= LADRA_MIN_HOST_TASKS &&
           p->excess_ms >= o->min_excess_ms && p->excess_ms >= o->min_share * p->stage_task_ms;
}

double clarity_ladra_threshold(const double *d, size_t n, double lambda, bool sample, double *mean, double *std)
{
    double m = 0, v = 0;
    for (size_t i = 0; i < n; i++) m += d[i];
    m = n ? m / (double)n : 0;
    for (size_t i = 0; i < n; i++) v += (d[i] - m) * (d[i] - m);
    size_t div = sample ? (n > 1 ? n - 1 : 1) : (n ? n : 1);
    double s = sqrt(v / (double)div);
    if (mean) *mean = m;
    if (std) *std = s;
    return m + lambda * s;
}

void clarity_ladra_smooth(const uint8_t *in, uint8_t *out, size_t n, bool strict)
{
    for (size_t i = 0; i < n; i++) {
        size_t lo = i >= 2 ? i - 2 : 0, hi = i + 2 < n ? i + 2 : n - 1, sum = 0;
        for (size_t k = lo; k <= hi; k++) sum += in[k] ? 1 : 0;
        size_t len = hi - lo + 1;
        /* Strict: missing neighbours count as 0, so the paper's "sum > 2" applies as is.
         * Edge majority (the default; --strict-edges gives zero padding): a truncated window
         * votes by majority, which equals the paper's rule inside. */
        out[i] = strict || len == 5 ? sum > 2 : 2 * sum > len;
    }
}

int clarity_ladra_speculation(const double *dur, size_t n, double quantile, double mult, double min_ms, uint8_t *flags,
                      double *threshold, size_t *flagged, struct clarity_error *err)
{
    memset(flags, 0, n);
    if (threshold) *threshold = 0;
    if (flagged) *flagged = 0;
    size_t q = (size_t)floor(quantile * (double)n);
    if (n < 2 || q < 1) return 0;
    double *s = malloc(q * sizeof *s);
    if (!s) return oom(err);
    memcpy(s, dur, q * sizeof *s);
    /* Spark's checkSpeculatableTasks: the element at index round(0.5 * n) of the sorted durations. */
    size_t mi = (size_t)llround(0.5 * (double)q);
    if (mi >= q) mi = q - 1;
    double thr = fmax(mult * clarity_select_kth(s, q, mi), min_ms);
    free(s);
    if (threshold) *threshold = thr;
    size_t hit = 0;
    for (size_t i = q; i < n; i++)
        if (dur[i] > thr) flags[i] = 1, hit++;
    if (flagged) *flagged = hit;
    return 0;
}

/* ---- per-stage work, on index arrays into in->tasks ---- */
struct det_ctx { struct ladra_task *t; const struct ladra_input *in; };

static int by_start(const void *a, const void *b, void *ctx)
{
    const struct det_ctx *c = ctx;
    const struct ladra_task *x = &c->t[*(const uint32_t *)a], *y = &c->t[*(const uint32_t *)b];
    if (x->host != y->host) return x->host < y->host ? -1 : 1;
    if (x->initial != y->initial) return x->initial ? -1 : 1;
    if (x->start_ms != y->start_ms) return x->start_ms < y->start_ms ? -1 : 1;
    int64_t i = clarity_ladra_task_id(c->in, x), j = clarity_ladra_task_id(c->in, y);
    return i < j ? -1 : i > j;
}
static int by_finish(const void *a, const void *b, void *ctx)
{
    const struct det_ctx *c = ctx;
    const struct ladra_task *x = &c->t[*(const uint32_t *)a], *y = &c->t[*(const uint32_t *)b];
    if (x->end_ms != y->end_ms) return x->end_ms < y->end_ms ? -1 : 1;
    int64_t i = clarity_ladra_task_id(c->in, x), j = clarity_ladra_task_id(c->in, y);
    return i < j ? -1 : i > j;
}

static void flag_set(struct ladra_task *t, const uint32_t *ix, size_t n, bool initial, const struct ladra_options *o,
                     double *buf)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (t[ix[i]].initial == initial) buf[k++] = (double)(t[ix[i]].end_ms - t[ix[i]].start_ms);
    /* Sets of fewer than 3 tasks are skipped: mean + 1.5 sigma cannot flag anything useful there
     * ({10, 10, 40}: threshold 41.2, nothing flagged). */
    if (k < 3) return;
    double thr = clarity_ladra_threshold(buf, k, o->lambda, o->sample_std, NULL, NULL);
    for (size_t i = 0; i < n; i++)
        if (t[ix[i]].initial == initial && (double)(t[ix[i]].end_ms - t[ix[i]].start_ms) > thr) t[ix[i]].raw = true;
}

static int add_period(struct ladra_period **p, size_t *np, size_t *cap, const struct ladra_period *x)
{
    if (*np == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        void *q = realloc(*p, nc * sizeof **p);
        if (!q) return -1;
        *p = q, *cap = nc;
    }
    (*p)[(*np)++] = *x;
    return 0;
}

/* buf (doubles), lab and sm hold n entries each. */
static int detect_stage(const struct det_ctx *c, uint32_t *ix, size_t n, const struct ladra_options *o, double *buf,
                        uint8_t *lab, uint8_t *sm, struct ladra_period **periods, size_t *np, size_t *cap,
                        struct clarity_error *err)
{
    struct ladra_task *t = c->t;
    int64_t first = INT64_MAX;
    for (size_t i = 0; i < n; i++) first = t[ix[i]].start_ms < first ? t[ix[i]].start_ms : first;
    size_t ninit = 0;
    for (size_t i = 0; i < n; i++) ninit += (t[ix[i]].initial = t[ix[i]].start_ms <= clarity_sat_add(first, o->init_tol_ms));
    /* First wave = started within init_tol_ms (1 s) of the stage's first task. A set of fewer
     * than 3 tasks gets no threshold of its own; merge it into the other. */
    if (ninit < 3 || n - ninit < 3)
        for (size_t i = 0; i < n; i++) t[ix[i]].initial = ninit >= 3 && n - ninit < 3;
    flag_set(t, ix, n, true, o, buf);
    flag_set(t, ix, n, false, o, buf);

    /* Speculation baseline over the stage, in finish order. */
    qsort_r(ix, n, sizeof *ix, by_finish, (void *)c);
    for (size_t i = 0; i < n; i++) buf[i] = (double)(t[ix[i]].end_ms - t[ix[i]].start_ms);
    int rc = clarity_ladra_speculation(buf, n, o->spec_quantile, o->spec_multiplier, (double)o->spec_min_ms, lab, NULL, NULL,
                               err);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++) t[ix[i]].speculation = lab[i];
    /* the stage's median task and summed task time, for whether a period matters */
    double stage_ms = 0;
    for (size_t i = 0; i < n; i++) stage_ms += buf[i];
    double median = clarity_median_mean_mid(buf, n);

    size_t first_period = *np;
    /* One label vector per (host, set), in start order, so a host's neighbours are its own
     * tasks and a single abnormal task on a host is never a period on its own. */
    qsort_r(ix, n, sizeof *ix, by_start, (void *)c);
    for (size_t a = 0; a < n && !rc;) {
        size_t b = a;
        while (b < n && t[ix[b]].host == t[ix[a]].host && t[ix[b]].initial == t[ix[a]].initial) b++;
        size_t m = b - a;
        for (size_t i = 0; i < m; i++) lab[i] = t[ix[a + i]].raw;
        clarity_ladra_smooth(lab, sm, m, o->strict_edges);
        /* Smoothing is meant to drop a single abnormal task, yet the edge-majority windows can
         * leave a lone 1 ([0,1,1,0,1,1,0,0,0,0] -> [1,0,1,1,1,0,...]). With min_period_tasks 2 a
         * run of smoothed 1s shorter than that is a spike and is cleared. Default 1 (lone 1s
         * kept): on synth runs the spikes were 14 of the 18 false periods of the fault-free
         * runs, but also most true detections of mild faults (bench/anomalies-eval.sh). */
        for (size_t i = 0; i < m && o->min_period_tasks > 1;) {
            if (!sm[i]) { i++; continue; }
            size_t j = i;
            while (j < m && sm[j]) j++;
            if (j - i < (size_t)o->min_period_tasks)
                for (size_t k = i; k < j; k++) sm[k] = 0;
            i = j;
        }
        for (size_t i = 0; i < m; i++) t[ix[a + i]].smooth = sm[i];
        /* Skew filter (on by default, --no-skew-filter): a non-local (RACK_LOCAL or ANY)
         * abnormal task is data skew unless a local task on the same host is abnormal too; a
         * lone skewed read says nothing about the host. Suspects stay in the output, marked. */
        bool local_abn = false;
        for (size_t i = 0; i < m; i++)
            if (sm[i] && t[ix[a + i]].locality <= CLARITY_LOC_NO_PREF) local_abn = true;
        for (size_t i = 0; i < m; i++) {
            struct ladra_task *x = &t[ix[a + i]];
            x->skew_suspect = o->skew_filter && x->smooth && !local_abn && x->locality >= CLARITY_LOC_RACK_LOCAL &&
                              x->locality != CLARITY_LOC_UNKNOWN;
        }
        for (size_t i = 0; i < m && !rc;) {
            if (!t[ix[a + i]].smooth || t[ix[a + i]].skew_suspect) { i++; continue; }
            struct ladra_period p = {.host = t[ix[a + i]].host, .exec = t[ix[a + i]].exec, .stage = t[ix[a + i]].stage,
                                     .start_ms = INT64_MAX, .end_ms = INT64_MIN};
            for (; i < m && t[ix[a + i]].smooth && !t[ix[a + i]].skew_suspect; i++) {
                const struct ladra_task *x = &t[ix[a + i]];
                p.start_ms = x->start_ms < p.start_ms ? x->start_ms : p.start_ms;
                p.end_ms = x->end_ms > p.end_ms ? x->end_ms : p.end_ms;
                if (x->exec != p.exec) p.exec = -1;   /* several executors on the host */
                p.tasks++;
                double d = (double)(x->end_ms - x->start_ms);
                if (d > median) p.excess_ms += d - median;
            }
            p.stage_median_ms = median, p.stage_task_ms = stage_ms, p.host_set_tasks = (uint32_t)m;
            if (add_period(periods, np, cap, &p)) rc = oom(err);
        }
        a = b;
    }
    /* hosts of the stage attempt (ix is in host order) and those with a period in it, then
     * whether each of its periods matters */
    uint32_t nh = 0, nhp = 0;
    for (size_t i = 0; i < n; i++) nh += i == 0 || t[ix[i]].host != t[ix[i - 1]].host;
    for (size_t k = first_period; k < *np; k++)
        nhp += k == first_period || (*periods)[k].host != (*periods)[k - 1].host;
    for (size_t k = first_period; k < *np && !rc; k++) {
        (*periods)[k].stage_hosts = nh, (*periods)[k].stage_hosts_with_period = nhp;
        (*periods)[k].matters = clarity_ladra_period_matters(&(*periods)[k], o);
    }
    return rc;
}

/* One worker's share: stages [s0, s1), its own buffers and periods (in stage order). */
struct det_job {
    const struct det_ctx *c;
    const struct ladra_options *o;
    uint32_t *ix;
    const uint32_t *off;
    size_t s0, s1, maxs;
    struct ladra_period *periods;
    size_t np, cap;
    int rc;
    struct clarity_error err;
};

static void *det_run(void *arg)
{
    struct det_job *j = arg;
    double *buf = malloc((j->maxs ? j->maxs : 1) * sizeof *buf);
    uint8_t *lab = malloc(j->maxs ? j->maxs : 1), *sm = malloc(j->maxs ? j->maxs : 1);
    j->rc = !buf || !lab || !sm ? oom(&j->err) : 0;
    for (size_t s = j->s0; s < j->s1 && !j->rc; s++)
        if (j->off[s + 1] > j->off[s])
            j->rc = detect_stage(j->c, j->ix + j->off[s], j->off[s + 1] - j->off[s], j->o, buf, lab, sm, &j->periods, &j->np,
                                 &j->cap, &j->err);
    free(buf), free(lab), free(sm);
    return NULL;
}

/* Below this many tasks a second worker costs more than it saves. */
#define DETECT_PARALLEL_MIN 50000

int clarity_ladra_detect(struct ladra_input *in, const struct ladra_options *o, struct ladra_period **periods, size_t *nperiods,
                 struct clarity_error *err)
{
    *periods = NULL, *nperiods = 0;
    size_t n = in->ntasks, ns = in->nstages;
    /* stages in index order, each stage's tasks in task order (a stable counting sort) */
    uint32_t *ix = malloc((n ? n : 1) * sizeof *ix), *off = calloc(ns + 1, sizeof *off);
    if (!ix || !off) return free(ix), free(off), oom(err);
    for (size_t i = 0; i < n; i++) {
        struct ladra_task *t = &in->tasks[i];
        t->raw = t->smooth = t->skew_suspect = t->speculation = false;
        off[t->stage + 1]++;
    }
    size_t maxs = 0;
    for (size_t s = 0; s < ns; s++) maxs = off[s + 1] > maxs ? off[s + 1] : maxs, off[s + 1] += off[s];
    for (size_t i = 0; i < n; i++) ix[off[in->tasks[i].stage]++] = (uint32_t)i;
    for (size_t s = ns; s > 0; s--) off[s] = off[s - 1];
    off[0] = 0;
    /* Stages are independent (each marks its own tasks and finds its own periods), so two
     * workers take the stages in two runs of about half the tasks each, and their periods are
     * joined in stage order: the same result as one worker. */
    struct det_ctx c = {in->tasks, in};
    struct det_job job[2] = {{.c = &c, .o = o, .ix = ix, .off = off, .s0 = 0, .s1 = ns, .maxs = maxs},
                             {.c = &c, .o = o, .ix = ix, .off = off, .s0 = ns, .s1 = ns, .maxs = maxs}};
    int workers = o->threads > 0 ? o->threads : 2;
    if (workers > 1 && (o->threads > 1 || n >= DETECT_PARALLEL_MIN)) {
        size_t mid = 0;
        while (mid < ns && off[mid] < n / 2) mid++;
        job[0].s1 = job[1].s0 = mid;
    }
    pthread_t tid;
    bool started = job[1].s0 < ns && pthread_create(&tid, NULL, det_run, &job[1]) == 0;
    det_run(&job[0]);
    if (started) pthread_join(tid, NULL);
    else det_run(&job[1]);
    int rc = job[0].rc ? job[0].rc : job[1].rc;
    if (rc) {
        if (err) *err = job[0].rc ? job[0].err : job[1].err;
    } else if (!job[1].np) {
        *periods = job[0].periods, *nperiods = job[0].np, job[0].periods = NULL;
    } else if (!job[0].np) {
        *periods = job[1].periods, *nperiods = job[1].np, job[1].periods = NULL;
    } else {
        struct ladra_period *p = realloc(job[0].periods, (job[0].np + job[1].np) * sizeof *p);
        if (!p) rc = oom(err);
        else {
            memcpy(p + job[0].np, job[1].periods, job[1].np * sizeof *p);
            *periods = p, *nperiods = job[0].np + job[1].np, job[0].periods = NULL;
        }
    }
    free(job[0].periods), free(job[1].periods);
    free(ix), free(off);
    return rc;
}
