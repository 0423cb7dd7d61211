/* Idle executors: allocated core time that ran no task, and the fewest whole executors whose
 * time, with the I/O denser hosts add (fnd_io.c), stays within 10% by the what-if core-count
 * curve. Thresholds and why: docs/findings.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/findings/fnd_internal.h"
#include "clarity/whatif.h"

/* allocated core time no task used, above this share */
#define IDLE_MIN_SHARE 0.50
/* the slowdown accepted for a cheaper executor count, from the curve */
#define IDLE_MAX_SLOWDOWN 1.10
/* I/O sharing at the proposed count (idle_io_extra): a stage's tasks at or below the streams a
   host serves at full rate, and beyond them, needed to fit the relation. Small, because the
   over-provisioned applications this rule finds run short stages (synth: 16 input tasks); the
   fit's other tests (slower beyond D by no more than in proportion, the full-rate tasks at t1)
   guard it */
#define IDLE_IO_MIN_FULL 2
#define IDLE_IO_MIN_SHARED 4
/* 1: the stage's tasks at once fill a host's slots before the next host's (synth's scheduler,
   and what its logs show: every idle knob run's shuffle stage ran 16 tasks on 2 of 8-12
   hosts); 0: spread evenly over the hosts (Spark's offers when a wave is offered at once).
   Packed scored closer on the tuning seeds (detected runs: p90 8% against 13%), and
   over-states the slowdown where the scheduler spreads: the saving errs low */
#define IDLE_IO_PACKED 1

/* I/O sharing per stage, fitted once (fnd_io.c, clarity_fnd_io_fit_tasks) for every count the
 * rule tries: fit[s] per stage attempt row, at_once[row] each task's mean tasks at once on its
 * host, hosts the hosts the executors ran on, per_host_execs executors a host. */
struct idle_io { struct fnd_io_fit *fit; double *at_once; double hosts, per_host_execs; };

static void idle_io_free(struct idle_io *io)
{
    free(io->fit);
    free(io->at_once);
}

/* The fit of every stage with at least IDLE_IO_MIN_FULL tasks at full rate and
 * IDLE_IO_MIN_SHARED beyond it. -1 when out of memory. */
static int idle_io_fit(struct fnd *x, struct idle_io *io)
{
    const struct clarity_app *a = x->a;
    *io = (struct idle_io){0};
    size_t nexec = 0, nhost = 0;
    uint32_t *hosts = malloc((a->nexecs ? a->nexecs : 1) * sizeof *hosts);
    io->fit = calloc(a->nstages ? a->nstages : 1, sizeof *io->fit);
    io->at_once = calloc(a->tasks.n ? a->tasks.n : 1, sizeof *io->at_once);
    double *at = malloc((x->v.max_stage ? x->v.max_stage : 1) * sizeof *at);
    if (!hosts || !io->fit || !io->at_once || !at) goto oom;
    for (size_t e = 0; e < a->nexecs; e++) {
        if (a->execs[e].is_driver) continue;
        nexec++;
        size_t h = 0;
        while (h < nhost && hosts[h] != a->execs[e].host) h++;
        if (h == nhost) hosts[nhost++] = a->execs[e].host;
    }
    io->hosts = (double)nhost;
    io->per_host_execs = nhost && nexec > nhost ? (double)nexec / (double)nhost : 1;
    for (size_t s = 0; nexec && nhost && s < a->nstages; s++) {
        size_t m = x->lsucc[s];
        if (m < IDLE_IO_MIN_FULL + IDLE_IO_MIN_SHARED) continue;
        clarity_task_view_stage_comps(&x->v, s, x->comps);
        if (clarity_fnd_io_fit_tasks(x->comps, m, IDLE_IO_MIN_FULL, IDLE_IO_MIN_SHARED, &io->fit[s], at)) goto oom;
        for (size_t k = 0; k < m; k++) io->at_once[x->comps[k].row] = at[k];
    }
    free(hosts);
    free(at);
    return 0;
oom:
    free(hosts);
    free(at);
    idle_io_free(io);
    return -1;
}

/* The fewest executors that leave every stage the fit applies to the hosts it ran on (0 when
 * none applies): at that count and above, no stage's tasks move (idle_io_extra adds nothing). */
static double idle_io_keep(const struct fnd *x, const struct idle_io *io)
{
    double h = 0;
    for (size_t s = 0; s < x->a->nstages; s++)
        if (io->fit[s].applies && (double)io->fit[s].hosts > h) h = (double)io->fit[s].hosts;
    return h > 0 ? floor((h - 1) * io->per_host_execs + 1e-9) + 1 : 0;
}

