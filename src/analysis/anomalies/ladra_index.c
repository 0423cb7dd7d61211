/* LADRA's shared indexes (ladra_index.h): tasks by host, the (stage, host) pairs, stage
 * medians and the per-host sums the victim rule and the factors read. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/anomalies/ladra_index.h"
#include "util/stats.h"

/* What detection keeps per task attempt on top of the model (docs/anomalies.md). */
_Static_assert(sizeof(struct ladra_task) <= 40, "struct ladra_task grew past 40 bytes");

static int oom(struct clarity_error *err)
{
    return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in LADRA");
}

void clarity_ladra_task_metrics(const struct ladra_input *in, const struct ladra_task *t, struct ladra_metrics *m)
{
    const struct clarity_app *a = in->app;
    if (!a) {
        if (in->metrics) *m = in->metrics[t->row];
        else *m = (struct ladra_metrics){.tid = t->row, .run_ms = -1, .cpu_ms = -1, .gc_ms = -1, .fetch_wait_ms = -1};
        return;
    }
    size_t i = t->row;
    m->tid = clarity_icol_get(&a->tasks.task_id, i);
    if (!(clarity_task_flags(a, i) & CLARITY_TF_HAS_METRICS)) {
        m->run_ms = m->cpu_ms = m->gc_ms = m->fetch_wait_ms = -1;
        m->sw_ns = m->sw_bytes = m->remote_bytes = m->disk_bytes = 0;
        return;
    }
    m->run_ms = clarity_task_metric(a, i, CLARITY_TM_RUN_MS);
    m->cpu_ms = clarity_task_metric(a, i, CLARITY_TM_CPU_NS) / 1000000;
    m->gc_ms = clarity_task_metric(a, i, CLARITY_TM_GC_MS);
    m->fetch_wait_ms = clarity_task_metric(a, i, CLARITY_TM_SR_FETCH_WAIT_MS);
    m->sw_ns = clarity_task_metric(a, i, CLARITY_TM_SW_TIME_NS);
    m->sw_bytes = clarity_task_metric(a, i, CLARITY_TM_SW_BYTES);
    m->remote_bytes = clarity_task_metric(a, i, CLARITY_TM_SR_REMOTE_BYTES);
    /* Saturating: a log may carry byte counts near INT64_MAX (corrupt or synthetic extremes),
     * and four of them summed must not overflow; the read component only compares magnitudes. */
    static const enum clarity_tm disk[] = {CLARITY_TM_INPUT_BYTES, CLARITY_TM_OUTPUT_BYTES,
                                                    CLARITY_TM_SR_LOCAL_BYTES, CLARITY_TM_DISK_SPILLED};
    m->disk_bytes = 0;
    for (size_t k = 0; k < sizeof disk / sizeof disk[0]; k++) {
        int64_t v = clarity_task_metric(a, i, disk[k]);
        if (__builtin_add_overflow(m->disk_bytes, v, &m->disk_bytes)) m->disk_bytes = v < 0 ? INT64_MIN : INT64_MAX;
    }
}

int64_t clarity_ladra_task_id(const struct ladra_input *in, const struct ladra_task *t)
{
    if (in->app) return clarity_icol_get(&in->app->tasks.task_id, t->row);
    return in->metrics ? in->metrics[t->row].tid : (int64_t)t->row;
}

/* Stable counting sort of the tasks by stage or host: off (ng + 1) and ix (n). */
static void group(const struct ladra_task *t, size_t n, bool host, uint32_t *off, size_t ng, uint32_t *ix)
{
    for (size_t i = 0; i < n; i++) off[(host ? t[i].host : t[i].stage) + 1]++;
    for (size_t g = 0; g < ng; g++) off[g + 1] += off[g];
    for (size_t i = 0; i < n; i++) ix[off[host ? t[i].host : t[i].stage]++] = (uint32_t)i;
    for (size_t g = ng; g > 0; g--) off[g] = off[g - 1];
    off[0] = 0;
}

