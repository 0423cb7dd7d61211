/* The fleet index's walk: each directory under the root is listed with readdir alone (the
 * entry's type comes with its name, no stat) and merged, in name order, with the stored rows
 * below it (read through the path index, one directory at a time). What the store alone
 * settles costs no system call: a completed log file already read under the same name.
 * Everything else is handed on as a candidate to stat and maybe read: names not stored,
 * `.inprogress` files (Spark appends to them in place), application directories (rolling,
 * legacy, Databricks: their parts grow without their names changing), rows stored as
 * unreadable, and, with `verify`, every entry. Rows whose entry vanished are marked deleted.
 *
 * The decision to trust a completed log's name: Spark writes an event log once, as
 * `<id>.inprogress`, and renames it when the application ends; the History Server itself never
 * re-reads a completed log whose size has not changed. A completed log rewritten in place
 * under the same name (a copy over it, a hand edit) is therefore missed until a run with
 * `verify`, which stats every entry as before.
 *
 * Memory: one directory's listing (its names and types) and the rows merged against it at a
 * time, plus the path of each directory above it; nothing is kept per application. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fleet/fleet_internal.h"

/* as the source resolver: deep enough for cluster/platform/name trees, not a crawl of a disk */
#define MAX_DEPTH 4
/* candidates handed on at once (the index reads 512 at a time) */
#define CAND_CHUNK 512

enum kind { K_FILE, K_DIR, K_OTHER };

/* 16 bytes an entry besides its name: a flat History Server directory of 650,000 logs lists
 * in about 40 MB. The stored row is kept (in `rows`) only for entries that get a look. */
struct ent {
    const char *name;            /* into the listing's arena */
    uint32_t row;                /* index in rows + 1 when the row is kept, else 0 */
    unsigned char kind;          /* enum kind */
    bool trusted;                /* settled by its row of this exact path: see trusted() */
    bool below;                  /* rows below it: a container walked before */
};

struct listing {
    char *arena;                 /* the names, NUL-separated */
    size_t used, cap;
    size_t *off;                 /* offsets into arena while listing */
    unsigned char *type;
    struct ent *e;
    size_t n, ecap;
    struct clarity_store_log *rows;   /* rows of entries that need a look (path, error NULL) */
    size_t nrows, crows;
};

static void listing_free(struct listing *l)
{
    free(l->arena);
    free(l->off);
    free(l->type);
    free(l->e);
    free(l->rows);
    memset(l, 0, sizeof *l);
}

static int cmp_ent(const void *a, const void *b)
{
    return strcmp(((const struct ent *)a)->name, ((const struct ent *)b)->name);
}

/* Names and types of one directory, sorted by name; "." and ".." left out. Types come from
 * d_type; a link or a file system that does not say is stat'ed (links are followed, as the
 * resolver follows them). Returns 0 or an errno value. */
static int list_dir(const char *path, struct listing *l)
{
    memset(l, 0, sizeof *l);
    DIR *d = opendir(path);
    if (!d) return errno;
    int rc = 0;
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(d);
        if (!de) {
            rc = errno;
            break;
        }
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        size_t len = strlen(de->d_name) + 1;
        if (l->used + len > l->cap) {
            size_t cap = l->cap ? 2 * l->cap : 16384;
            while (cap < l->used + len) cap *= 2;
            char *a = realloc(l->arena, cap);
            if (!a) { rc = ENOMEM; break; }
            l->arena = a;
            l->cap = cap;
        }
        if (l->n == l->ecap) {
            size_t cap = l->ecap ? 2 * l->ecap : 256;
            size_t *o = realloc(l->off, cap * sizeof *o);
            if (o) l->off = o;
            unsigned char *t = o ? realloc(l->type, cap) : NULL;
            if (!o || !t) { rc = ENOMEM; break; }
            l->type = t;
            l->ecap = cap;
        }
        memcpy(l->arena + l->used, de->d_name, len);
        l->off[l->n] = l->used;
        l->used += len;
        unsigned char t = de->d_type;
        if (t == DT_LNK || t == DT_UNKNOWN) {
            struct stat st;
            t = fstatat(dirfd(d), de->d_name, &st, 0) ? DT_UNKNOWN : S_ISREG(st.st_mode) ? DT_REG
                                                                   : S_ISDIR(st.st_mode) ? DT_DIR : DT_UNKNOWN;
        }
        l->type[l->n++] = t;
    }
    closedir(d);
    if (!rc && !(l->e = calloc(l->n ? l->n : 1, sizeof *l->e))) rc = ENOMEM;
    if (rc) {
        listing_free(l);
        return rc;
    }
    for (size_t i = 0; i < l->n; i++)
        l->e[i] = (struct ent){.name = l->arena + l->off[i],
                               .kind = l->type[i] == DT_REG ? K_FILE : l->type[i] == DT_DIR ? K_DIR : K_OTHER};
    free(l->off);   /* the entries point into the arena from here on */
    free(l->type);
    l->off = NULL;
    l->type = NULL;
    if (l->n > 1) qsort(l->e, l->n, sizeof *l->e, cmp_ent);
    return 0;
}