/* The I/O the application's tasks would add at `execs` executors, per task row in extra
 * (a->tasks.n entries, zeroed by the caller): fewer executors run each stage's tasks on fewer
 * hosts, more of them at once on each, sharing the host's disks and network. Per stage whose
 * tasks show that sharing (io->fit[s].applies), its tasks at once at that count
 * (min(tasks, slots)) fill a host's slots before the next host's (IDLE_IO_PACKED) or spread
 * evenly over the hosts; each task's I/O grows as the stage's own relation says it does from
 * the tasks that ran beside it to that many (never shrinks: a task that already ran beside
 * more keeps its time). *io_ms gets the I/O ms added, *stages the stages changed,
 * *per_host_max the most tasks at once per host assumed. */
static void idle_io_extra(struct fnd *x, const struct idle_io *io, double execs, double cores_per_exec, double *extra,
                          double *io_ms, size_t *stages, double *per_host_max)
{
    const struct clarity_app *a = x->a;
    *io_ms = 0;
    *stages = 0;
    *per_host_max = 0;
    if (io->hosts < 1) return;
    int cpus = clarity_sim_task_cpus(a) > 0 ? clarity_sim_task_cpus(a) : 1;
    double hosts_k = ceil(execs / io->per_host_execs - 1e-9), slots_k = floor(execs * cores_per_exec / cpus + 1e-9);
    if (hosts_k < 1 || slots_k < 1) return;
    double host_slots = slots_k / hosts_k;
    for (size_t s = 0; s < a->nstages; s++) {
        const struct fnd_io_fit *fit = &io->fit[s];
        /* A count that leaves at least the hosts the stage ran on lets it run as it did: its
           tasks keep their hosts (at the count now, nothing changes). Fewer, and the tasks of
           the hosts gone pack onto the rest. Until fnd30 every count was packed, so a stage
           that ran 1-5 at once on 6 hosts was 8 at once on any count, its own included, and
           every count over 2 hosts was as slow: tuning sort 42 (16 input tasks on 6 of 10
           hosts) was +36% at 3, 5 and 8 executors; its re-runs took +32%, +17% and +7% */
        if (!fit->applies || hosts_k >= (double)fit->hosts) continue;
        size_t m = x->lsucc[s];
        clarity_task_view_stage_comps(&x->v, s, x->comps);
        double tasks = (double)m < slots_k ? (double)m : slots_k;
        double n = IDLE_IO_PACKED ? (tasks < host_slots ? tasks : host_slots) : tasks / hosts_k;
        double added = 0;
        for (size_t k = 0; k < m; k++) {
            size_t row = x->comps[k].row;
            double more = clarity_fnd_io_ms(&x->comps[k]) * (clarity_fnd_io_growth(fit, io->at_once[row], n) - 1);
            if (more > 0) { extra[row] += more; added += more; }
        }
        if (added > 0) {
            *io_ms += added;
            (*stages)++;
            if (n > *per_host_max) *per_host_max = n;
        }
    }
}

/* The counts idle_rule tries, ascending: a quarter, half and three quarters of the executors,
 * each rounded up (a count is proposed whole, never with fewer cores than were replayed), and
 * `keep` (idle_io_keep; 0 none), distinct, at least 1 and a whole executor fewer than now.
 * Returns how many (at most 4). */
size_t clarity_fnd_idle_counts(double executors, double keep, double *k)
{
    double c[4] = {ceil(0.25 * executors - 1e-9), ceil(0.5 * executors - 1e-9), ceil(0.75 * executors - 1e-9), keep};
    size_t n = 0;
    for (size_t i = 0; i < 4; i++) {
        if (c[i] < 1 || c[i] >= executors) continue;
        size_t j = n;
        while (j > 0 && k[j - 1] > c[i]) j--;
        if (j > 0 && k[j - 1] == c[i]) continue;
        memmove(&k[j + 1], &k[j], (n - j) * sizeof *k);
        k[j] = c[i];
        n++;
    }
    return n;
}

/* The time at k executors with the I/O its tasks add by running more at once on fewer hosts
 * (idle_io_extra), calibrated against the plain curve's replay at 1x (the added I/O is not in
 * the log, so the plain curve's observed replay is the reference); the plain time at k where
 * no stage shows the sharing. -1 when out of memory. */
