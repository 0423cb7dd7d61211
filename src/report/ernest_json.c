/* clarity.ernest/1: see docs/ernest-json.md. Times in seconds. */
#include "clarity/report.h"
#include "util/jsonw.h"

static void extrap_json(struct jsonw *w, const struct ernest_extrapolation *e)
{
    jsonw_key(w, "extrapolation");
    jsonw_obj_begin(w);
    jsonw_kdouble(w, "scale_factor", e->scale_factor);
    jsonw_kdouble(w, "machines_factor", e->machines_factor);
    jsonw_kbool(w, "far", e->far);
    jsonw_obj_end(w);
}

static void model_json(struct jsonw *w, const struct ernest_report *r)
{
    const struct ernest_model *m = r->model;
    jsonw_kstr(w, "scale_unit", r->scale_unit);
    jsonw_key(w, "terms");
    jsonw_arr_begin(w);
    for (size_t k = 0; k < m->terms.n; k++) jsonw_str(w, ernest_term_name(m->terms.t[k]));
    jsonw_arr_end(w);
    if (m->terms.rows > 0) jsonw_kdouble(w, "rows", m->terms.rows);
    jsonw_key(w, "coefficients");
    jsonw_obj_begin(w);
    for (size_t k = 0; k < m->terms.n; k++) jsonw_kdouble(w, ernest_term_name(m->terms.t[k]), m->theta[k]);
    jsonw_obj_end(w);
    jsonw_key(w, "training_points");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < m->npoints; i++) {
        const struct ernest_point *p = &m->points[i];
        jsonw_obj_begin(w);
        jsonw_kdouble(w, "machines", p->machines);
        jsonw_kdouble(w, "scale", p->scale);
        jsonw_kdouble(w, "seconds", p->seconds);
        jsonw_kdouble(w, "fitted_s", ernest_predict(m, p->scale, p->machines));
        if (m->loo.done) jsonw_kdouble(w, "left_out_s", m->loo.predicted[i]);
        else { jsonw_key(w, "left_out_s"); jsonw_null(w); }
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "fit");
    jsonw_obj_begin(w);
    jsonw_kdouble(w, "residual_norm_s", m->rnorm);
    jsonw_kdouble(w, "rss_s2", m->rss);
    jsonw_kdouble(w, "mean_ratio", m->mean_ratio);
    jsonw_kbool(w, "rank_deficient", m->rank_deficient);
    jsonw_kbool(w, "fewer_points_than_terms_plus_one", m->few_points);
    jsonw_obj_end(w);
    jsonw_key(w, "loocv_error");
    if (!m->loo.done) jsonw_null(w);
    else {
        jsonw_obj_begin(w);
        jsonw_kdouble(w, "median_pct", m->loo.median_pct);
        jsonw_kdouble(w, "max_pct", m->loo.max_pct);
        jsonw_kdouble(w, "mean_pct", m->loo.mean_pct);
        jsonw_kdouble(w, "press_s2", m->loo.press);
        jsonw_kdouble(w, "threshold_pct", r->loo_threshold_pct);
        jsonw_kbool(w, "poor_fit", m->loo.median_pct > r->loo_threshold_pct);
        jsonw_obj_end(w);
    }
}

