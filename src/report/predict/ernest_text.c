/* Ernest as text: training points and LOOCV first, so every number comes with its evidence. */
#include <math.h>
#include "clarity/report.h"
#include "report/table.h"

static void model_text(FILE *o, const struct ernest_report *r)
{
    const struct ernest_model *m = r->model;
    fprintf(o, "Ernest model (Venkataraman et al., NSDI'16): time = sum of theta x term, theta >= 0 (NNLS)\n");
    fprintf(o, "scale unit   %s\n\ntraining points (%zu)\n     #  machines        scale      seconds   fitted s   left-out s   left-out err\n",
            r->scale_unit, m->npoints);
    size_t shown = r->limit && r->limit < m->npoints ? r->limit : m->npoints;
    for (size_t i = 0; i < shown; i++) {
        const struct ernest_point *p = &m->points[i];
        double fit = clarity_ernest_predict(m, p->scale, p->machines);
        if (m->loo.done && !isnan(m->loo.predicted[i]))
            fprintf(o, "  %4zu  %8.4g  %11.6g  %11.4f  %9.4f  %11.4f  %12.2f%%\n", i + 1, p->machines, p->scale, p->seconds, fit,
                    m->loo.predicted[i], 100 * (m->loo.predicted[i] - p->seconds) / p->seconds);
        else
            fprintf(o, "  %4zu  %8.4g  %11.6g  %11.4f  %9.4f  %11s  %13s\n", i + 1, p->machines, p->scale, p->seconds, fit, "-", "-");
    }
    if (shown < m->npoints) fprintf(o, "  (%zu more point(s), all in the fit; --limit 0 shows all)\n", m->npoints - shown);
    fprintf(o, "\ncoefficients\n");
    for (size_t k = 0; k < m->terms.n; k++)
        fprintf(o, "  %-14s %14.6f\n", clarity_ernest_term_name(m->terms.t[k]), m->theta[k]);
    clarity_fit_wrapf(o, r->width, "\nfit          ", "residual norm %.6g s, RSS %.6g s^2, mean predicted/actual - 1 = %+.4f%%", m->rnorm, m->rss,
            100 * (m->mean_ratio - 1));
    if (m->loo.done)
        clarity_fit_wrapf(o, r->width, "LOOCV        ", "median %.3f%%, max %.3f%%, mean %.3f%% absolute error on left-out points; PRESS %.6g s^2",
                m->loo.median_pct, m->loo.max_pct, m->loo.mean_pct, m->loo.press);
    else fprintf(o, "LOOCV        not possible with one point\n");
    if (m->loo.done && m->loo.left_out < m->npoints)
        clarity_fit_wrapf(o, r->width, "             ", "(over %zu of the %zu points, every %zu-th left out: beyond %d points a refit per point would "
                   "grow as n^2)", m->loo.left_out, m->npoints, (m->npoints + m->loo.left_out - 1) / m->loo.left_out,
                ERNEST_LOO_MAX);
    if (m->loo.done && m->loo.median_pct > r->loo_threshold_pct)
        clarity_fit_wrapf(o, r->width, "warning      ", "poor fit: median left-out error %.1f%% is over %.0f%%; add runs or terms (--terms)",
                m->loo.median_pct, r->loo_threshold_pct);
    if (m->few_points)
        clarity_fit_wrapf(o, r->width, "warning      ", "%zu points for %zu terms: fewer than terms + 1, the fit is not determined by the data",
                m->npoints, m->terms.n);
    if (m->rank_deficient)
        fprintf(o, "warning      the training points do not separate every term (e.g. one machine count: log(m) and m\n"
                   "             are collinear with the constant); the split between those terms is arbitrary\n");
}

static void targets_text(FILE *o, const struct ernest_report *r)
{
    fprintf(o, "\npredictions\n  machines        scale    predicted          low         high   extrapolation\n");
    for (size_t i = 0; i < r->ntargets; i++) {
        const struct ernest_target *t = &r->targets[i];
        char b[32], lo[32], hi[32];
        fprintf(o, "  %8.4g  %11.6g  %11s  %11s  %11s   x%.3g scale, x%.3g machines%s\n", t->machines, t->scale,
                clarity_fmt_ms(b, sizeof b, llround(t->predicted_s * 1000)), clarity_fmt_ms(lo, sizeof lo, llround(t->low_s * 1000)),
                clarity_fmt_ms(hi, sizeof hi, llround(t->high_s * 1000)), t->extrap.scale_factor, t->extrap.machines_factor,
                t->extrap.far ? "  far beyond the training points" : "");
    }
    if (r->ntargets)
        clarity_fit_wrap(o, r->width, "interval     ", "low - high = predicted -+ max(the worst LOOCV error, 5%) x (1 + ln of "
                         "the extrapolation factor); an approximation, not a confidence level");
    if (r->actual_source && r->ntargets) {
        char a[32], p[32];
        clarity_fit_wrapf(o, r->width, "\nactual       ", "%s in %s: predicted %s, error %+.1f%%", clarity_fmt_ms(a, sizeof a, llround(r->actual_s * 1000)),
                r->actual_source, clarity_fmt_ms(p, sizeof p, llround(r->targets[0].predicted_s * 1000)),
                100 * (r->targets[0].predicted_s - r->actual_s) / r->actual_s);
    }
}

