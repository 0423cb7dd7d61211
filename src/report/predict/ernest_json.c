/* clarity.ernest/1: see docs/ernest-json.md. Times in seconds. */
#include <math.h>
#include "clarity/report.h"
#include "util/jsonw.h"

static void extrap_json(struct jsonw *w, const struct clarity_ernest_extrapolation *e)
{
    clarity_jsonw_key(w, "extrapolation");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kdouble(w, "scale_factor", e->scale_factor);
    clarity_jsonw_kdouble(w, "machines_factor", e->machines_factor);
    clarity_jsonw_kbool(w, "far", e->far);
    clarity_jsonw_obj_end(w);
}

static void model_json(struct jsonw *w, const struct ernest_report *r)
{
    const struct ernest_model *m = r->model;
    clarity_jsonw_kstr(w, "scale_unit", r->scale_unit);
    clarity_jsonw_key(w, "terms");
    clarity_jsonw_arr_begin(w);
    for (size_t k = 0; k < m->terms.n; k++) clarity_jsonw_str(w, clarity_ernest_term_name(m->terms.t[k]));
    clarity_jsonw_arr_end(w);
    if (m->terms.rows > 0) clarity_jsonw_kdouble(w, "rows", m->terms.rows);
    clarity_jsonw_key(w, "coefficients");
    clarity_jsonw_obj_begin(w);
    for (size_t k = 0; k < m->terms.n; k++) clarity_jsonw_kdouble(w, clarity_ernest_term_name(m->terms.t[k]), m->theta[k]);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "training_points");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < m->npoints; i++) {
        const struct ernest_point *p = &m->points[i];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kdouble(w, "machines", p->machines);
        clarity_jsonw_kdouble(w, "scale", p->scale);
        clarity_jsonw_kdouble(w, "seconds", p->seconds);
        clarity_jsonw_kdouble(w, "fitted_s", clarity_ernest_predict(m, p->scale, p->machines));
        /* null where the point was not left out: one point, or beyond ERNEST_LOO_MAX points */
        if (m->loo.done && !isnan(m->loo.predicted[i])) clarity_jsonw_kdouble(w, "left_out_s", m->loo.predicted[i]);
        else { clarity_jsonw_key(w, "left_out_s"); clarity_jsonw_null(w); }
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "fit");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kdouble(w, "residual_norm_s", m->rnorm);
    clarity_jsonw_kdouble(w, "rss_s2", m->rss);
    clarity_jsonw_kdouble(w, "mean_ratio", m->mean_ratio);
    clarity_jsonw_kbool(w, "rank_deficient", m->rank_deficient);
    clarity_jsonw_kbool(w, "fewer_points_than_terms_plus_one", m->few_points);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "loocv_error");
    if (!m->loo.done) clarity_jsonw_null(w);
    else {
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kdouble(w, "median_pct", m->loo.median_pct);
        clarity_jsonw_kdouble(w, "max_pct", m->loo.max_pct);
        clarity_jsonw_kdouble(w, "mean_pct", m->loo.mean_pct);
        clarity_jsonw_kdouble(w, "press_s2", m->loo.press);
        /* only when not every point was left out, so small fits keep their schema as it was */
        if (m->loo.left_out < m->npoints) clarity_jsonw_kint(w, "points_left_out", (int64_t)m->loo.left_out);
        clarity_jsonw_kdouble(w, "threshold_pct", r->loo_threshold_pct);
        clarity_jsonw_kbool(w, "poor_fit", m->loo.median_pct > r->loo_threshold_pct);
        clarity_jsonw_obj_end(w);
    }
}

