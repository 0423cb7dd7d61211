/* LADRA (Lu et al., FGCS 2019): abnormal tasks per stage (mean + 1.5 sigma, first
 * wave apart, width-5 smoothing per node, stage and set), where and when they happened, and
 * the probability of each root cause (CPU, memory, network, disk, normal) from seven factors
 * through a GRNN or the paper's weighted rules. Works from the event log alone (factors from
 * task metrics, labelled approximations) or with executor and GC logs. Prints nothing; every
 * function that can fail returns 0 or a CLARITY_E* code with its struct clarity_error filled. */
#ifndef CLARITY_ANOMALIES_H
#define CLARITY_ANOMALIES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "clarity/error.h"
#include "clarity/logs.h"
#include "clarity/model.h"

/* Class order of every output vector: normal, cpu, memory, network, disk. */
enum ladra_class { LADRA_NORMAL, LADRA_CPU, LADRA_MEMORY, LADRA_NETWORK, LADRA_DISK, LADRA_NCLASS };
const char *clarity_ladra_class_name(int c);
/* Factor order of the GRNN input: the paper's seven (DAR, DAD, DCO, MCS, ARS, DMC, DLD), then clarity's event-log features
 * (beyond the paper, computed the same way in both modes, each victim over the other hosts):
 *   CPE  others' CPU efficiency (executorCpuTime / executorRunTime) over the victim's: a CPU
 *        hog steals the task threads' cycles, so the victim's efficiency drops;
 *   GCS  the victim's JVM GC share of run time over the others' (+0.01 each): memory pressure;
 *   FWV  the victim's shuffle fetch-wait share over the others' (+0.05 each);
 *   FWA  the other hosts' fetch-wait share inside the window over outside it (+0.05 each),
 *        over tasks that fetch remote blocks, median over hosts: a throttled sender makes
 *        every reader wait (network spread);
 *   SWT  the victim's shuffle write time per byte over the others': a disk hog slows writes;
 *   SLD  the victim's mean task slowdown (duration / its stage's median) over the others';
 *   FWB  fetch wait per remote MB read, all hosts, tasks in the window (ms/MB). Absolute, not a
 *        ratio: a throttled sender slows every reader alike (Sort's one shuffle), which no
 *        victim-against-others ratio sees. The shipped model learned it on synth's 10 GbE;
 *        on a much slower network retrain it (scripts/train-ladra-model.sh, SYNTH_ARGS).
 * With GC logs, DCO, MCS and DMC come from the GC records, which are sparse (a 16 GB heap may
 * collect twice in a short run, and not inside the window); the event-log approximations of the
 * three are then kept as features of their own (eDCO, eMCS, eDMC) so that the log-based mode
 * sees everything the event-log-only mode sees. Without GC logs they equal DCO, MCS and DMC and
 * the GRNN leaves them out (LADRA_NFEAT_EVENTLOG inputs). */
enum ladra_factor {
    LADRA_DAR, LADRA_DAD, LADRA_DCO, LADRA_MCS, LADRA_ARS, LADRA_DMC, LADRA_DLD, LADRA_NFACTOR,
    LADRA_CPE = LADRA_NFACTOR, LADRA_GCS, LADRA_FWV, LADRA_FWA, LADRA_SWT, LADRA_SLD, LADRA_FWB,
    LADRA_EDCO, LADRA_EMCS, LADRA_EDMC, LADRA_NFEAT
};
#define LADRA_NFEAT_EVENTLOG LADRA_EDCO
/* Inputs of the extended GRNN in a mode. */
static inline int ladra_nfeat_mode(bool eventlog_only) { return eventlog_only ? LADRA_NFEAT_EVENTLOG : LADRA_NFEAT; }
const char *clarity_ladra_factor_name(int f);
/* Which inputs the GRNN sees: the paper's seven raw factors (sigma 0.5, as the paper) or all
 * LADRA_NFEAT z-scored on the training set (the default). */
enum ladra_features { LADRA_FEATURES_EXTENDED, LADRA_FEATURES_PAPER };
#define LADRA_DEFAULT_XSIGMA 1.0   /* z-scored extended inputs; chosen by `clarity anomalies cv` */
/* The GRNN names a cause only when it holds at least this share of the model's weight (y);
 * below it the verdict is "normal, cause unclear". Chosen by cross-validation on the training
 * runs (docs/anomalies.md): it trades a little recall for precision; 0 = plain argmax. */
#define LADRA_DEFAULT_MIN_CAUSE 0.4

