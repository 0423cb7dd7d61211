/* Shared pieces of the SHS REST layer: the request (what the route table resolved, the parsed
 * query parameters), errors, the aggregates AppStatusListener keeps per stage / executor
 * (recomputed here from task rows), and the resources' writers. */
#ifndef CLARITY_SHS_INTERNAL_H
#define CLARITY_SHS_INTERNAL_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "util/jsonw.h"
#include "clarity/model.h"
#include "clarity/error.h"
#include "clarity/shs.h"
#include "shs/shs_index.h"

/* ---- query parameters (shs_params.c) ---- */

/* Which parameters a route reads (struct clarity__shs_route.params); each is parsed and
 * checked only for the routes that read it, as JAX-RS binds them per resource method. */
enum {
    SHS_Q_APP_STATUS = 1 << 0,     /* status=running|completed */
    SHS_Q_LIMIT = 1 << 1,          /* limit=N */
    SHS_Q_JOB_STATUS = 1 << 2,     /* status=running|succeeded|failed|unknown */
    SHS_Q_STAGE_STATUS = 1 << 3,   /* status=active|complete|failed|pending|skipped */
    SHS_Q_TASK_STATUS = 1 << 4,    /* status=running|killed|failed|success|unknown */
    SHS_Q_DETAILS = 1 << 5,        /* details=BOOL (default false), taskStatus=... */
    SHS_Q_DETAILS_ON = 1 << 6,     /* the same, default true (one stage) */
    SHS_Q_SUMMARIES = 1 << 7,      /* withSummaries=BOOL, quantiles (default 0,.25,.5,.75,1) */
    SHS_Q_SUMMARY_QUANTILES = 1 << 8, /* quantiles (taskSummary's default .05,.25,.5,.75,.95) */
    SHS_Q_PAGE = 1 << 9,           /* offset=N, length=N (default 0, 20) */
    SHS_Q_SORT_BY = 1 << 10,       /* sortBy=ID|runtime|-runtime */
    SHS_Q_APP_DATES = 1 << 11,     /* minDate, maxDate, minEndDate, maxEndDate */
    SHS_Q_SQL = 1 << 12,           /* details=BOOL, planDescription=BOOL (both default true) */
};

#define SHS_MAX_LIST 16
#define SHS_MAX_QUANTILES 64

struct shs_params {
    const char *status[SHS_MAX_LIST];        /* checked against the route's vocabulary */
    size_t nstatus;
    const char *task_status[SHS_MAX_LIST];   /* taskStatus: filters a stage's tasks */
    size_t ntask_status;
    bool details, with_summaries, plan_description;
    double quantiles[SHS_MAX_QUANTILES];     /* sorted */
    size_t nquantiles;
    int64_t offset, length, limit;           /* limit INT64_MAX when not given */
    int sort;                                /* 0 task id, 1 increasing runtime, -1 decreasing */
    int64_t min_start, max_start, min_end, max_end;   /* SHS_Q_APP_DATES, epoch ms */
    char scratch[2][512];                    /* list values split on commas */
};

/* ---- one request ---- */

/* One application as SHS lists it: its attempts, newest start first. */
struct shs_app_entry {
    const char *id;
    const struct clarity_app **att;
    size_t natt;
};

struct shs_agg;

struct shs_req {
    struct jsonw *w;
    FILE *out;                               /* the stream under w: binary answers write here */
    const struct shs_params *p;
    struct clarity_error *err;
    int http;                                /* HTTP status of a failure */
    struct shs_app_entry *apps;              /* every application, grouped */
    size_t napps;
    /* what the route's `needs` resolved before the handler runs */
    const struct shs_app_entry *entry;       /* SHS_NEED_APP */
    const char *attempt;                     /* the attempt segment of the path, NULL none */
    const struct clarity_app *app;           /* SHS_NEED_ATTEMPT */
    const struct shs_agg *agg;               /* SHS_NEED_AGG */
    const struct shs_index *ix;              /* the parts the route's needs asked for */
    const struct clarity_job *job;           /* SHS_NEED_JOB */
    int64_t stage_id;                        /* SHS_NEED_STAGE */
    const struct clarity_stage *stage;       /* SHS_NEED_STAGE_ATTEMPT */
    int64_t rdd_id;                          /* SHS_NEED_RDD_ID */
    int64_t sql_id;                          /* SHS_NEED_SQL (have_sql_id) */
    bool have_sql_id;
};

