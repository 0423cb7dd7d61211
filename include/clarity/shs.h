/* The Spark History Server REST v1 API (/api/v1/...), answered from event logs alone.
 * Field names, order, omissions and aggregation follow SHS (AppStatusListener, api.scala).
 * A request maps to an HTTP status and a JSON body; nothing is printed, so the same call can
 * back a command-line tool or an HTTP server. */
#ifndef CLARITY_SHS_H
#define CLARITY_SHS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "clarity/error.h"
#include "clarity/model.h"

/* The Spark release whose History Server answers clarity reproduces (fields and rules of
 * its REST API v1): what /version answers. */
#define CLARITY_SHS_SPARK_VERSION "3.5.0"

/* What one request answered. */
struct clarity_shs_response {
    int status;        /* HTTP status: 200, 400 (bad query parameter), 404 (no such route, or
                          an unknown application, attempt, job, stage, ...), 500 (out of memory) */
    char *body;        /* 200: the JSON text, NUL-terminated and ending in a newline, or (for
                          .../logs) the ZIP bytes; malloc'd (free with
                          clarity_shs_response_free); NULL otherwise */
    size_t len;        /* bytes in body, without the NUL */
    const char *content_type; /* "application/json", or "application/octet-stream" for the
                          event log ZIP of .../logs (a static string, never NULL) */
    char *filename;    /* the ZIP's name for Content-Disposition ("eventLogs-<appId>.zip",
                          "eventLogs-<appId>-<attemptId>.zip"), NULL for JSON; freed with
                          the response */
};

/* Answers path_and_query, e.g. "/api/v1/applications/app-1/stages?status=complete" (the
 * "/api/v1" prefix is optional), for the loaded applications; attempts of one application
 * (same app id) are grouped as SHS groups them. pretty selects Jackson's pretty printing
 * (SHS's own) over one-line JSON.
 *
 * Returns CLARITY_OK with res->status 200 and the body, or an error code with res->status
 * set, res->body NULL and a one-line reason in err->msg:
 *   CLARITY_EUSAGE     a path SHS does not route (404), including a path id that is not a
 *                      number, or a query parameter it would not accept (400)
 *   CLARITY_ENOTFOUND  an unknown application, attempt, job, stage, rdd, or a resource the
 *                      log lacks (404)
 *   CLARITY_ENOMEM     out of memory (500) */
int clarity_shs_answer(struct clarity_app *const *apps, size_t napps, const char *path_and_query, bool pretty,
                       struct clarity_shs_response *res, struct clarity_error *err);
void clarity_shs_response_free(struct clarity_shs_response *res);

/* The same answer streamed to out as it is produced, so no more of it is held in memory than
 * out buffers: the answer to a stage list with every task's details can be larger than the
 * log. Everything that can turn the request down (route, ids, query parameters, what the log
 * lacks) is decided before the first byte, so on those errors nothing is written. *status
 * gets the HTTP status. Only running out of memory half-way (CLARITY_ENOMEM, 500) can leave
 * a partial body; errors writing to out are out's own (ferror). */
int clarity_shs_answer_to(struct clarity_app *const *apps, size_t napps, const char *path_and_query, bool pretty,
                          FILE *out, int *status, struct clarity_error *err);

/* clarity_shs_answer_to that also gives what a server sends with the answer: its content type
 * (as clarity_shs_response.content_type) and, for the event log zip of .../logs, the file name
 * SHS gives it (malloc'd, the caller frees it; NULL for JSON). */
int clarity_shs_answer_to_typed(struct clarity_app *const *apps, size_t napps, const char *path_and_query, bool pretty,
                                FILE *out, int *status, const char **content_type, char **filename,
                                struct clarity_error *err);

/* The content type of path_and_query's answer (as clarity_shs_response.content_type), known
 * before answering, for a server that streams with clarity_shs_answer_to. */
const char *clarity_shs_content_type(const char *path_and_query);

/* How to load logs for path_and_query: what its answer shows decides what the loader keeps.
 * Sets keep_task_accumulables (only the ones SHS shows: user_task_accumulables_only) when
 * the answer lists tasks with their accumulables, and skip_task_executor_metrics unless it
 * shows executors' peak metrics; leaves the other fields. Loading so gives the same answer
 * as loading everything, at the cost of a load without accumulables. */
