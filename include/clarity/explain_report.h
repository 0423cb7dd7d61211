/* Report writers for `clarity blocked` and `clarity stragglers`: they print analysis
 * results and compute nothing an analysis would need. */
#ifndef CLARITY_EXPLAIN_REPORT_H
#define CLARITY_EXPLAIN_REPORT_H
#include <stdio.h>
#include "clarity/blocked.h"
#include "clarity/error.h"
#include "util/jsonw.h"
#include "clarity/stragglers.h"

/* Why each resource's figure is an approximation (or missing) on this log; NULL if exact. */
const char *blocked_resource_note(const struct clarity_blocked_result *r, enum clarity_resource res);
/* "GC could save up to 18%; network at most 0.4%" */
void blocked_verdict(const struct clarity_blocked_group *g, char *buf, size_t cap);
/* "job 3", "sql 7", "app" and the group's name, for headings */
const char *blocked_group_name(const struct clarity_app *a, int kind, size_t row);

/* The writers return 0, or CLARITY_EIO with err filled (report.h). */
int report_blocked_text(FILE *o, const struct clarity_app *a, const struct clarity_blocked_result *r,
                        struct clarity_error *err);
int report_blocked_json(struct jsonw *w, const struct clarity_app *a, const struct clarity_blocked_result *r,
                        struct clarity_error *err);

struct stragglers_report_options { size_t stage_limit; };
int report_stragglers_text(FILE *o, const struct clarity_app *a, const struct clarity_stragglers_result *r,
                           const struct stragglers_report_options *opt, struct clarity_error *err);
int report_stragglers_json(struct jsonw *w, const struct clarity_app *a, const struct clarity_stragglers_result *r,
                           struct clarity_error *err);

#endif
