/* Model tables grown to the size the log projects (src/model/grow.c): the capacity rule on
 * worked numbers, and a log of many small jobs loaded with the projection (plain) and without
 * it (the same bytes zstd-compressed) into the same model and the same summary. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <zstd.h>
#include "clarity/report.h"
#include "model/build.h"
#include "util/jsonw.h"

Test(model_grow, capacity_rule_worked_numbers)
{
    struct apply_ctx c = {0};
    /* no projection (size unknown): doubling from the first capacity */
    cr_assert_eq(clarity__model_grow_cap(&c, 0, 1, 8, 208), 8);
    cr_assert_eq(clarity__model_grow_cap(&c, 4096, 4097, 8, 208), 8192);
    /* a tenth of a 10 MB log read with 4,097 rows: 4,097 x 10 x 1.125 = 46,091 */
    c.proj_total = 10000000;
    c.offset = 1000000;
    cr_assert_eq(clarity__model_grow_cap(&c, 4096, 4097, 8, 208), 46091);
    cr_assert_eq(clarity__model_projected(&c, 4096, 4097), 46091);
    /* files read before this one count as read: 2 MB + 1 MB of 10 MB -> 4,097 x 10/3 x 1.125 */
    c.proj_done = 2000000;
    cr_assert_eq(clarity__model_grow_cap(&c, 4096, 4097, 8, 208), 15363);
    c.proj_done = 0;
    /* fewer than 4,096 rows say too little: doubling */
    cr_assert_eq(clarity__model_grow_cap(&c, 2048, 2049, 8, 208), 4096);
    /* never below doubling: near the end the projection is smaller */
    c.offset = 9900000;
    cr_assert_eq(clarity__model_grow_cap(&c, 4096, 4097, 8, 208), 8192);
    /* at most 64 times the capacity: 1 KB of 10 MB read would project 46 M rows */
    c.offset = 1000;
    cr_assert_eq(clarity__model_grow_cap(&c, 4096, 4097, 8, 208), 4096 * 64);
    /* past the sizes (a grown file read on): doubling */
    c.offset = 20000000;
    cr_assert_eq(clarity__model_grow_cap(&c, 4096, 4097, 8, 208), 8192);
    /* a count whose bytes overflow */
    c.proj_total = 0;
    cr_assert_eq(clarity__model_grow_cap(&c, SIZE_MAX / 64, SIZE_MAX / 64 + 1, 8, 208), 0);
}

/* jobs one-stage-pair SQL queries: two stages of two tasks each (one failed attempt), the
 * application around them */
