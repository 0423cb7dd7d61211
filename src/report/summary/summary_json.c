/* clarity.summary/1: one object per application (documented in docs/summary-json.md). */
#include "util/checked.h"
#include "clarity/report.h"
#include "util/jsonw.h"

#define S(id) clarity_app_str(a, (id))
/* Every key here is a literal with nothing to escape: written without the check (a summary
 * of 10^6 jobs writes about 10^8 keys). */
#define KINT(k, v) JSONW_KINT_LIT(w, k, (v))
#define KSTR(k, v) (JSONW_KEY_LIT(w, k), clarity_jsonw_str(w, (v)))
#define KBOOL(k, v) (JSONW_KEY_LIT(w, k), clarity_jsonw_bool(w, (v)))
#define KINT_OR_NULL(k, v, known) kint_or_null(w, "" k, sizeof(k) - 1, (v), (known))
#define IDS(k, p, n) ids(w, "" k, sizeof(k) - 1, (p), (n))

static void totals(struct jsonw *w, const struct clarity_totals *t)
{
    clarity_jsonw_obj_begin(w);
    KINT("tasks", t->tasks);
    KINT("succeeded", t->succeeded);
    KINT("failed", t->failed);
    KINT("killed", t->killed);
    KINT("without_end", t->running);
    KINT("speculative", t->speculative);
    KINT("task_ms", t->task_ms);
    KINT("run_ms", t->run_ms);
    if (t->cpu_logged) KINT("cpu_ns", t->cpu_ns);
    else {
        JSONW_KEY_LIT(w, "cpu_ns");
        clarity_jsonw_null(w);
    }
    KINT("gc_ms", t->gc_ms);
    KINT("deserialize_ms", t->deser_ms);
    KINT("input_bytes", t->input_bytes);
    KINT("output_bytes", t->output_bytes);
    KINT("shuffle_read_bytes", t->shuffle_read_bytes);
    KINT("shuffle_remote_read_bytes", t->shuffle_remote_bytes);
    KINT("shuffle_write_bytes", t->shuffle_write_bytes);
    KINT("fetch_wait_ms", t->fetch_wait_ms);
    KINT("shuffle_write_ns", t->shuffle_write_ns);
    KINT("memory_spilled_bytes", t->mem_spilled);
    KINT("disk_spilled_bytes", t->disk_spilled);
    clarity_jsonw_obj_end(w);
}

static void kint_or_null(struct jsonw *w, const char *k, size_t kn, int64_t v, bool known)
{
    if (known) {
        clarity_jsonw_kint_lit(w, k, kn, v);
        return;
    }
    clarity_jsonw_key_lit(w, k, kn);
    clarity_jsonw_null(w);
}

