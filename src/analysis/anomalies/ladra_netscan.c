/* LADRA's fetch-wait scan (beyond the paper, issues 15 and 19): a slow network (a throttled
 * NIC, a congested link) makes the tasks that read shuffle blocks wait for them, on every host
 * that reads through it, for as long as it lasts. No host is slower than the others, so the
 * cross-stage host scan sees nothing, and when the slow spell covers a whole stage every task
 * of it is slowed alike, so LADRA's per-stage detection finds no period either (on synth's
 * throttled Sort and PageRank runs: 1 of 24 got a period that matters). What does change is
 * the time each reader waits per byte it fetched:
 *   1. a reader is a successful task that read at least min_bytes of remote shuffle blocks
 *      and logged its fetch wait; its rate is (fetch wait + latency) per remote MB (the
 *      latency term keeps a 2 ms wait on a large read from reading as a 100x rate change);
 *   2. the reference is the 25th percentile of the application's reader rates: readers that
 *      fetched unimpeded (a slow spell covering half the readers leaves it in place, and it
 *      spans stages, since a slow spell can cover a whole stage);
 *   3. readers in start order on every host, and the stretch with the largest sum of
 *      (log(rate / reference) - drift) (a one-sided CUSUM, as the host scan);
 *   4. the stretch matters when it holds min_tasks readers on min_hosts hosts or more, its
 *      geometric-mean rate is min_slowdown times the reference, and its readers' fetch wait
 *      beyond the reference rate is at least min_excess_ms and min_share of the application's
 *      task time (a long run's first waves wait more per byte, every one of them contending
 *      for the same NICs; the share keeps that from being a slow network).
 * Its blind spot, said rather than hidden: when more than 3/4 of the readers ran at one instant
 * (a Sort's reducers read in one wave), the reference lies among them and a slow spell over them
 * slows it as much; the scan records that wave (the most readers running at once, found by one
 * sweep over starts and ends) and whether their fetch wait is material (unchecked). Given another
 * run of the same job (clarity_ladra_netscan_ref, lad30), the scan then runs again with each
 * reader compared with the readers of its stage in that run (ladra_netref.c); only there, since
 * against another run every reader is compared with other data and partitions (on synth's
 * tuning runs, fault-free TPC-DS and PageRank reached x2-3 over another seed's run, held back by
 * the 2% share alone), while the verdicts were the same.
 * Which host's network is slow is not in a standard event log (readers do not say where their
 * blocks came from), so the stretch names no host. Linear in the tasks plus three sorts.
 * Thresholds and why: include/clarity/anomalies.h and docs/anomalies.md. */
#include <math.h>
#include <stdlib.h>
#include "clarity/anomalies.h"
#include "util/stats.h"

void clarity_ladra_netscan_default(struct ladra_netscan_options *o)
{
    *o = (struct ladra_netscan_options){.min_tasks = LADRA_NET_MIN_TASKS, .min_hosts = LADRA_NET_MIN_HOSTS,
                                        .min_bytes = LADRA_NET_MIN_BYTES, .latency_ms = LADRA_NET_LATENCY_MS,
                                        .drift = LADRA_NET_DRIFT, .min_slowdown = LADRA_NET_MIN_SLOWDOWN,
                                        .min_excess_ms = LADRA_MIN_EXCESS_MS, .min_share = LADRA_NET_MIN_SHARE,
                                        .unchecked_share = LADRA_NET_UNCHECKED_SHARE};
}

/* lref: the log reference rate this reader is compared with (the application's, or its stage's
 * in the reference run); own: it is the application's own (no reference run's rate) */
struct reader { int64_t start_ms, end_ms; double lrate, mb, fw, lref, refmb; int32_t host, stage; uint32_t k; bool own; };

