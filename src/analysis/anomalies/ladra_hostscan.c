/* LADRA's cross-stage host scan (beyond the paper, issue 15): a host whose tasks are each a
 * little slow, in many stages, has no task above mean + 1.5 sd of any one stage, so LADRA's
 * per-stage detection finds no period there, yet the host lost time over the run (a mild
 * CPU, memory or disk hog; PageRank's many small stages). The scan pools that evidence:
 *   1. per stage attempt that ran on 3 hosts or more (stage_hosts: with two, a slow host and
 *      a fast one look alike), each task's log duration against the
 *      other hosts' tasks of the same stage (the mean of their log durations: a slowdown
 *      ratio, so stages of 50 ms and of 5 min weigh alike), in units of the other hosts'
 *      spread of log durations in that stage (a skewed stage says less per task than a
 *      regular one; the host's own tasks are left out of it, or a slow host widens the
 *      spread it is measured against);
 *   2. per host, those standardised residuals in start order, across stages, and the stretch
 *      of consecutive tasks with the largest sum of (residual - drift) (a one-sided CUSUM:
 *      the drift keeps a host that is as fast as the others from growing a stretch);
 *   3. the stretch is a period of the host when it holds enough tasks, its residuals are
 *      significant (their sum over sqrt(tasks), a z score, taken after the scan chose the
 *      stretch: the bound allows for that choice) and it cost the run time: its tasks' time
 *      beyond the other hosts' typical task of the same stage, absolute and as a share of the
 *      application's task time (a long run gathers significance from tiny differences: on a
 *      healthy 4-host NDS log every host has a stretch of z 11 to 23 costing 0.1-0.7% of it).
 * Linear in the tasks, but for sorting each host's tasks by start (a counting sort by stage
 * and by host, two passes per stage, one scan per host). Thresholds and why:
 * include/clarity/anomalies.h and docs/anomalies.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/anomalies.h"

void clarity_ladra_hostscan_default(struct ladra_hostscan_options *o)
{
    *o = (struct ladra_hostscan_options){.min_tasks = LADRA_HOST_MIN_TASKS, .stage_hosts = LADRA_HOST_STAGE_HOSTS,
                                         .min_z = LADRA_HOST_MIN_Z,
                                         .drift = LADRA_HOST_DRIFT, .min_slowdown = LADRA_HOST_MIN_SLOWDOWN,
                                         .min_excess_ms = LADRA_MIN_EXCESS_MS, .min_share = LADRA_HOST_MIN_SHARE,
                                         .min_sd = LADRA_HOST_MIN_SD};
}

static double logdur(const struct ladra_task *t)
{
    double d = (double)t->end_ms - (double)t->start_ms;
    return log(d > 1 ? d : 1);   /* a task of 0 or 1 ms (or an odd negative one) counts as 1 ms */
}

/* Per task: its standardised residual u (NAN: no comparison) and the other hosts' typical
 * duration in its stage (exp of their mean log duration). */
struct hs_task { double u, ref_ms; };

static int by_start(const void *a, const void *b, void *ctx)
{
    const struct ladra_task *t = ctx;
    const struct ladra_task *x = &t[*(const uint32_t *)a], *y = &t[*(const uint32_t *)b];
    if (x->start_ms != y->start_ms) return x->start_ms < y->start_ms ? -1 : 1;
    if (x->end_ms != y->end_ms) return x->end_ms < y->end_ms ? -1 : 1;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    return (i > j) - (i < j);
}

static int residuals(const struct ladra_input *in, const struct ladra_hostscan_options *o, struct hs_task *r)
{
    size_t n = in->ntasks, ns = in->nstages, nh = in->nhosts;
    const struct ladra_task *t = in->tasks;
    uint32_t *off = calloc(ns + 1, sizeof *off), *ix = malloc((n ? n : 1) * sizeof *ix);
    double *hsum = calloc(nh ? nh : 1, sizeof *hsum), *hsq = calloc(nh ? nh : 1, sizeof *hsq);
    uint32_t *hn = calloc(nh ? nh : 1, sizeof *hn);
    if (!off || !ix || !hsum || !hsq || !hn) return free(off), free(ix), free(hsum), free(hsq), free(hn), -1;
    for (size_t i = 0; i < n; i++) off[t[i].stage + 1]++;
    for (size_t s = 0; s < ns; s++) off[s + 1] += off[s];
    for (size_t i = 0; i < n; i++) ix[off[t[i].stage]++] = (uint32_t)i;
    for (size_t s = ns; s > 0; s--) off[s] = off[s - 1];
    off[0] = 0;
    for (size_t s = 0; s < ns; s++) {
        const uint32_t *q = ix + off[s];
        size_t m = off[s + 1] - off[s], hosts = 0;
        double sum = 0, sq = 0;
        for (size_t k = 0; k < m; k++) {
            const struct ladra_task *u = &t[q[k]];
            double x = logdur(u);
            if (!hn[u->host]++) hosts++;
            hsum[u->host] += x, hsq[u->host] += x * x, sum += x, sq += x * x;
        }
        for (size_t k = 0; k < m; k++) {
            const struct ladra_task *u = &t[q[k]];
            size_t others = m - hn[u->host];
            /* "slower than the others" needs two others at least: with two hosts one cannot
             * tell a slow host from a fast one (a healthy 2-host Databricks log had one host
             * 25% slower in every stage); a lone other task is no reference */
            if (hosts < (size_t)o->stage_hosts || hosts < 2 || others < 2) { r[q[k]] = (struct hs_task){NAN, 0}; continue; }
            double ref = (sum - hsum[u->host]) / (double)others;
            /* the spread of the other hosts' log durations, without the host under test: a
             * slow host's own tasks widened the stage's spread and so shrank its own z
             * (PageRank's x3.5 CPU hog on 7 tasks read z 4.7 against the whole stage's);
             * floored: synth's regular stages would make a 2% difference hundreds of deviations */
            double var = (sq - hsq[u->host]) / (double)others - ref * ref;
            double sd = sqrt(var > 0 ? var : 0);
            if (sd < o->min_sd) sd = o->min_sd;
            r[q[k]] = (struct hs_task){(logdur(u) - ref) / sd, exp(ref)};
        }
        for (size_t k = 0; k < m; k++) hsum[t[q[k]].host] = 0, hsq[t[q[k]].host] = 0, hn[t[q[k]].host] = 0;
    }
    free(off), free(ix), free(hsum), free(hsq), free(hn);
    return 0;
}

