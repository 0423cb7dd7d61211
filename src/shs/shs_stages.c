/* Stage attempts (StageData as LiveStage.toApi writes it, plus the details AppStatusStore
 * adds: tasks, executorSummary, speculationSummary, distributions) and the stage routes. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "shs/shs_internal.h"

/* Stages SHS has in its store: announced by a JobStart or submitted/completed. */
static bool stage_visible(const struct clarity_stage *s)
{
    return s->seen_submitted || s->seen_completed || s->njob_ids > 0;
}

static const char *stage_status(const struct clarity_stage *s)
{
    /* SPARK-20205: a completed stage without a submission time was skipped */
    if (s->status == CLARITY_STAGE_COMPLETE && !s->submit_ms) return "SKIPPED";
    return clarity_stage_status_name(s->status);
}

static void stage_metrics(struct jsonw *w, const int64_t *m)
{
    static const struct { const char *k; enum clarity_tm m; } top[] = {
        {"executorDeserializeTime", CLARITY_TM_DESER_MS}, {"executorDeserializeCpuTime", CLARITY_TM_DESER_CPU_NS},
        {"executorRunTime", CLARITY_TM_RUN_MS}, {"executorCpuTime", CLARITY_TM_CPU_NS},
        {"resultSize", CLARITY_TM_RESULT_SIZE}, {"jvmGcTime", CLARITY_TM_GC_MS},
        {"resultSerializationTime", CLARITY_TM_RESULT_SER_MS}, {"memoryBytesSpilled", CLARITY_TM_MEM_SPILLED},
        {"diskBytesSpilled", CLARITY_TM_DISK_SPILLED}, {"peakExecutionMemory", CLARITY_TM_PEAK_EXEC_MEM},
        {"inputBytes", CLARITY_TM_INPUT_BYTES}, {"inputRecords", CLARITY_TM_INPUT_RECORDS},
        {"outputBytes", CLARITY_TM_OUTPUT_BYTES}, {"outputRecords", CLARITY_TM_OUTPUT_RECORDS},
        {"shuffleRemoteBlocksFetched", CLARITY_TM_SR_REMOTE_BLOCKS},
        {"shuffleLocalBlocksFetched", CLARITY_TM_SR_LOCAL_BLOCKS},
        {"shuffleFetchWaitTime", CLARITY_TM_SR_FETCH_WAIT_MS},
        {"shuffleRemoteBytesRead", CLARITY_TM_SR_REMOTE_BYTES},
        {"shuffleRemoteBytesReadToDisk", CLARITY_TM_SR_REMOTE_BYTES_TO_DISK},
        {"shuffleLocalBytesRead", CLARITY_TM_SR_LOCAL_BYTES},
    };
    static const struct { const char *k; enum clarity_tm m; } rest[] = {
        {"shuffleReadRecords", CLARITY_TM_SR_RECORDS},
        {"shuffleCorruptMergedBlockChunks", CLARITY_TM_SP_CORRUPT_MERGED_CHUNKS},
        {"shuffleMergedFetchFallbackCount", CLARITY_TM_SP_MERGED_FALLBACK},
        {"shuffleMergedRemoteBlocksFetched", CLARITY_TM_SP_REMOTE_MERGED_BLOCKS},
        {"shuffleMergedLocalBlocksFetched", CLARITY_TM_SP_LOCAL_MERGED_BLOCKS},
        {"shuffleMergedRemoteChunksFetched", CLARITY_TM_SP_REMOTE_MERGED_CHUNKS},
        {"shuffleMergedLocalChunksFetched", CLARITY_TM_SP_LOCAL_MERGED_CHUNKS},
        {"shuffleMergedRemoteBytesRead", CLARITY_TM_SP_REMOTE_MERGED_BYTES},
        {"shuffleMergedLocalBytesRead", CLARITY_TM_SP_LOCAL_MERGED_BYTES},
        {"shuffleRemoteReqsDuration", CLARITY_TM_SR_REMOTE_REQS_MS},
        {"shuffleMergedRemoteReqsDuration", CLARITY_TM_SP_REMOTE_MERGED_REQS_MS},
        {"shuffleWriteBytes", CLARITY_TM_SW_BYTES}, {"shuffleWriteTime", CLARITY_TM_SW_TIME_NS},
        {"shuffleWriteRecords", CLARITY_TM_SW_RECORDS},
    };
    for (size_t i = 0; i < sizeof top / sizeof *top; i++) jsonw_kint(w, top[i].k, m[top[i].m]);
    jsonw_kint(w, "shuffleReadBytes", m[CLARITY_TM_SR_LOCAL_BYTES] + m[CLARITY_TM_SR_REMOTE_BYTES]);
    for (size_t i = 0; i < sizeof rest / sizeof *rest; i++) jsonw_kint(w, rest[i].k, m[rest[i].m]);
}

