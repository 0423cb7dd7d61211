/* Prediction from small runs: PERIDOT (two reference runs of the same application) and
 * Ernest (a model fitted to a few small runs, with experiment design). */
#ifndef CLARITY_PREDICT_H
#define CLARITY_PREDICT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/error.h"
#include "clarity/model.h"

/* ---- peridot ---- */
/* PERIDOT (Shah, Amannejad, Krishnamurthy, Wang, ~2019): predict an application's time at a
 * new data size and core count from two (or more) small reference runs. Stages submitted
 * together form groups; groups whose task count grows with the data are "variable" and take
 * ceil(P/E) waves of their mean wave time; everything else is one fixed time F.
 *
 * Beyond the paper: a fixed group whose time grew with the data (a fixed partition count, so
 * each task reads more) can be scaled by data per task instead of held constant, and fixed
 * groups with P > 1 can be wave-scaled with cores (--scale-fixed). Both are labelled.
 * Everything returns plain structs and prints nothing. */

struct peridot_stage {
    int64_t stage_id;
    const char *name;          /* borrowed (the app's string table or the caller's) */
    int64_t num_tasks;         /* last successful attempt's Number of Tasks */
    int64_t submit_ms;         /* first attempt's submission */
    int64_t complete_ms;       /* last attempt's completion (0 = not logged) */
    int64_t last_finish_ms;    /* last successful task finish (0 = no task events) */
    int attempts;
};

/* One reference run. */
struct peridot_ref {
    const char *label;         /* file name, for messages */
    struct peridot_stage *stages; size_t nstages;  /* malloc'd by peridot_ref_from_app */
    int64_t total_ms;          /* T: ApplicationEnd - ApplicationStart */
    double data_size;          /* D, any unit (only ratios matter); 0 = unknown */
    double cores;              /* E: task slots; 0 = unknown. From a log: the most executor cores
                                  alive while a stage ran, / spark.task.cpus */
    double cores_min;          /* from a log: the fewest non-zero task slots a stage saw */
    /* where D and E came from (for "inferred inputs") */
    enum { PERIDOT_FROM_USER, PERIDOT_FROM_LOG, PERIDOT_UNKNOWN } size_from, cores_from;
    int64_t input_bytes;       /* largest stage input in the log, 0 = none logged */
    bool cores_changed;        /* stages saw different core counts (cores_min < cores) */
    bool no_task_events;       /* stage ends come from stage completion times */
    bool time_from_last_event; /* no ApplicationEnd: T runs to the last event */
    size_t multi_attempt_stages;
};

/* Stage records, T, input bytes and cores from a loaded application. The stages borrow
 * names from the app, so it must outlive the ref. Returns CLARITY_OK or an error (no
 * application start, no stage with tasks). */
int clarity_peridot_ref_from_app(const struct clarity_app *a, struct peridot_ref *out, struct clarity_error *err);
void clarity_peridot_ref_free(struct peridot_ref *r);

enum peridot_grouping { PERIDOT_GROUP_OVERLAP, PERIDOT_GROUP_TOLERANCE };
enum peridot_fixed_mode {
    PERIDOT_FIXED_AUTO,        /* data-scale fixed groups whose time grew with the data, and
                                  every multi-task group when no partition count changed */
    PERIDOT_FIXED_CONSTANT,    /* the paper: every fixed group inside F */
    PERIDOT_FIXED_DATA,        /* data-scale every fixed group */
};
struct peridot_options {
    enum peridot_grouping grouping;
    int64_t delta_ms;          /* tolerance grouping; default 50 */
    enum peridot_fixed_mode fixed;
    bool scale_fixed;          /* fixed groups with P > 1 take ceil(P/E) waves (off: the paper) */
    double growth_threshold;   /* AUTO: elasticity d ln S / d ln D at or above this; default 0.5 */
    /* Beyond the paper (on by default with fixed_groups auto; off with the paper's constant
     * mode): the answer combines PERIDOT with a per-group affine fit (see clarity_peridot_combine). */
    bool no_combine;
    double nonlinear_elasticity; /* the application's d ln T / d ln D above this = non-linear
                                    growth; default 1.25 */
};
void clarity_peridot_options_default(struct peridot_options *o);

enum peridot_group_kind {
    PERIDOT_VARIABLE,          /* the paper: P scales with D */
    PERIDOT_FIXED,             /* the paper: constant, inside F */
    PERIDOT_FIXED_DATA_SCALED, /* beyond the paper: P fixed, wave time scales with D / P */
    PERIDOT_FIXED_WAVE_SCALED, /* beyond the paper (--scale-fixed): ceil(P/E) waves, constant wave time */
};
const char *clarity_peridot_kind_name(enum peridot_group_kind k);

