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
#include "clarity/aggregate.h"
#include "clarity/error.h"
#include "util/jsonw.h"
#include "clarity/model.h"

struct summary_options {
    size_t limit;        /* rows per table in text (0 = all) */
};

int report_summary_text(FILE *o, const struct clarity_app *a, const struct summary_options *opt,
                        struct clarity_error *err);
int report_integrity_text(FILE *o, const struct clarity_app *a, struct clarity_error *err);
/* One object per application in the clarity.summary/1 schema (docs/summary-json.md). */
int report_summary_json(struct jsonw *w, const struct clarity_app *a, struct clarity_error *err);
int report_integrity_json(struct jsonw *w, const struct clarity_app *a, struct clarity_error *err);
/* Short integrity flags, "ok" when none (e.g. "truncated,dropped-task-ends"). */
void report_integrity_flags(const struct clarity_app *a, char *buf, size_t cap);

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
};
/* Fills a row from a loaded application (strings point into the app). Returns 0, or
 * CLARITY_ENOMEM with err filled. */
int fleet_row_fill(struct fleet_row *r, const struct clarity_app *a, struct clarity_error *err);
enum fleet_sort { FLEET_SORT_SOURCE, FLEET_SORT_START, FLEET_SORT_DURATION, FLEET_SORT_NAME,
                  FLEET_SORT_CORE_HOURS, FLEET_SORT_IDLE, FLEET_SORT_GC, FLEET_SORT_SHUFFLE, FLEET_SORT_TASKS };
/* Parses a --sort key; -1 when unknown. */
int fleet_sort_parse(const char *s);
void fleet_sort(struct fleet_row *rows, size_t n, enum fleet_sort key);
int report_fleet_text(FILE *o, const struct fleet_row *rows, size_t n, struct clarity_error *err);
int report_fleet_csv(FILE *o, const struct fleet_row *rows, size_t n, struct clarity_error *err);

/* "12.3 s", "45 ms", "2.1 h" */
const char *fmt_ms(char *buf, size_t cap, int64_t ms);
/* "28.0 MB" (decimal units, as Spark's UI), "0" for zero */
const char *fmt_bytes(char *buf, size_t cap, int64_t bytes);
/* "2015-02-03 16:42:59.720" in UTC, "-" for 0 */
const char *fmt_time(char *buf, size_t cap, int64_t epoch_ms);

/* How every report writer ends: 0, or CLARITY_EIO with err filled when o has seen a write error
 * (disk full, closed pipe), so that a failed write does not vanish. */
int clarity_report_status(FILE *o, struct clarity_error *err);

#endif