static const struct ent *find(const struct listing *l, const char *name)
{
    struct ent key = {.name = name};
    return l->n ? bsearch(&key, l->e, l->n, sizeof *l->e, cmp_ent) : NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* A completed log file read before under this name: settled without a look (unless verify). */
static bool trusted(const struct ent *e, const struct clarity_store_log *row)
{
    return e->kind == K_FILE && row->state == CLARITY_STORE_LOG_OK && !ends_with(e->name, ".inprogress");
}

static bool keep_row(struct listing *l, struct ent *e, const struct clarity_store_log *row)
{
    if (l->nrows == l->crows) {
        size_t cap = l->crows ? 2 * l->crows : 64;
        struct clarity_store_log *r = realloc(l->rows, cap * sizeof *r);
        if (!r) return false;
        l->rows = r;
        l->crows = cap;
    }
    l->rows[l->nrows] = *row;
    l->rows[l->nrows].path = NULL;
    l->rows[l->nrows].error = NULL;
    e->row = (uint32_t)++l->nrows;
    return true;
}

struct seen { uint64_t dev, ino; };

struct walker {
    struct clarity_store *s;
    bool verify;
    const struct clarity_fleet__walk_cb *cb;
    struct clarity_fleet__walk_stats *st;
    struct clarity_error *err;
    struct seen *seen;           /* directories entered (links are followed: no loop, no twice) */
    size_t nseen, cseen;
    char **gone;                 /* one directory's vanished rows, marked after its merge */
    size_t ngone, cgone;
    char **gone_dirs;            /* prefixes ("dir/") of vanished subdirectories */
    size_t ngd, cgd;
};

/* The merge of one directory's listing with its stored rows, as a logs_range callback. */
struct merge {
    struct walker *w;
    struct listing *l;
    size_t plen;                 /* length of the directory's relative prefix */
    size_t next;                 /* the listing's first entry not passed by the direct rows yet */
    char *resume;                /* set when the callback stopped to skip a subdirectory's rows */
    bool oom;
};

static bool push(char ***v, size_t *n, size_t *cap, const char *s, size_t len)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        char **p = realloc(*v, c * sizeof *p);
        if (!p) return false;
        *v = p;
        *cap = c;
    }
    if (!((*v)[*n] = strndup(s, len))) return false;
    (*n)++;
    return true;
}

/* the callback's stop to skip rows: negative, so never one of the store's error codes */
#define RESUME (-1)

static int merge_row(void *ctx, const struct clarity_store_log *row)
{
    struct merge *m = ctx;
    const char *rest = row->path + m->plen;
    const char *slash = strchr(rest, '/');
    if (slash) {
        /* a row below a subdirectory: that subdirectory is walked (or marked gone) as a whole,
         * so its rows are skipped here by resuming the range after them ("sub0" follows
         * every "sub/...") */
        size_t clen = (size_t)(slash - rest);
        char *comp = strndup(rest, clen);
        if (!comp) return m->oom = true, RESUME;
        struct ent *e = (struct ent *)find(m->l, comp);
        free(comp);
        if (e && e->kind == K_DIR) e->below = true;
        else if (!push(&m->w->gone_dirs, &m->w->ngd, &m->w->cgd, row->path, m->plen + clen + 1))
            return m->oom = true, RESUME;
        if (!(m->resume = strndup(row->path, m->plen + clen + 1))) return m->oom = true, RESUME;
        m->resume[m->plen + clen] = '/' + 1;
        return RESUME;
    }
    /* direct rows come in name order like the listing: one linear merge, no search */
    struct listing *l = m->l;
    while (m->next < l->n && strcmp(l->e[m->next].name, rest) < 0) m->next++;
    struct ent *e = m->next < l->n && !strcmp(l->e[m->next].name, rest) ? &l->e[m->next] : NULL;
    if (e && e->name[0] != '.' && e->kind != K_OTHER) {   /* else: not an entry any more (a dangling link) */
        e->trusted = trusted(e, row) && !m->w->verify;
        if (!e->trusted && !keep_row(l, e, row)) return m->oom = true, RESUME;
    } else if (row->state != CLARITY_STORE_LOG_DELETED &&
               !push(&m->w->gone, &m->w->ngone, &m->w->cgone, row->path, strlen(row->path))) {
        return m->oom = true, RESUME;
    }
    return 0;
}

