/* clarity.predict/1: see docs/predict-json.md. Times in ms, sizes in the references' unit. */
#include <math.h>
#include "clarity/report.h"
#include "util/jsonw.h"

static const char *from_name(int f)
{
    return f == PERIDOT_FROM_USER ? "given" : f == PERIDOT_FROM_LOG ? "log" : "unknown";
}

static void group_json(struct jsonw *w, const struct peridot_model *m, size_t g)
{
    const struct peridot_group *G = &m->groups[g];
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "index", (int64_t)g + 1);
    clarity_jsonw_kstr(w, "kind", clarity_peridot_kind_name(G->kind));
    clarity_jsonw_kbool(w, "beyond_paper", G->kind == PERIDOT_FIXED_DATA_SCALED || G->kind == PERIDOT_FIXED_WAVE_SCALED);
    clarity_jsonw_key(w, "stages");
    clarity_jsonw_arr_begin(w);
    for (size_t i = G->first; i < G->first + G->n; i++) {
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "stage_id", m->members[i]);
        clarity_jsonw_kstr(w, "name", m->member_names[i] ? m->member_names[i] : "");
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "tasks");
    clarity_jsonw_arr_begin(w);
    for (size_t r = 0; r < m->nrefs; r++) clarity_jsonw_int(w, G->tasks[r]);
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "span_ms");
    clarity_jsonw_arr_begin(w);
    for (size_t r = 0; r < m->nrefs; r++) clarity_jsonw_double(w, G->span_ms[r]);
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "waves");
    clarity_jsonw_arr_begin(w);
    for (size_t r = 0; r < m->nrefs; r++) clarity_jsonw_double(w, G->waves[r]);
    clarity_jsonw_arr_end(w);
    clarity_jsonw_kdouble(w, "wave_ms", G->wave_ms);
    if (G->kind == PERIDOT_VARIABLE) clarity_jsonw_kdouble(w, "tasks_per_unit_size", G->rho);
    if (G->kind == PERIDOT_FIXED_DATA_SCALED) clarity_jsonw_kdouble(w, "wave_ms_per_unit_size_per_task", G->unit_wave_ms);
    clarity_jsonw_kdouble(w, "time_elasticity", G->elasticity);
    clarity_jsonw_obj_end(w);
}

