/* PERIDOT (Shah, Amannejad, Krishnamurthy, Wang, ~2019): predict an application's time at a
 * new data size and core count from two (or more) small reference runs. Stages submitted
 * together form groups; groups whose task count grows with the data are "variable" and take
 * ceil(P/E) waves of their mean wave time; everything else is one fixed time F.
 *
 * Beyond the paper: a fixed group whose time grew with the data (a fixed partition count, so
 * each task reads more) can be scaled by data per task instead of held constant, and fixed
 * groups with P > 1 can be wave-scaled with cores (--scale-fixed). Both are labelled.
 * Everything returns plain structs and prints nothing. */
#ifndef CLARITY_PERIDOT_H
#define CLARITY_PERIDOT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/error.h"
#include "clarity/model.h"

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
    double cores;              /* E: task slots; 0 = unknown */
    /* where D and E came from (for "inferred inputs") */
    enum { PERIDOT_FROM_USER, PERIDOT_FROM_LOG, PERIDOT_UNKNOWN } size_from, cores_from;
    int64_t input_bytes;       /* largest stage input in the log, 0 = none logged */
    bool cores_changed;        /* executors came or went while stages ran */
    bool no_task_events;       /* stage ends come from stage completion times */
    bool time_from_last_event; /* no ApplicationEnd: T runs to the last event */
    size_t multi_attempt_stages;
};

/* Stage records, T, input bytes and cores from a loaded application. The stages borrow
 * names from the app, so it must outlive the ref. Returns CLARITY_OK or an error (no
 * application start, no stage with tasks). */
int peridot_ref_from_app(const struct clarity_app *a, struct peridot_ref *out, struct clarity_error *err);
void peridot_ref_free(struct peridot_ref *r);

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
};
void peridot_options_default(struct peridot_options *o);

enum peridot_group_kind {
    PERIDOT_VARIABLE,          /* the paper: P scales with D */
    PERIDOT_FIXED,             /* the paper: constant, inside F */
    PERIDOT_FIXED_DATA_SCALED, /* beyond the paper: P fixed, wave time scales with D / P */
    PERIDOT_FIXED_WAVE_SCALED, /* beyond the paper (--scale-fixed): ceil(P/E) waves, constant wave time */
};
const char *peridot_kind_name(enum peridot_group_kind k);

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
};

/* Builds the model. Refuses (CLARITY_EFORMAT, with both sequences described in err) when
 * the references' groups do not match in count, stage ids or names; CLARITY_EUSAGE when a
 * data size or core count is missing or the references have equal sizes. */
int peridot_fit(const struct peridot_ref *refs, size_t nrefs, const struct peridot_options *o,
                struct peridot_model *out, struct clarity_error *err);
void peridot_model_free(struct peridot_model *m);

struct peridot_group_pred { double tasks, waves, wave_ms, span_ms; };
struct peridot_prediction {
    double data_size, cores;
    double total_ms;
    double variable_ms, scaled_fixed_ms;   /* sums over variable and beyond-paper groups */
    struct peridot_group_pred *groups;     /* per model group (malloc'd) */
};
/* Returns 0, or CLARITY_ENOMEM with err filled. */
int peridot_predict(const struct peridot_model *m, double data_size, double cores, struct peridot_prediction *out,
                    struct clarity_error *err);
void peridot_prediction_free(struct peridot_prediction *p);

/* Waves with an epsilon, ceil(x - 1e-9), so floating-point error adds no spurious wave; at
 * least 1 for any positive work. */
double peridot_waves(double tasks, double cores);

/* Ideal-scaling baseline (the paper's IS comparison): T_ref * (D / D_ref) * (E_ref / E), the mean
 * of the predictions from every reference. */
double peridot_ideal_scaling(const struct peridot_model *m, double data_size, double cores);
double peridot_ideal_scaling_ref(const struct peridot_model *m, size_t ref, double data_size, double cores);

/* Mean absolute percentage error (percent) over the points that are not references
 * (is_ref may be NULL); NAN when none is left. */
double peridot_mape(const double *predicted, const double *actual, const bool *is_ref, size_t n);

#endif
