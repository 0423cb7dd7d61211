/* Opening a store: the file, WAL mode, the schema and its version check, the meta table, the
 * prepared statements every other file of src/store/ reuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "store/store_internal.h"

/* Every table and index of clarity.store/1 (docs/store.md explains each column). Paths are
 * relative to meta.root so a store moves with its log tree; head_hash holds the XXH64 bit
 * pattern as a signed 64-bit integer (SQLite has no unsigned type). */
static const char SCHEMA[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE logs("
    " id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, size INTEGER NOT NULL,"
    " mtime_ns INTEGER NOT NULL, head_hash INTEGER NOT NULL, read_offset INTEGER NOT NULL,"
    " state TEXT NOT NULL CHECK(state IN ('ok','unreadable','deleted')), error TEXT,"
    " indexed_at_ms INTEGER NOT NULL);"
    "CREATE TABLE apps("
    " id INTEGER PRIMARY KEY, log_id INTEGER NOT NULL REFERENCES logs(id),"
    " app_id TEXT NOT NULL, attempt_id TEXT, name TEXT NOT NULL, user TEXT NOT NULL,"
    " start_ms INTEGER NOT NULL, end_ms INTEGER NOT NULL, last_updated_ms INTEGER NOT NULL,"
    " duration_ms INTEGER NOT NULL, completed INTEGER NOT NULL, spark_version TEXT NOT NULL,"
    " platform TEXT NOT NULL, queue TEXT, cores INTEGER NOT NULL, core_hours REAL NOT NULL,"
    " idle_core_hours REAL NOT NULL, gc_share REAL NOT NULL, tasks INTEGER NOT NULL,"
    " failed_tasks INTEGER NOT NULL, integrity INTEGER NOT NULL, top_saving_ms INTEGER NOT NULL,"
    " top_saving_core_hours REAL NOT NULL, app_info_json TEXT NOT NULL);"
    "CREATE INDEX apps_log ON apps(log_id);"
    "CREATE INDEX apps_app ON apps(app_id);"
    "CREATE INDEX apps_name ON apps(name, start_ms);"
    "CREATE INDEX apps_start ON apps(start_ms);"
    "CREATE TABLE findings("
    " id INTEGER PRIMARY KEY, app_row_id INTEGER NOT NULL REFERENCES apps(id), rank INTEGER NOT NULL,"
    " kind TEXT NOT NULL, place TEXT NOT NULL, saving_ms INTEGER NOT NULL,"
    " saving_core_hours REAL NOT NULL, basis TEXT NOT NULL, action TEXT NOT NULL);"
    "CREATE INDEX findings_app ON findings(app_row_id, rank);";

static const char *const STMT_SQL[ST_COUNT] = {
    [ST_LOG_GET] = "SELECT id, path, size, mtime_ns, head_hash, read_offset, state, error, indexed_at_ms"
                   " FROM logs WHERE path = ?1",
    [ST_LOG_INSERT] = "INSERT INTO logs(path, size, mtime_ns, head_hash, read_offset, state, error, indexed_at_ms)"
                      " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
                      " ON CONFLICT(path) DO UPDATE SET size = ?2, mtime_ns = ?3, head_hash = ?4,"
                      " read_offset = ?5, state = ?6, error = ?7, indexed_at_ms = ?8 RETURNING id",
    [ST_LOG_DELETE_FINDINGS] = "DELETE FROM findings WHERE app_row_id IN (SELECT id FROM apps WHERE log_id = ?1)",
    [ST_LOG_DELETE_APPS] = "DELETE FROM apps WHERE log_id = ?1",
    [ST_APP_INSERT] = "INSERT INTO apps(log_id, app_id, attempt_id, name, user, start_ms, end_ms, last_updated_ms,"
                      " duration_ms, completed, spark_version, platform, queue, cores, core_hours, idle_core_hours,"
                      " gc_share, tasks, failed_tasks, integrity, top_saving_ms, top_saving_core_hours, app_info_json)"
                      " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,"
                      " ?19, ?20, ?21, ?22, ?23)",
    [ST_FINDING_INSERT] = "INSERT INTO findings(app_row_id, rank, kind, place, saving_ms, saving_core_hours, basis,"
                          " action) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [ST_LOG_MARK_DELETED] = "UPDATE logs SET state = 'deleted' WHERE path = ?1",
    [ST_LOGS_EACH] = "SELECT id, path, size, mtime_ns, head_hash, read_offset, state, error, indexed_at_ms"
                     " FROM logs ORDER BY path",
    [ST_LOGS_FROM] = "SELECT id, path, size, mtime_ns, head_hash, read_offset, state, error, indexed_at_ms"
                     " FROM logs WHERE path >= ?1 ORDER BY path",
    [ST_LOGS_RANGE] = "SELECT id, path, size, mtime_ns, head_hash, read_offset, state, error, indexed_at_ms"
                      " FROM logs WHERE path >= ?1 AND path < ?2 ORDER BY path",
    [ST_LOGS_MARK_DELETED_RANGE] = "UPDATE logs SET state = 'deleted' WHERE path >= ?1 AND path < ?2"
                                   " AND state != 'deleted'",
    [ST_FINDINGS_EACH] = "SELECT app_row_id, rank, kind, place, saving_ms, saving_core_hours, basis, action"
                         " FROM findings WHERE app_row_id = ?1 ORDER BY rank",
};

int clarity_store__fail(struct clarity_store *s, int code, const char *what, struct clarity_error *err)
{
    return clarity_error_set(err, code, s && s->path ? s->path : "", 0, 0, "%s: %s", what,
                             s && s->db ? sqlite3_errmsg(s->db) : "no database");
}

sqlite3_stmt *clarity_store__stmt(struct clarity_store *s, enum store_stmt k, struct clarity_error *err)
{
    if (!s->st[k]) {
        if (sqlite3_prepare_v3(s->db, STMT_SQL[k], -1, SQLITE_PREPARE_PERSISTENT, &s->st[k], NULL) != SQLITE_OK) {
            clarity_store__fail(s, CLARITY_EIO, "preparing a statement", err);
            return NULL;
        }
    }
    sqlite3_reset(s->st[k]);
    sqlite3_clear_bindings(s->st[k]);
    return s->st[k];
}

int clarity_store__exec(struct clarity_store *s, const char *sql, struct clarity_error *err)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        int rc = clarity_error_set(err, CLARITY_EIO, s->path, 0, 0, "%s", msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_free(msg);
        return rc;
    }
    return CLARITY_OK;
}

const char *clarity_store__state_name(enum clarity_store_log_state st)
{
    switch (st) {
    case CLARITY_STORE_LOG_UNREADABLE: return "unreadable";
    case CLARITY_STORE_LOG_DELETED: return "deleted";
    default: return "ok";
    }
}

enum clarity_store_log_state clarity_store__state_of(const char *name)
{
    if (name && !strcmp(name, "unreadable")) return CLARITY_STORE_LOG_UNREADABLE;
    if (name && !strcmp(name, "deleted")) return CLARITY_STORE_LOG_DELETED;
    return CLARITY_STORE_LOG_OK;
}

static int int_query(struct clarity_store *s, const char *sql, int64_t *out, struct clarity_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return clarity_store__fail(s, CLARITY_EIO, "reading the store", err);
    int rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? CLARITY_OK : clarity_store__fail(s, CLARITY_EIO, "reading the store", err);
}

/* meta.value of key into a malloc'd string (*out NULL when absent). */
static int meta_get(struct clarity_store *s, const char *key, char **out, struct clarity_error *err)
{
    sqlite3_stmt *st;
    *out = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key = ?1", -1, &st, NULL) != SQLITE_OK)
        return clarity_store__fail(s, CLARITY_EFORMAT, "not a clarity store (no meta table)", err);
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *out = strdup((const char *)sqlite3_column_text(st, 0));
        if (!*out) rc = SQLITE_NOMEM;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_NOMEM) return clarity_error_set(err, CLARITY_ENOMEM, s->path, 0, 0, "out of memory");
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? CLARITY_OK : clarity_store__fail(s, CLARITY_EIO, "reading meta", err);
}

