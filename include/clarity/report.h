/* Report writers for `clarity summary`. They read the model and print; they compute nothing
 * an analysis would need. */
#ifndef CLARITY_REPORT_H
#define CLARITY_REPORT_H
#include <stdbool.h>
#include <stdio.h>
#include "clarity/aggregate.h"
#include "util/jsonw.h"
#include "clarity/model.h"

struct summary_options {
    size_t limit;        /* rows per table in text (0 = all) */
};

void report_summary_text(FILE *o, const struct clarity_app *a, const struct summary_options *opt);
void report_integrity_text(FILE *o, const struct clarity_app *a);
/* One object per application in the clarity.summary/1 schema (docs/summary-json.md). */
void report_summary_json(struct jsonw *w, const struct clarity_app *a);
void report_integrity_json(struct jsonw *w, const struct clarity_app *a);
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
/* Fills a row from a loaded application (strings point into the app). */
void fleet_row_fill(struct fleet_row *r, const struct clarity_app *a);
enum fleet_sort { FLEET_SORT_SOURCE, FLEET_SORT_START, FLEET_SORT_DURATION, FLEET_SORT_NAME,
                  FLEET_SORT_CORE_HOURS, FLEET_SORT_IDLE, FLEET_SORT_GC, FLEET_SORT_SHUFFLE, FLEET_SORT_TASKS };
/* Parses a --sort key; -1 when unknown. */
int fleet_sort_parse(const char *s);
void fleet_sort(struct fleet_row *rows, size_t n, enum fleet_sort key);
void report_fleet_text(FILE *o, const struct fleet_row *rows, size_t n);
void report_fleet_csv(FILE *o, const struct fleet_row *rows, size_t n);

/* "12.3 s", "45 ms", "2.1 h" */
const char *fmt_ms(char *buf, size_t cap, int64_t ms);
/* "28.0 MB" (decimal units, as Spark's UI), "0" for zero */
const char *fmt_bytes(char *buf, size_t cap, int64_t bytes);
/* "2015-02-03 16:42:59.720" in UTC, "-" for 0 */
const char *fmt_time(char *buf, size_t cap, int64_t epoch_ms);

#endif