static int pair_by_host(const void *a, const void *b)
{
    int32_t x = ((const struct ladra_pair *)a)->host, y = ((const struct ladra_pair *)b)->host;
    return (x > y) - (x < y);
}

static double dur(const struct ladra_task *t) { return (double)(t->end_ms - t->start_ms); }

/* Bytes a task read: input plus shuffle read (local and remote); 0 when unknown. */
static double work_bytes(const struct ladra_input *in, const struct ladra_task *t)
{
    const struct clarity_app *a = in->app;
    if (!a || !(clarity_task_flags(a, t->row) & CLARITY_TF_HAS_METRICS)) return 0;
    return (double)clarity_task_metric(a, t->row, CLARITY_TM_INPUT_BYTES) +
           (double)clarity_task_metric(a, t->row, CLARITY_TM_SR_REMOTE_BYTES) +
           (double)clarity_task_metric(a, t->row, CLARITY_TM_SR_LOCAL_BYTES);
}

/* Tasks of a host, beyond its own, that count as unslowed in its mean (a host's score is the
 * mean of its tasks' log slowdowns with this many zeros added): a host that ran one task, slow
 * by chance, does not outrank a host slowed over tens of tasks. */
#define VICTIM_PRIOR_TASKS 2.0

struct cev { int64_t t; uint32_t i; int d; };

static int cev_cmp(const void *pa, const void *pb)
{
    const struct cev *a = pa, *b = pb;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    return a->d - b->d;   /* an end before a start at the same ms: those two did not overlap */
}

/* conc[i]: the mean number of tasks running on task i's host while it ran, itself included
 * (the integral of the host's running count over the task, over its duration; 1 for a task of
 * no duration). One sort of each host's launch and finish events. Returns -1 when out of memory. */
static int concurrency(const struct ladra_index *x, const struct ladra_input *in, double *conc)
{
    struct cev *e = malloc((x->max_host_tasks ? 2 * x->max_host_tasks : 1) * sizeof *e);
    if (!e) return -1;
    for (size_t h = 0; h < x->nh; h++) {
        size_t k = 0;
        for (uint32_t q = x->host_off[h]; q < x->host_off[h + 1]; q++) {
            const struct ladra_task *u = &in->tasks[x->host_ix[q]];
            e[k++] = (struct cev){u->start_ms, x->host_ix[q], +1};
            e[k++] = (struct cev){u->end_ms > u->start_ms ? u->end_ms : u->start_ms, x->host_ix[q], -1};
        }
        if (k > 1) qsort(e, k, sizeof *e, cev_cmp);
        double integral = 0;
        int64_t running = 0, last = k ? e[0].t : 0;
        for (size_t j = 0; j < k; j++) {
            integral += (double)running * (double)(e[j].t - last);
            last = e[j].t;
            if (e[j].d > 0) conc[e[j].i] = -integral;
            else conc[e[j].i] += integral;
            running += e[j].d;
        }
    }
    for (size_t i = 0; i < x->n; i++) {
        double d = dur(&in->tasks[i]);
        conc[i] = d > 0 && conc[i] > 0 ? conc[i] / d : 1;
    }
    free(e);
    return 0;
}

/* The victim rule's score of every host (host_slowdown), independent of how many tasks a host
 * ran and of how many hosts the cluster has. The summed time beyond the stage medians grows
 * with the tasks a host ran: on 16 hosts it named the host that ran the most tasks, not the
 * faulty one (docs/anomalies.md, "A victim host that does not count tasks"). Per stage, each task's log time per byte read (when every task of the stage read
 * bytes; else its log duration) is first freed of its host's load: a host running 8 tasks at
 * once on 2 disks reads each byte 2-3 times slower than one running 1-3 (synth Sort's map
 * stage on 16 hosts), and no fault is behind it. The stage's slope of log time per byte over
 * log concurrency (least squares over its tasks, held within [0, 1]: from "load costs
 * nothing" to "time grows with the load") is taken out. Then each task is compared with the
 * OTHER hosts' tasks of its stage: its residual minus the mean of theirs (their geometric
 * mean, so one straggler elsewhere moves it little). A host's score is the mean over its
 * tasks, with VICTIM_PRIOR_TASKS unslowed tasks added. host_lost sums, over the host's tasks,
 * the time each would not have taken at the others' rate (negative when faster). The victim
 * is chosen by this score on more than LADRA_VICTIM_EXCESS_MAX_HOSTS hosts only (why in
 * ladra_index.h). ls (the largest stage's task count) is scratch. Returns -1 when out of memory. */
