/* The fetch-wait scan against another run of the same job (lad30: ladra_netref.c and
 * clarity_ladra_netscan_ref) on worked numbers.
 *
 * The reference run (last night's): stage 5 "reduceByKey at Job.scala:20" has 8 readers of
 * 10 MB waiting 30, 40, 40, 40, 50, 60, 70, 80 ms: (wait + 10) / 10 = 4, 5, 5, 5, 6, 7, 8, 9 ms
 * per MB; their 25th percentile (position 1.75 of 8, between two 5s) is 5 ms/MB. Stage 6
 * "count at Job.scala:30" has 3 readers, under the 4 a reference stage needs.
 * The analysed run: stage 3 "reduceByKey at Job.scala:20" (another id: stages are matched by
 * name and position, not id) has 20 readers of 10 MB on hosts 0-3, all started at 0 (one wave),
 * each waiting 190 ms: 20 ms/MB; stage 4 "count at Job.scala:30" has 2 readers at 2,000 ms
 * waiting the same. Alone, the scan's reference is its own 20 ms/MB (every rate is ln 20): no
 * stretch, and 20 of 22 readers at once with 3,800 ms of fetch wait, 17% of the 22,000 ms of
 * tasks: unchecked. Against the reference run, stage 3's readers wait x4 over 5 ms/MB: each adds
 * ln 4 - ln 1.5 to the scan, stage 4's (no usable match: their own 20 ms/MB) -ln 1.5 each, so the
 * stretch is the 20, on 4 hosts, 20 x (190 + 10 - 5 x 10) = 3,000 ms beyond the reference, 13.6%
 * of the task time: it matters, and the network was checked. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "clarity/anomalies.h"
#include "../../model/load_helpers.h"

struct rlog { char *buf; size_t len; FILE *f; int ntask; };

static void rbegin(struct rlog *l)
{
    l->f = open_memstream(&l->buf, &l->len);
    l->ntask = 0;
    fprintf(l->f, "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.1.2\"}\n"
                  "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"t\",\"App ID\":\"a-1\",\"Timestamp\":0,"
                  "\"User\":\"u\"}\n");
    for (int e = 0; e < 4; e++)
        fprintf(l->f, "{\"Event\":\"SparkListenerExecutorAdded\",\"Timestamp\":0,\"Executor ID\":\"%d\",\"Executor "
                      "Info\":{\"Host\":\"h%d\",\"Total Cores\":8,\"Log Urls\":{}}}\n", e, e);
}

static void rstage(struct rlog *l, int id, const char *name, int ntasks)
{
    fprintf(l->f, "{\"Event\":\"SparkListenerStageSubmitted\",\"Stage Info\":{\"Stage ID\":%d,\"Stage Attempt ID\":0,"
                  "\"Stage Name\":\"%s\",\"Number of Tasks\":%d,\"RDD Info\":[],\"Parent IDs\":[],\"Details\":\"\","
                  "\"Submission Time\":0,\"Accumulables\":[]},\"Properties\":{}}\n", id, name, ntasks);
}

/* a successful reader of stage `stage` on host `host`: 10 MB of remote blocks, `fw` ms of fetch wait */
static void rtask(struct rlog *l, int stage, int host, long launch, long fw)
{
    int id = l->ntask++;
    fprintf(l->f, "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":%d,\"Stage Attempt ID\":0,\"Task Type\":"
                  "\"ResultTask\",\"Task End Reason\":{\"Reason\":\"Success\"},\"Task Info\":{\"Task ID\":%d,\"Index\":%d,"
                  "\"Attempt\":0,\"Launch Time\":%ld,\"Executor ID\":\"%d\",\"Host\":\"h%d\",\"Locality\":\"ANY\","
                  "\"Speculative\":false,\"Getting Result Time\":0,\"Finish Time\":%ld,\"Failed\":false,\"Killed\":false},"
                  "\"Task Metrics\":{\"Executor Deserialize Time\":0,\"Executor Run Time\":1000,\"Executor CPU Time\":"
                  "500000000,\"JVM GC Time\":0,\"Result Size\":10,\"Memory Bytes Spilled\":0,\"Disk Bytes Spilled\":0,"
                  "\"Shuffle Read Metrics\":{\"Remote Blocks Fetched\":1,\"Local Blocks Fetched\":0,\"Fetch Wait Time\":%ld,"
                  "\"Remote Bytes Read\":10000000,\"Local Bytes Read\":0,\"Total Records Read\":1000},"
                  "\"Input Metrics\":{\"Bytes Read\":0,\"Records Read\":0}}}\n",
            stage, id, id, launch, host, host, launch + 1000, fw);
}

