/* The Spark History Server REST v1 API (/api/v1/...), answered from event logs alone.
 * Field names, order, omissions and aggregation follow SHS (AppStatusListener, api.scala). */
#ifndef CLARITY_SHS_H
#define CLARITY_SHS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "clarity/model.h"

/* What SHS would answer with an HTTP error: NOT_FOUND is an unknown application, job, stage,
 * task or executor (404 for an id); BAD_PATH is a path or parameter SHS would not route or
 * parse (404 for no route, 400 for a bad parameter). */
enum shs_status { SHS_OK = 0, SHS_BAD_PATH = 2, SHS_NOT_FOUND = 3 };

/* Answers rest_path (with or without "/api/v1", with an optional "?query") for the loaded
 * applications; attempts of one application (same app id) are grouped as SHS groups them.
 * Writes the JSON to out; on error writes nothing and puts a one-line reason in err. */
enum shs_status shs_serve(struct clarity_app *const *apps, size_t napps, const char *rest_path,
                          FILE *out, bool pretty, char *err, size_t errlen);

/* SHS date text for epoch ms, e.g. "2015-02-03T16:42:59.720GMT" (buf >= 32 bytes). */
void shs_date(int64_t ms, char *buf);

/* Row of the sorted successful tasks that AppStatusStore.taskSummary reads for quantile q
 * among count tasks: min(trunc(q * count), count - 1). count must be > 0. */
size_t shs_quantile_index(double q, size_t count);

#endif