static int host_slowdown(struct ladra_index *x, const struct ladra_input *in, const uint32_t *stage_off,
                         const uint32_t *stage_ix, double *ls)
{
    const struct ladra_task *t = in->tasks;
    size_t nh = x->nh, m1 = nh ? nh : 1;
    double *sum = calloc(m1, sizeof *sum), *cnt = calloc(m1, sizeof *cnt), *hs = calloc(m1, sizeof *hs),
           *hn = calloc(m1, sizeof *hn), *conc = malloc((x->n ? x->n : 1) * sizeof *conc);
    if (!sum || !cnt || !hs || !hn || !conc || concurrency(x, in, conc)) {
        free(sum), free(cnt), free(hs), free(hn), free(conc);
        return -1;
    }
    for (size_t s = 0; s < x->ns; s++) {
        const uint32_t *ix = stage_ix + stage_off[s];
        size_t m = stage_off[s + 1] - stage_off[s];
        if (x->pair_off[s + 1] - x->pair_off[s] < 2) continue;   /* one host: no other to compare */
        bool bytes = true;
        for (size_t k = 0; k < m && bytes; k++) bytes = work_bytes(in, &t[ix[k]]) > 0;
        double my = 0, mc = 0, sxy = 0, sxx = 0;
        for (size_t k = 0; k < m; k++) {
            double d = fmax(dur(&t[ix[k]]), 1);
            ls[k] = log(bytes ? d / work_bytes(in, &t[ix[k]]) : d);
            my += ls[k], mc += log(conc[ix[k]]);
        }
        my /= (double)m, mc /= (double)m;
        for (size_t k = 0; k < m; k++) {
            double c = log(conc[ix[k]]) - mc;
            sxy += c * (ls[k] - my), sxx += c * c;
        }
        double b = sxx > 0 ? fmin(fmax(sxy / sxx, 0), 1) : 0, all = 0;
        for (size_t k = 0; k < m; k++) {
            ls[k] -= b * log(conc[ix[k]]);
            all += ls[k];
            hs[t[ix[k]].host] = 0, hn[t[ix[k]].host] = 0;
        }
        for (size_t k = 0; k < m; k++) hs[t[ix[k]].host] += ls[k], hn[t[ix[k]].host]++;
        for (size_t k = 0; k < m; k++) {
            int32_t h = t[ix[k]].host;
            double no = (double)m - hn[h];
            double dl = ls[k] - (all - hs[h]) / no;
            sum[h] += dl, cnt[h]++;
            /* the time this task would not have taken at the others' rate: d (1 - e^-dl) */
            x->host_lost[h] += dur(&t[ix[k]]) * (1 - exp(-dl));
        }
    }
    for (size_t h = 0; h < nh; h++) x->host_slowdown[h] = sum[h] / (cnt[h] + VICTIM_PRIOR_TASKS);
    free(sum), free(cnt), free(hs), free(hn);
    if (clarity__ladra_victim_by_slowdown(x)) x->conc = conc;   /* the components read it */
    else free(conc);
    return 0;
}

/* Above 4 hosts, the victim is the host that lost the most time (host_lost) among those whose
 * mean slowdown per task (host_slowdown) is at least this share of the highest. The mean alone
 * lets a fault-free host whose every task ran a little slow (its load, its partitions) outrank
 * the faulty host, whose tasks in the fault window ran 20-30% slower and those after it at the
 * others' rate: on 16-host WordCount memory hogs (tuning seeds 1-5) the mean named the faulty
 * host in 2 of 10 runs, the lost time in 10 of 10. The lost time alone names the host that ran
 * the most or the longest tasks of a cache-missing K-means (8 of 15 on 16 hosts), which the
 * mean does not. Over the 218 hog runs of the tuning seeds whose fault slowed tasks (8 and 16
 * hosts), the faulty host: mean 161, lost time 169, lost time among hosts at >= 0.3 / 0.4 / 0.5
 * / 0.6 / 0.8 of the top mean 180 / 179 / 175 / 172 / 166 (docs/anomalies.md, "The victim by
 * lost time"). */
