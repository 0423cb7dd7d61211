/* Shared pieces of the SHS REST layer: request context, query parameters, the aggregates
 * AppStatusListener keeps per stage / job / executor (recomputed here from task rows). */
#ifndef CLARITY_REPORT_SHS_INTERNAL_H
#define CLARITY_REPORT_SHS_INTERNAL_H
#include <stdbool.h>
#include <stdint.h>
#include "util/jsonw.h"
#include "clarity/model.h"
#include "clarity/shs.h"

#define SHS_MAX_PARAMS 32

struct shs_query {
    size_t n;
    char *key[SHS_MAX_PARAMS], *val[SHS_MAX_PARAMS];   /* percent-decoded, owned */
};
const char *shs_query_get(const struct shs_query *q, const char *key);
/* Values of every key occurrence, also split on commas (JAX-RS list parameters). */
size_t shs_query_list(const struct shs_query *q, const char *key, const char **out, size_t max,
                      char *scratch, size_t scratch_len);
bool shs_query_bool(const struct shs_query *q, const char *key, bool dflt, bool *bad);

struct shs_ctx {
    struct jsonw *w;
    const struct shs_query *q;
    char *err;
    size_t errlen;
};
enum shs_status shs_fail(struct shs_ctx *c, enum shs_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* One application as SHS lists it: its attempts, newest start first. */
struct shs_app_entry {
    const char *id;
    struct clarity_app **att;
    size_t natt;
};

/* ---- aggregates (shs_agg.c) ---- */
struct shs_count { char *text; int64_t n; };
struct shs_counts { struct shs_count *p; size_t n, cap; };   /* killedTasksSummary */

struct shs_exec_stage {
    uint32_t exec;                     /* executor id (string id) */
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
    int64_t total, active, completed, failed;
    int64_t duration, gc, input, shuffle_read, shuffle_write;
    bool had_task_end;
};

struct shs_agg {
    const struct clarity_app *app;
    struct shs_stage_agg *st;          /* by stage row */
    struct shs_exec_agg *ex;           /* by executor row */
    uint32_t *reason_of_row;           /* task row -> string id of raw end reason JSON, 0 none */
    size_t *acc_first, *acc_n;         /* task row -> its accumulables in app->task_accums */
};
int shs_agg_build(struct shs_agg *g, const struct clarity_app *a);
void shs_agg_free(struct shs_agg *g);
void shs_counts_add(struct shs_counts *c, const char *text, int64_t n);
void shs_counts_write(struct jsonw *w, const char *key, const struct shs_counts *c);
void shs_counts_free(struct shs_counts *c);

/* Task end reason texts (shs_reason.c): errorMessage as TaskEndReason.toErrorString, and the
 * killedTasksSummary key (kill reason, or the commit-denied text). Caller frees; NULL none. */
char *shs_error_message(const struct shs_agg *g, size_t row);
char *shs_killed_key(const struct shs_agg *g, size_t row);

/* Task helpers (shs_tasks.c). */
const char *shs_task_status(const struct clarity_app *a, size_t row);
bool shs_task_success(const struct clarity_app *a, size_t row);
int64_t shs_task_fetch_start(const struct clarity_app *a, size_t row);  /* -1 none */
int64_t shs_task_getting_result(const struct clarity_app *a, size_t row);
int64_t shs_task_scheduler_delay(const struct clarity_app *a, size_t row);
void shs_task_write(struct shs_ctx *c, const struct shs_agg *g, size_t row);

/* Writers shared by resources. */
void shs_kdate(struct jsonw *w, const char *key, int64_t ms);
void shs_kstr_id(struct jsonw *w, const struct clarity_app *a, const char *key, uint32_t id);
/* peak executor metrics object (21 ExecutorMetricType names, 0 when not logged) */
void shs_write_peaks(struct jsonw *w, const char *key, const struct clarity_app *a,
                     const struct clarity_peaks *pk);
void shs_write_kvs_obj(struct jsonw *w, const char *key, const struct clarity_app *a,
                       const struct clarity_kvs *kv);
struct clarity_executor *shs_exec_by_sid(const struct clarity_app *a, uint32_t sid, size_t *row);
bool shs_exec_visible(const struct clarity_executor *e);
const char *shs_stage_description(const struct clarity_app *a, const struct clarity_stage *s);

/* Resources. */
enum shs_status shs_app_list(struct shs_ctx *c, struct shs_app_entry *apps, size_t n);
void shs_app_write(struct shs_ctx *c, const struct shs_app_entry *e);
void shs_attempt_write(struct shs_ctx *c, const struct clarity_app *a);
enum shs_status shs_jobs(struct shs_ctx *c, const struct shs_agg *g, const char *job_id);
enum shs_status shs_stages(struct shs_ctx *c, const struct shs_agg *g, char **seg, size_t nseg);
enum shs_status shs_task_summary(struct shs_ctx *c, const struct shs_agg *g, const struct clarity_stage *s);
enum shs_status shs_task_list(struct shs_ctx *c, const struct shs_agg *g, const struct clarity_stage *s);
void shs_task_metric_distributions(struct shs_ctx *c, const struct shs_agg *g,
                                   const struct clarity_stage *s, const double *qs, size_t nq);
enum shs_status shs_executors(struct shs_ctx *c, const struct shs_agg *g, bool all);
enum shs_status shs_environment(struct shs_ctx *c, const struct clarity_app *a);
enum shs_status shs_misc(struct shs_ctx *c, const struct clarity_app *a);
enum shs_status shs_storage(struct shs_ctx *c, const struct clarity_app *a, const char *rdd_id);
/* parse "0.05,0.25" into sorted qs; false on a bad number */
bool shs_parse_quantiles(const char *s, double *qs, size_t max, size_t *nq);

#endif
