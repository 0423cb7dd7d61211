/* PERIDOT's model (Shah et al.) and prediction, with the choices the paper leaves
 * open: groups by "submitted before any member completed", mean wave times, rho = sum P / sum D
 * (the paper's garbled P_hat, algebraically its Eq. 3), waves = ceil(P/E - 1e-9) so rounding
 * error adds no spurious wave, references whose groups do not match by position refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/predict.h"

void clarity_peridot_options_default(struct peridot_options *o)
{
    memset(o, 0, sizeof *o);
    o->grouping = PERIDOT_GROUP_OVERLAP;
    o->delta_ms = 50;
    o->fixed = PERIDOT_FIXED_AUTO;
    o->growth_threshold = 0.5;
    o->nonlinear_elasticity = 1.25;
}

const char *clarity_peridot_kind_name(enum peridot_group_kind k)
{
    switch (k) {
    case PERIDOT_VARIABLE: return "variable";
    case PERIDOT_FIXED: return "fixed";
    case PERIDOT_FIXED_DATA_SCALED: return "fixed, data-scaled";
    case PERIDOT_FIXED_WAVE_SCALED: return "fixed, wave-scaled";
    }
    return "?";
}

double clarity_peridot_waves(double tasks, double cores)
{
    if (!(tasks > 0) || !(cores > 0)) return 0;
    double n = ceil(tasks / cores - 1e-9);   /* 12.000000000000002 / 12 is one wave */
    return n < 1 ? 1 : n;
}

static int64_t stage_end(const struct peridot_stage *s, bool for_span)
{
    /* Grouping asks "had it completed?" (stage Completion Time), the span asks "when did its
     * last task finish?" (max successful Finish Time); each falls back to the other. */
    int64_t first = for_span ? s->last_finish_ms : s->complete_ms;
    int64_t second = for_span ? s->complete_ms : s->last_finish_ms;
    return first ? first : second;
}

static int cmp_submit(const void *pa, const void *pb)
{
    const struct peridot_stage *a = *(const struct peridot_stage *const *)pa, *b = *(const struct peridot_stage *const *)pb;
    if (a->submit_ms != b->submit_ms) return a->submit_ms < b->submit_ms ? -1 : 1;
    return (a->stage_id > b->stage_id) - (a->stage_id < b->stage_id);
}
static int cmp_id(const void *pa, const void *pb)
{
    const struct peridot_stage *a = *(const struct peridot_stage *const *)pa, *b = *(const struct peridot_stage *const *)pb;
    return (a->stage_id > b->stage_id) - (a->stage_id < b->stage_id);
}

/* One reference cut into groups: ord holds its stages in group order (ids ascending inside a
 * group), start[g] .. start[g + 1] the members of group g. */
struct cut { const struct peridot_stage **ord; size_t *start; size_t ngroups; };

static int cut_groups(const struct peridot_ref *r, const struct peridot_options *o, struct cut *c)
{
    c->ord = malloc(sizeof *c->ord * r->nstages);
    c->start = malloc(sizeof *c->start * (r->nstages + 1));
    if (!c->ord || !c->start) return -1;
    for (size_t i = 0; i < r->nstages; i++) c->ord[i] = &r->stages[i];
    qsort(c->ord, r->nstages, sizeof *c->ord, cmp_submit);
    c->ngroups = 0;
    int64_t first_submit = 0, min_end = 0;
    for (size_t i = 0; i < r->nstages; i++) {
        const struct peridot_stage *s = c->ord[i];
        bool join;
        if (i == 0) join = false;
        else if (o->grouping == PERIDOT_GROUP_TOLERANCE) join = s->submit_ms - first_submit <= o->delta_ms;
        else join = min_end == 0 || s->submit_ms < min_end;   /* 0: a member never ended */
        int64_t e = stage_end(s, false);
        if (!join) {
            c->start[c->ngroups++] = i;
            first_submit = s->submit_ms;
            min_end = e;
        } else if (e && (min_end == 0 ? false : e < min_end)) {
            min_end = e;
        }
    }
    c->start[c->ngroups] = r->nstages;
    for (size_t g = 0; g < c->ngroups; g++)
        qsort(c->ord + c->start[g], c->start[g + 1] - c->start[g], sizeof *c->ord, cmp_id);
    return 0;
}

