/* Job start/end: stage lists, properties (SQL execution id, job group, pool, description). */
#include "model/apply/sql_listen.h"

static uint32_t prop(struct apply_ctx *c, cj_val props, const char *key)
{
    return clarity_intern_key(c, props, key);
}

void clarity_apply_job_start(struct apply_ctx *c, cj_val ev)
{
    int64_t id;
    if (!clarity_cj_get_int(ev, "Job ID", &id)) {
        clarity_problem(c, "SparkListenerJobStart without \"Job ID\"");
        return;
    }
    struct clarity_job *j = clarity_job_get_or_add(c, id);
    if (!j) return;
    j->submit_ms = clarity_get_int_or(ev, "Submission Time", 0);
    cj_val v, info;
    cj_iter it;
    if (clarity_cj_get(ev, "Stage IDs", &v)) j->nstage_ids = clarity_read_int_array(c, v, &j->stage_ids);
    /* Stage Infos (1.2+) declare every stage of the job, including ones that will be skipped. */
    if (clarity_cj_get(ev, "Stage Infos", &v) && clarity_cj_array_begin(v, &it)) {
        int64_t best_id = INT64_MIN;
        struct clarity_picked p;
        while (clarity_cj_array_next(&it, &info)) {
            int64_t sid, att = 0;
            clarity_pick_stage_info(info, &p);
            if (!clarity_pk_int(&p, CLARITY_SI_ID, &sid)) continue;
            clarity_pk_int(&p, CLARITY_SI_ATTEMPT, &att);
            struct clarity_stage *st = clarity_stage_get_or_add(c, sid, att);
            if (!st) return;
            if (!st->seen_submitted && !st->seen_completed) clarity_read_stage_info_picked(c, &p, st);
            clarity_push_id_arena(c, &st->job_ids, &st->njob_ids, &st->cap_job_ids, id);
            /* saturated: a corrupt count must not overflow the sum */
            int64_t nt = clarity_pk_int_or(&p, CLARITY_SI_NTASKS, 0);
            if (__builtin_add_overflow(j->num_tasks_declared, nt, &j->num_tasks_declared))
                j->num_tasks_declared = nt < 0 ? INT64_MIN : INT64_MAX;
            /* SHS names a job after its last (highest id) stage */
            if (sid > best_id) {
                best_id = sid;
                j->name = st->name;
            }
        }
    }
    cj_val props;
    if (clarity_cj_get(ev, "Properties", &props) && clarity_cj_type(props) == CJ_OBJECT) {
        int64_t sql;
        cj_val sv;
        if (clarity_cj_get(props, "spark.sql.execution.id", &sv) && clarity_value_as_int(sv, &sql)) {
            j->sql_id = sql;
            struct clarity_sql *q = clarity_sql_get_or_add(c, sql);
            if (q) clarity_push_id_arena(c, &q->job_ids, &q->njob_ids, &q->cap_job_ids, id);
            clarity__sql_listen_job_start(c, sql, id, ev);
        }
        j->group = prop(c, props, "spark.jobGroup.id");
        j->description = prop(c, props, "spark.job.description");
        j->pool = prop(c, props, "spark.scheduler.pool");
        j->call_site = prop(c, props, "callSite.short");
        j->tags_text = prop(c, props, "spark.job.tags");
    }
}

void clarity_apply_job_end(struct apply_ctx *c, cj_val ev)
{
    int64_t id;
    if (!clarity_cj_get_int(ev, "Job ID", &id)) {
        clarity_problem(c, "SparkListenerJobEnd without \"Job ID\"");
        return;
    }
    struct clarity_job *j = clarity_job_get_or_add(c, id);
    if (!j) return;
    j->end_ms = clarity_get_int_or(ev, "Completion Time", 0);
    cj_val res;
    const char *s;
    size_t n;
    j->status = CLARITY_JOB_UNKNOWN;
    if (clarity_cj_get(ev, "Job Result", &res) && clarity_cj_get_str(res, "Result", &s, &n)) {
        if (n == 12 && memcmp(s, "JobSucceeded", 12) == 0) j->status = CLARITY_JOB_SUCCEEDED;
        else if (n == 9 && memcmp(s, "JobFailed", 9) == 0) {
            j->status = CLARITY_JOB_FAILED;
            cj_val ex;
            if (clarity_cj_get(res, "Exception", &ex)) j->failure = clarity_intern_key(c, ex, "Message");
        }
    }
    clarity__sql_listen_job_end(c, id);
}
