/* `clarity findings --json`: one application object of the clarity.findings/1 schema
 * (docs/findings.md). */
#include "clarity/report.h"
#include "report/findings_json.h"
#include "util/jsonw.h"

static void where(struct jsonw *w, const struct clarity_finding *f)
{
    clarity_jsonw_key(w, "where");
    clarity_jsonw_obj_begin(w);
    if (f->where & CLARITY_FW_JOB) clarity_jsonw_kint(w, "job", f->job);
    if (f->where & CLARITY_FW_SQL) clarity_jsonw_kint(w, "sql", f->sql);
    if (f->where & CLARITY_FW_STAGE) clarity_jsonw_kint(w, "stage", f->stage);
    if (f->where & CLARITY_FW_STAGE_ATTEMPT) clarity_jsonw_kint(w, "stage_attempt", f->stage_attempt);
    if (f->where & CLARITY_FW_EXECUTOR) clarity_jsonw_kstr(w, "executor", f->executor);
    if (f->where & CLARITY_FW_HOST) clarity_jsonw_kstr(w, "host", f->host);
    clarity_jsonw_obj_end(w);
}

/* A finding's evidence, saving, method, confidence, caveat and action: the members every finding
 * object of clarity.findings/1 ends with (an application's and one across applications). */
void clarity__report_finding_tail(struct jsonw *w, const struct clarity_finding *f)
{
    clarity_jsonw_key(w, "evidence");
    clarity_jsonw_obj_begin(w);
    for (size_t k = 0; k < f->nev; k++) clarity_jsonw_kdouble(w, f->ev[k].name, f->ev[k].value);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_kint(w, "saving_ms", f->saving_ms);
    if (f->saving_core_ms >= 0) clarity_jsonw_kint(w, "saving_core_ms", f->saving_core_ms);
    clarity_jsonw_kstr(w, "method", clarity_finding_method_name(f->method));
    clarity_jsonw_kstr(w, "confidence", clarity_finding_confidence_name(f->confidence));
    if (f->caveat[0]) clarity_jsonw_kstr(w, "caveat", f->caveat);
    clarity_jsonw_key(w, "action");
    clarity_jsonw_obj_begin(w);
    if (f->setting[0]) {
        clarity_jsonw_kstr(w, "setting", f->setting);
        clarity_jsonw_kstr(w, "current", f->current);
        clarity_jsonw_kstr(w, "proposed", f->proposed);
    }
    clarity_jsonw_kstr(w, "text", f->action);
    clarity_jsonw_obj_end(w);
}

int clarity_report_findings_json(struct jsonw *w, const struct clarity_app *a, const struct clarity_findings *r,
                                 struct clarity_error *err)
{
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "app_id", clarity_app_str(a, a->app_id));
    if (a->attempt_id) clarity_jsonw_kstr(w, "attempt_id", clarity_app_str(a, a->attempt_id));
    clarity_jsonw_kstr(w, "name", clarity_app_str(a, a->name));
    clarity_jsonw_kstr(w, "source", a->source_path ? a->source_path : "");
    clarity_jsonw_kint(w, "duration_ms", r->duration_ms);
    clarity_jsonw_kint(w, "driver_ms", r->driver_ms);
    clarity_jsonw_kint(w, "core_ms_allocated", r->core_ms_allocated);
    clarity_jsonw_kint(w, "task_ms", r->task_ms);
    clarity_jsonw_kint(w, "tasks", (int64_t)r->tasks);
    clarity_jsonw_kint(w, "rule_hits", (int64_t)r->candidates);
    clarity_jsonw_key(w, "findings");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < r->n; i++) {
        const struct clarity_finding *f = &r->f[i];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "rank", (int64_t)i + 1);
        clarity_jsonw_kstr(w, "kind", clarity_finding_kind_name(f->kind));
        clarity_jsonw_kstr(w, "title", f->title);
        where(w, f);
        clarity__report_finding_tail(w, f);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
    return clarity_report_status(w->out, err);
}