/* One successful task attempt, as LADRA sees it: what detection sorts and marks, 40 bytes.
 * Task metrics and the task id stay in the model's columns and are read by row when needed
 * (clarity_ladra_task_metrics): a copy of them would double the task table on a large log. */
struct ladra_task {
    int64_t start_ms, end_ms;
    uint32_t row;                   /* the model's task row (ladra_input.app), else index into ladra_input.metrics */
    int32_t stage;                  /* dense stage-attempt index */
    int32_t host, exec;             /* dense indexes */
    int8_t locality;                /* enum clarity_locality */
    /* set by detection */
    bool initial : 1, raw : 1, smooth : 1, skew_suspect : 1, speculation : 1;
};

/* The task metrics the event-log-only factors read, and the task id (sort ties). */
struct ladra_metrics {
    int64_t tid;
    int64_t run_ms, cpu_ms, gc_ms, fetch_wait_ms;   /* -1 when not logged */
    int64_t sw_ns, sw_bytes;        /* shuffle write time and bytes (0 when none) */
    int64_t remote_bytes;           /* remote shuffle bytes read (FWA compares such tasks only) */
    int64_t disk_bytes;             /* bytes a task reads or writes on its host's disks outside the
                                       shuffle write: input, output, local shuffle blocks and disk
                                       spills (0 when none or not logged) */
};

/* One GC record placed on a host (log mode). */
struct ladra_gc {
    int32_t host;
    int64_t ts_ms;
    double heap_after_kb, heap_cap_kb, user_s, sys_s, real_s;
};

/* Default rule of a period that matters (chosen on synth's training seeds and the shared real
 * logs; docs/anomalies.md has the measurements). */
#define LADRA_MIN_SHARE 0.006          /* its excess time, of its stage attempt's task time */
#define LADRA_MIN_EXCESS_MS 1000.0     /* its excess time */
#define LADRA_MIN_HOST_TASKS 3         /* the host's tasks in the stage set it was smoothed in */
/* A run without a period that matters still gets the GRNN's cause (on by default since issue 15's
 * recall; --no-cause-without-period: no period, no cause) when the run lies within the model's
 * domain and its victim host lost time that matters. The domain is this many kernel widths from
 * the nearest training sample, per mode: the 95th percentile of the training samples' own
 * nearest distance with every run of the same workload and seed left out (the shipped model:
 * 4.71 with GC logs, 3.06 on the event log alone; bench/anomalies-domain.py prints them). A
 * real cluster unlike synth lies beyond it (the closest shared real log: 3.59, event log), and
 * the model's weight there is one far sample's label, no judgement. Chosen on the training
 * seeds alone; the test seeds and the real logs only measured it. */
#define LADRA_MAX_MODEL_DISTANCE_LOGS 4.71
#define LADRA_MAX_MODEL_DISTANCE_EVENTLOG 3.06

/* ---- the cross-stage host scan (beyond the paper; ladra_hostscan.c) ----
 * A host whose tasks are each a little slower than the other hosts' tasks of the same stages,
 * over a stretch of consecutive tasks across stages. Defaults chosen on synth's tuning seeds
 * (1-5) and the shared real logs (docs/anomalies.md has the measurements). */
#define LADRA_HOST_MIN_TASKS 5         /* tasks in the stretch */
#define LADRA_HOST_MIN_Z 5.5           /* sum of standardised residuals / sqrt(tasks), after the scan */
#define LADRA_HOST_DRIFT 0.5           /* subtracted from each residual while scanning (in stage sds) */
#define LADRA_HOST_MIN_SLOWDOWN 1.1    /* geometric mean of task time over the other hosts' typical */
#define LADRA_HOST_MIN_SHARE 0.02      /* excess, of the application's task time */
#define LADRA_HOST_MIN_SD 0.05         /* floor of a stage's sd of log durations */
#define LADRA_HOST_STAGE_HOSTS 3       /* hosts a stage must have run on for its tasks to be compared */
struct ladra_hostscan_options {
    int min_tasks, stage_hosts;
    double min_z, drift, min_slowdown, min_excess_ms, min_share, min_sd;
    bool off;                           /* no scan (the per-stage periods alone, as before issue 15's fix) */
};
void clarity_ladra_hostscan_default(struct ladra_hostscan_options *o);
struct ladra_host_period {
    int32_t host;
    int64_t start_ms, end_ms;           /* the stretch's first start and last end */
    size_t tasks;                       /* tasks in the stretch (with a comparison) */
    size_t stage_runs;                  /* changes of stage along the stretch, plus one */
    double z;                           /* sum of standardised residuals / sqrt(tasks) */
    double slowdown;                    /* geometric mean of each task over the others' typical */
    double excess_ms;                   /* the tasks' time beyond the other hosts' typical task */
    double run_task_ms;                 /* the application's successful task time (the share's base) */
    bool matters;
};
bool clarity_ladra_host_period_matters(const struct ladra_host_period *p, const struct ladra_hostscan_options *o);
struct ladra_input;
/* At most one stretch per host (its strongest), in host order, each marked matters or not.
 * Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_ladra_hostscan(const struct ladra_input *in, const struct ladra_hostscan_options *o,
                           struct ladra_host_period **out, size_t *nout, struct clarity_error *err);

/* ---- the fetch-wait scan (beyond the paper; ladra_netscan.c) ----
 * A slow network (a throttled NIC, a congested switch) makes the readers of shuffle blocks
 * wait, on every host that reads from it, for a while: no host is slower than the others
 * (the host scan sees nothing) and a whole stage may be slowed alike (no period either). The
 * scan compares each reading task's fetch wait per remote MB with the application's own
 * unimpeded readers (the 25th percentile), over tasks in start order on every host, and
 * finds the stretch where readers waited most beyond it. Defaults chosen on synth's tuning
 * seeds (1-5) and the shared real logs (docs/anomalies.md). */