int clarity_report_predict_json(struct jsonw *w, const struct predict_report *r, struct clarity_error *err)
{
    const struct peridot_model *m = r->model;
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "schema", "clarity.predict/1");
    clarity_jsonw_kstr(w, "method", "peridot");
    clarity_jsonw_key(w, "options");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "grouping", r->opt->grouping == PERIDOT_GROUP_OVERLAP ? "overlap" : "tolerance");
    if (r->opt->grouping == PERIDOT_GROUP_TOLERANCE) clarity_jsonw_kint(w, "delta_ms", r->opt->delta_ms);
    clarity_jsonw_kstr(w, "fixed_groups", r->opt->fixed == PERIDOT_FIXED_CONSTANT ? "constant"
                                  : r->opt->fixed == PERIDOT_FIXED_DATA ? "data" : "auto");
    clarity_jsonw_kbool(w, "scale_fixed", r->opt->scale_fixed);
    clarity_jsonw_kstr(w, "size_unit", r->sizes_in_bytes ? "bytes" : "as given");
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "training_points");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nrefs; i++) {
        const struct peridot_ref *x = &r->refs[i];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "source", x->label ? x->label : "");
        clarity_jsonw_kdouble(w, "data_size", x->data_size);
        clarity_jsonw_kstr(w, "data_size_from", from_name(x->size_from));
        if (x->input_bytes) clarity_jsonw_kint(w, "input_bytes", x->input_bytes);
        else { clarity_jsonw_key(w, "input_bytes"); clarity_jsonw_null(w); }
        clarity_jsonw_kdouble(w, "cores", x->cores);
        clarity_jsonw_kstr(w, "cores_from", from_name(x->cores_from));
        clarity_jsonw_kint(w, "total_ms", x->total_ms);
        clarity_jsonw_kdouble(w, "fixed_ms", m->fixed_ms[i]);
        clarity_jsonw_kbool(w, "task_events", !x->no_task_events);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "model");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kdouble(w, "fixed_ms", m->fixed_hat_ms);
    clarity_jsonw_kint(w, "groups_variable", (int64_t)m->nvariable);
    clarity_jsonw_kint(w, "groups_fixed", (int64_t)m->nfixed);
    clarity_jsonw_kint(w, "groups_fixed_data_scaled", (int64_t)m->ndata_scaled);
    clarity_jsonw_kint(w, "groups_fixed_wave_scaled", (int64_t)m->nwave_scaled);
    clarity_jsonw_kbool(w, "fixed_partitions_detected", m->fixed_partitions);
    clarity_jsonw_kdouble(w, "time_elasticity", m->app_elasticity);
    clarity_jsonw_kdouble(w, "nonlinear_threshold", m->nonlinear_elasticity);
    clarity_jsonw_kbool(w, "nonlinear_growth", m->nonlinear);
    clarity_jsonw_kbool(w, "combined", m->combine);
    clarity_jsonw_key(w, "groups");
    clarity_jsonw_arr_begin(w);
    for (size_t g = 0; g < m->ngroups; g++) group_json(w, m, g);
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
    const char *warn[16];
    size_t nw = clarity_predict_warnings(r, warn, 16);
    clarity_jsonw_key(w, "warnings");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < nw; i++) clarity_jsonw_str(w, warn[i]);
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "predictions");
    clarity_jsonw_arr_begin(w);
    for (size_t k = 0; k < r->npreds; k++) {
        const struct peridot_prediction *p = &r->preds[k];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kdouble(w, "data_size", p->data_size);
        clarity_jsonw_kdouble(w, "cores", p->cores);
        const struct peridot_combination *c = &p->comb;
        clarity_jsonw_kdouble(w, "predicted_ms", c->point_ms);
        clarity_jsonw_kdouble(w, "peridot_ms", p->total_ms);
        clarity_jsonw_kdouble(w, "peridot_near_ms", c->peridot_near_ms);
        clarity_jsonw_kdouble(w, "affine_ms", c->affine_ms);
        clarity_jsonw_kdouble(w, "weight_peridot", c->weight_peridot);
        clarity_jsonw_key(w, "interval");
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kdouble(w, "low_ms", c->low_ms);
        clarity_jsonw_kdouble(w, "high_ms", c->high_ms);
        clarity_jsonw_kstr(w, "rule", c->rule == PERIDOT_INTERVAL_HOLDOUT ? "holdout" : "two_refs");
        clarity_jsonw_kdouble(w, "holdout_err_peridot_pct", 100 * c->holdout_err_peridot);
        clarity_jsonw_kdouble(w, "holdout_err_affine_pct", 100 * c->holdout_err_affine);
        clarity_jsonw_obj_end(w);
        clarity_jsonw_kdouble(w, "extrapolation", c->extrapolation);
        clarity_jsonw_kbool(w, "far", c->far);
        clarity_jsonw_kbool(w, "nonlinear_growth", c->nonlinear);
        clarity_jsonw_kdouble(w, "variable_ms", p->variable_ms);
        clarity_jsonw_kdouble(w, "scaled_fixed_ms", p->scaled_fixed_ms);
        clarity_jsonw_kdouble(w, "fixed_ms", m->fixed_hat_ms);
        clarity_jsonw_kdouble(w, "ideal_scaling_ms", clarity_peridot_ideal_scaling(m, p->data_size, p->cores));
        clarity_jsonw_key(w, "groups");
        clarity_jsonw_arr_begin(w);
        for (size_t g = 0; g < m->ngroups; g++) {
            const struct peridot_group_pred *q = &p->groups[g];
            clarity_jsonw_obj_begin(w);
            clarity_jsonw_kdouble(w, "tasks", q->tasks);
            if (m->groups[g].kind == PERIDOT_FIXED) {
                clarity_jsonw_key(w, "waves"); clarity_jsonw_null(w);
                clarity_jsonw_key(w, "wave_ms"); clarity_jsonw_null(w);
                clarity_jsonw_kbool(w, "in_fixed_time", true);
            } else {
                clarity_jsonw_kdouble(w, "waves", q->waves);
                clarity_jsonw_kdouble(w, "wave_ms", q->wave_ms);
                clarity_jsonw_kbool(w, "in_fixed_time", false);
            }
            clarity_jsonw_kdouble(w, "time_ms", q->span_ms);
            clarity_jsonw_obj_end(w);
        }
        clarity_jsonw_arr_end(w);
        if (k == 0 && r->actual_source) {
            clarity_jsonw_key(w, "actual");
            clarity_jsonw_obj_begin(w);
            clarity_jsonw_kstr(w, "source", r->actual_source);
            clarity_jsonw_kdouble(w, "actual_ms", r->actual_ms);
            clarity_jsonw_kdouble(w, "error_pct", 100 * (c->point_ms - r->actual_ms) / r->actual_ms);
            clarity_jsonw_kdouble(w, "peridot_error_pct", 100 * (p->total_ms - r->actual_ms) / r->actual_ms);
            clarity_jsonw_kbool(w, "in_interval", r->actual_ms >= c->low_ms && r->actual_ms <= c->high_ms);
            clarity_jsonw_obj_end(w);
        }
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
    return clarity_report_status(w->out, err);
}
