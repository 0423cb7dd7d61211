/* Jobs (JobData as LiveJob writes it). A job's task and stage counters are recomputed from
 * the attempts of its stages that ran while it was live; stages it declared that never ran
 * are its skipped stages, and numTasks leaves out stages already complete when it started
 * (AppStatusListener.onJobStart counts only Stage Infos without a completion time). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "shs/shs_internal.h"
#include "util/stats.h"

static const char *job_status(int s)
{
    static const char *n[] = {"RUNNING", "SUCCEEDED", "FAILED", "UNKNOWN"};
    return (unsigned)s <= CLARITY_JOB_UNKNOWN ? n[s] : "UNKNOWN";
}

static bool has_stage(const struct clarity_job *j, int64_t sid)
{
    for (size_t i = 0; i < j->nstage_ids; i++)
        if (j->stage_ids[i] == sid) return true;
    return false;
}

static bool in_window(const struct clarity_job *j, int64_t t)
{
    if (j->submit_ms > 0 && t && t < j->submit_ms) return false;
    if (j->end_ms > 0 && t > j->end_ms) return false;
    return true;
}

struct job_agg {
    int64_t num_tasks, active, completed, skipped_tasks, failed, killed, completed_indices;
    int64_t active_stages, completed_stages, skipped_stages, failed_stages;
    struct shs_counts killed_summary;
};

static void stage_counts(const struct clarity_app *a, const struct clarity_job *j, struct job_agg *ja)
{
    for (size_t k = 0; k < j->nstage_ids; k++) {
        int64_t sid = j->stage_ids[k];
        bool dup = false;
        for (size_t q = 0; q < k; q++) dup |= j->stage_ids[q] == sid;
        if (dup) continue;
        bool ran = false, completed = false, done_before = false;
        const struct clarity_stage *first = NULL;
        for (size_t i = 0; i < a->nstages; i++) {
            const struct clarity_stage *s = &a->stages[i];
            if (s->stage_id != sid) continue;
            if (!first || s->attempt < first->attempt) first = s;
            if (s->seen_completed && s->complete_ms && j->submit_ms > 0 && s->complete_ms <= j->submit_ms)
                done_before = true;
            if (!s->seen_submitted || !in_window(j, s->submit_ms)) continue;
            ran = true;
            if (s->status == CLARITY_STAGE_ACTIVE) ja->active_stages++;
            else if (s->status == CLARITY_STAGE_FAILED) ja->failed_stages++;
            else if (s->status == CLARITY_STAGE_COMPLETE) completed = true;
        }
        if (first && !done_before) ja->num_tasks += first->num_tasks;
        ja->completed_stages += completed;
        if (!ran && j->status != CLARITY_JOB_RUNNING && first) {
            ja->skipped_stages++;
            ja->skipped_tasks += first->num_tasks;
        }
    }
}

static void job_agg(const struct shs_agg *g, const struct clarity_job *j, struct job_agg *ja)
{
    const struct clarity_app *a = g->app;
    memset(ja, 0, sizeof *ja);
    stage_counts(a, j, ja);
    int64_t *idx = malloc((a->tasks.n ? a->tasks.n : 1) * sizeof *idx);
    size_t nidx = 0;
    for (size_t r = 0; r < a->tasks.n; r++) {
        const struct clarity_stage *s = &a->stages[clarity_icol_get(&a->tasks.stage, r)];
        if (!has_stage(j, s->stage_id) || !in_window(j, clarity_task_launch_ms(a, r))) continue;
        int64_t f = clarity_task_flags(a, r);
        if (!(f & CLARITY_TF_ENDED)) {
            ja->active += (f & CLARITY_TF_GOT_START) != 0;
            continue;
        }
        int end = (int)clarity_icol_get(&a->tasks.end, r);
        if (end == CLARITY_END_SUCCESS) {
            ja->completed++;
            /* stage id and task index packed as SHS packs them */
            if (idx) idx[nidx++] = (s->stage_id << 32) | (clarity_icol_get(&a->tasks.index, r) & 0xffffffff);
        } else if (end == CLARITY_END_KILLED || end == CLARITY_END_COMMIT_DENIED) {
            ja->killed++;
            char *key = shs_killed_key(g, r);
            shs_counts_add(&ja->killed_summary, key, 1);
            free(key);
        } else {
            ja->failed++;
        }
    }
    if (idx) {
        qsort(idx, nidx, sizeof *idx, clarity_cmp_i64);
        for (size_t k = 0; k < nidx; k++) ja->completed_indices += k == 0 || idx[k] != idx[k - 1];
    }
    free(idx);
}

