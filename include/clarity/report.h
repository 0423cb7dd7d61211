/* Report writers for `clarity summary`. They read the model and print; they compute nothing
 * an analysis would need.
 *
 * Every report writer (here and in the other *_report.h headers) returns 0, or an error code
 * with err filled: CLARITY_EIO when its stream reported a write error, CLARITY_ENOMEM when it
 * could not allocate what it needed. Writers print only to the FILE * (or struct jsonw) they
 * are given. */
#ifndef CLARITY_REPORT_H
#define CLARITY_REPORT_H
#include <stdbool.h>
#include <stdio.h>
#include "clarity/model.h"
#include "clarity/error.h"
struct jsonw;   /* the JSON writer (src/util/jsonw.h): the CLI builds the envelope */
#include "clarity/blocked.h"
#include "clarity/stragglers.h"
#include "clarity/whatif.h"
#include "clarity/predict.h"
#include "clarity/anomalies.h"
#include "clarity/contention.h"
#include "clarity/findings.h"
#include "clarity/diff.h"

struct summary_options {
    size_t limit;        /* rows per table in text (0 = all) */
    size_t width;        /* columns the text fits (0 = no limit); the caller decides (terminal, COLUMNS) */
};

int clarity_report_summary_text(FILE *o, const struct clarity_app *a, const struct summary_options *opt,
                        struct clarity_error *err);
/* Lines wrapped at width columns (0: no limit). */
int clarity_report_integrity_text(FILE *o, const struct clarity_app *a, size_t width, struct clarity_error *err);
/* What went wrong: failed task attempts by reason (exception class and the first line of its
 * message) and executors lost by the reason logged, counted, most frequent first. Text: the
 * top five of each, nothing when there are none; JSON: the keys "task_failure_reasons" and
 * "executor_loss_reasons" of the open application object, every reason. */
int clarity_report_failures_text(FILE *o, const struct clarity_app *a, struct clarity_error *err);
int clarity_report_failures_json(struct jsonw *w, const struct clarity_app *a, struct clarity_error *err);
/* One object per application in the clarity.summary/1 schema (docs/summary-json.md). */
int clarity_report_summary_json(struct jsonw *w, const struct clarity_app *a, struct clarity_error *err);
int clarity_report_integrity_json(struct jsonw *w, const struct clarity_app *a, struct clarity_error *err);
/* Short integrity flags, "ok" when none (e.g. "truncated,dropped-task-ends"). */
void clarity_report_integrity_flags(const struct clarity_app *a, char *buf, size_t cap);

/* One row per application, for directories of many (the fleet table). */
struct fleet_row {
    const char *source, *app_id, *name, *user, *error;   /* error: set when the app failed */
    int64_t start_ms, duration_ms;
    int executors, cores;
    int64_t tasks, failed_tasks;
    double core_hours_used, core_hours_idle;  /* task time; executor capacity minus it */
    double gc_share;                          /* JVM GC time / executor run time */
    int64_t shuffle_bytes;                    /* shuffle read */
    const char *top_blocked;                  /* resource whose removal saves most, "" if none */
    double top_blocked_improvement;
    char flags[160];
    /* the attempt ("" when the log has none): rows of one application id, one per attempt
     * file, are told apart by it and by their source (added after the fields above) */
    const char *attempt;
};
/* Fills a row from a loaded application (strings point into the app). Returns 0, or
 * CLARITY_ENOMEM with err filled. */
int clarity_fleet_row_fill(struct fleet_row *r, const struct clarity_app *a, struct clarity_error *err);
enum clarity_fleet_sort { FLEET_SORT_SOURCE, FLEET_SORT_START, FLEET_SORT_DURATION, FLEET_SORT_NAME,
                  FLEET_SORT_CORE_HOURS, FLEET_SORT_IDLE, FLEET_SORT_GC, FLEET_SORT_SHUFFLE, FLEET_SORT_TASKS };
/* Parses a --sort key; -1 when unknown. */
int clarity_fleet_sort_parse(const char *s);
void clarity_fleet_sort(struct fleet_row *rows, size_t n, enum clarity_fleet_sort key);
/* Fitted to `width` columns (0: no limit). */
int clarity_report_fleet_text(FILE *o, const struct fleet_row *rows, size_t n, size_t width, struct clarity_error *err);
int clarity_report_fleet_csv(FILE *o, const struct fleet_row *rows, size_t n, struct clarity_error *err);

/* "12.3 s", "45 ms", "2.1 h" */
const char *clarity_fmt_ms(char *buf, size_t cap, int64_t ms);
/* "28.0 MB" (decimal units, as Spark's UI), "0" for zero */
const char *clarity_fmt_bytes(char *buf, size_t cap, int64_t bytes);
/* "2015-02-03 16:42:59.720" in UTC, "-" for 0 */
const char *clarity_fmt_time(char *buf, size_t cap, int64_t epoch_ms);

