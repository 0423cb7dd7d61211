/* `clarity blocked --json`: one application object of the clarity.blocked/1 schema
 * (docs/blocked-json.md). */
#include "clarity/report.h"
#include "report/group_json.h"
#include "util/jsonw.h"

static void without(struct jsonw *w, const struct clarity_blocked_result *r, const struct clarity_blocked_without *x,
                    enum clarity_resource res)
{
    clarity_jsonw_key(w, clarity_resource_name(res));
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kbool(w, "available", x->available);
    if (x->available) {
        clarity_jsonw_kdouble(w, "simulated_ms", x->simulated_ms);
        clarity_jsonw_kdouble(w, "improvement", x->improvement);
        clarity_jsonw_kdouble(w, "blocked_ms", x->blocked_ms);
    } else {
        clarity_jsonw_key(w, "simulated_ms"); clarity_jsonw_null(w);
        clarity_jsonw_key(w, "improvement"); clarity_jsonw_null(w);
        clarity_jsonw_key(w, "blocked_ms"); clarity_jsonw_null(w);
    }
    clarity_jsonw_kstr(w, "note", clarity_blocked_resource_note(r, res));
    clarity_jsonw_obj_end(w);
}

void clarity_report_blocked_json_begin(struct jsonw *w, const struct clarity_app *a, const struct clarity_blocked_result *r)
{
    const struct clarity_task_counts *c = &r->counts;
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "app_id", clarity_app_str(a, a->app_id));
    clarity_jsonw_kstr(w, "name", clarity_app_str(a, a->name));
    clarity_jsonw_kstr(w, "source", a->source_path ? a->source_path : "");
    clarity_jsonw_kstr(w, "slots", r->slots == CLARITY_SLOTS_CONFIGURED ? "configured" : "observed");
    clarity_jsonw_key(w, "attempts");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "replayed", (int64_t)c->n);
    clarity_jsonw_kint(w, "failed", (int64_t)c->failed);
    clarity_jsonw_kint(w, "killed", (int64_t)c->killed);
    clarity_jsonw_kint(w, "without_end", (int64_t)c->without_end);
    clarity_jsonw_kint(w, "other", (int64_t)c->other_end);
    clarity_jsonw_kint(w, "speculative_replayed", (int64_t)c->speculative);
    clarity_jsonw_kint(w, "with_cpu_time", (int64_t)r->cpu_logged);
    clarity_jsonw_kint(w, "clamped", (int64_t)r->clamped);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "groups");
    clarity_jsonw_arr_begin(w);
}

void clarity_report_blocked_json_group(struct jsonw *w, const struct clarity_app *a, const struct clarity_blocked_result *r,
                                       const struct clarity_blocked_group *g)
{
    char v[512];
    clarity_jsonw_obj_begin(w);
    clarity__report_group_json(w, a, g->kind, g->id, g->row);
    clarity_jsonw_kint(w, "tasks", (int64_t)g->tasks);
    clarity_jsonw_kint(w, "stages", (int64_t)g->stages);
    clarity_jsonw_kint(w, "components", (int64_t)g->components);
    clarity_jsonw_kint(w, "pooled_stages", (int64_t)g->pooled_stages);
    if (g->tasks) {
        clarity_jsonw_kint(w, "slots_min", g->slots_min);
        clarity_jsonw_kint(w, "slots_max", g->slots_max);
    } else {
        clarity_jsonw_key(w, "slots_min"); clarity_jsonw_null(w);
        clarity_jsonw_key(w, "slots_max"); clarity_jsonw_null(w);
    }
    clarity_jsonw_kint(w, "slots_fallback", (int64_t)g->slots_fallback);
    clarity_jsonw_kint(w, "actual_ms", g->actual_ms);
    clarity_jsonw_kint(w, "idle_ms", g->idle_ms);
    clarity_jsonw_kdouble(w, "simulated_ms", g->simulated_ms);
    if (g->has_error) clarity_jsonw_kdouble(w, "replay_error", g->replay_error);
    else { clarity_jsonw_key(w, "replay_error"); clarity_jsonw_null(w); }
    clarity_jsonw_kdouble(w, "task_ms", g->task_ms);
    clarity_jsonw_key(w, "without");
    clarity_jsonw_obj_begin(w);
    for (int k = 0; k < CLARITY_RES_COUNT; k++) without(w, r, &g->without[k], (enum clarity_resource)k);
    clarity_jsonw_obj_end(w);
    clarity_blocked_verdict(g, v, sizeof v);
    clarity_jsonw_kstr(w, "verdict", v);
    clarity_jsonw_obj_end(w);
}

int clarity_report_blocked_json_end(struct jsonw *w, struct clarity_error *err)
{
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "not_in_standard_logs");
    clarity_jsonw_arr_begin(w);
    clarity_jsonw_str(w, "input_read_ms");
    clarity_jsonw_str(w, "output_write_ms");
    clarity_jsonw_str(w, "local_shuffle_read_ms");
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
    return clarity_report_status(w->out, err);
}

int clarity_report_blocked_json(struct jsonw *w, const struct clarity_app *a, const struct clarity_blocked_result *r,
                        struct clarity_error *err)
{
    clarity_report_blocked_json_begin(w, a, r);
    for (size_t i = 0; i < r->ngroups; i++) clarity_report_blocked_json_group(w, a, r, &r->groups[i]);
    return clarity_report_blocked_json_end(w, err);
}
