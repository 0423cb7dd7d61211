/* The simulator's pieces (timer heap, JSON appenders, fault specs, config) and whole runs:
 * every generated log loads with a clean integrity report, Spark's invariants hold, and the
 * same seed gives the same bytes. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "clarity/codec.h"
#include "clarity/model.h"
#include "clarity/synth.h"
#include "synth/heap.h"
#include "util/units.h"

Test(synth_heap, pops_in_time_then_set_order)
{
    struct theap h;
    clarity_theap_init(&h);
    int32_t a = clarity_timer_new(&h, 0, 1), b = clarity_timer_new(&h, 0, 2), c = clarity_timer_new(&h, 0, 3);
    clarity_timer_set(&h, a, 5.0);
    clarity_timer_set(&h, b, 1.0);
    clarity_timer_set(&h, c, 5.0);
    clarity_timer_set(&h, b, 9.0);   /* moved later */
    cr_assert_eq(clarity_theap_pop(&h), a);
    cr_assert_eq(clarity_theap_pop(&h), c);   /* same time: set order */
    cr_assert_eq(clarity_theap_pop(&h), b);
    cr_assert(theap_empty(&h));
    clarity_timer_set(&h, a, 2.0);
    clarity_timer_cancel(&h, a);
    cr_assert(theap_empty(&h));
    clarity_theap_free(&h);
}

Test(synth_heap, many_random_timers_come_out_sorted)
{
    struct theap h;
    clarity_theap_init(&h);
    uint64_t x = 7;
    int32_t ids[2000];
    for (int i = 0; i < 2000; i++) {
        ids[i] = clarity_timer_new(&h, 0, i);
        x = x * 6364136223846793005ull + 1;
        clarity_timer_set(&h, ids[i], (double)(x >> 40));
    }
    for (int i = 0; i < 2000; i += 3) clarity_timer_cancel(&h, ids[i]);
    double last = -1;
    int n = 0;
    while (!theap_empty(&h)) {
        int32_t id = clarity_theap_pop(&h);
        cr_assert_geq(h.timers[id].t, last);
        last = h.timers[id].t;
        n++;
    }
    cr_assert_eq(n, 2000 - 667);
    clarity_theap_free(&h);
}

Test(synth_config, fault_specs)
{
    struct synth_fault f;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_synth_fault_parse("cpu-hog@host3:60s-180s:0.8", &f, &err), CLARITY_OK);
    cr_assert(f.kind == SYNTH_FAULT_CPU && f.host == 3 && f.start_s == 60 && f.end_s == 180 && f.intensity == 0.8);
    cr_assert_eq(clarity_synth_fault_parse("network@host2:0.3", &f, &err), CLARITY_OK);
    cr_assert(f.kind == SYNTH_FAULT_NETWORK && f.start_s == 0 && f.end_s < 0 && f.intensity == 0.3);
    cr_assert_eq(clarity_synth_fault_parse("disk-hog@host1:2m-5m", &f, &err), CLARITY_OK);
    cr_assert(f.start_s == 120 && f.end_s == 300 && f.intensity == 0.5);
    cr_assert_eq(clarity_synth_fault_parse("memory-hog@host4", &f, &err), CLARITY_OK);
    const char *bad[] = {"cpu@host1", "cpu-hog@h1", "cpu-hog@host0", "cpu-hog@host1:90s-30s", "cpu-hog@host1:1.5",
                         "cpu-hog@host1:10s-20s:x", "cpu-hog"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_eq(clarity_synth_fault_parse(bad[i], &f, &err), CLARITY_EUSAGE, "%s", bad[i]);
}

