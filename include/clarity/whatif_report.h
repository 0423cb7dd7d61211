/* Report writers for `clarity whatif`: they print analysis results and compute nothing an
 * analysis would need. */
#ifndef CLARITY_WHATIF_REPORT_H
#define CLARITY_WHATIF_REPORT_H
#include <stdio.h>
#include "clarity/error.h"
#include "util/jsonw.h"
#include "clarity/whatif.h"

struct whatif_report {
    const struct clarity_hw *base;
    const struct clarity_resource_result *res;        /* NULL: resource model not asked */
    const char *whatif_label;                         /* "disks per host x2, network 10 Gbps", or NULL */
    const struct clarity_curve_result *curve;         /* NULL: no core-count curve */
    const struct clarity_curve_result *slot_replay;   /* one point at the what-if's cores, or NULL */
    size_t limit;                                     /* stage and job rows in text (0 = all) */
};

/* The thesis' caveat, printed with every resource-model result. */
extern const char *const whatif_caveat;

/* Both return 0, or CLARITY_EIO / CLARITY_ENOMEM with err filled (report.h). */
int report_whatif_text(FILE *o, const struct clarity_app *a, const struct whatif_report *r, struct clarity_error *err);
/* One object per application of the clarity.whatif/1 schema (docs/whatif.md). */
int report_whatif_json(struct jsonw *w, const struct clarity_app *a, const struct whatif_report *r,
                       struct clarity_error *err);

#endif
