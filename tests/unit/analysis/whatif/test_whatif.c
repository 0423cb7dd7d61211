/* The monotask-style resource model and the what-if arithmetic on worked cases (T10-T17 in the
 * names) with the thesis' own numbers (section 5.6). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim/dag_replay.h"
#include "clarity/whatif.h"

#define EPS 1e-9

/* clarity_dag_makespan, asserting it succeeded */
static double dag_makespan(const double *r, const uint32_t *u, size_t n, size_t nu, const size_t *off,
                           const uint32_t *par, int slots)
{
    double m = -1;
    cr_assert_eq(clarity_dag_makespan(r, u, n, nu, off, par, slots, &m, NULL), 0);
    return m;
}

/* 10 machines x 8 cores, one 100 MB/s disk each, 1 Gbps: the thesis' 5.6.1 examples */
static struct clarity_hw thesis_hw(void)
{
    struct clarity_hw h = {0};
    h.v[CLARITY_HW_HOSTS] = 10;
    h.v[CLARITY_HW_EXECUTORS] = 10;
    h.v[CLARITY_HW_CORES_PER_HOST] = 8;
    h.v[CLARITY_HW_DISKS_PER_HOST] = 1;
    h.v[CLARITY_HW_DISK_MB_S] = 100;
    h.v[CLARITY_HW_NET_GBPS] = 1;
    h.v[CLARITY_HW_REPLICATION] = 1;
    h.task_cpus = 1;
    return h;
}

/* stage 1 of T10/T11: 1,200 s of CPU, 20 GB through disk, 5 GB over the network */
static const struct clarity_stage_usage T10 = {1200e3, 20e9, 5e9};
/* stage 2 of T11: CPU 5 s, disk 2 s, network 8 s on the thesis hardware */
static const struct clarity_stage_usage T11B = {5e3 * 80, 2e9, 8 * 1.25e9};

static double job_model(const struct clarity_stage_usage *u, size_t n, const struct clarity_hw *hw, int inf)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) {
        struct clarity_ideal id;
        clarity_ideal_compute(&u[i], hw, inf, &id);
        m += id.model_ms;
    }
    return m;
}

Test(whatif, t10_monotask_ideal_times)
{
    struct clarity_hw hw = thesis_hw();
    struct clarity_ideal id;
    clarity_ideal_compute(&T10, &hw, -1, &id);
    cr_assert_float_eq(id.ms[CLARITY_WRES_CPU], 15000, EPS, "1,200 s CPU on 80 cores");
    cr_assert_float_eq(id.ms[CLARITY_WRES_DISK], 20000, EPS, "20 GB on 10 disks at 100 MB/s");
    cr_assert_float_eq(id.ms[CLARITY_WRES_NETWORK], 4000, EPS, "5 GB over 10 x 1 Gbps");
    cr_assert_float_eq(id.model_ms, 20000, EPS);
    cr_assert_eq(id.bottleneck, CLARITY_WRES_DISK);
}

