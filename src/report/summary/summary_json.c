/* clarity.summary/1: one object per application (documented in docs/summary-json.md). */
#include "util/checked.h"
#include "clarity/report.h"
#include "util/jsonw.h"

#define S(id) clarity_app_str(a, (id))

static void totals(struct jsonw *w, const struct clarity_totals *t)
{
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "tasks", t->tasks);
    clarity_jsonw_kint(w, "succeeded", t->succeeded);
    clarity_jsonw_kint(w, "failed", t->failed);
    clarity_jsonw_kint(w, "killed", t->killed);
    clarity_jsonw_kint(w, "without_end", t->running);
    clarity_jsonw_kint(w, "speculative", t->speculative);
    clarity_jsonw_kint(w, "task_ms", t->task_ms);
    clarity_jsonw_kint(w, "run_ms", t->run_ms);
    if (t->cpu_logged) clarity_jsonw_kint(w, "cpu_ns", t->cpu_ns);
    else {
        clarity_jsonw_key(w, "cpu_ns");
        clarity_jsonw_null(w);
    }
    clarity_jsonw_kint(w, "gc_ms", t->gc_ms);
    clarity_jsonw_kint(w, "deserialize_ms", t->deser_ms);
    clarity_jsonw_kint(w, "input_bytes", t->input_bytes);
    clarity_jsonw_kint(w, "output_bytes", t->output_bytes);
    clarity_jsonw_kint(w, "shuffle_read_bytes", t->shuffle_read_bytes);
    clarity_jsonw_kint(w, "shuffle_remote_read_bytes", t->shuffle_remote_bytes);
    clarity_jsonw_kint(w, "shuffle_write_bytes", t->shuffle_write_bytes);
    clarity_jsonw_kint(w, "fetch_wait_ms", t->fetch_wait_ms);
    clarity_jsonw_kint(w, "shuffle_write_ns", t->shuffle_write_ns);
    clarity_jsonw_kint(w, "memory_spilled_bytes", t->mem_spilled);
    clarity_jsonw_kint(w, "disk_spilled_bytes", t->disk_spilled);
    clarity_jsonw_obj_end(w);
}

static void kint_or_null(struct jsonw *w, const char *k, int64_t v, bool known)
{
    clarity_jsonw_key(w, k);
    if (known) clarity_jsonw_int(w, v);
    else clarity_jsonw_null(w);
}

static void ids(struct jsonw *w, const char *k, const int64_t *p, size_t n)
{
    clarity_jsonw_key(w, k);
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++) clarity_jsonw_int(w, p[i]);
    clarity_jsonw_arr_end(w);
}

static const char *job_status(int s)
{
    static const char *n[] = {"RUNNING", "SUCCEEDED", "FAILED", "UNKNOWN"};
    return (unsigned)s <= CLARITY_JOB_UNKNOWN ? n[s] : "UNKNOWN";
}

static void schemes(struct jsonw *w, const char *key, const uint32_t *c)
{
    clarity_jsonw_key(w, key);
    clarity_jsonw_obj_begin(w);
    for (int s = 0; s < CLARITY_SCHEME_COUNT; s++)
        if (c[s]) clarity_jsonw_kint(w, clarity_scheme_name(s), c[s]);
    clarity_jsonw_obj_end(w);
}

/* "platform": what the log says about where the application ran and where its data lived
 * (docs/platforms.md); "" and null where the log does not say */
static void platform(struct jsonw *w, const struct clarity_app *a)
{
    const struct clarity_platform *p = &a->platform;
    char b[160];
    clarity_jsonw_key(w, "platform");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "text", clarity_report_platform(a, b, sizeof b));
    clarity_jsonw_kstr(w, "vendor", clarity_vendor_name(p->vendor));
    clarity_jsonw_kstr(w, "runtime", p->runtime);
    clarity_jsonw_kbool(w, "photon", p->photon);
    clarity_jsonw_kstr(w, "cluster_manager", p->manager == CLARITY_CM_UNKNOWN ? "" : clarity_cluster_manager_name(p->manager));
    clarity_jsonw_kstr(w, "arch", p->arch);
    clarity_jsonw_kstr(w, "cloud", p->cloud);
    clarity_jsonw_kstr(w, "evidence", p->evidence);
    clarity_jsonw_kstr(w, "manager_evidence", p->manager_evidence);
    clarity_jsonw_kstr(w, "default_fs", p->default_fs >= 0 ? clarity_scheme_name(p->default_fs) : "");
    clarity_jsonw_kstr(w, "input_store", clarity_store_name(p->input_store));
    schemes(w, "input_paths", p->input);
    clarity_jsonw_kstr(w, "output_store", clarity_store_name(p->output_store));
    schemes(w, "output_paths", p->output);
    clarity_jsonw_key(w, "photon_metrics");
    if (!p->photon) clarity_jsonw_null(w);
    else {
        clarity_jsonw_obj_begin(w);
        for (int m = 0; m < CLARITY_PH_COUNT; m++)
            kint_or_null(w, clarity_photon_metric_name(m), p->photon_v[m], p->photon_has[m]);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_obj_end(w);
}