#define LADRA_NET_MIN_BYTES 1000000.0  /* remote bytes a task must read to be a reader (per-MB rates of tiny reads are latency) */
#define LADRA_NET_LATENCY_MS 10.0      /* added to each fetch wait: a few ms of wait on a large read is not a rate */
#define LADRA_NET_DRIFT 0.405465       /* log 1.5, subtracted while scanning: readers within x1.5 of the reference grow no stretch */
#define LADRA_NET_MIN_TASKS 5          /* readers in the stretch */
#define LADRA_NET_MIN_HOSTS 2          /* hosts its readers ran on: one host's slow readers are the host scan's */
#define LADRA_NET_MIN_SLOWDOWN 2.0     /* geometric mean of fetch wait per MB over the reference */
#define LADRA_NET_MIN_SHARE 0.02       /* fetch wait beyond the reference, of the application's task time */
/* The scan's blind spot (issue 19, lad29): when more than 3/4 of the readers ran at one instant
 * (a shuffle read in one wave), the reference (their 25th percentile) lies among them, and a
 * slow spell over that instant slows the reference as much as the readers: no stretch can grow.
 * The output then says the network was not checked, when those readers' fetch wait is at least
 * this share of the application's task time. 10%: were those readers slowed x2 (the scan's own
 * min_slowdown), half of it, 5% of the task time, would be the slow network's, over twice the
 * 2% the scan calls material; below it a hidden slowdown of that size would not matter. On
 * synth's 8- and 16-host Sorts without a network fault (one wave of 64 reducers) that fetch
 * wait is 7.7-10.2% of the task time (1 of 98 runs over 10%), throttled ones 16-31% (all 28
 * over): docs/anomalies.md, "A slow network the scan cannot check, said". */
