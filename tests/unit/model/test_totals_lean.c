/* The lean totals (clarity_totals_compute_lean: job and query totals summed from the stage
 * totals when asked) against the whole computation, field by field, on every fixture and on
 * hand-made logs where a stage belongs to several jobs of one query (the query counts it once
 * per job) or is listed twice by one job (counted once). */
#include <criterion/criterion.h>
#include "clarity/model.h"
#include "load_helpers.h"
#include "model/totals_pack.h"

static void same_totals(const struct clarity_totals *x, const struct clarity_totals *y, const char *what, size_t i)
{
#define EQ(f) cr_assert_eq(x->f, y->f, "%s %zu: " #f " %lld != %lld", what, i, (long long)x->f, (long long)y->f)
    EQ(tasks); EQ(succeeded); EQ(failed); EQ(killed); EQ(running); EQ(speculative); EQ(task_ms);
    EQ(run_ms); EQ(cpu_ns); EQ(gc_ms); EQ(deser_ms); EQ(input_bytes); EQ(output_bytes);
    EQ(shuffle_read_bytes); EQ(shuffle_remote_bytes); EQ(shuffle_write_bytes); EQ(fetch_wait_ms);
    EQ(shuffle_write_ns); EQ(mem_spilled); EQ(disk_spilled); EQ(cpu_logged);
#undef EQ
}

/* Compares both forms on app; returns the number of job rows checked. */
static size_t compare(const struct clarity_app *app)
{
    struct clarity_app_totals full, lean;
    cr_assert_eq(clarity_totals_compute(app, &full), 0);
    cr_assert_eq(clarity_totals_compute_lean(app, &lean), 0);
    cr_assert_null(lean.job);
    cr_assert_null(lean.sql);
    same_totals(&full.app, &lean.app, "app", 0);
    cr_assert_null(lean.stage);
    for (size_t i = 0; i < app->nstages; i++) {
        struct clarity_totals a, b;
        clarity_totals_stage(&full, i, &a);
        clarity_totals_stage(&lean, i, &b);
        same_totals(&full.stage[i], &a, "stage (full accessor)", i);
        same_totals(&a, &b, "stage", i);
    }
    for (size_t i = 0; i < app->nexecs; i++) same_totals(&full.exec[i], &lean.exec[i], "exec", i);
    for (size_t i = 0; i < app->njobs; i++) {
        struct clarity_totals a, b;
        clarity_totals_job(&full, i, &a);
        clarity_totals_job(&lean, i, &b);
        same_totals(&full.job[i], &a, "job (full accessor)", i);
        same_totals(&a, &b, "job", i);
    }
    for (size_t i = 0; i < app->nsqls; i++) {
        struct clarity_totals a, b;
        clarity_totals_sql(&full, i, &a);
        clarity_totals_sql(&lean, i, &b);
        same_totals(&full.sql[i], &a, "sql (full accessor)", i);
        same_totals(&a, &b, "sql", i);
    }
    clarity_totals_free(&full);
    clarity_totals_free(&lean);
    cr_assert_null(lean.links);
    return app->njobs;
}

Test(totals_lean, same_as_full_on_fixtures)
{
    static const char *const names[] = {"mini-3x.json", "spark-3.1-app-20200706201101-0003.json",
                                         "spark-1.2-local-1422981780767.json", "photon-db13.3-q88-excerpt.json",
                                         "findings-plan.json", "codec-sample.json"};
    size_t jobs = 0;
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        struct clarity_app *app = NULL;
        struct clarity_error err = {0};
        cr_assert_eq(load_fixture(names[k], &app, &err), CLARITY_OK, "%s: %s", names[k], err.msg);
        jobs += compare(app);
        clarity_app_free(app);
    }
    cr_assert_gt(jobs, 10, "the fixtures hold jobs to compare");
}

/* mini-3x.json's stages 0 and 1 (4 tasks, run 950 + 480 + 590 ms, all in stage 0), then a
 * second job of the same query listing stage 0 twice and stage 1: job 1 counts stage 0 once
 * (4 tasks), query 7 counts it with each of its two jobs (8 tasks, 4040 ms). */
