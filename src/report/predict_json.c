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
    jsonw_obj_begin(w);
    jsonw_kint(w, "index", (int64_t)g + 1);
    jsonw_kstr(w, "kind", peridot_kind_name(G->kind));
    jsonw_kbool(w, "beyond_paper", G->kind == PERIDOT_FIXED_DATA_SCALED || G->kind == PERIDOT_FIXED_WAVE_SCALED);
    jsonw_key(w, "stages");
    jsonw_arr_begin(w);
    for (size_t i = G->first; i < G->first + G->n; i++) {
        jsonw_obj_begin(w);
        jsonw_kint(w, "stage_id", m->members[i]);
        jsonw_kstr(w, "name", m->member_names[i] ? m->member_names[i] : "");
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "tasks");
    jsonw_arr_begin(w);
    for (size_t r = 0; r < m->nrefs; r++) jsonw_int(w, G->tasks[r]);
    jsonw_arr_end(w);
    jsonw_key(w, "span_ms");
    jsonw_arr_begin(w);
    for (size_t r = 0; r < m->nrefs; r++) jsonw_double(w, G->span_ms[r]);
    jsonw_arr_end(w);
    jsonw_key(w, "waves");
    jsonw_arr_begin(w);
    for (size_t r = 0; r < m->nrefs; r++) jsonw_double(w, G->waves[r]);
    jsonw_arr_end(w);
    jsonw_kdouble(w, "wave_ms", G->wave_ms);
    if (G->kind == PERIDOT_VARIABLE) jsonw_kdouble(w, "tasks_per_unit_size", G->rho);
    if (G->kind == PERIDOT_FIXED_DATA_SCALED) jsonw_kdouble(w, "wave_ms_per_unit_size_per_task", G->unit_wave_ms);
    jsonw_kdouble(w, "time_elasticity", G->elasticity);
    jsonw_obj_end(w);
}

int report_predict_json(struct jsonw *w, const struct predict_report *r, struct clarity_error *err)
{
    const struct peridot_model *m = r->model;
    jsonw_obj_begin(w);
    jsonw_kstr(w, "schema", "clarity.predict/1");
    jsonw_kstr(w, "method", "peridot");
    jsonw_key(w, "options");
    jsonw_obj_begin(w);
    jsonw_kstr(w, "grouping", r->opt->grouping == PERIDOT_GROUP_OVERLAP ? "overlap" : "tolerance");
    if (r->opt->grouping == PERIDOT_GROUP_TOLERANCE) jsonw_kint(w, "delta_ms", r->opt->delta_ms);
    jsonw_kstr(w, "fixed_groups", r->opt->fixed == PERIDOT_FIXED_CONSTANT ? "constant"
                                  : r->opt->fixed == PERIDOT_FIXED_DATA ? "data" : "auto");
    jsonw_kbool(w, "scale_fixed", r->opt->scale_fixed);
    jsonw_kstr(w, "size_unit", r->sizes_in_bytes ? "bytes" : "as given");
    jsonw_obj_end(w);
    jsonw_key(w, "training_points");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nrefs; i++) {
        const struct peridot_ref *x = &r->refs[i];
        jsonw_obj_begin(w);
        jsonw_kstr(w, "source", x->label ? x->label : "");
        jsonw_kdouble(w, "data_size", x->data_size);
        jsonw_kstr(w, "data_size_from", from_name(x->size_from));
        if (x->input_bytes) jsonw_kint(w, "input_bytes", x->input_bytes);
        else { jsonw_key(w, "input_bytes"); jsonw_null(w); }
        jsonw_kdouble(w, "cores", x->cores);
        jsonw_kstr(w, "cores_from", from_name(x->cores_from));
        jsonw_kint(w, "total_ms", x->total_ms);
        jsonw_kdouble(w, "fixed_ms", m->fixed_ms[i]);
        jsonw_kbool(w, "task_events", !x->no_task_events);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "model");
    jsonw_obj_begin(w);
    jsonw_kdouble(w, "fixed_ms", m->fixed_hat_ms);
    jsonw_kint(w, "groups_variable", (int64_t)m->nvariable);
    jsonw_kint(w, "groups_fixed", (int64_t)m->nfixed);
    jsonw_kint(w, "groups_fixed_data_scaled", (int64_t)m->ndata_scaled);
    jsonw_kint(w, "groups_fixed_wave_scaled", (int64_t)m->nwave_scaled);
    jsonw_kbool(w, "fixed_partitions_detected", m->fixed_partitions);
    jsonw_key(w, "groups");
    jsonw_arr_begin(w);
    for (size_t g = 0; g < m->ngroups; g++) group_json(w, m, g);
    jsonw_arr_end(w);
    jsonw_obj_end(w);
    const char *warn[16];
    size_t nw = predict_warnings(r, warn, 16);
    jsonw_key(w, "warnings");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < nw; i++) jsonw_str(w, warn[i]);
    jsonw_arr_end(w);
    jsonw_key(w, "predictions");
    jsonw_arr_begin(w);
    for (size_t k = 0; k < r->npreds; k++) {
        const struct peridot_prediction *p = &r->preds[k];
        jsonw_obj_begin(w);
        jsonw_kdouble(w, "data_size", p->data_size);
        jsonw_kdouble(w, "cores", p->cores);
        jsonw_kdouble(w, "predicted_ms", p->total_ms);
        jsonw_kdouble(w, "variable_ms", p->variable_ms);
        jsonw_kdouble(w, "scaled_fixed_ms", p->scaled_fixed_ms);
        jsonw_kdouble(w, "fixed_ms", m->fixed_hat_ms);
        jsonw_kdouble(w, "ideal_scaling_ms", peridot_ideal_scaling(m, p->data_size, p->cores));
        jsonw_key(w, "groups");
        jsonw_arr_begin(w);
        for (size_t g = 0; g < m->ngroups; g++) {
            const struct peridot_group_pred *q = &p->groups[g];
            jsonw_obj_begin(w);
            jsonw_kdouble(w, "tasks", q->tasks);
            if (m->groups[g].kind == PERIDOT_FIXED) {
                jsonw_key(w, "waves"); jsonw_null(w);
                jsonw_key(w, "wave_ms"); jsonw_null(w);
                jsonw_kbool(w, "in_fixed_time", true);
            } else {
                jsonw_kdouble(w, "waves", q->waves);
                jsonw_kdouble(w, "wave_ms", q->wave_ms);
                jsonw_kbool(w, "in_fixed_time", false);
            }
            jsonw_kdouble(w, "time_ms", q->span_ms);
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
        if (k == 0 && r->actual_source) {
            jsonw_key(w, "actual");
            jsonw_obj_begin(w);
            jsonw_kstr(w, "source", r->actual_source);
            jsonw_kdouble(w, "actual_ms", r->actual_ms);
            jsonw_kdouble(w, "error_pct", 100 * (p->total_ms - r->actual_ms) / r->actual_ms);
            jsonw_obj_end(w);
        }
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
    return clarity_report_status(w->out, err);
}