static void ids(struct jsonw *w, const char *k, size_t kn, const int64_t *p, size_t n)
{
    clarity_jsonw_key_lit(w, k, kn);
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
    JSONW_KEY_LIT(w, "platform");
    clarity_jsonw_obj_begin(w);
    KSTR("text", clarity_report_platform(a, b, sizeof b));
    KSTR("vendor", clarity_vendor_name(p->vendor));
    KSTR("runtime", p->runtime);
    KBOOL("photon", p->photon);
    KSTR("cluster_manager", p->manager == CLARITY_CM_UNKNOWN ? "" : clarity_cluster_manager_name(p->manager));
    KSTR("arch", p->arch);
    KSTR("cloud", p->cloud);
    KSTR("evidence", p->evidence);
    KSTR("manager_evidence", p->manager_evidence);
    KSTR("default_fs", p->default_fs >= 0 ? clarity_scheme_name(p->default_fs) : "");
    KSTR("input_store", clarity_store_name(p->input_store));
    schemes(w, "input_paths", p->input);
    KSTR("output_store", clarity_store_name(p->output_store));
    schemes(w, "output_paths", p->output);
    JSONW_KEY_LIT(w, "photon_metrics");
    if (!p->photon) clarity_jsonw_null(w);
    else {
        clarity_jsonw_obj_begin(w);
        for (int m = 0; m < CLARITY_PH_COUNT; m++)
        {
            clarity_jsonw_key(w, clarity_photon_metric_name(m));   /* names from a table, escaped as any */
            if (p->photon_has[m]) clarity_jsonw_int(w, p->photon_v[m]);
            else clarity_jsonw_null(w);
        }
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_obj_end(w);
}

int clarity_report_summary_json(struct jsonw *w, const struct clarity_app *a, struct clarity_error *err)
{
    struct clarity_app_totals t;   /* job and query totals summed as each is written */
    if (clarity_totals_compute_lean(a, &t) != 0)
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory computing totals");
    clarity_jsonw_obj_begin(w);
    KSTR("source", a->source_path);
    KSTR("app_id", S(a->app_id));
    KSTR("attempt_id", S(a->attempt_id));
    KSTR("name", S(a->name));
    KSTR("user", S(a->user));
    KSTR("spark_version", S(a->spark_version));
    KINT_OR_NULL("start_ms", a->start_ms, a->start_ms != 0);
    KINT_OR_NULL("end_ms", a->end_ms, a->end_ms != 0);
    int64_t dur = clarity_app_duration_ms(a);
    KINT_OR_NULL("duration_ms", dur, dur >= 0);
    KBOOL("duration_to_last_event", !a->end_ms);
    platform(w, a);
    JSONW_KEY_LIT(w, "totals");
    totals(w, &t.app);
    JSONW_KEY_LIT(w, "model");
    clarity_jsonw_obj_begin(w);
    KINT("task_attempts", (int64_t)a->tasks.n);
    size_t tb = clarity_app_task_bytes(a);
    KINT("task_table_bytes", (int64_t)tb);
    clarity_jsonw_kdouble(w, "bytes_per_task", a->tasks.n ? (double)tb / (double)a->tasks.n : 0.0);
    KINT("accumulables", (int64_t)(a->task_accums.n + a->stage_accums.n));
    KINT("accumulable_bytes", (int64_t)clarity_app_accumulable_bytes(a));
    clarity_jsonw_obj_end(w);

    JSONW_KEY_LIT(w, "executors");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < a->nexecs; i++) {
        const struct clarity_executor *e = &a->execs[i];
        clarity_jsonw_obj_begin(w);
        KSTR("id", S(e->id));
        KSTR("host", S(e->host));
        KINT("cores", e->total_cores);
        KINT_OR_NULL("add_ms", e->add_ms, e->add_ms != 0);
        KINT_OR_NULL("remove_ms", e->remove_ms, e->remove_ms != 0);
        KSTR("remove_reason", S(e->remove_reason));
        KINT_OR_NULL("max_memory_bytes", e->max_memory, e->max_memory >= 0);
        KBOOL("driver", e->is_driver);
        KBOOL("excluded", e->excluded);
        JSONW_KEY_LIT(w, "totals");
        totals(w, &t.exec[i]);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);

    JSONW_KEY_LIT(w, "jobs");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < a->njobs; i++) {
        const struct clarity_job *j = &a->jobs[i];
        clarity_jsonw_obj_begin(w);
        KINT("job_id", j->job_id);
        KSTR("name", S(j->name));
        KSTR("status", job_status(j->status));
        KINT_OR_NULL("submit_ms", j->submit_ms, j->submit_ms != 0);
        KINT_OR_NULL("end_ms", j->end_ms, j->end_ms != 0);
        int64_t jd = clarity_job_duration_ms(a, j);
        KINT_OR_NULL("duration_ms", jd, jd >= 0);
        IDS("stage_ids", j->stage_ids, j->nstage_ids);
        KINT_OR_NULL("sql_id", j->sql_id, j->sql_id >= 0);
        KSTR("job_group", S(j->group));
        KSTR("description", S(j->description));
        KSTR("pool", S(j->pool));
        KSTR("failure", S(j->failure));
        struct clarity_totals jt;
        clarity_totals_job(&t, i, &jt);
        JSONW_KEY_LIT(w, "totals");
        totals(w, &jt);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);

    JSONW_KEY_LIT(w, "stages");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < a->nstages; i++) {
        const struct clarity_stage *s = &a->stages[i];
        clarity_jsonw_obj_begin(w);
        KINT("stage_id", s->stage_id);
        KINT("attempt", s->attempt);
        KSTR("name", S(s->name));
        KSTR("status", clarity_stage_status_name(s->status));
        KINT("num_tasks", s->num_tasks);
        KINT_OR_NULL("submit_ms", s->submit_ms, s->submit_ms != 0);
        KINT_OR_NULL("complete_ms", s->complete_ms, s->complete_ms != 0);
        int64_t sd = clarity_stage_duration_ms(a, s);
        KINT_OR_NULL("duration_ms", sd, sd >= 0);
        IDS("parent_ids", s->parents, s->nparents);
        IDS("job_ids", s->job_ids, s->njob_ids);
        KSTR("failure", S(s->failure));
        struct clarity_totals st;
        clarity_totals_stage(&t, i, &st);
        JSONW_KEY_LIT(w, "totals");
        totals(w, &st);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);

    JSONW_KEY_LIT(w, "sql");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < a->nsqls; i++) {
        const struct clarity_sql *q = &a->sqls[i];
        clarity_jsonw_obj_begin(w);
        KINT("sql_id", q->id);
        KINT("root_id", q->root_id);
        KSTR("description", S(q->description));
        KINT_OR_NULL("start_ms", q->start_ms, q->start_ms != 0);
        KINT_OR_NULL("end_ms", q->end_ms, q->end_ms != 0);
        KINT_OR_NULL("duration_ms", clarity_sat_sub(q->end_ms, q->start_ms), q->start_ms && q->end_ms);
        KSTR("error", S(q->error));
        IDS("job_ids", q->job_ids, q->njob_ids);
        struct clarity_totals qt;
        clarity_totals_sql(&t, i, &qt);
        JSONW_KEY_LIT(w, "totals");
        totals(w, &qt);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);

    int rc = clarity_report_failures_json(w, a, err);
    JSONW_KEY_LIT(w, "integrity");
    if (!rc) rc = clarity_report_integrity_json(w, a, err);
    clarity_jsonw_obj_end(w);
    clarity_totals_free(&t);
    return rc ? rc : clarity_report_status(w->out, err);
}
