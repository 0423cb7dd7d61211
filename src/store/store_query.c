/* The fleet's questions asked in SQL: totals per user, queue, platform or name, and the runs
 * of one recurring application with the baseline each is compared with. */
#include <stdio.h>
#include <string.h>
#include "store/store_internal.h"

static const char *group_col(enum clarity_store_group by)
{
    switch (by) {
    case CLARITY_STORE_BY_QUEUE: return "coalesce(queue, '')";
    case CLARITY_STORE_BY_PLATFORM: return "platform";
    case CLARITY_STORE_BY_NAME: return "name";
    default: return "user";
    }
}

int clarity_store_totals_each(struct clarity_store *s, enum clarity_store_group by,
                              const struct clarity_store_filter *filter, clarity_store_total_cb cb, void *ctx,
                              struct clarity_error *err)
{
    static const struct clarity_store_filter none;
    const struct clarity_store_filter *f = filter ? filter : &none;
    char inner[2048], sql[3072];
    clarity_store__filtered_sql(f, inner, sizeof inner);
    const char *k = group_col(by);
    snprintf(sql, sizeof sql,
             "SELECT %s AS k, count(*), sum(completed), sum(tasks), sum(failed_tasks), sum(duration_ms),"
             " sum(core_hours), sum(idle_core_hours), sum(top_saving_core_hours), avg(gc_share),"
             " min(start_ms), max(start_ms) FROM (%s) GROUP BY k ORDER BY sum(core_hours) DESC, k",
             k, inner);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return clarity_store__fail(s, CLARITY_EIO, "totalling applications", err);
    clarity_store__filter_bind(st, f);
    int rc, stop = 0;
    while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct clarity_store_total t = {
            .key = (const char *)sqlite3_column_text(st, 0),
            .runs = sqlite3_column_int64(st, 1),
            .completed = sqlite3_column_int64(st, 2),
            .tasks = sqlite3_column_int64(st, 3),
            .failed_tasks = sqlite3_column_int64(st, 4),
            .duration_ms = sqlite3_column_int64(st, 5),
            .core_hours = sqlite3_column_double(st, 6),
            .idle_core_hours = sqlite3_column_double(st, 7),
            .saving_core_hours = sqlite3_column_double(st, 8),
            .gc_share = sqlite3_column_double(st, 9),
            .first_start_ms = sqlite3_column_int64(st, 10),
            .last_start_ms = sqlite3_column_int64(st, 11),
        };
        if (!t.key) t.key = "";
        stop = cb(ctx, &t);
    }
    if (stop) rc = SQLITE_DONE;
    int out = rc == SQLITE_DONE ? stop : clarity_store__fail(s, CLARITY_EIO, "totalling applications", err);
    sqlite3_finalize(st);
    return out;
}

int clarity_store_runs_each(struct clarity_store *s, const struct clarity_store_filter *filter, int window,
                            clarity_store_run_cb cb, void *ctx, struct clarity_error *err)
{
    static const struct clarity_store_filter none;
    const struct clarity_store_filter *f = filter ? filter : &none;
    if (window < 1) window = 1;
    char inner[2048], sql[3072];
    clarity_store__filtered_sql(f, inner, sizeof inner);
    /* the frame is a literal: SQLite takes no parameter there */
    snprintf(sql, sizeof sql,
             "SELECT *, count(*) OVER w, avg(duration_ms) OVER w, avg(core_hours) OVER w FROM (%s)"
             " WINDOW w AS (ORDER BY start_ms, id ROWS BETWEEN %d PRECEDING AND 1 PRECEDING)"
             " ORDER BY start_ms, id",
             inner, window);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return clarity_store__fail(s, CLARITY_EIO, "listing runs", err);
    clarity_store__filter_bind(st, f);
    int rc, stop = 0;
    while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct clarity_store_app a;
        clarity_store__app_of(st, &a);
        struct clarity_store_run r = {
            .app = &a,
            .previous = sqlite3_column_int64(st, 27),
            .baseline_duration_ms = sqlite3_column_double(st, 28),
            .baseline_core_hours = sqlite3_column_double(st, 29),
        };
        stop = cb(ctx, &r);
    }
    if (stop) rc = SQLITE_DONE;
    int out = rc == SQLITE_DONE ? stop : clarity_store__fail(s, CLARITY_EIO, "listing runs", err);
    sqlite3_finalize(st);
    return out;
}
