/* Reading application attempts (with a filter and an order) and their findings. */
#include <stdio.h>
#include <string.h>
#include "store/store_internal.h"

#define APP_COLS                                                                                              \
    "a.id, a.log_id, l.path, l.state, a.app_id, a.attempt_id, a.name, a.user, a.start_ms, a.end_ms,"           \
    " a.last_updated_ms, a.duration_ms, a.completed, a.spark_version, a.platform, a.queue, a.cores,"          \
    " a.core_hours, a.idle_core_hours, a.gc_share, a.tasks, a.failed_tasks, a.integrity, a.top_saving_ms,"    \
    " a.top_saving_core_hours, a.app_info_json"

static const char *text(sqlite3_stmt *st, int i)
{
    return (const char *)sqlite3_column_text(st, i);
}

static void app_of(sqlite3_stmt *st, struct clarity_store_app *a)
{
    memset(a, 0, sizeof *a);
    a->row_id = sqlite3_column_int64(st, 0);
    a->log_id = sqlite3_column_int64(st, 1);
    a->log_path = text(st, 2);
    a->log_state = clarity_store__state_of(text(st, 3));
    a->app_id = text(st, 4);
    a->attempt_id = text(st, 5);
    a->name = text(st, 6);
    a->user = text(st, 7);
    a->start_ms = sqlite3_column_int64(st, 8);
    a->end_ms = sqlite3_column_int64(st, 9);
    a->last_updated_ms = sqlite3_column_int64(st, 10);
    a->duration_ms = sqlite3_column_int64(st, 11);
    a->completed = sqlite3_column_int(st, 12) != 0;
    a->spark_version = text(st, 13);
    a->platform = text(st, 14);
    a->queue = text(st, 15);
    a->cores = sqlite3_column_int64(st, 16);
    a->core_hours = sqlite3_column_double(st, 17);
    a->idle_core_hours = sqlite3_column_double(st, 18);
    a->gc_share = sqlite3_column_double(st, 19);
    a->tasks = sqlite3_column_int64(st, 20);
    a->failed_tasks = sqlite3_column_int64(st, 21);
    a->integrity = (uint32_t)sqlite3_column_int64(st, 22);
    a->top_saving_ms = sqlite3_column_int64(st, 23);
    a->top_saving_core_hours = sqlite3_column_double(st, 24);
    a->app_info_json = text(st, 25);
}

static const char *order_by(enum clarity_store_sort sort)
{
    switch (sort) {
    case CLARITY_STORE_SORT_CORE_HOURS: return "core_hours DESC, app_id, id";
    case CLARITY_STORE_SORT_IDLE: return "idle_core_hours DESC, app_id, id";
    case CLARITY_STORE_SORT_GC: return "gc_share DESC, app_id, id";
    case CLARITY_STORE_SORT_SAVING: return "top_saving_core_hours DESC, app_id, id";
    case CLARITY_STORE_SORT_DURATION: return "duration_ms DESC, app_id, id";
    case CLARITY_STORE_SORT_START: return "start_ms, app_id, id";
    default:
        /* The History Server's "endTime" index read in reverse: an application sorts by the end of
         * its newest attempt (-1 while that attempt runs), ties by id descending; its attempts
         * stay together, newest start first. */
        return "app_end DESC, app_id DESC, start_ms DESC, id DESC";
    }
}

/* Appends "AND cond" to the WHERE clause being built. */
static void add(char *sql, size_t cap, const char *cond)
{
    size_t n = strlen(sql);
    snprintf(sql + n, cap - n, " AND %s", cond);
}

