/* Ernest (Venkataraman et al., NSDI'16): time(s, m) = sum_k theta_k f_k(s, m), theta >= 0,
 * fitted by NNLS to a few small runs; leave-one-out cross-validation with every fit;
 * A-optimal choice of which small runs to make; the configuration that meets a deadline.
 * s is the data scale (fraction of the full input, or any fixed unit), m the machine count.
 * Everything returns plain structs and prints nothing. */
#ifndef CLARITY_ERNEST_H
#define CLARITY_ERNEST_H
#include <stdbool.h>
#include <stddef.h>
#include "clarity/error.h"

/* Feature terms. The first four are the paper's model, in the canonical order
 * [1, s/m, log m, m] (natural log); the others are the paper's named extensions. */
enum ernest_term {
    ERNEST_CONST, ERNEST_S_PER_M, ERNEST_LOG_M, ERNEST_M,
    ERNEST_SQRT_M,        /* two-level aggregation (sparse GLM): sqrt(m) */
    ERNEST_S2_PER_M,      /* QR-like: s^2 / m */
    ERNEST_NLOG2N_PER_M,  /* random projection: n log^2 n / m with n = s * rows (needs rows) */
    ERNEST_S,             /* serial work that grows with the data: s */
    ERNEST_TERM_COUNT
};
#define ERNEST_MAX_TERMS ERNEST_TERM_COUNT
const char *ernest_term_name(enum ernest_term t);          /* "1", "s/m", "log(m)", ... */
int ernest_term_parse(const char *name);                    /* -1 when unknown */

struct ernest_terms {
    enum ernest_term t[ERNEST_MAX_TERMS];
    size_t n;
    double rows;          /* for n log^2 n / m: rows at s = 1 (0 when not given) */
};
void ernest_terms_default(struct ernest_terms *t);
/* Adds a comma-separated list of extra terms. Returns 0, or CLARITY_EUSAGE with err->offset
 * the byte offset in list of the first unknown term (err->msg names it). */
int ernest_terms_add(struct ernest_terms *t, const char *list, struct clarity_error *err);
double ernest_feature(const struct ernest_terms *t, size_t k, double s, double m);

struct ernest_point { double machines, scale, seconds; };

struct ernest_loo {          /* leave-one-out cross-validation */
    bool done;               /* needs at least 2 points */
    double *predicted;       /* left-out prediction per point (malloc'd, npoints) */
    double median_pct, max_pct, mean_pct; /* |pred - actual| / actual, in percent */
    double press;            /* sum of squared left-out errors (s^2) */
};

struct ernest_model {
    struct ernest_terms terms;
    double theta[ERNEST_MAX_TERMS];
    struct ernest_point *points; size_t npoints;   /* training points (malloc'd copy) */
    double rss, rnorm;                             /* training residuals */
    double mean_ratio;                             /* mean pred/actual on training points */
    bool rank_deficient, few_points;               /* few_points: fewer than terms + 1 */
    struct ernest_loo loo;
    double min_scale, max_scale, min_machines, max_machines;
};

/* Fits theta by NNLS and runs LOOCV. Returns 0; CLARITY_EUSAGE without points or terms;
 * CLARITY_ENOMEM. err says which. */
int ernest_fit(const struct ernest_point *pts, size_t n, const struct ernest_terms *terms,
               struct ernest_model *out, struct clarity_error *err);
void ernest_model_free(struct ernest_model *m);
double ernest_predict(const struct ernest_model *m, double scale, double machines);

/* How far a target lies outside the training points (1 = inside). */
struct ernest_extrapolation { double scale_factor, machines_factor; bool far; };
struct ernest_extrapolation ernest_extrapolation(const struct ernest_model *m, double scale, double machines);

/* ---- experiment design ---- */
struct ernest_design_options {
    double scale_min, scale_max;   /* scales: linspace(min, max, points) */
    int points;                    /* default 20 (ref-code num_parts_interpolate) */
    int machines_min, machines_max;
    bool powers_of_two;            /* machine counts 1, 2, 4, ... instead of every integer */
    double total_parts;            /* > 0: keep (s, m) iff rint(s * parts) >= cores * m */
    int cores_per_machine;         /* default 2 (ref-code), used with total_parts */
    double budget;                 /* default 20 */
    double threshold;              /* keep lambda > threshold; default 0.3 (ref-code) */
    bool no_normalize;             /* skip the division by candidate column means */
    struct ernest_terms terms;
};
void ernest_design_defaults(struct ernest_design_options *o);

struct ernest_candidate {
    double scale, machines, cost, lambda;
    long partitions;               /* ceil(s * total_parts), 0 without total_parts */
    bool selected;
};
struct ernest_design {
    struct ernest_candidate *c; size_t n;
    size_t *order; size_t nselected;  /* selected candidates, lambda descending */
    double f;                      /* optimum trace(M^-1) of the relaxation */
    double nu;                     /* budget multiplier */
    double selected_cost, selected_trace;  /* the rounded selection at lambda = 1 */
    int iterations;
    bool converged, rank_padded;   /* rank_padded: points added below the threshold for rank d */
};
/* Returns 0; CLARITY_EUSAGE when the ranges are invalid, there is no candidate or the
 * candidates do not determine the model; CLARITY_ENOMEM. err->msg says why, in words for the
 * user. */
int ernest_design_run(const struct ernest_design_options *o, struct ernest_design *out, struct clarity_error *err);
void ernest_design_free(struct ernest_design *d);

/* ---- configuration choice ---- */
struct ernest_choose_options {
    double scale;                  /* target scale */
    double deadline_s;             /* > 0 */
    int machines_min, machines_max;/* candidates, default 1..64 */
    double price_per_machine_hour; /* > 0: cheapest, else fewest machines */
    bool hourly_billing;           /* charge whole hours (EC2 in 2015) */
    double margin;                 /* predicted * (1 + margin) must meet the deadline; < 0: use
                                      the model's LOOCV max error */
};
struct ernest_choice {
    bool found;
    int machines;
    double predicted_s, with_margin_s, margin, cost;
    int fastest_machines;          /* time-optimal m among the candidates */
    double fastest_s;
    struct ernest_extrapolation extrap;
};
void ernest_choose(const struct ernest_model *m, const struct ernest_choose_options *o, struct ernest_choice *out);

#endif
