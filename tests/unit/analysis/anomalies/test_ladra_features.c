/* clarity's additions to LADRA, with worked numbers: the victim host by excess time over the
 * stage medians, the event-log features beyond the paper (CPE, GCS, FWV, FWA, SWT, SLD), the
 * lone-task spike removal after smoothing, the model file /2 and the paper's CV protocol. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "clarity/anomalies.h"

/* Task `row` (its id too) of duration d; with m, m[row] gets run and CPU time d. */
static struct ladra_task tk(struct ladra_metrics *m, uint32_t row, int32_t stage, int32_t host, int64_t s, int64_t d)
{
    if (m) m[row] = (struct ladra_metrics){.tid = row, .run_ms = d, .cpu_ms = d};
    return (struct ladra_task){.row = row, .stage = stage, .host = host, .exec = host, .start_ms = s, .end_ms = s + d,
                               .locality = CLARITY_LOC_NODE_LOCAL};
}

/* Stage median 10 s. Host 1 has one 30 s task (20 s excess), host 2 three 14 s tasks (12 s):
 * host 1 is the victim. Slow host 2 to 18 s a task (24 s) and it becomes the victim, though
 * none of its tasks is an outlier on its own. */
Test(ladra_victim, most_excess_time)
{
    int64_t d[9] = {10000, 10000, 10000, 10000, 10000, 30000, 14000, 14000, 14000};
    struct ladra_task t[9];
    for (int i = 0; i < 9; i++) t[i] = tk(NULL, (uint32_t)i, 0, i / 3, (i % 3) * 40000, d[i]);
    struct ladra_input in = {.tasks = t, .ntasks = 9, .nhosts = 3, .nstages = 1};
    int32_t v, st;
    double ex[3], med[1];
    cr_assert_eq(clarity_ladra_victim(&in, -1, &v, &st, ex, med, NULL), 0);
    cr_assert_float_eq(med[0], 10000, 1e-9);
    cr_assert_float_eq(ex[0], 0, 1e-9);
    cr_assert_float_eq(ex[1], 20000, 1e-9);
    cr_assert_float_eq(ex[2], 12000, 1e-9);
    cr_assert_eq(v, 1);
    for (int i = 6; i < 9; i++) t[i].end_ms = t[i].start_ms + 18000;
    cr_assert_eq(clarity_ladra_victim(&in, -1, &v, &st, ex, med, NULL), 0);
    cr_assert_float_eq(ex[2], 24000, 1e-9);
    cr_assert_eq(v, 2);
    cr_assert_eq(st, 0);
    cr_assert_eq(clarity_ladra_victim(&in, 0, &v, &st, NULL, NULL, NULL), 0);   /* imposed */
    cr_assert_eq(v, 0);
}

/* Six hosts: more than LADRA_VICTIM_EXCESS_MAX_HOSTS, so the victim is chosen per task, not by
 * summed excess (load 1, no bytes: log durations compared). Host 0 ran 10 tasks of 12 s, hosts
 * 1-4 four of 10 s each, host 5 two of 15 s. The stage median is 10 s: host 0 sums 20 s beyond
 * it, host 5 10 s. Per task against the others' geometric mean, with 2 unslowed tasks added:
 * host 0 0.114, host 5 0.168 (host 1 -0.073), so host 5 is the slowest per task. But host 0 is
 * within 0.4 of that score and lost more time at the others' rate (10 x 12 s x (1 - e^-0.137)
 * = 15.4 s against host 5's 8.5 s), so host 0 is the victim: a host whose every task ran a
 * little slow in a fault window outranks one that ran two slow tasks. */
/* the six hosts below: host 0 ran 10 tasks of host0_ms, hosts 1-4 four of 10 s, host 5 two of
 * 15 s, one stage, one task at a time per host; the victim and each host's summed excess */