#define PERIDOT_MAX_REFS 8
struct peridot_group {
    size_t first, n;           /* member stages: model->members[first .. first + n) */
    enum peridot_group_kind kind;
    int64_t tasks[PERIDOT_MAX_REFS];   /* P_i^r */
    double span_ms[PERIDOT_MAX_REFS];  /* S_i^r */
    double waves[PERIDOT_MAX_REFS];    /* N_i^r */
    double wave_ms;            /* W_hat (variable, wave-scaled) */
    double rho;                /* partitions per unit data (variable) */
    double unit_wave_ms;       /* data-scaled: wave time per unit of data per task */
    double elasticity;         /* d ln S / d ln D across the references (NAN when D is equal) */
};

struct peridot_model {
    size_t nrefs;
    double data[PERIDOT_MAX_REFS], cores[PERIDOT_MAX_REFS], total_ms[PERIDOT_MAX_REFS];
    double fixed_ms[PERIDOT_MAX_REFS];  /* F^r */
    double fixed_hat_ms;       /* F_hat */
    struct peridot_group *groups; size_t ngroups;
    int64_t *members; size_t nmembers;  /* stage ids, group order (from the first reference) */
    const char **member_names;
    size_t nvariable, nfixed, ndata_scaled, nwave_scaled;
    bool fixed_partitions;     /* no partition count changed although the data size did */
    bool all_fixed;            /* warn: the references show no scaling */
    bool negative_fixed;       /* warn: F_hat < 0 (overlapping variable groups) */
    bool size_ratio_mismatch;  /* warn: D ratio vs input-bytes ratio differ by > 10% */
    /* the combination (peridot_combine.c) */
    bool combine;              /* the answer combines PERIDOT and the affine fit */
    double nonlinear_elasticity;
    double app_elasticity;     /* d ln T / d ln D over the references (log-log least squares) */
    bool nonlinear;            /* app_elasticity > nonlinear_elasticity: time grew faster than the data */
};

/* Builds the model. Refuses (CLARITY_EFORMAT, with both sequences described in err) when
 * the references' groups do not match in count, stage ids or names; CLARITY_EUSAGE when a
 * data size or core count is missing or the references have equal sizes. */
int clarity_peridot_fit(const struct peridot_ref *refs, size_t nrefs, const struct peridot_options *o,
                struct peridot_model *out, struct clarity_error *err);
void clarity_peridot_model_free(struct peridot_model *m);

struct peridot_group_pred { double tasks, waves, wave_ms, span_ms; };

/* How the answer and its interval were made (peridot_combine.c). */
enum peridot_interval_rule {
    PERIDOT_INTERVAL_TWO_REFS,  /* two references: the hull of PERIDOT and the affine fit, +-10% */
    PERIDOT_INTERVAL_HOLDOUT,   /* >= 3: also +- the smaller error predicting the largest reference
                                   from the others, then +-10% */
};
struct peridot_combination {
    double peridot_ms;         /* PERIDOT (Eq. 4 with the options' group kinds) */
    double peridot_near_ms;    /* the same with wave times averaged with weights to nearer sizes:
                                  the candidate the answer uses */
    double affine_ms;          /* every scaled group's span fitted as a + b D (weighted to nearer sizes) */
    double point_ms;           /* the answer */
    double low_ms, high_ms;    /* the interval */
    enum peridot_interval_rule rule;
    double weight_peridot;     /* share of PERIDOT in point_ms (0..1) */
    double holdout_err_peridot, holdout_err_affine; /* fractions; NAN with two references */
    double extrapolation;      /* target size / nearest reference size bound (>= 1: inside = 1) */
    bool far;                  /* more than 4x beyond the references' sizes or cores */
    bool nonlinear;            /* copied from the model */
};

struct peridot_prediction {
    double data_size, cores;
    double total_ms;           /* PERIDOT's Eq. 4: the paper's answer */
    struct peridot_combination comb;   /* the answer (comb.point_ms) and its interval */
    double variable_ms, scaled_fixed_ms;   /* sums over variable and beyond-paper groups */
    struct peridot_group_pred *groups;     /* per model group (malloc'd) */
};
/* Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_peridot_predict(const struct peridot_model *m, double data_size, double cores, struct peridot_prediction *out,
                    struct clarity_error *err);
void clarity_peridot_prediction_free(struct peridot_prediction *p);

/* The answer and its interval at (data_size, cores), beyond the paper: two candidates, PERIDOT
 * (per-task time constant: scaled groups grow in proportion to the data; here its mean wave
 * times weighted to the references nearest the target) and an affine fit of
 * each scaled group's span against the data size (a + b D by least squares over the references,
 * weighted 1 / (1 + |ln(D / D_r)|)^2 so nearer sizes count more; the core count then scales it as
 * PERIDOT's waves do). With two references the answer is their mean unless the application's
 * time grew faster than its data (model->nonlinear: the affine fit, whose negative intercept
 * models a cost that starts past a threshold, e.g. cached data spilling); with three or more their
 * mix weighted by 1 / err^2, err being each candidate's error when the largest reference is
 * predicted from the others. The interval is the hull of both candidates (and, with >= 3
 * references, the answer +- the smaller held-out error), widened by 10%. Without model->combine
 * the answer is PERIDOT's Eq. 4, also inside the hull. Fills c; returns nothing. */
