/* PERIDOT from event logs: skipped and retried stages, and the stage records and T a log
 * yields, on tests/data/peridot-ref-{1,2}.json (full
 * Spark 3.3 logs, written by tests/data/peridot-fixtures.py), and the stage-only shared logs. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "clarity/predict.h"
#include "../../model/load_helpers.h"

#define T0 1700000000000LL

static void load_pair(struct clarity_app *a[2], struct peridot_ref r[2])
{
    struct clarity_error err = {0};
    cr_assert_eq(load_fixture("peridot-ref-1.json", &a[0], &err), CLARITY_OK, "%s", err.msg);
    cr_assert_eq(load_fixture("peridot-ref-2.json", &a[1], &err), CLARITY_OK, "%s", err.msg);
    for (int i = 0; i < 2; i++) cr_assert_eq(clarity_peridot_ref_from_app(a[i], &r[i], &err), CLARITY_OK, "%s", err.msg);
}

Test(peridot_log, t14_stage_records_and_T)
{
    struct clarity_app *a[2];
    struct peridot_ref r[2];
    load_pair(a, r);
    cr_assert_eq(r[0].total_ms, 30000);
    cr_assert_eq(r[0].nstages, 2);             /* t09: the skipped stage 2 is ignored */
    const struct peridot_stage *s = &r[0].stages[0];
    cr_assert_eq(s->stage_id, 0);
    cr_assert_str_eq(s->name, "map at Ref.scala:10");
    cr_assert_eq(s->num_tasks, 8);              /* t09: failed and speculative attempts do not count */
    cr_assert_eq(s->submit_ms, T0 + 1000);
    cr_assert_eq(s->last_finish_ms, T0 + 21000);
    cr_assert_eq(s->complete_ms, T0 + 21005);
    cr_assert_eq(r[0].stages[1].num_tasks, 1);
    cr_assert_eq(r[0].cores, 5);
    cr_assert_eq(r[0].cores_from, PERIDOT_FROM_LOG);
    cr_assert_eq(r[0].input_bytes, 1000000);
    cr_assert_eq(r[1].input_bytes, 2000000);
    cr_assert_eq(r[0].size_from, PERIDOT_FROM_LOG);
    cr_assert_not(r[0].no_task_events);
    for (int i = 0; i < 2; i++) {
        clarity_peridot_ref_free(&r[i]);
        clarity_app_free(a[i]);
    }
}

Test(peridot_log, test3_from_logs)
{
    struct clarity_app *a[2];
    struct peridot_ref r[2];
    load_pair(a, r);
    struct peridot_options o;
    clarity_peridot_options_default(&o);
    struct peridot_model m;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_OK, "%s", err.msg);
    cr_assert_eq(m.ngroups, 2);
    cr_assert_eq(m.groups[0].kind, PERIDOT_VARIABLE);
    cr_assert_eq(m.groups[1].kind, PERIDOT_FIXED);
    cr_assert_float_eq(m.groups[0].wave_ms, 9750, 1e-9);
    cr_assert_float_eq(m.fixed_hat_ms, 10000, 1e-9);
    struct peridot_prediction p;
    /* sizes are bytes now: 10 "GB" of test 3 is 10 MB here */
    clarity_peridot_predict(&m, 10e6, 20, &p, NULL);
    cr_assert_float_eq(p.total_ms, 49000, 1e-6);
    clarity_peridot_prediction_free(&p);
    clarity_peridot_predict(&m, 50e6, 15, &p, NULL);
    cr_assert_float_eq(p.total_ms, 273250, 1e-6);
    clarity_peridot_prediction_free(&p);
    clarity_peridot_model_free(&m);
    for (int i = 0; i < 2; i++) {
        clarity_peridot_ref_free(&r[i]);
        clarity_app_free(a[i]);
    }
}

static int load_shared(const char *rel, struct clarity_app **a)
{
    const char *sd = getenv("SHARED_DATA");
    const char *root = getenv("CLARITY_ROOT");
    static _Thread_local char path[2048];
    if (sd) snprintf(path, sizeof path, "%s/%s", sd, rel);
    else snprintf(path, sizeof path, "%s/../shared/data/%s", root ? root : ".", rel);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    fclose(f);
    struct clarity_log_file lf = {.path = path, .codec = CLARITY_CODEC_UNKNOWN};
    struct clarity_app_source src = {.path = path, .files = &lf, .nfiles = 1};
    struct clarity_error err = {0};
    cr_assert_eq(clarity_app_load(&src, NULL, a, &err), CLARITY_OK, "%s", err.msg);
    return 0;
}

Test(peridot_log, stage_only_pagerank_detects_fixed_partitions)
{
    struct clarity_app *a[2];
    if (load_shared("runtimes/pagerank-5-hosts/app-20150830114306-0030.json", &a[0]) < 0)
        cr_skip_test("no shared data (runtimes/pagerank-5-hosts)");
    cr_assert_eq(load_shared("runtimes/pagerank-5-hosts/app-20150830121009-0033.json", &a[1]), 0);
    struct peridot_ref r[2];
    struct clarity_error err = {0};
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(clarity_peridot_ref_from_app(a[i], &r[i], &err), CLARITY_OK, "%s", err.msg);
        cr_assert(r[i].no_task_events);
        cr_assert_eq(r[i].nstages, 42);
        cr_assert_eq(r[i].size_from, PERIDOT_UNKNOWN);
        cr_assert_eq(r[i].cores_from, PERIDOT_UNKNOWN);
    }
    cr_assert_eq(r[0].total_ms, 1414494);
    struct peridot_options o;
    clarity_peridot_options_default(&o);
    struct peridot_model m;
    cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_EUSAGE);   /* sizes unknown */
    r[0].data_size = 2.2893760297447443;
    r[1].data_size = 4.836597545072436;
    r[0].cores = r[1].cores = 40;
    cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_OK, "%s", err.msg);
    cr_assert_eq(m.nvariable, 0);              /* 1,200 tasks at every size */
    cr_assert_gt(m.ndata_scaled, 0);
    struct peridot_prediction p;
    clarity_peridot_predict(&m, 25.68116795271635, 40, &p, NULL);
    double err_pct = 100 * fabs(p.total_ms - 13117172) / 13117172;
    cr_assert_lt(err_pct, 25, "error %.1f%%", err_pct);
    clarity_peridot_prediction_free(&p);
    clarity_peridot_model_free(&m);
    o.fixed = PERIDOT_FIXED_CONSTANT;          /* the paper: no growth at all */
    cr_assert_eq(clarity_peridot_fit(r, 2, &o, &m, &err), CLARITY_OK);
    cr_assert(m.all_fixed);
    clarity_peridot_model_free(&m);
    for (int i = 0; i < 2; i++) {
        clarity_peridot_ref_free(&r[i]);
        clarity_app_free(a[i]);
    }
}