static void describe_group(const struct cut *c, size_t g, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    if (g >= c->ngroups) { snprintf(buf, cap, "(none)"); return; }
    for (size_t i = c->start[g]; i < c->start[g + 1] && len + 1 < cap; i++) {
        int w = snprintf(buf + len, cap - len, "%s%lld \"%.40s\"", i > c->start[g] ? ", " : "{",
                         (long long)c->ord[i]->stage_id, c->ord[i]->name ? c->ord[i]->name : "");
        if (w < 0) break;
        len += (size_t)w;
    }
    if (len + 2 < cap) strcat(buf, "}");
}

static int match(const struct cut *a, const struct cut *b, const struct peridot_ref *ra, const struct peridot_ref *rb,
                 struct clarity_error *err)
{
    size_t n = a->ngroups < b->ngroups ? a->ngroups : b->ngroups;
    size_t g = 0;
    for (; g < n; g++) {
        size_t na = a->start[g + 1] - a->start[g], nb = b->start[g + 1] - b->start[g];
        if (na != nb) break;
        bool same = true;
        for (size_t k = 0; k < na && same; k++) {
            const struct peridot_stage *x = a->ord[a->start[g] + k], *y = b->ord[b->start[g] + k];
            same = x->stage_id == y->stage_id && !strcmp(x->name ? x->name : "", y->name ? y->name : "");
        }
        if (!same) break;
    }
    if (g == n && a->ngroups == b->ngroups) return 0;
    char da[200], db[200];
    describe_group(a, g, da, sizeof da);
    describe_group(b, g, db, sizeof db);
    return clarity_error_set(err, CLARITY_EFORMAT, rb->label, 0, 0,
                             "the references do not run the same stages: %zu vs %zu stage groups; group %zu is %s in %s "
                             "but %s here (PERIDOT needs the same DAG at every size)",
                             a->ngroups, b->ngroups, g + 1, da, ra->label ? ra->label : "the first reference", db);
}

static double elasticity(const struct peridot_model *m, const struct peridot_group *g)
{
    double dmin = m->data[0], dmax = m->data[0];
    for (size_t r = 1; r < m->nrefs; r++) {
        if (m->data[r] < dmin) dmin = m->data[r];
        if (m->data[r] > dmax) dmax = m->data[r];
    }
    if (dmax < dmin * 1.01) return NAN;
    double mx = 0, my = 0, sxy = 0, sxx = 0;
    for (size_t r = 0; r < m->nrefs; r++) {
        if (!(g->span_ms[r] > 0)) return NAN;
        mx += log(m->data[r]) / (double)m->nrefs;
        my += log(g->span_ms[r]) / (double)m->nrefs;
    }
    for (size_t r = 0; r < m->nrefs; r++) {
        double x = log(m->data[r]) - mx;
        sxy += x * (log(g->span_ms[r]) - my);
        sxx += x * x;
    }
    return sxy / sxx;
}

/* fixed_app: no group's partition count changed although the data size did, so the counts
 * are set by configuration (spark.default.parallelism, an explicit repartition) and every
 * multi-task group reads more per task as the data grows. */
static void classify(struct peridot_model *m, struct peridot_group *g, const struct peridot_options *o, bool fixed_app)
{
    size_t R = m->nrefs;
    bool variable = false;
    for (size_t r = 1; r < R; r++) variable |= g->tasks[r] != g->tasks[0];
    for (size_t r = 0; r < R; r++) g->waves[r] = clarity_peridot_waves((double)g->tasks[r], m->cores[r]);
    g->elasticity = elasticity(m, g);
    double wsum = 0, psum = 0, dsum = 0, usum = 0;
    for (size_t r = 0; r < R; r++) {
        double w = g->waves[r] > 0 ? g->span_ms[r] / g->waves[r] : 0;
        wsum += w;
        usum += g->tasks[r] > 0 ? w / (m->data[r] / (double)g->tasks[r]) : 0;
        psum += (double)g->tasks[r];
        dsum += m->data[r];
    }
    g->wave_ms = wsum / (double)R;
    if (variable) {
        g->kind = PERIDOT_VARIABLE;
        g->rho = psum / dsum;
        m->nvariable++;
        return;
    }
    bool grew = !isnan(g->elasticity) &&
                (o->fixed == PERIDOT_FIXED_DATA ||
                 (o->fixed == PERIDOT_FIXED_AUTO && (g->elasticity >= o->growth_threshold || (fixed_app && g->tasks[0] > 1))));
    if (grew) {
        g->kind = PERIDOT_FIXED_DATA_SCALED;
        g->unit_wave_ms = usum / (double)R;
        m->ndata_scaled++;
    } else if (o->scale_fixed && g->tasks[0] > 1) {
        g->kind = PERIDOT_FIXED_WAVE_SCALED;
        m->nwave_scaled++;
    } else {
        g->kind = PERIDOT_FIXED;
        m->nfixed++;
    }
}

