/* The `logs` table and the rows that hang from it: reading one entry's row, replacing an
 * entry's attempts and findings in one transaction, marking an entry deleted. */
#include <stdlib.h>
#include <string.h>
#include "store/store_internal.h"

static void row_of(sqlite3_stmt *st, struct clarity_store_log *row)
{
    row->id = sqlite3_column_int64(st, 0);
    row->path = (const char *)sqlite3_column_text(st, 1);
    row->fp.size = (uint64_t)sqlite3_column_int64(st, 2);
    row->fp.mtime_ns = sqlite3_column_int64(st, 3);
    row->fp.head_hash = (uint64_t)sqlite3_column_int64(st, 4);
    row->read_offset = (uint64_t)sqlite3_column_int64(st, 5);
    row->state = clarity_store__state_of((const char *)sqlite3_column_text(st, 6));
    row->error = (const char *)sqlite3_column_text(st, 7);
    row->indexed_at_ms = sqlite3_column_int64(st, 8);
}

int clarity_store_log_get(struct clarity_store *s, const char *path, struct clarity_store_log *row, bool *found,
                          struct clarity_error *err)
{
    memset(row, 0, sizeof *row);
    *found = false;
    sqlite3_stmt *st = clarity_store__stmt(s, ST_LOG_GET, err);
    if (!st) return err ? err->code : CLARITY_EIO;
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        row_of(st, row);   /* the statement is only reset by the next call: strings stay valid */
        *found = true;
        return CLARITY_OK;
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? CLARITY_OK : clarity_store__fail(s, CLARITY_EIO, "reading a log row", err);
}

static int step_done(struct clarity_store *s, sqlite3_stmt *st, const char *what, struct clarity_error *err)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? CLARITY_OK : clarity_store__fail(s, CLARITY_EIO, what, err);
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *v)
{
    if (v) sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
    else sqlite3_bind_null(st, i);
}

static int put_log_row(struct clarity_store *s, const struct clarity_store_log *log, int64_t *id,
                       struct clarity_error *err)
{
    sqlite3_stmt *st = clarity_store__stmt(s, ST_LOG_INSERT, err);
    if (!st) return err ? err->code : CLARITY_EIO;
    sqlite3_bind_text(st, 1, log->path, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)log->fp.size);
    sqlite3_bind_int64(st, 3, log->fp.mtime_ns);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)log->fp.head_hash);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)log->read_offset);
    sqlite3_bind_text(st, 6, clarity_store__state_name(log->state), -1, SQLITE_STATIC);
    bind_text_or_null(st, 7, log->error);
    sqlite3_bind_int64(st, 8, log->indexed_at_ms);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_reset(st);
        return clarity_store__fail(s, CLARITY_EIO, "writing a log row", err);
    }
    *id = sqlite3_column_int64(st, 0);
    return step_done(s, st, "writing a log row", err);
}

static int put_app(struct clarity_store *s, int64_t log_id, const struct clarity_store_app *a, int64_t *row_id,
                   struct clarity_error *err)
{
    sqlite3_stmt *st = clarity_store__stmt(s, ST_APP_INSERT, err);
    if (!st) return err ? err->code : CLARITY_EIO;
    sqlite3_bind_int64(st, 1, log_id);
    sqlite3_bind_text(st, 2, a->app_id ? a->app_id : "", -1, SQLITE_STATIC);
    bind_text_or_null(st, 3, a->attempt_id);
    sqlite3_bind_text(st, 4, a->name ? a->name : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, a->user ? a->user : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, a->start_ms);
    sqlite3_bind_int64(st, 7, a->end_ms);
    sqlite3_bind_int64(st, 8, a->last_updated_ms);
    sqlite3_bind_int64(st, 9, a->duration_ms);
    sqlite3_bind_int(st, 10, a->completed);
    sqlite3_bind_text(st, 11, a->spark_version ? a->spark_version : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 12, a->platform ? a->platform : "", -1, SQLITE_STATIC);
    bind_text_or_null(st, 13, a->queue);
    sqlite3_bind_int64(st, 14, a->cores);
    sqlite3_bind_double(st, 15, a->core_hours);
    sqlite3_bind_double(st, 16, a->idle_core_hours);
    sqlite3_bind_double(st, 17, a->gc_share);
    sqlite3_bind_int64(st, 18, a->tasks);
    sqlite3_bind_int64(st, 19, a->failed_tasks);
    sqlite3_bind_int64(st, 20, a->integrity);
    sqlite3_bind_int64(st, 21, a->top_saving_ms);
    sqlite3_bind_double(st, 22, a->top_saving_core_hours);
    sqlite3_bind_text(st, 23, a->app_info_json ? a->app_info_json : "{}", -1, SQLITE_STATIC);
    int rc = step_done(s, st, "writing an application row", err);
    if (!rc) *row_id = sqlite3_last_insert_rowid(s->db);
    return rc;
}

