/* Text and JSON (clarity.ernest/1, docs/ernest-json.md) for the ernest subcommands. Every
 * fit prints its training points and leave-one-out error. */
#ifndef CLARITY_ERNEST_REPORT_H
#define CLARITY_ERNEST_REPORT_H
#include <stdio.h>
#include "clarity/error.h"
#include "clarity/ernest.h"
#include "util/jsonw.h"

struct ernest_target { double scale, machines, predicted_s; struct ernest_extrapolation extrap; };

struct ernest_report {
    const char *command;                 /* "fit", "predict", "choose", "design" */
    const struct ernest_model *model;    /* NULL for design */
    const char *scale_unit;              /* "fraction of the full input", "GB of input", ... */
    double loo_threshold_pct;            /* flag a poor fit above this median LOO error */
    const struct ernest_target *targets; size_t ntargets;
    const struct ernest_design *design; const struct ernest_design_options *design_opt;
    const struct ernest_choice *choice; const struct ernest_choose_options *choose_opt;
    const char *actual_source; double actual_s;   /* --actual: compared with targets[0] */
};

/* Both return 0, or CLARITY_EIO with err filled (report.h). */
int report_ernest_text(FILE *o, const struct ernest_report *r, struct clarity_error *err);
int report_ernest_json(struct jsonw *w, const struct ernest_report *r, struct clarity_error *err);

#endif