/* The application's d ln T / d ln D over the references (log-log least squares) and whether it
 * is non-linear growth: the time grew faster than the data by more than the options' threshold
 * (1.25: 25% above proportional, set a priori; the shared runs sit at 0.70 (PageRank) and 1.84
 * (linear regression, whose iterations slow down once the cached data no longer fits). */
static void app_growth(struct peridot_model *m, const struct peridot_options *o)
{
    m->combine = o->fixed == PERIDOT_FIXED_AUTO && !o->no_combine;
    m->nonlinear_elasticity = o->nonlinear_elasticity > 0 ? o->nonlinear_elasticity : 1.25;
    m->app_elasticity = NAN;
    double mx = 0, my = 0, n = (double)m->nrefs, sxx = 0, sxy = 0;
    for (size_t r = 0; r < m->nrefs; r++) {
        if (!(m->total_ms[r] > 0) || !(m->data[r] > 0)) return;
        mx += log(m->data[r]) / n;
        my += log(m->total_ms[r]) / n;
    }
    for (size_t r = 0; r < m->nrefs; r++) {
        double x = log(m->data[r]) - mx;
        sxx += x * x;
        sxy += x * (log(m->total_ms[r]) - my);
    }
    if (!(sxx > 1e-12)) return;
    m->app_elasticity = sxy / sxx;
    m->nonlinear = m->app_elasticity > m->nonlinear_elasticity;
}

/* One way of naming reference r: its path, its file name, or its position (#2). */
static const char *ref_name(const struct peridot_ref *refs, size_t r, int how, char *buf, size_t cap)
{
    const char *lab = refs[r].label ? refs[r].label : "";
    if (how == 0 && *lab) return lab;
    if (how <= 1 && *lab) {
        const char *sl = strrchr(lab, '/');
        return sl && sl[1] ? sl + 1 : lab;
    }
    snprintf(buf, cap, "#%zu", r + 1);
    return buf;
}

/* The message naming references `how`; false when it did not fit in cap. */
static bool missing_msg(const struct peridot_ref *refs, size_t nrefs, int how, char *msg, size_t cap)
{
    size_t len = 0;
    msg[0] = 0;
    for (int what = 0; what < 2; what++) {
        size_t n = 0;
        for (size_t r = 0; r < nrefs; r++) {
            if (what == 0 ? refs[r].data_size > 0 : refs[r].cores > 0) continue;
            char nb[32];
            int w = snprintf(msg + len, cap - len, "%s%s%s", n ? ", " : len ? "; " : "",
                             n ? "" : what == 0 ? "data size unknown in " : "core count unknown in ",
                             ref_name(refs, r, how, nb, sizeof nb));
            if (w < 0 || (size_t)w >= cap - len) return false;
            len += (size_t)w;
            n++;
        }
        if (n) {
            int w = snprintf(msg + len, cap - len, "%s",
                             what == 0 ? " (no input bytes in the log): give --ref-size"
                                       : " (no executor with cores while its stages ran): give --ref-cores");
            if (w < 0 || (size_t)w >= cap - len) return false;
            len += (size_t)w;
        }
    }
    return true;
}

/* Every missing figure of every reference in one message, each flag named once ("data size
 * unknown in a, b (no input bytes in the log): give --ref-size; core count unknown in c (no
 * executor with cores while its stages ran): give --ref-cores"), so a user fixes the command
 * once instead of once per reference. References are named by path, else by file name, else by
 * position (#2), whichever first fits the error's message. Returns 1 when something is missing. */
