/* `clarity whatif --json`: schema clarity.whatif/1 (docs/whatif.md). Times in ms, bytes. */
#include "clarity/report.h"
#include "util/jsonw.h"

static void hardware(struct jsonw *w, const struct clarity_hw *h)
{
    clarity_jsonw_obj_begin(w);
    for (int f = 0; f < CLARITY_HW_NFIELDS; f++) {
        clarity_jsonw_key(w, clarity_hw_field_name((enum clarity_hw_field)f));
        clarity_jsonw_obj_begin(w);
        if (f == CLARITY_HW_INPUT_ON_DISK) clarity_jsonw_kbool(w, "value", h->v[f] > 0);
        else clarity_jsonw_kdouble(w, "value", h->v[f]);
        clarity_jsonw_kstr(w, "source", clarity_hw_source_name(h->src[f]));
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_kdouble(w, "cores", clarity_hw_cores(h));
    clarity_jsonw_kint(w, "task_cpus", h->task_cpus);
    /* where input came from and output went: "object_store" (over the network), "disk" (the
     * hosts' disks) or, for input, "none" (not read from disk, no object store named) */
    clarity_jsonw_kstr(w, "input_store", h->v[CLARITY_HW_INPUT_ON_DISK] > 0 ? "disk"
                                         : h->input_remote ? "object_store" : "none");
    clarity_jsonw_kstr(w, "input_scheme", h->input_remote ? h->input_scheme : "");
    clarity_jsonw_kstr(w, "output_store", h->output_remote ? "object_store" : "disk");
    clarity_jsonw_kstr(w, "output_scheme", h->output_remote ? h->output_scheme : "");
    clarity_jsonw_obj_end(w);
}

static void ideal(struct jsonw *w, const double *v)
{
    clarity_jsonw_key(w, "ideal_ms");
    clarity_jsonw_obj_begin(w);
    for (int r = 0; r < CLARITY_WRES_COUNT; r++) clarity_jsonw_kdouble(w, clarity_wres_name(r), v[r]);
    clarity_jsonw_obj_end(w);
}

static void bottleneck(struct jsonw *w, int b)
{
    if (b >= 0) clarity_jsonw_kstr(w, "bottleneck", clarity_wres_name(b));
    else {
        clarity_jsonw_key(w, "bottleneck");
        clarity_jsonw_null(w);
    }
}

static void resources(struct jsonw *w, const struct clarity_app *a, const struct whatif_report *rep)
{
    const struct clarity_resource_result *r = rep->res;
    clarity_jsonw_key(w, "resource_model");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "caveat", "monotask-style model over Spark logs: 20-30% typical error on Spark (thesis 5.6.6); "
                            "deserialization what-ifs unsupported");
    clarity_jsonw_kint(w, "actual_ms", r->actual_ms);
    clarity_jsonw_kint(w, "driver_ms", r->driver_ms);
    clarity_jsonw_kint(w, "tasks", (int64_t)r->tasks);
    clarity_jsonw_kint(w, "cpu_fallback_tasks", (int64_t)r->cpu_fallback_tasks);
    clarity_jsonw_kdouble(w, "cpu_ms", r->total.cpu_ms);
    clarity_jsonw_kdouble(w, "disk_bytes", r->total.disk_bytes);
    clarity_jsonw_kdouble(w, "network_bytes", r->total.net_bytes);
    clarity_jsonw_kdouble(w, "disk_mb_per_cpu_s", r->mb_per_cpu_s);
    clarity_jsonw_key(w, "stages");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nstages; i++) {
        const struct clarity_whatif_stage *s = &r->stages[i];
        const struct clarity_stage *st = &a->stages[s->row];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "stage_id", st->stage_id);
        clarity_jsonw_kint(w, "attempt", st->attempt);
        clarity_jsonw_key(w, "job_id");
        if (s->job >= 0) clarity_jsonw_int(w, a->jobs[s->job].job_id); else clarity_jsonw_null(w);
        clarity_jsonw_kint(w, "tasks", (int64_t)s->tasks);
        clarity_jsonw_kint(w, "cpu_fallback_tasks", (int64_t)s->cpu_fallback_tasks);
        clarity_jsonw_kdouble(w, "cpu_ms", s->use.cpu_ms);
        clarity_jsonw_kdouble(w, "disk_bytes", s->use.disk_bytes);
        clarity_jsonw_kdouble(w, "network_bytes", s->use.net_bytes);
        ideal(w, s->ideal.ms);
        clarity_jsonw_kdouble(w, "model_ms", s->ideal.model_ms);
        bottleneck(w, s->ideal.bottleneck);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "jobs");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < r->njobs; i++) {
        const struct clarity_whatif_job *j = &r->jobs[i];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "job_id", j->job_id);
        clarity_jsonw_kint(w, "stages", (int64_t)j->stages);
        clarity_jsonw_kint(w, "actual_ms", j->actual_ms);
        bottleneck(w, j->bottleneck);
        clarity_jsonw_key(w, "scenarios");
        clarity_jsonw_obj_begin(w);
        for (int k = 0; k < CLARITY_SCEN_COUNT; k++) {
            if (!r->scen[k].present) continue;
            clarity_jsonw_key(w, clarity_scenario_name(k));
            clarity_jsonw_obj_begin(w);
            clarity_jsonw_kdouble(w, "model_ms", j->model_ms[k]);
            clarity_jsonw_kdouble(w, "predicted_ms", j->predicted_ms[k]);
            clarity_jsonw_obj_end(w);
        }
        clarity_jsonw_obj_end(w);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "scenarios");
    clarity_jsonw_arr_begin(w);
    for (int k = 0; k < CLARITY_SCEN_COUNT; k++) {
        const struct clarity_whatif_scenario *s = &r->scen[k];
        if (!s->present) continue;
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "name", clarity_scenario_name(k));
        if (k == CLARITY_SCEN_WHATIF && rep->whatif_label) clarity_jsonw_kstr(w, "change", rep->whatif_label);
        clarity_jsonw_key(w, "infinitely_fast");
        if (s->infinite >= 0) clarity_jsonw_str(w, clarity_wres_name(s->infinite)); else clarity_jsonw_null(w);
        if (k == CLARITY_SCEN_WHATIF) {
            clarity_jsonw_key(w, "hardware");
            hardware(w, &s->hw);
        }
        clarity_jsonw_kdouble(w, "model_ms", s->model_ms);
        clarity_jsonw_kdouble(w, "predicted_ms", s->predicted_ms);
        if (k == CLARITY_SCEN_WHATIF && rep->slot_replay && rep->slot_replay->npoints) {
            clarity_jsonw_kint(w, "slot_replay_slots", rep->slot_replay->points[0].slots);
            clarity_jsonw_kdouble(w, "slot_replay_predicted_ms", rep->slot_replay->points[0].predicted_ms);
        }
        clarity_jsonw_key(w, "bottleneck_stages");
        clarity_jsonw_obj_begin(w);
        for (int q = 0; q < CLARITY_WRES_COUNT; q++) clarity_jsonw_kint(w, clarity_wres_name(q), (int64_t)s->bottleneck_stages[q]);
        clarity_jsonw_obj_end(w);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
}