static void six_hosts(int host0_ms, int32_t *v, double *ex)
{
    struct ladra_task t[28];
    int k = 0;
    for (int i = 0; i < 10; i++, k++) t[k] = tk(NULL, (uint32_t)k, 0, 0, i * 20000, host0_ms);
    for (int h = 1; h <= 4; h++)
        for (int i = 0; i < 4; i++, k++) t[k] = tk(NULL, (uint32_t)k, 0, h, i * 20000, 10000);
    for (int i = 0; i < 2; i++, k++) t[k] = tk(NULL, (uint32_t)k, 0, 5, i * 20000, 15000);
    struct ladra_input in = {.tasks = t, .ntasks = 28, .nhosts = 6, .nstages = 1};
    int32_t st;
    cr_assert_eq(clarity_ladra_victim(&in, -1, v, &st, ex, NULL, NULL), 0);
}

Test(ladra_victim, most_lost_among_the_slow_on_six_hosts)
{
    int32_t v;
    double ex[6];
    six_hosts(12000, &v, ex);
    cr_assert_float_eq(ex[0], 20000, 1e-9);
    cr_assert_float_eq(ex[5], 10000, 1e-9);
    cr_assert_eq(v, 0);
}

/* The same six hosts with host 0's tasks at 10.3 s: its score (-0.013) is below 0.4 of host 5's
 * (0.197), so host 5, the slowest per task, stays the victim although host 0 ran more tasks. */
Test(ladra_victim, slowest_per_task_when_no_other_is_near)
{
    int32_t v;
    double ex[6];
    six_hosts(10300, &v, ex);
    cr_assert_eq(v, 5);
}

/* Six hosts, and the host's load taken out before hosts are compared. Host 0 runs 8 tasks at
 * once, 8 s each (1 s of work at a load of 8, as 8 readers sharing disks); hosts 1-4 two at
 * once, 2 s each; host 5 two at once, 3 s each: the slow one. Least squares of log duration
 * over log load, over the stage's tasks, puts the slope at 0.94; once it is taken out, host 5
 * scores 0.182, host 0 0.000 and hosts 1-4 -0.046. Without it host 0's 8 s tasks, 4x the
 * others', would make it the victim. */
Test(ladra_victim, load_taken_out)
{
    struct ladra_task t[18];
    int k = 0;
    for (int i = 0; i < 8; i++, k++) t[k] = tk(NULL, (uint32_t)k, 0, 0, 0, 8000);
    for (int h = 1; h <= 5; h++)
        for (int i = 0; i < 2; i++, k++) t[k] = tk(NULL, (uint32_t)k, 0, h, 0, h == 5 ? 3000 : 2000);
    struct ladra_input in = {.tasks = t, .ntasks = 18, .nhosts = 6, .nstages = 1};
    int32_t v, st;
    cr_assert_eq(clarity_ladra_victim(&in, -1, &v, &st, NULL, NULL, NULL), 0);
    cr_assert_eq(v, 5);
}

/* i*: with no abnormal task, the stage where the victim has the most excess. */
Test(ladra_victim, stage_of_the_excess)
{
    struct ladra_task t[6] = {tk(NULL, 1, 0, 0, 0, 1000), tk(NULL, 2, 0, 1, 0, 1000), tk(NULL, 3, 0, 2, 0, 1000),
                              tk(NULL, 4, 1, 0, 5000, 3000), tk(NULL, 5, 1, 1, 5000, 1000), tk(NULL, 6, 1, 2, 5000, 1000)};
    struct ladra_input in = {.tasks = t, .ntasks = 6, .nhosts = 3, .nstages = 2};
    int32_t v, st;
    cr_assert_eq(clarity_ladra_victim(&in, -1, &v, &st, NULL, NULL, NULL), 0);
    cr_assert_eq(v, 0);
    cr_assert_eq(st, 1);
}

/* Victim host 0 inside the window [0, 5 s): run 2000 ms, CPU 1000, GC 200, fetch wait 400,
 * shuffle write 4 ms for 1000 B. Hosts 1 and 2: run 1000, CPU 800, no GC, fetch wait 500,
 * 1 ms for 1000 B; and one task each outside the window with no fetch wait. Every task
 * reads remote shuffle blocks. */
