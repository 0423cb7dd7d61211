/* PERIDOT prediction as text: the training points first, then the model, then each target. */
#include <math.h>
#include <string.h>
#include <stdio.h>
#include "clarity/report.h"
#include "report/table.h"

size_t clarity_predict_warnings(const struct predict_report *r, const char **out, size_t cap)
{
    size_t n = 0;
    const struct peridot_model *m = r->model;
#define W(cond, text) do { if ((cond) && n < cap) out[n++] = (text); } while (0)
    W(m->all_fixed, "no group's time scales with the data in these references (every group fixed): the prediction "
                    "is the fixed time for every target");
    W(m->negative_fixed, "the fixed time is negative: variable groups overlapped in the references and are "
                         "double-counted");
    W(m->size_ratio_mismatch, "the given reference sizes disagree with the logs' input bytes by more than 10%");
    bool changed = false, last_event = false, attempts = false, notasks = false;
    for (size_t i = 0; i < r->nrefs; i++) {
        changed |= r->refs[i].cores_changed;
        last_event |= r->refs[i].time_from_last_event;
        attempts |= r->refs[i].multi_attempt_stages > 0;
        notasks |= r->refs[i].no_task_events;
    }
    W(changed, "executors came or went while a reference ran: its core count is the most alive while one of its stages ran");
    W(last_event, "a reference has no ApplicationEnd: its time runs to its last event");
    W(attempts, "a reference retried stages: their span runs from the first attempt to the last");
    W(notasks, "a reference has no task events: stage spans end at the stage completion time, not the last task");
    W(m->ndata_scaled > 0, "beyond the paper: fixed-partition groups scaled with the data per task (--fixed-groups "
                           "constant gives the paper's model)");
    W(m->nwave_scaled > 0, "beyond the paper: fixed groups wave-scaled with cores (--scale-fixed)");
#undef W
    return n;
}

static const char *fmt_size(char *buf, size_t cap, double v, bool bytes)
{
    if (bytes) return clarity_fmt_bytes(buf, cap, (int64_t)llround(v));
    snprintf(buf, cap, "%.6g", v);
    return buf;
}

static const char *from_name(int f)
{
    return f == PERIDOT_FROM_USER ? "given" : f == PERIDOT_FROM_LOG ? "from log" : "unknown";
}

/* The groups in their order (the order their stages ran), up to the limit; the first stage's
 * name is cut in the middle to the width, figures never. */
static int breakdown(FILE *o, const struct predict_report *r, const struct peridot_prediction *p)
{
    static const struct table_col cols[] = {{"group", TCOL_NUM}, {"first stage", TCOL_NAME}, {"kind", TCOL_FIXED},
                                             {"tasks", TCOL_NUM}, {"waves", TCOL_NUM}, {"wave time", TCOL_NUM},
                                             {"time", TCOL_NUM}, {"", TCOL_FIXED}};
    const struct peridot_model *m = r->model;
    struct table t;
    clarity_table_init(&t, cols, sizeof cols / sizeof *cols);
    size_t shown = r->limit && r->limit < m->ngroups ? r->limit : m->ngroups;
    for (size_t g = 0; g < shown; g++) {
        const struct peridot_group *G = &m->groups[g];
        const struct peridot_group_pred *q = &p->groups[g];
        char num[24], first[512], tasks[32], waves[32], b1[32], b2[32];
        snprintf(num, sizeof num, "%zu", g + 1);
        snprintf(first, sizeof first, "%lld%s %s", (long long)m->members[G->first], G->n > 1 ? "+" : "",
                 m->member_names[G->first] ? m->member_names[G->first] : "");
        bool fixed = G->kind == PERIDOT_FIXED;
        snprintf(tasks, sizeof tasks, fixed ? "%.0f" : "%.1f", q->tasks);
        snprintf(waves, sizeof waves, "%.0f", q->waves);
        const char *row[] = {num, first, clarity_peridot_kind_name(G->kind), tasks, fixed ? "-" : waves,
                             fixed ? "-" : clarity_fmt_ms(b1, sizeof b1, llround(q->wave_ms)),
                             clarity_fmt_ms(b2, sizeof b2, llround(q->span_ms)), fixed ? "(in F)" : ""};
        clarity_table_row(&t, row);
    }
    int rc = clarity_table_write(o, &t, 4, r->width);
    clarity_table_free(&t);
    if (shown < m->ngroups) fprintf(o, "    (%zu more group(s); --limit 0 shows all)\n", m->ngroups - shown);
    return rc;
}