/* The platform in one phrase: "Databricks 13.3 (Photon), aarch64, AWS", "Dataproc 2.2 on YARN",
 * "local", or "unknown (...)" saying why. */
const char *clarity_report_platform(const struct clarity_app *a, char *buf, size_t cap);
/* Where input came from (output went to) in one phrase: "gs:// object store", "hdfs://",
 * "s3:// 3 + hdfs:// 1 paths (mixed)", "not in this log". */
const char *clarity_report_storage(const struct clarity_platform *p, bool output, char *buf, size_t cap);

/* For blocked and stragglers: what object-store input/output means for their columns, NULL
 * when the log names no object store; Photon's scan I/O wait (SQL metrics) and its share of
 * task time, NULL when not Photon. */
const char *clarity_report_storage_note(const struct clarity_app *a, char *buf, size_t cap);
const char *clarity_report_photon_wait(const struct clarity_app *a, char *buf, size_t cap);

/* How every report writer ends: 0, or CLARITY_EIO with err filled when o has seen a write error
 * (disk full, closed pipe), so that a failed write does not vanish. */
int clarity_report_status(FILE *o, struct clarity_error *err);


/* ---- explain report ---- */
/* Report writers for `clarity blocked` and `clarity stragglers`: they print analysis
 * results and compute nothing an analysis would need. */

/* Why each resource's figure is an approximation (or missing) on this log; NULL if exact. */
const char *clarity_blocked_resource_note(const struct clarity_blocked_result *r, enum clarity_resource res);
/* "GC could save up to 18%; network at most 0.4%" */
void clarity_blocked_verdict(const struct clarity_blocked_group *g, char *buf, size_t cap);
/* "job 3", "sql 7", "app" and the group's name, for headings */
const char *clarity_blocked_group_name(const struct clarity_app *a, int kind, size_t row);

/* The writers return 0, or CLARITY_EIO with err filled (report.h). */
/* Text: groups with the largest saving first, one line for those where nothing can be saved;
 * rows up to limit (0 all), fitted to width columns (0 no limit). opt NULL: all rows, 100. */
struct blocked_report_options { size_t limit, width; };
int clarity_report_blocked_text(FILE *o, const struct clarity_app *a, const struct clarity_blocked_result *r,
                                const struct blocked_report_options *opt, struct clarity_error *err);
int clarity_report_blocked_json(struct jsonw *w, const struct clarity_app *a, const struct clarity_blocked_result *r,
                        struct clarity_error *err);
/* The same object in three steps, for groups streamed from clarity_blocked_analyze_each:
 * begin (r: the head, its counts), one call per group in order, end. The bytes are those of
 * clarity_report_blocked_json on the whole result. */
void clarity_report_blocked_json_begin(struct jsonw *w, const struct clarity_app *a, const struct clarity_blocked_result *r);
void clarity_report_blocked_json_group(struct jsonw *w, const struct clarity_app *a, const struct clarity_blocked_result *r,
                                       const struct clarity_blocked_group *g);
int clarity_report_blocked_json_end(struct jsonw *w, struct clarity_error *err);

/* Text: stage and group rows up to stage_limit (0 all), fitted to width columns (0 no limit). */
struct stragglers_report_options { size_t stage_limit, width; };
int clarity_report_stragglers_text(FILE *o, const struct clarity_app *a, const struct clarity_stragglers_result *r,
                           const struct stragglers_report_options *opt, struct clarity_error *err);
int clarity_report_stragglers_json(struct jsonw *w, const struct clarity_app *a, const struct clarity_stragglers_result *r,
                           struct clarity_error *err);

/* ---- whatif report ---- */
/* Report writers for `clarity whatif`: they print analysis results and compute nothing an
 * analysis would need. */

struct whatif_report {
    const struct clarity_hw *base;
    const struct clarity_resource_result *res;        /* NULL: resource model not asked */
    const char *whatif_label;                         /* "disks per host x2, network 10 Gbps", or NULL */
    const struct clarity_curve_result *curve;         /* NULL: no core-count curve */
    const struct clarity_curve_result *slot_replay;   /* one point at the what-if's cores, or NULL */
    size_t limit;                                     /* stage and job rows in text (0 = all) */
    size_t width;                                     /* text fits this many columns (0 = no limit) */
};

/* The thesis' caveat, printed with every resource-model result. */
extern const char *const clarity_whatif_caveat;