Test(ladra_features, worked_example)
{
    struct ladra_metrics m[5];
    struct ladra_task t[5] = {tk(m, 0, 0, 0, 0, 2000), tk(m, 1, 0, 1, 0, 1000), tk(m, 2, 0, 2, 0, 1000),
                              tk(m, 3, 1, 1, 6000, 1000), tk(m, 4, 1, 2, 6000, 1000)};
    m[0].cpu_ms = 1000, m[0].gc_ms = 200, m[0].fetch_wait_ms = 400, m[0].sw_ns = 4000000, m[0].sw_bytes = 1000;
    for (int i = 1; i <= 2; i++) m[i].cpu_ms = 800, m[i].fetch_wait_ms = 500, m[i].sw_ns = 1000000, m[i].sw_bytes = 1000;
    for (int i = 3; i <= 4; i++) m[i].cpu_ms = 800;
    for (int i = 0; i <= 4; i++) m[i].remote_bytes = 1048576;
    struct ladra_input in = {.tasks = t, .ntasks = 5, .metrics = m, .nhosts = 3, .nstages = 2};
    double med[2] = {1000, 1000}, f[LADRA_NFEAT];
    /* FWA compares tasks that fetch: outside the window none fetch, nothing to compare with */
    m[3].remote_bytes = m[4].remote_bytes = 0;
    cr_assert_eq(clarity_ladra_extended(&in, 0, 0, 5000, med, f, NULL), 0);
    cr_assert_float_eq(f[LADRA_FWA], 1, 1e-12);
    m[3].remote_bytes = m[4].remote_bytes = 1048576;
    cr_assert_eq(clarity_ladra_extended(&in, 0, 0, 5000, med, f, NULL), 0);
    cr_assert_float_eq(f[LADRA_CPE], 1.6, 1e-9);                  /* 0.8 / 0.5 */
    cr_assert_float_eq(f[LADRA_GCS], 11, 1e-9);                   /* (0.1 + 0.01) / (0 + 0.01) */
    cr_assert_float_eq(f[LADRA_FWV], 0.25 / 0.55, 1e-9);          /* (0.2 + 0.05) / (0.5 + 0.05) */
    cr_assert_float_eq(f[LADRA_FWA], 11, 1e-9);                   /* (0.5 + 0.05) / (0 + 0.05) */
    cr_assert_float_eq(f[LADRA_SWT], 4, 1e-9);                    /* 4000 / 1000 ns per byte */
    cr_assert_float_eq(f[LADRA_SLD], 2, 1e-9);                    /* 2000 / 1000 against 1 */
    /* the whole run through ladra_factors_compute: same victim, the same extended values */
    struct ladra_factors fa;
    cr_assert_eq(clarity_ladra_factors_compute(&in, NULL, 0, -1, &fa, NULL), 0);
    cr_assert_eq(fa.victim, 0);
    cr_assert_float_eq(fa.f[LADRA_SLD], 2, 1e-9);
    cr_assert_float_eq(fa.f[LADRA_CPE], 0.8 / 0.5, 1e-9);
    /* one host: nothing to compare with, every feature 1 */
    in.nhosts = 1;
    for (int i = 0; i < 5; i++) t[i].host = 0;
    cr_assert_eq(clarity_ladra_extended(&in, 0, 0, 5000, med, f, NULL), 0);
    for (int k = LADRA_NFACTOR; k < LADRA_EDCO; k++) cr_assert_float_eq(f[k], 1, 1e-12, "%s", clarity_ladra_factor_name(k));
}

/* One host's vector: raw [0,1,1,0,1,1,0,0,0,0], edge majority [1,0,1,1,1,0,...]. With
 * --min-period-tasks 2 the lone 1 at the edge is a spike: one period of three tasks remains. */