int clarity_ladra_hostscan(const struct ladra_input *in, const struct ladra_hostscan_options *o,
                           struct ladra_host_period **out, size_t *nout, struct clarity_error *err)
{
    *out = NULL, *nout = 0;
    size_t n = in->ntasks, nh = in->nhosts;
    const struct ladra_task *t = in->tasks;
    struct hs_task *r = malloc((n ? n : 1) * sizeof *r);
    uint32_t *off = calloc(nh + 1, sizeof *off), *ix = malloc((n ? n : 1) * sizeof *ix);
    struct ladra_host_period *hp = calloc(nh ? nh : 1, sizeof *hp);
    if (!r || !off || !ix || !hp || residuals(in, o, r)) {
        free(r), free(off), free(ix), free(hp);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in LADRA");
    }
    for (size_t i = 0; i < n; i++) off[t[i].host + 1]++;
    for (size_t h = 0; h < nh; h++) off[h + 1] += off[h];
    for (size_t i = 0; i < n; i++) ix[off[t[i].host]++] = (uint32_t)i;
    for (size_t h = nh; h > 0; h--) off[h] = off[h - 1];
    off[0] = 0;
    size_t np = 0;
    for (size_t h = 0; h < nh; h++) {
        uint32_t *q = ix + off[h];
        size_t m = off[h + 1] - off[h];
        qsort_r(q, m, sizeof *q, by_start, (void *)t);
        /* Kadane over (u - drift), tasks without a comparison skipped */
        double best = 0, cur = 0;
        size_t bs = 0, be = 0, cs = 0;
        for (size_t k = 0; k < m; k++) {
            double u = r[q[k]].u;
            if (isnan(u)) continue;
            if (cur <= 0) cur = 0, cs = k;
            cur += u - o->drift;
            if (cur > best) best = cur, bs = cs, be = k + 1;
        }
        if (best <= 0) continue;
        struct ladra_host_period p = {.host = (int32_t)h, .start_ms = INT64_MAX, .end_ms = INT64_MIN};
        double usum = 0, lsum = 0;
        int32_t last_stage = -1;
        for (size_t k = bs; k < be; k++) {
            const struct ladra_task *u = &t[q[k]];
            if (isnan(r[q[k]].u)) continue;
            p.tasks++, usum += r[q[k]].u;
            double d = (double)u->end_ms - (double)u->start_ms;
            p.excess_ms += d - r[q[k]].ref_ms;
            lsum += logdur(u) - log(r[q[k]].ref_ms);
            p.start_ms = u->start_ms < p.start_ms ? u->start_ms : p.start_ms;
            p.end_ms = u->end_ms > p.end_ms ? u->end_ms : p.end_ms;
            if (u->stage != last_stage) p.stage_runs++, last_stage = u->stage;
        }
        if (!p.tasks) continue;
        p.z = usum / sqrt((double)p.tasks);
        p.slowdown = exp(lsum / (double)p.tasks);
        hp[np++] = p;
    }
    /* the run's task time, for the share a stretch cost it */
    double run_ms = 0;
    for (size_t i = 0; i < n; i++) run_ms += (double)t[i].end_ms - (double)t[i].start_ms;
    for (size_t k = 0; k < np; k++) {
        hp[k].run_task_ms = run_ms;
        hp[k].matters = clarity_ladra_host_period_matters(&hp[k], o);
    }
    free(r), free(off), free(ix);
    *out = hp, *nout = np;
    return 0;
}

bool clarity_ladra_host_period_matters(const struct ladra_host_period *p, const struct ladra_hostscan_options *o)
{
    return p->tasks >= (size_t)o->min_tasks && p->z >= o->min_z && p->slowdown >= o->min_slowdown &&
           p->excess_ms >= o->min_excess_ms && p->excess_ms >= o->min_share * p->run_task_ms;
}
