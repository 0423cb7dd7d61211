/* Text and JSON (clarity.anomalies/1, docs/anomalies.md) reports of a LADRA analysis. */
#ifndef CLARITY_ANOMALIES_REPORT_H
#define CLARITY_ANOMALIES_REPORT_H
#include <stdio.h>
#include "clarity/anomalies.h"
#include "util/jsonw.h"

void report_anomalies_text(FILE *o, const struct clarity_app *a, const struct clarity_anomalies_result *r,
                           const struct clarity_logs *logs, size_t limit);
void report_anomalies_json(struct jsonw *w, const struct clarity_app *a, const struct clarity_anomalies_result *r,
                           const struct clarity_logs *logs);

#endif