Test(synth_config, options_and_ini)
{
    struct synth_config c;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_synth_config_init(&c, "nosuch", &err), CLARITY_EUSAGE);
    cr_assert_eq(clarity_synth_config_init(&c, "sort", &err), CLARITY_OK);
    cr_assert_eq(clarity_synth_config_set(&c, "data", "100G", &err), CLARITY_OK);
    cr_assert_eq(c.data_bytes, 100e9, "G is decimal");
    cr_assert_eq(clarity_synth_config_set(&c, "data", "100GiB", &err), CLARITY_OK);
    cr_assert_eq(c.data_bytes, 100.0 * 1024 * 1024 * 1024, "Gi is binary");
    cr_assert_eq(clarity_synth_config_set(&c, "nic-bw", "125M/s", &err), CLARITY_OK);
    cr_assert_eq(c.nic_bw, 125e6);
    cr_assert_eq(clarity_synth_config_set(&c, "arrival", "1.5m", &err), CLARITY_OK);
    cr_assert_eq(c.arrival_s, 90);
    cr_assert_eq(clarity_synth_config_set(&c, "split", "64Q", &err), CLARITY_EUSAGE);
    cr_assert_str_eq(err.msg, "bad value '64Q' for split: unknown unit 'Q' (sizes take " CLARITY_SIZE_UNITS ")");
    cr_assert_eq(clarity_synth_config_set(&c, "host-memory", "1G", &err), CLARITY_EUSAGE, "10^9 is under the 1Gi minimum");
    cr_assert_eq(clarity_synth_config_set(&c, "hosts", "0", &err), CLARITY_EUSAGE);
    cr_assert_eq(clarity_synth_config_set(&c, "frob", "1", &err), CLARITY_EUSAGE);
    cr_assert_eq(clarity_synth_config_set(&c, "fault", "cpu-hog@host9", &err), CLARITY_OK);
    cr_assert_eq(clarity_synth_config_check(&c, &err), CLARITY_EUSAGE);   /* host9 of 4 */
    char path[] = "/tmp/synth-ini-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs("# my scenario\n[workload]\nscenario = kmeans\niterations = 3\n[cluster]\nhosts = 6\n"
          "fault = memory-hog@host2:10s-40s:0.6\n",
          f);
    fclose(f);
    cr_assert_eq(clarity_synth_config_load_ini(&c, path, &err), CLARITY_OK, "%s", err.msg);
    cr_assert_str_eq(c.scenario, "kmeans");
    cr_assert(c.iterations == 3 && c.hosts == 6 && c.nfaults == 1 && c.faults[0].kind == SYNTH_FAULT_MEMORY);
    f = fopen(path, "w");
    fputs("hosts = 3\n", f);
    fclose(f);
    cr_assert_eq(clarity_synth_config_load_ini(&c, path, &err), CLARITY_EUSAGE);
    cr_assert_eq(err.line, 1);
    remove(path);
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)len + 1);
    *n = fread(p, 1, (size_t)len, f);
    fclose(f);
    return p;
}

static struct clarity_app *load(char *path)
{
    struct clarity_log_file lf = {.path = path, .codec = CLARITY_CODEC_UNKNOWN};
    struct clarity_app_source src = {.path = path, .files = &lf, .nfiles = 1};
    struct clarity_app *a = NULL;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_app_load(&src, NULL, &a, &err), CLARITY_OK, "%s", err.msg);
    return a;
}

static void run(const char *scenario, const char *dir, const char *const *opts, struct synth_result *res)
{
    struct synth_config c;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_synth_config_init(&c, scenario, &err), CLARITY_OK);
    for (int i = 0; opts && opts[i]; i += 2) cr_assert_eq(clarity_synth_config_set(&c, opts[i], opts[i + 1], &err), CLARITY_OK, "%s", err.msg);
    cr_assert_eq(clarity_synth_run(&c, dir, res, &err), CLARITY_OK, "%s", err.msg);
}

static void check_clean(const struct clarity_app *a)
{
    const struct clarity_integrity *in = &a->integrity;
    cr_assert(!in->truncated && !in->no_app_end && !in->lines_malformed && !in->dropped_task_ends &&
              !in->task_start_without_end && !in->negative_durations && !in->cpu_exceeds_run &&
              !in->sw_time_suspect_units && !in->stages_without_end && !in->jobs_without_end &&
              !in->sql_without_end && !in->events_unknown);
}

Test(synth_run, every_scenario_loads_clean_with_spark_invariants)
{
    size_t n;
    const struct synth_scenario_info *sc = clarity_synth_scenarios(&n);
    for (size_t i = 0; i < n; i++) {
        char dir[64];
        snprintf(dir, sizeof dir, "/tmp/synth-unit-%d-%zu", (int)getpid(), i);
        const char *opts[] = {"data", "1G", "queries", "4", "logs", "false", "failure-rate", "0.02", "speculation", "true", NULL};
        struct synth_result res;
        run(sc[i].name, dir, strcmp(sc[i].name, "tpcds-mix") ? opts + 2 : opts, &res);
        struct clarity_app *a = load(res.eventlog);
        check_clean(a);
        cr_assert_eq(a->tasks.n, res.tasks);
        for (size_t t = 0; t < a->tasks.n; t++) {
            int64_t run_ms = clarity_task_metric(a, t, CLARITY_TM_RUN_MS), dur = clarity_icol_get(&a->tasks.duration, t);
            cr_assert_leq(clarity_task_metric(a, t, CLARITY_TM_CPU_NS), run_ms * 1000000);
            cr_assert_leq(clarity_task_metric(a, t, CLARITY_TM_SR_FETCH_WAIT_MS) + clarity_task_metric(a, t, CLARITY_TM_SW_TIME_NS) / 1000000, run_ms);
            cr_assert_leq(run_ms + clarity_task_metric(a, t, CLARITY_TM_DESER_MS) + clarity_task_metric(a, t, CLARITY_TM_RESULT_SER_MS), dur);
            const struct clarity_stage *st = &a->stages[clarity_icol_get(&a->tasks.stage, t)];
            cr_assert_geq(clarity_task_launch_ms(a, t), st->submit_ms);
            cr_assert_leq(clarity_task_finish_ms(a, t), st->complete_ms);
            const struct clarity_executor *e = clarity_app_executor(a, clarity_app_str(a, (uint32_t)clarity_icol_get(&a->tasks.executor, t)));
            cr_assert(e && e->add_ms <= clarity_task_launch_ms(a, t));
        }
        clarity_app_free(a);
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        cr_assert_eq(system(cmd), 0);
    }
}