static int cmp_accum(const void *x, const void *y)
{
    const struct clarity_accum *a = *(const struct clarity_accum *const *)x, *b = *(const struct clarity_accum *const *)y;
    return (a->id > b->id) - (a->id < b->id);
}

static void stage_accums(struct jsonw *w, const struct clarity_app *a, size_t srow)
{
    size_t n = 0;
    const struct clarity_accum **v = malloc((a->stage_accums.n ? a->stage_accums.n : 1) * sizeof *v);
    for (size_t i = 0; v && i < a->stage_accums.n; i++) {
        const struct clarity_accum *x = &a->stage_accums.p[i];
        if (x->owner == srow && !x->internal && !x->is_sql) v[n++] = x;
    }
    if (v) qsort(v, n, sizeof *v, cmp_accum);
    jsonw_key(w, "accumulatorUpdates");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        jsonw_obj_begin(w);
        jsonw_kint(w, "id", v[i]->id);
        shs_kstr_id(w, a, "name", v[i]->name);
        char ab[32];
        jsonw_kstr(w, "value", clarity_accum_text(a, v[i], false, ab, sizeof ab));
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    free(v);
}

static const struct clarity_peaks *exec_stage_peaks(const struct clarity_stage *s, uint32_t exec)
{
    for (size_t i = 0; i < s->nexec_peaks; i++)
        if (s->exec_peaks[i].executor == exec) return &s->exec_peaks[i].peaks;
    return NULL;
}

static bool excluded_in(const struct clarity_app *a, uint32_t exec, int64_t stage_id)
{
    const struct clarity_executor *e = shs_exec_by_sid(a, exec, NULL);
    for (size_t i = 0; e && i < e->nexcluded_stages; i++)
        if (e->excluded_stages[i] == stage_id) return true;
    return false;
}

static void exec_summary_one(struct jsonw *w, const struct clarity_app *a, const struct clarity_stage *s,
                             const struct shs_exec_stage *es, uint32_t exec, bool had_end)
{
    static const int64_t zero[CLARITY_TM_COUNT];
    const int64_t *m = es ? es->m : zero;
    jsonw_key(w, clarity_app_str(a, exec));
    jsonw_obj_begin(w);
    jsonw_kint(w, "taskTime", es ? es->task_time : 0);
    jsonw_kint(w, "failedTasks", es ? es->failed : 0);
    jsonw_kint(w, "succeededTasks", es ? es->succeeded : 0);
    jsonw_kint(w, "killedTasks", es ? es->killed : 0);
    jsonw_kint(w, "inputBytes", m[CLARITY_TM_INPUT_BYTES]);
    jsonw_kint(w, "inputRecords", m[CLARITY_TM_INPUT_RECORDS]);
    jsonw_kint(w, "outputBytes", m[CLARITY_TM_OUTPUT_BYTES]);
    jsonw_kint(w, "outputRecords", m[CLARITY_TM_OUTPUT_RECORDS]);
    jsonw_kint(w, "shuffleRead", m[CLARITY_TM_SR_REMOTE_BYTES] + m[CLARITY_TM_SR_LOCAL_BYTES]);
    jsonw_kint(w, "shuffleReadRecords", m[CLARITY_TM_SR_RECORDS]);
    jsonw_kint(w, "shuffleWrite", m[CLARITY_TM_SW_BYTES]);
    jsonw_kint(w, "shuffleWriteRecords", m[CLARITY_TM_SW_RECORDS]);
    jsonw_kint(w, "memoryBytesSpilled", m[CLARITY_TM_MEM_SPILLED]);
    jsonw_kint(w, "diskBytesSpilled", m[CLARITY_TM_DISK_SPILLED]);
    bool excl = excluded_in(a, exec, s->stage_id);
    jsonw_kbool(w, "isBlacklistedForStage", excl);
    const struct clarity_peaks *pk = exec_stage_peaks(s, exec);
    if (pk || had_end) shs_write_peaks(w, "peakMemoryMetrics", a, pk);
    jsonw_kbool(w, "isExcludedForStage", excl);
    jsonw_obj_end(w);
}

