/* One index run: list the log entries under the root, decide from stats and a head read which
 * ones to read, mark the vanished ones deleted, read the rest (one per core, streamed so a
 * few models are held at a time whatever the number of logs) and write their rows. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "clarity/fleet.h"
#include "sim/workers.h"

/* puts per commit: a crash loses at most this many logs' rows, and commits stay rare */
#define BATCH 256

struct todo {
    const char *abs;             /* the entry's path as the source list resolved it */
    const char *rel;             /* relative to the root */
    struct clarity_store_fingerprint fp;
    uint64_t old_offset;         /* read_offset of the row it replaces (0 when new) */
};

struct run {
    struct clarity_store *s;
    const struct clarity_fleet_index_options *opt;
    struct clarity_fleet_stats *st;
    struct todo *todo;
    size_t ntodo, nput;
    int rc;                      /* the first store error; later puts are skipped */
    struct clarity_error *err;
    struct timespec last;
};

static double mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static const char *relative(const char *abs_root, const char *path)
{
    size_t n = strlen(abs_root);
    if (!strncmp(path, abs_root, n) && path[n] == '/') return path + n + 1;
    if (!strcmp(path, abs_root)) return ".";
    return path;
}

static int put_unreadable(struct run *r, const struct todo *t, const char *why)
{
    struct clarity_store_log l = {.path = t->rel, .fp = t->fp, .read_offset = t->fp.size,
                                  .state = CLARITY_STORE_LOG_UNREADABLE, .error = why, .indexed_at_ms = now_ms()};
    r->st->unreadable++;
    return clarity_store_log_put(r->s, &l, NULL, 0, NULL, 0, r->err);
}

static void progress(struct run *r, bool last)
{
    if (!r->opt->progress) return;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double dt = (double)(t.tv_sec - r->last.tv_sec) + 1e-9 * (double)(t.tv_nsec - r->last.tv_nsec);
    if (!last && dt < 0.2) return;
    r->last = t;
    r->opt->progress(r->opt->progress_ctx, r->st, r->ntodo);
}

static int cmp_todo(const void *k, const void *e)
{
    return strcmp(k, ((const struct todo *)e)->abs);
}

static int put_one(struct run *r, const struct todo *t, const struct clarity_loaded_app *la)
{
    if (!la->app) {
        char buf[1200];
        return put_unreadable(r, t, clarity_error_format(&la->err, buf, sizeof buf));
    }
    struct clarity_fleet_rows rows;
    struct clarity_error e = {0};
    int rc = clarity_fleet_rows_fill(la->app, !r->opt->no_findings, t->fp.mtime_ns / 1000000, &rows, &e);
    if (rc == CLARITY_ENOMEM) return clarity_error_set(r->err, rc, e.file, e.line, e.offset, "%s", e.msg);
    if (rc) {
        char buf[1200];
        return put_unreadable(r, t, clarity_error_format(&e, buf, sizeof buf));
    }
    struct clarity_store_log l = {.path = t->rel, .fp = t->fp, .read_offset = t->fp.size,
                                  .state = CLARITY_STORE_LOG_OK, .indexed_at_ms = now_ms()};
    rc = clarity_store_log_put(r->s, &l, &rows.app, 1, rows.f, rows.nf, r->err);
    if (!rc) {
        r->st->apps++;
        r->st->findings += rows.nf;
    }
    clarity_fleet_rows_free(&rows);
    return rc;
}

static void each(void *ctx, const struct clarity_app_set *set, size_t i)
{
    struct run *r = ctx;
    const struct clarity_loaded_app *la = &set->apps[i];
    const struct todo *t = bsearch(la->src->path, r->todo, r->ntodo, sizeof *r->todo, cmp_todo);
    if (!t || r->rc) return;   /* not an entry we asked for (cannot happen), or the store failed */
    r->st->read++;
    r->st->bytes_read += t->fp.size;
    r->st->bytes_new += t->fp.size > t->old_offset ? t->fp.size - t->old_offset : t->fp.size;
    r->rc = put_one(r, t, la);
    if (!r->rc && ++r->nput % BATCH == 0) {
        r->rc = clarity_store_batch_end(r->s, r->err);
        if (!r->rc) r->rc = clarity_store_batch_begin(r->s, r->err);
    }
    progress(r, false);
}