static int oom(struct walker *w)
{
    return clarity_error_set(w->err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
}

/* The stored rows directly in the directory of relative prefix `prefix` ("" for the root,
 * else "a/b/") attached to its listing's entries; rows whose entry is gone marked deleted. */
static int merge_dir(struct walker *w, const char *prefix, struct listing *l)
{
    size_t plen = strlen(prefix);
    char *from = strdup(prefix), *to = plen ? strdup(prefix) : NULL;
    if (!from || (plen && !to)) {
        free(from);
        free(to);
        return oom(w);
    }
    if (to) to[plen - 1] = '/' + 1;
    struct merge m = {.w = w, .l = l, .plen = plen};
    int rc;
    for (;;) {
        rc = clarity_store_logs_range(w->s, from, to, merge_row, &m, w->err);
        if (rc != RESUME || m.oom || !m.resume) break;
        free(from);
        from = m.resume;
        m.resume = NULL;
    }
    free(from);
    free(to);
    free(m.resume);
    if (m.oom) rc = oom(w);
    for (size_t i = 0; !rc && i < w->ngone; i++) {
        bool found;
        rc = clarity_store_log_mark_deleted(w->s, w->gone[i], &found, w->err);
        if (!rc && found) w->st->deleted++;
    }
    for (size_t i = 0; !rc && i < w->ngd; i++) {
        int64_t n;
        rc = clarity_store_logs_mark_deleted_under(w->s, w->gone_dirs[i], &n, w->err);
        if (!rc) w->st->deleted += (size_t)n;
    }
    for (size_t i = 0; i < w->ngone; i++) free(w->gone[i]);
    for (size_t i = 0; i < w->ngd; i++) free(w->gone_dirs[i]);
    w->ngone = w->ngd = 0;
    return rc;
}

/* Enters a directory once: false when it was entered before by another way (a link). */
static int enter_once(struct walker *w, const char *abs, bool *first)
{
    struct stat st;
    *first = false;
    if (stat(abs, &st) != 0) return CLARITY_OK;   /* gone since the listing: its rows next run */
    for (size_t i = 0; i < w->nseen; i++)
        if (w->seen[i].dev == (uint64_t)st.st_dev && w->seen[i].ino == (uint64_t)st.st_ino) return CLARITY_OK;
    if (w->nseen == w->cseen) {
        size_t c = w->cseen ? 2 * w->cseen : 16;
        struct seen *p = realloc(w->seen, c * sizeof *p);
        if (!p) return oom(w);
        w->seen = p;
        w->cseen = c;
    }
    w->seen[w->nseen++] = (struct seen){(uint64_t)st.st_dev, (uint64_t)st.st_ino};
    *first = true;
    return CLARITY_OK;
}

static char *join(const char *a, const char *b, const char *c)
{
    size_t na = strlen(a), nb = strlen(b), nc = strlen(c);
    char *p = malloc(na + nb + nc + 1);
    if (!p) return NULL;
    memcpy(p, a, na);
    memcpy(p + na, b, nb);
    memcpy(p + na + nb, c, nc + 1);
    return p;
}

struct cands { struct clarity_fleet__cand *v; size_t n, cap; };

static void cands_clear(struct cands *c)
{
    for (size_t i = 0; i < c->n; i++) free(c->v[i].abs);
    c->n = 0;
}

static bool cand_add(struct cands *c, const char *abs_dir, size_t root_len, const struct listing *l,
                     const struct ent *e)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        struct clarity_fleet__cand *v = realloc(c->v, cap * sizeof *v);
        if (!v) return false;
        c->v = v;
        c->cap = cap;
    }
    char *abs = join(abs_dir, "/", e->name);
    if (!abs) return false;
    c->v[c->n++] = (struct clarity_fleet__cand){.abs = abs, .rel = abs + root_len + 1, .stored = e->row != 0,
                                                .file = e->kind == K_FILE,
                                                .row = e->row ? l->rows[e->row - 1] : (struct clarity_store_log){0}};
    return true;
}

