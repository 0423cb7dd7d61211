/* Stage attempts (StageData as LiveStage.toApi writes it, plus the details AppStatusStore
 * adds: tasks, executorSummary, speculationSummary, distributions) and the stage routes. */
#include <stdlib.h>
#include <string.h>
#include "shs/shs_internal.h"
#include "util/checked.h"
#include "util/jsonw.h"

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
    for (size_t i = 0; i < sizeof top / sizeof *top; i++) clarity_jsonw_kint(w, top[i].k, m[top[i].m]);
    clarity_jsonw_kint(w, "shuffleReadBytes", clarity_wrap_add(m[CLARITY_TM_SR_LOCAL_BYTES], m[CLARITY_TM_SR_REMOTE_BYTES]));
    for (size_t i = 0; i < sizeof rest / sizeof *rest; i++) clarity_jsonw_kint(w, rest[i].k, m[rest[i].m]);
}

/* The stage's shown accumulables, by id (the index keeps them so). */
static void stage_accums(struct jsonw *w, const struct shs_index *ix, const struct clarity_app *a, size_t srow)
{
    size_t n;
    const uint32_t *pos = clarity__shs_stage_accums_of(ix, srow, &n);
    clarity_jsonw_key(w, "accumulatorUpdates");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        const struct clarity_accum *x = &a->stage_accums.p[pos[i]];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "id", x->id);
        clarity__shs_kstr_id(w, a, "name", x->name);
        char ab[32];
        clarity_jsonw_kstr(w, "value", clarity_accum_text(a, x, false, ab, sizeof ab));
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
}

/* An executor (string id) and a position: sorted, the first position of an executor is the
 * entry a front-to-back search would find. */
struct exec_pos { uint32_t exec, pos; };

static int cmp_exec_pos(const void *x, const void *y)
{
    const struct exec_pos *a = x, *b = y;
    if (a->exec != b->exec) return a->exec < b->exec ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static const struct exec_pos *find_exec(const struct exec_pos *v, size_t n, uint32_t exec)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].exec < exec) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && v[lo].exec == exec ? &v[lo] : NULL;
}

/* Whether the executor was excluded for this stage attempt (by itself or with its node). */
static bool excluded_for(const struct clarity_stage *st, uint32_t exec)
{
    const struct clarity_stage_rare *s = clarity_stage_rare_of(st);
    for (size_t i = 0; i < s->nexcluded_execs; i++)
        if (s->excluded_execs[i] == (int64_t)exec) return true;
    return false;
}

static void exec_summary_one(struct jsonw *w, const struct clarity_app *a,
                             const struct clarity_stage *s, const struct shs_exec_stage *es, uint32_t exec,
                             const struct clarity_peaks *pk, bool had_end)
{
    static const int64_t zero[CLARITY_TM_COUNT];
    const int64_t *m = es ? es->m : zero;
    clarity_jsonw_key(w, clarity_app_str(a, exec));
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "taskTime", es ? es->task_time : 0);
    clarity_jsonw_kint(w, "failedTasks", es ? es->failed : 0);
    clarity_jsonw_kint(w, "succeededTasks", es ? es->succeeded : 0);
    clarity_jsonw_kint(w, "killedTasks", es ? es->killed : 0);
    clarity_jsonw_kint(w, "inputBytes", m[CLARITY_TM_INPUT_BYTES]);
    clarity_jsonw_kint(w, "inputRecords", m[CLARITY_TM_INPUT_RECORDS]);
    clarity_jsonw_kint(w, "outputBytes", m[CLARITY_TM_OUTPUT_BYTES]);
    clarity_jsonw_kint(w, "outputRecords", m[CLARITY_TM_OUTPUT_RECORDS]);
    clarity_jsonw_kint(w, "shuffleRead", clarity_wrap_add(m[CLARITY_TM_SR_REMOTE_BYTES], m[CLARITY_TM_SR_LOCAL_BYTES]));
    clarity_jsonw_kint(w, "shuffleReadRecords", m[CLARITY_TM_SR_RECORDS]);
    clarity_jsonw_kint(w, "shuffleWrite", m[CLARITY_TM_SW_BYTES]);
    clarity_jsonw_kint(w, "shuffleWriteRecords", m[CLARITY_TM_SW_RECORDS]);
    clarity_jsonw_kint(w, "memoryBytesSpilled", m[CLARITY_TM_MEM_SPILLED]);
    clarity_jsonw_kint(w, "diskBytesSpilled", m[CLARITY_TM_DISK_SPILLED]);
    bool excl = excluded_for(s, exec);
    clarity_jsonw_kbool(w, "isBlacklistedForStage", excl);
    if (pk || had_end) clarity__shs_write_peaks(w, "peakMemoryMetrics", a, pk);
    clarity_jsonw_kbool(w, "isExcludedForStage", excl);
    clarity_jsonw_obj_end(w);
}