static void load_progress(void *ctx, size_t done, size_t total)
{
    (void)done, (void)total;
    progress(ctx, false);
}

/* Logs handed to one clarity_load_set: its per-application bookkeeping (a source and an error
 * record each, about 1.5 kB) is held for a chunk, not for every log of the run, so memory
 * stays flat in the number of logs read. */
#define CHUNK 512

static int read_all(struct run *r)
{
    if (!r->ntodo) return CLARITY_OK;
    const char **paths = malloc(r->ntodo * sizeof *paths);
    if (!paths) return clarity_error_set(r->err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    for (size_t i = 0; i < r->ntodo; i++) paths[i] = r->todo[i].abs;
    struct clarity_load_options lo = {.keep_task_accumulables = false, .skip_task_executor_metrics = true,
                                      .quiet = true, .threads = 1};
    struct clarity_load_set_options so = {.app = &lo, .workers = r->opt->workers, .each = each, .each_ctx = r,
                                          .progress = load_progress, .progress_ctx = r};
    int rc = clarity_store_batch_begin(r->s, r->err);
    for (size_t off = 0; !rc && !r->rc && off < r->ntodo; off += CHUNK) {
        size_t n = r->ntodo - off < CHUNK ? r->ntodo - off : CHUNK;
        struct clarity_app_set set;
        struct clarity_error lerr = {0};
        clarity_load_set(paths + off, n, &so, &set, &lerr);   /* per-log problems are rows, not errors */
        clarity_app_set_free(&set);
    }
    if (!rc) {
        int end = clarity_store_batch_end(r->s, r->rc ? NULL : r->err);
        rc = r->rc ? r->rc : end;
    }
    free(paths);
    return rc;
}

struct gone { const struct clarity_source_list *src; const char *root; char **paths; size_t n, cap; bool oom; };

static int cmp_rel(const void *k, const void *e)
{
    const struct gone *g = ((const void **)k)[1];
    return strcmp(((const char **)k)[0], relative(g->root, ((const struct clarity_app_source *)e)->path));
}

static int collect_gone(void *ctx, const struct clarity_store_log *row)
{
    struct gone *g = ctx;
    if (row->state == CLARITY_STORE_LOG_DELETED) return 0;
    const void *key[2] = {row->path, g};
    if (bsearch(key, g->src->apps, g->src->napps, sizeof *g->src->apps, cmp_rel)) return 0;
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 64;
        char **p = realloc(g->paths, cap * sizeof *p);
        if (!p) return g->oom = true, 1;
        g->paths = p;
        g->cap = cap;
    }
    if (!(g->paths[g->n] = strdup(row->path))) return g->oom = true, 1;
    g->n++;
    return 0;
}

/* Rows whose entry is no longer under the root are marked deleted (kept for history). */
static int mark_gone(struct run *r, const struct clarity_source_list *src, const char *root)
{
    struct gone g = {.src = src, .root = root};
    int rc = clarity_store_logs_each(r->s, collect_gone, &g, r->err);
    if (g.oom) rc = clarity_error_set(r->err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    for (size_t i = 0; !rc && i < g.n; i++) {
        bool found;
        rc = clarity_store_log_mark_deleted(r->s, g.paths[i], &found, r->err);
        if (!rc && found) r->st->deleted++;
    }
    for (size_t i = 0; i < g.n; i++) free(g.paths[i]);
    free(g.paths);
    return rc;
}

/* The stored rows, loaded once in path order: 20,000 lookups in memory instead of 20,000
 * queries. */
struct known { char *path; struct clarity_store_log row; };
struct knowns { struct known *v; size_t n, cap; bool oom; };

static int keep_known(void *ctx, const struct clarity_store_log *row)
{
    struct knowns *k = ctx;
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 1024;
        struct known *v = realloc(k->v, cap * sizeof *v);
        if (!v) return k->oom = true, 1;
        k->v = v;
        k->cap = cap;
    }
    struct known *e = &k->v[k->n];
    if (!(e->path = strdup(row->path))) return k->oom = true, 1;
    e->row = *row;
    e->row.path = e->path;
    e->row.error = NULL;
    k->n++;
    return 0;
}