static struct clarity_app *rend(struct rlog *l)
{
    fprintf(l->f, "{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":10000}\n");
    fclose(l->f);
    struct clarity_app *a = NULL;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(l->buf, &a, &err), CLARITY_OK, "%s", err.msg);
    free(l->buf);
    return a;
}

static struct clarity_app *reference_run(void)
{
    static const long fw[8] = {30, 40, 40, 40, 50, 60, 70, 80};
    struct rlog l;
    rbegin(&l);
    rstage(&l, 5, "reduceByKey at Job.scala:20", 8);
    for (int i = 0; i < 8; i++) rtask(&l, 5, i % 4, 1000L * i, fw[i]);
    rstage(&l, 6, "count at Job.scala:30", 3);
    for (int i = 0; i < 3; i++) rtask(&l, 6, i, 9000, 40);
    return rend(&l);
}

static struct clarity_app *analysed_run(void)
{
    struct rlog l;
    rbegin(&l);
    rstage(&l, 3, "reduceByKey at Job.scala:20", 20);
    for (int i = 0; i < 20; i++) rtask(&l, 3, i % 4, 0, 190);
    rstage(&l, 4, "count at Job.scala:30", 2);
    for (int i = 0; i < 2; i++) rtask(&l, 4, i, 2000, 190);
    return rend(&l);
}

/* The analysed run's tasks as the analysis builds them: dense stages 0 (id 3) and 1 (id 4). */
static void input_of(const struct clarity_app *a, struct ladra_task *t, struct ladra_input *in)
{
    *in = (struct ladra_input){.tasks = t, .app = a, .nhosts = 4, .nstages = 2};
    for (size_t i = 0; i < a->tasks.n; i++) {
        int h = (int)(i < 20 ? i % 4 : i - 20);
        t[i] = (struct ladra_task){.start_ms = i < 20 ? 0 : 2000, .row = (uint32_t)i, .stage = i < 20 ? 0 : 1, .host = h,
                                   .exec = h};
        t[i].end_ms = t[i].start_ms + 1000;
        in->ntasks++;
    }
}

Test(ladra_netref, reference_rate_from_the_matched_stage)
{
    struct clarity_app *ref = reference_run(), *a = analysed_run();
    cr_assert_eq(a->tasks.n, 22);
    struct ladra_task t[22];
    struct ladra_input in;
    input_of(a, t, &in);
    struct ladra_netscan_options o;
    clarity_ladra_netscan_default(&o);
    struct ladra_netref nr;
    cr_assert_eq(clarity_ladra_netref_build(&in, ref, &o, &nr, NULL), 0);
    cr_assert_eq(nr.read_stages, 2);
    cr_assert_eq(nr.matched, 1);   /* "count" matched a stage of 3 readers: under 4, no reference */
    cr_assert_float_eq(exp(nr.stage_lref[0]), 5.0, 1e-9);
    cr_assert(isnan(nr.stage_lref[1]));

    struct ladra_net_period p;
    cr_assert_eq(clarity_ladra_netscan(&in, &o, &p, NULL), 0);   /* alone: blind */
    cr_assert_float_eq(p.ref_ms_per_mb, 20.0, 1e-9);
    cr_assert(!p.found);
    cr_assert_eq(p.wave_readers, 20);
    cr_assert_float_eq(p.wave_fetch_ms, 3800.0, 1e-9);
    cr_assert(p.unchecked);

    cr_assert_eq(clarity_ladra_netscan_ref(&in, &o, &nr, &p, NULL), 0);
    cr_assert(p.by_reference);
    cr_assert_eq(p.ref_readers, 20);
    cr_assert(p.found);
    cr_assert_eq(p.tasks, 20);
    cr_assert_eq(p.hosts, 4);
    cr_assert_float_eq(p.slowdown, 4.0, 1e-9);
    cr_assert_float_eq(p.ref_ms_per_mb, 5.0, 1e-9);
    cr_assert_float_eq(p.excess_ms, 3000.0, 1e-6);
    cr_assert_float_eq(p.run_task_ms, 22000.0, 1e-9);
    cr_assert(p.matters);
    cr_assert(!p.unchecked);
    clarity_ladra_netref_free(&nr);
    clarity_app_free(a);
    clarity_app_free(ref);
}