Test(whatif, t11_whatif_scaling_and_best_cases)
{
    struct clarity_hw hw = thesis_hw(), hw2;
    struct clarity_stage_usage job[] = {T10, T11B};
    struct clarity_ideal id;
    clarity_ideal_compute(&T11B, &hw, -1, &id);
    cr_assert_float_eq(id.model_ms, 8000, EPS);
    cr_assert_eq(id.bottleneck, CLARITY_WRES_NETWORK);
    double old = job_model(job, 2, &hw, -1);
    cr_assert_float_eq(old, 28000, EPS);

    /* twice the disk throughput, given as a user would: --disks x2 */
    struct clarity_hw_change ch = {0};
    struct clarity_error err = {0};
    cr_assert_eq(clarity_hw_parse_value(CLARITY_HW_DISKS_PER_HOST, "x2", &ch.f[CLARITY_HW_DISKS_PER_HOST], &err), 0);
    clarity_hw_apply(&hw, &ch, CLARITY_HWS_FLAG, &hw2);
    cr_assert_float_eq(hw2.v[CLARITY_HW_DISKS_PER_HOST], 2, EPS);
    cr_assert_eq(hw2.src[CLARITY_HW_DISKS_PER_HOST], CLARITY_HWS_FLAG);
    double neu = job_model(job, 2, &hw2, -1);
    cr_assert_float_eq(neu, 23000, EPS, "max(15,10,4) + 8");
    cr_assert_float_eq(clarity_whatif_predict(35, old, neu), 28.75, EPS);

    cr_assert_float_eq(job_model(job, 2, &hw, CLARITY_WRES_DISK), 23000, EPS, "disk infinitely fast: 15 + 8");
    cr_assert_float_eq(job_model(job, 2, &hw, CLARITY_WRES_NETWORK), 25000, EPS, "network infinitely fast: 20 + 5");

    /* 4x machines with the same bytes: every ideal time / 4 */
    struct clarity_hw_change four = {0};
    cr_assert_eq(clarity_hw_parse_value(CLARITY_HW_HOSTS, "40", &four.f[CLARITY_HW_HOSTS], &err), 0);
    clarity_hw_apply(&hw, &four, CLARITY_HWS_FLAG, &hw2);
    struct clarity_ideal a, b;
    for (int s = 0; s < 2; s++) {
        clarity_ideal_compute(&job[s], &hw, -1, &a);
        clarity_ideal_compute(&job[s], &hw2, -1, &b);
        for (int r = 0; r < CLARITY_WRES_COUNT; r++) cr_assert_float_eq(b.ms[r], a.ms[r] / 4, EPS);
    }
    cr_assert_float_eq(job_model(job, 2, &hw2, -1), 7000, EPS);
}

Test(whatif, t12_prediction_error_and_ratio)
{
    cr_assert_float_eq(clarity_prediction_error(38.0, 36.7), 1.3 / 36.7, 1e-12);
    cr_assert(fabs(clarity_prediction_error(38.0, 36.7) - 0.035) < 0.0005, "3.5%% (the thesis rounds to 4%%)");
    cr_assert(fabs(38.0 / 48.5 - 0.784) < 0.0005);
    cr_assert_float_eq(clarity_whatif_predict(48.5, 48.5, 38.0), 38.0, EPS);
    cr_assert_float_eq(clarity_whatif_predict(7, 0, 3), 7, EPS, "no model: the actual time");
}

Test(whatif, t13_evenly_bottlenecked_stage_halving_disks_predicts_2x)
{
    struct clarity_hw hw = thesis_hw(), half;
    struct clarity_stage_usage u = {10e3 * 80, 10 * 1e9, 10 * 1.25e9};   /* 10 s each */
    struct clarity_ideal id;
    clarity_ideal_compute(&u, &hw, -1, &id);
    for (int r = 0; r < CLARITY_WRES_COUNT; r++) cr_assert_float_eq(id.ms[r], 10000, EPS);
    struct clarity_hw_change ch = {0};
    struct clarity_error err = {0};
    cr_assert_eq(clarity_hw_parse_value(CLARITY_HW_DISKS_PER_HOST, "0.5x", &ch.f[CLARITY_HW_DISKS_PER_HOST], &err), 0);
    clarity_hw_apply(&hw, &ch, CLARITY_HWS_FLAG, &half);
    struct clarity_ideal h;
    clarity_ideal_compute(&u, &half, -1, &h);
    cr_assert_float_eq(h.ms[CLARITY_WRES_DISK], 20000, EPS);
    cr_assert_float_eq(h.model_ms / id.model_ms, 2.0, EPS, "the model says 2x (the thesis observed ~1.4x)");
    cr_assert_eq(h.bottleneck, CLARITY_WRES_DISK);
}