#define LADRA_NET_UNCHECKED_SHARE 0.10
#define LADRA_NET_WAVE_STAGES 4        /* stages of the one-wave readers kept by name (the rest counted) */
struct ladra_netscan_options {
    int min_tasks, min_hosts;
    double min_bytes, latency_ms, drift, min_slowdown, min_excess_ms, min_share;
    double unchecked_share;             /* LADRA_NET_UNCHECKED_SHARE */
    bool off;                           /* no fetch-wait scan */
    /* With another run's reference rates (clarity_ladra_netscan_ref): false (the default), the
     * scan takes them only where its own reference is unusable (the readers ran in one wave,
     * `unchecked`); true, always. */
    bool ref_always;
};
void clarity_ladra_netscan_default(struct ladra_netscan_options *o);
struct ladra_net_period {
    int64_t start_ms, end_ms;           /* the stretch's first start and last end */
    size_t tasks, hosts, stage_runs;    /* readers in it, the hosts they ran on, changes of stage plus one */
    size_t readers;                     /* readers in the application */
    double ref_ms_per_mb;               /* the reference: 25th percentile of (fetch wait + latency) per remote MB */
    double slowdown;                    /* geometric mean of the stretch's rates over the reference */
    double excess_ms;                   /* fetch wait beyond the reference rate times each reader's remote MB */
    double run_task_ms;                 /* the application's successful task time (the share's base) */
    bool found, matters;
    /* The most readers running at one instant (start <= wave_at_ms < end), whatever found says:
     * the readers of a shuffle read in one wave. Set whenever the application has a reader. */
    size_t wave_readers;
    int64_t wave_at_ms;
    double wave_fetch_ms;               /* their fetch wait, summed */
    size_t wave_nstages;                /* stages they ran in */
    int32_t wave_stages[LADRA_NET_WAVE_STAGES];   /* the first of them (dense indexes, ascending) */
    /* The network was not checked: wave_readers > 3/4 of readers, wave_fetch_ms >= unchecked_share
     * of run_task_ms, and no stretch matters. */
    bool unchecked;
    /* clarity_ladra_netscan_ref only (all 0 otherwise). by_reference: the figures above (the
     * stretch, slowdown, excess, unchecked) compare each reader with the reference run's readers
     * of its matched stage, and ref_ms_per_mb is the geometric mean of those rates over the
     * stretch's readers (over every reader when there is no stretch). ref_readers: readers
     * whose stage matched one of the reference run's with enough readers. */
    bool by_reference;
    size_t ref_readers;
};
bool clarity_ladra_net_period_matters(const struct ladra_net_period *p, const struct ladra_netscan_options *o);
struct ladra_input;
/* The application's strongest stretch of readers (found false: fewer than min_tasks readers,
 * or none above the reference). Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_ladra_netscan(const struct ladra_input *in, const struct ladra_netscan_options *o, struct ladra_net_period *out,
                          struct clarity_error *err);

/* ---- the fetch-wait scan's reference from another run of the same job (lad30; ladra_netref.c) ----
 * Where the application's own readers cannot give an unimpeded rate (a shuffle read in one wave
 * under a slow spell), another run of the same job can: each of this application's shuffle-read
 * stages is matched with one of the reference run's by what it is (its name, the call site, and
 * its position among the shuffle-read stages of that name, as `clarity diff` matches stages:
 * clarity_match_items), and the reference rate of its readers is the 25th percentile of the
 * reference stage's readers' (fetch wait + latency) per remote MB. Per MB, so a run that read
 * more or less data still compares. A reference stage needs LADRA_NET_REF_MIN_READERS readers. */
#define LADRA_NET_REF_MIN_READERS 4
struct ladra_netref {
    double *stage_lref;                 /* per dense stage of the input: log(ms per MB), NAN: no match */
    size_t nstages;
    size_t read_stages;                 /* this application's shuffle-read stages (by stage id) */
    size_t matched;                     /* of them, matched with a reference stage with enough readers */
};
/* Fills ref (free with clarity_ladra_netref_free) for in (whose app must be set) against the
 * reference application. Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_ladra_netref_build(const struct ladra_input *in, const struct clarity_app *reference,
                               const struct ladra_netscan_options *o, struct ladra_netref *ref, struct clarity_error *err);
void clarity_ladra_netref_free(struct ladra_netref *ref);
/* clarity_ladra_netscan, then, with ref (NULL: the same as clarity_ladra_netscan), again with each
 * reader compared with its stage's reference rate (readers of unmatched stages keep the
 * application's own) when o->ref_always or the first scan left the network unchecked. */
int clarity_ladra_netscan_ref(const struct ladra_input *in, const struct ladra_netscan_options *o,
                              const struct ladra_netref *ref, struct ladra_net_period *out, struct clarity_error *err);

struct ladra_options {
    double lambda;                  /* 1.5 */
    bool sample_std;                /* population sd (divide by N) by default */
    int64_t init_tol_ms;            /* first wave: started within this of the stage's first task; 1000 */
    bool strict_edges;              /* zero-padding at the edges instead of edge majority */
    bool skew_filter;               /* non-local abnormal tasks without a local one on the host are skew; on */
    int min_period_tasks;           /* 1 (lone smoothed tasks kept); 2 clears them (spikes) */
    double spec_quantile, spec_multiplier;  /* 0.75, 1.5 */
    int64_t spec_min_ms;            /* 100 */
    int threads;                    /* detection workers: 0 = two on large inputs, 1 = one; the result is the same */
    /* A period matters (is reported, and lets the verdict name a cause) when its stage ran on
     * two hosts or more and not every one of them had a period in it, its host ran at least
     * LADRA_MIN_HOST_TASKS tasks in the stage set, and its excess time is at least min_excess_ms
     * and min_share of its stage's task time; all_periods: every period (the paper's LADRA). */
    double min_share, min_excess_ms;
    bool all_periods;
    struct ladra_hostscan_options host;   /* the cross-stage host scan (clarity_ladra_hostscan) */
    struct ladra_netscan_options net;     /* the fetch-wait scan (clarity_ladra_netscan) */
};
void clarity_ladra_options_default(struct ladra_options *o);