static int cmp_known(const void *key, const void *e)
{
    return strcmp(key, ((const struct known *)e)->path);
}

struct check {
    const struct clarity_source_list *src;
    const char *root;
    const struct knowns *k;
    struct todo *t;              /* one per entry */
    const struct clarity_store_log **stored;
    bool *failed;
};

/* Stats (and head reads where they moved) on all cores: listing-bound runs are syscall-bound. */
static int check_one(void *ctx, size_t i, size_t worker, struct clarity_error *err)
{
    (void)worker, (void)err;
    struct check *c = ctx;
    struct todo *t = &c->t[i];
    t->abs = c->src->apps[i].path;
    t->rel = relative(c->root, t->abs);
    const struct known *k = c->k->n ? bsearch(t->rel, c->k->v, c->k->n, sizeof *c->k->v, cmp_known) : NULL;
    c->stored[i] = k ? &k->row : NULL;
    struct clarity_error e;
    c->failed[i] = clarity_store_fingerprint_quick(&c->src->apps[i], c->stored[i], &t->fp, &e) != 0;
    return 0;
}

/* Decides for each entry whether to read it; unreadable heads are stored right away. */
static int classify(struct run *r, const struct clarity_source_list *src, const char *root, const struct knowns *kp)
{
    const struct knowns k = *kp;
    int rc = CLARITY_OK;
    size_t n = src->napps;
    struct todo *all = calloc(n ? n : 1, sizeof *all);
    const struct clarity_store_log **stored = calloc(n ? n : 1, sizeof *stored);
    bool *failed = calloc(n ? n : 1, sizeof *failed);
    if (!rc && (!all || !stored || !failed)) rc = clarity_error_set(r->err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    struct check c = {.src = src, .root = root, .k = &k, .t = all, .stored = stored, .failed = failed};
    if (!rc) rc = clarity__workers_run(r->opt->workers, n, check_one, &c, r->err);
    if (!rc) rc = clarity_store_batch_begin(r->s, r->err);
    for (size_t i = 0; !rc && i < n; i++) {
        struct todo t = all[i];
        if (failed[i]) {
            struct clarity_error e = {0};
            clarity_store_fingerprint_quick(&src->apps[i], NULL, &t.fp, &e);   /* again, for the message */
            char buf[1200];
            rc = put_unreadable(r, &t, clarity_error_format(&e, buf, sizeof buf));
            continue;
        }
        enum clarity_store_change ch = clarity_store_classify(stored[i], &t.fp);
        if (stored[i] && stored[i]->state != CLARITY_STORE_LOG_DELETED) t.old_offset = stored[i]->read_offset;
        switch (ch) {
        case CLARITY_STORE_UNCHANGED: r->st->unchanged++; continue;
        case CLARITY_STORE_GROWN: r->st->grown++; break;
        case CLARITY_STORE_CHANGED: r->st->changed++; break;
        default: r->st->fresh++; break;
        }
        r->todo[r->ntodo++] = t;
    }
    int end = clarity_store_batch_end(r->s, rc ? NULL : r->err);
    free(all);
    free(stored);
    free(failed);
    return rc ? rc : end;
}

static int make_plan(struct run *r, struct clarity_fleet_index_result *out)
{
    out->plan = calloc(r->ntodo ? r->ntodo : 1, sizeof *out->plan);
    if (!out->plan) return clarity_error_set(r->err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    for (size_t i = 0; i < r->ntodo; i++) {
        if (!(out->plan[i] = strdup(r->todo[i].rel)))
            return clarity_error_set(r->err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
        out->nplan++;
    }
    return CLARITY_OK;
}

struct known_ctx { const char *root; const struct knowns *k; };

/* A file the store holds as a readable log of this very size need not be sniffed again: if it
 * was rewritten, the check after the listing sees its time move and reads it. */
static bool is_known(void *ctx, const char *path, uint64_t size)
{
    const struct known_ctx *c = ctx;
    if (!c->k->n) return false;
    const struct known *k = bsearch(relative(c->root, path), c->k->v, c->k->n, sizeof *c->k->v, cmp_known);
    return k && k->row.state == CLARITY_STORE_LOG_OK && k->row.fp.size == size;
}

static int resolve(const char *abs, const struct clarity_fleet_index_options *opt, const struct knowns *k,
                   struct clarity_source_list *src, struct clarity_error *err)
{
    struct clarity_error e = {0};
    int rc;
    if (!opt->only) {
        struct known_ctx kc = {abs, k};
        struct clarity_source_options so = {.known = is_known, .known_ctx = &kc};
        rc = clarity_source_resolve_with(&abs, 1, &so, src, &e);
    } else {
        char **paths = calloc(opt->nonly ? opt->nonly : 1, sizeof *paths);
        if (!paths) return clarity_error_set(err, CLARITY_ENOMEM, abs, 0, 0, "out of memory");
        rc = CLARITY_OK;
        for (size_t i = 0; i < opt->nonly && !rc; i++)
            if (asprintf(&paths[i], "%s/%s", abs, opt->only[i]) < 0) {
                paths[i] = NULL;
                rc = CLARITY_ENOMEM;
            }
        if (!rc) rc = clarity_source_resolve((const char *const *)paths, opt->nonly, src, &e);
        for (size_t i = 0; i < opt->nonly; i++) free(paths[i]);
        free(paths);
    }
    /* an empty directory is a fleet of none (every row then gets marked deleted); a listed
     * entry that vanished since the plan is left for the next run */
    if (rc == CLARITY_ENOTFOUND || (opt->only && rc == CLARITY_EIO)) return CLARITY_OK;
    if (rc == CLARITY_ENOMEM) return clarity_error_set(err, rc, abs, 0, 0, "out of memory");
    if (rc) return clarity_error_set(err, rc, e.file, e.line, e.offset, "%s", e.msg);
    return CLARITY_OK;
}

int clarity_fleet_index(struct clarity_store *s, const char *root, const struct clarity_fleet_index_options *opt,
                        struct clarity_fleet_index_result *out, struct clarity_error *err)
{
    static const struct clarity_fleet_index_options none;
    if (!opt) opt = &none;
    memset(out, 0, sizeof *out);
    char abs[PATH_MAX];
    struct stat sb;
    if (!realpath(root, abs) || stat(abs, &sb) != 0)
        return clarity_error_set(err, CLARITY_EIO, root, 0, 0, "cannot read the log directory");
    if (!S_ISDIR(sb.st_mode)) return clarity_error_set(err, CLARITY_EUSAGE, root, 0, 0, "not a directory");
    int rc = clarity_store_set_root(s, abs, err);
    if (rc) return rc;
    struct clarity_source_list src = {0};
    struct knowns k = {0};
    double t0 = mono();
    if (!opt->only) rc = clarity_store_logs_each(s, keep_known, &k, err);
    if (k.oom) rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    if (!rc) rc = resolve(abs, opt, &k, &src, err);
    double t1 = mono();
    out->st.list_s = t1 - t0;
    if (rc) {
        for (size_t i = 0; i < k.n; i++) free(k.v[i].path);
        free(k.v);
        clarity_source_list_free(&src);
        return rc;
    }
    struct run r = {.s = s, .opt = opt, .st = &out->st, .err = err};
    clock_gettime(CLOCK_MONOTONIC, &r.last);
    out->st.entries = src.napps;
    r.todo = calloc(src.napps ? src.napps : 1, sizeof *r.todo);
    if (!r.todo) rc = clarity_error_set(err, CLARITY_ENOMEM, root, 0, 0, "out of memory");
    if (!rc) rc = classify(&r, &src, abs, &k);
    for (size_t i = 0; i < k.n; i++) free(k.v[i].path);
    free(k.v);
    if (!rc && !opt->only) rc = mark_gone(&r, &src, abs);
    double t2 = mono();
    out->st.check_s = t2 - t1;
    if (!rc && opt->plan) rc = make_plan(&r, out);
    else if (!rc) rc = read_all(&r);
    out->st.read_s = mono() - t2;
    if (!rc) progress(&r, true);
    free(r.todo);
    clarity_source_list_free(&src);
    return rc;
}

void clarity_fleet_index_result_free(struct clarity_fleet_index_result *r)
{
    for (size_t i = 0; i < r->nplan; i++) free(r->plan[i]);
    free(r->plan);
    memset(r, 0, sizeof *r);
}