Test(whatif, t14_spark_slot_model)
{
    cr_assert_float_eq(clarity_slot_model_predict(10, 8, 16), 5, EPS);
    /* a disk change leaves the slots unchanged: no predicted change */
    struct clarity_hw hw = thesis_hw(), more;
    struct clarity_hw_change ch = {0};
    struct clarity_error err = {0};
    cr_assert_eq(clarity_hw_parse_value(CLARITY_HW_DISKS_PER_HOST, "x2", &ch.f[CLARITY_HW_DISKS_PER_HOST], &err), 0);
    clarity_hw_apply(&hw, &ch, CLARITY_HWS_FLAG, &more);
    cr_assert_float_eq(clarity_hw_slots(&more), clarity_hw_slots(&hw), EPS);
    cr_assert_float_eq(clarity_slot_model_predict(10, clarity_hw_slots(&hw), clarity_hw_slots(&more)), 10, EPS);
    /* the replay agrees: 16 tasks of 5 s take 10 s on 8 slots, 5 s on 16 */
    double r[16];
    uint32_t u[16] = {0};
    for (int i = 0; i < 16; i++) r[i] = 5;
    cr_assert_float_eq(dag_makespan(r, u, 16, 1, NULL, NULL, 8), 10, EPS);
    cr_assert_float_eq(dag_makespan(r, u, 16, 1, NULL, NULL, 16), 5, EPS);
}

Test(whatif, t15_concurrent_job_attribution_share)
{
    cr_assert_float_eq(clarity_slot_share(4 * 5, 8, 10), 0.25, EPS);
    cr_assert_float_eq(clarity_slot_share(1, 0, 10), 0, EPS);
}

Test(whatif, t16_monospark_concurrency)
{
    cr_assert_eq(clarity_monospark_multitasks(4, 1, false, 4), 10);
    cr_assert_eq(clarity_monospark_multitasks(8, 2, true, 4), 8 + 8 + 4 + 1);
}

Test(whatif, t17_mb_per_cpu_second)
{
    cr_assert_float_eq(clarity_mb_per_cpu_s(900e6, 100e3), 9, EPS);
    cr_assert_float_eq(clarity_mb_per_cpu_s(900e6, 0), 0, EPS);
}

Test(whatif, value_parsing)
{
    struct clarity_hw_value v;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_hw_parse_value(CLARITY_HW_NET_GBPS, "10Gbps", &v, &err), 0);
    cr_assert(v.set && !v.relative);
    cr_assert_float_eq(v.v, 10, EPS);
    cr_assert_eq(clarity_hw_parse_value(CLARITY_HW_NET_GBPS, "100Mbps", &v, &err), 0);
    cr_assert_float_eq(v.v, 0.1, EPS);
    cr_assert_eq(clarity_hw_parse_value(CLARITY_HW_NET_GBPS, "x10", &v, &err), 0);
    cr_assert(v.relative);
    cr_assert_eq(clarity_hw_parse_value(CLARITY_HW_DISK_MB_S, "200MB/s", &v, &err), 0);
    cr_assert_float_eq(v.v, 200, EPS);
    /* the units of util/units.h: B counts bytes, bps and b/s bits; k M G T decimal, Ki Mi Gi binary */
    cr_assert_eq(clarity_hw_parse_value(CLARITY_HW_NET_GBPS, "1.25GB/s", &v, &err), 0);
    cr_assert_float_eq(v.v, 10, EPS);
    cr_assert_eq(clarity_hw_parse_value(CLARITY_HW_NET_GBPS, "10G", &v, &err), 0);
    cr_assert_float_eq(v.v, 10, EPS);
    cr_assert_eq(clarity_hw_parse_value(CLARITY_HW_NET_GBPS, "100Mb/s", &v, &err), 0);
    cr_assert_float_eq(v.v, 0.1, EPS);
    cr_assert_eq(clarity_hw_parse_value(CLARITY_HW_DISK_MB_S, "1.5GB/s", &v, &err), 0);
    cr_assert_float_eq(v.v, 1500, EPS);
    cr_assert_eq(clarity_hw_parse_value(CLARITY_HW_DISK_MB_S, "150MiB/s", &v, &err), 0);
    cr_assert_float_eq(v.v, 157.28640, EPS);
    cr_assert_eq(clarity_hw_parse_value(CLARITY_HW_DISK_MB_S, "200mbps", &v, &err), 0);
    cr_assert_float_eq(v.v, 200, EPS, "the flag's own spelling, MB/s");
    cr_assert_eq(clarity_hw_parse_value(CLARITY_HW_DISK_MB_S, "200MB/h", &v, &err), CLARITY_EUSAGE);
    cr_assert_str_eq(err.msg, "disk_mb_s: '200MB/h' is not a positive number (e.g. 200MB/s, 1.5GB/s, 150MiB/s, x2)");
    cr_assert_eq(clarity_hw_parse_value(CLARITY_HW_INPUT_ON_DISK, "no", &v, &err), 0);
    cr_assert_float_eq(v.v, 0, EPS);
    cr_assert_neq(clarity_hw_parse_value(CLARITY_HW_HOSTS, "-3", &v, &err), 0);
    cr_assert_neq(clarity_hw_parse_value(CLARITY_HW_HOSTS, "10Gbps", &v, &err), 0);
    cr_assert_neq(clarity_hw_parse_value(CLARITY_HW_HOSTS, "", &v, &err), 0);
    cr_assert_neq(clarity_hw_parse_value(CLARITY_HW_NET_GBPS, "x10Gbps", &v, &err), 0);

    struct clarity_curve_ask ask[8];
    size_t nask;
    cr_assert_eq(clarity_curve_parse("0.5x,1x,2x,x4", ask, 8, &nask, &err), 0);
    cr_assert_eq(nask, 4);
    cr_assert(ask[0].relative && ask[0].v == 0.5 && ask[3].v == 4);
    cr_assert_eq(clarity_curve_parse("8,16", ask, 8, &nask, &err), 0);
    cr_assert_eq(nask, 2);
    cr_assert(!ask[1].relative && ask[1].v == 16);
    cr_assert_eq(clarity_curve_parse("8,2x", ask, 8, &nask, &err), CLARITY_EUSAGE);
    cr_assert_eq(clarity_curve_parse("8,,2", ask, 8, &nask, &err), CLARITY_EUSAGE);
    cr_assert_eq(clarity_curve_parse("", ask, 8, &nask, &err), CLARITY_EUSAGE);
}