/* ---- detection kernels (pure; unit tests check them on worked numbers) ---- */
/* Mean + lambda*std over d[0..n); std population unless sample. */
double clarity_ladra_threshold(const double *d, size_t n, double lambda, bool sample, double *mean, double *std);
/* Width-5 smoothing of in into out: 1 when the window sum > 2, read from in and written to out
 * (no recursion); truncated edge windows vote by majority unless strict (zero padding). */
void clarity_ladra_smooth(const uint8_t *in, uint8_t *out, size_t n, bool strict);
/* Spark's speculation rule offline (checkSpeculatableTasks): durations in finish order; flags[i] set for the
 * tasks still running once quantile of them finished and longer than max(mult*median, min).
 * threshold and flagged (may be NULL) get the duration threshold and how many were flagged.
 * Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_ladra_speculation(const double *dur_by_finish, size_t n, double quantile, double mult, double min_ms,
                      uint8_t *flags, double *threshold, size_t *flagged, struct clarity_error *err);

struct ladra_period {
    int32_t host, exec, stage;
    int64_t start_ms, end_ms;
    size_t tasks;                   /* smoothed-abnormal tasks in the run */
    double causes[LADRA_NCLASS];    /* of the host's factor vector */
    /* Whether it matters (clarity_ladra_period_matters): its tasks' time beyond their stage
     * attempt's median task time, that stage's median and its tasks' summed time. */
    double excess_ms, stage_median_ms, stage_task_ms;
    uint32_t host_set_tasks;        /* the host's tasks in the stage set smoothed with it */
    uint32_t stage_hosts, stage_hosts_with_period;   /* hosts that ran the stage attempt; of them, with a period in it */
    bool matters;
};

struct ladra_input {
    struct ladra_task *tasks; size_t ntasks;
    /* Where a task's metrics are read, by ladra_task.row: the model's columns when app is set,
     * else metrics[row] (tests and tools that build tasks by hand). */
    const struct clarity_app *app;
    const struct ladra_metrics *metrics;
    struct ladra_gc *gc; size_t ngc;    /* empty in event-log-only mode */
    size_t nhosts, nstages;
    int64_t app_start_ms, app_end_ms;
};

/* The metrics and id of task t (row as above). */
void clarity_ladra_task_metrics(const struct ladra_input *in, const struct ladra_task *t, struct ladra_metrics *m);
int64_t clarity_ladra_task_id(const struct ladra_input *in, const struct ladra_task *t);

/* Whether a period matters under o's thresholds (always with o->all_periods). */
bool clarity_ladra_period_matters(const struct ladra_period *p, const struct ladra_options *o);

/* Marks initial/raw/smooth/skew/speculation on every task and fills periods (malloc'd).
 * Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_ladra_detect(struct ladra_input *in, const struct ladra_options *o, struct ladra_period **periods,
                 size_t *nperiods, struct clarity_error *err);

/* ---- factors ---- */
double clarity_ladra_dar(const double *count, size_t nhosts, size_t victim, bool *clamped);
double clarity_ladra_dad(const double *avg, size_t nhosts, size_t victim, bool *clamped);
double clarity_ladra_dco_node(const double *real, const double *user, const double *sys, size_t n);
double clarity_ladra_trapezoid(const double *x, const double *y, size_t n);
double clarity_ladra_ars(const double *abn_prob, size_t nhosts);
double clarity_ladra_dmc_node(const double *x, const double *y, size_t n);  /* H_j; -1 with < 2 points */

/* Victim j' (not the paper's implied "most smoothed-abnormal tasks", which picked the faulty
 * host in 89 of 134 synth fault runs; the summed excess picked it in 111): up to 4 hosts, the
 * host whose tasks spent the most time beyond their stage's median, summed over the whole run.
 * Abnormal-task counts need 3 neighbours in a row (the width-5 smoothing) and a cut at mean +
 * 1.5 sd, so a host slowed by 30-60% for a while often has none; the excess time sees every
 * slowed task. On more than 4 hosts that sum names the host that ran the most tasks, so there
 * j' is the host whose tasks ran slowest against the OTHER hosts' tasks of their stage, per byte
 * read, with the host's load taken out, as a mean over its tasks (on the wide grid's seed 21,
 * 8 and 16 hosts: right in 31 of 36 slowed hog runs against 20; docs/anomalies.md). The shipped
 * model's samples are 4-host runs computed with the summed excess, which is why 4 hosts keep it.
 * Stage i*: the stage with the most abnormal tasks on j', else the one where j' has the most
 * excess. host_excess (nhosts, may be NULL) gets the per-host time beyond the stage medians in
 * ms; stage_med (nstages, may be NULL) the stage medians. force >= 0 imposes j' (a host's own
 * factors) and only picks i*. Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_ladra_victim(const struct ladra_input *in, int32_t force, int32_t *victim, int32_t *stage, double *host_excess,
                 double *stage_med, struct clarity_error *err);
/* Extended features (LADRA_CPE..LADRA_FWB) of victim v over the window [ws, we). Returns 0, or
 * CLARITY_ENOMEM with err filled. */
