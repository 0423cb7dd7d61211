/* clarity_source_resolve: stat each named path, take files and application directories as
 * apps, and walk directories of applications. Everything not taken becomes a note, so the
 * caller can always say why a file was not read. */
#include "source/internal.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Deep enough for cluster_information/platform/<name> style trees, shallow enough that a
 * path like / or $HOME does not turn into a crawl of the whole disk. */
#define MAX_DEPTH 4

static int add_single(struct clarity_source_list *out, const char *path, const char *name)
{
    struct src_name nm;
    if (clarity_src_parse_name(name, &nm) != CLARITY_OK) return CLARITY_ENOMEM;
    struct clarity_app_source app = {
        .layout = CLARITY_LAYOUT_SINGLE,
        .base = nm.base,
        .in_progress = nm.in_progress,
        .path = strdup(path),
    };
    int rc = app.path ? clarity_src_app_add_file(&app, strdup(path), nm.codec, nm.compact) : CLARITY_ENOMEM;
    if (rc != CLARITY_OK) {
        clarity_src_app_free(&app);
        return rc;
    }
    return clarity_src_add_app(out, &app);
}

static int consider_file(struct clarity_source_list *out, const char *path, const char *name, uint64_t size)
{
    char why[256];
    if (clarity_src_sniff_file(path, name, size, why, sizeof why) == SRC_LOG)
        return add_single(out, path, name);
    return clarity_src_add_note(out, path, "%s", why);
}

/* Every directory entered while resolving one named path, by device and inode. Links are
 * followed (a link to an application directory is what the user meant), so without this a
 * directory holding `ln -s . s1` ... `ln -s . s8` reads as 8^4 copies of itself down to
 * MAX_DEPTH, and each copy's log becomes one more attempt of the same application. Each
 * directory is entered once; a second way in becomes a note naming the first. */
struct seen_dir {
    uint64_t dev, ino;
    char *path;
    bool on_path;                /* an ancestor of the directory being walked: a loop */
};
struct walk {
    struct clarity_source_list *out;
    struct seen_dir *seen;
    size_t nseen, cap;
};

static void walk_free(struct walk *w)
{
    for (size_t i = 0; i < w->nseen; i++) free(w->seen[i].path);
    free(w->seen);
}

static struct seen_dir *seen_find(struct walk *w, uint64_t dev, uint64_t ino)
{
    for (size_t i = 0; i < w->nseen; i++)
        if (w->seen[i].dev == dev && w->seen[i].ino == ino) return &w->seen[i];
    return NULL;
}

/* Returns the index of the new entry, or -1 when out of memory. */
static long seen_add(struct walk *w, uint64_t dev, uint64_t ino, const char *path)
{
    if (w->nseen == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 16;
        struct seen_dir *ns = realloc(w->seen, nc * sizeof *ns);
        if (!ns) return -1;
        w->seen = ns;
        w->cap = nc;
    }
    char *p = strdup(path);
    if (!p) return -1;
    w->seen[w->nseen] = (struct seen_dir){.dev = dev, .ino = ino, .path = p, .on_path = true};
    return (long)w->nseen++;
}

static int walk_dir(struct walk *w, const char *path, const char *name, const struct src_dir *d,
                    int depth);

/* Reads and walks one directory found below the named one, unless it was entered before. */
static int enter_dir(struct walk *w, const char *child, const struct src_entry *e, int depth)
{
    struct clarity_source_list *out = w->out;
    const struct seen_dir *s = seen_find(w, e->dev, e->ino);
    if (s && s->on_path)
        return clarity_src_add_note(out, child, "symlink loop: already visited as %s", s->path);
    if (s)
        return clarity_src_add_note(out, child, "same directory as %s, already searched", s->path);
    long at = seen_add(w, e->dev, e->ino, child);
    if (at < 0) return CLARITY_ENOMEM;
    struct src_dir sub;
    int rc = CLARITY_OK, err = clarity_src_dir_read(child, &sub);
    if (err == ENOMEM) rc = CLARITY_ENOMEM;
    else if (err) rc = clarity_src_add_note(out, child, "cannot read directory: %s", strerror(err));
    else {
        rc = walk_dir(w, child, e->name, &sub, depth + 1);
        clarity_src_dir_free(&sub);
    }
    w->seen[at].on_path = false;
    return rc;
}

static int walk_entry(struct walk *w, const char *dir, const struct src_entry *e, int depth)
{
    struct clarity_source_list *out = w->out;
    char *child = clarity_src_join(dir, e->name);
    if (!child) return CLARITY_ENOMEM;
    int rc = CLARITY_OK;
    if (e->name[0] == '.' && e->kind == SRC_DIR) {
        rc = clarity_src_add_note(out, child, "hidden directory (dotfile), not searched");
    } else if (e->kind == SRC_DIR) {
        if (depth + 1 > MAX_DEPTH)
            rc = clarity_src_add_note(out, child, "not searched: more than %d levels below the named directory", MAX_DEPTH);
        else
            rc = enter_dir(w, child, e, depth);
    } else if (e->kind == SRC_REG) {
        rc = consider_file(out, child, e->name, e->size);
    } else if (e->kind == SRC_STAT_FAILED) {
        rc = clarity_src_add_note(out, child, "cannot read: %s", strerror(e->err));
    } else {
        rc = clarity_src_add_note(out, child, "not an event log: not a regular file or directory");
    }
    free(child);
    return rc;
}