/* A directory not known from the store: one application's (a candidate), an application's
 * layout holding no events (nothing, as the resolver leaves it: a note), or a container. */
enum dir_is { D_CONTAINER, D_APP, D_NOTHING };

static int new_dir(struct walker *w, const char *abs, enum dir_is *is)
{
    struct clarity_source_list one;
    struct clarity_error e = {0};
    bool is_app = false;
    int rc = clarity_source_resolve_app_dir(abs, &one, &is_app, &e);
    /* unreadable: walked as a container, which lists nothing */
    *is = rc || !is_app ? D_CONTAINER : one.napps ? D_APP : D_NOTHING;
    clarity_source_list_free(&one);
    return rc == CLARITY_ENOMEM ? oom(w) : CLARITY_OK;
}

static int walk(struct walker *w, const char *abs_dir, size_t root_len, int depth)
{
    struct listing l;
    int e = list_dir(abs_dir, &l);
    if (e == ENOMEM) return oom(w);
    if (e) return CLARITY_OK;   /* unreadable or gone: its stored rows stay as they are */
    char *prefix = depth ? join(abs_dir + root_len + 1, "/", "") : strdup("");
    if (!prefix) {
        listing_free(&l);
        return oom(w);
    }
    int rc = merge_dir(w, prefix, &l);
    struct cands c = {0};
    char **subs = NULL;
    size_t nsubs = 0, csubs = 0;
    for (size_t i = 0; !rc && i < l.n; i++) {
        const struct ent *en = &l.e[i];
        /* hidden names are not logs (.crc sidecars, editor files), as for the History Server */
        if (en->name[0] == '.' || en->kind == K_OTHER) continue;
        bool cand = false;
        if (en->kind == K_FILE) {
            if (en->trusted) w->st->unchanged++;
            else cand = true;
        } else if (en->row && l.rows[en->row - 1].state != CLARITY_STORE_LOG_DELETED) {
            cand = true;   /* an application directory read before: its parts may have grown */
        } else if (depth + 1 <= MAX_DEPTH) {
            char *abs = join(abs_dir, "/", en->name);
            enum dir_is is = D_CONTAINER;
            if (!abs) rc = oom(w);
            else if (!en->below) rc = new_dir(w, abs, &is);
            if (!rc && is == D_APP) cand = true;
            else if (!rc && is == D_CONTAINER && !push(&subs, &nsubs, &csubs, abs, strlen(abs))) rc = oom(w);
            free(abs);
        }
        if (!rc && cand && !cand_add(&c, abs_dir, root_len, &l, en)) rc = oom(w);
        /* handed on a chunk at a time: a flat directory of 650,000 new logs is checked and read
         * in pieces, not held whole */
        if (!rc && c.n == CAND_CHUNK) {
            rc = w->cb->batch(w->cb->ctx, c.v, c.n);
            cands_clear(&c);
        }
    }
    listing_free(&l);
    free(prefix);
    if (!rc && c.n) rc = w->cb->batch(w->cb->ctx, c.v, c.n);
    cands_clear(&c);
    free(c.v);
    for (size_t i = 0; !rc && i < nsubs; i++) {
        bool first;
        rc = enter_once(w, subs[i], &first);
        if (!rc && first) rc = walk(w, subs[i], root_len, depth + 1);
    }
    for (size_t i = 0; i < nsubs; i++) free(subs[i]);
    free(subs);
    return rc;
}

int clarity_fleet__walk(struct clarity_store *s, const char *abs_root, bool verify,
                        const struct clarity_fleet__walk_cb *cb, struct clarity_fleet__walk_stats *st,
                        struct clarity_error *err)
{
    struct walker w = {.s = s, .verify = verify, .cb = cb, .st = st, .err = err};
    bool first;
    int rc = enter_once(&w, abs_root, &first);
    if (!rc) rc = walk(&w, abs_root, strlen(abs_root), 0);
    free(w.seen);
    free(w.gone);
    free(w.gone_dirs);
    return rc;
}