/* Why a request failed; each maps to an HTTP status and a clarity error code (shs.h). */
enum shs_failure {
    SHS_NO_ROUTE,                            /* 404, CLARITY_EUSAGE */
    SHS_BAD_PARAM,                           /* 400, CLARITY_EUSAGE */
    SHS_NOT_FOUND,                           /* 404, CLARITY_ENOTFOUND */
    SHS_INTERNAL,                            /* 500, CLARITY_ENOMEM */
};
/* Fills r->err and r->http; returns the error code. */
int clarity__shs_fail(struct shs_req *r, enum shs_failure why, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int clarity__shs_oom(struct shs_req *r);

int clarity__shs_params_parse(struct shs_req *r, const char *query, unsigned which, struct shs_params *out);
/* %XX decoding in place; plus_space also reads '+' as a space (query strings, not paths) */
void clarity__shs_url_decode(char *s, bool plus_space);
/* parse "0.05,0.25" into sorted qs: SHS_QUANTILES_SYNTAX on a bad number or none,
 * SHS_QUANTILES_RANGE on one outside [0, 1] (*bad, *bad_len name it within s) */
enum { SHS_QUANTILES_OK, SHS_QUANTILES_SYNTAX, SHS_QUANTILES_RANGE };
int clarity__shs_parse_quantiles(const char *s, double *qs, size_t max, size_t *nq, const char **bad, size_t *bad_len);
/* SHS's SimpleDateParam: "yyyy-MM-dd'T'HH:mm:ss.SSSz" (zone GMT, UTC, GMT+hh:mm or +hhmm),
 * else a GMT day "yyyy-MM-dd" read from the start of s; false when neither parses */
bool clarity__shs_parse_date(const char *s, int64_t *ms);
/* true when text is one of the wanted values (case-insensitive), or nothing is wanted */
bool clarity__shs_status_wanted(const char *text, const char *const *want, size_t nwant);

/* ---- aggregates (shs_agg.c) ---- */

/* killedTasksSummary: counts by text, in the order the texts first came; found by hash, as
 * every kill reason may differ */
/* ord: with folded tasks, the smallest ordinal of a task counted under the text (the key
 * order a row-order pass gives); 0 otherwise */
struct shs_count { char *text; int64_t n; uint64_t hash; uint64_t ord; };
struct shs_counts {
    struct shs_count *p; size_t n, cap;
    uint32_t *slots; size_t nslots;          /* open addressing: position + 1, 0 empty */
};

struct shs_exec_stage {
    uint32_t exec;                     /* executor id (string id) */
    uint64_t ord;                      /* folded tasks: the first task's ordinal (row order) */
    int64_t task_time;
    int64_t failed, succeeded, killed;
    int64_t m[CLARITY_TM_COUNT];
};

struct shs_stage_agg {
    int64_t active, completed, failed, killed, completed_indices;
    int64_t first_launch;              /* INT64_MAX: no task started */
    int64_t m[CLARITY_TM_COUNT];
    bool had_task_end;
    struct shs_counts killed_summary;
    struct shs_exec_stage *ex; size_t nex, capex;
    int64_t spec_tasks, spec_active, spec_completed, spec_failed, spec_killed;
};

struct shs_exec_agg {
    struct clarity_totals tot;         /* the summary's figures; SHS reads task_ms from it */
    int64_t total, active, completed, failed;
    int64_t gc, input, shuffle_read, shuffle_write;
    bool had_task_end;
};

struct shs_job_agg {
    int64_t num_tasks, active, completed, skipped_tasks, failed, killed, completed_indices;
    int64_t active_stages, completed_stages, skipped_stages, failed_stages;
    struct shs_counts killed_summary;
};

struct shs_agg {
    const struct clarity_app *app;
    const struct clarity_shs_fold *fold;  /* the model's folded task sums (no task rows), or NULL */
    const struct shs_index *ix;        /* with SHS_IX_TASKS */
    struct shs_exec_agg *ex;           /* by executor row */
};
/* Where a stage attempt's pass over task rows puts what is not a plain counter: the entry of
 * an executor (string id exec, executor row erow), a successful task's index; ord is the
 * task's ordinal when tasks are folded (0 in a row-order pass). */
struct shs_stage_sink {
    struct shs_exec_stage *(*exec_of)(struct shs_stage_sink *k, struct shs_stage_agg *s, uint32_t exec, size_t erow);
    int (*completed)(struct shs_stage_sink *k, int64_t index);
    uint64_t ord;
};
/* A task row's share of its stage attempt's figures (LiveStage); -1 when out of memory. */
int clarity__shs_stage_task(const struct clarity_app *a, struct shs_stage_agg *s, size_t row, struct shs_stage_sink *k);
/* A task row's share of its executor's figures (LiveExecutor), ex by executor row. */
void clarity__shs_exec_task(struct shs_exec_agg *ex, const struct clarity_app *a, size_t row);
struct shs_exec_stage *clarity__shs_exec_stage_add(struct shs_stage_agg *s, uint32_t exec);
/* ---- the same figures from folded tasks (shs_fold.c), for a model without task rows ---- */
int clarity__shs_fold_exec_aggs(const struct clarity_shs_fold *f, struct shs_exec_agg *ex, size_t nexecs);
int clarity__shs_fold_stage_agg(const struct clarity_shs_fold *f, size_t si, struct shs_stage_agg *s);
int clarity__shs_fold_job_tasks(const struct clarity_shs_fold *f, const struct shs_index *ix, const struct clarity_job *j,
                                const int64_t *sids, size_t nsids, struct shs_job_agg *ja);
/* ---- every folded task row on disk (shs_spill.c), for the stage list with details or
 * withSummaries ---- */
struct shs_spill;
/* 0, or -1 when the file cannot be made (under dir) or memory is short */
int clarity__shs_spill_open(struct shs_spill **out, const char *dir);
void clarity__shs_spill_free(struct shs_spill *s);
/* Appends a row handed over by the fold (with its end reason and accumulables); 0 or -1. */
int clarity__shs_spill_row(struct shs_spill *s, const struct clarity_app *a, size_t row, uint64_t ord);
/* Once the log is read: groups the rows by stage attempt in the stage list's order. 0 or -1. */
int clarity__shs_spill_finish(struct shs_spill *s, const struct clarity_app *a, const char *dir);
/* Bytes a stage row's rows take on disk (what a batch reads back). */
uint64_t clarity__shs_spill_stage_bytes(const struct shs_spill *s, size_t srow);
/* A view of a: a shallow copy whose task table, end reasons and task accumulables are those
 * of stage rows srows[0..n) only, in whole-load row order; everything else is a's (shared, so
 * the view is freed only with clarity__shs_spill_view_free, before a). 0, or -1 (read error,
 * out of memory; nothing to free). */
int clarity__shs_spill_view(const struct shs_spill *s, const struct clarity_app *a, const uint32_t *srows, size_t n,
                            struct clarity_app *view);
void clarity__shs_spill_view_free(struct clarity_app *view);
const struct shs_spill *clarity__shs_fold_spill_of(const struct clarity_shs_fold *f);
int clarity__shs_agg_build(struct shs_agg *g, const struct clarity_app *a, const struct shs_index *ix);
void clarity__shs_agg_free(struct shs_agg *g);
/* Stage attempt row si's figures, computed from its task rows when its answer is written
 * (none is kept for every stage); 0, or -1 when out of memory. Freed with
 * clarity__shs_stage_agg_free. */
int clarity__shs_stage_agg(const struct shs_agg *g, size_t si, struct shs_stage_agg *s);
void clarity__shs_stage_agg_free(struct shs_stage_agg *s);
/* A job's figures, from the stage attempts and tasks that ran while it was live (needs the
 * index's SHS_IX_LAUNCH and SHS_IX_STAGE_IDS). */
int clarity__shs_job_agg(const struct shs_agg *g, const struct clarity_job *j, struct shs_job_agg *ja);
int clarity__shs_counts_add(struct shs_counts *c, const char *text, int64_t n);
/* The same, keeping the smallest nonzero ordinal seen under the text. */
int clarity__shs_counts_add_ord(struct shs_counts *c, const char *text, int64_t n, uint64_t ord);
void clarity__shs_counts_write(struct jsonw *w, const char *key, const struct shs_counts *c);
void clarity__shs_counts_free(struct shs_counts *c);

/* Task end reason texts (shs_reason.c): errorMessage as TaskEndReason.toErrorString, and the
 * killedTasksSummary key (kill reason, or the commit-denied text). Caller frees; NULL none
 * (and *oom set when that is why). */
char *clarity__shs_error_message(const struct clarity_app *a, size_t row, bool *oom);
char *clarity__shs_killed_key(const struct clarity_app *a, size_t row, bool *oom);

/* ---- tasks (shs_tasks.c) ---- */
const char *clarity__shs_task_status(const struct clarity_app *a, size_t row);
bool clarity__shs_task_success(const struct clarity_app *a, size_t row);
int64_t clarity__shs_task_getting_result(const struct clarity_app *a, size_t row);
int64_t clarity__shs_task_scheduler_delay(const struct clarity_app *a, size_t row);
int clarity__shs_task_write(struct shs_req *r, size_t row);

/* ---- writers and lookups shared by resources (shs_common.c) ---- */
/* A task metric as SHS knows it: SHS reads peak execution memory only from Task Metrics'
 * "Peak Execution Memory" (Spark 3.0+), so a value the model took from the internal
 * accumulable of an older log reads 0, as every History Server shows it. */
static inline int64_t clarity__shs_task_metric(const struct clarity_app *a, size_t row, enum clarity_tm m)
{
    if (m == CLARITY_TM_PEAK_EXEC_MEM && a->peak_exec_mem_from_accums) return 0;
    return clarity_task_metric(a, row, m);
}
void clarity__shs_kdate(struct jsonw *w, const char *key, int64_t ms);
void clarity__shs_kstr_id(struct jsonw *w, const struct clarity_app *a, const char *key, uint32_t id);
/* ExecutorMetricType's names in its order, and one's value in a set of peaks (0 when not
 * logged) */
#define CLARITY__SHS_NPEAKS 21
extern const char *const clarity__shs_peak_names[CLARITY__SHS_NPEAKS];
int64_t clarity__shs_peak_value(const struct clarity_app *a, const struct clarity_peaks *pk, size_t i);
/* peak executor metrics object (21 ExecutorMetricType names, 0 when not logged) */
void clarity__shs_write_peaks(struct jsonw *w, const char *key, const struct clarity_app *a,
                              const struct clarity_peaks *pk);
void clarity__shs_write_kvs_obj(struct jsonw *w, const char *key, const struct clarity_app *a,
                                const struct clarity_kvs *kv);
struct clarity_executor *clarity__shs_exec_by_sid(const struct clarity_app *a, uint32_t sid, size_t *row);
bool clarity__shs_exec_visible(const struct clarity_executor *e);
const char *clarity__shs_stage_description(const struct clarity_app *a, const struct clarity_stage *s);
bool clarity__shs_stage_visible(const struct clarity_stage *s);

/* Writes `"key" : {...}` with the object on one line whatever w's pretty printing, body writing
 * its members (NULL: an empty object). Logged executor resources have always been printed so
 * (the History Server would indent them); kept byte-identical until that is fixed on its own.
 * 0, or -1 when out of memory. */
int clarity__shs_compact_object(struct jsonw *w, const char *key, void (*body)(struct jsonw *cw, const void *ctx),
                                const void *ctx);

/* ---- route checks: what a resource finds missing in the log (404), decided before any
 * byte of the answer is written ---- */
int clarity__shs_environment_check(struct shs_req *r);
int clarity__shs_rdd_one_check(struct shs_req *r);
int clarity__shs_task_summary_check(struct shs_req *r);
int clarity__shs_logs_check(struct shs_req *r);
int clarity__shs_sql_check(struct shs_req *r);

/* ---- route handlers (one per row of the route table in shs_route.c) ---- */
int clarity__shs_app_list(struct shs_req *r);
/* the listing's filter from parsed parameters (shs_applist.c) */
void clarity__shs_app_filter_from(const struct shs_params *p, struct clarity_shs_app_filter *f);
int clarity__shs_app_one(struct shs_req *r);
int clarity__shs_attempt_one(struct shs_req *r);
int clarity__shs_job_list(struct shs_req *r);
int clarity__shs_job_one(struct shs_req *r);
int clarity__shs_stage_list(struct shs_req *r);
int clarity__shs_stage_attempts(struct shs_req *r);
int clarity__shs_stage_one(struct shs_req *r);
int clarity__shs_task_summary(struct shs_req *r);
int clarity__shs_task_list(struct shs_req *r);
int clarity__shs_executors(struct shs_req *r);
int clarity__shs_all_executors(struct shs_req *r);
int clarity__shs_environment(struct shs_req *r);
int clarity__shs_misc(struct shs_req *r);
int clarity__shs_rdd_list(struct shs_req *r);
int clarity__shs_rdd_one(struct shs_req *r);
int clarity__shs_logs(struct shs_req *r);         /* binary: writes a ZIP to r->out */
int clarity__shs_version(struct shs_req *r);
int clarity__shs_sql_list(struct shs_req *r);
int clarity__shs_sql_one(struct shs_req *r);
/* An SQL metric value as SHS prints it (shs_sqlfmt.c); false for a metric type SHS fails on. */
bool clarity__shs_sql_value_text(const struct clarity_sql_value *v, char *out, size_t cap);
/* A stage attempt's executorSummary entries (AppStatusStore.executorSummary): executors that
 * ran its tasks, then those with only peaks logged for it, then those only excluded for it.
 * *out malloc'd; 0, or -1 when out of memory. */
struct shs_exec_entry {
    uint32_t exec;                           /* string id */
    const struct shs_exec_stage *es;         /* NULL: ran none of its tasks */
    const struct clarity_peaks *peaks;       /* logged for this stage, NULL none */
    bool had_end;                            /* a TaskEnd: peakMemoryMetrics shown even unlogged */
};
int clarity__shs_stage_exec_entries(const struct shs_stage_agg *sa, const struct clarity_stage *s,
                                    struct shs_exec_entry **out, size_t *nout);
/* executorMetricsDistributions of a stage (withSummaries), over those entries; sa: the
 * stage's figures (clarity__shs_stage_agg) */
int clarity__shs_exec_metric_distributions(struct shs_req *r, const struct shs_stage_agg *sa, const struct clarity_stage *s,
                                           const double *qs, size_t nq);
/* taskMetricsDistributions of a stage (also used by the stage list with withSummaries) */
int clarity__shs_task_metric_distributions(struct shs_req *r, const struct clarity_stage *s, const double *qs,
                                           size_t nq, bool as_field);

#endif