/* How the answer and the interval were made, and where they cannot be trusted. */
static void answer_lines(FILE *o, const struct predict_report *r, bool any_far)
{
    const struct peridot_model *m = r->model;
    const struct peridot_combination *c = &r->preds[0].comb;
    char line[768];
    if (!m->combine)
        snprintf(line, sizeof line, "PERIDOT's model (the combination with the affine fit is off: %s)",
                 r->opt->fixed == PERIDOT_FIXED_AUTO ? "--peridot-only" : "fixed groups not auto");
    else if (c->rule == PERIDOT_INTERVAL_HOLDOUT)
        snprintf(line, sizeof line, "beyond the paper: PERIDOT and the affine fit mixed by how well each predicted the largest "
                 "reference from the others (errors %.1f%% and %.1f%%: %.0f%% PERIDOT)", 100 * c->holdout_err_peridot,
                 100 * c->holdout_err_affine, 100 * c->weight_peridot);
    else
        snprintf(line, sizeof line, "beyond the paper: with two references %s (time grew as data^%.2f; over %.2f is "
                 "non-linear growth)",
                 m->nonlinear ? "the affine fit of each scaled group alone" : "the mean of PERIDOT and the affine fit",
                 m->app_elasticity, m->nonlinear_elasticity);
    clarity_fit_wrap(o, r->width, "answer       ", line);
    snprintf(line, sizeof line, "%s, widened by 10%%; an approximation, not a statistical confidence level",
             c->rule == PERIDOT_INTERVAL_HOLDOUT ? "low - high spans PERIDOT, the affine fit and the answer +- the smaller "
                                                   "held-out error"
                                                 : "low - high spans PERIDOT (weighted to nearer sizes) and the affine fit");
    clarity_fit_wrap(o, r->width, "interval     ", line);
    if (m->nonlinear) {
        snprintf(line, sizeof line, "non-linear growth: the references' time grew as data^%.2f (PERIDOT assumes ^1), e.g. "
                 "cached data no longer fitting in memory; predictions far from the references can be far off", m->app_elasticity);
        clarity_fit_wrap(o, r->width, "caution      ", line);
    }
    if (any_far)
        clarity_fit_wrap(o, r->width, "caution      ", "far: more than 4x beyond the references' sizes or cores; the method is "
                         "not validated there, trust the interval rather than the figure");
}

