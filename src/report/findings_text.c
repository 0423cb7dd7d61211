/* `clarity findings` as text: the application in one line, then the top findings, each as
 * its title, its saving with how it was computed, and what to try; fitted to the width the
 * CLI decides (sentences wrapped, never cut). */
#include <stdio.h>
#include <string.h>
#include "clarity/report.h"
#include "report/table.h"

static const char *label(const struct clarity_finding *f)
{
    return f->method == CLARITY_FM_REPLAY ? "[replay]" : f->method == CLARITY_FM_BOUND ? "[bound]" : "[estimate]";
}

int clarity_report_findings_text(FILE *o, const struct clarity_app *a, const struct clarity_findings *r,
                                 const struct findings_report_options *opt, struct clarity_error *err)
{
    size_t width = opt ? opt->width : 100, limit = opt ? opt->limit : 0;
    char d[32], s[32];
    /* a log without an application start has no name: no empty "()" */
    const char *name = clarity_app_str(a, a->name);
    clarity_fit_line(o, width, "%s%s%s%s%s%s: %s, %zu task attempts", clarity_app_str(a, a->app_id),
                     a->attempt_id ? "/" : "", clarity_app_str(a, a->attempt_id), *name ? " (" : "", name, *name ? ")" : "",
                     clarity_fmt_ms(d, sizeof d, r->duration_ms), r->tasks);
    /* A damaged log (cut, without its end, TaskEnds dropped) makes every saving below less
     * certain, and "No findings" may only mean the problem was not logged: said on the second
     * line, before anything is read as a verdict, with where to see what is missing. */
    char flags[256];
    clarity_report_integrity_flags(a, flags, sizeof flags);
    if (strcmp(flags, "ok"))
        clarity_fit_wrapf(o, width, "", "Log integrity: %s: figures cover only what was logged (clarity summary).", flags);
    if (!r->tasks) {
        fprintf(o, "No findings: the log has no task events, and every rule reads them.\n");
        return clarity_report_status(o, err);
    }
    if (!r->n) {
        clarity_fit_wrapf(o, width, "", "No findings: no rule of docs/findings.md found a fix worth %s%s.",
                          r->candidates ? "its threshold" : "reporting", r->candidates ? " (smaller hits left out)" : "");
        return clarity_report_status(o, err);
    }
    size_t shown = limit && limit < r->n ? limit : r->n;
    for (size_t i = 0; i < shown; i++) {
        const struct clarity_finding *f = &r->f[i];
        char lead[24];
        snprintf(lead, sizeof lead, "%zu. ", i + 1);
        clarity_fit_wrapf(o, width, lead, "%s.", f->title);
        if (f->saving_ms > 0 || f->saving_core_ms <= 0) {
            double pct = r->duration_ms > 0 ? 100.0 * (double)f->saving_ms / (double)r->duration_ms : 0;
            clarity_fit_wrapf(o, width, "   ", "Saves ~%s of %s (%.0f%%) %s%s%s.", clarity_fmt_ms(s, sizeof s, f->saving_ms),
                              d, pct, label(f), f->saving_core_ms > 0 ? "; core time " : "",
                              f->saving_core_ms > 0 ? clarity_fmt_ms(s, sizeof s, f->saving_core_ms) : "");
        } else {
            double pct = r->core_ms_allocated > 0 ? 100.0 * (double)f->saving_core_ms / (double)r->core_ms_allocated : 0;
            clarity_fit_wrapf(o, width, "   ", "Saves ~%.2f core-hours of %.2f allocated (%.0f%%) %s.",
                              (double)f->saving_core_ms / 3600e3, (double)r->core_ms_allocated / 3600e3, pct, label(f));
        }
        /* the action sentences start with "Try ..." where they propose a setting */
        clarity_fit_wrapf(o, width, "   ", "Try: %s", strncmp(f->action, "Try ", 4) ? f->action : f->action + 4);
        if (f->setting[0])
            clarity_fit_wrapf(o, width, "   ", "Setting: %s = %s (now %s)", f->setting, f->proposed, f->current);
        if (opt && opt->why) {
            if (f->caveat[0]) clarity_fit_wrapf(o, width, "   ", "How: %s; confidence %s.", f->caveat,
                                                clarity_finding_confidence_name(f->confidence));
            for (size_t k = 0; k < f->nev; k++)
                clarity_fit_wrapf(o, width, "   ", "  %s = %.6g %s", f->ev[k].name, f->ev[k].value, f->ev[k].unit);
        }
    }
    if (shown < r->n) fprintf(o, "... %zu more (--limit 0 shows all).\n", r->n - shown);
    /* wrapped like the findings above it: the legend is read on the same terminal */
    clarity_fit_wrap(o, width, "",
                     "[replay]: the slot replay re-run without the problem; [bound]: an upper bound; [estimate]: from "
                     "sizes and assumed rates. --why: how each saving was computed (docs/findings.md).");
    return clarity_report_status(o, err);
}