/* A reference run of another job: no stage of the same name, so nothing matched, the scan keeps
 * its own reference and the network stays unchecked. */
Test(ladra_netref, no_stage_matched)
{
    struct rlog l;
    rbegin(&l);
    rstage(&l, 0, "groupBy at Other.scala:7", 8);
    for (int i = 0; i < 8; i++) rtask(&l, 0, i % 4, 1000L * i, 40);
    struct clarity_app *ref = rend(&l), *a = analysed_run();
    struct ladra_task t[22];
    struct ladra_input in;
    input_of(a, t, &in);
    struct ladra_netscan_options o;
    clarity_ladra_netscan_default(&o);
    struct ladra_netref nr;
    cr_assert_eq(clarity_ladra_netref_build(&in, ref, &o, &nr, NULL), 0);
    cr_assert_eq(nr.read_stages, 2);
    cr_assert_eq(nr.matched, 0);
    struct ladra_net_period p;
    cr_assert_eq(clarity_ladra_netscan_ref(&in, &o, &nr, &p, NULL), 0);
    cr_assert(!p.by_reference);
    cr_assert_eq(p.ref_readers, 0);
    cr_assert_float_eq(p.ref_ms_per_mb, 20.0, 1e-9);
    cr_assert(p.unchecked);
    clarity_ladra_netref_free(&nr);
    clarity_app_free(a);
    clarity_app_free(ref);
}

/* Readers one after another (the scan has its own unimpeded readers): by default the reference
 * run is not used and the figures are the scan's alone; with ref_always every reader is
 * compared with it. 20 readers of 10 MB, one a second on hosts 0-3, stage 0: 12 wait 90 ms
 * (10 ms/MB), the 8 with starts 6-13 wait 390 (40 ms/MB); the reference rate given is ln 16. */
Test(ladra_netref, used_only_where_the_scan_is_blind)
{
    struct ladra_task t[20];
    struct ladra_metrics m[20];
    for (int i = 0; i < 20; i++) {
        bool slow = i >= 6 && i < 14;
        t[i] = (struct ladra_task){.start_ms = i * 1000, .end_ms = i * 1000 + 1000, .row = (uint32_t)i, .stage = 0,
                                   .host = i % 4, .exec = i % 4};
        m[i] = (struct ladra_metrics){.tid = i, .run_ms = 1000, .cpu_ms = 500, .fetch_wait_ms = slow ? 390 : 90,
                                      .remote_bytes = 10000000};
    }
    struct ladra_input in = {.tasks = t, .ntasks = 20, .metrics = m, .nhosts = 4, .nstages = 1};
    double lref = log(16.0);
    struct ladra_netref nr = {.stage_lref = &lref, .nstages = 1, .read_stages = 1, .matched = 1};
    struct ladra_netscan_options o;
    clarity_ladra_netscan_default(&o);
    struct ladra_net_period p;
    cr_assert_eq(clarity_ladra_netscan_ref(&in, &o, &nr, &p, NULL), 0);
    cr_assert(!p.by_reference);
    cr_assert_float_eq(p.ref_ms_per_mb, 10.0, 1e-9);   /* the scan's own, as without a reference */
    cr_assert_float_eq(p.slowdown, 4.0, 1e-9);
    cr_assert(p.matters);
    /* always: the 8 slow readers are x2.5 over 16 ms/MB (each adds ln 2.5 - ln 1.5), the others
     * x0.625; 8 x (400 - 160) = 1,920 ms beyond it, 9.6% of 20,000 ms */
    o.ref_always = true;
    cr_assert_eq(clarity_ladra_netscan_ref(&in, &o, &nr, &p, NULL), 0);
    cr_assert(p.by_reference);
    cr_assert_eq(p.ref_readers, 20);
    cr_assert_eq(p.tasks, 8);
    cr_assert_float_eq(p.slowdown, 2.5, 1e-9);
    cr_assert_float_eq(p.ref_ms_per_mb, 16.0, 1e-9);
    cr_assert_float_eq(p.excess_ms, 1920.0, 1e-6);
    cr_assert(p.matters);
}