static int put_finding(struct clarity_store *s, int64_t app_row_id, const struct clarity_store_finding *f,
                       struct clarity_error *err)
{
    sqlite3_stmt *st = clarity_store__stmt(s, ST_FINDING_INSERT, err);
    if (!st) return err ? err->code : CLARITY_EIO;
    sqlite3_bind_int64(st, 1, app_row_id);
    sqlite3_bind_int(st, 2, f->rank);
    sqlite3_bind_text(st, 3, f->kind ? f->kind : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, f->where ? f->where : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, f->saving_ms);
    sqlite3_bind_double(st, 6, f->saving_core_hours);
    sqlite3_bind_text(st, 7, f->basis ? f->basis : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, f->action ? f->action : "", -1, SQLITE_STATIC);
    return step_done(s, st, "writing a finding row", err);
}

static int put_all(struct clarity_store *s, const struct clarity_store_log *log, const struct clarity_store_app *apps,
                   size_t napps, const struct clarity_store_finding *finds, size_t nfind, int64_t *row_ids,
                   struct clarity_error *err)
{
    int64_t log_id = 0;
    int rc = put_log_row(s, log, &log_id, err);
    if (rc) return rc;
    sqlite3_stmt *st;
    if (!(st = clarity_store__stmt(s, ST_LOG_DELETE_FINDINGS, err))) return err ? err->code : CLARITY_EIO;
    sqlite3_bind_int64(st, 1, log_id);
    if ((rc = step_done(s, st, "replacing findings", err))) return rc;
    if (!(st = clarity_store__stmt(s, ST_LOG_DELETE_APPS, err))) return err ? err->code : CLARITY_EIO;
    sqlite3_bind_int64(st, 1, log_id);
    if ((rc = step_done(s, st, "replacing application rows", err))) return rc;
    for (size_t i = 0; i < napps; i++)
        if ((rc = put_app(s, log_id, &apps[i], &row_ids[i], err))) return rc;
    for (size_t i = 0; i < nfind; i++)
        if ((rc = put_finding(s, row_ids[finds[i].app_index], &finds[i], err))) return rc;
    return CLARITY_OK;
}

int clarity_store_log_put(struct clarity_store *s, const struct clarity_store_log *log,
                          const struct clarity_store_app *app_rows, size_t napps,
                          const struct clarity_store_finding *finding_rows, size_t nfind,
                          struct clarity_error *err)
{
    if (!log->path)
        return clarity_error_set(err, CLARITY_EUSAGE, s->path, 0, 0, "a log row without a path");
    for (size_t i = 0; i < nfind; i++)
        if (finding_rows[i].app_index >= napps)
            return clarity_error_set(err, CLARITY_EUSAGE, log->path, 0, 0,
                                     "finding %zu names attempt %zu of %zu", i, finding_rows[i].app_index, napps);
    int64_t small[16], *row_ids = napps <= 16 ? small : malloc(napps * sizeof *row_ids);
    if (!row_ids) return clarity_error_set(err, CLARITY_ENOMEM, log->path, 0, 0, "out of memory");
    /* a savepoint nests in a batch's transaction and is a transaction of its own outside one */
    int rc = clarity_store__exec(s, "SAVEPOINT log_put", err);
    if (!rc) {
        rc = put_all(s, log, app_rows, napps, finding_rows, nfind, row_ids, err);
        if (rc) sqlite3_exec(s->db, "ROLLBACK TO log_put; RELEASE log_put", NULL, NULL, NULL);
        else rc = clarity_store__exec(s, "RELEASE log_put", err);
    }
    if (row_ids != small) free(row_ids);
    return rc;
}