Test(ladra_detect, lone_smoothed_task_is_no_period)
{
    struct ladra_task t[40];
    for (int h = 0; h < 4; h++)
        for (int k = 0; k < 10; k++) {
            int i = h * 10 + k;
            bool slow = h == 0 && (k == 1 || k == 2 || k == 4 || k == 5);
            t[i] = tk(NULL, (uint32_t)i, 0, h, k * 10000 + h * 2000, slow ? 5000 : 1000);
        }
    struct ladra_input in = {.tasks = t, .ntasks = 40, .nhosts = 4, .nstages = 1, .app_end_ms = 100000};
    struct ladra_options o;
    clarity_ladra_options_default(&o);
    struct ladra_period *p;
    size_t np;
    cr_assert_eq(clarity_ladra_detect(&in, &o, &p, &np, NULL), 0);   /* default: the lone 1 is a period */
    cr_assert(t[0].smooth);
    cr_assert_eq(np, 2);
    cr_assert_eq(p[0].tasks, 1);
    free(p);
    o.min_period_tasks = 2;
    cr_assert_eq(clarity_ladra_detect(&in, &o, &p, &np, NULL), 0);
    int raw = 0;
    for (int i = 0; i < 40; i++) raw += t[i].raw;
    cr_assert_eq(raw, 4);   /* mean 1400, sd 1200, threshold 3200 */
    cr_assert(!t[0].smooth);
    cr_assert(t[2].smooth && t[3].smooth && t[4].smooth);
    cr_assert_eq(np, 1);
    cr_assert_eq(p[0].tasks, 3);
    cr_assert_eq(p[0].start_ms, 20000);
    cr_assert_eq(p[0].end_ms, 45000);
    free(p);
}

static void add(struct ladra_model *m, int label, double cpe, double gcs, bool elo)
{
    double x[LADRA_NFEAT];
    for (int k = 0; k < LADRA_NFEAT; k++) x[k] = 1;
    x[LADRA_CPE] = cpe, x[LADRA_GCS] = gcs;
    cr_assert_eq(clarity_ladra_model_add(m, x, label, elo, NULL), 0);
}

Test(ladra_model, v2_round_trip_and_v1)
{
    struct ladra_model m = {.sigma = 0.5, .xsigma = 1, .nfeat = LADRA_NFEAT};
    snprintf(m.note, sizeof m.note, "unit test");
    add(&m, LADRA_NORMAL, 1, 1, false);
    add(&m, LADRA_CPU, 1.7, 1, true);
    char path[] = "/tmp/clarity-ladra-model-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    struct clarity_error err = {0};
    cr_assert_eq(clarity_ladra_model_save(&m, path, &err), 0);
    struct ladra_model r;
    cr_assert_eq(clarity_ladra_model_load(&r, path, &err), 0);
    cr_assert_eq(r.n, 2);
    cr_assert_eq(r.nfeat, LADRA_NFEAT);
    cr_assert_float_eq(r.xsigma, 1, 1e-12);
    cr_assert_float_eq(r.s[1].x[LADRA_CPE], 1.7, 1e-9);
    cr_assert(r.s[1].eventlog_only);
    cr_assert_eq(r.s[1].label, LADRA_CPU);
    clarity_ladra_model_free(&r);
    clarity_ladra_model_free(&m);

    /* a /1 file: seven factors, usable with the paper's features only */
    FILE *f = fopen(path, "w");
    fprintf(f, "clarity.ladra-model/1 sigma 0.5 zscore 0\nlog normal 1 1 1 1 1 1 1\nlog cpu 2 2 1 1 1 1 1\n");
    fclose(f);
    cr_assert_eq(clarity_ladra_model_load(&r, path, &err), 0);
    cr_assert_eq(r.nfeat, LADRA_NFACTOR);
    double y[LADRA_NCLASS], q[LADRA_NFEAT] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    cr_assert_eq(clarity_ladra_model_predict(&r, q, false, LADRA_FEATURES_EXTENDED, y, NULL), CLARITY_ENOTFOUND);
    cr_assert_eq(clarity_ladra_model_predict(&r, q, false, LADRA_FEATURES_PAPER, y, NULL), 0);
    cr_assert_float_eq(y[LADRA_NORMAL], 0.98201, 1e-5);   /* X1 against {X1 normal, X2 cpu}: y = (0.98201, ...) */
    clarity_ladra_model_free(&r);

    /* a /2 file with other feature names is refused */
    f = fopen(path, "w");
    fprintf(f, "clarity.ladra-model/2 sigma 0.5 zscore 0 xsigma 1 features DAR DAD DCO MCS ARS DMC DLD CPE GCS FWV FWA SWT XYZ\n");
    fclose(f);
    cr_assert_neq(clarity_ladra_model_load(&r, path, &err), 0);
    unlink(path);
}

