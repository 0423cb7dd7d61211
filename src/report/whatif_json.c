/* `clarity whatif --json`: schema clarity.whatif/1 (docs/whatif.md). Times in ms, bytes. */
#include "clarity/report.h"
#include "util/jsonw.h"

static void hardware(struct jsonw *w, const struct clarity_hw *h)
{
    jsonw_obj_begin(w);
    for (int f = 0; f < CLARITY_HW_NFIELDS; f++) {
        jsonw_key(w, clarity_hw_field_name((enum clarity_hw_field)f));
        jsonw_obj_begin(w);
        if (f == CLARITY_HW_INPUT_ON_DISK) jsonw_kbool(w, "value", h->v[f] > 0);
        else jsonw_kdouble(w, "value", h->v[f]);
        jsonw_kstr(w, "source", clarity_hw_source_name(h->src[f]));
        jsonw_obj_end(w);
    }
    jsonw_kdouble(w, "cores", clarity_hw_cores(h));
    jsonw_kint(w, "task_cpus", h->task_cpus);
    jsonw_obj_end(w);
}

static void ideal(struct jsonw *w, const double *v)
{
    jsonw_key(w, "ideal_ms");
    jsonw_obj_begin(w);
    for (int r = 0; r < CLARITY_WRES_COUNT; r++) jsonw_kdouble(w, clarity_wres_name(r), v[r]);
    jsonw_obj_end(w);
}

static void bottleneck(struct jsonw *w, int b)
{
    if (b >= 0) jsonw_kstr(w, "bottleneck", clarity_wres_name(b));
    else {
        jsonw_key(w, "bottleneck");
        jsonw_null(w);
    }
}