static void design_json(struct jsonw *w, const struct ernest_report *r)
{
    const struct ernest_design *d = r->design;
    const struct ernest_design_options *q = r->design_opt;
    clarity_jsonw_key(w, "design");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kdouble(w, "scale_min", q->scale_min);
    clarity_jsonw_kdouble(w, "scale_max", q->scale_max);
    clarity_jsonw_kint(w, "scales", q->points);
    clarity_jsonw_kint(w, "machines_min", q->machines_min);
    clarity_jsonw_kint(w, "machines_max", q->machines_max);
    if (q->total_parts > 0) {
        clarity_jsonw_kdouble(w, "total_parts", q->total_parts);
        clarity_jsonw_kint(w, "cores_per_machine", q->cores_per_machine);
    }
    clarity_jsonw_kdouble(w, "budget", q->budget);
    clarity_jsonw_kdouble(w, "threshold", q->threshold);
    clarity_jsonw_kbool(w, "normalized", !q->no_normalize);
    clarity_jsonw_kint(w, "candidates", (int64_t)d->n);
    clarity_jsonw_kdouble(w, "objective", d->f);
    clarity_jsonw_kdouble(w, "budget_multiplier", d->nu);
    clarity_jsonw_kbool(w, "converged", d->converged);
    clarity_jsonw_kdouble(w, "selected_cost", d->selected_cost);
    clarity_jsonw_kdouble(w, "selected_trace", d->selected_trace);
    clarity_jsonw_kbool(w, "rank_padded", d->rank_padded);
    clarity_jsonw_key(w, "points");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < d->nselected; i++) {
        const struct ernest_candidate *c = &d->c[d->order[i]];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kdouble(w, "machines", c->machines);
        clarity_jsonw_kdouble(w, "scale", c->scale);
        if (c->partitions) clarity_jsonw_kint(w, "partitions", c->partitions);
        clarity_jsonw_kdouble(w, "lambda", c->lambda);
        clarity_jsonw_kdouble(w, "cost", c->cost);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
}

int clarity_report_ernest_json(struct jsonw *w, const struct ernest_report *r, struct clarity_error *err)
{
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "schema", "clarity.ernest/1");
    clarity_jsonw_kstr(w, "command", r->command);
    if (r->model) model_json(w, r);
    if (r->design) design_json(w, r);
    if (r->ntargets) {
        clarity_jsonw_key(w, "predictions");
        clarity_jsonw_arr_begin(w);
        for (size_t i = 0; i < r->ntargets; i++) {
            clarity_jsonw_obj_begin(w);
            clarity_jsonw_kdouble(w, "machines", r->targets[i].machines);
            clarity_jsonw_kdouble(w, "scale", r->targets[i].scale);
            clarity_jsonw_kdouble(w, "predicted_s", r->targets[i].predicted_s);
            clarity_jsonw_key(w, "interval");
            clarity_jsonw_obj_begin(w);
            clarity_jsonw_kdouble(w, "low_s", r->targets[i].low_s);
            clarity_jsonw_kdouble(w, "high_s", r->targets[i].high_s);
            clarity_jsonw_kstr(w, "rule", "loocv_max");
            clarity_jsonw_obj_end(w);
            extrap_json(w, &r->targets[i].extrap);
            if (i == 0 && r->actual_source) {
                clarity_jsonw_key(w, "actual");
                clarity_jsonw_obj_begin(w);
                clarity_jsonw_kstr(w, "source", r->actual_source);
                clarity_jsonw_kdouble(w, "actual_s", r->actual_s);
                clarity_jsonw_kdouble(w, "error_pct", 100 * (r->targets[0].predicted_s - r->actual_s) / r->actual_s);
                clarity_jsonw_obj_end(w);
            }
            clarity_jsonw_obj_end(w);
        }
        clarity_jsonw_arr_end(w);
    }
    if (r->choice) {
        const struct ernest_choice *c = r->choice;
        const struct ernest_choose_options *q = r->choose_opt;
        clarity_jsonw_key(w, "choice");
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kdouble(w, "scale", q->scale);
        clarity_jsonw_kdouble(w, "deadline_s", q->deadline_s);
        clarity_jsonw_kstr(w, "objective", q->price_per_machine_hour > 0 ? "cheapest" : "fewest_machines");
        if (q->price_per_machine_hour > 0) clarity_jsonw_kdouble(w, "price_per_machine_hour", q->price_per_machine_hour);
        clarity_jsonw_kbool(w, "hourly_billing", q->hourly_billing);
        clarity_jsonw_kdouble(w, "margin", c->margin);
        clarity_jsonw_kbool(w, "found", c->found);
        if (c->found) {
            clarity_jsonw_kint(w, "machines", c->machines);
            clarity_jsonw_kdouble(w, "predicted_s", c->predicted_s);
            clarity_jsonw_kdouble(w, "with_margin_s", c->with_margin_s);
            if (q->price_per_machine_hour > 0) clarity_jsonw_kdouble(w, "cost", c->cost);
        } else {
            clarity_jsonw_key(w, "machines");
            clarity_jsonw_null(w);
        }
        clarity_jsonw_kint(w, "fastest_machines", c->fastest_machines);
        clarity_jsonw_kdouble(w, "fastest_s", c->fastest_s);
        extrap_json(w, &c->extrap);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_obj_end(w);
    return clarity_report_status(w->out, err);
}