static int meta_put(struct clarity_store *s, const char *key, const char *value, struct clarity_error *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)", -1, &st, NULL) != SQLITE_OK)
        return clarity_store__fail(s, CLARITY_EIO, "writing meta", err);
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? CLARITY_OK : clarity_store__fail(s, CLARITY_EIO, "writing meta", err);
}

static int create_schema(struct clarity_store *s, struct clarity_error *err)
{
    int rc = clarity_store__exec(s, "BEGIN IMMEDIATE", err);
    if (rc) return rc;
    char ver[64];
    snprintf(ver, sizeof ver, "PRAGMA user_version = %d", CLARITY_STORE_VERSION);
    if ((rc = clarity_store__exec(s, SCHEMA, err)) || (rc = meta_put(s, "schema", CLARITY_STORE_SCHEMA, err)) ||
        (rc = clarity_store__exec(s, ver, err))) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return rc;
    }
    return clarity_store__exec(s, "COMMIT", err);
}

/* A new file gets the schema; an existing one must be a clarity store of this version. */
static int check_schema(struct clarity_store *s, unsigned flags, struct clarity_error *err)
{
    int64_t ver, ntables;
    int rc;
    if ((rc = int_query(s, "PRAGMA user_version", &ver, err)) ||
        (rc = int_query(s, "SELECT count(*) FROM sqlite_schema", &ntables, err)))
        return rc;
    if (ver == 0 && ntables == 0) {
        if (s->readonly || !(flags & CLARITY_STORE_CREATE))
            return clarity_error_set(err, CLARITY_EFORMAT, s->path, 0, 0, "empty database: not a clarity store yet");
        return create_schema(s, err);
    }
    char *schema = NULL;
    if (ver != 0 && (rc = meta_get(s, "schema", &schema, err))) return rc;
    if (ver == 0 || !schema)
        rc = clarity_error_set(err, CLARITY_EFORMAT, s->path, 0, 0, "an SQLite database, but not a clarity store");
    else if (ver != CLARITY_STORE_VERSION || strcmp(schema, CLARITY_STORE_SCHEMA))
        rc = clarity_error_set(err, CLARITY_EFORMAT, s->path, 0, 0,
                               "store schema %s (version %lld); this clarity reads %s (version %d): index again"
                               " into a new store",
                               schema, (long long)ver, CLARITY_STORE_SCHEMA, CLARITY_STORE_VERSION);
    free(schema);
    return rc;
}