int clarity_report_predict_text(FILE *o, const struct predict_report *r, struct clarity_error *err)
{
    const struct peridot_model *m = r->model;
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
    fprintf(o, "PERIDOT prediction from %zu reference runs (Shah et al.)\n\n", r->nrefs);
    static const struct table_col refcols[] = {{"#", TCOL_NUM}, {"reference", TCOL_NAME}, {"data size", TCOL_NUM},
                                                {"", TCOL_FIXED}, {"cores", TCOL_NUM}, {"", TCOL_FIXED}, {"time", TCOL_NUM},
                                                {"groups", TCOL_NUM}};
    struct table t;
    clarity_table_init(&t, refcols, sizeof refcols / sizeof *refcols);
    for (size_t i = 0; i < r->nrefs; i++) {
        const struct peridot_ref *x = &r->refs[i];
        char num[24], cores[32], groups[24];
        snprintf(num, sizeof num, "%zu", i + 1);
        snprintf(cores, sizeof cores, "%.4g", x->cores);
        snprintf(groups, sizeof groups, "%zu", m->ngroups);
        const char *row[] = {num, x->label ? x->label : "-", fmt_size(b1, sizeof b1, x->data_size, r->sizes_in_bytes),
                             from_name(x->size_from), cores, from_name(x->cores_from),
                             clarity_fmt_ms(b2, sizeof b2, x->total_ms), groups};
        clarity_table_row(&t, row);
    }
    fprintf(o, "training points\n");
    int trc = clarity_table_write(o, &t, 2, r->width);
    clarity_table_free(&t);
    if (trc) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the report");
    char ds[64] = "", ws[48] = "";
    if (m->ndata_scaled) snprintf(ds, sizeof ds, ", %zu fixed-partition scaled by data per task", m->ndata_scaled);
    if (m->nwave_scaled) snprintf(ws, sizeof ws, ", %zu fixed wave-scaled", m->nwave_scaled);
    clarity_fit_wrapf(o, r->width, "\nmodel        ", "%zu stage groups: %zu variable, %zu fixed%s%s", m->ngroups, m->nvariable,
                      m->nfixed, ds, ws);
    fprintf(o, "             fixed time F = %s (", clarity_fmt_ms(b1, sizeof b1, llround(m->fixed_hat_ms)));
    for (size_t i = 0; i < m->nrefs; i++) fprintf(o, "%s%s", i ? ", " : "", clarity_fmt_ms(b2, sizeof b2, llround(m->fixed_ms[i])));
    fprintf(o, " in the references)\n");
    char line[1024];
    snprintf(line, sizeof line, "grouping: %s; fixed groups: %s%s",
            r->opt->grouping == PERIDOT_GROUP_OVERLAP ? "submitted before any member completed" : "submitted within delta",
            r->opt->fixed == PERIDOT_FIXED_CONSTANT ? "constant (the paper)"
            : r->opt->fixed == PERIDOT_FIXED_DATA ? "all scaled by data per task"
            : "constant unless their partition count is fixed while data grows",
            m->fixed_partitions ? " (detected: no partition count changed between references)" : "");
    clarity_fit_wrap(o, r->width, "             ", line);
    bool sz = false, co = false;
    for (size_t i = 0; i < r->nrefs; i++) {
        sz |= r->refs[i].size_from == PERIDOT_FROM_LOG;
        co |= r->refs[i].cores_from == PERIDOT_FROM_LOG;
    }
    if (!sz && !co) fprintf(o, "inferred     nothing: sizes and cores were given\n");
    else {
        snprintf(line, sizeof line, "%s%s%s", sz ? "data sizes = each log's largest stage input (bytes read)" : "",
                 sz && co ? "; " : "", co ? "cores = the most executor cores alive while a stage ran / spark.task.cpus" : "");
        clarity_fit_wrap(o, r->width, "inferred     ", line);
    }
    const char *warn[16];
    size_t nw = clarity_predict_warnings(r, warn, 16);
    for (size_t i = 0; i < nw; i++) clarity_fit_wrap(o, r->width, "warning      ", warn[i]);

    static const struct table_col predcols[] = {{"data size", TCOL_NUM}, {"cores", TCOL_NUM}, {"predicted", TCOL_NUM},
                                                 {"low", TCOL_NUM}, {"high", TCOL_NUM}, {"PERIDOT", TCOL_NUM},
                                                 {"affine", TCOL_NUM}, {"ideal scaling", TCOL_NUM}, {"note", TCOL_FIXED}};
    clarity_table_init(&t, predcols, sizeof predcols / sizeof *predcols);
    bool any_far = false;
    for (size_t k = 0; k < r->npreds; k++) {
        const struct peridot_prediction *p = &r->preds[k];
        const struct peridot_combination *c = &p->comb;
        char cores[32], b7[32];
        snprintf(cores, sizeof cores, "%.4g", p->cores);
        any_far |= c->far;
        const char *note = c->far && c->nonlinear ? "far,nonlin" : c->far ? "far" : c->nonlinear ? "nonlin" : "";
        const char *row[] = {fmt_size(b1, sizeof b1, p->data_size, r->sizes_in_bytes), cores,
                             clarity_fmt_ms(b2, sizeof b2, llround(c->point_ms)), clarity_fmt_ms(b3, sizeof b3, llround(c->low_ms)),
                             clarity_fmt_ms(b4, sizeof b4, llround(c->high_ms)), clarity_fmt_ms(b5, sizeof b5, llround(p->total_ms)),
                             clarity_fmt_ms(b7, sizeof b7, llround(c->affine_ms)),
                             clarity_fmt_ms(b6, sizeof b6, llround(clarity_peridot_ideal_scaling(m, p->data_size, p->cores))), note};
        clarity_table_row(&t, row);
    }
    fprintf(o, "\npredictions\n");
    trc = clarity_table_write(o, &t, 2, r->width);
    clarity_table_free(&t);
    if (trc) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the report");
    if (r->npreds) answer_lines(o, r, any_far);
    for (size_t k = 0; k < r->npreds && (k == 0 || r->detail); k++) {
        fprintf(o, "\nbreakdown at %s, %.4g cores\n", fmt_size(b1, sizeof b1, r->preds[k].data_size, r->sizes_in_bytes),
                r->preds[k].cores);
        if (breakdown(o, r, &r->preds[k])) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the report");
    }
    if (r->npreds > 1 && !r->detail) fprintf(o, "(--detail shows the breakdown at every target)\n");
    if (r->actual_source) {
        const struct peridot_combination *c = &r->preds[0].comb;
        double e = 100 * (c->point_ms - r->actual_ms) / r->actual_ms;
        /* the path last, where a long one sits alone on its continuation line; one longer than
         * that line is given by its file name (the references' table cuts paths likewise) */
        const char *src = r->actual_source, *slash = strrchr(src, '/');
        if (r->width && strlen(src) + 13 > r->width && slash && slash[1]) src = slash + 1;
        snprintf(line, sizeof line, "%s, predicted %s, error %+.1f%%, %s the interval (PERIDOT alone %+.1f%%), in %s",
                 clarity_fmt_ms(b1, sizeof b1, llround(r->actual_ms)), clarity_fmt_ms(b2, sizeof b2, llround(c->point_ms)), e,
                 r->actual_ms >= c->low_ms && r->actual_ms <= c->high_ms ? "inside" : "outside",
                 100 * (r->preds[0].total_ms - r->actual_ms) / r->actual_ms, src);
        clarity_fit_wrap(o, r->width, "\nactual       ", line);
    }
    return clarity_report_status(o, err);
}