/* Both return 0, or CLARITY_EIO / CLARITY_ENOMEM with err filled (report.h). */
int clarity_report_whatif_text(FILE *o, const struct clarity_app *a, const struct whatif_report *r, struct clarity_error *err);
/* One object per application of the clarity.whatif/1 schema (docs/whatif.md). */
int clarity_report_whatif_json(struct jsonw *w, const struct clarity_app *a, const struct whatif_report *r,
                       struct clarity_error *err);

/* ---- predict report ---- */
/* Text and JSON (clarity.predict/1, docs/predict-json.md) for PERIDOT predictions. */

struct predict_report {
    const struct peridot_ref *refs; size_t nrefs;
    const struct peridot_options *opt;
    const struct peridot_model *model;
    const struct peridot_prediction *preds; size_t npreds;
    bool sizes_in_bytes;           /* print sizes as bytes (from the logs or with units) */
    bool detail;                   /* breakdown for every target, not only the first */
    size_t limit;                  /* groups per breakdown in text (0 = all) */
    size_t width;                  /* text fits this many columns (0 = no limit) */
    /* --actual */
    const char *actual_source;     /* NULL: none */
    double actual_ms;
};

/* The warnings that apply (static strings), for both formats. */
size_t clarity_predict_warnings(const struct predict_report *r, const char **out, size_t cap);

/* Both return 0, or CLARITY_EIO with err filled (report.h). */
int clarity_report_predict_text(FILE *o, const struct predict_report *r, struct clarity_error *err);
int clarity_report_predict_json(struct jsonw *w, const struct predict_report *r, struct clarity_error *err);

/* ---- ernest report ---- */
/* Text and JSON (clarity.ernest/1, docs/ernest-json.md) for the ernest subcommands. Every
 * fit prints its training points and leave-one-out error. */

struct ernest_target { double scale, machines, predicted_s; struct clarity_ernest_extrapolation extrap; double low_s, high_s; };

struct ernest_report {
    const char *command;                 /* "fit", "predict", "choose", "design" */
    const struct ernest_model *model;    /* NULL for design */
    const char *scale_unit;              /* "fraction of the full input", "GB of input", ... */
    double loo_threshold_pct;            /* flag a poor fit above this median LOO error */
    const struct ernest_target *targets; size_t ntargets;
    const struct ernest_design *design; const struct ernest_design_options *design_opt;
    const struct ernest_choice *choice; const struct ernest_choose_options *choose_opt;
    const char *actual_source; double actual_s;   /* --actual: compared with targets[0] */
    size_t limit;                        /* training points listed in text (0 = all) */
    size_t width;                        /* text fits this many columns (0 = no limit) */
};

/* Both return 0, or CLARITY_EIO with err filled (report.h). */
int clarity_report_ernest_text(FILE *o, const struct ernest_report *r, struct clarity_error *err);
int clarity_report_ernest_json(struct jsonw *w, const struct ernest_report *r, struct clarity_error *err);

/* ---- anomalies report ---- */
/* Text and JSON (clarity.anomalies/1, docs/anomalies.md) reports of a LADRA analysis. */

/* Both return 0, or CLARITY_EIO / CLARITY_ENOMEM with err filled (report.h). */
int clarity_report_anomalies_text(FILE *o, const struct clarity_app *a, const struct clarity_anomalies_result *r,
                          const struct clarity_logs *logs, size_t limit, size_t width, struct clarity_error *err);
int clarity_report_anomalies_json(struct jsonw *w, const struct clarity_app *a, const struct clarity_anomalies_result *r,
                          const struct clarity_logs *logs, struct clarity_error *err);
/* `clarity anomalies cv`: a Markdown table; the header, then per mode the rows of every
 * method and class (the four causes first, normal last): runs, precision, recall ("-" where
 * never defined). A mode without samples prints nothing. */
void clarity_report_ladra_cv_header(FILE *o);
void clarity_report_ladra_cv_text(FILE *o, bool eventlog_only, double min_cause, const struct ladra_cv_result *r);

/* ---- contention report ---- */
/* Reports for clarity contention: text, clarity.contention/1 JSON, rules JSON, DOT graph. */

/* Each returns 0, or CLARITY_EIO / CLARITY_ENOMEM with err filled (report.h). */
/* targets: unit indices to show (NULL = every unit with contention, victims first). */
/* Text fitted to width columns (0: no limit): names are cut in the middle, figures never. */
int clarity_report_contention_text(FILE *o, const struct iqcar_result *r, const long *targets, size_t ntargets,
                                   size_t width, struct clarity_error *err);
int clarity_report_contention_json(struct jsonw *w, const struct iqcar_result *r, const long *targets, size_t ntargets,
                           struct clarity_error *err);