/* One directory: an application in one of the directory layouts, or a container. Rolling is
 * tried first because its directory name is decisive; Databricks last because a bare
 * `eventlog` file is the weakest signal. */
static int walk_dir(struct walk *w, const char *path, const char *name, const struct src_dir *d,
                    int depth)
{
    struct clarity_source_list *out = w->out;
    if (d->n == 0) return clarity_src_add_note(out, path, "empty directory");
    if (clarity_src_rolling_match(name, d)) return clarity_src_rolling_add(path, name, d, out);
    if (clarity_src_legacy_match(d)) return clarity_src_legacy_add(path, name, d, out);
    if (clarity_src_databricks_match(path, d)) return clarity_src_databricks_add(path, d, out);
    for (size_t i = 0; i < d->n; i++) {
        int rc = walk_entry(w, path, &d->e[i], depth);
        if (rc != CLARITY_OK) return rc;
    }
    return CLARITY_OK;
}

/* "logs/" and "logs" must give the same app paths, or sorting and de-duplication break. */
static char *normalize(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    return strndup(path, n);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

static int resolve_one(struct clarity_source_list *out, const char *named, int *io_errno)
{
    *io_errno = 0;
    char *path = normalize(named);
    if (!path) return CLARITY_ENOMEM;
    int rc = CLARITY_OK;
    struct stat st;
    if (stat(path, &st) != 0) {
        *io_errno = errno;
    } else if (S_ISDIR(st.st_mode)) {
        struct src_dir d;
        int err = clarity_src_dir_read(path, &d);
        if (err == ENOMEM) rc = CLARITY_ENOMEM;
        else if (err) *io_errno = err;
        else {
            struct walk w = {.out = out};
            if (seen_add(&w, (uint64_t)st.st_dev, (uint64_t)st.st_ino, path) < 0) rc = CLARITY_ENOMEM;
            else rc = walk_dir(&w, path, base_name(path), &d, 0);
            walk_free(&w);
            clarity_src_dir_free(&d);
        }
    } else if (S_ISREG(st.st_mode)) {
        rc = consider_file(out, path, base_name(path), (uint64_t)st.st_size);
    } else {
        rc = clarity_src_add_note(out, path, "not an event log: not a regular file or directory");
    }
    if (rc == CLARITY_OK && *io_errno)
        rc = clarity_src_add_note(out, path, "cannot read: %s", strerror(*io_errno));
    free(path);
    return rc;
}

int clarity_source_resolve(const char *const *paths, size_t npaths,
                           struct clarity_source_list *out, struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    clarity_error_clear(err);
    if (npaths == 0)
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "no paths to resolve");
    int first_io = -1, first_errno = 0;
    for (size_t i = 0; i < npaths; i++) {
        int e = 0;
        int rc = resolve_one(out, paths[i], &e);
        if (rc == CLARITY_ENOMEM) {
            clarity_src_list_finish(out);
            return clarity_error_set(err, CLARITY_ENOMEM, paths[i], 0, 0, "out of memory resolving %s", paths[i]);
        }
        /* Keep going: one mistyped path must not hide the logs named next to it. */
        if (e && first_io < 0) {
            first_io = (int)i;
            first_errno = e;
        }
    }
    clarity_src_list_finish(out);
    if (first_io >= 0)
        return clarity_error_set(err, CLARITY_EIO, paths[first_io], 0, 0, "cannot read: %s", strerror(first_errno));
    if (out->napps == 0) {
        char where[400];
        size_t w = 0;
        where[0] = '\0';
        for (size_t i = 0; i < npaths && w + 1 < sizeof where; i++)
            w += (size_t)snprintf(where + w, sizeof where - w, "%s%s", i ? ", " : "", paths[i]);
        return clarity_error_set(err, CLARITY_ENOTFOUND, npaths == 1 ? paths[0] : NULL, 0, 0,
                                 "no event logs found in %s", where);
    }
    return CLARITY_OK;
}

int clarity_source_resolve_app_dir(const char *path, struct clarity_source_list *out, bool *is_app,
                                   struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    *is_app = false;
    char *p = normalize(path);
    if (!p) return clarity_error_set(err, CLARITY_ENOMEM, path, 0, 0, "out of memory");
    struct src_dir d;
    int e = clarity_src_dir_read(p, &d), rc = CLARITY_OK;
    if (e == ENOMEM) rc = clarity_error_set(err, CLARITY_ENOMEM, path, 0, 0, "out of memory");
    else if (e) rc = clarity_error_set(err, CLARITY_EIO, path, 0, 0, "cannot read directory: %s", strerror(e));
    else {
        /* the order of walk_dir: a rolling name is decisive, a lone `eventlog` the weakest */
        const char *name = base_name(p);
        if (d.n == 0) rc = CLARITY_OK;
        else if (clarity_src_rolling_match(name, &d)) *is_app = true, rc = clarity_src_rolling_add(p, name, &d, out);
        else if (clarity_src_legacy_match(&d)) *is_app = true, rc = clarity_src_legacy_add(p, name, &d, out);
        else if (clarity_src_databricks_match(p, &d)) *is_app = true, rc = clarity_src_databricks_add(p, &d, out);
        clarity_src_dir_free(&d);
        clarity_src_list_finish(out);
        if (rc == CLARITY_ENOMEM) rc = clarity_error_set(err, CLARITY_ENOMEM, path, 0, 0, "out of memory");
    }
    free(p);
    return rc;
}