Test(totals_lean, shared_stage_worked_values)
{
    FILE *in = NULL;
    char path[1024];
    const char *root = getenv("CLARITY_ROOT");
    snprintf(path, sizeof path, "%s/tests/data/mini-3x.json", root ? root : ".");
    in = fopen(path, "r");
    cr_assert_not_null(in);
    size_t cap = 1 << 16, n;
    char *text = calloc(1, cap + 1024);
    n = fread(text, 1, cap, in);
    fclose(in);
    cr_assert_lt(n, cap);
    strcat(text, "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":1,\"Submission Time\":1704067203900,"
                 "\"Stage Infos\":[{\"Stage ID\":0,\"Stage Attempt ID\":0},{\"Stage ID\":0,\"Stage Attempt ID\":0},"
                 "{\"Stage ID\":1,\"Stage Attempt ID\":0}],\"Stage IDs\":[0,1],"
                 "\"Properties\":{\"spark.sql.execution.id\":\"7\"}}\n");
    struct clarity_app *app = NULL;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(text, &app, &err), CLARITY_OK, "%s", err.msg);
    free(text);
    compare(app);
    struct clarity_app_totals t;
    cr_assert_eq(clarity_totals_compute_lean(app, &t), 0);
    struct clarity_totals j0, j1, q;
    cr_assert_eq(app->njobs, 2);
    clarity_totals_job(&t, 0, &j0);
    clarity_totals_job(&t, 1, &j1);
    cr_assert_eq(j0.tasks, 4);
    cr_assert_eq(j0.run_ms, 2020);
    cr_assert_eq(app->nsqls, 1);
    clarity_totals_sql(&t, 0, &q);
    cr_assert_eq(j1.tasks, 4, "stage 0 listed twice by job 1 counts once");
    cr_assert_eq(j1.run_ms, 2020);
    cr_assert_eq(q.tasks, 8, "query 7 counts stage 0 with each of its two jobs");
    cr_assert_eq(q.run_ms, 4040);
    clarity_totals_free(&t);
    clarity_app_free(app);
}

/* The packed form of a stage's totals gives back every figure: zeros left out, 1-byte and
 * 10-byte varints, negative values (a damaged log's) and both int64 extremes (saturated sums),
 * cpu_logged alone and with figures; records of different lengths, put in reverse order. */
Test(totals_lean, packed_records_round_trip)
{
    struct clarity_totals in[5] = {
        {0},
        {.cpu_logged = true},
        {.tasks = 2, .succeeded = 2, .run_ms = 950, .cpu_ns = 123456789, .output_bytes = 127, .cpu_logged = true},
        {.tasks = INT64_MAX, .task_ms = INT64_MIN, .gc_ms = -1, .deser_ms = -64, .input_bytes = 64,
         .disk_spilled = INT64_MAX, .mem_spilled = INT64_MIN},
        {.succeeded = 1, .failed = 1, .killed = 1, .running = 1, .speculative = 1, .fetch_wait_ms = 128,
         .shuffle_read_bytes = 16384, .shuffle_remote_bytes = 1, .shuffle_write_bytes = 1 << 21,
         .shuffle_write_ns = (int64_t)1 << 56},
    };
    struct totals_pack p;
    cr_assert_eq(clarity__totals_pack_init(&p, 1000), 0);   /* room for ~32 bytes a record */
    /* put from the last record to the first (records go in any order): what a stage's last
     * task row decides */
    for (size_t k = 1000; k-- > 0;) cr_assert_eq(clarity__totals_pack_put(&p, k, &in[k % 5]), 0);
    cr_assert_eq(p.n, 1000);
    for (size_t k = 0; k < p.n; k++) {
        struct clarity_totals out;
        clarity__totals_pack_get(&p, k, &out);
        same_totals(&in[k % 5], &out, "packed", k);
    }
    /* record sizes: a mask byte alone, twice; the small job's stage: a 2-byte mask (bits up to
     * output_bytes'), then 2 -> 1 byte each, 950 -> 2 bytes, 123456789 -> 4 bytes, 127 -> 2
     * (put in reverse, record k ends where record k - 1 starts; record 0 ends the buffer) */
    cr_assert_eq(p.len - p.at[0], 1);
    cr_assert_eq(p.at[0] - p.at[1], 1);
    cr_assert_eq(p.at[1] - p.at[2], 2 + 1 + 1 + 2 + 4 + 2, "got %zu", p.at[1] - p.at[2]);
    clarity__totals_pack_free(&p);
}