/* Executors that ran tasks of the stage, then those with only peaks logged for it, then
 * those only excluded for it. */
int clarity__shs_stage_exec_entries(const struct shs_stage_agg *sa, const struct clarity_stage *st,
                                    struct shs_exec_entry **out, size_t *nout)
{
    const struct clarity_stage_rare *s = clarity_stage_rare_of(st);
    struct exec_pos *ran = malloc((sa->nex ? sa->nex : 1) * sizeof *ran);
    struct exec_pos *peaks = malloc((s->nexec_peaks ? s->nexec_peaks : 1) * sizeof *peaks);
    struct shs_exec_entry *v = malloc((sa->nex + s->nexec_peaks + s->nexcluded_execs + 1) * sizeof *v);
    size_t n = 0;
    if (!ran || !peaks || !v) {
        free(ran);
        free(peaks);
        free(v);
        return -1;
    }
    for (size_t i = 0; i < sa->nex; i++) ran[i] = (struct exec_pos){sa->ex[i].exec, (uint32_t)i};
    for (size_t i = 0; i < s->nexec_peaks; i++) peaks[i] = (struct exec_pos){s->exec_peaks[i].executor, (uint32_t)i};
    qsort(ran, sa->nex, sizeof *ran, cmp_exec_pos);
    qsort(peaks, s->nexec_peaks, sizeof *peaks, cmp_exec_pos);
    for (size_t i = 0; i < sa->nex; i++) {
        const struct exec_pos *p = find_exec(peaks, s->nexec_peaks, sa->ex[i].exec);
        v[n++] = (struct shs_exec_entry){sa->ex[i].exec, &sa->ex[i], p ? &s->exec_peaks[p->pos].peaks : NULL, true};
    }
    for (size_t i = 0; i < s->nexec_peaks; i++) {
        uint32_t exec = s->exec_peaks[i].executor;
        if (find_exec(ran, sa->nex, exec)) continue;
        const struct exec_pos *p = find_exec(peaks, s->nexec_peaks, exec);
        v[n++] = (struct shs_exec_entry){exec, NULL, &s->exec_peaks[p->pos].peaks, false};
    }
    /* an exclusion creates the executor's entry even when it ran nothing and logged no peaks */
    for (size_t i = 0; i < s->nexcluded_execs; i++) {
        uint32_t exec = (uint32_t)s->excluded_execs[i];
        if (find_exec(ran, sa->nex, exec) || find_exec(peaks, s->nexec_peaks, exec)) continue;
        v[n++] = (struct shs_exec_entry){exec, NULL, NULL, false};
    }
    free(ran);
    free(peaks);
    *out = v;
    *nout = n;
    return 0;
}

static int exec_summaries(struct jsonw *w, const struct shs_agg *g, const struct shs_stage_agg *sa,
                          const struct clarity_stage *s)
{
    struct shs_exec_entry *v;
    size_t n;
    if (clarity__shs_stage_exec_entries(sa, s, &v, &n) != 0) return -1;
    clarity_jsonw_key(w, "executorSummary");
    clarity_jsonw_obj_begin(w);
    for (size_t i = 0; i < n; i++) exec_summary_one(w, g->app, s, v[i].es, v[i].exec, v[i].peaks, v[i].had_end);
    clarity_jsonw_obj_end(w);
    free(v);
    return 0;
}

static int stage_body(struct shs_req *r, const struct clarity_stage *s, const struct shs_stage_agg *sa);

/* One stage attempt, its figures computed for it and dropped after it. */
static int stage_write(struct shs_req *r, const struct clarity_stage *s)
{
    struct shs_stage_agg sa;
    if (clarity__shs_stage_agg(r->agg, (size_t)(s - r->app->stages), &sa) != 0) return clarity__shs_oom(r);
    int rc = stage_body(r, s, &sa);
    clarity__shs_stage_agg_free(&sa);
    return rc;
}