static char *many_jobs_log(size_t jobs, size_t *len)
{
    size_t cap = jobs * 6000 + 4096, n = 0;
    char *s = malloc(cap);
    cr_assert_not_null(s);
#define OUT(...) (n += n < cap ? (size_t)snprintf(s + n, cap - n, __VA_ARGS__) : 0)
    OUT("{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.4.1\"}\n");
    OUT("{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"g\",\"App ID\":\"app-1\",\"Timestamp\":1000,\"User\":\"u\"}\n");
    OUT("{\"Event\":\"SparkListenerExecutorAdded\",\"Timestamp\":1001,\"Executor ID\":\"1\",\"Executor Info\":{\"Host\":\"h\",\"Total Cores\":4}}\n");
    for (size_t j = 0; j < jobs; j++) {
        long long t = 2000 + (long long)j * 100, s0 = 2 * (long long)j, s1 = s0 + 1;
        OUT("{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\",\"executionId\":%zu,"
            "\"description\":\"q\",\"details\":\"\",\"physicalPlanDescription\":\"p\",\"sparkPlanInfo\":{\"nodeName\":\"Scan\","
            "\"simpleString\":\"Scan\",\"children\":[],\"metrics\":[]},\"time\":%lld}\n", j, t);
        OUT("{\"Event\":\"SparkListenerJobStart\",\"Job ID\":%zu,\"Submission Time\":%lld,\"Stage Infos\":["
            "{\"Stage ID\":%lld,\"Stage Attempt ID\":0,\"Stage Name\":\"a\",\"Number of Tasks\":2,\"RDD Info\":[],\"Parent IDs\":[]},"
            "{\"Stage ID\":%lld,\"Stage Attempt ID\":0,\"Stage Name\":\"b\",\"Number of Tasks\":2,\"RDD Info\":[],\"Parent IDs\":[%lld]}],"
            "\"Stage IDs\":[%lld,%lld],\"Properties\":{\"spark.sql.execution.id\":\"%zu\"}}\n", j, t, s0, s1, s0, s0, s1, j);
        for (int k = 0; k < 2; k++) {
            long long sid = k ? s1 : s0, st = t + 10 + 40 * k;
            OUT("{\"Event\":\"SparkListenerStageSubmitted\",\"Stage Info\":{\"Stage ID\":%lld,\"Stage Attempt ID\":0,\"Stage Name\":\"%s\","
                "\"Number of Tasks\":2,\"RDD Info\":[],\"Parent IDs\":[],\"Submission Time\":%lld}}\n", sid, k ? "b" : "a", st);
            for (int i = 0; i < 2; i++) {
                long long tid = 4 * (long long)j + 2 * k + i, lt = st + 1 + i;
                OUT("{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":%lld,\"Stage Attempt ID\":0,\"Task Type\":\"ResultTask\","
                    "\"Task End Reason\":{\"Reason\":\"%s\"},\"Task Info\":{\"Task ID\":%lld,\"Index\":%d,\"Attempt\":0,"
                    "\"Partition ID\":%d,\"Launch Time\":%lld,\"Executor ID\":\"1\",\"Host\":\"h\",\"Locality\":\"ANY\","
                    "\"Speculative\":false,\"Getting Result Time\":0,\"Finish Time\":%lld,\"Failed\":%s,\"Killed\":false},"
                    "\"Task Metrics\":{\"Executor Run Time\":%lld,\"Executor CPU Time\":%lld,\"Result Size\":%lld}}\n",
                    sid, i == 1 && k == 0 ? "TaskKilled" : "Success", tid, i, i, lt, lt + 20 + (tid % 7),
                    "false", 15 + (tid % 5), 1000000 * (tid % 3), 100 + tid);
            }
            OUT("{\"Event\":\"SparkListenerStageCompleted\",\"Stage Info\":{\"Stage ID\":%lld,\"Stage Attempt ID\":0,\"Stage Name\":\"%s\","
                "\"Number of Tasks\":2,\"RDD Info\":[],\"Parent IDs\":[],\"Submission Time\":%lld,\"Completion Time\":%lld,"
                "\"Accumulables\":[{\"ID\":%lld,\"Name\":\"m\",\"Value\":\"%lld\",\"Internal\":false}]}}\n",
                sid, k ? "b" : "a", st, st + 35, sid, sid * 3);
        }
        OUT("{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":%zu,\"Completion Time\":%lld,\"Job Result\":{\"Result\":\"JobSucceeded\"}}\n", j, t + 95);
        OUT("{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd\",\"executionId\":%zu,\"time\":%lld}\n", j, t + 96);
    }
    OUT("{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":%lld}\n", 3000 + (long long)jobs * 100);
#undef OUT
    cr_assert_lt(n, cap);
    *len = n;
    return s;
}

static struct clarity_app *load_path(const char *path)
{
    struct clarity_log_file f = {.path = (char *)path, .codec = CLARITY_CODEC_UNKNOWN};
    struct clarity_app_source src = {.path = (char *)path, .files = &f, .nfiles = 1};
    struct clarity_app *a = NULL;
    struct clarity_error err = {0};
    struct clarity_load_options opt = {.keep_task_accumulables = true, .threads = 1};
    cr_assert_eq(clarity_app_load(&src, &opt, &a, &err), CLARITY_OK, "%s: %s", path, err.msg);
    return a;
}

static char *summary_of(const struct clarity_app *a)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    cr_assert_not_null(o);
    struct jsonw w;
    clarity_jsonw_init(&w, o, true);
    struct clarity_error err = {0};
    cr_assert_eq(clarity_report_summary_json(&w, a, &err), CLARITY_OK, "%s", err.msg);
    fclose(o);
    return buf;
}