Test(whatif, ini_profile)
{
    char path[] = "/tmp/clarity-hw-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("# the cluster the log ran on\n[cluster]\ndisks_per_host = 2\ndisk_mb_s = 150 ; SSD-ish\n"
          "network_gbps = 10Gbps\n\n[whatif]\nhosts = x2\ninput_on_disk = no\n", f);
    fclose(f);
    struct clarity_hw_change cl = {0}, wi = {0};
    struct clarity_error err = {0};
    cr_assert_eq(clarity_hw_ini_load(path, &cl, &wi, &err), 0, "%s", err.msg);
    cr_assert_float_eq(cl.f[CLARITY_HW_DISKS_PER_HOST].v, 2, EPS);
    cr_assert_float_eq(cl.f[CLARITY_HW_DISK_MB_S].v, 150, EPS);
    cr_assert_float_eq(cl.f[CLARITY_HW_NET_GBPS].v, 10, EPS);
    cr_assert(wi.f[CLARITY_HW_HOSTS].relative && wi.f[CLARITY_HW_HOSTS].v == 2);
    cr_assert(wi.f[CLARITY_HW_INPUT_ON_DISK].set && wi.f[CLARITY_HW_INPUT_ON_DISK].v == 0);
    cr_assert_not(cl.f[CLARITY_HW_HOSTS].set);

    f = fopen(path, "w");
    fputs("[cluster]\nhosts = x2\n", f);
    fclose(f);
    memset(&cl, 0, sizeof cl);
    cr_assert_eq(clarity_hw_ini_load(path, &cl, &wi, &err), CLARITY_EUSAGE);
    cr_assert_str_eq(err.file, path);
    cr_assert_eq(err.line, 2);
    cr_assert_str_eq(err.msg, "[cluster] describes the hardware the log ran on: give hosts absolutely");
    f = fopen(path, "w");
    fputs("[cluster]\nspindles = 4\n", f);
    fclose(f);
    cr_assert_eq(clarity_hw_ini_load(path, &cl, &wi, &err), CLARITY_EUSAGE);
    cr_assert_eq(err.line, 2);
    cr_assert_str_eq(err.msg, "unknown key 'spindles'");
    remove(path);
    cr_assert_eq(clarity_hw_ini_load(path, &cl, &wi, &err), CLARITY_EIO);
}