static void curve(struct jsonw *w, const struct clarity_curve_result *c)
{
    clarity_jsonw_key(w, "curve");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "slot_mode", c->mode == CLARITY_SLOTS_CONFIGURED ? "configured" : "observed");
    clarity_jsonw_kint(w, "tasks", (int64_t)c->tasks);
    clarity_jsonw_kint(w, "stage_groups", (int64_t)c->components);
    clarity_jsonw_kint(w, "dependencies_in_groups", (int64_t)c->internal_edges);
    clarity_jsonw_kint(w, "actual_ms", c->actual_ms);
    clarity_jsonw_kint(w, "driver_ms", c->driver_ms);
    clarity_jsonw_kdouble(w, "serial_ms", c->serial_ms);
    clarity_jsonw_kdouble(w, "critical_path_ms", c->critical_path_ms);
    clarity_jsonw_kdouble(w, "observed_replay_ms", c->observed_replay_ms);
    clarity_jsonw_kdouble(w, "replay_error", c->replay_error);
    clarity_jsonw_kdouble(w, "base_executors", c->base_executors);
    clarity_jsonw_kdouble(w, "base_cores", c->base_cores);
    clarity_jsonw_kbool(w, "cores_observed", c->cores_observed);
    clarity_jsonw_key(w, "points");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < c->npoints; i++) {
        const struct clarity_curve_point *p = &c->points[i];
        clarity_jsonw_obj_begin(w);
        if (p->ask.relative) clarity_jsonw_kdouble(w, "factor", p->ask.v);
        else {
            clarity_jsonw_key(w, "factor");
            clarity_jsonw_null(w);
        }
        clarity_jsonw_kdouble(w, "executors", p->executors);
        clarity_jsonw_kdouble(w, "cores", p->cores);
        clarity_jsonw_kint(w, "slots", p->slots);
        clarity_jsonw_kint(w, "group_slots_min", p->slots_min);
        clarity_jsonw_kint(w, "group_slots_max", p->slots_max);
        clarity_jsonw_kdouble(w, "replay_ms", p->replay_ms);
        clarity_jsonw_kdouble(w, "predicted_ms", p->predicted_ms);
        clarity_jsonw_kdouble(w, "calibrated_ms", p->calibrated_ms);
        clarity_jsonw_kdouble(w, "core_hours", p->core_hours);
        clarity_jsonw_kdouble(w, "efficiency", p->efficiency);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "knee");
    if (c->npoints) clarity_jsonw_int(w, (int64_t)c->knee); else clarity_jsonw_null(w);
    clarity_jsonw_key(w, "knee_replay");
    if (c->npoints) clarity_jsonw_int(w, (int64_t)c->knee_replay); else clarity_jsonw_null(w);
    clarity_jsonw_obj_end(w);
}

int clarity_report_whatif_json(struct jsonw *w, const struct clarity_app *a, const struct whatif_report *r,
                       struct clarity_error *err)
{
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "app_id", clarity_app_str(a, a->app_id));
    clarity_jsonw_kstr(w, "name", clarity_app_str(a, a->name));
    clarity_jsonw_kstr(w, "source", a->source_path ? a->source_path : "");
    clarity_jsonw_key(w, "hardware");
    hardware(w, r->base);
    if (r->res) resources(w, a, r);
    if (r->curve) curve(w, r->curve);
    clarity_jsonw_obj_end(w);
    return clarity_report_status(w->out, err);
}