/* s with every from replaced by to (the summary names its file in the source path) */
static char *replaced(char *s, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to), n = 0;
    char *o = malloc(strlen(s) * (tl > fl ? tl : fl) / fl + 1);
    cr_assert_not_null(o);
    for (const char *p = s; *p;) {
        if (!strncmp(p, from, fl)) memcpy(o + n, to, tl), n += tl, p += fl;
        else o[n++] = *p++;
    }
    o[n] = '\0';
    free(s);
    return o;
}

Test(model_grow, projected_tables_load_the_same_model_as_doubled_ones)
{
    const size_t jobs = 6000;   /* 12,000 stages, 24,000 tasks: every projected table past 4,096 rows */
    size_t len;
    char *log = many_jobs_log(jobs, &len);
    char dir[] = "/tmp/clarity-grow-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char plain[64], zst[64];
    snprintf(plain, sizeof plain, "%s/a.json", dir);
    snprintf(zst, sizeof zst, "%s/a.json.zst", dir);
    FILE *f = fopen(plain, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(log, 1, len, f), len);
    fclose(f);
    size_t zcap = ZSTD_compressBound(len);
    char *z = malloc(zcap);
    size_t zn = ZSTD_compress(z, zcap, log, len, 1);
    cr_assert(!ZSTD_isError(zn));
    f = fopen(zst, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(z, 1, zn, f), zn);
    fclose(f);
    free(z);
    free(log);

    struct clarity_app *p = load_path(plain), *d = load_path(zst);
    remove(plain), remove(zst), rmdir(dir);
    cr_assert_eq(p->nstages, 2 * jobs);
    cr_assert_eq(p->njobs, jobs);
    cr_assert_eq(p->nsqls, jobs);
    cr_assert_eq(p->tasks.n, 4 * jobs);
    cr_assert_eq(p->ntask_reasons, d->ntask_reasons);
    cr_assert_gt(p->ntask_reasons, 0);
    /* the compressed load doubled (16,384 stage rows); the plain one, at 4,096 stages about a
     * third of the way in, grew once to its projection (~13,500): fewer rows than doubling's,
     * at least the ones there are. The jobs' 4,096th row comes two thirds of the way in, where
     * the projection (~6,750) is below doubling's 8,192, so both double. */
    cr_assert_eq(d->cap_stages, 16384);
    cr_assert_geq(p->cap_stages, p->nstages);
    cr_assert_lt(p->cap_stages, 16384);
    cr_assert_eq(p->cap_jobs, 8192);
    cr_assert_eq(d->cap_jobs, 8192);
    /* one assertion for the lot: criterion's per-assertion message costs more than the load */
    size_t differ = 0;
    for (size_t i = 0; i < p->nstages; i++)
        differ += p->stages[i].stage_id != d->stages[i].stage_id || p->stages[i].status != d->stages[i].status ||
                  p->stages[i].complete_ms != d->stages[i].complete_ms || p->stages[i].njob_ids != 1 ||
                  d->stages[i].njob_ids != 1 || p->stages[i].job_ids[0] != d->stages[i].job_ids[0];
    for (size_t i = 0; i < p->njobs; i++)
        differ += p->jobs[i].job_id != d->jobs[i].job_id || p->jobs[i].sql_id != (int64_t)i ||
                  d->jobs[i].sql_id != (int64_t)i || p->jobs[i].end_ms != d->jobs[i].end_ms;
    cr_assert_eq(differ, 0, "%zu stage or job rows differ", differ);
    char *sp = summary_of(p), *sd = replaced(summary_of(d), zst, plain);
    size_t lp = strlen(sp), ld = strlen(sd);
    cr_assert_gt(lp, 1000000, "summary of %zu bytes", lp);   /* 6,000 jobs, stages and queries */
    /* compared here: criterion's own string comparison ships both megabytes in its message */
    cr_assert(lp == ld && memcmp(sp, sd, lp) == 0, "summaries differ (%zu and %zu bytes)", lp, ld);
    free(sp), free(sd);
    clarity_app_free(p);
    clarity_app_free(d);
}