static void design_json(struct jsonw *w, const struct ernest_report *r)
{
    const struct ernest_design *d = r->design;
    const struct ernest_design_options *q = r->design_opt;
    jsonw_key(w, "design");
    jsonw_obj_begin(w);
    jsonw_kdouble(w, "scale_min", q->scale_min);
    jsonw_kdouble(w, "scale_max", q->scale_max);
    jsonw_kint(w, "scales", q->points);
    jsonw_kint(w, "machines_min", q->machines_min);
    jsonw_kint(w, "machines_max", q->machines_max);
    if (q->total_parts > 0) {
        jsonw_kdouble(w, "total_parts", q->total_parts);
        jsonw_kint(w, "cores_per_machine", q->cores_per_machine);
    }
    jsonw_kdouble(w, "budget", q->budget);
    jsonw_kdouble(w, "threshold", q->threshold);
    jsonw_kbool(w, "normalized", !q->no_normalize);
    jsonw_kint(w, "candidates", (int64_t)d->n);
    jsonw_kdouble(w, "objective", d->f);
    jsonw_kdouble(w, "budget_multiplier", d->nu);
    jsonw_kbool(w, "converged", d->converged);
    jsonw_kdouble(w, "selected_cost", d->selected_cost);
    jsonw_kdouble(w, "selected_trace", d->selected_trace);
    jsonw_kbool(w, "rank_padded", d->rank_padded);
    jsonw_key(w, "points");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < d->nselected; i++) {
        const struct ernest_candidate *c = &d->c[d->order[i]];
        jsonw_obj_begin(w);
        jsonw_kdouble(w, "machines", c->machines);
        jsonw_kdouble(w, "scale", c->scale);
        if (c->partitions) jsonw_kint(w, "partitions", c->partitions);
        jsonw_kdouble(w, "lambda", c->lambda);
        jsonw_kdouble(w, "cost", c->cost);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

int report_ernest_json(struct jsonw *w, const struct ernest_report *r, struct clarity_error *err)
{
    jsonw_obj_begin(w);
    jsonw_kstr(w, "schema", "clarity.ernest/1");
    jsonw_kstr(w, "command", r->command);
    if (r->model) model_json(w, r);
    if (r->design) design_json(w, r);
    if (r->ntargets) {
        jsonw_key(w, "predictions");
        jsonw_arr_begin(w);
        for (size_t i = 0; i < r->ntargets; i++) {
            jsonw_obj_begin(w);
            jsonw_kdouble(w, "machines", r->targets[i].machines);
            jsonw_kdouble(w, "scale", r->targets[i].scale);
            jsonw_kdouble(w, "predicted_s", r->targets[i].predicted_s);
            extrap_json(w, &r->targets[i].extrap);
            if (i == 0 && r->actual_source) {
                jsonw_key(w, "actual");
                jsonw_obj_begin(w);
                jsonw_kstr(w, "source", r->actual_source);
                jsonw_kdouble(w, "actual_s", r->actual_s);
                jsonw_kdouble(w, "error_pct", 100 * (r->targets[0].predicted_s - r->actual_s) / r->actual_s);
                jsonw_obj_end(w);
            }
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
    }
    if (r->choice) {
        const struct ernest_choice *c = r->choice;
        const struct ernest_choose_options *q = r->choose_opt;
        jsonw_key(w, "choice");
        jsonw_obj_begin(w);
        jsonw_kdouble(w, "scale", q->scale);
        jsonw_kdouble(w, "deadline_s", q->deadline_s);
        jsonw_kstr(w, "objective", q->price_per_machine_hour > 0 ? "cheapest" : "fewest_machines");
        if (q->price_per_machine_hour > 0) jsonw_kdouble(w, "price_per_machine_hour", q->price_per_machine_hour);
        jsonw_kbool(w, "hourly_billing", q->hourly_billing);
        jsonw_kdouble(w, "margin", c->margin);
        jsonw_kbool(w, "found", c->found);
        if (c->found) {
            jsonw_kint(w, "machines", c->machines);
            jsonw_kdouble(w, "predicted_s", c->predicted_s);
            jsonw_kdouble(w, "with_margin_s", c->with_margin_s);
            if (q->price_per_machine_hour > 0) jsonw_kdouble(w, "cost", c->cost);
        } else {
            jsonw_key(w, "machines");
            jsonw_null(w);
        }
        jsonw_kint(w, "fastest_machines", c->fastest_machines);
        jsonw_kdouble(w, "fastest_s", c->fastest_s);
        extrap_json(w, &c->extrap);
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);
    return clarity_report_status(w->out, err);
}
