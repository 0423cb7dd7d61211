/* Reports for clarity contention: text, clarity.contention/1 JSON, rules JSON, DOT graph. */
#ifndef CLARITY_CONTENTION_REPORT_H
#define CLARITY_CONTENTION_REPORT_H
#include <stdio.h>
#include "clarity/contention.h"
#include "clarity/error.h"
#include "util/jsonw.h"

/* Each returns 0, or CLARITY_EIO / CLARITY_ENOMEM with err filled (report.h). */
/* targets: unit indices to show (NULL = every unit with contention, victims first). */
int report_contention_text(FILE *o, const struct iqcar_result *r, const long *targets, size_t ntargets,
                           struct clarity_error *err);
int report_contention_json(struct jsonw *w, const struct iqcar_result *r, const long *targets, size_t ntargets,
                           struct clarity_error *err);
int report_contention_rules(FILE *o, const struct iqcar_result *r, struct clarity_error *err);
/* The graph of the given targets (all when ntargets is 0) with VC, IF and, per node, the DOR
 * toward them; nodes with no DOR are left out unless full is set. */
int report_contention_dot(FILE *o, const struct iqcar_result *r, const long *targets, size_t ntargets, bool full,
                          struct clarity_error *err);

#endif