int clarity_ladra_extended(const struct ladra_input *in, int32_t v, int64_t ws, int64_t we, const double *stage_med,
                   double f[LADRA_NFEAT], struct clarity_error *err);

/* The victim's time components against the same stage's other hosts (ladra_components.c):
 * time, the mean over its tasks, weighted by how much slower each ran, of log(duration / the
 * others' geometric mean in its stage); then, over the same weighted tasks, the log of the
 * victim's amount over the amount at the others' rate in each stage: cpu (run time per CPU
 * time), gc (GC time per CPU time, + 1% of CPU time), fetch (fetch wait per remote byte, + 5%
 * of CPU time), write (shuffle write time per byte written); then, from the GC logs (0 without
 * them), gc_sys (the victim's collections' system share of their wall time, + 0.01, over the
 * others') and gc_stretch (wall time over user + sys, over the others'); last, read: the run
 * time that is neither CPU, GC, fetch wait nor shuffle write (input and output on the local
 * disks, spills, waiting for a core) per byte read or written there (disk_bytes), over the
 * others' (tasks with no such bytes left out); cpu_conc (lad26): cpu with the others' rate
 * taken at each victim task's own concurrency (their slope of log run time per CPU time over
 * log tasks running at once), which the model's cpu needs above 4 hosts. All 0 when the victim
 * ran no task slower than the others of its stage. */
/* Why the model's cause was dropped on more than 4 hosts (clarity_anomalies_result.model_drop_why). */
enum { LADRA_DROP_NONE, LADRA_DROP_COMPONENTS, LADRA_DROP_LOST, LADRA_DROP_READERS };
enum { LADRA_COMP_TIME, LADRA_COMP_CPU, LADRA_COMP_GC, LADRA_COMP_FETCH, LADRA_COMP_WRITE, LADRA_COMP_GC_SYS,
       LADRA_COMP_GC_STRETCH, LADRA_COMP_READ, LADRA_COMP_CPU_CONC, LADRA_NCOMP };
enum { LADRA_APPROX_DCO = 1, LADRA_APPROX_MCS = 2, LADRA_APPROX_DMC = 4, LADRA_CLAMPED = 8, LADRA_SINGLE_HOST = 16 };
struct ladra_factors {
    double f[LADRA_NFEAT];          /* the paper's seven, then the extended features */
    int32_t victim, stage;          /* victim host j' and stage i* */
    int64_t win_start_ms, win_end_ms;   /* the victim's abnormal periods, else the run */
    int flags;                      /* LADRA_APPROX_* and clamps */
};
/* The seven factors with j' = victim (or ladra_victim's choice when victim < 0). With no GC records,
 * DCO, MCS and DMC come from task metrics (flags say so). Returns 0, or CLARITY_ENOMEM with
 * err filled. */
int clarity_ladra_factors_compute(const struct ladra_input *in, const struct ladra_period *p, size_t np, int32_t victim,
                          struct ladra_factors *out, struct clarity_error *err);

/* ---- root cause ---- */
/* Eq. 11-12, a score below 1 giving probability 0; score and prob hold cpu, memory, network, disk. */
void clarity_ladra_rules(const double f[LADRA_NFACTOR], double score[4], double prob[4]);

/* A trained GRNN: samples per mode (log-based and event-log-only factors differ). Each sample
 * holds every feature; the feature set is chosen when predicting. */
struct ladra_model {
    struct ladra_sample { double x[LADRA_NFEAT]; int label; bool eventlog_only; } *s;
    size_t n, cap;
    int nfeat;                      /* features in the file: LADRA_NFEAT, or 7 for a /1 file */
    double sigma;                   /* paper features: 0.5 */
    bool zscore;                    /* paper features z-scored on the training set (off: raw, as the paper) */
    double xsigma;                  /* extended features (always z-scored) */
    char note[512];                 /* provenance (seeds, scenarios) */
};
/* Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_ladra_model_add(struct ladra_model *m, const double x[LADRA_NFEAT], int label, bool eventlog_only,
                    struct clarity_error *err);
/* The model file's text (format in ladra_model.c) on f; CLARITY_EIO when f reports a write
 * error. ladra_model_save writes it to a file it creates at path. */