void clarity_peridot_combine(const struct peridot_model *m, double data_size, double cores, double peridot_ms,
                             struct peridot_combination *c);
/* One candidate over the references with use[r] set (NULL: all) at (D, E): 0 PERIDOT, 1 affine. */
double clarity_peridot_candidate(const struct peridot_model *m, const bool *use, int which, double data_size, double cores);

/* Waves with an epsilon, ceil(x - 1e-9), so floating-point error adds no spurious wave; at
 * least 1 for any positive work. */
double clarity_peridot_waves(double tasks, double cores);

/* Ideal-scaling baseline (the paper's IS comparison): T_ref * (D / D_ref) * (E_ref / E), the mean
 * of the predictions from every reference. */
double clarity_peridot_ideal_scaling(const struct peridot_model *m, double data_size, double cores);
double clarity_peridot_ideal_scaling_ref(const struct peridot_model *m, size_t ref, double data_size, double cores);

/* Mean absolute percentage error (percent) over the points that are not references
 * (is_ref may be NULL); NAN when none is left. */
double clarity_peridot_mape(const double *predicted, const double *actual, const bool *is_ref, size_t n);

/* ---- ernest ---- */
/* Ernest (Venkataraman et al., NSDI'16): time(s, m) = sum_k theta_k f_k(s, m), theta >= 0,
 * fitted by NNLS to a few small runs; leave-one-out cross-validation with every fit;
 * A-optimal choice of which small runs to make; the configuration that meets a deadline.
 * s is the data scale (fraction of the full input, or any fixed unit), m the machine count.
 * Everything returns plain structs and prints nothing. */

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
const char *clarity_ernest_term_name(enum ernest_term t);          /* "1", "s/m", "log(m)", ... */
int clarity_ernest_term_parse(const char *name);                    /* -1 when unknown */

struct ernest_terms {
    enum ernest_term t[ERNEST_MAX_TERMS];
    size_t n;
    double rows;          /* for n log^2 n / m: rows at s = 1 (0 when not given) */
};
void clarity_ernest_terms_default(struct ernest_terms *t);
/* Adds a comma-separated list of extra terms. Returns 0, or CLARITY_EUSAGE with err->offset
 * the byte offset in list of the first unknown term (err->msg names it). */
int clarity_ernest_terms_add(struct ernest_terms *t, const char *list, struct clarity_error *err);
double clarity_ernest_feature(const struct ernest_terms *t, size_t k, double s, double m);

struct ernest_point { double machines, scale, seconds; };

/* Leave-one-out refits every point: n fits of n points each. Past this many points only every
 * ceil(n / ERNEST_LOO_MAX)-th point is left out, so a fit stays linear in n (8,000 points took
 * 19 s, 200,000 never finished); the reports say how many were. */
#define ERNEST_LOO_MAX 1000

struct ernest_loo {          /* leave-one-out cross-validation */
    bool done;               /* needs at least 2 points */
    size_t left_out;         /* points left out: all of them, or ERNEST_LOO_MAX-ish past it */
    double *predicted;       /* left-out prediction per point (malloc'd, npoints; NaN: not left out) */
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
int clarity_ernest_fit(const struct ernest_point *pts, size_t n, const struct ernest_terms *terms,
               struct ernest_model *out, struct clarity_error *err);
void clarity_ernest_model_free(struct ernest_model *m);
double clarity_ernest_predict(const struct ernest_model *m, double scale, double machines);

/* How far a target lies outside the training points (1 = inside). */
struct clarity_ernest_extrapolation { double scale_factor, machines_factor; bool far; };
struct clarity_ernest_extrapolation clarity_ernest_extrapolation(const struct ernest_model *m, double scale, double machines);

/* The interval of a prediction (seconds): predicted x (1 -+ h), h = max(the LOOCV max error, 5%)
 * x (1 + ln f), f the larger extrapolation factor (1 inside the training points): the worst
 * left-out error is what the training points say about errors, and it grows with the distance
 * beyond them. The low end is not below 0. An approximation, not a confidence level. */
void clarity_ernest_interval(const struct ernest_model *m, double scale, double machines, double predicted_s, double *low_s,
                             double *high_s);

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
void clarity_ernest_design_defaults(struct ernest_design_options *o);

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
int clarity_ernest_design_run(const struct ernest_design_options *o, struct ernest_design *out, struct clarity_error *err);
void clarity_ernest_design_free(struct ernest_design *d);

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
    struct clarity_ernest_extrapolation extrap;
};
void clarity_ernest_choose(const struct ernest_model *m, const struct ernest_choose_options *o, struct ernest_choice *out);

#endif