static int stage_body(struct shs_req *r, const struct clarity_stage *s, const struct shs_stage_agg *sa)
{
    struct jsonw *w = r->w;
    const struct shs_params *o = r->p;
    const struct shs_agg *g = r->agg;
    const struct clarity_app *a = r->app;
    size_t srow = (size_t)(s - a->stages);
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "status", stage_status(s));
    clarity_jsonw_kint(w, "stageId", s->stage_id);
    clarity_jsonw_kint(w, "attemptId", s->attempt);
    clarity_jsonw_kint(w, "numTasks", s->num_tasks);
    clarity_jsonw_kint(w, "numActiveTasks", sa->active);
    clarity_jsonw_kint(w, "numCompleteTasks", sa->completed);
    clarity_jsonw_kint(w, "numFailedTasks", sa->failed);
    clarity_jsonw_kint(w, "numKilledTasks", sa->killed);
    clarity_jsonw_kint(w, "numCompletedIndices", sa->completed_indices);
    if (s->submit_ms) clarity__shs_kdate(w, "submissionTime", s->submit_ms);
    if (sa->first_launch != INT64_MAX) clarity__shs_kdate(w, "firstTaskLaunchedTime", sa->first_launch);
    if (s->complete_ms) clarity__shs_kdate(w, "completionTime", s->complete_ms);
    if (s->failure) clarity__shs_kstr_id(w, a, "failureReason", s->failure);
    stage_metrics(w, sa->m);
    clarity_jsonw_kstr(w, "name", s->name ? clarity_app_str(a, s->name) : "");
    const char *desc = clarity__shs_stage_description(a, s);
    if (desc) clarity_jsonw_kstr(w, "description", desc);
    if (s->details) clarity__shs_kstr_id(w, a, "details", s->details);
    clarity_jsonw_kstr(w, "schedulingPool", s->pool ? clarity_app_str(a, s->pool) : "default");
    clarity_jsonw_key(w, "rddIds");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < s->nrdd_ids; i++) clarity_jsonw_int(w, s->rdd_ids[i]);
    clarity_jsonw_arr_end(w);
    stage_accums(w, r->ix, a, srow);
    if (o->details) {
        clarity_jsonw_key(w, "tasks");
        clarity_jsonw_obj_begin(w);
        size_t nrows;
        const uint32_t *rows = clarity__shs_stage_task_rows(r->ix, srow, &nrows);
        for (size_t i = 0; i < nrows; i++) {
            size_t t = rows[i];
            if (!(clarity_task_flags(a, t) & CLARITY_TF_GOT_START)) continue;
            if (!clarity__shs_status_wanted(clarity__shs_task_status(a, t), o->task_status, o->ntask_status)) continue;
            char key[32];
            snprintf(key, sizeof key, "%lld", (long long)clarity_icol_get(&a->tasks.task_id, t));
            clarity_jsonw_key(w, key);
            int rc = clarity__shs_task_write(r, t);
            if (rc) return rc;
        }
        clarity_jsonw_obj_end(w);
        if (exec_summaries(w, g, sa, s) != 0) return clarity__shs_oom(r);
        if (sa->spec_tasks) {
            clarity_jsonw_key(w, "speculationSummary");
            clarity_jsonw_obj_begin(w);
            clarity_jsonw_kint(w, "numTasks", sa->spec_tasks);
            clarity_jsonw_kint(w, "numActiveTasks", sa->spec_active);
            clarity_jsonw_kint(w, "numCompletedTasks", sa->spec_completed);
            clarity_jsonw_kint(w, "numFailedTasks", sa->spec_failed);
            clarity_jsonw_kint(w, "numKilledTasks", sa->spec_killed);
            clarity_jsonw_obj_end(w);
        }
    }
    clarity__shs_counts_write(w, "killedTasksSummary", &sa->killed_summary);
    clarity_jsonw_kint(w, "resourceProfileId", s->resource_profile_id);
    const struct clarity_peaks *spk = &clarity_stage_rare_of(s)->peaks;
    if (sa->had_task_end || spk->n) clarity__shs_write_peaks(w, "peakExecutorMetrics", a, spk);
    if (o->with_summaries) {
        int rc = clarity__shs_task_metric_distributions(r, s, o->quantiles, o->nquantiles, true);
        if (!rc) rc = clarity__shs_exec_metric_distributions(r, sa, s, o->quantiles, o->nquantiles);
        if (rc) return rc;
    }
    clarity_jsonw_kbool(w, "isShufflePushEnabled", s->shuffle_push_enabled);
    clarity_jsonw_kint(w, "shuffleMergersCount", s->shuffle_mergers);
    clarity_jsonw_obj_end(w);
    return CLARITY_OK;
}

static int cmp_stage_desc(const void *x, const void *y)
{
    const struct clarity_stage *a = *(const struct clarity_stage *const *)x, *b = *(const struct clarity_stage *const *)y;
    if (a->stage_id != b->stage_id) return a->stage_id < b->stage_id ? 1 : -1;
    return (a->attempt < b->attempt) - (a->attempt > b->attempt);
}

/* Writes the stages as a JSON array, in the order given. */
static int write_all(struct shs_req *r, const struct clarity_stage **v, size_t n)
{
    int rc = CLARITY_OK;
    clarity_jsonw_arr_begin(r->w);
    for (size_t i = 0; i < n && !rc; i++) rc = stage_write(r, v[i]);
    clarity_jsonw_arr_end(r->w);
    return rc;
}