int clarity_ladra_model_write(const struct ladra_model *m, FILE *f, struct clarity_error *err);
int clarity_ladra_model_save(const struct ladra_model *m, const char *path, struct clarity_error *err);
int clarity_ladra_model_load(struct ladra_model *m, const char *path, struct clarity_error *err);
void clarity_ladra_model_free(struct ladra_model *m);
/* y (sums to 1) for one factor vector. Returns 0; CLARITY_ENOTFOUND when the model has no
 * sample of that mode (or only the paper's features and the extended ones are asked): the
 * caller falls back to the rules; CLARITY_ENOMEM. */
int clarity_ladra_model_predict(const struct ladra_model *m, const double x[LADRA_NFEAT], bool eventlog_only,
                        int features, double y[LADRA_NCLASS], struct clarity_error *err);
/* The distance from x to the nearest training sample of its mode, in the GRNN's input space
 * (z-scored as it reads them) and in kernel widths: the GRNN's weight for that sample is
 * exp(-d^2 / 2). Far from every sample, its output is whichever sample is least far, not a
 * judgement. Returns 0, or CLARITY_ENOTFOUND as clarity_ladra_model_predict. */
int clarity_ladra_model_distance(const struct ladra_model *m, const double x[LADRA_NFEAT], bool eventlog_only,
                                 int features, double *dist, struct clarity_error *err);
/* The verdict from GRNN outputs y: the likeliest class, or normal when that is a cause with
 * less than min_cause of the weight. */
int clarity_ladra_verdict(const double y[LADRA_NCLASS], double min_cause);
/* Same over an explicit training set (row-major, dim = LADRA_NFEAT): for cross-validation.
 * Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_ladra_grnn_predict(const struct ladra_sample *train, size_t n, int features, double sigma, bool zscore,
                       const double q[LADRA_NFEAT], double y[LADRA_NCLASS], struct clarity_error *err);

/* The paper's protocol (its section 7.4): `splits` random splits of the samples of one mode,
 * 1/3 to test and 2/3 to train, seeded (same seed, same numbers). Per class (normal, cpu,
 * memory, network, disk) the precision and recall averaged over the splits where they are
 * defined (-1: never), and how many. */
enum ladra_cv_method { LADRA_CV_GRNN_EXTENDED, LADRA_CV_GRNN_CONFIDENT, LADRA_CV_GRNN_PAPER, LADRA_CV_RULES,
                       LADRA_CV_NMETHOD };
struct ladra_cv_result {
    size_t samples, splits, per_class[LADRA_NCLASS];
    double precision[LADRA_CV_NMETHOD][LADRA_NCLASS], recall[LADRA_CV_NMETHOD][LADRA_NCLASS];
    size_t p_defined[LADRA_CV_NMETHOD][LADRA_NCLASS];   /* splits where the class was predicted */
    size_t r_defined[LADRA_NCLASS];                      /* splits where the class was in the test third */
};
/* LADRA_CV_GRNN_CONFIDENT: the extended GRNN's verdict with min_cause. Returns 0, or
 * CLARITY_ENOMEM with err filled. */
int clarity_ladra_cv(const struct ladra_model *m, bool eventlog_only, size_t splits, uint64_t seed, double min_cause,
             struct ladra_cv_result *r, struct clarity_error *err);

/* ---- the whole analysis on one application ---- */
enum ladra_method { LADRA_METHOD_GRNN, LADRA_METHOD_RULES };
struct clarity_anomalies_options {
    struct ladra_options det;
    const struct clarity_logs *logs;    /* NULL: event-log-only mode */
    const struct ladra_model *model;    /* NULL or empty: rules */
    int method;
    int features;                       /* enum ladra_features */
    bool softmax;                       /* as the paper; y is printed too */
    double min_cause;                   /* GRNN verdict threshold (LADRA_DEFAULT_MIN_CAUSE) */
    /* Another run of the same job (NULL: none): the fetch-wait scan's reference rates where its
     * own are unusable (clarity_ladra_netscan_ref); reference_name is how the output names it. */
    const struct clarity_app *reference;
    const char *reference_name;
    bool cause_without_period;          /* let the GRNN name a cause with no period that matters, inside
                                           its domain (LADRA_MAX_MODEL_DISTANCE_*) and on a victim host
                                           that lost time that matters (on by default since issue 15's
                                           recall); off: no period, no cause */
};
struct clarity_anomalies_host {
    uint32_t host;                      /* string id */
    size_t tasks, raw, smooth, skew, speculation;
    double excess_ms;                   /* time beyond the stage medians */
    double lost_ms;                     /* time lost against the other hosts of its stages, per byte
                                           and load (the victim rule's measure, ladra_index.c) */
    double task_ms;                     /* its successful tasks' summed time */
    struct ladra_factors factors;
    double y[LADRA_NCLASS], p[LADRA_NCLASS];
    double rule_score[4], rule_prob[4];
    bool has_periods;
};
struct clarity_anomalies_stage { int64_t stage_id; int32_t attempt; size_t tasks, initial, raw, smooth, speculation;
                                 double thr_initial, thr_rest, spec_threshold; };