static void exec_summaries(struct jsonw *w, const struct shs_agg *g, const struct clarity_stage *s)
{
    const struct clarity_app *a = g->app;
    const struct shs_stage_agg *sa = &g->st[s - a->stages];
    jsonw_key(w, "executorSummary");
    jsonw_obj_begin(w);
    for (size_t i = 0; i < sa->nex; i++) exec_summary_one(w, a, s, &sa->ex[i], sa->ex[i].exec, true);
    for (size_t i = 0; i < s->nexec_peaks; i++) {
        bool seen = false;
        for (size_t k = 0; k < sa->nex && !seen; k++) seen = sa->ex[k].exec == s->exec_peaks[i].executor;
        if (!seen) exec_summary_one(w, a, s, NULL, s->exec_peaks[i].executor, false);
    }
    jsonw_obj_end(w);
}

static bool status_keep(const char *task_status, const char *const *st, size_t nst)
{
    if (!nst) return true;
    for (size_t i = 0; i < nst; i++)
        if (!strcasecmp(st[i], task_status)) return true;
    return false;
}

struct stage_opts {
    bool details, summaries;
    const double *qs;
    size_t nq;
    const char *const *task_status;
    size_t ntask_status;
};

static void stage_write(struct shs_ctx *c, const struct shs_agg *g, const struct clarity_stage *s, const struct stage_opts *o)
{
    struct jsonw *w = c->w;
    const struct clarity_app *a = g->app;
    size_t srow = (size_t)(s - a->stages);
    const struct shs_stage_agg *sa = &g->st[srow];
    jsonw_obj_begin(w);
    jsonw_kstr(w, "status", stage_status(s));
    jsonw_kint(w, "stageId", s->stage_id);
    jsonw_kint(w, "attemptId", s->attempt);
    jsonw_kint(w, "numTasks", s->num_tasks);
    jsonw_kint(w, "numActiveTasks", sa->active);
    jsonw_kint(w, "numCompleteTasks", sa->completed);
    jsonw_kint(w, "numFailedTasks", sa->failed);
    jsonw_kint(w, "numKilledTasks", sa->killed);
    jsonw_kint(w, "numCompletedIndices", sa->completed_indices);
    if (s->submit_ms) shs_kdate(w, "submissionTime", s->submit_ms);
    if (sa->first_launch != INT64_MAX) shs_kdate(w, "firstTaskLaunchedTime", sa->first_launch);
    if (s->complete_ms) shs_kdate(w, "completionTime", s->complete_ms);
    if (s->failure) shs_kstr_id(w, a, "failureReason", s->failure);
    stage_metrics(w, sa->m);
    jsonw_kstr(w, "name", s->name ? clarity_app_str(a, s->name) : "");
    const char *desc = shs_stage_description(a, s);
    if (desc) jsonw_kstr(w, "description", desc);
    if (s->details) shs_kstr_id(w, a, "details", s->details);
    jsonw_kstr(w, "schedulingPool", s->pool ? clarity_app_str(a, s->pool) : "default");
    jsonw_key(w, "rddIds");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < s->nrdd_ids; i++) jsonw_int(w, s->rdd_ids[i]);
    jsonw_arr_end(w);
    stage_accums(w, a, srow);
    if (o->details) {
        jsonw_key(w, "tasks");
        jsonw_obj_begin(w);
        for (size_t r = 0; r < a->tasks.n; r++) {
            if ((size_t)clarity_icol_get(&a->tasks.stage, r) != srow || !(clarity_task_flags(a, r) & CLARITY_TF_GOT_START))
                continue;
            if (!status_keep(shs_task_status(a, r), o->task_status, o->ntask_status)) continue;
            char key[32];
            snprintf(key, sizeof key, "%lld", (long long)clarity_icol_get(&a->tasks.task_id, r));
            jsonw_key(w, key);
            shs_task_write(c, g, r);
        }
        jsonw_obj_end(w);
        exec_summaries(w, g, s);
        if (sa->spec_tasks) {
            jsonw_key(w, "speculationSummary");
            jsonw_obj_begin(w);
            jsonw_kint(w, "numTasks", sa->spec_tasks);
            jsonw_kint(w, "numActiveTasks", sa->spec_active);
            jsonw_kint(w, "numCompletedTasks", sa->spec_completed);
            jsonw_kint(w, "numFailedTasks", sa->spec_failed);
            jsonw_kint(w, "numKilledTasks", sa->spec_killed);
            jsonw_obj_end(w);
        }
    }
    shs_counts_write(w, "killedTasksSummary", &sa->killed_summary);
    jsonw_kint(w, "resourceProfileId", s->resource_profile_id);
    if (sa->had_task_end || s->peaks.n) shs_write_peaks(w, "peakExecutorMetrics", a, &s->peaks);
    if (o->summaries) shs_task_metric_distributions(c, g, s, o->qs, o->nq);
    jsonw_kbool(w, "isShufflePushEnabled", s->shuffle_push_enabled);
    jsonw_kint(w, "shuffleMergersCount", s->shuffle_mergers);
    jsonw_obj_end(w);
}