int clarity_report_summary_json(struct jsonw *w, const struct clarity_app *a, struct clarity_error *err)
{
    struct clarity_app_totals t;
    if (clarity_totals_compute(a, &t) != 0)
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory computing totals");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "source", a->source_path);
    clarity_jsonw_kstr(w, "app_id", S(a->app_id));
    clarity_jsonw_kstr(w, "attempt_id", S(a->attempt_id));
    clarity_jsonw_kstr(w, "name", S(a->name));
    clarity_jsonw_kstr(w, "user", S(a->user));
    clarity_jsonw_kstr(w, "spark_version", S(a->spark_version));
    kint_or_null(w, "start_ms", a->start_ms, a->start_ms != 0);
    kint_or_null(w, "end_ms", a->end_ms, a->end_ms != 0);
    int64_t dur = clarity_app_duration_ms(a);
    kint_or_null(w, "duration_ms", dur, dur >= 0);
    clarity_jsonw_kbool(w, "duration_to_last_event", !a->end_ms);
    platform(w, a);
    clarity_jsonw_key(w, "totals");
    totals(w, &t.app);
    clarity_jsonw_key(w, "model");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "task_attempts", (int64_t)a->tasks.n);
    size_t tb = clarity_app_task_bytes(a);
    clarity_jsonw_kint(w, "task_table_bytes", (int64_t)tb);
    clarity_jsonw_kdouble(w, "bytes_per_task", a->tasks.n ? (double)tb / (double)a->tasks.n : 0.0);
    clarity_jsonw_kint(w, "accumulables", (int64_t)(a->task_accums.n + a->stage_accums.n));
    clarity_jsonw_kint(w, "accumulable_bytes", (int64_t)clarity_app_accumulable_bytes(a));
    clarity_jsonw_obj_end(w);

    clarity_jsonw_key(w, "executors");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < a->nexecs; i++) {
        const struct clarity_executor *e = &a->execs[i];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "id", S(e->id));
        clarity_jsonw_kstr(w, "host", S(e->host));
        clarity_jsonw_kint(w, "cores", e->total_cores);
        kint_or_null(w, "add_ms", e->add_ms, e->add_ms != 0);
        kint_or_null(w, "remove_ms", e->remove_ms, e->remove_ms != 0);
        clarity_jsonw_kstr(w, "remove_reason", S(e->remove_reason));
        kint_or_null(w, "max_memory_bytes", e->max_memory, e->max_memory >= 0);
        clarity_jsonw_kbool(w, "driver", e->is_driver);
        clarity_jsonw_kbool(w, "excluded", e->excluded);
        clarity_jsonw_key(w, "totals");
        totals(w, &t.exec[i]);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);

    clarity_jsonw_key(w, "jobs");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < a->njobs; i++) {
        const struct clarity_job *j = &a->jobs[i];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "job_id", j->job_id);
        clarity_jsonw_kstr(w, "name", S(j->name));
        clarity_jsonw_kstr(w, "status", job_status(j->status));
        kint_or_null(w, "submit_ms", j->submit_ms, j->submit_ms != 0);
        kint_or_null(w, "end_ms", j->end_ms, j->end_ms != 0);
        int64_t jd = clarity_job_duration_ms(a, j);
        kint_or_null(w, "duration_ms", jd, jd >= 0);
        ids(w, "stage_ids", j->stage_ids, j->nstage_ids);
        kint_or_null(w, "sql_id", j->sql_id, j->sql_id >= 0);
        clarity_jsonw_kstr(w, "job_group", S(j->group));
        clarity_jsonw_kstr(w, "description", S(j->description));
        clarity_jsonw_kstr(w, "pool", S(j->pool));
        clarity_jsonw_kstr(w, "failure", S(j->failure));
        clarity_jsonw_key(w, "totals");
        totals(w, &t.job[i]);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);

    clarity_jsonw_key(w, "stages");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < a->nstages; i++) {
        const struct clarity_stage *s = &a->stages[i];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "stage_id", s->stage_id);
        clarity_jsonw_kint(w, "attempt", s->attempt);
        clarity_jsonw_kstr(w, "name", S(s->name));
        clarity_jsonw_kstr(w, "status", clarity_stage_status_name(s->status));
        clarity_jsonw_kint(w, "num_tasks", s->num_tasks);
        kint_or_null(w, "submit_ms", s->submit_ms, s->submit_ms != 0);
        kint_or_null(w, "complete_ms", s->complete_ms, s->complete_ms != 0);
        int64_t sd = clarity_stage_duration_ms(a, s);
        kint_or_null(w, "duration_ms", sd, sd >= 0);
        ids(w, "parent_ids", s->parents, s->nparents);
        ids(w, "job_ids", s->job_ids, s->njob_ids);
        clarity_jsonw_kstr(w, "failure", S(s->failure));
        clarity_jsonw_key(w, "totals");
        totals(w, &t.stage[i]);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);

    clarity_jsonw_key(w, "sql");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < a->nsqls; i++) {
        const struct clarity_sql *q = &a->sqls[i];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "sql_id", q->id);
        clarity_jsonw_kint(w, "root_id", q->root_id);
        clarity_jsonw_kstr(w, "description", S(q->description));
        kint_or_null(w, "start_ms", q->start_ms, q->start_ms != 0);
        kint_or_null(w, "end_ms", q->end_ms, q->end_ms != 0);
        kint_or_null(w, "duration_ms", clarity_sat_sub(q->end_ms, q->start_ms), q->start_ms && q->end_ms);
        clarity_jsonw_kstr(w, "error", S(q->error));
        ids(w, "job_ids", q->job_ids, q->njob_ids);
        clarity_jsonw_key(w, "totals");
        totals(w, &t.sql[i]);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);

    int rc = clarity_report_failures_json(w, a, err);
    clarity_jsonw_key(w, "integrity");
    if (!rc) rc = clarity_report_integrity_json(w, a, err);
    clarity_jsonw_obj_end(w);
    clarity_totals_free(&t);
    return rc ? rc : clarity_report_status(w->out, err);
}