struct clarity_anomalies_result {
    struct ladra_input in;
    uint32_t *host_ids, *exec_ids; size_t nexecs;      /* dense index -> string id */
    struct clarity_anomalies_stage *stages;
    struct ladra_period *periods; size_t nperiods;
    size_t nmatter;                     /* periods that matter (ladra_period.matters) */
    struct ladra_host_period *host_periods; size_t nhost_periods;   /* the cross-stage scan: one per host at most */
    size_t nhost_matter;                /* of them, those that matter */
    struct ladra_net_period net;        /* the fetch-wait scan; detected = nmatter + nhost_matter + net.matters > 0 */
    const char *net_reference_name;     /* the options' reference_name when a reference run was given, else NULL */
    size_t net_ref_read_stages, net_ref_matched;   /* ladra_netref's read_stages and matched */
    struct { double min_share, min_excess_ms; bool all_periods; } rule;   /* the thresholds used */
    struct clarity_anomalies_host *hosts;               /* in.nhosts */
    struct ladra_factors run;                           /* the run's factors (against its victim host) */
    double run_y[LADRA_NCLASS], run_p[LADRA_NCLASS];
    int run_class, method, features;
    int run_likeliest;                  /* argmax of run_y; run_class is normal when it is under min_cause */
    int model_class;                    /* the model's verdict before the period rule (run_class without
                                           "no period that matters: normal") */
    double model_distance;              /* clarity_ladra_model_distance of the run's factors; INFINITY
                                           without a GRNN */
    double max_model_distance;          /* the domain bound of this run's mode (LADRA_MAX_MODEL_DISTANCE_*) */
    bool in_domain;                     /* model_distance <= max_model_distance */
    bool cause_without_period;          /* the verdict names the model's cause with no period that matters */
    bool names_host;                    /* the verdict names the victim host: false when the run is
                                           normal, or abnormal only by the fetch-wait scan (a slow
                                           network slows every host's readers; the log does not say
                                           whose blocks were slow) */
    double min_cause;
    bool eventlog_only, softmax, detected, speculation_detected;
    bool victim_by_slowdown;                            /* more than 4 hosts: the victim is the host
                                                           slowest against the others (lost_ms),
                                                           else the most excess_ms */
    double victim_comp[LADRA_NCOMP];                    /* victim_by_slowdown only: LADRA_COMP_* */
    bool cause_by_components;                           /* victim_by_slowdown: the verdict's cause is the
                                                           victim's components', not the model's */
    int model_cause_dropped;                            /* victim_by_slowdown: the model's cause the
                                                           components did not bear out (LADRA_NORMAL: none) */
    int model_drop_why;                                 /* why it was dropped: LADRA_DROP_* */
    bool cause_by_fetch_scan;                           /* victim_by_slowdown: network from the fetch-wait
                                                           scan, where nothing else named a cause */
    size_t tasks_skipped;                               /* failed/killed/no end: left out */
    uint64_t gc_joined, gc_unjoined;                    /* GC records with / without a host */
    uint64_t log_tids_joined, log_tids_unjoined;
};
/* Returns 0, or CLARITY_ENOMEM with err filled (r is then empty). */
int clarity_anomalies_analyze(const struct clarity_app *a, const struct clarity_anomalies_options *o,
                              struct clarity_anomalies_result *r, struct clarity_error *err);
void clarity_anomalies_free(struct clarity_anomalies_result *r);

/* ---- evaluation helpers: TPR, standard FPR = FP/(FP+TN), precision ---- */
double clarity_ladra_tpr(double tp, double fn);
double clarity_ladra_fpr(double fp, double tn);
double clarity_ladra_fpr_paper(double fp, double tp, double tn);
double clarity_ladra_precision(double tp, double fp);

#endif
