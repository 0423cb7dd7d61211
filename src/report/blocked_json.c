/* `clarity blocked --json`: one application object of the clarity.blocked/1 schema
 * (docs/blocked-json.md). */
#include "clarity/report.h"
#include "util/jsonw.h"

static void without(struct jsonw *w, const struct clarity_blocked_result *r, const struct clarity_blocked_without *x,
                    enum clarity_resource res)
{
    jsonw_key(w, clarity_resource_name(res));
    jsonw_obj_begin(w);
    jsonw_kbool(w, "available", x->available);
    if (x->available) {
        jsonw_kdouble(w, "simulated_ms", x->simulated_ms);
        jsonw_kdouble(w, "improvement", x->improvement);
        jsonw_kdouble(w, "blocked_ms", x->blocked_ms);
    } else {
        jsonw_key(w, "simulated_ms"); jsonw_null(w);
        jsonw_key(w, "improvement"); jsonw_null(w);
        jsonw_key(w, "blocked_ms"); jsonw_null(w);
    }
    jsonw_kstr(w, "note", blocked_resource_note(r, res));
    jsonw_obj_end(w);
}

int report_blocked_json(struct jsonw *w, const struct clarity_app *a, const struct clarity_blocked_result *r,
                        struct clarity_error *err)
{
    const struct clarity_task_comps *c = &r->comps;
    char v[512];
    jsonw_obj_begin(w);
    jsonw_kstr(w, "app_id", clarity_app_str(a, a->app_id));
    jsonw_kstr(w, "name", clarity_app_str(a, a->name));
    jsonw_kstr(w, "source", a->source_path ? a->source_path : "");
    jsonw_kstr(w, "slots", r->slots == CLARITY_SLOTS_CONFIGURED ? "configured" : "observed");
    jsonw_key(w, "attempts");
    jsonw_obj_begin(w);
    jsonw_kint(w, "replayed", (int64_t)c->n);
    jsonw_kint(w, "failed", (int64_t)c->failed);
    jsonw_kint(w, "killed", (int64_t)c->killed);
    jsonw_kint(w, "without_end", (int64_t)c->without_end);
    jsonw_kint(w, "other", (int64_t)c->other_end);
    jsonw_kint(w, "speculative_replayed", (int64_t)c->speculative);
    jsonw_kint(w, "with_cpu_time", (int64_t)c->cpu_logged);
    jsonw_kint(w, "clamped", (int64_t)c->clamped);
    jsonw_obj_end(w);
    jsonw_key(w, "groups");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->ngroups; i++) {
        const struct clarity_blocked_group *g = &r->groups[i];
        jsonw_obj_begin(w);
        jsonw_kstr(w, "kind", clarity_group_kind_name(g->kind));
        if (g->kind == CLARITY_GROUP_APP) { jsonw_key(w, "id"); jsonw_null(w); }
        else jsonw_kint(w, "id", g->id);
        jsonw_kstr(w, "name", blocked_group_name(a, g->kind, g->row));
        jsonw_kint(w, "tasks", (int64_t)g->tasks);
        jsonw_kint(w, "stages", (int64_t)g->stages);
        jsonw_kint(w, "components", (int64_t)g->components);
        jsonw_kint(w, "pooled_stages", (int64_t)g->pooled_stages);
        if (g->tasks) {
            jsonw_kint(w, "slots_min", g->slots_min);
            jsonw_kint(w, "slots_max", g->slots_max);
        } else {
            jsonw_key(w, "slots_min"); jsonw_null(w);
            jsonw_key(w, "slots_max"); jsonw_null(w);
        }
        jsonw_kint(w, "slots_fallback", (int64_t)g->slots_fallback);
        jsonw_kint(w, "actual_ms", g->actual_ms);
        jsonw_kint(w, "idle_ms", g->idle_ms);
        jsonw_kdouble(w, "simulated_ms", g->simulated_ms);
        if (g->has_error) jsonw_kdouble(w, "replay_error", g->replay_error);
        else { jsonw_key(w, "replay_error"); jsonw_null(w); }
        jsonw_kdouble(w, "task_ms", g->task_ms);
        jsonw_key(w, "without");
        jsonw_obj_begin(w);
        for (int k = 0; k < CLARITY_RES_COUNT; k++) without(w, r, &g->without[k], (enum clarity_resource)k);
        jsonw_obj_end(w);
        blocked_verdict(g, v, sizeof v);
        jsonw_kstr(w, "verdict", v);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "not_in_standard_logs");
    jsonw_arr_begin(w);
    jsonw_str(w, "input_read_ms");
    jsonw_str(w, "output_write_ms");
    jsonw_str(w, "local_shuffle_read_ms");
    jsonw_arr_end(w);
    jsonw_obj_end(w);
    return clarity_report_status(w->out, err);
}