int clarity_store_open(const char *path, unsigned flags, struct clarity_store **out, struct clarity_error *err)
{
    *out = NULL;
    struct clarity_store *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return clarity_error_set(err, CLARITY_ENOMEM, path, 0, 0, "out of memory");
    }
    s->readonly = flags & CLARITY_STORE_READONLY;
    struct stat sb;
    if (!(flags & CLARITY_STORE_CREATE) && stat(path, &sb) != 0) {
        clarity_store_close(s);
        return clarity_error_set(err, CLARITY_EIO, path, 0, 0, "no such store (index first)");
    }
    int oflags = s->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    int rc;
    if (sqlite3_open_v2(path, &s->db, oflags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        rc = clarity_store__fail(s, CLARITY_EIO, "cannot open the store", err);
        clarity_store_close(s);
        return rc;
    }
    sqlite3_busy_timeout(s->db, 10000);
    /* WAL: the server's readers keep listing while an index run writes. NORMAL sync: a crash
     * may lose the last commits, never corrupt the file, and the store is a cache of the logs. */
    if ((!s->readonly && ((rc = clarity_store__exec(s, "PRAGMA journal_mode = WAL", err)) ||
                          (rc = clarity_store__exec(s, "PRAGMA synchronous = NORMAL", err)))) ||
        (rc = check_schema(s, flags, err)) || (rc = meta_get(s, "root", &s->root, err))) {
        if (sqlite3_errcode(s->db) == SQLITE_NOTADB) {   /* a file, but not SQLite: a format problem */
            rc = CLARITY_EFORMAT;
            if (err) err->code = rc;
        }
        clarity_store_close(s);
        return rc;
    }
    *out = s;
    return CLARITY_OK;
}

void clarity_store_close(struct clarity_store *s)
{
    if (!s) return;
    for (int i = 0; i < ST_COUNT; i++) sqlite3_finalize(s->st[i]);
    if (s->db) sqlite3_close(s->db);
    free(s->root);
    free(s->path);
    free(s);
}

const char *clarity_store_root(const struct clarity_store *s)
{
    return s->root;
}

int clarity_store_set_root(struct clarity_store *s, const char *abs_root, struct clarity_error *err)
{
    if (s->root) {
        if (!strcmp(s->root, abs_root)) return CLARITY_OK;
        return clarity_error_set(err, CLARITY_EUSAGE, s->path, 0, 0,
                                 "this store indexes %s, not %s (use another store)", s->root, abs_root);
    }
    char *copy = strdup(abs_root);
    if (!copy) return clarity_error_set(err, CLARITY_ENOMEM, s->path, 0, 0, "out of memory");
    int rc = meta_put(s, "root", abs_root, err);
    if (rc) {
        free(copy);
        return rc;
    }
    s->root = copy;
    return CLARITY_OK;
}

int clarity_store_batch_begin(struct clarity_store *s, struct clarity_error *err)
{
    if (s->in_batch) return CLARITY_OK;
    int rc = clarity_store__exec(s, "BEGIN IMMEDIATE", err);
    if (!rc) s->in_batch = true;
    return rc;
}

int clarity_store_batch_end(struct clarity_store *s, struct clarity_error *err)
{
    if (!s->in_batch) return CLARITY_OK;
    s->in_batch = false;
    return clarity_store__exec(s, "COMMIT", err);
}

int clarity_store_counts(struct clarity_store *s, struct clarity_store_counts *out, struct clarity_error *err)
{
    int rc;
    memset(out, 0, sizeof *out);
    if ((rc = int_query(s, "SELECT count(*) FROM logs", &out->logs, err)) ||
        (rc = int_query(s, "SELECT count(*) FROM logs WHERE state = 'deleted'", &out->logs_deleted, err)) ||
        (rc = int_query(s, "SELECT count(*) FROM logs WHERE state = 'unreadable'", &out->logs_unreadable, err)) ||
        (rc = int_query(s, "SELECT count(*) FROM apps", &out->apps, err)) ||
        (rc = int_query(s, "SELECT count(*) FROM findings", &out->findings, err)))
        return rc;
    return CLARITY_OK;
}