static int cmp_str(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

/* spark.job.tags: comma separated, empty dropped, distinct, sorted */
static void job_tags(struct jsonw *w, const char *text)
{
    jsonw_key(w, "jobTags");
    jsonw_arr_begin(w);
    char *copy = text ? strdup(text) : NULL;
    char *tags[256];
    size_t n = 0;
    for (char *save = NULL, *t = copy ? strtok_r(copy, ",", &save) : NULL; t && n < 256; t = strtok_r(NULL, ",", &save))
        if (*t) tags[n++] = t;
    qsort(tags, n, sizeof *tags, cmp_str);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(tags[i], tags[i - 1])) jsonw_str(w, tags[i]);
    free(copy);
    jsonw_arr_end(w);
}

static void job_write(struct shs_ctx *c, const struct shs_agg *g, const struct clarity_job *j)
{
    struct jsonw *w = c->w;
    const struct clarity_app *a = g->app;
    struct job_agg ja;
    job_agg(g, j, &ja);
    jsonw_obj_begin(w);
    jsonw_kint(w, "jobId", j->job_id);
    jsonw_kstr(w, "name", j->name ? clarity_app_str(a, j->name) : "");
    if (j->description) shs_kstr_id(w, a, "description", j->description);
    if (j->submit_ms > 0) shs_kdate(w, "submissionTime", j->submit_ms);
    if (j->end_ms > 0) shs_kdate(w, "completionTime", j->end_ms);
    jsonw_key(w, "stageIds");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < j->nstage_ids; i++) jsonw_int(w, j->stage_ids[i]);
    jsonw_arr_end(w);
    if (j->group) shs_kstr_id(w, a, "jobGroup", j->group);
    job_tags(w, j->tags_text ? clarity_app_str(a, j->tags_text) : NULL);
    jsonw_kstr(w, "status", job_status(j->status));
    jsonw_kint(w, "numTasks", ja.num_tasks);
    jsonw_kint(w, "numActiveTasks", ja.active);
    jsonw_kint(w, "numCompletedTasks", ja.completed);
    jsonw_kint(w, "numSkippedTasks", ja.skipped_tasks);
    jsonw_kint(w, "numFailedTasks", ja.failed);
    jsonw_kint(w, "numKilledTasks", ja.killed);
    jsonw_kint(w, "numCompletedIndices", ja.completed_indices);
    jsonw_kint(w, "numActiveStages", ja.active_stages);
    jsonw_kint(w, "numCompletedStages", ja.completed_stages);
    jsonw_kint(w, "numSkippedStages", ja.skipped_stages);
    jsonw_kint(w, "numFailedStages", ja.failed_stages);
    shs_counts_write(w, "killedTasksSummary", &ja.killed_summary);
    jsonw_obj_end(w);
    shs_counts_free(&ja.killed_summary);
}

static int cmp_job_desc(const void *x, const void *y)
{
    const struct clarity_job *a = *(const struct clarity_job *const *)x, *b = *(const struct clarity_job *const *)y;
    return (a->job_id < b->job_id) - (a->job_id > b->job_id);
}

enum shs_status shs_jobs(struct shs_ctx *c, const struct shs_agg *g, const char *job_id)
{
    const struct clarity_app *a = g->app;
    if (job_id) {
        char *end;
        long long id = strtoll(job_id, &end, 10);
        if (!*job_id || *end || *job_id == '-' || *job_id == '+') return shs_fail(c, SHS_BAD_PATH, "bad job id '%s'", job_id);
        const struct clarity_job *j = clarity_app_job(a, id);
        if (!j) return shs_fail(c, SHS_NOT_FOUND, "unknown job: %lld", id);
        job_write(c, g, j);
        return SHS_OK;
    }
    const char *st[16];
    char scratch[512];
    size_t nst = shs_query_list(c->q, "status", st, 16, scratch, sizeof scratch);
    for (size_t i = 0; i < nst; i++) {
        bool found = false;
        for (int s = 0; s <= CLARITY_JOB_UNKNOWN; s++) found |= !strcasecmp(st[i], job_status(s));
        if (!found) return shs_fail(c, SHS_BAD_PATH, "bad job status '%s'", st[i]);
    }
    const struct clarity_job **v = malloc((a->njobs ? a->njobs : 1) * sizeof *v);
    if (!v) return shs_fail(c, SHS_NOT_FOUND, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < a->njobs; i++) {
        bool keep = !nst;
        for (size_t k = 0; k < nst; k++) keep |= !strcasecmp(st[k], job_status(a->jobs[i].status));
        if (keep) v[n++] = &a->jobs[i];
    }
    qsort(v, n, sizeof *v, cmp_job_desc);
    jsonw_arr_begin(c->w);
    for (size_t i = 0; i < n; i++) job_write(c, g, v[i]);
    jsonw_arr_end(c->w);
    free(v);
    return SHS_OK;
}