#define VICTIM_LOST_MIN_SLOWDOWN_SHARE 0.4

int32_t clarity__ladra_run_victim(const struct ladra_index *x)
{
    bool by_slowdown = clarity__ladra_victim_by_slowdown(x);
    const double *score = by_slowdown ? x->host_slowdown : x->host_excess;
    int32_t v = 0;
    for (size_t j = 1; j < x->nh; j++)
        if (score[j] > score[v]) v = (int32_t)j;
    if (!by_slowdown || !(score[v] > 0)) return v;
    double min = VICTIM_LOST_MIN_SLOWDOWN_SHARE * score[v];
    for (size_t j = 0; j < x->nh; j++)
        if (score[j] >= min && x->host_lost[j] > x->host_lost[v]) v = (int32_t)j;
    return v;
}

bool clarity__ladra_victim_by_slowdown(const struct ladra_index *x) { return x->nh > LADRA_VICTIM_EXCESS_MAX_HOSTS; }

int clarity__ladra_index_build(struct ladra_index *x, const struct ladra_input *in, struct clarity_error *err)
{
    memset(x, 0, sizeof *x);
    size_t n = in->ntasks, ns = in->nstages, nh = in->nhosts;
    const struct ladra_task *t = in->tasks;
    x->n = n, x->ns = ns, x->nh = nh;
    uint32_t *stage_off = calloc(ns + 1, sizeof *stage_off), *stage_ix = malloc((n ? n : 1) * sizeof *stage_ix);
    int32_t *slot = malloc((nh ? nh : 1) * sizeof *slot);
    double *buf = NULL;
    size_t pcap = 0;
    x->host_off = calloc(nh + 1, sizeof *x->host_off);
    x->host_ix = malloc((n ? n : 1) * sizeof *x->host_ix);
    x->pair_off = calloc(ns + 1, sizeof *x->pair_off);
    x->first_sum = calloc(ns ? ns : 1, sizeof *x->first_sum);
    x->first_n = calloc(ns ? ns : 1, sizeof *x->first_n);
    x->stage_med = calloc(ns ? ns : 1, sizeof *x->stage_med);
    x->host_excess = calloc(nh ? nh : 1, sizeof *x->host_excess);
    x->host_slowdown = calloc(nh ? nh : 1, sizeof *x->host_slowdown);
    x->host_lost = calloc(nh ? nh : 1, sizeof *x->host_lost);
    x->slow = calloc(nh ? nh : 1, sizeof *x->slow);
    x->nslow = calloc(nh ? nh : 1, sizeof *x->nslow);
    if (!stage_off || !stage_ix || !slot || !x->host_off || !x->host_ix || !x->pair_off || !x->first_sum ||
        !x->first_n || !x->stage_med || !x->host_excess || !x->host_slowdown || !x->host_lost || !x->slow || !x->nslow)
        goto fail;
    group(t, n, false, stage_off, ns, stage_ix);
    group(t, n, true, x->host_off, nh, x->host_ix);
    size_t maxs = 0;
    for (size_t s = 0; s < ns; s++) maxs = stage_off[s + 1] - stage_off[s] > maxs ? stage_off[s + 1] - stage_off[s] : maxs;
    for (size_t h = 0; h < nh; h++) {
        size_t m = x->host_off[h + 1] - x->host_off[h];
        x->max_host_tasks = m > x->max_host_tasks ? m : x->max_host_tasks;
    }
    if (!(buf = malloc((maxs ? maxs : 1) * sizeof *buf))) goto fail;
    for (size_t h = 0; h < nh; h++) slot[h] = -1;
    double first_abs = 0;
    for (size_t s = 0; s < ns; s++) {
        const uint32_t *ix = stage_ix + stage_off[s];
        size_t m = stage_off[s + 1] - stage_off[s], base = x->npairs;
        for (size_t k = 0; k < m; k++) buf[k] = dur(&t[ix[k]]);
        x->stage_med[s] = m ? clarity_median_mean_mid(buf, m) : 0;
        for (size_t k = 0; k < m; k++) {
            const struct ladra_task *u = &t[ix[k]];
            if (slot[u->host] < 0) {
                if (x->npairs == pcap) {
                    size_t nc = pcap ? pcap * 2 : 1024;
                    void *q = realloc(x->pairs, nc * sizeof *x->pairs);
                    if (!q) goto fail;
                    x->pairs = q, pcap = nc;
                }
                slot[u->host] = (int32_t)x->npairs;
                x->pairs[x->npairs++] = (struct ladra_pair){.host = u->host, .first_start = INT64_MAX};
            }
            struct ladra_pair *p = &x->pairs[slot[u->host]];
            double d = dur(u);
            p->tasks++, p->dur_sum += d;
            if (u->start_ms < p->first_start) p->first_start = u->start_ms, p->first_dur = d;
        }
        for (size_t k = base; k < x->npairs; k++) slot[x->pairs[k].host] = -1;
        /* a stage without tasks has no pairs (and before the first, no array: qsort(NULL) is UB) */
        if (x->npairs - base > 1) qsort(x->pairs + base, x->npairs - base, sizeof *x->pairs, pair_by_host);
        x->pair_off[s + 1] = (uint32_t)x->npairs;
        for (size_t k = base; k < x->npairs; k++)
            if (x->pairs[k].first_start != INT64_MAX)
                x->first_sum[s] += x->pairs[k].first_dur, x->first_n[s]++, first_abs += fabs(x->pairs[k].first_dur);
    }
    /* durations are whole numbers; below 2^52 the float sum of their sizes bounds the true one
     * under 2^53, so every partial sum is exact */
    x->exact_first = first_abs <= 0x1p52;
    for (size_t i = 0; i < n; i++) {
        double d = dur(&t[i]), med = x->stage_med[t[i].stage], e = d - med;
        if (e > 0) x->host_excess[t[i].host] += e;
        if (med > 0) x->slow[t[i].host] += d / med, x->nslow[t[i].host]++;
    }
    if (host_slowdown(x, in, stage_off, stage_ix, buf)) goto fail;
    free(stage_off), free(stage_ix), free(slot), free(buf);
    return 0;
fail:
    free(stage_off), free(stage_ix), free(slot), free(buf);
    clarity__ladra_index_free(x);
    return oom(err);
}