void clarity_shs_load_options(const char *path_and_query, struct clarity_load_options *opt);

/* ---- one request parsed once (a server) ----
 * A server asks several things of a path before it answers it: which application it names,
 * how to load that application, whether it reads one stage's tasks only. The path is split
 * and routed once here; the answer then uses the same parse. A path that does not route is
 * still a request: its answer is the 404 (or 400) clarity_shs_answer_to gives. */
struct clarity_shs_request;
/* CLARITY_ENOMEM when out of memory (*out may then be NULL; free it anyway). */
int clarity_shs_request_new(const char *path_and_query, struct clarity_shs_request **out);
void clarity_shs_request_free(struct clarity_shs_request *q);
/* The application id the path names (/applications/{appId}/..., decoded, whether or not the
 * rest routes), or NULL. */
const char *clarity_shs_request_app(const struct clarity_shs_request *q);
/* clarity_shs_load_options for the request. */
void clarity_shs_request_load_options(const struct clarity_shs_request *q, struct clarity_load_options *opt);
/* Whether the answer reads the tasks of one stage id only (a stage, its attempts, task list
 * and summary): then a model loaded with only_stage for *stage_id answers it as a whole
 * one does. */
bool clarity_shs_request_stage(const struct clarity_shs_request *q, int64_t *stage_id);
/* Whether the answer reads no task row (an application or attempt, environment, storage,
 * miscellaneous processes, log files, and a path that routes nowhere): then a model loaded with
 * no_task_rows answers it as a whole one does. False for what sums or lists tasks (jobs,
 * stages, executors) and for /sql, whose plan metrics replay every task. */
bool clarity_shs_request_reads_no_tasks(const struct clarity_shs_request *q);
/* Whether the answer reads task rows only through sums over every task of a stage attempt,
 * an executor or a job (jobs, a job, the stage list without details or withSummaries,
 * executors, all executors): then a model loaded with a fold (below) answers it as a whole
 * one does. (/sql reads tasks only through the SQL listener's replay of task events: a
 * model loaded with sql_plan_graphs and a fold answers it too.) */
bool clarity_shs_request_task_sums(const struct clarity_shs_request *q);

/* ---- task sums built while reading (a server's bounded loads) ----
 * A fold gathers, from the load option task_fold, the stage, executor and job figures the
 * answers above read, so the model keeps no task row:
 *   clarity_shs_fold_new(&f); clarity_shs_fold_options(f, &opt); clarity_app_load(.., &opt, &a);
 *   clarity_shs_fold_attach(f, a, &exact);
 * With *exact the model owns f and answers those routes and those that read no task; else
 * (a task id seen again after its end, a stage attempt's launches straddling a job's window:
 * sums that cannot be told apart without the rows) the caller frees f and loads the whole
 * model. Without clarity_shs_fold_spill the load need not keep task accumulables (no route
 * answered from sums shows them). */
struct clarity_shs_fold;
int clarity_shs_fold_new(struct clarity_shs_fold **out);
void clarity_shs_fold_free(struct clarity_shs_fold *f);
void clarity_shs_fold_options(struct clarity_shs_fold *f, struct clarity_load_options *opt);
/* Also keeps every folded task row, with its end reason and accumulables, in an unlinked
 * file under dir (call before the load; the load should keep task accumulables as the route
 * asks, clarity_shs_request_load_options): the model then answers the stage list with details
 * or withSummaries (clarity_shs_request_stage_rows) too, reading the rows back a batch of
 * stages at a time, so memory holds one batch's rows, not the application's (a 10 M-task log's
 * rows take ~1 GB as a task table). The file's disk space is given back with the fold.
 * CLARITY_EIO when the file cannot be made. */
int clarity_shs_fold_spill(struct clarity_shs_fold *f, const char *dir, struct clarity_error *err);
/* Whether the answer is the stage list with details or withSummaries: it reads every task row
 * of every stage, a stage at a time (a fold with a spill answers it within a bound). */
bool clarity_shs_request_stage_rows(const struct clarity_shs_request *q);
int clarity_shs_fold_attach(struct clarity_shs_fold *f, struct clarity_app *a, bool *exact);

