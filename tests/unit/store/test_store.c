/* The store: schema and version checks, a log entry's rows replaced as one, deleted entries,
 * the History Server's listing order, the other sorts and filters, and the change check. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>
#include "clarity/model.h"   /* both in one unit: the server includes both (tag names must not clash) */
#include "clarity/store.h"

static char dir[64];

static void mkdir_tmp(void)
{
    strcpy(dir, "/tmp/clarity-store-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void rm_tmp(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(store, .init = mkdir_tmp, .fini = rm_tmp);

static struct clarity_store *open_new(const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct clarity_store *s;
    struct clarity_error err = {0};
    int rc = clarity_store_open(path, CLARITY_STORE_CREATE, &s, &err);
    cr_assert_eq(rc, CLARITY_OK, "%s", err.msg);
    return s;
}

static struct clarity_store_app app(const char *id, const char *att, int64_t start, int64_t end, double ch)
{
    return (struct clarity_store_app){
        .app_id = id, .attempt_id = att, .name = "etl", .user = "ana", .start_ms = start, .end_ms = end,
        .last_updated_ms = end ? end : start, .duration_ms = end ? end - start : 0, .completed = end != 0,
        .spark_version = "3.5.1", .platform = "spark", .cores = 8, .core_hours = ch, .idle_core_hours = ch / 4,
        .gc_share = 0.05, .tasks = 100, .failed_tasks = 1, .app_info_json = "{\"startTime\":1}",
    };
}

static struct clarity_store_log logrow(const char *path, uint64_t size)
{
    return (struct clarity_store_log){.path = path, .fp = {size, 1000000000LL * 1700000000, 0xfedcba9876543210ULL},
                                      .read_offset = size, .indexed_at_ms = 1700000001000};
}

static int collect(void *ctx, const struct clarity_store_app *a)
{
    char *out = ctx;
    size_t n = strlen(out);
    snprintf(out + n, 512 - n, "%s%s%s", n ? " " : "", a->app_id, a->attempt_id ? a->attempt_id : "");
    return 0;
}

static void list(struct clarity_store *s, const struct clarity_store_filter *f, char *out)
{
    struct clarity_error err = {0};
    out[0] = 0;
    cr_assert_eq(clarity_store_apps_each(s, f, collect, out, &err), CLARITY_OK, "%s", err.msg);
}

Test(store, creates_then_reopens_and_keeps_rows)
{
    struct clarity_store *s = open_new("a.db");
    struct clarity_error err = {0};
    struct clarity_store_log l = logrow("x/app-1", 5000);
    struct clarity_store_app a = app("app-1", NULL, 1000, 61000, 2.5);
    a.queue = "root.etl";
    a.integrity = CLARITY_STORE_INT_TRUNCATED | CLARITY_STORE_INT_MALFORMED;
    a.top_saving_ms = 12000;
    a.top_saving_core_hours = 0.75;
    struct clarity_store_finding f[2] = {
        {.app_index = 0, .rank = 1, .kind = "skew", .where = "stage 3.0", .saving_ms = 12000,
         .saving_core_hours = 0.75, .basis = "replay", .action = "salt the join key"},
        {.app_index = 0, .rank = 2, .kind = "gc", .where = "application", .saving_ms = 3000,
         .saving_core_hours = 0.2, .basis = "bound", .action = "raise executor memory"},
    };
    cr_assert_eq(clarity_store_log_put(s, &l, &a, 1, f, 2, &err), CLARITY_OK, "%s", err.msg);
    clarity_store_close(s);

    char path[128];
    snprintf(path, sizeof path, "%s/a.db", dir);
    cr_assert_eq(clarity_store_open(path, CLARITY_STORE_READONLY, &s, &err), CLARITY_OK, "%s", err.msg);
    struct clarity_store_log got;
    bool found;
    cr_assert_eq(clarity_store_log_get(s, "x/app-1", &got, &found, &err), CLARITY_OK);
    cr_assert(found);
    cr_assert_str_eq(got.path, "x/app-1");
    cr_assert_eq(got.fp.size, 5000);
    cr_assert_eq(got.fp.mtime_ns, 1700000000000000000LL);
    cr_assert_eq(got.fp.head_hash, 0xfedcba9876543210ULL);   /* the top bit survives SQLite's signed integers */
    cr_assert_eq(got.read_offset, 5000);
    cr_assert_eq(got.state, CLARITY_STORE_LOG_OK);
    cr_assert_null(got.error);
    cr_assert_eq(got.indexed_at_ms, 1700000001000);
    cr_assert_eq(clarity_store_log_get(s, "x/none", &got, &found, &err), CLARITY_OK);
    cr_assert(!found);

    struct clarity_store_counts c;
    cr_assert_eq(clarity_store_counts(s, &c, &err), CLARITY_OK);
    cr_assert_eq(c.logs, 1);
    cr_assert_eq(c.apps, 1);
    cr_assert_eq(c.findings, 2);
    clarity_store_close(s);
}

struct one { struct clarity_store_app a; char id[32], queue[32], json[64], log_path[64]; int64_t row; int n; };

static int keep_one(void *ctx, const struct clarity_store_app *a)
{
    struct one *o = ctx;
    o->a = *a;
    snprintf(o->id, sizeof o->id, "%s", a->app_id);
    snprintf(o->queue, sizeof o->queue, "%s", a->queue ? a->queue : "(null)");
    snprintf(o->json, sizeof o->json, "%s", a->app_info_json);
    snprintf(o->log_path, sizeof o->log_path, "%s", a->log_path);   /* strings live during the call only */
    o->row = a->row_id;
    o->n++;
    return 0;
}

struct fl { char text[256]; int n; };

static int keep_finding(void *ctx, const struct clarity_store_finding *f)
{
    struct fl *o = ctx;
    size_t n = strlen(o->text);
    snprintf(o->text + n, sizeof o->text - n, "%d:%s@%s/%lld/%.2f/%s;", f->rank, f->kind, f->where,
             (long long)f->saving_ms, f->saving_core_hours, f->basis);
    o->n++;
    return 0;
}

Test(store, a_put_replaces_the_logs_attempts_and_findings)
{
    struct clarity_store *s = open_new("b.db");
    struct clarity_error err = {0};
    struct clarity_store_log l = logrow("app-1.inprogress", 100);
    struct clarity_store_app a = app("app-1", NULL, 1000, 0, 1.0);
    struct clarity_store_finding f = {.app_index = 0, .rank = 1, .kind = "gc", .where = "application",
                                      .saving_ms = 5, .saving_core_hours = 0.01, .basis = "bound", .action = "x"};
    cr_assert_eq(clarity_store_log_put(s, &l, &a, 1, &f, 1, &err), CLARITY_OK, "%s", err.msg);
    /* the log grew and the application ended: one attempt, two findings now */
    l.fp.size = l.read_offset = 900;
    a = app("app-1", NULL, 1000, 91000, 4.0);
    a.queue = "root.adhoc";
    struct clarity_store_finding f2[2] = {
        {.app_index = 0, .rank = 1, .kind = "skew", .where = "stage 1.0", .saving_ms = 30000,
         .saving_core_hours = 0.5, .basis = "replay", .action = "a"},
        {.app_index = 0, .rank = 2, .kind = "spill", .where = "stage 2.0", .saving_ms = 2000,
         .saving_core_hours = 0.04, .basis = "estimate", .action = "b"},
    };
    cr_assert_eq(clarity_store_log_put(s, &l, &a, 1, f2, 2, &err), CLARITY_OK, "%s", err.msg);

    struct one o = {0};
    cr_assert_eq(clarity_store_apps_each(s, NULL, keep_one, &o, &err), CLARITY_OK);
    cr_assert_eq(o.n, 1);
    cr_assert_str_eq(o.id, "app-1");
    cr_assert_str_eq(o.queue, "root.adhoc");
    cr_assert_str_eq(o.json, "{\"startTime\":1}");
    cr_assert_str_eq(o.log_path, "app-1.inprogress");
    cr_assert_eq(o.a.end_ms, 91000);
    cr_assert(o.a.completed);
    cr_assert_float_eq(o.a.core_hours, 4.0, 1e-12);
    cr_assert_float_eq(o.a.idle_core_hours, 1.0, 1e-12);

    struct fl fl = {0};
    cr_assert_eq(clarity_store_findings_each(s, o.row, keep_finding, &fl, &err), CLARITY_OK);
    cr_assert_eq(fl.n, 2);
    cr_assert_str_eq(fl.text, "1:skew@stage 1.0/30000/0.50/replay;2:spill@stage 2.0/2000/0.04/estimate;");

    struct clarity_store_counts c;
    cr_assert_eq(clarity_store_counts(s, &c, &err), CLARITY_OK);
    cr_assert_eq(c.logs, 1);
    cr_assert_eq(c.apps, 1);
    cr_assert_eq(c.findings, 2);   /* the first put's finding is gone */
    clarity_store_close(s);
}

Test(store, a_finding_naming_no_attempt_is_refused_and_nothing_changes)
{
    struct clarity_store *s = open_new("c.db");
    struct clarity_error err = {0};
    struct clarity_store_log l = logrow("app-1", 100);
    struct clarity_store_app a = app("app-1", NULL, 1000, 2000, 1.0);
    cr_assert_eq(clarity_store_log_put(s, &l, &a, 1, NULL, 0, &err), CLARITY_OK);
    struct clarity_store_finding f = {.app_index = 1, .rank = 1, .kind = "gc"};
    l.fp.size = 200;
    cr_assert_eq(clarity_store_log_put(s, &l, &a, 1, &f, 1, &err), CLARITY_EUSAGE);
    cr_assert(strstr(err.msg, "finding 0 names attempt 1 of 1"), "%s", err.msg);
    struct clarity_store_log got;
    bool found;
    cr_assert_eq(clarity_store_log_get(s, "app-1", &got, &found, &err), CLARITY_OK);
    cr_assert_eq(got.fp.size, 100);
    clarity_store_close(s);
}

Test(store, deleted_logs_leave_the_listing_unless_asked)
{
    struct clarity_store *s = open_new("d.db");
    struct clarity_error err = {0};
    struct clarity_store_log l1 = logrow("one", 10), l2 = logrow("two", 20);
    struct clarity_store_app a1 = app("app-1", NULL, 1000, 2000, 1.0), a2 = app("app-2", NULL, 1500, 2500, 1.0);
    cr_assert_eq(clarity_store_log_put(s, &l1, &a1, 1, NULL, 0, &err), CLARITY_OK);
    cr_assert_eq(clarity_store_log_put(s, &l2, &a2, 1, NULL, 0, &err), CLARITY_OK);
    bool found;
    cr_assert_eq(clarity_store_log_mark_deleted(s, "one", &found, &err), CLARITY_OK);
    cr_assert(found);
    cr_assert_eq(clarity_store_log_mark_deleted(s, "three", &found, &err), CLARITY_OK);
    cr_assert(!found);
    char out[512];
    list(s, NULL, out);
    cr_assert_str_eq(out, "app-2");
    struct clarity_store_filter f = {.include_deleted = true};
    list(s, &f, out);
    cr_assert_str_eq(out, "app-2 app-1");
    struct clarity_store_log got;
    cr_assert_eq(clarity_store_log_get(s, "one", &got, &found, &err), CLARITY_OK);
    cr_assert_eq(got.state, CLARITY_STORE_LOG_DELETED);
    cr_assert_eq(clarity_store_classify(&got, &got.fp), CLARITY_STORE_NEW);   /* it came back */
    struct clarity_store_counts c;
    cr_assert_eq(clarity_store_counts(s, &c, &err), CLARITY_OK);
    cr_assert_eq(c.logs_deleted, 1);
    clarity_store_close(s);
}

/* The listing order of the History Server: by the end of each application's newest attempt,
 * descending, running ones (end -1) last; ties by id descending; attempts together. */
Test(store, the_shs_order_groups_attempts_and_sorts_by_the_newest_attempts_end)
{
    struct clarity_store *s = open_new("e.db");
    struct clarity_error err = {0};
    struct clarity_store_log la = logrow("A", 1), lb = logrow("B", 1), lc = logrow("C", 1), ld = logrow("D", 1);
    struct clarity_store_app a = app("A", NULL, 100, 3000, 1), b = app("B", NULL, 50, 0, 1), d = app("D", NULL, 200, 3000, 1);
    struct clarity_store_app c[2] = {app("C", "_1", 100, 1000, 1), app("C", "_2", 2000, 9000, 1)};
    cr_assert_eq(clarity_store_log_put(s, &la, &a, 1, NULL, 0, &err), CLARITY_OK);
    cr_assert_eq(clarity_store_log_put(s, &lb, &b, 1, NULL, 0, &err), CLARITY_OK);
    cr_assert_eq(clarity_store_log_put(s, &lc, c, 2, NULL, 0, &err), CLARITY_OK);
    cr_assert_eq(clarity_store_log_put(s, &ld, &d, 1, NULL, 0, &err), CLARITY_OK);
    char out[512];
    list(s, NULL, out);
    cr_assert_str_eq(out, "C_2 C_1 D A B");
    struct clarity_store_filter f = {.status = 2};
    list(s, &f, out);
    cr_assert_str_eq(out, "B");
    f = (struct clarity_store_filter){.status = 1, .limit = 2};
    list(s, &f, out);
    cr_assert_str_eq(out, "C_2 C_1");
    f = (struct clarity_store_filter){.has_min_end = true, .min_end_ms = 3000, .has_max_end = true, .max_end_ms = 3000};
    list(s, &f, out);
    cr_assert_str_eq(out, "D A");
    f = (struct clarity_store_filter){.app_id = "C"};
    list(s, &f, out);
    cr_assert_str_eq(out, "C_2 C_1");
    clarity_store_close(s);
}

Test(store, fleet_sorts_and_start_bounds)
{
    struct clarity_store *s = open_new("f.db");
    struct clarity_error err = {0};
    const char *ids[4] = {"a", "b", "c", "d"};
    double ch[4] = {3.0, 9.0, 1.0, 5.0};
    char paths[4][16];
    for (int i = 0; i < 4; i++) {
        snprintf(paths[i], sizeof paths[i], "p%d", i);
        struct clarity_store_log l = logrow(paths[i], 1);
        struct clarity_store_app a = app(ids[i], NULL, 1000 * (i + 1), 1000 * (i + 1) + 500 * (4 - i), ch[i]);
        a.top_saving_core_hours = ch[(i + 1) % 4];
        a.gc_share = 0.1 * i;
        cr_assert_eq(clarity_store_log_put(s, &l, &a, 1, NULL, 0, &err), CLARITY_OK);
    }
    char out[512];
    struct clarity_store_filter f = {.sort = CLARITY_STORE_SORT_CORE_HOURS};
    list(s, &f, out);
    cr_assert_str_eq(out, "b d a c");
    f.limit = 2;
    list(s, &f, out);
    cr_assert_str_eq(out, "b d");
    f = (struct clarity_store_filter){.sort = CLARITY_STORE_SORT_IDLE, .has_min_start = true, .min_start_ms = 2000};
    list(s, &f, out);
    cr_assert_str_eq(out, "b d c");
    f = (struct clarity_store_filter){.sort = CLARITY_STORE_SORT_GC};
    list(s, &f, out);
    cr_assert_str_eq(out, "d c b a");
    f = (struct clarity_store_filter){.sort = CLARITY_STORE_SORT_SAVING};
    list(s, &f, out);   /* savings: a 9, b 1, c 5, d 3 */
    cr_assert_str_eq(out, "a c d b");
    f = (struct clarity_store_filter){.sort = CLARITY_STORE_SORT_DURATION};
    list(s, &f, out);
    cr_assert_str_eq(out, "a b c d");
    f = (struct clarity_store_filter){.sort = CLARITY_STORE_SORT_START, .has_max_start = true, .max_start_ms = 3000};
    list(s, &f, out);
    cr_assert_str_eq(out, "a b c");
    clarity_store_close(s);
}

Test(store, a_batch_commits_once_and_each_put_stays_whole)
{
    struct clarity_store *s = open_new("g.db");
    struct clarity_error err = {0};
    cr_assert_eq(clarity_store_batch_begin(s, &err), CLARITY_OK);
    char path[32], id[32];
    for (int i = 0; i < 200; i++) {
        snprintf(path, sizeof path, "log-%03d", i);
        snprintf(id, sizeof id, "app-%03d", i);
        struct clarity_store_log l = logrow(path, (uint64_t)i);
        struct clarity_store_app a = app(id, NULL, i, i + 10, 1);
        struct clarity_store_finding f = {.app_index = i % 2 ? 0 : 5, .rank = 1, .kind = "gc"};
        /* odd logs carry a valid finding; even ones a bad one, refused alone */
        int rc = clarity_store_log_put(s, &l, &a, 1, &f, 1, &err);
        cr_assert_eq(rc, i % 2 ? CLARITY_OK : CLARITY_EUSAGE);
    }
    cr_assert_eq(clarity_store_batch_end(s, &err), CLARITY_OK, "%s", err.msg);
    struct clarity_store_counts c;
    cr_assert_eq(clarity_store_counts(s, &c, &err), CLARITY_OK);
    cr_assert_eq(c.logs, 100);
    cr_assert_eq(c.apps, 100);
    cr_assert_eq(c.findings, 100);
    clarity_store_close(s);
}

Test(store, the_root_is_set_once)
{
    struct clarity_store *s = open_new("h.db");
    struct clarity_error err = {0};
    cr_assert_null(clarity_store_root(s));
    cr_assert_eq(clarity_store_set_root(s, "/logs/a", &err), CLARITY_OK);
    cr_assert_eq(clarity_store_set_root(s, "/logs/a", &err), CLARITY_OK);
    cr_assert_eq(clarity_store_set_root(s, "/logs/b", &err), CLARITY_EUSAGE);
    cr_assert(strstr(err.msg, "indexes /logs/a, not /logs/b"), "%s", err.msg);
    clarity_store_close(s);
    s = open_new("h.db");
    cr_assert_str_eq(clarity_store_root(s), "/logs/a");
    clarity_store_close(s);
}

Test(store, other_databases_and_versions_are_refused)
{
    struct clarity_store *s;
    struct clarity_error err = {0};
    char path[128];
    snprintf(path, sizeof path, "%s/missing.db", dir);
    cr_assert_eq(clarity_store_open(path, 0, &s, &err), CLARITY_EIO);
    cr_assert_null(s);
    cr_assert_eq(access(path, F_OK), -1);   /* not created */

    snprintf(path, sizeof path, "%s/other.db", dir);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    cr_assert_eq(clarity_store_open(path, CLARITY_STORE_CREATE, &s, &err), CLARITY_EFORMAT);
    cr_assert(strstr(err.msg, "not a clarity store"), "%s", err.msg);

    s = open_new("newer.db");
    clarity_store_close(s);
    snprintf(path, sizeof path, "%s/newer.db", dir);
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "PRAGMA user_version = 2; UPDATE meta SET value = 'clarity.store/2'"
                                  " WHERE key = 'schema'", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    cr_assert_eq(clarity_store_open(path, CLARITY_STORE_CREATE, &s, &err), CLARITY_EFORMAT);
    cr_assert(strstr(err.msg, "store schema clarity.store/2 (version 2); this clarity reads clarity.store/1"),
              "%s", err.msg);

    snprintf(path, sizeof path, "%s/text.db", dir);
    FILE *fp = fopen(path, "w");
    fputs("this is not SQLite, just a text file long enough to have a header page? no.\n", fp);
    fclose(fp);
    cr_assert_eq(clarity_store_open(path, CLARITY_STORE_CREATE, &s, &err), CLARITY_EFORMAT);
}

Test(store, fingerprint_and_classify)
{
    char p1[128], p2[128];
    snprintf(p1, sizeof p1, "%s/events_1_app", dir);
    snprintf(p2, sizeof p2, "%s/events_2_app", dir);
    char big[6000];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (char)('a' + i % 26);
    FILE *fp = fopen(p1, "w");
    fwrite(big, 1, sizeof big, fp);
    fclose(fp);
    fp = fopen(p2, "w");
    fputs("{\"Event\":\"x\"}\n", fp);
    fclose(fp);
    struct clarity_log_file files[2] = {{.path = p1}, {.path = p2}};
    struct clarity_app_source src = {.path = dir, .layout = CLARITY_LAYOUT_ROLLING_DIR, .files = files, .nfiles = 2};
    struct clarity_store_fingerprint fp1;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_store_fingerprint(&src, &fp1, &err), CLARITY_OK, "%s", err.msg);
    cr_assert_eq(fp1.size, 6000 + 14);
    cr_assert_eq(fp1.head_hash, XXH64(big, 4096, 0));   /* the first 4 KiB of the first part */
    cr_assert_gt(fp1.mtime_ns, 1000000000LL * 1600000000);

    struct clarity_store_log was = {.path = "x", .fp = fp1};
    cr_assert_eq(clarity_store_classify(NULL, &fp1), CLARITY_STORE_NEW);
    cr_assert_eq(clarity_store_classify(&was, &fp1), CLARITY_STORE_UNCHANGED);
    struct clarity_store_fingerprint now = fp1;
    now.size += 100;
    now.mtime_ns += 1;
    cr_assert_eq(clarity_store_classify(&was, &now), CLARITY_STORE_GROWN);
    now.head_hash ^= 1;
    cr_assert_eq(clarity_store_classify(&was, &now), CLARITY_STORE_CHANGED);
    now = fp1;
    now.size -= 1;   /* truncated */
    cr_assert_eq(clarity_store_classify(&was, &now), CLARITY_STORE_CHANGED);
    now = fp1;
    now.mtime_ns += 5;   /* touched, same bytes: read again, SHS shows the new lastUpdated */
    cr_assert_eq(clarity_store_classify(&was, &now), CLARITY_STORE_CHANGED);
    was.state = CLARITY_STORE_LOG_UNREADABLE;
    cr_assert_eq(clarity_store_classify(&was, &fp1), CLARITY_STORE_UNCHANGED);

    /* quick: size and time unmoved, the head is not read and the stored hash kept */
    struct clarity_store_log stored = {.path = "x", .fp = fp1};
    stored.fp.head_hash = 42;
    struct clarity_store_fingerprint q;
    cr_assert_eq(clarity_store_fingerprint_quick(&src, &stored, &q, &err), CLARITY_OK);
    cr_assert_eq(q.head_hash, 42);
    stored.fp.size += 1;   /* moved: the head is hashed */
    cr_assert_eq(clarity_store_fingerprint_quick(&src, &stored, &q, &err), CLARITY_OK);
    cr_assert_eq(q.head_hash, XXH64(big, 4096, 0));
    files[1].path = "/nonexistent/events_2";
    cr_assert_eq(clarity_store_fingerprint(&src, &fp1, &err), CLARITY_EIO);
    cr_assert(strstr(err.msg, "cannot stat"), "%s", err.msg);
}

struct tot { char text[512]; };

static int keep_total(void *ctx, const struct clarity_store_total *t)
{
    struct tot *o = ctx;
    size_t n = strlen(o->text);
    snprintf(o->text + n, sizeof o->text - n, "%s:%lld/%.1f/%.2f;", t->key, (long long)t->runs, t->core_hours,
             t->idle_core_hours);
    return 0;
}

static int keep_run(void *ctx, const struct clarity_store_run *r)
{
    struct tot *o = ctx;
    size_t n = strlen(o->text);
    snprintf(o->text + n, sizeof o->text - n, "%s:%lld/%.0f;", r->app->app_id, (long long)r->previous,
             r->baseline_duration_ms);
    return 0;
}

static void put_run(struct clarity_store *s, const char *id, const char *name, const char *user, int64_t start,
                    int64_t dur, double ch)
{
    struct clarity_error err = {0};
    struct clarity_store_log l = logrow(id, 1);
    struct clarity_store_app a = app(id, NULL, start, start + dur, ch);
    a.name = name;
    a.user = user;
    cr_assert_eq(clarity_store_log_put(s, &l, &a, 1, NULL, 0, &err), CLARITY_OK, "%s", err.msg);
}

Test(store, totals_and_the_runs_of_a_recurring_name)
{
    struct clarity_store *s = open_new("t.db");
    struct clarity_error err = {0};
    put_run(s, "r1", "etl", "ana", 1000, 100, 1.0);
    put_run(s, "r2", "etl", "bo", 2000, 200, 2.0);
    put_run(s, "r3", "etl", "ana", 3000, 600, 4.0);
    put_run(s, "x1", "adhoc", "bo", 1500, 50, 8.0);
    struct tot t = {0};
    cr_assert_eq(clarity_store_totals_each(s, CLARITY_STORE_BY_USER, NULL, keep_total, &t, &err), CLARITY_OK);
    cr_assert_str_eq(t.text, "bo:2/10.0/2.50;ana:2/5.0/1.25;");
    memset(&t, 0, sizeof t);
    struct clarity_store_filter f = {.has_min_start = true, .min_start_ms = 1600};
    cr_assert_eq(clarity_store_totals_each(s, CLARITY_STORE_BY_NAME, &f, keep_total, &t, &err), CLARITY_OK);
    cr_assert_str_eq(t.text, "etl:2/6.0/1.50;");
    memset(&t, 0, sizeof t);
    f = (struct clarity_store_filter){.name = "etl"};
    cr_assert_eq(clarity_store_runs_each(s, &f, 2, keep_run, &t, &err), CLARITY_OK, "%s", err.msg);
    cr_assert_str_eq(t.text, "r1:0/0;r2:1/100;r3:2/150;");   /* r3 against the mean of r1 and r2 */
    clarity_store_close(s);
}

Test(store, a_shard_merges_replacing_rows_of_the_same_paths)
{
    struct clarity_store *s = open_new("main.db"), *sh = open_new("shard.db");
    struct clarity_error err = {0};
    cr_assert_eq(clarity_store_set_root(s, "/logs", &err), CLARITY_OK);
    cr_assert_eq(clarity_store_set_root(sh, "/logs", &err), CLARITY_OK);
    put_run(s, "a", "etl", "ana", 1000, 100, 1.0);
    put_run(s, "b", "etl", "ana", 2000, 100, 1.0);
    /* the shard re-read b (now two attempts, one finding) and found c */
    struct clarity_store_log lb = logrow("b", 999), lc = logrow("c", 5);
    struct clarity_store_app b2[2] = {app("b", "1", 2000, 2100, 1.0), app("b", "2", 2200, 2500, 3.0)};
    struct clarity_store_finding f = {.app_index = 1, .rank = 1, .kind = "gc_pressure", .where = "application",
                                      .saving_ms = 70, .saving_core_hours = 0.5, .basis = "bound", .action = "x"};
    struct clarity_store_app c = app("c", NULL, 3000, 3100, 2.0);
    cr_assert_eq(clarity_store_log_put(sh, &lb, b2, 2, &f, 1, &err), CLARITY_OK);
    cr_assert_eq(clarity_store_log_put(sh, &lc, &c, 1, NULL, 0, &err), CLARITY_OK);
    clarity_store_close(sh);
    char path[128];
    snprintf(path, sizeof path, "%s/shard.db", dir);
    int64_t n;
    cr_assert_eq(clarity_store_merge(s, path, &n, &err), CLARITY_OK, "%s", err.msg);
    cr_assert_eq(n, 2);
    char out[512];
    list(s, NULL, out);
    cr_assert_str_eq(out, "c b2 b1 a");
    struct clarity_store_counts cnt;
    cr_assert_eq(clarity_store_counts(s, &cnt, &err), CLARITY_OK);
    cr_assert_eq(cnt.logs, 3);
    cr_assert_eq(cnt.apps, 4);
    cr_assert_eq(cnt.findings, 1);
    struct one o = {0};
    struct clarity_store_filter fl = {.app_id = "b", .sort = CLARITY_STORE_SORT_CORE_HOURS, .limit = 1};
    cr_assert_eq(clarity_store_apps_each(s, &fl, keep_one, &o, &err), CLARITY_OK);
    struct fl fs = {0};
    cr_assert_eq(clarity_store_findings_each(s, o.row, keep_finding, &fs, &err), CLARITY_OK);
    cr_assert_str_eq(fs.text, "1:gc_pressure@application/70/0.50/bound;");   /* still on attempt 2 */
    struct clarity_store_log got;
    bool found;
    cr_assert_eq(clarity_store_log_get(s, "b", &got, &found, &err), CLARITY_OK);
    cr_assert_eq(got.fp.size, 999);

    /* a shard of another tree is refused */
    sh = open_new("other.db");
    cr_assert_eq(clarity_store_set_root(sh, "/elsewhere", &err), CLARITY_OK);
    clarity_store_close(sh);
    snprintf(path, sizeof path, "%s/other.db", dir);
    cr_assert_eq(clarity_store_merge(s, path, &n, &err), CLARITY_EUSAGE);
    clarity_store_close(s);
}

/* logs_range: one directory's rows through the path index, in path order, bounds as given;
 * logs_mark_deleted_under: a vanished subdirectory's rows in one statement, counted once. */
static int keep_path(void *ctx, const struct clarity_store_log *row)
{
    char *out = ctx;
    size_t n = strlen(out);
    snprintf(out + n, 512 - n, "%s%s", n ? " " : "", row->path);
    return 0;
}

static int stop_at_b(void *ctx, const struct clarity_store_log *row)
{
    keep_path(ctx, row);
    return strcmp(row->path, "d/b") == 0 ? 7 : 0;
}

Test(store, logs_range_and_mark_deleted_under)
{
    struct clarity_store *s = open_new("range.db");
    struct clarity_error err = {0};
    const char *paths[] = {"d/b", "d/a", "d-2/x", "d/sub/c", "e", "d/sub/deeper/f", "d0"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        struct clarity_store_log l = logrow(paths[i], 100);
        cr_assert_eq(clarity_store_log_put(s, &l, NULL, 0, NULL, 0, &err), CLARITY_OK, "%s", err.msg);
    }
    char got[512] = "";
    cr_assert_eq(clarity_store_logs_range(s, "d/", "d0", keep_path, got, &err), CLARITY_OK);
    cr_assert_str_eq(got, "d/a d/b d/sub/c d/sub/deeper/f");   /* not d-2/x nor d0 */
    got[0] = '\0';
    cr_assert_eq(clarity_store_logs_range(s, "d0", NULL, keep_path, got, &err), CLARITY_OK);
    cr_assert_str_eq(got, "d0 e");
    got[0] = '\0';
    cr_assert_eq(clarity_store_logs_range(s, "", NULL, stop_at_b, got, &err), 7);   /* the callback's stop */
    cr_assert_str_eq(got, "d-2/x d/a d/b");
    int64_t n = -1;
    cr_assert_eq(clarity_store_logs_mark_deleted_under(s, "d/sub/", &n, &err), CLARITY_OK, "%s", err.msg);
    cr_assert_eq(n, 2);
    cr_assert_eq(clarity_store_logs_mark_deleted_under(s, "d/sub/", &n, &err), CLARITY_OK);
    cr_assert_eq(n, 0);   /* already marked: not counted again */
    struct clarity_store_log row;
    bool found;
    cr_assert_eq(clarity_store_log_get(s, "d/sub/deeper/f", &row, &found, &err), CLARITY_OK);
    cr_assert(found);
    cr_assert_eq(row.state, CLARITY_STORE_LOG_DELETED);
    cr_assert_eq(clarity_store_log_get(s, "d/b", &row, &found, &err), CLARITY_OK);
    cr_assert_eq(row.state, CLARITY_STORE_LOG_OK);
    cr_assert_eq(clarity_store_logs_mark_deleted_under(s, "d/sub", &n, &err), CLARITY_EUSAGE);   /* not a prefix */
    clarity_store_close(s);
}
