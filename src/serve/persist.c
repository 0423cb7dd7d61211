/* The listing kept in the store (clarity/store.h) across restarts: the server lists what the
 * store last saw before reading any log, and every scan writes the entries it read again and
 * marks the ones that are gone. Only the listing's columns are written (ids, name, user,
 * times, Spark version, the ApplicationAttemptInfo JSON); the fleet index fills the summary
 * and findings columns when it runs over the same store. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "serve/serve_internal.h"

int clarity__serve_store_open(struct clarity_server *s, struct clarity_error *err)
{
    int rc = clarity_store_open(s->opt.store_path, CLARITY_STORE_CREATE, &s->store, err);
    if (rc != CLARITY_OK) return rc;
    const char *root = clarity_store_root(s->store);
    if (!root) return clarity_store_set_root(s->store, s->log_dir, err);
    if (strcmp(root, s->log_dir))
        return clarity_error_set(err, CLARITY_EUSAGE, s->opt.store_path, 0, 0,
                                 "this store indexes %s, not %s: give another --store", root, s->log_dir);
    return CLARITY_OK;
}

/* ---- reading the store back ---- */

struct load_ctx {
    struct clarity_server *s;
    struct serve_listing *l;
    size_t cap;
    bool oom;
};

static char *dup_or_null(const char *t, bool empty_is_null)
{
    if (!t || (empty_is_null && !*t)) return NULL;
    return strdup(t);
}

static int on_log(void *ctx, const struct clarity_store_log *row)
{
    struct load_ctx *c = ctx;
    if (row->state == CLARITY_STORE_LOG_DELETED) return 0;
    if (c->l->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        struct serve_entry *e = realloc(c->l->e, cap * sizeof *e);
        if (!e) return c->oom = true, 1;
        c->l->e = e;
        c->cap = cap;
    }
    struct serve_entry *e = &c->l->e[c->l->n];
    memset(e, 0, sizeof *e);
    size_t n = strlen(c->s->log_dir) + strlen(row->path) + 2;
    if (!(e->path = malloc(n))) return c->oom = true, 1;
    snprintf(e->path, n, "%s/%s", c->s->log_dir, row->path);
    e->size = row->fp.size;
    e->mtime_ns = row->fp.mtime_ns;
    e->head_hash = row->fp.head_hash;
    e->read_offset = row->read_offset;   /* trusted only where it falls at a line start */
    e->ok = false;   /* until its attempt row is read */
    snprintf(e->err, sizeof e->err, "%.255s", row->error ? row->error : "no application in it");
    c->l->n++;
    return 0;
}

static int cmp_path(const void *x, const void *y)
{
    return strcmp(((const struct serve_entry *)x)->path, ((const struct serve_entry *)y)->path);
}

/* The entry of a relative path (entries sorted by absolute path under one root). */
static struct serve_entry *entry_of(struct load_ctx *c, const char *rel)
{
    size_t n = strlen(c->s->log_dir) + strlen(rel) + 2;
    char *abs = malloc(n);
    if (!abs) return NULL;
    snprintf(abs, n, "%s/%s", c->s->log_dir, rel);
    if (!c->l->n) {
        free(abs);
        return NULL;
    }
    struct serve_entry key = {.path = abs};
    struct serve_entry *e = bsearch(&key, c->l->e, c->l->n, sizeof *c->l->e, cmp_path);
    free(abs);
    return e;
}

static int on_app(void *ctx, const struct clarity_store_app *row)
{
    struct load_ctx *c = ctx;
    struct serve_entry *e = entry_of(c, row->log_path);
    if (!e || e->ok) return 0;   /* one attempt per log entry, as the loader reads it */
    /* "" and absent are one in the model (string id 0), so they are one here */
    const char *src[5] = {row->app_id, row->attempt_id, row->name, row->user, row->spark_version};
    for (size_t i = 0; i < 5; i++) {
        e->strs[i] = dup_or_null(src[i], i > 0);
        if (src[i] && *src[i] && !e->strs[i]) return c->oom = true, 1;
    }
    e->info = (struct clarity_shs_attempt_info){
        .app_id = e->strs[0] ? e->strs[0] : "", .attempt_id = e->strs[1], .name = e->strs[2], .user = e->strs[3],
        .spark_version = e->strs[4], .start_ms = row->start_ms, .end_ms = row->completed ? row->end_ms : 0,
        .last_updated_ms = row->last_updated_ms};
    e->tasks = row->tasks > 0 ? (uint64_t)row->tasks : 0;
    e->ok = true;
    e->err[0] = 0;
    return 0;
}