void clarity__ladra_index_free(struct ladra_index *x)
{
    free(x->host_off), free(x->host_ix), free(x->pair_off), free(x->pairs), free(x->first_sum), free(x->first_n);
    free(x->stage_med), free(x->host_excess), free(x->host_slowdown), free(x->host_lost), free(x->slow), free(x->nslow);
    free(x->conc);
    memset(x, 0, sizeof *x);
}

int clarity__ladra_scratch_init(struct ladra_stage_scratch *s, size_t ns)
{
    size_t m = ns ? ns : 1;
    s->sx = calloc(m, sizeof *s->sx), s->abn = calloc(m, sizeof *s->abn);
    s->seen = calloc(m, 1), s->list = malloc(m * sizeof *s->list);
    s->nlist = 0;
    if (s->sx && s->abn && s->seen && s->list) return 0;
    clarity__ladra_scratch_free(s);
    return -1;
}

void clarity__ladra_scratch_free(struct ladra_stage_scratch *s)
{
    free(s->sx), free(s->abn), free(s->seen), free(s->list);
    memset(s, 0, sizeof *s);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int32_t clarity__ladra_host_stages(const struct ladra_index *x, const struct ladra_input *in, int32_t v,
                                   struct ladra_stage_scratch *s)
{
    s->nlist = 0;
    if (v < 0 || (size_t)v >= x->nh || !x->ns) return 0;
    for (uint32_t k = x->host_off[v]; k < x->host_off[v + 1]; k++) {
        const struct ladra_task *t = &in->tasks[x->host_ix[k]];
        int32_t st = t->stage;
        if (!s->seen[st]) s->seen[st] = 1, s->list[s->nlist++] = st;
        double e = dur(t) - x->stage_med[st];
        if (e > 0) s->sx[st] += e;
        if (t->smooth && !t->skew_suspect) s->abn[st]++;
    }
    if (s->nlist > 1) qsort(s->list, s->nlist, sizeof *s->list, cmp_i32);
    /* The plain rule scans every stage from 0 and moves on a strictly better one; a stage
     * without tasks of v scores (0, 0) and never is, so v's own stages decide. */
    int32_t best = 0;
    double babn = s->abn[0], bsx = s->sx[0];
    for (size_t k = 0; k < s->nlist; k++) {
        int32_t st = s->list[k];
        if (st > 0 && (s->abn[st] > babn || (s->abn[st] == babn && s->sx[st] > bsx))) best = st, babn = s->abn[st], bsx = s->sx[st];
    }
    for (size_t k = 0; k < s->nlist; k++) s->sx[s->list[k]] = s->abn[s->list[k]] = 0, s->seen[s->list[k]] = 0;
    return best;
}

/* ---- window sums ---- */
enum { W_CNT, W_ABN, W_RUN, W_CPU, W_GC, W_FW, W_XRUN, W_XFW, W_XSWNS, W_XSWB, W_RRUN, W_RFW, W_RRB, W_NF };

/* What task t adds to an overlapping window's sums (all >= 0). */
static void contrib(const struct ladra_task *t, const struct ladra_metrics *m, uint64_t c[W_NF])
{
    memset(c, 0, W_NF * sizeof *c);
    c[W_CNT] = 1;
    c[W_ABN] = t->smooth && !t->skew_suspect;
    if (m->run_ms > 0 && m->cpu_ms >= 0) c[W_RUN] = (uint64_t)m->run_ms, c[W_CPU] = (uint64_t)m->cpu_ms;
    if (m->gc_ms >= 0 && m->run_ms > 0) c[W_GC] = (uint64_t)m->gc_ms;
    if (m->fetch_wait_ms >= 0) c[W_FW] = (uint64_t)m->fetch_wait_ms;
    if (m->run_ms <= 0) return;
    c[W_XRUN] = (uint64_t)m->run_ms;
    if (m->fetch_wait_ms > 0) c[W_XFW] = (uint64_t)m->fetch_wait_ms;
    if (m->sw_bytes > 0 && m->sw_ns >= 0) c[W_XSWNS] = (uint64_t)m->sw_ns, c[W_XSWB] = (uint64_t)m->sw_bytes;
    if (m->remote_bytes > 0)
        c[W_RRUN] = (uint64_t)m->run_ms, c[W_RFW] = m->fetch_wait_ms > 0 ? (uint64_t)m->fetch_wait_ms : 0,
        c[W_RRB] = (uint64_t)m->remote_bytes;
}

void clarity__ladra_win_direct(const struct ladra_input *in, int64_t ws, int64_t we, struct ladra_win *w)
{
    memset(w, 0, in->nhosts * sizeof *w);
    for (size_t i = 0; i < in->ntasks; i++) {
        const struct ladra_task *t = &in->tasks[i];
        struct ladra_win *a = &w[t->host];
        struct ladra_metrics m;
        clarity_ladra_task_metrics(in, t, &m);
        bool inside = t->start_ms < we && t->end_ms > ws;
        if (inside) {
            a->cnt++;
            a->abn += t->smooth && !t->skew_suspect;
            if (m.run_ms > 0 && m.cpu_ms >= 0) a->run += (double)m.run_ms, a->cpu += (double)m.cpu_ms;
            if (m.gc_ms >= 0 && m.run_ms > 0) a->gc += (double)m.gc_ms;
            if (m.fetch_wait_ms >= 0) a->fw += (double)m.fetch_wait_ms;
        }
        if (m.run_ms <= 0) continue;
        if (m.remote_bytes > 0) {
            double fw = m.fetch_wait_ms > 0 ? (double)m.fetch_wait_ms : 0;
            if (inside) a->r_run_in += (double)m.run_ms, a->r_fw_in += fw, a->r_rb_in += (double)m.remote_bytes;
            else a->r_run_out += (double)m.run_ms, a->r_fw_out += fw;
        }
        if (!inside) continue;
        a->x_run += (double)m.run_ms;
        if (m.fetch_wait_ms > 0) a->x_fw += (double)m.fetch_wait_ms;
        if (m.sw_bytes > 0 && m.sw_ns >= 0) a->x_swns += (double)m.sw_ns, a->x_swb += (double)m.sw_bytes;
    }
}

struct rank_ctx { const int64_t *key; };
static int by_key(const void *a, const void *b, void *ctx)
{
    const int64_t *k = ((const struct rank_ctx *)ctx)->key;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (k[x] != k[y]) return k[x] < k[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* rank[q]: q's place among keys in ascending order; sorted gets the keys in that order. */
static void ranks(const int64_t *key, size_t nq, uint32_t *order, uint32_t *rank, int64_t *sorted)
{
    for (size_t q = 0; q < nq; q++) order[q] = (uint32_t)q;
    struct rank_ctx c = {key};
    qsort_r(order, nq, sizeof *order, by_key, &c);
    for (size_t k = 0; k < nq; k++) rank[order[k]] = (uint32_t)k, sorted[k] = key[order[k]];
}

/* First k in sorted[0..n) with sorted[k] > v (strict) or >= v. */
static size_t bound(const int64_t *sorted, size_t n, int64_t v, bool strict)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strict ? sorted[mid] > v : sorted[mid] >= v) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

int clarity__ladra_winsums_build(struct ladra_winsums *s, const struct ladra_input *in, const int64_t *ws,
                                 const int64_t *we, size_t nq, struct clarity_error *err)
{
    memset(s, 0, sizeof *s);
    size_t nh = in->nhosts, n = in->ntasks;
    s->in = in, s->nq = nq, s->nh = nh, s->ws = ws, s->we = we;
    for (size_t q = 0; q < nq; q++)
        if (we[q] <= ws[q]) s->direct = true;   /* the subtraction needs ws < we */
    if (s->direct || !nq || !nh) return 0;
    size_t cells = (nq + 1) * nh * W_NF;
    uint32_t *order = malloc(nq * sizeof *order);
    int64_t *sa = malloc(nq * sizeof *sa), *sb = malloc(nq * sizeof *sb);
    uint64_t *tot = calloc(nh * W_NF, sizeof *tot);
    s->rank_a = malloc(nq * sizeof *s->rank_a), s->rank_b = malloc(nq * sizeof *s->rank_b);
    s->a = calloc(cells, sizeof *s->a), s->b = calloc(cells, sizeof *s->b);
    s->tot_run = calloc(nh, sizeof *s->tot_run), s->tot_fw = calloc(nh, sizeof *s->tot_fw);
    size_t ocap = 0;
    bool overflow = false;
    if (!order || !sa || !sb || !tot || !s->rank_a || !s->rank_b || !s->a || !s->b || !s->tot_run || !s->tot_fw)
        goto fail;
    ranks(we, nq, order, s->rank_a, sa);
    ranks(ws, nq, order, s->rank_b, sb);
    for (size_t i = 0; i < n; i++) {
        const struct ladra_task *t = &in->tasks[i];
        struct ladra_metrics m;
        uint64_t c[W_NF];
        clarity_ladra_task_metrics(in, t, &m);
        contrib(t, &m, c);
        uint64_t *ht = tot + (size_t)t->host * W_NF;
        for (int f = 0; f < W_NF; f++) overflow |= __builtin_add_overflow(ht[f], c[f], &ht[f]);
        if (t->end_ms < t->start_ms) {   /* the subtraction needs end >= start: added per window */
            if (s->nodd == ocap) {
                size_t nc = ocap ? ocap * 2 : 64;
                void *p = realloc(s->odd, nc * sizeof *s->odd);
                if (!p) goto fail;
                s->odd = p, ocap = nc;
            }
            s->odd[s->nodd++] = (uint32_t)i;
            continue;
        }
        /* windows (by end) with we > start get it; those (by start) with ws >= end lose it */
        uint64_t *da = s->a + (bound(sa, nq, t->start_ms, true) * nh + (size_t)t->host) * W_NF;
        uint64_t *db = s->b + (bound(sb, nq, t->end_ms, false) * nh + (size_t)t->host) * W_NF;
        for (int f = 0; f < W_NF; f++) da[f] += c[f], db[f] += c[f];
    }
    /* every partial sum of a host's metric in any window is at most its total */
    for (size_t k = 0; k < nh * W_NF; k++) overflow |= tot[k] > (UINT64_C(1) << 53);
    if (overflow) {
        free(order), free(sa), free(sb), free(tot);
        clarity__ladra_winsums_free(s);
        s->in = in, s->nq = nq, s->nh = nh, s->ws = ws, s->we = we, s->direct = true;
        return 0;
    }
    for (size_t h = 0; h < nh; h++) s->tot_run[h] = tot[h * W_NF + W_RRUN], s->tot_fw[h] = tot[h * W_NF + W_RFW];
    size_t row = nh * W_NF;
    for (size_t k = 1; k < nq; k++)
        for (size_t j = 0; j < row; j++) s->a[k * row + j] += s->a[(k - 1) * row + j], s->b[k * row + j] += s->b[(k - 1) * row + j];
    free(order), free(sa), free(sb), free(tot);
    return 0;
fail:
    free(order), free(sa), free(sb), free(tot);
    clarity__ladra_winsums_free(s);
    return oom(err);
}

static void set_win(struct ladra_win *x, const uint64_t c[W_NF], bool add)
{
    double *f[W_NF] = {&x->cnt, &x->abn, &x->run, &x->cpu, &x->gc, &x->fw, &x->x_run, &x->x_fw, &x->x_swns, &x->x_swb,
                       &x->r_run_in, &x->r_fw_in, &x->r_rb_in};
    for (int k = 0; k < W_NF; k++) *f[k] = (add ? *f[k] : 0) + (double)c[k];
}

void clarity__ladra_winsums_get(const struct ladra_winsums *s, size_t q, struct ladra_win *w)
{
    const struct ladra_input *in = s->in;
    if (s->direct) {
        clarity__ladra_win_direct(in, s->ws[q], s->we[q], w);
        return;
    }
    size_t nh = s->nh, row = nh * W_NF;
    const uint64_t *A = s->a + s->rank_a[q] * row, *B = s->b + s->rank_b[q] * row;
    for (size_t h = 0; h < nh; h++) {
        uint64_t c[W_NF];
        for (int f = 0; f < W_NF; f++) c[f] = A[h * W_NF + f] - B[h * W_NF + f];
        set_win(&w[h], c, false);
    }
    /* whole numbers whose host totals are at most 2^53: the additions are exact in any order */
    for (size_t k = 0; k < s->nodd; k++) {
        const struct ladra_task *t = &in->tasks[s->odd[k]];
        if (!(t->start_ms < s->we[q] && t->end_ms > s->ws[q])) continue;
        struct ladra_metrics m;
        uint64_t c[W_NF];
        clarity_ladra_task_metrics(in, t, &m);
        contrib(t, &m, c);
        set_win(&w[t->host], c, true);
    }
    for (size_t h = 0; h < nh; h++)
        w[h].r_run_out = (double)s->tot_run[h] - w[h].r_run_in, w[h].r_fw_out = (double)s->tot_fw[h] - w[h].r_fw_in;
}

void clarity__ladra_winsums_free(struct ladra_winsums *s)
{
    free(s->rank_a), free(s->rank_b), free(s->a), free(s->b), free(s->tot_run), free(s->tot_fw), free(s->odd);
    memset(s, 0, sizeof *s);
}