static int missing_inputs(const struct peridot_ref *refs, size_t nrefs, struct clarity_error *err)
{
    bool any = false;
    for (size_t r = 0; r < nrefs; r++) any |= !(refs[r].data_size > 0) || !(refs[r].cores > 0);
    if (!any) return 0;
    char msg[sizeof err->msg];
    for (int how = 0; how < 3 && !missing_msg(refs, nrefs, how, msg, sizeof msg); how++) {}
    clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "%s", msg);
    return 1;
}

int clarity_peridot_fit(const struct peridot_ref *refs, size_t nrefs, const struct peridot_options *o,
                struct peridot_model *out, struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    if (nrefs < 2 || nrefs > PERIDOT_MAX_REFS)
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "PERIDOT needs 2 to %d reference runs, not %zu",
                                 PERIDOT_MAX_REFS, nrefs);
    out->nrefs = nrefs;
    if (missing_inputs(refs, nrefs, err)) return CLARITY_EUSAGE;
    for (size_t r = 0; r < nrefs; r++) {
        out->data[r] = refs[r].data_size;
        out->cores[r] = refs[r].cores;
        out->total_ms[r] = (double)refs[r].total_ms;
    }
    struct cut cuts[PERIDOT_MAX_REFS] = {0};
    int rc = CLARITY_OK;
    for (size_t r = 0; r < nrefs && rc == CLARITY_OK; r++)
        if (cut_groups(&refs[r], o, &cuts[r]) < 0) rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    for (size_t r = 1; r < nrefs && rc == CLARITY_OK; r++) rc = match(&cuts[0], &cuts[r], &refs[0], &refs[r], err);
    if (rc == CLARITY_OK) {
        size_t ng = cuts[0].ngroups, ns = refs[0].nstages;
        out->groups = calloc(ng, sizeof *out->groups);
        out->members = malloc(sizeof *out->members * ns);
        out->member_names = malloc(sizeof *out->member_names * ns);
        if (!out->groups || !out->members || !out->member_names)
            rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
        else {
            out->ngroups = ng;
            out->nmembers = ns;
            for (size_t i = 0; i < ns; i++) {
                out->members[i] = cuts[0].ord[i]->stage_id;
                out->member_names[i] = cuts[0].ord[i]->name;
            }
        }
    }
    if (rc == CLARITY_OK) {
        bool fixed_app = true, sizes_differ = false;
        for (size_t r = 1; r < nrefs; r++) sizes_differ |= fabs(out->data[r] / out->data[0] - 1) > 0.01;
        for (size_t gi = 0; gi < out->ngroups; gi++) {
            struct peridot_group *g = &out->groups[gi];
            g->first = cuts[0].start[gi];
            g->n = cuts[0].start[gi + 1] - g->first;
            for (size_t r = 0; r < nrefs; r++) {
                int64_t lo = INT64_MAX, hi = 0;
                for (size_t k = cuts[r].start[gi]; k < cuts[r].start[gi + 1]; k++) {
                    const struct peridot_stage *s = cuts[r].ord[k];
                    g->tasks[r] += s->num_tasks;
                    if (s->submit_ms < lo) lo = s->submit_ms;
                    if (stage_end(s, true) > hi) hi = stage_end(s, true);
                }
                g->span_ms[r] = hi > lo ? (double)(hi - lo) : 0;
                if (g->tasks[r] != g->tasks[0]) fixed_app = false;
            }
        }
        out->fixed_partitions = fixed_app && sizes_differ;
        for (size_t gi = 0; gi < out->ngroups; gi++) classify(out, &out->groups[gi], o, out->fixed_partitions);
        for (size_t r = 0; r < nrefs; r++) {
            double f = out->total_ms[r];
            for (size_t gi = 0; gi < out->ngroups; gi++)
                if (out->groups[gi].kind != PERIDOT_FIXED) f -= out->groups[gi].span_ms[r];
            out->fixed_ms[r] = f;
            out->fixed_hat_ms += f / (double)nrefs;
        }
        out->all_fixed = out->nvariable == 0 && out->ndata_scaled == 0;
        app_growth(out, o);
        out->negative_fixed = out->fixed_hat_ms < 0;
        /* sizes may be in any unit; check the given sizes' ratio against the logs' input bytes
         * and warn when they disagree by more than 10% */
        bool all_bytes = true;
        for (size_t r = 0; r < nrefs; r++) all_bytes &= refs[r].input_bytes > 0;
        if (all_bytes)
            for (size_t r = 1; r < nrefs; r++) {
                double a = refs[r].data_size / refs[0].data_size;
                double b = (double)refs[r].input_bytes / (double)refs[0].input_bytes;
                if (fabs(a / b - 1) > 0.10) out->size_ratio_mismatch = true;
            }
    }
    for (size_t r = 0; r < nrefs; r++) {
        free(cuts[r].ord);
        free(cuts[r].start);
    }
    if (rc != CLARITY_OK) clarity_peridot_model_free(out);
    return rc;
}

