/* Merging a shard: a store another process (a Dask worker) filled for some log entries is
 * folded into this one with a few INSERT ... SELECT over an attached database, so a merge
 * costs about what writing the rows cost, whatever the shard's size. */
#include <stdio.h>
#include <string.h>
#include "store/store_internal.h"

#define APP_DATA                                                                                            \
    "app_id, attempt_id, name, user, start_ms, end_ms, last_updated_ms, duration_ms, completed,"          \
    " spark_version, platform, queue, cores, core_hours, idle_core_hours, gc_share, tasks, failed_tasks," \
    " integrity, top_saving_ms, top_saving_core_hours, app_info_json"

static int exec_int(struct clarity_store *s, const char *sql, int64_t bind, int64_t *out, struct clarity_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return clarity_store__fail(s, CLARITY_EIO, "merging a shard", err);
    if (sqlite3_bind_parameter_count(st) > 0) sqlite3_bind_int64(st, 1, bind);
    int rc = sqlite3_step(st);
    if (out) *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? CLARITY_OK : clarity_store__fail(s, CLARITY_EIO, "merging a shard", err);
}

static int merge_rows(struct clarity_store *s, int64_t *nlogs, struct clarity_error *err)
{
    int64_t off;
    int rc;
    if ((rc = clarity_store__exec(s,
                                  "DELETE FROM main.findings WHERE app_row_id IN (SELECT a.id FROM main.apps a"
                                  " JOIN main.logs l ON l.id = a.log_id WHERE l.path IN (SELECT path FROM sh.logs));"
                                  "DELETE FROM main.apps WHERE log_id IN (SELECT id FROM main.logs"
                                  " WHERE path IN (SELECT path FROM sh.logs));"
                                  "INSERT INTO main.logs(path, size, mtime_ns, head_hash, read_offset, state, error,"
                                  " indexed_at_ms) SELECT path, size, mtime_ns, head_hash, read_offset, state, error,"
                                  " indexed_at_ms FROM sh.logs WHERE 1 ON CONFLICT(path) DO UPDATE SET"
                                  " size = excluded.size, mtime_ns = excluded.mtime_ns, head_hash = excluded.head_hash,"
                                  " read_offset = excluded.read_offset, state = excluded.state, error = excluded.error,"
                                  " indexed_at_ms = excluded.indexed_at_ms;",
                                  err)))
        return rc;
    /* the shard's row ids shifted past ours keep its findings pointing at their attempts */
    if ((rc = exec_int(s, "SELECT coalesce(max(id), 0) FROM main.apps", 0, &off, err)) ||
        (rc = exec_int(s,
                       "INSERT INTO main.apps(id, log_id, " APP_DATA ") SELECT sa.id + ?1, ml.id, " APP_DATA
                       " FROM sh.apps sa JOIN (SELECT sl.id AS sid, m.id AS id FROM sh.logs sl"
                       " JOIN main.logs m ON m.path = sl.path) ml ON ml.sid = sa.log_id",
                       off, NULL, err)) ||
        (rc = exec_int(s,
                       "INSERT INTO main.findings(app_row_id, rank, kind, place, saving_ms, saving_core_hours,"
                       " basis, action) SELECT app_row_id + ?1, rank, kind, place, saving_ms, saving_core_hours,"
                       " basis, action FROM sh.findings",
                       off, NULL, err)) ||
        (rc = exec_int(s, "SELECT count(*) FROM sh.logs", 0, nlogs, err)))
        return rc;
    return CLARITY_OK;
}

int clarity_store_merge(struct clarity_store *s, const char *shard_path, int64_t *nlogs, struct clarity_error *err)
{
    *nlogs = 0;
    if (s->in_batch)
        return clarity_error_set(err, CLARITY_EUSAGE, s->path, 0, 0, "a shard cannot be merged inside a batch");
    struct clarity_store *sh;
    int rc = clarity_store_open(shard_path, CLARITY_STORE_READONLY, &sh, err);   /* checks its version */
    if (rc) return rc;
    if (sh->root) rc = clarity_store_set_root(s, sh->root, err);
    clarity_store_close(sh);
    if (rc) return rc;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "ATTACH DATABASE ?1 AS sh", -1, &st, NULL) != SQLITE_OK)
        return clarity_store__fail(s, CLARITY_EIO, "attaching a shard", err);
    sqlite3_bind_text(st, 1, shard_path, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    sqlite3_finalize(st);
    if (step != SQLITE_DONE) return clarity_store__fail(s, CLARITY_EIO, "attaching a shard", err);
    if (!(rc = clarity_store__exec(s, "BEGIN IMMEDIATE", err))) {
        rc = merge_rows(s, nlogs, err);
        if (rc) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        else rc = clarity_store__exec(s, "COMMIT", err);
    }
    sqlite3_exec(s->db, "DETACH DATABASE sh", NULL, NULL, NULL);
    return rc;
}