static int by_start(const void *a, const void *b)
{
    const struct reader *x = a, *y = b;
    if (x->start_ms != y->start_ms) return x->start_ms < y->start_ms ? -1 : 1;
    if (x->end_ms != y->end_ms) return x->end_ms < y->end_ms ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The most readers running at one instant (r in start order): a sweep over the starts with the
 * ends sorted; a reader ending at t no longer runs at t. Then their fetch wait and stages. */
static void one_wave(const struct reader *r, size_t nr, int64_t *ends, uint8_t *stage_seen, size_t nstages,
                     struct ladra_net_period *out, size_t *wave_own)
{
    *wave_own = 0;
    for (size_t k = 0; k < nr; k++) ends[k] = r[k].end_ms;
    qsort(ends, nr, sizeof *ends, cmp_i64);
    size_t j = 0, best = 0;
    int64_t at = 0;
    for (size_t k = 0; k < nr; k++) {
        while (j < nr && ends[j] <= r[k].start_ms) j++;
        size_t alive = k + 1 > j ? k + 1 - j : 0;
        if (alive > best) best = alive, at = r[k].start_ms;
    }
    out->wave_at_ms = at;
    for (size_t k = 0; k < nr; k++) {
        if (r[k].start_ms > at || r[k].end_ms <= at) continue;
        out->wave_readers++;
        *wave_own += r[k].own;
        out->wave_fetch_ms += r[k].fw;
        if (r[k].stage >= 0 && (size_t)r[k].stage < nstages) stage_seen[r[k].stage] = 1;
    }
    for (size_t s = 0; s < nstages; s++)
        if (stage_seen[s]) {
            if (out->wave_nstages < LADRA_NET_WAVE_STAGES) out->wave_stages[out->wave_nstages] = (int32_t)s;
            out->wave_nstages++;
        }
}

/* The strongest stretch of r (in start order) against each reader's own lref, into out's stretch
 * fields, and [*bs, *be) its readers; seen (nhosts) is cleared first. */
static void stretch(const struct reader *r, size_t nr, uint8_t *seen, size_t nhosts, const struct ladra_netscan_options *o,
                    struct ladra_net_period *out, size_t *bs, size_t *be)
{
    out->found = out->matters = false;
    out->start_ms = out->end_ms = 0;
    out->tasks = out->hosts = out->stage_runs = 0;
    out->slowdown = out->excess_ms = 0;
    for (size_t h = 0; h < nhosts; h++) seen[h] = 0;
    double best = 0, cur = 0;
    size_t cs = 0;
    *bs = *be = 0;
    for (size_t k = 0; k < nr; k++) {
        if (cur <= 0) cur = 0, cs = k;
        cur += r[k].lrate - r[k].lref - o->drift;
        if (cur > best) best = cur, *bs = cs, *be = k + 1;
    }
    if (best <= 0) return;
    double lsum = 0;
    int32_t last_stage = -1;
    out->start_ms = INT64_MAX, out->end_ms = INT64_MIN;
    for (size_t k = *bs; k < *be; k++) {
        const struct reader *x = &r[k];
        out->tasks++;
        lsum += x->lrate - x->lref;
        out->excess_ms += x->fw + o->latency_ms - x->refmb * x->mb;
        out->start_ms = x->start_ms < out->start_ms ? x->start_ms : out->start_ms;
        out->end_ms = x->end_ms > out->end_ms ? x->end_ms : out->end_ms;
        if (!seen[x->host]) seen[x->host] = 1, out->hosts++;
        if (x->stage != last_stage) out->stage_runs++, last_stage = x->stage;
    }
    out->slowdown = exp(lsum / (double)out->tasks);
    out->found = true;
    out->matters = clarity_ladra_net_period_matters(out, o);
}

/* 4 x wave > 3 x readers: fewer than a quarter of the readers ran outside the wave, so the
 * 25th percentile is one of the wave's own rates. With a reference run, the wave's readers
 * compared with its rates are checked: only those left with the application's own count. */
static bool unchecked(const struct ladra_net_period *out, size_t wave_own, size_t nr, const struct ladra_netscan_options *o)
{
    return !out->matters && wave_own * 4 > nr * 3 && out->wave_fetch_ms >= o->unchecked_share * out->run_task_ms &&
           out->wave_fetch_ms > 0;
}

int clarity_ladra_netscan(const struct ladra_input *in, const struct ladra_netscan_options *o, struct ladra_net_period *out,
                          struct clarity_error *err)
{
    return clarity_ladra_netscan_ref(in, o, NULL, out, err);
}

int clarity_ladra_netscan_ref(const struct ladra_input *in, const struct ladra_netscan_options *o,
                              const struct ladra_netref *ref, struct ladra_net_period *out, struct clarity_error *err)
{
    *out = (struct ladra_net_period){.start_ms = 0, .end_ms = 0};
    size_t n = in->ntasks, nr = 0, wave_own = 0;
    struct reader *r = malloc((n ? n : 1) * sizeof *r);
    double *lr = malloc((n ? n : 1) * sizeof *lr);
    uint8_t *seen = calloc(in->nhosts ? in->nhosts : 1, 1), *stage_seen = calloc(in->nstages ? in->nstages : 1, 1);
    int64_t *ends = malloc((n ? n : 1) * sizeof *ends);
    if (!r || !lr || !seen || !stage_seen || !ends) {
        free(r), free(lr), free(seen), free(stage_seen), free(ends);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in LADRA");
    }
    double run_ms = 0;
    for (size_t i = 0; i < n; i++) {
        const struct ladra_task *t = &in->tasks[i];
        run_ms += (double)t->end_ms - (double)t->start_ms;
        struct ladra_metrics m;
        clarity_ladra_task_metrics(in, t, &m);
        if (m.fetch_wait_ms < 0 || (double)m.remote_bytes < o->min_bytes) continue;
        double mb = (double)m.remote_bytes / 1e6, fw = (double)m.fetch_wait_ms;
        r[nr] = (struct reader){t->start_ms, t->end_ms, log((fw + o->latency_ms) / mb), mb, fw, 0, 0, t->host, t->stage,
                                (uint32_t)i, true};
        lr[nr] = r[nr].lrate;
        nr++;
    }
    out->run_task_ms = run_ms;
    out->readers = nr;
    qsort(r, nr, sizeof *r, by_start);
    if (nr) one_wave(r, nr, ends, stage_seen, in->nstages, out, &wave_own);
    if (nr < (size_t)o->min_tasks || nr < 4) goto done;
    qsort(lr, nr, sizeof *lr, cmp_double);
    double lref = clarity_quantile_linear(lr, nr, 0.25);
    out->ref_ms_per_mb = exp(lref);
    for (size_t k = 0; k < nr; k++) r[k].lref = lref, r[k].refmb = out->ref_ms_per_mb;
    size_t bs, be;
    stretch(r, nr, seen, in->nhosts, o, out, &bs, &be);
    if (!ref || !(o->ref_always || unchecked(out, wave_own, nr, o))) goto done;
    /* again, each reader against its stage's rate in the reference run (the application's own
     * where its stage matched none) */
    size_t matched = 0;
    double lsum = 0;
    for (size_t k = 0; k < nr; k++) {
        int32_t s = r[k].stage;
        double l = s >= 0 && (size_t)s < ref->nstages ? ref->stage_lref[s] : NAN;
        if (isnan(l)) continue;
        r[k].lref = l, r[k].refmb = exp(l), r[k].own = false;
        matched++;
    }
    out->ref_readers = matched;
    if (!matched) goto done;
    out->by_reference = true;
    wave_own = 0;
    for (size_t k = 0; k < nr; k++)
        if (r[k].own && r[k].start_ms <= out->wave_at_ms && r[k].end_ms > out->wave_at_ms) wave_own++;
    stretch(r, nr, seen, in->nhosts, o, out, &bs, &be);
    /* the reference the output names: the geometric mean of the rates the stretch's readers (or
     * every reader, with no stretch) were compared with */
    if (!out->found) bs = 0, be = nr;
    for (size_t k = bs; k < be; k++) lsum += r[k].lref;
    out->ref_ms_per_mb = exp(lsum / (double)(be - bs));
done:
    out->unchecked = unchecked(out, wave_own, nr, o);
    free(r), free(lr), free(seen), free(stage_seen), free(ends);
    return 0;
}

bool clarity_ladra_net_period_matters(const struct ladra_net_period *p, const struct ladra_netscan_options *o)
{
    return p->found && p->tasks >= (size_t)o->min_tasks && p->hosts >= (size_t)o->min_hosts &&
           p->slowdown >= o->min_slowdown && p->excess_ms >= o->min_excess_ms && p->excess_ms >= o->min_share * p->run_task_ms;
}