struct idle_at { double time_ms, io_ms, per_host; size_t io_stages; };
static int idle_at(struct fnd *x, const struct idle_io *io, const struct clarity_hw *hw, int threads,
                   const struct clarity_curve_result *cr, const struct clarity_curve_point *pt, double k,
                   double cores_per_exec, struct idle_at *r)
{
    const struct clarity_app *a = x->a;
    *r = (struct idle_at){pt->calibrated_ms, 0, 0, 0};
    double *extra = calloc(a->tasks.n ? a->tasks.n : 1, sizeof *extra);
    if (!extra) return -1;
    idle_io_extra(x, io, k, cores_per_exec, extra, &r->io_ms, &r->io_stages, &r->per_host);
    int rc = 0;
    if (r->io_stages) {
        struct clarity_curve_result ck = {0};
        struct clarity_error e = {0};
        rc = clarity_curve_analyze_extra(a, hw, CLARITY_SLOTS_CONFIGURED, CLARITY_CURVE_EXECUTORS, &pt->ask, 1,
                                         threads, extra, &ck, &e);
        if (!rc && ck.npoints && cr->observed_replay_ms > 0)
            r->time_ms = (double)cr->driver_ms +
                         (double)(cr->actual_ms - cr->driver_ms) * ck.points[0].replay_ms / cr->observed_replay_ms;
        clarity_curve_free(&ck);
    }
    free(extra);
    return rc ? -1 : 0;
}

static const struct clarity_curve_point *curve_at(const struct clarity_curve_result *cr, double v)
{
    for (size_t i = 0; i < cr->npoints; i++)
        if (cr->points[i].ask.v == v) return &cr->points[i];
    return NULL;
}