void clarity_peridot_model_free(struct peridot_model *m)
{
    free(m->groups);
    free(m->members);
    free(m->member_names);
    m->groups = NULL;
    m->members = NULL;
    m->member_names = NULL;
}

int clarity_peridot_predict(const struct peridot_model *m, double data_size, double cores, struct peridot_prediction *out,
                    struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    out->data_size = data_size;
    out->cores = cores;
    out->groups = calloc(m->ngroups ? m->ngroups : 1, sizeof *out->groups);
    if (!out->groups) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    for (size_t gi = 0; gi < m->ngroups; gi++) {
        const struct peridot_group *g = &m->groups[gi];
        struct peridot_group_pred *p = &out->groups[gi];
        switch (g->kind) {
        case PERIDOT_VARIABLE:
            p->tasks = data_size * g->rho;                       /* Eq. 3 */
            p->waves = clarity_peridot_waves(p->tasks, cores);           /* Eq. 1 */
            p->wave_ms = g->wave_ms;
            p->span_ms = p->waves * p->wave_ms;                  /* Eq. 2 */
            out->variable_ms += p->span_ms;
            break;
        case PERIDOT_FIXED_DATA_SCALED:
            p->tasks = (double)g->tasks[0];
            p->waves = clarity_peridot_waves(p->tasks, cores);
            p->wave_ms = g->unit_wave_ms * data_size / p->tasks; /* more data per task */
            p->span_ms = p->waves * p->wave_ms;
            out->scaled_fixed_ms += p->span_ms;
            break;
        case PERIDOT_FIXED_WAVE_SCALED:
            p->tasks = (double)g->tasks[0];
            p->waves = clarity_peridot_waves(p->tasks, cores);
            p->wave_ms = g->wave_ms;
            p->span_ms = p->waves * p->wave_ms;
            out->scaled_fixed_ms += p->span_ms;
            break;
        case PERIDOT_FIXED: {
            /* inside F_hat; shown for reference only */
            double s = 0;
            for (size_t r = 0; r < m->nrefs; r++) s += g->span_ms[r] / (double)m->nrefs;
            p->tasks = (double)g->tasks[0];
            p->span_ms = s;
            break;
        }
        }
    }
    out->total_ms = out->variable_ms + out->scaled_fixed_ms + m->fixed_hat_ms;   /* Eq. 4 */
    clarity_peridot_combine(m, data_size, cores, out->total_ms, &out->comb);
    return 0;
}

void clarity_peridot_prediction_free(struct peridot_prediction *p)
{
    free(p->groups);
    p->groups = NULL;
}

double clarity_peridot_ideal_scaling_ref(const struct peridot_model *m, size_t ref, double data_size, double cores)
{
    return m->total_ms[ref] * (data_size / m->data[ref]) * (m->cores[ref] / cores);
}

double clarity_peridot_ideal_scaling(const struct peridot_model *m, double data_size, double cores)
{
    double s = 0;
    for (size_t r = 0; r < m->nrefs; r++) s += clarity_peridot_ideal_scaling_ref(m, r, data_size, cores);
    return s / (double)m->nrefs;
}

double clarity_peridot_mape(const double *predicted, const double *actual, const bool *is_ref, size_t n)
{
    double s = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if ((is_ref && is_ref[i]) || actual[i] == 0) continue;
        s += fabs(predicted[i] - actual[i]) / fabs(actual[i]);
        k++;
    }
    return k ? 100 * s / (double)k : NAN;
}
