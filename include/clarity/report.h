/* Report writers for `clarity summary`. They read the model and print; they compute nothing
 * an analysis would need. */
#ifndef CLARITY_REPORT_H
#define CLARITY_REPORT_H
#include <stdbool.h>
#include <stdio.h>
#include "clarity/aggregate.h"
#include "clarity/jsonw.h"
#include "clarity/model.h"

struct summary_options {
    size_t limit;        /* rows per table in text (0 = all) */
};

void report_summary_text(FILE *o, const struct clarity_app *a, const struct summary_options *opt);
void report_integrity_text(FILE *o, const struct clarity_app *a);
/* One object per application in the clarity.summary/1 schema (docs/summary-json.md). */
void report_summary_json(struct jsonw *w, const struct clarity_app *a);
void report_integrity_json(struct jsonw *w, const struct clarity_app *a);
/* One row per application, for directories of many. */
void report_fleet_header(FILE *o);
void report_fleet_row(FILE *o, const struct clarity_app *a);
void report_fleet_failed_row(FILE *o, const char *path, const char *error);

/* "12.3 s", "45 ms", "2.1 h" */
const char *fmt_ms(char *buf, size_t cap, int64_t ms);
/* "28.0 MB" (decimal units, as Spark's UI), "0" for zero */
const char *fmt_bytes(char *buf, size_t cap, int64_t bytes);
/* "2015-02-03 16:42:59.720" in UTC, "-" for 0 */
const char *fmt_time(char *buf, size_t cap, int64_t epoch_ms);

#endif