/* Extended features are z-scored: CPE spread 0.35 and GCS spread 0.7 weigh the same. */
Test(ladra_model, extended_predict_zscored)
{
    struct ladra_model m = {.sigma = 0.5, .xsigma = 1, .nfeat = LADRA_NFEAT};
    add(&m, LADRA_NORMAL, 1, 1, false);
    add(&m, LADRA_CPU, 1.7, 1, false);
    add(&m, LADRA_MEMORY, 1, 2.4, false);
    double q[LADRA_NFEAT], y[LADRA_NCLASS];
    for (int k = 0; k < LADRA_NFEAT; k++) q[k] = 1;
    q[LADRA_CPE] = 1.6;
    cr_assert_eq(clarity_ladra_model_predict(&m, q, false, LADRA_FEATURES_EXTENDED, y, NULL), 0);
    cr_assert(y[LADRA_CPU] > 0.5 && y[LADRA_CPU] > y[LADRA_NORMAL], "cpu %g normal %g", y[LADRA_CPU], y[LADRA_NORMAL]);
    /* no event-log sample */
    cr_assert_eq(clarity_ladra_model_predict(&m, q, true, LADRA_FEATURES_EXTENDED, y, NULL), CLARITY_ENOTFOUND);
    clarity_ladra_model_free(&m);
}

/* The CV harness gives the same averages on every run; well separated classes are
 * recovered exactly by the GRNN; the rules read the paper's factors, all 1 here: normal. */
Test(ladra_cv, t8_2_reproducible)
{
    struct ladra_model m = {.sigma = 0.5, .xsigma = 1, .nfeat = LADRA_NFEAT};
    for (int i = 0; i < 30; i++) {
        int c = i % 3;
        add(&m, c, c == 1 ? 2.0 + 0.01 * i : 1 + 0.001 * i, c == 2 ? 3.0 : 1, false);
    }
    struct ladra_cv_result a, b;
    cr_assert_eq(clarity_ladra_cv(&m, false, 100, 42, 0.4, &a, NULL), 0);
    cr_assert_eq(clarity_ladra_cv(&m, false, 100, 42, 0.4, &b, NULL), 0);
    cr_assert_eq(memcmp(&a, &b, sizeof a), 0);
    cr_assert_eq(a.samples, 30);
    cr_assert_eq(a.per_class[LADRA_CPU], 10);
    for (int c = 0; c < 3; c++) {
        cr_assert_float_eq(a.precision[LADRA_CV_GRNN_EXTENDED][c], 1, 1e-12);
        cr_assert_float_eq(a.recall[LADRA_CV_GRNN_EXTENDED][c], 1, 1e-12);
        cr_assert_float_eq(a.precision[LADRA_CV_GRNN_CONFIDENT][c], 1, 1e-12);   /* far apart: sure */
        cr_assert_float_eq(a.recall[LADRA_CV_GRNN_CONFIDENT][c], 1, 1e-12);
    }
    cr_assert_float_eq(a.recall[LADRA_CV_RULES][LADRA_NORMAL], 1, 1e-12);
    cr_assert_float_eq(a.recall[LADRA_CV_RULES][LADRA_CPU], 0, 1e-12);
    cr_assert_float_eq(a.precision[LADRA_CV_RULES][LADRA_CPU], -1, 1e-12);   /* never predicted */
    cr_assert_float_eq(a.recall[LADRA_CV_GRNN_EXTENDED][LADRA_DISK], -1, 1e-12);   /* no disk sample */
    cr_assert_eq(clarity_ladra_cv(&m, true, 100, 42, 0.4, &b, NULL), 0);
    cr_assert_eq(b.samples, 0);
    clarity_ladra_model_free(&m);
}

