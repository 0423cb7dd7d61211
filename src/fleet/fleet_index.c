/* One index run: walk the root, merging each directory with the stored rows (fleet_walk.c),
 * check the entries the store does not settle (a stat, a head read where something moved),
 * and read the ones that moved in chunks as the walk finds them (one log per core, streamed),
 * so memory holds a directory's listing and a chunk, whatever the number of logs. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "clarity/fleet.h"
#include "fleet/fleet_internal.h"
#include "sim/workers.h"

/* puts per commit: a crash loses at most this many logs' rows, and commits stay rare */
#define BATCH 256
/* Logs read in one clarity_load_set: its per-application bookkeeping (a source and an error
 * record each, about 1.5 kB) and the pending entries are held for a chunk, not for every log
 * of the run. */
#define CHUNK 512

struct todo {
    char *abs;                   /* the entry's absolute path (owned) */
    const char *rel;             /* relative to the root, into abs */
    struct clarity_store_fingerprint fp;
    uint64_t old_offset;         /* read_offset of the row it replaces (0 when new) */
};

struct run {
    struct clarity_store *s;
    const struct clarity_fleet_index_options *opt;
    struct clarity_fleet_stats *st;
    struct todo *todo;           /* entries found to need a read, not read yet (sorted by abs when read) */
    size_t ntodo, ctodo, nput;
    size_t found_to_read;        /* entries found to need a read so far */
    struct clarity_fleet_index_result *out;
    size_t cplan;
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
    r->opt->progress(r->opt->progress_ctx, r->st, r->found_to_read);
}

static int cmp_todo(const void *k, const void *e)
{
    return strcmp(k, ((const struct todo *)e)->abs);
}