Test(synth_run, same_seed_same_bytes_other_seed_differs)
{
    char d1[64], d2[64], d3[64];
    snprintf(d1, sizeof d1, "/tmp/synth-det-%d-a", (int)getpid());
    snprintf(d2, sizeof d2, "/tmp/synth-det-%d-b", (int)getpid());
    snprintf(d3, sizeof d3, "/tmp/synth-det-%d-c", (int)getpid());
    const char *opts[] = {"queries", "3", "data", "2G", "fault", "cpu-hog@host2:5s-40s:0.7", "seed", "11", NULL};
    struct synth_result r1, r2, r3;
    run("tpcds-mix", d1, opts, &r1);
    run("tpcds-mix", d2, opts, &r2);
    const char *other[] = {"queries", "3", "data", "2G", "fault", "cpu-hog@host2:5s-40s:0.7", "seed", "12", NULL};
    run("tpcds-mix", d3, other, &r3);
    size_t n1, n2, n3;
    char *a = slurp(r1.eventlog, &n1), *b = slurp(r2.eventlog, &n2), *c = slurp(r3.eventlog, &n3);
    cr_assert(a && b && c);
    cr_assert(n1 == n2 && !memcmp(a, b, n1));
    cr_assert(n1 != n3 || memcmp(a, c, n1));
    free(a); free(b); free(c);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cmp -s %s/truth.json %s/truth.json && cmp -s %s/gc/host1-0.log %s/gc/host1-0.log", d1, d2, d1, d2);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s %s %s", d1, d2, d3);
    cr_assert_eq(system(cmd), 0);
}

Test(synth_run, compressed_logs_decode_to_the_plain_log)
{
    char d[3][64];
    const char *codec[] = {"none", "zstd", "lz4"};
    struct synth_result r[3];
    for (int i = 0; i < 3; i++) {
        snprintf(d[i], sizeof d[i], "/tmp/synth-codec-%d-%d", (int)getpid(), i);
        const char *opts[] = {"codec", codec[i], "data", "3G", "logs", "false", NULL};
        run("sort", d[i], opts, &r[i]);
    }
    size_t n;
    char *plain = slurp(r[0].eventlog, &n);
    for (int i = 1; i < 3; i++) {
        struct clarity_error err = {0};
        struct clarity_decoder *dec = clarity_decoder_open(r[i].eventlog, CLARITY_CODEC_UNKNOWN, &err);
        cr_assert(dec, "%s", err.msg);
        char *out = malloc(n + 65536);
        size_t got = 0;
        long k;
        while ((k = clarity_decoder_read(dec, out + got, n + 65536 - got, &err)) > 0) got += (size_t)k;
        struct clarity_decoder_status st;
        clarity_decoder_status(dec, &st);
        cr_assert(!st.truncated && !st.corrupt, "%s: %s", codec[i], st.why);
        /* same events as the plain log (the environment names the codec, so bytes differ) */
        size_t lines_plain = 0, lines_dec = 0;
        for (size_t k2 = 0; k2 < n; k2++) lines_plain += plain[k2] == '\n';
        for (size_t k2 = 0; k2 < got; k2++) lines_dec += out[k2] == '\n';
        cr_assert_eq(lines_dec, lines_plain);
        cr_assert(got > 0 && out[got - 1] == '\n');
        clarity_decoder_close(dec);
        free(out);
        struct clarity_app *a = load(r[i].eventlog);
        check_clean(a);
        clarity_app_free(a);
    }
    free(plain);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s %s", d[0], d[1], d[2]);
    cr_assert_eq(system(cmd), 0);
}