static void idle_rule(struct fnd *x, int threads, double busy_core_ms, int64_t alloc)
{
    const struct clarity_app *a = x->a;
    size_t nexec = 0;
    for (size_t e = 0; e < a->nexecs; e++) if (!a->execs[e].is_driver) nexec++;
    if (nexec < 2 || alloc <= 0 || x->n == 0 || busy_core_ms > (1 - IDLE_MIN_SHARE) * (double)alloc) return;
    struct clarity_hw hw;
    clarity_hw_from_log(a, &hw);
    /* the counts tried: the curve's quarters, and the fewest that keep every I/O-sharing
       stage on as many hosts as it ran on (where the added I/O ends; between two quarters, the
       cheapest count the I/O leaves as fast: tuning kmeans 2, 10 executors, its input stage
       on 7 hosts: 3 and 5 executors +11% with the I/O, 7 as now) */
    struct idle_io io;
    if (idle_io_fit(x, &io)) { x->oom = 1; return; }
    double now = hw.v[CLARITY_HW_EXECUTORS], ks[4];
    size_t nk = clarity_fnd_idle_counts(now, idle_io_keep(x, &io), ks);
    if (nk == 0) { idle_io_free(&io); return; }
    struct clarity_curve_ask ask[5];
    for (size_t i = 0; i < nk; i++) ask[i] = (struct clarity_curve_ask){ks[i] / now, true};
    ask[nk] = (struct clarity_curve_ask){1, true};
    struct clarity_curve_result cr;
    struct clarity_error e = {0};
    if (clarity_curve_analyze(a, &hw, CLARITY_SLOTS_CONFIGURED, CLARITY_CURVE_EXECUTORS, ask, nk + 1, threads, &cr, &e)) {
        idle_io_free(&io);
        x->oom = 1;
        return;
    }
    const struct clarity_curve_point *one = curve_at(&cr, 1);
    if (!one || one->executors <= 0 || one->cores <= 0) { idle_io_free(&io); clarity_curve_free(&cr); return; }
    /* The fewest executors whose time, with the I/O their tasks add on fewer hosts, stays
       within IDLE_MAX_SLOWDOWN: the count the finding proposes and the time it states are then
       the same replay. Until fnd30 the count was chosen on the plain curve and only its saving
       had the I/O, so a finding could say "3 executors would take +36%" under a rule of 10%
       (tuning sort 42; the re-run on 3 took +32%). A count whose plain time is already over
       is not replayed again: the added I/O only lengthens tasks. At most one replay with the
       I/O per count, in order, stopping at the first that keeps the time. */
    double limit = IDLE_MAX_SLOWDOWN * one->calibrated_ms, cores_per_exec = one->cores / one->executors;
    double execs_k = 0, over_k = 0, plain = 0;
    struct idle_at at = {0}, over = {0};
    for (size_t i = 0; i < nk && execs_k == 0; i++) {
        const struct clarity_curve_point *pt = curve_at(&cr, ks[i] / now);
        if (!pt || pt->calibrated_ms > limit) continue;
        struct idle_at r;
        if (idle_at(x, &io, &hw, threads, &cr, pt, ks[i], cores_per_exec, &r)) {
            idle_io_free(&io);
            clarity_curve_free(&cr);
            x->oom = 1;
            return;
        }
        if (r.time_ms <= limit) { at = r; execs_k = ks[i]; plain = pt->calibrated_ms; }
        else if (over_k == 0) { over = r; over_k = ks[i]; }
    }
    idle_io_free(&io);
    if (execs_k == 0) { clarity_curve_free(&cr); return; }
    /* The saving is the allocation at the count proposed, replayed at that count (until fnd25
       it took the fractional point's cores: 0.25 x 9 = 2.25 executors against the 3 proposed);
       the allocation then shrinks in the curve's proportion (executors alive only part of the
       run under dynamic allocation stay so). Labelled an estimate only where the added I/O
       moved the time (it may sit off the critical path, on slots the count leaves spare). */
    double time_k = at.time_ms;
    bool io_used = at.io_stages && time_k > plain + 0.5;
    double cores_k = execs_k * cores_per_exec;
    double ratio = one->calibrated_ms > 0 ? cores_k * time_k / (one->cores * one->calibrated_ms) : 1;
    double one_core_ms = (double)alloc, new_core_ms = (double)alloc * ratio;
    struct clarity_finding *f = clarity_fnd_add(x, CLARITY_FK_IDLE_EXECUTORS);
    if (!f) { clarity_curve_free(&cr); return; }
    f->saving_ms = 0;
    f->saving_core_ms = (int64_t)(one_core_ms - new_core_ms > 0 ? one_core_ms - new_core_ms : 0);
    f->method = io_used ? CLARITY_FM_ESTIMATE : CLARITY_FM_REPLAY;
    char d1[24], d2[24], why[80] = "";
    snprintf(f->title, sizeof f->title, "Idle executors: %.0f%% of the %.2f core-hours allocated ran no task; %.0f "
             "executor(s) instead of %.0f would take %s (%+.0f%%)", 100 * (1 - busy_core_ms / (double)alloc),
             (double)alloc / 3600e3, execs_k, one->executors, clarity_fnd_dur(d1, sizeof d1, time_k),
             one->calibrated_ms > 0 ? 100 * (time_k / one->calibrated_ms - 1) : 0);
    clarity_fnd_ev(f, "core_ms_allocated", (double)alloc, "core_ms");
    clarity_fnd_ev(f, "core_ms_busy", busy_core_ms, "core_ms");
    clarity_fnd_ev(f, "executors", one->executors, "executors");
    clarity_fnd_ev(f, "proposed_executors", execs_k, "executors");
    clarity_fnd_ev(f, "predicted_ms", time_k, "ms");
    if (io_used) {
        clarity_fnd_ev(f, "predicted_ms_without_io_sharing", plain, "ms");
        clarity_fnd_ev(f, "io_extra_ms", at.io_ms, "ms");
    }
    /* a fewer count the plain curve allowed and the added I/O did not: said, so the user sees
       why the proposal is not the plain curve's */
    if (over_k > 0) {
        clarity_fnd_ev(f, "rejected_executors", over_k, "executors");
        snprintf(why, sizeof why, "; %.0f executors: %s (%+.0f%%) with their I/O", over_k,
                 clarity_fnd_dur(d2, sizeof d2, over.time_ms),
                 one->calibrated_ms > 0 ? 100 * (over.time_ms / one->calibrated_ms - 1) : 0);
    }
    if (io_used)
        snprintf(f->caveat, sizeof f->caveat, "replayed at %.0f executors with %s more I/O in %zu stage(s), up to "
                 "%.0f tasks at once per host, extrapolated from how their I/O slowed with concurrency (an "
                 "estimate); memory not modelled", execs_k, clarity_fnd_dur(d1, sizeof d1, at.io_ms), at.io_stages,
                 at.per_host);
    else
        snprintf(f->caveat, sizeof f->caveat, "core saving from the what-if core-count replay at %.0f executors "
                 "(slowdown up to %.0f%% accepted); memory cost not modelled", execs_k,
                 100 * (IDLE_MAX_SLOWDOWN - 1));
    size_t used = strlen(f->caveat);
    snprintf(f->caveat + used, sizeof f->caveat - used, "%s", why);
    char p[32];
    snprintf(p, sizeof p, "%.0f", execs_k);
    const char *dyn = clarity_fnd_prop(a, "spark.dynamicAllocation.enabled");
    if (dyn && !strcmp(dyn, "true"))
        clarity_fnd_action(x, f, "spark.dynamicAllocation.maxExecutors", "infinity", p,
                           "Try spark.dynamicAllocation.maxExecutors=%s, and a shorter "
                           "spark.dynamicAllocation.executorIdleTimeout.", p);
    else
        clarity_fnd_action(x, f, "spark.executor.instances", "2", p, "Try spark.executor.instances=%s, or "
                           "spark.dynamicAllocation.enabled=true so idle executors are released.", p);
    clarity_curve_free(&cr);
}

void clarity_fnd_idle_rule(struct fnd *x, int threads, double busy_core_ms, int64_t alloc)
{
    idle_rule(x, threads, busy_core_ms, alloc);
}