static int cmp_todo_abs(const void *a, const void *b)
{
    return strcmp(((const struct todo *)a)->abs, ((const struct todo *)b)->abs);
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

/* Reads the pending entries (or, with opt->plan, hands them to the plan) and forgets them. */
static int flush(struct run *r)
{
    if (!r->ntodo) return CLARITY_OK;
    int rc = CLARITY_OK;
    qsort(r->todo, r->ntodo, sizeof *r->todo, cmp_todo_abs);   /* each() finds them by path */
    if (r->opt->plan) {
        struct clarity_fleet_index_result *out = r->out;
        for (size_t i = 0; !rc && i < r->ntodo; i++) {
            if (out->nplan == r->cplan) {
                size_t cap = r->cplan ? 2 * r->cplan : 256;
                char **p = realloc(out->plan, cap * sizeof *p);
                if (!p) { rc = clarity_error_set(r->err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory"); break; }
                out->plan = p;
                r->cplan = cap;
            }
            if (!(out->plan[out->nplan] = strdup(r->todo[i].rel)))
                rc = clarity_error_set(r->err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
            else out->nplan++;
        }
    } else {
        const char **paths = malloc(r->ntodo * sizeof *paths);
        if (!paths) rc = clarity_error_set(r->err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
        for (size_t i = 0; !rc && i < r->ntodo; i++) paths[i] = r->todo[i].abs;
        struct clarity_load_options lo = {.keep_task_accumulables = false, .skip_task_executor_metrics = true,
                                          .quiet = true, .threads = 1};
        struct clarity_load_set_options so = {.app = &lo, .workers = r->opt->workers, .each = each,
                                              .each_ctx = r, .progress = load_progress, .progress_ctx = r};
        if (!rc) {
            struct clarity_app_set set;
            struct clarity_error lerr = {0};
            clarity_load_set(paths, r->ntodo, &so, &set, &lerr);   /* per-log problems are rows, not errors */
            clarity_app_set_free(&set);
            rc = r->rc;
        }
        free(paths);
    }
    for (size_t i = 0; i < r->ntodo; i++) free(r->todo[i].abs);
    r->ntodo = 0;
    return rc;
}

/* What checking one candidate found (filled on all cores, acted on in order). */
struct checked {
    enum { C_LOG, C_GONE, C_FAILED } what;
    struct clarity_store_fingerprint fp;
    char *why;                   /* C_FAILED: the message (owned) */
};

struct check {
    const struct clarity_fleet__cand *c;
    struct checked *out;
};

/* Resolves the entry as the source resolver would (a log file, or one application's
 * directory) and fingerprints it: a stat of each part, the head hashed only when the size or
 * time moved from the stored row. */
static int check_one(void *ctx, size_t i, size_t worker, struct clarity_error *err)
{
    (void)worker, (void)err;
    struct check *k = ctx;
    const struct clarity_fleet__cand *c = &k->c[i];
    struct checked *o = &k->out[i];
    struct clarity_error e = {0};
    const struct clarity_store_log *stored = c->stored ? &c->row : NULL;
    if (c->file && stored && stored->state != CLARITY_STORE_LOG_DELETED) {
        /* a file the store holds as a log (an .inprogress, a --verify run): no sniff again */
        struct clarity_log_file f = {.path = c->abs};
        struct clarity_app_source one = {.path = c->abs, .files = &f, .nfiles = 1};
        struct stat sb;
        o->what = C_LOG;
        if (clarity_store_fingerprint_quick(&one, stored, &o->fp, &e))   /* gone since the listing, or unreadable */
            o->what = stat(c->abs, &sb) != 0 && errno == ENOENT ? C_GONE : C_FAILED;
        if (o->what == C_FAILED) {
            char buf[1200];
            o->why = strdup(clarity_error_format(&e, buf, sizeof buf));
        }
        return 0;
    }
    struct clarity_source_list one;
    const char *p = c->abs;
    int rc = clarity_source_resolve(&p, 1, &one, &e);
    o->what = C_GONE;   /* vanished since the listing, or not an event log (the resolver's note) */
    if (rc == CLARITY_ENOMEM) {
        o->what = C_FAILED;
    } else if (!rc && one.napps == 1 && !strcmp(one.apps[0].path, c->abs)) {
        if (clarity_store_fingerprint_quick(&one.apps[0], stored, &o->fp, &e) == CLARITY_OK) o->what = C_LOG;
        else o->what = C_FAILED;
    }
    if (o->what == C_FAILED) {
        char buf[1200];
        o->why = strdup(clarity_error_format(&e, buf, sizeof buf));
    }
    clarity_source_list_free(&one);
    return 0;
}

static int add_todo(struct run *r, const struct clarity_fleet__cand *c, const struct clarity_store_fingerprint *fp)
{
    if (r->ntodo == r->ctodo) {
        size_t cap = r->ctodo ? 2 * r->ctodo : 64;
        struct todo *t = realloc(r->todo, cap * sizeof *t);
        if (!t) return clarity_error_set(r->err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
        r->todo = t;
        r->ctodo = cap;
    }
    char *abs = strdup(c->abs);
    if (!abs) return clarity_error_set(r->err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    struct todo *t = &r->todo[r->ntodo++];
    *t = (struct todo){.abs = abs, .rel = abs + (c->rel - c->abs), .fp = *fp};
    if (c->stored && c->row.state != CLARITY_STORE_LOG_DELETED) t->old_offset = c->row.read_offset;
    r->found_to_read++;
    return CLARITY_OK;
}

/* One directory's candidates: checked on all cores (listing-bound runs are syscall-bound),
 * then classified in order; the pending reads are flushed a chunk at a time. */
static int check_batch(void *ctx, const struct clarity_fleet__cand *c, size_t n)
{
    struct run *r = ctx;
    double t0 = mono();
    struct checked *out = calloc(n, sizeof *out);
    if (!out) return clarity_error_set(r->err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    struct check k = {.c = c, .out = out};
    int rc = clarity__workers_run(r->opt->workers, n, check_one, &k, r->err);
    for (size_t i = 0; !rc && i < n; i++) {
        struct todo t = {.abs = c[i].abs, .rel = c[i].rel, .fp = out[i].fp};
        if (out[i].what == C_GONE) {
            bool found;
            if (c[i].stored && c[i].row.state != CLARITY_STORE_LOG_DELETED &&
                !(rc = clarity_store_log_mark_deleted(r->s, c[i].rel, &found, r->err)) && found)
                r->st->deleted++;
            continue;
        }
        r->st->entries++;
        if (out[i].what == C_FAILED) {
            if (!out[i].why) rc = clarity_error_set(r->err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
            else rc = put_unreadable(r, &t, out[i].why);
            continue;
        }
        switch (clarity_store_classify(c[i].stored ? &c[i].row : NULL, &out[i].fp)) {
        case CLARITY_STORE_UNCHANGED: r->st->unchanged++; continue;
        case CLARITY_STORE_GROWN: r->st->grown++; break;
        case CLARITY_STORE_CHANGED: r->st->changed++; break;
        default: r->st->fresh++; break;
        }
        rc = add_todo(r, &c[i], &out[i].fp);
    }
    for (size_t i = 0; i < n; i++) free(out[i].why);
    free(out);
    double t1 = mono();
    r->st->check_s += t1 - t0;
    if (!rc && r->ntodo >= CHUNK) {
        rc = flush(r);
        r->st->read_s += mono() - t1;
    }
    progress(r, false);
    return rc;
}

/* With opt->only: exactly the named entries, each a candidate with no stored row. */
static int index_only(struct run *r, const char *abs)
{
    int rc = CLARITY_OK;
    const struct clarity_fleet_index_options *opt = r->opt;
    size_t n = opt->nonly;
    struct clarity_fleet__cand *c = calloc(n ? n : 1, sizeof *c);
    if (!c) return clarity_error_set(r->err, CLARITY_ENOMEM, abs, 0, 0, "out of memory");
    size_t len = strlen(abs);
    for (size_t i = 0; !rc && i < n; i++) {
        if (asprintf(&c[i].abs, "%s/%s", abs, opt->only[i]) < 0) {
            c[i].abs = NULL;
            rc = clarity_error_set(r->err, CLARITY_ENOMEM, abs, 0, 0, "out of memory");
        } else {
            c[i].rel = c[i].abs + len + 1;
        }
    }
    if (!rc) rc = check_batch(r, c, n);
    for (size_t i = 0; i < n; i++) free(c[i].abs);
    free(c);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
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
    struct run r = {.s = s, .opt = opt, .st = &out->st, .err = err, .out = out};
    clock_gettime(CLOCK_MONOTONIC, &r.last);
    double t0 = mono();
    rc = clarity_store_batch_begin(s, err);
    if (!rc && opt->only) {
        rc = index_only(&r, abs);
    } else if (!rc) {
        struct clarity_fleet__walk_cb cb = {.batch = check_batch, .ctx = &r};
        struct clarity_fleet__walk_stats ws = {0};
        rc = clarity_fleet__walk(s, abs, opt->verify, &cb, &ws, err);
        out->st.unchanged += ws.unchanged;
        out->st.entries += ws.unchanged;
        out->st.deleted += ws.deleted;
    }
    double t1 = mono();
    if (!rc) rc = flush(&r);
    out->st.read_s += mono() - t1;
    int end = clarity_store_batch_end(s, rc ? NULL : err);
    if (!rc) rc = end;
    out->st.list_s = mono() - t0 - out->st.check_s - out->st.read_s;
    if (out->st.list_s < 0) out->st.list_s = 0;
    if (!rc && out->nplan > 1) qsort(out->plan, out->nplan, sizeof *out->plan, cmp_str);
    if (!rc) progress(&r, true);
    for (size_t i = 0; i < r.ntodo; i++) free(r.todo[i].abs);
    free(r.todo);
    return rc;
}

void clarity_fleet_index_result_free(struct clarity_fleet_index_result *r)
{
    for (size_t i = 0; i < r->nplan; i++) free(r->plan[i]);
    free(r->plan);
    memset(r, 0, sizeof *r);
}