/* The verdict names a cause only with min_cause of the GRNN's weight. */
Test(ladra_model, verdict_min_cause)
{
    double unsure[LADRA_NCLASS] = {0.32, 0.21, 0.34, 0.09, 0.04};   /* memory likeliest at 0.34 */
    cr_assert_eq(clarity_ladra_verdict(unsure, 0.4), LADRA_NORMAL);
    cr_assert_eq(clarity_ladra_verdict(unsure, 0.34), LADRA_MEMORY);
    cr_assert_eq(clarity_ladra_verdict(unsure, 0), LADRA_MEMORY);
    double sure[LADRA_NCLASS] = {0, 1, 0, 0, 0};
    cr_assert_eq(clarity_ladra_verdict(sure, 0.4), LADRA_CPU);
    double normal[LADRA_NCLASS] = {0.3, 0.25, 0.25, 0.1, 0.1};   /* normal needs no threshold */
    cr_assert_eq(clarity_ladra_verdict(normal, 0.9), LADRA_NORMAL);
}

/* eDCO, eMCS and eDMC are inputs in the log mode only: without GC logs they repeat DCO, MCS
 * and DMC, and counting them twice would weigh those three double. */
Test(ladra_model, event_log_approximations_only_in_log_mode)
{
    struct ladra_model m = {.sigma = 0.5, .xsigma = 1, .nfeat = LADRA_NFEAT};
    double x[LADRA_NFEAT];
    for (int elo = 0; elo < 2; elo++) {
        for (int k = 0; k < LADRA_NFEAT; k++) x[k] = 1;
        x[LADRA_CPE] = 2;   /* a spread in the shared features, so z-scores are defined */
        cr_assert_eq(clarity_ladra_model_add(&m, x, LADRA_NORMAL, elo, NULL), 0);
        x[LADRA_EDCO] = 3;
        cr_assert_eq(clarity_ladra_model_add(&m, x, LADRA_CPU, elo, NULL), 0);
    }
    double q[LADRA_NFEAT], y[LADRA_NCLASS];
    for (int k = 0; k < LADRA_NFEAT; k++) q[k] = 1;
    q[LADRA_CPE] = 2, q[LADRA_EDCO] = 3;
    cr_assert_eq(clarity_ladra_model_predict(&m, q, false, LADRA_FEATURES_EXTENDED, y, NULL), 0);
    /* log mode: z(eDCO) is -1 and +1 for the two samples, the query at +1: distances 4 and 0,
     * weights e^-2 and 1 */
    cr_assert_float_eq(y[LADRA_CPU], 1 / (1 + exp(-2.0)), 1e-9);
    cr_assert_eq(clarity_ladra_model_predict(&m, q, true, LADRA_FEATURES_EXTENDED, y, NULL), 0);
    cr_assert_float_eq(y[LADRA_CPU], 0.5, 1e-12);   /* event log only: the two are the same point */
    cr_assert_float_eq(y[LADRA_NORMAL], 0.5, 1e-12);
    clarity_ladra_model_free(&m);
}

/* A model written by a build with the thirteen features before eDCO, eMCS, eDMC is refused
 * with a message, not read with the columns shifted. */
Test(ladra_model, thirteen_feature_file_refused)
{
    char path[] = "/tmp/clarity-ladra-model-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "clarity.ladra-model/2 sigma 0.5 zscore 0 xsigma 1 features DAR DAD DCO MCS ARS DMC DLD CPE GCS FWV FWA SWT SLD\n"
               "log normal 1 1 1 1 1 1 1 1 1 1 1 1 1\n");
    fclose(f);
    struct ladra_model r;
    struct clarity_error err = {0};
    cr_assert_neq(clarity_ladra_model_load(&r, path, &err), 0);
    cr_assert(strstr(err.msg, "rebuild it") != NULL, "%s", err.msg);
    unlink(path);
}
