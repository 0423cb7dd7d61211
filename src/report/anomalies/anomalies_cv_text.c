/* `clarity anomalies cv`: precision and recall of each method, as a Markdown table. */
#include "clarity/report.h"

static void cv_value(FILE *o, double v)
{
    if (v < 0) fprintf(o, " | -");
    else fprintf(o, " | %.2f", v);
}

void clarity_report_ladra_cv_header(FILE *o)
{
    fprintf(o, "| mode | method | class | runs | P | recall |\n|---|---|---|---:|---:|---:|\n");
}

void clarity_report_ladra_cv_text(FILE *o, bool eventlog_only, double min_cause, const struct ladra_cv_result *r)
{
    if (!r->samples) return;
    char confident[64];
    snprintf(confident, sizeof confident, "GRNN extended, min cause %g", min_cause);
    const char *const method[LADRA_CV_NMETHOD] = {"GRNN extended", confident, "GRNN paper", "rules"};
    for (int me = 0; me < LADRA_CV_NMETHOD; me++)
        for (int k = 0; k < LADRA_NCLASS; k++) {
            int cl = (k + 1) % LADRA_NCLASS;   /* the four causes first, normal last */
            fprintf(o, "| %s | %s | %s | %zu", eventlog_only ? "eventlog" : "logs", method[me], clarity_ladra_class_name(cl),
                    r->per_class[cl]);
            cv_value(o, r->precision[me][cl]);
            cv_value(o, r->recall[me][cl]);
            fprintf(o, " |\n");
        }
}