int clarity__serve_store_listing(struct clarity_server *s, struct serve_listing **out, struct clarity_error *err)
{
    *out = NULL;
    struct serve_listing *l = calloc(1, sizeof *l);
    if (!l) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    atomic_init(&l->refs, 1);
    struct load_ctx c = {.s = s, .l = l};
    int rc = clarity_store_logs_each(s->store, on_log, &c, err);
    if (rc == CLARITY_OK && !c.oom) {
        if (l->n) qsort(l->e, l->n, sizeof *l->e, cmp_path);
        if (l->n) rc = clarity_store_apps_each(s->store, NULL, on_app, &c, err);
    }
    if (c.oom || (rc == CLARITY_OK && clarity__serve_listing_index(l) != 0))
        rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    if (rc != CLARITY_OK || !l->n) {
        clarity__serve_listing_free(l);
        return rc;
    }
    l->generation = 1;
    *out = l;
    return CLARITY_OK;
}

/* ---- writing what a scan found ---- */

static const char *rel_of(const struct clarity_server *s, const char *abs)
{
    size_t n = strlen(s->log_dir);
    return !strncmp(abs, s->log_dir, n) && abs[n] == '/' ? abs + n + 1 : abs;
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The attempt's listing object, compact, as /applications prints it. */
static char *info_json(const struct clarity_shs_attempt_info *in)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    int rc = clarity_shs_attempt_info_write(f, in, false);
    if (fclose(f) != 0 || rc != CLARITY_OK) {
        free(buf);
        return NULL;
    }
    while (len && buf[len - 1] == '\n') buf[--len] = 0;
    return buf;
}

static void put_entry(struct clarity_server *s, const struct serve_entry *e, int64_t now)
{
    struct clarity_store_log log = {
        .path = rel_of(s, e->path),
        .fp = {.size = e->size, .mtime_ns = e->mtime_ns, .head_hash = e->head_hash},
        /* a plain log: just past its last whole line, where the next read resumes; others
         * (compressed, rolling) are read whole, and their size is what was consumed */
        .read_offset = e->read_offset ? e->read_offset : e->size,
        .state = e->ok ? CLARITY_STORE_LOG_OK : CLARITY_STORE_LOG_UNREADABLE,
        .error = e->ok ? NULL : e->err,
        .indexed_at_ms = now,
    };
    struct clarity_store_app app = {0};
    char *json = NULL;
    if (e->ok) {
        const struct clarity_shs_attempt_info *in = &e->info;
        json = info_json(in);
        bool completed = in->end_ms != 0;
        int64_t duration = 0;
        if (completed && __builtin_sub_overflow(in->end_ms, in->start_ms, &duration)) duration = 0;
        app = (struct clarity_store_app){
            .app_id = in->app_id, .attempt_id = in->attempt_id, .name = in->name ? in->name : "",
            .user = in->user ? in->user : "", .start_ms = in->start_ms, .end_ms = in->end_ms,
            .last_updated_ms = in->last_updated_ms, .duration_ms = duration, .completed = completed,
            .spark_version = in->spark_version ? in->spark_version : "", .platform = "",
            .integrity = completed ? 0 : CLARITY_STORE_INT_IN_PROGRESS, .app_info_json = json ? json : "{}",
            /* what tells a restarted server, before loading, whether the model fits */
            .tasks = (int64_t)e->tasks};
    }
    struct clarity_error err = {0};
    if (clarity_store_log_put(s->store, &log, &app, e->ok ? 1 : 0, NULL, 0, &err) != CLARITY_OK)
        clarity__serve_log(s, CLARITY_SERVE_WARN, "store: %s: %s", log.path, err.msg);
    free(json);
}

void clarity__serve_store_update(struct clarity_server *s, const struct serve_listing *old, const struct serve_listing *l)
{
    if (!s->store) return;
    struct clarity_error err = {0};
    if (clarity_store_batch_begin(s->store, &err) != CLARITY_OK) {
        clarity__serve_log(s, CLARITY_SERVE_WARN, "store: %s", err.msg);
        return;
    }
    int64_t now = wall_ms();
    for (size_t i = 0; i < l->n; i++)
        if (l->e[i].fresh) put_entry(s, &l->e[i], now);
    /* gone since the last listing: both are sorted by path */
    for (size_t i = 0, j = 0; old && i < old->n; i++) {
        while (j < l->n && strcmp(l->e[j].path, old->e[i].path) < 0) j++;
        if (j < l->n && !strcmp(l->e[j].path, old->e[i].path)) continue;
        bool found;
        if (clarity_store_log_mark_deleted(s->store, rel_of(s, old->e[i].path), &found, &err) != CLARITY_OK)
            clarity__serve_log(s, CLARITY_SERVE_WARN, "store: %s", err.msg);
    }
    if (clarity_store_batch_end(s->store, &err) != CLARITY_OK) clarity__serve_log(s, CLARITY_SERVE_WARN, "store: %s", err.msg);
}