void clarity_store__filtered_sql(const struct clarity_store_filter *f, char *out, size_t cap)
{
    char where[1024] = "1";
    if (f->status == 1) add(where, sizeof where, "completed");
    if (f->status == 2) add(where, sizeof where, "NOT completed");
    if (f->has_min_start) add(where, sizeof where, "start_ms >= ?1");
    if (f->has_max_start) add(where, sizeof where, "start_ms <= ?2");
    if (f->has_min_end) add(where, sizeof where, "completed AND end_ms >= ?3");
    if (f->has_max_end) add(where, sizeof where, "completed AND end_ms <= ?4");
    if (f->app_id) add(where, sizeof where, "app_id = ?5");
    if (f->name) add(where, sizeof where, "name = ?6");
    /* The SHS order needs each application's newest attempt before any filter drops one, so
     * the window runs in the inner select; its columns a.id, l.path ... are id, path outside. */
    snprintf(out, cap,
             "SELECT * FROM (SELECT " APP_COLS ", FIRST_VALUE(CASE WHEN a.end_ms = 0 THEN -1 ELSE a.end_ms END)"
             " OVER (PARTITION BY a.app_id ORDER BY a.start_ms DESC, a.id DESC) AS app_end"
             " FROM apps a JOIN logs l ON l.id = a.log_id%s) WHERE %s",
             f->include_deleted ? "" : " WHERE l.state <> 'deleted'", where);
}

void clarity_store__filter_bind(sqlite3_stmt *st, const struct clarity_store_filter *f)
{
    sqlite3_bind_int64(st, 1, f->min_start_ms);
    sqlite3_bind_int64(st, 2, f->max_start_ms);
    sqlite3_bind_int64(st, 3, f->min_end_ms);
    sqlite3_bind_int64(st, 4, f->max_end_ms);
    if (f->app_id) sqlite3_bind_text(st, 5, f->app_id, -1, SQLITE_STATIC);
    if (f->name) sqlite3_bind_text(st, 6, f->name, -1, SQLITE_STATIC);
}

void clarity_store__app_of(sqlite3_stmt *st, struct clarity_store_app *a)
{
    app_of(st, a);
}

int clarity_store_apps_each(struct clarity_store *s, const struct clarity_store_filter *filter,
                            clarity_store_app_cb cb, void *ctx, struct clarity_error *err)
{
    static const struct clarity_store_filter none;
    const struct clarity_store_filter *f = filter ? filter : &none;
    char inner[2048], sql[2560];
    clarity_store__filtered_sql(f, inner, sizeof inner);
    snprintf(sql, sizeof sql, "%s ORDER BY %s%s", inner, order_by(f->sort), f->limit > 0 ? " LIMIT ?7" : "");
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return clarity_store__fail(s, CLARITY_EIO, "listing applications", err);
    clarity_store__filter_bind(st, f);
    if (f->limit > 0) sqlite3_bind_int64(st, 7, f->limit);
    int rc, stop = 0;
    while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct clarity_store_app a;
        app_of(st, &a);
        stop = cb(ctx, &a);
    }
    if (stop) rc = SQLITE_DONE;
    int out = rc == SQLITE_DONE ? stop : clarity_store__fail(s, CLARITY_EIO, "listing applications", err);
    sqlite3_finalize(st);
    return out;
}

int clarity_store_findings_each(struct clarity_store *s, int64_t app_row_id, clarity_store_finding_cb cb, void *ctx,
                                struct clarity_error *err)
{
    sqlite3_stmt *st = clarity_store__stmt(s, ST_FINDINGS_EACH, err);
    if (!st) return err ? err->code : CLARITY_EIO;
    sqlite3_bind_int64(st, 1, app_row_id);
    int rc, stop = 0;
    while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct clarity_store_finding f = {
            .app_row_id = sqlite3_column_int64(st, 0),
            .rank = sqlite3_column_int(st, 1),
            .kind = text(st, 2),
            .where = text(st, 3),
            .saving_ms = sqlite3_column_int64(st, 4),
            .saving_core_hours = sqlite3_column_double(st, 5),
            .basis = text(st, 6),
            .action = text(st, 7),
        };
        stop = cb(ctx, &f);
    }
    sqlite3_reset(st);
    if (stop) return stop;
    return rc == SQLITE_DONE ? CLARITY_OK : clarity_store__fail(s, CLARITY_EIO, "listing findings", err);
}
