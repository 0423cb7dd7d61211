/* Text and JSON (clarity.anomalies/1, docs/anomalies.md) reports of a LADRA analysis. */
#ifndef CLARITY_ANOMALIES_REPORT_H
#define CLARITY_ANOMALIES_REPORT_H
#include <stdio.h>
#include "clarity/anomalies.h"
#include "clarity/error.h"
#include "util/jsonw.h"

/* Both return 0, or CLARITY_EIO / CLARITY_ENOMEM with err filled (report.h). */
int report_anomalies_text(FILE *o, const struct clarity_app *a, const struct clarity_anomalies_result *r,
                          const struct clarity_logs *logs, size_t limit, struct clarity_error *err);
int report_anomalies_json(struct jsonw *w, const struct clarity_app *a, const struct clarity_anomalies_result *r,
                          const struct clarity_logs *logs, struct clarity_error *err);
/* `clarity anomalies cv`: a Markdown table; the header, then per mode the rows of every
 * method and class (the four causes first, normal last): runs, precision, recall ("-" where
 * never defined). A mode without samples prints nothing. */
void report_ladra_cv_header(FILE *o);
void report_ladra_cv_text(FILE *o, bool eventlog_only, double min_cause, const struct ladra_cv_result *r);

#endif
