/* Jobs (JobData as LiveJob writes it); the figures come from clarity__shs_job_agg. */
#include <stdlib.h>
#include <string.h>
#include "shs/shs_internal.h"
#include "util/jsonw.h"

static const char *job_status(int s)
{
    static const char *n[] = {"RUNNING", "SUCCEEDED", "FAILED", "UNKNOWN"};
    return (unsigned)s <= CLARITY_JOB_UNKNOWN ? n[s] : "UNKNOWN";
}

static int cmp_str(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

/* spark.job.tags: comma separated, empty dropped, distinct, sorted */
static int job_tags(struct jsonw *w, const char *text)
{
    char *copy = text ? strdup(text) : NULL;
    if (text && !copy) return -1;
    clarity_jsonw_key(w, "jobTags");
    clarity_jsonw_arr_begin(w);
    char *tags[256];
    size_t n = 0;
    for (char *save = NULL, *t = copy ? strtok_r(copy, ",", &save) : NULL; t && n < 256; t = strtok_r(NULL, ",", &save))
        if (*t) tags[n++] = t;
    qsort(tags, n, sizeof *tags, cmp_str);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(tags[i], tags[i - 1])) clarity_jsonw_str(w, tags[i]);
    free(copy);
    clarity_jsonw_arr_end(w);
    return 0;
}

static int job_write(struct shs_req *r, const struct clarity_job *j)
{
    struct jsonw *w = r->w;
    const struct clarity_app *a = r->app;
    struct shs_job_agg ja;
    if (clarity__shs_job_agg(r->agg, j, &ja) != 0) return clarity__shs_oom(r);
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "jobId", j->job_id);
    clarity_jsonw_kstr(w, "name", j->name ? clarity_app_str(a, j->name) : "");
    if (j->description) clarity__shs_kstr_id(w, a, "description", j->description);
    if (j->submit_ms > 0) clarity__shs_kdate(w, "submissionTime", j->submit_ms);
    if (j->end_ms > 0) clarity__shs_kdate(w, "completionTime", j->end_ms);
    clarity_jsonw_key(w, "stageIds");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < j->nstage_ids; i++) clarity_jsonw_int(w, j->stage_ids[i]);
    clarity_jsonw_arr_end(w);
    if (j->group) clarity__shs_kstr_id(w, a, "jobGroup", j->group);
    if (job_tags(w, j->tags_text ? clarity_app_str(a, j->tags_text) : NULL) != 0) {
        clarity__shs_counts_free(&ja.killed_summary);
        return clarity__shs_oom(r);
    }
    clarity_jsonw_kstr(w, "status", job_status(j->status));
    clarity_jsonw_kint(w, "numTasks", ja.num_tasks);
    clarity_jsonw_kint(w, "numActiveTasks", ja.active);
    clarity_jsonw_kint(w, "numCompletedTasks", ja.completed);
    clarity_jsonw_kint(w, "numSkippedTasks", ja.skipped_tasks);
    clarity_jsonw_kint(w, "numFailedTasks", ja.failed);
    clarity_jsonw_kint(w, "numKilledTasks", ja.killed);
    clarity_jsonw_kint(w, "numCompletedIndices", ja.completed_indices);
    clarity_jsonw_kint(w, "numActiveStages", ja.active_stages);
    clarity_jsonw_kint(w, "numCompletedStages", ja.completed_stages);
    clarity_jsonw_kint(w, "numSkippedStages", ja.skipped_stages);
    clarity_jsonw_kint(w, "numFailedStages", ja.failed_stages);
    clarity__shs_counts_write(w, "killedTasksSummary", &ja.killed_summary);
    clarity_jsonw_obj_end(w);
    clarity__shs_counts_free(&ja.killed_summary);
    return CLARITY_OK;
}

static int cmp_job_desc(const void *x, const void *y)
{
    const struct clarity_job *a = *(const struct clarity_job *const *)x, *b = *(const struct clarity_job *const *)y;
    return (a->job_id < b->job_id) - (a->job_id > b->job_id);
}

int clarity__shs_job_one(struct shs_req *r) { return job_write(r, r->job); }

int clarity__shs_job_list(struct shs_req *r)
{
    const struct clarity_app *a = r->app;
    const struct clarity_job **v = malloc((a->njobs ? a->njobs : 1) * sizeof *v);
    if (!v) return clarity__shs_oom(r);
    size_t n = 0;
    for (size_t i = 0; i < a->njobs; i++)
        if (clarity__shs_status_wanted(job_status(a->jobs[i].status), r->p->status, r->p->nstatus)) v[n++] = &a->jobs[i];
    qsort(v, n, sizeof *v, cmp_job_desc);
    int rc = CLARITY_OK;
    clarity_jsonw_arr_begin(r->w);
    for (size_t i = 0; i < n && !rc; i++) rc = job_write(r, v[i]);
    clarity_jsonw_arr_end(r->w);
    free(v);
    return rc;
}