/* Rows read back from a fold's file per batch of consecutive stages: up to this many bytes
 * on disk (a row takes about as much again as a task table, index and aggregates in memory),
 * or one stage when a single stage's rows are more. 32 MiB keeps a batch's memory near 100
 * MiB beside the model, and reads a 10 M-task log's rows in a few hundred batches. */
#define BATCH_BYTES ((uint64_t)32 << 20)

/* The stages of a model without task rows whose fold kept every row on disk: a batch at a
 * time, each batch's rows rebuilt beside the model (clarity__shs_spill_view) and written by
 * the same stage writer as a whole model's, its figures from the fold as the whole list's. */
static int write_batched(struct shs_req *r, const struct clarity_stage **v, size_t n, const struct shs_spill *sp)
{
    const struct clarity_app *a = r->app;
    uint32_t *srows = malloc((n ? n : 1) * sizeof *srows);
    if (!srows) return clarity__shs_oom(r);
    int rc = CLARITY_OK;
    clarity_jsonw_arr_begin(r->w);
    for (size_t i = 0; i < n && !rc;) {
        size_t k = 0;
        uint64_t bytes = 0;
        while (i + k < n) {
            size_t srow = (size_t)(v[i + k] - a->stages);
            uint64_t b = clarity__shs_spill_stage_bytes(sp, srow);
            if (k && bytes + b > BATCH_BYTES) break;
            srows[k++] = (uint32_t)srow;
            bytes += b;
        }
        struct clarity_app view;
        struct shs_index ix;
        struct shs_agg g;
        if (clarity__shs_spill_view(sp, a, srows, k, &view) != 0) {
            rc = clarity__shs_fail(r, SHS_INTERNAL, "cannot read the task rows kept on disk back");
            break;
        }
        if (clarity__shs_index_build(&ix, &view, SHS_IX_TASKS | SHS_IX_ACCUMS) != 0) {
            clarity__shs_spill_view_free(&view);
            rc = clarity__shs_oom(r);
            break;
        }
        if (clarity__shs_agg_build(&g, &view, &ix) != 0) {
            clarity__shs_index_free(&ix);
            clarity__shs_spill_view_free(&view);
            rc = clarity__shs_oom(r);
            break;
        }
        struct shs_req sub = *r;
        sub.app = &view;
        sub.ix = &ix;
        sub.agg = &g;
        for (size_t j = 0; j < k && !rc; j++) rc = stage_write(&sub, &view.stages[srows[j]]);
        r->http = sub.http;
        clarity__shs_agg_free(&g);
        clarity__shs_index_free(&ix);
        clarity__shs_spill_view_free(&view);
        i += k;
        /* a server streams this answer (up to ~2.5 KB a task): when its client went away the
         * writes fail, and the batches left are not read back for nobody */
        clarity_jsonw_flush(r->w);
        if (!rc && ferror(r->out)) rc = clarity__shs_fail(r, SHS_INTERNAL, "cannot write the answer");
    }
    clarity_jsonw_arr_end(r->w);
    free(srows);
    return rc;
}

int clarity__shs_stage_list(struct shs_req *r)
{
    const struct clarity_app *a = r->app;
    const struct clarity_stage **v = malloc((a->nstages ? a->nstages : 1) * sizeof *v);
    if (!v) return clarity__shs_oom(r);
    size_t n = 0;
    for (size_t i = 0; i < a->nstages; i++)
        if (clarity__shs_stage_visible(&a->stages[i]) &&
            clarity__shs_status_wanted(stage_status(&a->stages[i]), r->p->status, r->p->nstatus))
            v[n++] = &a->stages[i];
    qsort(v, n, sizeof *v, cmp_stage_desc);
    const struct shs_spill *sp = r->agg && !a->tasks.n ? clarity__shs_fold_spill_of(r->agg->fold) : NULL;
    int rc = sp && (r->p->details || r->p->with_summaries) ? write_batched(r, v, n, sp) : write_all(r, v, n);
    free(v);
    return rc;
}

/* Every attempt of one stage, oldest first. */
int clarity__shs_stage_attempts(struct shs_req *r)
{
    const struct clarity_app *a = r->app;
    const struct clarity_stage **v = malloc((a->nstages ? a->nstages : 1) * sizeof *v);
    if (!v) return clarity__shs_oom(r);
    size_t n = 0;
    for (size_t i = 0; i < a->nstages; i++)
        if (a->stages[i].stage_id == r->stage_id && clarity__shs_stage_visible(&a->stages[i])) v[n++] = &a->stages[i];
    qsort(v, n, sizeof *v, cmp_stage_desc);
    for (size_t i = 0; i < n / 2; i++) {
        const struct clarity_stage *t = v[i];
        v[i] = v[n - 1 - i];
        v[n - 1 - i] = t;
    }
    int rc = write_all(r, v, n);
    free(v);
    return rc;
}

int clarity__shs_stage_one(struct shs_req *r) { return stage_write(r, r->stage); }