static int cmp_stage_desc(const void *x, const void *y)
{
    const struct clarity_stage *a = *(const struct clarity_stage *const *)x, *b = *(const struct clarity_stage *const *)y;
    if (a->stage_id != b->stage_id) return a->stage_id < b->stage_id ? 1 : -1;
    return (a->attempt < b->attempt) - (a->attempt > b->attempt);
}

static bool parse_id(const char *s, int64_t *out)
{
    char *end;
    if (!s || !*s || *s == '-' || *s == '+') return false;
    long long v = strtoll(s, &end, 10);
    if (*end) return false;
    *out = v;
    return true;
}

static enum shs_status read_opts(struct shs_ctx *c, struct stage_opts *o, bool details_dflt, double *qs,
                                 const char **ts, char *scratch, size_t scratch_len)
{
    bool bad = false;
    memset(o, 0, sizeof *o);
    o->details = shs_query_bool(c->q, "details", details_dflt, &bad);
    o->summaries = shs_query_bool(c->q, "withSummaries", false, &bad);
    if (bad) return shs_fail(c, SHS_BAD_PATH, "bad boolean parameter");
    const char *v = shs_query_get(c->q, "quantiles");
    if (!shs_parse_quantiles(v ? v : "0.0,0.25,0.5,0.75,1.0", qs, 64, &o->nq))
        return shs_fail(c, SHS_BAD_PATH, "bad quantiles '%s'", v ? v : "");
    o->qs = qs;
    o->ntask_status = shs_query_list(c->q, "taskStatus", ts, 16, scratch, scratch_len);
    o->task_status = ts;
    return SHS_OK;
}

