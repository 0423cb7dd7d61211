/* Text and JSON (clarity.predict/1, docs/predict-json.md) for PERIDOT predictions. */
#ifndef CLARITY_PREDICT_REPORT_H
#define CLARITY_PREDICT_REPORT_H
#include <stdbool.h>
#include <stdio.h>
#include "clarity/error.h"
#include "util/jsonw.h"
#include "clarity/peridot.h"

struct predict_report {
    const struct peridot_ref *refs; size_t nrefs;
    const struct peridot_options *opt;
    const struct peridot_model *model;
    const struct peridot_prediction *preds; size_t npreds;
    bool sizes_in_bytes;           /* print sizes as bytes (from the logs or with units) */
    bool detail;                   /* breakdown for every target, not only the first */
    /* --actual */
    const char *actual_source;     /* NULL: none */
    double actual_ms;
};

/* The warnings that apply (static strings), for both formats. */
size_t predict_warnings(const struct predict_report *r, const char **out, size_t cap);

/* Both return 0, or CLARITY_EIO with err filled (report.h). */
int report_predict_text(FILE *o, const struct predict_report *r, struct clarity_error *err);
int report_predict_json(struct jsonw *w, const struct predict_report *r, struct clarity_error *err);

#endif