/* clarity_shs_answer_to_typed for a parsed request. */
int clarity_shs_request_answer_to(const struct clarity_shs_request *q, struct clarity_app *const *apps, size_t napps,
                                  bool pretty, FILE *out, int *status, const char **content_type, char **filename,
                                  struct clarity_error *err);

/* The ApplicationAttemptInfo of one loaded attempt as `/applications` lists it, on one line
 * with no whitespace (*out malloc'd, NUL-terminated, *len bytes): what the store keeps so a
 * server lists applications without loading them. CLARITY_ENOMEM when out of memory. */
int clarity_shs_attempt_json(const struct clarity_app *a, char **out, size_t *len, struct clarity_error *err);

/* SHS date text for epoch ms, e.g. "2015-02-03T16:42:59.720GMT" (buf >= 32 bytes). */
void clarity_shs_date(int64_t ms, char *buf);

/* Row of the sorted successful tasks that AppStatusStore.taskSummary reads for quantile q
 * among count tasks: min(trunc(q * count), count - 1). count must be > 0. */
size_t clarity_shs_quantile_index(double q, size_t count);

/* ---- the application listing (/applications), shared by clarity api and clarity serve ----
 * A server lists thousands of applications from its store without loading their models, so
 * the listing is answered from these rows; clarity api fills them from loaded models. Both
 * go through the one filter below, so they cannot disagree. */

/* What /applications shows of one application attempt. */
struct clarity_shs_attempt_info {
    const char *app_id;                      /* never NULL ("" when not logged) */
    const char *attempt_id;                  /* NULL: the attempt has no id */
    const char *name, *user, *spark_version; /* NULL: not logged */
    int64_t start_ms;
    int64_t end_ms;                          /* 0: running (no ApplicationEnd) */
    int64_t last_updated_ms;                 /* the log's modification time, as SHS takes it */
};

/* The attempt row of a loaded model; lastUpdated is its source's modification time (0 when
 * it cannot be read). Strings point into the model. */
void clarity_shs_attempt_info_of(const struct clarity_app *a, struct clarity_shs_attempt_info *out);

/* One attempt's object as /applications prints it (pretty: Jackson's indentation), with a
 * final newline; CLARITY_EIO when out fails. */
int clarity_shs_attempt_info_write(FILE *out, const struct clarity_shs_attempt_info *a, bool pretty);

/* ApplicationListResource's parameters: status (running, completed; repeated or comma-separated),
 * minDate/maxDate (start) and minEndDate/maxEndDate (end) as SHS's SimpleDateParam reads them
 * ("2015-02-03T16:42:40.000GMT" or a GMT day "2015-02-10"), limit. */
struct clarity_shs_app_filter {
    bool running, completed;                 /* which statuses are listed */
    int64_t min_start_ms, max_start_ms;      /* defaults 2010-01-01 and 3000-01-01 */
    int64_t min_end_ms, max_end_ms;
    int64_t limit;                           /* INT64_MAX when not given */
};

/* Parses a query string ("status=completed&minDate=2015-02-10", NULL or "" for none) as SHS
 * would: CLARITY_EUSAGE with err naming the parameter for a value SHS refuses (400). */
int clarity_shs_app_filter_parse(const char *query, struct clarity_shs_app_filter *f, struct clarity_error *err);

/* Whether SHS lists an application of natt attempts (newest start first, att[0] deciding
 * running or completed, as SHS's "any running" reads its first attempt): its status is
 * wanted and some attempt starts and ends in the windows; a running attempt passes the end
 * window when maxEndDate is after now_ms (epoch ms). */
bool clarity_shs_app_filter_match(const struct clarity_shs_app_filter *f, const struct clarity_shs_attempt_info *const *att,
                                  size_t natt, int64_t now_ms);

/* The /applications answer for rows of attempts in any order: grouped by application id
 * (attempts newest start first), applications by end time descending as SHS's listing reads
 * its "endTime" index, filtered by query (clarity_shs_app_filter_parse, clarity_shs_app_filter_match
 * at the current time) and cut at its limit. Streams to out; *status as clarity_shs_answer_to. */
int clarity_shs_applications_to(const struct clarity_shs_attempt_info *att, size_t n, const char *query, bool pretty,
                                FILE *out, int *status, struct clarity_error *err);

#endif