int clarity_store_log_mark_deleted(struct clarity_store *s, const char *path, bool *found,
                                   struct clarity_error *err)
{
    *found = false;
    sqlite3_stmt *st = clarity_store__stmt(s, ST_LOG_MARK_DELETED, err);
    if (!st) return err ? err->code : CLARITY_EIO;
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    int rc = step_done(s, st, "marking a log deleted", err);
    if (!rc) *found = sqlite3_changes(s->db) > 0;
    return rc;
}

/* Hands each row of a prepared listing statement to cb; a non-zero answer stops the walk and
 * is returned (the fleet walk's own stop code, not an error). */
static int rows_each(struct clarity_store *s, sqlite3_stmt *st, clarity_store_log_cb cb, void *ctx,
                     struct clarity_error *err)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct clarity_store_log row;
        row_of(st, &row);
        int stop = cb(ctx, &row);
        if (stop) {
            sqlite3_reset(st);
            return stop;
        }
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? CLARITY_OK : clarity_store__fail(s, CLARITY_EIO, "listing logs", err);
}

int clarity_store_logs_each(struct clarity_store *s, clarity_store_log_cb cb, void *ctx, struct clarity_error *err)
{
    sqlite3_stmt *st = clarity_store__stmt(s, ST_LOGS_EACH, err);
    if (!st) return err ? err->code : CLARITY_EIO;
    return rows_each(s, st, cb, ctx, err);
}

int clarity_store_logs_range(struct clarity_store *s, const char *from, const char *to, clarity_store_log_cb cb,
                             void *ctx, struct clarity_error *err)
{
    sqlite3_stmt *st = clarity_store__stmt(s, to ? ST_LOGS_RANGE : ST_LOGS_FROM, err);
    if (!st) return err ? err->code : CLARITY_EIO;
    sqlite3_bind_text(st, 1, from, -1, SQLITE_STATIC);
    if (to) sqlite3_bind_text(st, 2, to, -1, SQLITE_STATIC);
    return rows_each(s, st, cb, ctx, err);
}

int clarity_store_logs_mark_deleted_under(struct clarity_store *s, const char *prefix, int64_t *n,
                                          struct clarity_error *err)
{
    *n = 0;
    size_t len = strlen(prefix);
    if (!len || prefix[len - 1] != '/')
        return clarity_error_set(err, CLARITY_EUSAGE, s->path, 0, 0, "not a directory prefix: '%s'", prefix);
    /* every path starting "dir/" sorts at or after "dir/" and before "dir0" ('0' follows '/') */
    char *to = strdup(prefix);
    if (!to) return clarity_error_set(err, CLARITY_ENOMEM, s->path, 0, 0, "out of memory");
    to[len - 1] = '/' + 1;
    sqlite3_stmt *st = clarity_store__stmt(s, ST_LOGS_MARK_DELETED_RANGE, err);
    int rc = st ? CLARITY_OK : err ? err->code : CLARITY_EIO;
    if (st) {
        sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, to, -1, SQLITE_STATIC);
        rc = step_done(s, st, "marking logs deleted", err);
        if (!rc) *n = sqlite3_changes(s->db);
    }
    free(to);
    return rc;
}