static void choice_text(FILE *o, const struct ernest_report *r)
{
    const struct ernest_choice *c = r->choice;
    const struct ernest_choose_options *q = r->choose_opt;
    char b1[32], b2[32], b3[32];
    fprintf(o, "\nchoice       scale %g, deadline %s, machines %d-%d, margin %.1f%%%s\n", q->scale,
            clarity_fmt_ms(b1, sizeof b1, llround(q->deadline_s * 1000)), q->machines_min, q->machines_max, 100 * c->margin,
            q->margin < 0 ? " (the model's max LOOCV error)" : "");
    if (c->found) {
        fprintf(o, "             %s: %d machines, predicted %s (%s with the margin)", q->price_per_machine_hour > 0 ? "cheapest" : "fewest machines",
                c->machines, clarity_fmt_ms(b2, sizeof b2, llround(c->predicted_s * 1000)), clarity_fmt_ms(b3, sizeof b3, llround(c->with_margin_s * 1000)));
        if (q->price_per_machine_hour > 0)
            fprintf(o, ", cost %.2f at %.4g per machine-hour%s", c->cost, q->price_per_machine_hour, q->hourly_billing ? " (whole hours)" : "");
        fputc('\n', o);
    } else {
        fprintf(o, "             no machine count meets the deadline; the fastest is %d machines at %s\n", c->fastest_machines,
                clarity_fmt_ms(b2, sizeof b2, llround(c->fastest_s * 1000)));
    }
    fprintf(o, "             time-optimal: %d machines (%s); more machines than that make it slower\n", c->fastest_machines,
            clarity_fmt_ms(b2, sizeof b2, llround(c->fastest_s * 1000)));
    if (c->extrap.far)
        fprintf(o, "warning      the request is far beyond the training points (x%.3g the largest scale, x%.3g the most\n"
                   "             machines): the model has not been validated there\n", c->extrap.scale_factor, c->extrap.machines_factor);
}

static void design_text(FILE *o, const struct ernest_report *r)
{
    const struct ernest_design *d = r->design;
    const struct ernest_design_options *q = r->design_opt;
    fprintf(o, "Ernest experiment design (A-optimal, budget constraint; NSDI'16 section 3.3)\n");
    char parts[128] = "";
    if (q->total_parts > 0)
        snprintf(parts, sizeof parts, ", at least one of %g partitions per core (%d cores/machine)", q->total_parts, q->cores_per_machine);
    clarity_fit_wrapf(o, r->width, "candidates   ", "%zu: %d scales in [%g, %g] x machines %d-%d%s%s", d->n, q->points, q->scale_min,
                      q->scale_max, q->machines_min, q->machines_max, q->powers_of_two ? " (powers of two)" : "", parts);
    fprintf(o, "cost         (scale / smallest scale) / machines: 1 = the smallest run on one machine; budget %g\n", q->budget);
    fprintf(o, "features     %s by the candidates' column means\n", q->no_normalize ? "not divided" : "divided");
    clarity_fit_wrapf(o, r->width, "optimum      ", "trace(M^-1) = %.7f over the relaxation (%d iterations%s), budget multiplier %.5g", d->f,
            d->iterations, d->converged ? "" : ", NOT converged", d->nu);
    fprintf(o, "\nruns to make (lambda > %g, largest first)\n     #  machines        scale  partitions    lambda      cost\n", q->threshold);
    for (size_t i = 0; i < d->nselected; i++) {
        const struct ernest_candidate *c = &d->c[d->order[i]];
        char parts[24] = "-";
        if (c->partitions) snprintf(parts, sizeof parts, "%ld", c->partitions);
        fprintf(o, "  %4zu  %8.4g  %11.6f  %10s  %8.6f  %8.4f\n", i + 1, c->machines, c->scale, parts, c->lambda, c->cost);
    }
    clarity_fit_wrapf(o, r->width, "\nselected     ", "%zu runs, total cost %.4f (budget %g), trace(M^-1) = %.6g with each run once", d->nselected,
            d->selected_cost, q->budget, d->selected_trace);
    if (d->rank_padded) fprintf(o, "note         runs below the threshold were added so that the runs determine every term\n");
}

int clarity_report_ernest_text(FILE *o, const struct ernest_report *r, struct clarity_error *err)
{
    if (r->design) {
        design_text(o, r);
    } else {
        model_text(o, r);
        if (r->ntargets) targets_text(o, r);
        if (r->choice) choice_text(o, r);
    }
    return clarity_report_status(o, err);
}
