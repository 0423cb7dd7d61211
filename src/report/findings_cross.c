/* `clarity findings --deep` over several applications: the section "Across applications"
 * (after the per-application findings) in text, and the top-level array
 * "across_applications" (with "across_applications_windows": how the groups were cut) of the
 * clarity.findings/1 document (docs/findings.md). */
#include <stdio.h>
#include <string.h>
#include "clarity/report.h"
#include "report/table.h"
#include "report/findings_json.h"
#include "util/jsonw.h"

static double ev(const struct clarity_finding *f, const char *name)
{
    for (size_t k = 0; k < f->nev; k++)
        if (!strcmp(f->ev[k].name, name)) return f->ev[k].value;
    return 0;
}

int clarity_report_findings_cross_text(FILE *o, const struct findings_cross_report *c, size_t width, bool why,
                                       struct clarity_error *err)
{
    char s[32], d[32];
    fprintf(o, "\n");
    /* a group longer than the window was analysed in windows: said only then, so the line of
       a directory whose groups fit is the one it always was */
    char win[160] = "";
    if (c->windows > c->groups)
        snprintf(win, sizeof win, ", in %zu windows of at most %zu applications (neighbours in start order)",
                 c->windows, c->window);
    clarity_fit_wrapf(o, width, "", "Across applications: %zu application(s), %zu group(s) that ran at the same time%s "
                      "(iQCAR over each %s, one unit per application, hosts matched by name).", c->napps, c->groups,
                      win, win[0] ? "window" : "group");
    if (!c->n) {
        clarity_fit_wrapf(o, width, "", "No findings: %s.", c->groups ? "no application took 30% of the others' "
                          "runtime (clarity contention --unit app LOGS shows the figures)" : "no two applications "
                          "overlapped in time");
        return clarity_report_status(o, err);
    }
    for (size_t i = 0; i < c->n; i++) {
        const struct clarity_finding *f = &c->x[i].f;
        char lead[24];
        snprintf(lead, sizeof lead, "%zu. ", i + 1);
        size_t tl = strlen(c->x[i].title);   /* a title cut with "..." takes no full stop */
        clarity_fit_wrapf(o, width, lead, "%s%s", c->x[i].title, tl && c->x[i].title[tl - 1] == '.' ? "" : ".");
        double span = ev(f, "span_ms");
        clarity_fit_wrapf(o, width, "   ", "Saves ~%s of the %s the %.0f applications ran together (%.0f%%) [estimate].",
                          clarity_fmt_ms(s, sizeof s, f->saving_ms), clarity_fmt_ms(d, sizeof d, (int64_t)span),
                          ev(f, "applications"), span > 0 ? 100.0 * (double)f->saving_ms / span : 0);
        clarity_fit_wrapf(o, width, "   ", "Try: %s", f->action);
        if (f->setting[0])
            clarity_fit_wrapf(o, width, "   ", "Setting: %s = %s (now %s)", f->setting, f->proposed, f->current);
        if (why) {
            if (f->caveat[0]) clarity_fit_wrapf(o, width, "   ", "How: %s; confidence %s.", f->caveat,
                                                clarity_finding_confidence_name(f->confidence));
            for (size_t k = 0; k < f->nev; k++)
                clarity_fit_wrapf(o, width, "   ", "  %s = %.6g %s", f->ev[k].name, f->ev[k].value, f->ev[k].unit);
        }
    }
    return clarity_report_status(o, err);
}

int clarity_report_findings_cross_json(struct jsonw *w, const struct findings_cross_report *c, struct clarity_error *err)
{
    clarity_jsonw_key(w, "across_applications");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < c->n; i++) {
        const struct clarity_cross_finding *x = &c->x[i];
        const struct clarity_finding *f = &x->f;
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "rank", (int64_t)i + 1);
        clarity_jsonw_kstr(w, "kind", clarity_finding_kind_name(f->kind));
        clarity_jsonw_kstr(w, "title", x->title);
        clarity_jsonw_key(w, "where");
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "app_id", x->app_id);
        clarity_jsonw_kstr(w, "name", x->name);
        clarity_jsonw_obj_end(w);
        clarity_jsonw_key(w, "victims");
        clarity_jsonw_arr_begin(w);
        for (size_t v = 0; v < x->nvictims; v++) {
            clarity_jsonw_obj_begin(w);
            clarity_jsonw_kstr(w, "app_id", x->victims[v].app_id);
            clarity_jsonw_kdouble(w, "dor", x->victims[v].dor);
            clarity_jsonw_kint(w, "runtime_ms", x->victims[v].runtime_ms);
            clarity_jsonw_obj_end(w);
        }
        clarity_jsonw_arr_end(w);
        clarity__report_finding_tail(w, f);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    /* how the groups were cut: the bound on the models held at once is checkable */
    clarity_jsonw_key(w, "across_applications_windows");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "groups", (int64_t)c->groups);
    clarity_jsonw_kint(w, "windows", (int64_t)c->windows);
    clarity_jsonw_kint(w, "max_applications", (int64_t)c->window);
    clarity_jsonw_kint(w, "max_models_held", (int64_t)c->max_held);
    clarity_jsonw_kint(w, "unconfirmed", (int64_t)c->unconfirmed);
    clarity_jsonw_obj_end(w);
    return clarity_report_status(w->out, err);
}
