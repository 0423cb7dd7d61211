/* Shared by the blocked and stragglers JSON reports, whose groups (a job, a SQL query or the
 * application) are named alike. */
#ifndef CLARITY_REPORT_GROUP_JSON_H
#define CLARITY_REPORT_GROUP_JSON_H
#include <stddef.h>
#include <stdint.h>
#include "clarity/model.h"
#include "util/jsonw.h"

/* A group's "kind", "id" (null for the application, which has none) and "name" members. */
void clarity__report_group_json(struct jsonw *w, const struct clarity_app *a, int kind, int64_t id, size_t row);

#endif
