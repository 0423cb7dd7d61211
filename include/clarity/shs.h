/* The Spark History Server REST v1 API (/api/v1/...), answered from event logs alone.
 * Field names, order, omissions and aggregation follow SHS (AppStatusListener, api.scala).
 * A request maps to an HTTP status and a JSON body; nothing is printed, so the same call can
 * back a command-line tool or an HTTP server. */
#ifndef CLARITY_SHS_H
#define CLARITY_SHS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/error.h"
#include "clarity/model.h"

/* What one request answered. */
struct clarity_shs_response {
    int status;        /* HTTP status: 200, 400 (bad query parameter), 404 (no such route, or
                          an unknown application, attempt, job, stage, ...), 500 (out of memory) */
    char *body;        /* 200: the JSON text, NUL-terminated and ending in a newline, malloc'd
                          (free with clarity_shs_response_free); NULL otherwise */
    size_t len;        /* bytes in body, without the NUL */
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

/* SHS date text for epoch ms, e.g. "2015-02-03T16:42:59.720GMT" (buf >= 32 bytes). */
void clarity_shs_date(int64_t ms, char *buf);

/* Row of the sorted successful tasks that AppStatusStore.taskSummary reads for quantile q
 * among count tasks: min(trunc(q * count), count - 1). count must be > 0. */
size_t clarity_shs_quantile_index(double q, size_t count);

#endif