int clarity_report_contention_rules(FILE *o, const struct iqcar_result *r, struct clarity_error *err);
/* The graph of the given targets (all when ntargets is 0) with VC, IF and, per node, the DOR
 * toward them; nodes with no DOR are left out unless full is set. */
int clarity_report_contention_dot(FILE *o, const struct iqcar_result *r, const long *targets, size_t ntargets, bool full,
                          struct clarity_error *err);

/* ---- findings report ---- */
/* `clarity findings`: text (the top `limit` findings, 0 all, fitted to `width` columns, 0 no
 * limit; `why` adds each saving's method, caveat and evidence) and one application object of
 * the clarity.findings/1 schema (docs/findings.md). */
struct findings_report_options { size_t limit, width; bool why; };
int clarity_report_findings_text(FILE *o, const struct clarity_app *a, const struct clarity_findings *r,
                                 const struct findings_report_options *opt, struct clarity_error *err);
int clarity_report_findings_json(struct jsonw *w, const struct clarity_app *a, const struct clarity_findings *r,
                                 struct clarity_error *err);
/* findings --deep over several applications (src/report/findings_cross.c): the section
 * "Across applications" after the per-application text, and the top-level array
 * "across_applications" of the JSON document (written as a key and its array). */
struct findings_cross_report {
    const struct clarity_cross_finding *x; size_t n;   /* ranked: largest saving first */
    size_t napps, groups;        /* applications read; groups of two or more that overlapped */
    size_t windows, window;      /* windows iQCAR ran over (one per group of <= window apps) */
    size_t max_held;             /* the most applications' models held at once */
    size_t unconfirmed;          /* windows' findings dropped: the window missed an application
                                    that overlapped the culprit or a victim */
};
int clarity_report_findings_cross_text(FILE *o, const struct findings_cross_report *c, size_t width, bool why,
                                       struct clarity_error *err);
int clarity_report_findings_cross_json(struct jsonw *w, const struct findings_cross_report *c, struct clarity_error *err);

/* ---- diff report ---- */
/* Report writers for `clarity diff`: they print the comparison of two applications and compute
 * nothing an analysis would need. Text: stage and SQL rows up to limit (0 all), fitted to
 * width columns (0 no limit). JSON: one element of "pairs" (schema clarity.diff/1). */
struct diff_report_options { size_t limit, width; };
int clarity_report_diff_text(FILE *o, const struct clarity_diff_result *r, const struct diff_report_options *opt,
                             struct clarity_error *err);
int clarity_report_diff_json(struct jsonw *w, const struct clarity_diff_result *r, struct clarity_error *err);
/* ---- the HTML report (`clarity report`, docs/report.md) ---- */
/* What one application's page shows: the model and the analyses the CLI ran on it. The page is
 * one self-contained file (inline CSS, SVG and a little script, nothing fetched) with the data
 * it draws embedded as a JSON island (schema clarity.report/1). */
struct clarity_html_app {
    const struct clarity_app *app;
    const struct clarity_findings *findings;        /* NULL: the section says none were computed */
    const struct clarity_curve_result *curve;       /* core-count curve (critical path); NULL: none */
    const struct clarity_blocked_result *blocked;   /* jobs and SQL queries; NULL: none */
    const struct clarity_stragglers_result *strag;  /* per stage attempt; NULL: none */
    /* Above this many task attempts the executor timeline is a utilisation heat strip per
     * executor instead of one bar per task, so the file stays small (0: 20000). */
    size_t max_task_bars;
};
int clarity_report_html_app(FILE *o, const struct clarity_html_app *p, struct clarity_error *err);

/* One row of the fleet page: copied out of the application, which may be freed before the
 * page is written. */
#define CLARITY_HTML_SPARK 48
struct clarity_html_fleet_row {
    char source[256], app_id[128], name[128], platform[96], flags[160];
    char top_kind[40], top_title[200];               /* the largest finding, "" none */
    int64_t start_ms, duration_ms, tasks, top_saving_ms;
    int64_t top_saving_core_ms;                      /* when core time is the cost, else 0 or -1 */
    int cores;
    double core_hours_used, core_hours_idle;
    size_t findings;
    float spark[CLARITY_HTML_SPARK];                 /* busy / available cores over the run */
};
int clarity_html_fleet_row_fill(struct clarity_html_fleet_row *r, const struct clarity_app *a,
                                const struct clarity_findings *f, struct clarity_error *err);
/* failed: applications that could not be read (their rows are not listed) */
int clarity_report_html_fleet(FILE *o, const struct clarity_html_fleet_row *rows, size_t n, size_t failed,
                              struct clarity_error *err);

#endif