/* Cores are those of the executors alive while a stage ran, the most over the stages: an
 * executor that registers after the first stage was submitted (YARN) still counts. The
 * fixture's one executor (5 cores) is moved in time; stage 0 runs [T0+1000, T0+21005], stage 1
 * [T0+22000, T0+24000]. */
Test(peridot_log, cores_from_executors_alive_while_stages_ran)
{
    struct clarity_app *a;
    struct clarity_error err = {0};
    struct peridot_ref r;
    cr_assert_eq(load_fixture("peridot-ref-1.json", &a, &err), CLARITY_OK, "%s", err.msg);
    struct clarity_executor *e = NULL;
    for (size_t i = 0; i < a->nexecs; i++)
        if (!a->execs[i].is_driver) e = &a->execs[i];
    cr_assert_not_null(e);
    const int64_t add[] = {T0 + 5000, T0 + 21005, T0 + 21500, T0 + 24000, T0 + 24001};
    const double want[] = {5, 5, 5, 5, 0};   /* registered during stage 0, at its end, between, at stage 1's end, after */
    for (int k = 0; k < 5; k++) {
        e->add_ms = add[k];
        cr_assert_eq(clarity_peridot_ref_from_app(a, &r, &err), CLARITY_OK, "%s", err.msg);
        cr_assert_eq(r.cores, want[k], "add at T0+%lld: %g cores", (long long)(add[k] - T0), r.cores);
        cr_assert_eq(r.cores_from, want[k] > 0 ? PERIDOT_FROM_LOG : PERIDOT_UNKNOWN);
        cr_assert_not(r.cores_changed);   /* the stages without executors do not count */
        clarity_peridot_ref_free(&r);
    }
    /* removed before stage 1 started: stage 0 had it, stage 1 did not; removed exactly at its start: gone */
    e->add_ms = T0 + 100;
    e->remove_ms = T0 + 22000;
    cr_assert_eq(clarity_peridot_ref_from_app(a, &r, &err), CLARITY_OK, "%s", err.msg);
    cr_assert_eq(r.cores, 5);
    clarity_peridot_ref_free(&r);
    e->add_ms = T0 + 21500;   /* lived only between the stages */
    cr_assert_eq(clarity_peridot_ref_from_app(a, &r, &err), CLARITY_OK, "%s", err.msg);
    cr_assert_eq(r.cores, 0);
    cr_assert_eq(r.cores_from, PERIDOT_UNKNOWN);
    clarity_peridot_ref_free(&r);
    clarity_app_free(a);
}

/* Every missing figure of every reference in one message, each flag once. */
Test(peridot_log, missing_inputs_in_one_message)
{
    struct peridot_ref refs[3] = {{.label = "a.log", .cores = 4}, {.label = "b.log"}, {.label = "c.log", .data_size = 1}};
    struct peridot_options o = {0};
    struct peridot_model m;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_peridot_fit(refs, 3, &o, &m, &err), CLARITY_EUSAGE);
    cr_assert_str_eq(err.msg, "data size unknown in a.log, b.log (no input bytes in the log): give --ref-size; "
                              "core count unknown in b.log, c.log (no executor with cores while its stages ran): give --ref-cores");
}

/* Paths too long for one message: the references are named by file name, then by position. */
Test(peridot_log, missing_inputs_long_paths)
{
    static char p1[400], p2[400];
    memset(p1, 'd', sizeof p1 - 20), memset(p2, 'e', sizeof p2 - 20);
    strcpy(p1 + sizeof p1 - 20, "/a.json"), strcpy(p2 + sizeof p2 - 20, "/b.json");
    struct peridot_ref refs[2] = {{.label = p1}, {.label = p2}};
    struct peridot_options o = {0};
    struct peridot_model m;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_peridot_fit(refs, 2, &o, &m, &err), CLARITY_EUSAGE);
    cr_assert_str_eq(err.msg, "data size unknown in a.json, b.json (no input bytes in the log): give --ref-size; "
                              "core count unknown in a.json, b.json (no executor with cores while its stages ran): give --ref-cores");
    static char b1[300], b2[300];   /* file names too long as well: positions */
    memset(b1, 'f', sizeof b1 - 1), memset(b2, 'g', sizeof b2 - 1);
    refs[0].label = b1, refs[1].label = b2;
    cr_assert_eq(clarity_peridot_fit(refs, 2, &o, &m, &err), CLARITY_EUSAGE);
    cr_assert_str_eq(err.msg, "data size unknown in #1, #2 (no input bytes in the log): give --ref-size; "
                              "core count unknown in #1, #2 (no executor with cores while its stages ran): give --ref-cores");
}