static enum shs_status stage_list(struct shs_ctx *c, const struct shs_agg *g)
{
    const struct clarity_app *a = g->app;
    struct stage_opts o;
    double qs[64];
    const char *ts[16], *st[16];
    char scratch[512], scratch2[512];
    enum shs_status rc = read_opts(c, &o, false, qs, ts, scratch, sizeof scratch);
    if (rc) return rc;
    size_t nst = shs_query_list(c->q, "status", st, 16, scratch2, sizeof scratch2);
    for (size_t i = 0; i < nst; i++) {
        static const char *ok[] = {"ACTIVE", "COMPLETE", "FAILED", "PENDING", "SKIPPED"};
        bool found = false;
        for (size_t k = 0; k < 5; k++) found |= !strcasecmp(ok[k], st[i]);
        if (!found) return shs_fail(c, SHS_BAD_PATH, "bad stage status '%s'", st[i]);
    }
    const struct clarity_stage **v = malloc((a->nstages ? a->nstages : 1) * sizeof *v);
    if (!v) return shs_fail(c, SHS_NOT_FOUND, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < a->nstages; i++)
        if (stage_visible(&a->stages[i]) && status_keep(stage_status(&a->stages[i]), st, nst)) v[n++] = &a->stages[i];
    qsort(v, n, sizeof *v, cmp_stage_desc);
    jsonw_arr_begin(c->w);
    for (size_t i = 0; i < n; i++) stage_write(c, g, v[i], &o);
    jsonw_arr_end(c->w);
    free(v);
    return SHS_OK;
}

/* seg: path segments after ".../stages" */
enum shs_status shs_stages(struct shs_ctx *c, const struct shs_agg *g, char **seg, size_t nseg)
{
    const struct clarity_app *a = g->app;
    if (nseg == 0) return stage_list(c, g);
    int64_t sid, att;
    if (!parse_id(seg[0], &sid)) return shs_fail(c, SHS_BAD_PATH, "bad stage id '%s'", seg[0]);
    size_t nfound = 0;
    for (size_t i = 0; i < a->nstages; i++) nfound += a->stages[i].stage_id == sid && stage_visible(&a->stages[i]);
    if (!nfound) return shs_fail(c, SHS_NOT_FOUND, "unknown stage: %lld", (long long)sid);
    struct stage_opts o;
    double qs[64];
    const char *ts[16];
    char scratch[512];
    if (nseg == 1) {
        enum shs_status rc = read_opts(c, &o, true, qs, ts, scratch, sizeof scratch);
        if (rc) return rc;
        const struct clarity_stage **v = malloc(nfound * sizeof *v);
        if (!v) return shs_fail(c, SHS_NOT_FOUND, "out of memory");
        size_t n = 0;
        for (size_t i = 0; i < a->nstages; i++)
            if (a->stages[i].stage_id == sid && stage_visible(&a->stages[i])) v[n++] = &a->stages[i];
        qsort(v, n, sizeof *v, cmp_stage_desc);
        jsonw_arr_begin(c->w);
        for (size_t i = n; i-- > 0;) stage_write(c, g, v[i], &o);
        jsonw_arr_end(c->w);
        free(v);
        return SHS_OK;
    }
    if (!parse_id(seg[1], &att)) return shs_fail(c, SHS_BAD_PATH, "bad stage attempt id '%s'", seg[1]);
    const struct clarity_stage *s = clarity_app_stage(a, sid, (int32_t)att);
    if (!s || !stage_visible(s))
        return shs_fail(c, SHS_NOT_FOUND, "unknown attempt for stage %lld: %lld", (long long)sid, (long long)att);
    if (nseg == 2) {
        enum shs_status rc = read_opts(c, &o, true, qs, ts, scratch, sizeof scratch);
        if (rc) return rc;
        stage_write(c, g, s, &o);
        return SHS_OK;
    }
    if (nseg == 3 && !strcmp(seg[2], "taskSummary")) return shs_task_summary(c, g, s);
    if (nseg == 3 && !strcmp(seg[2], "taskList")) return shs_task_list(c, g, s);
    return shs_fail(c, SHS_BAD_PATH, "no such resource: stages/%s/%s/%s", seg[0], seg[1], seg[2]);
}