static void resources(struct jsonw *w, const struct clarity_app *a, const struct whatif_report *rep)
{
    const struct clarity_resource_result *r = rep->res;
    jsonw_key(w, "resource_model");
    jsonw_obj_begin(w);
    jsonw_kstr(w, "caveat", "monotask-style model over Spark logs: 20-30% typical error on Spark (thesis 5.6.6); "
                            "deserialization what-ifs unsupported");
    jsonw_kint(w, "actual_ms", r->actual_ms);
    jsonw_kint(w, "driver_ms", r->driver_ms);
    jsonw_kint(w, "tasks", (int64_t)r->tasks);
    jsonw_kint(w, "cpu_fallback_tasks", (int64_t)r->cpu_fallback_tasks);
    jsonw_kdouble(w, "cpu_ms", r->total.cpu_ms);
    jsonw_kdouble(w, "disk_bytes", r->total.disk_bytes);
    jsonw_kdouble(w, "network_bytes", r->total.net_bytes);
    jsonw_kdouble(w, "disk_mb_per_cpu_s", r->mb_per_cpu_s);
    jsonw_key(w, "stages");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nstages; i++) {
        const struct clarity_whatif_stage *s = &r->stages[i];
        const struct clarity_stage *st = &a->stages[s->row];
        jsonw_obj_begin(w);
        jsonw_kint(w, "stage_id", st->stage_id);
        jsonw_kint(w, "attempt", st->attempt);
        jsonw_key(w, "job_id");
        if (s->job >= 0) jsonw_int(w, a->jobs[s->job].job_id); else jsonw_null(w);
        jsonw_kint(w, "tasks", (int64_t)s->tasks);
        jsonw_kint(w, "cpu_fallback_tasks", (int64_t)s->cpu_fallback_tasks);
        jsonw_kdouble(w, "cpu_ms", s->use.cpu_ms);
        jsonw_kdouble(w, "disk_bytes", s->use.disk_bytes);
        jsonw_kdouble(w, "network_bytes", s->use.net_bytes);
        ideal(w, s->ideal.ms);
        jsonw_kdouble(w, "model_ms", s->ideal.model_ms);
        bottleneck(w, s->ideal.bottleneck);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "jobs");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->njobs; i++) {
        const struct clarity_whatif_job *j = &r->jobs[i];
        jsonw_obj_begin(w);
        jsonw_kint(w, "job_id", j->job_id);
        jsonw_kint(w, "stages", (int64_t)j->stages);
        jsonw_kint(w, "actual_ms", j->actual_ms);
        bottleneck(w, j->bottleneck);
        jsonw_key(w, "scenarios");
        jsonw_obj_begin(w);
        for (int k = 0; k < CLARITY_SCEN_COUNT; k++) {
            if (!r->scen[k].present) continue;
            jsonw_key(w, clarity_scenario_name(k));
            jsonw_obj_begin(w);
            jsonw_kdouble(w, "model_ms", j->model_ms[k]);
            jsonw_kdouble(w, "predicted_ms", j->predicted_ms[k]);
            jsonw_obj_end(w);
        }
        jsonw_obj_end(w);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "scenarios");
    jsonw_arr_begin(w);
    for (int k = 0; k < CLARITY_SCEN_COUNT; k++) {
        const struct clarity_whatif_scenario *s = &r->scen[k];
        if (!s->present) continue;
        jsonw_obj_begin(w);
        jsonw_kstr(w, "name", clarity_scenario_name(k));
        if (k == CLARITY_SCEN_WHATIF && rep->whatif_label) jsonw_kstr(w, "change", rep->whatif_label);
        jsonw_key(w, "infinitely_fast");
        if (s->infinite >= 0) jsonw_str(w, clarity_wres_name(s->infinite)); else jsonw_null(w);
        if (k == CLARITY_SCEN_WHATIF) {
            jsonw_key(w, "hardware");
            hardware(w, &s->hw);
        }
        jsonw_kdouble(w, "model_ms", s->model_ms);
        jsonw_kdouble(w, "predicted_ms", s->predicted_ms);
        if (k == CLARITY_SCEN_WHATIF && rep->slot_replay && rep->slot_replay->npoints) {
            jsonw_kint(w, "slot_replay_slots", rep->slot_replay->points[0].slots);
            jsonw_kdouble(w, "slot_replay_predicted_ms", rep->slot_replay->points[0].predicted_ms);
        }
        jsonw_key(w, "bottleneck_stages");
        jsonw_obj_begin(w);
        for (int q = 0; q < CLARITY_WRES_COUNT; q++) jsonw_kint(w, clarity_wres_name(q), (int64_t)s->bottleneck_stages[q]);
        jsonw_obj_end(w);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

static void curve(struct jsonw *w, const struct clarity_curve_result *c)
{
    jsonw_key(w, "curve");
    jsonw_obj_begin(w);
    jsonw_kstr(w, "slot_mode", c->mode == CLARITY_SLOTS_CONFIGURED ? "configured" : "observed");
    jsonw_kint(w, "tasks", (int64_t)c->tasks);
    jsonw_kint(w, "stage_groups", (int64_t)c->components);
    jsonw_kint(w, "dependencies_in_groups", (int64_t)c->internal_edges);
    jsonw_kint(w, "actual_ms", c->actual_ms);
    jsonw_kint(w, "driver_ms", c->driver_ms);
    jsonw_kdouble(w, "serial_ms", c->serial_ms);
    jsonw_kdouble(w, "critical_path_ms", c->critical_path_ms);
    jsonw_kdouble(w, "observed_replay_ms", c->observed_replay_ms);
    jsonw_kdouble(w, "replay_error", c->replay_error);
    jsonw_kdouble(w, "base_executors", c->base_executors);
    jsonw_kdouble(w, "base_cores", c->base_cores);
    jsonw_kbool(w, "cores_observed", c->cores_observed);
    jsonw_key(w, "points");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < c->npoints; i++) {
        const struct clarity_curve_point *p = &c->points[i];
        jsonw_obj_begin(w);
        if (p->ask.relative) jsonw_kdouble(w, "factor", p->ask.v);
        else {
            jsonw_key(w, "factor");
            jsonw_null(w);
        }
        jsonw_kdouble(w, "executors", p->executors);
        jsonw_kdouble(w, "cores", p->cores);
        jsonw_kint(w, "slots", p->slots);
        jsonw_kint(w, "group_slots_min", p->slots_min);
        jsonw_kint(w, "group_slots_max", p->slots_max);
        jsonw_kdouble(w, "replay_ms", p->replay_ms);
        jsonw_kdouble(w, "predicted_ms", p->predicted_ms);
        jsonw_kdouble(w, "calibrated_ms", p->calibrated_ms);
        jsonw_kdouble(w, "core_hours", p->core_hours);
        jsonw_kdouble(w, "efficiency", p->efficiency);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "knee");
    if (c->npoints) jsonw_int(w, (int64_t)c->knee); else jsonw_null(w);
    jsonw_key(w, "knee_replay");
    if (c->npoints) jsonw_int(w, (int64_t)c->knee_replay); else jsonw_null(w);
    jsonw_obj_end(w);
}

int report_whatif_json(struct jsonw *w, const struct clarity_app *a, const struct whatif_report *r,
                       struct clarity_error *err)
{
    jsonw_obj_begin(w);
    jsonw_kstr(w, "app_id", clarity_app_str(a, a->app_id));
    jsonw_kstr(w, "name", clarity_app_str(a, a->name));
    jsonw_kstr(w, "source", a->source_path ? a->source_path : "");
    jsonw_key(w, "hardware");
    hardware(w, r->base);
    if (r->res) resources(w, a, r);
    if (r->curve) curve(w, r->curve);
    jsonw_obj_end(w);
    return clarity_report_status(w->out, err);
}
