/* What the files of src/store/ share: the connection, its prepared statements and the error
 * helper that turns an SQLite failure into a clarity_error naming the database file. */
#ifndef CLARITY_STORE_INTERNAL_H
#define CLARITY_STORE_INTERNAL_H
#include <sqlite3.h>
#include "clarity/store.h"

enum store_stmt {
    ST_LOG_GET,
    ST_LOG_INSERT,
    ST_LOG_DELETE_FINDINGS,
    ST_LOG_DELETE_APPS,
    ST_APP_INSERT,
    ST_FINDING_INSERT,
    ST_LOG_MARK_DELETED,
    ST_LOGS_EACH,
    ST_LOGS_FROM,
    ST_LOGS_RANGE,
    ST_LOGS_MARK_DELETED_RANGE,
    ST_FINDINGS_EACH,
    ST_COUNT
};

struct clarity_store {
    sqlite3 *db;
    char *path;
    char *root;               /* meta.root, NULL when unset */
    bool readonly;
    bool in_batch;
    sqlite3_stmt *st[ST_COUNT];
};

/* Sets err from the connection's last error ("what: sqlite message") and returns code. */
int clarity_store__fail(struct clarity_store *s, int code, const char *what, struct clarity_error *err);
/* The statement of that kind, prepared once per store and reset before it is handed out. */
sqlite3_stmt *clarity_store__stmt(struct clarity_store *s, enum store_stmt k, struct clarity_error *err);
/* Runs SQL with no result rows. */
int clarity_store__exec(struct clarity_store *s, const char *sql, struct clarity_error *err);

/* "SELECT * FROM (attempts joined to their log, with the SHS order key app_end) WHERE
 * <filter>": 26 columns in clarity_store__app_of's order, then app_end. Parameters ?1..?6 are
 * the filter's (clarity_store__filter_bind); ?7 and up are free for the caller. */
void clarity_store__filtered_sql(const struct clarity_store_filter *f, char *out, size_t cap);
void clarity_store__filter_bind(sqlite3_stmt *st, const struct clarity_store_filter *f);
void clarity_store__app_of(sqlite3_stmt *st, struct clarity_store_app *a);

const char *clarity_store__state_name(enum clarity_store_log_state st);
enum clarity_store_log_state clarity_store__state_of(const char *name);

#endif
