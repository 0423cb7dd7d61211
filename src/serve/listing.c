/* The listing: every log entry the directory holds and the application attempt found in it.
 * A scan resolves the directory as every other command does (clarity_source_resolve), keeps
 * the entries whose size and newest modification time did not change, and reads the others
 * with a lean load (no accumulables, no executor metrics: the listing needs the application's
 * start and end only). A grown plain log (same head, larger) is read only from where the last
 * read stopped, for the listing row (peek.c); other grown entries (compressed, rolling) are read
 * again from their start. With --acl each entry also keeps its environment's view ACLs. The result is published as a new immutable snapshot; requests hold a
 * reference to the one they started with. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "clarity/codec.h"
#include "serve/serve_internal.h"

static char *dup0(const char *s) { return s ? strdup(s) : NULL; }

static void entry_clear(struct serve_entry *e)
{
    free(e->path);
    for (size_t i = 0; i < 5; i++) free(e->strs[i]);
    clarity__serve_acl_props_free(&e->acl);
    memset(e, 0, sizeof *e);
}

void clarity__serve_listing_free(struct serve_listing *l)
{
    if (!l) return;
    for (size_t i = 0; i < l->n; i++) entry_clear(&l->e[i]);
    free(l->e);
    free(l->by_app);
    free(l->rows);
    free(l);
}

struct serve_listing *clarity__serve_listing_ref(struct clarity_server *s)
{
    pthread_mutex_lock(&s->mu);
    struct serve_listing *l = s->listing;
    if (l) atomic_fetch_add(&l->refs, 1);
    pthread_mutex_unlock(&s->mu);
    return l;
}

void clarity__serve_listing_unref(struct serve_listing *l)
{
    if (l && atomic_fetch_sub(&l->refs, 1) == 1) clarity__serve_listing_free(l);
}

static int cmp_by_app(const void *x, const void *y, void *ctx)
{
    const struct serve_listing *l = ctx;
    const struct serve_entry *a = &l->e[*(const size_t *)x], *b = &l->e[*(const size_t *)y];
    return strcmp(a->info.app_id, b->info.app_id);
}

size_t clarity__serve_listing_find(const struct serve_listing *l, const char *app_id, const struct serve_entry **out,
                                   size_t max)
{
    size_t lo = 0, hi = l->napp_rows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(l->e[l->by_app[mid]].info.app_id, app_id) < 0) lo = mid + 1;
        else hi = mid;
    }
    size_t n = 0;
    for (size_t i = lo; i < l->napp_rows && n < max && !strcmp(l->e[l->by_app[i]].info.app_id, app_id); i++)
        out[n++] = &l->e[l->by_app[i]];
    return n;
}

/* Size over an entry's files and the newest modification time (as the store's fingerprint
 * takes them): what tells a changed entry from an unchanged one without reading it. */
static void entry_stat(const struct clarity_app_source *src, uint64_t *size, int64_t *mtime_ns)
{
    *size = 0;
    *mtime_ns = 0;
    struct stat st;
    for (size_t i = 0; i < src->nfiles; i++) {
        if (stat(src->files[i].path, &st) != 0) continue;
        *size += (uint64_t)st.st_size;
        int64_t m = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        if (m > *mtime_ns) *mtime_ns = m;
    }
}

/* Whether src is one uncompressed file: the resolver names a codec from the file name, and
 * leaves an extensionless file's to the decoder's sniffing, done here the same way. */
static bool plain_single(const struct clarity_app_source *src)
{
    if (src->layout != CLARITY_LAYOUT_SINGLE || src->nfiles != 1) return false;
    if (src->files[0].codec != CLARITY_CODEC_UNKNOWN) return src->files[0].codec == CLARITY_CODEC_PLAIN;
    int fd = open(src->files[0].path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    uint8_t head[64];
    ssize_t r = pread(fd, head, sizeof head, 0);
    close(fd);
    return r > 0 && clarity_codec_sniff(head, (size_t)r) == CLARITY_CODEC_PLAIN;
}

/* Where a read of a plain single-file log can resume: just past the last newline at or before
 * size (looked for in the last MiB; 0 when there is none: not resumed). */
static uint64_t resume_offset(const struct clarity_app_source *src, uint64_t size)
{
    if (!size || !plain_single(src)) return 0;
    int fd = open(src->files[0].path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[65536];
    uint64_t end = size, found = 0;
    for (int k = 0; k < 16 && end > 0 && !found; k++) {
        uint64_t from = end > sizeof buf ? end - sizeof buf : 0;
        ssize_t r = pread(fd, buf, (size_t)(end - from), (off_t)from);
        if (r <= 0) break;
        for (ssize_t i = r - 1; i >= 0; i--)
            if (buf[i] == '\n') {
                found = from + (uint64_t)i + 1;
                break;
            }
        end = from;
    }
    close(fd);
    return found;
}

/* Whether byte off-1 of the file is a newline: a stored offset is trusted only at a line start
 * (a store written by an older build kept the size, which may fall inside a line). */
static bool at_line_start(const char *path, uint64_t off)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char ch = 0;
    bool ok = off > 0 && pread(fd, &ch, 1, (off_t)(off - 1)) == 1 && ch == '\n';
    close(fd);
    return ok;
}

static void set_strs(struct serve_entry *e, const struct clarity_shs_attempt_info *in, bool *oom)
{
    const char *src_strs[5] = {in->app_id, in->attempt_id, in->name, in->user, in->spark_version};
    for (size_t i = 0; i < 5; i++) {
        e->strs[i] = dup0(src_strs[i]);
        if (src_strs[i] && !e->strs[i]) *oom = true;
    }
    e->info = *in;
    e->info.app_id = e->strs[0] ? e->strs[0] : "";
    e->info.attempt_id = e->strs[1];
    e->info.name = e->strs[2];
    e->info.user = e->strs[3];
    e->info.spark_version = e->strs[4];
}

/* A grown plain log whose last read is known: its row from prev and the appended lines.
 * False when it must be read whole (the suffix holds an event that changes more than the
 * end, or the offset is not a line start); e is then as it came in. */
static bool entry_resume(struct serve_entry *e, const struct clarity_app_source *src, const struct serve_entry *prev)
{
    if (!prev || !prev->ok || e->change != CLARITY_STORE_GROWN || !prev->read_offset || prev->read_offset > e->size ||
        !plain_single(src) || !at_line_start(src->files[0].path, prev->read_offset))
        return false;
    struct serve_entry r = {.info = prev->info, .tasks = prev->tasks};
    uint64_t next = 0;
    if (clarity__serve_peek_suffix(src->files[0].path, prev->read_offset, &r, &next) != 0) return false;
    bool oom = false;
    struct clarity_shs_attempt_info in = r.info;
    in.last_updated_ms = e->mtime_ns / 1000000;   /* as the REST layer takes it: the file's mtime */
    set_strs(e, &in, &oom);
    e->tasks = r.tasks;
    if (prev->acl_known && clarity__serve_acl_props_copy(&e->acl, &prev->acl) != 0) oom = true;
    e->acl_known = prev->acl_known;
    e->read_offset = next;
    e->resumed = true;
    e->ok = !oom;
    if (oom) snprintf(e->err, sizeof e->err, "out of memory");
    return true;
}

static char *env_prop(const struct clarity_app *a, const char *key)
{
    const char *v = NULL;   /* the last one, as a map built from the list keeps it */
    for (size_t i = 0; i < a->spark_props.n; i++)
        if (!strcmp(clarity_app_str(a, a->spark_props.p[i].k), key)) v = clarity_app_str(a, a->spark_props.p[i].v);
    return v ? strdup(v) : NULL;
}

/* Reads one entry for the listing; prev: what the last listing had of it (NULL: new). */
static void entry_read(struct serve_entry *e, const struct clarity_app_source *src, const struct serve_entry *prev,
                       int threads)
{
    struct clarity_store_fingerprint fp;
    struct clarity_error ferr;
    e->fresh = true;
    if (clarity_store_fingerprint(src, &fp, &ferr) == CLARITY_OK) {
        e->head_hash = fp.head_hash;
        struct clarity_store_log was = {.fp = {.size = prev ? prev->size : 0, .mtime_ns = prev ? prev->mtime_ns : 0,
                                               .head_hash = prev ? prev->head_hash : 0}};
        e->change = (int)clarity_store_classify(prev ? &was : NULL, &fp);
    }
    if (entry_resume(e, src, prev)) return;
    /* the listing's fields and the environment only: the rest of the log is passed over
     * unparsed, so a 10 M-task log is listed without building its model (1.2 GB) */
    struct clarity_load_options lo = {.keep_task_accumulables = false, .skip_task_executor_metrics = true,
                                      .app_events_only = true, .threads = threads, .quiet = true};
    struct clarity_app *a = NULL;
    struct clarity_error err = {0};
    if (clarity_app_load(src, &lo, &a, &err) != CLARITY_OK) {
        e->ok = false;
        snprintf(e->err, sizeof e->err, "%.255s", err.msg);
        return;
    }
    struct clarity_shs_attempt_info in;
    clarity_shs_attempt_info_of(a, &in);
    bool oom = false;
    set_strs(e, &in, &oom);
    /* the ACLs cost four lookups in a model already read: kept whether or not --acl is on */
    struct serve_acl_props *acl = &e->acl;
    acl->view = env_prop(a, "spark.ui.view.acls");
    acl->view_groups = env_prop(a, "spark.ui.view.acls.groups");
    acl->admin = env_prop(a, "spark.admin.acls");
    acl->admin_groups = env_prop(a, "spark.admin.acls.groups");
    e->acl_known = true;
    const struct clarity_integrity *ig = &a->integrity;
    e->tasks = a->tasks.n + (ig->task_starts_skipped > ig->task_ends_skipped ? ig->task_starts_skipped : ig->task_ends_skipped);
    e->read_offset = resume_offset(src, e->size);
    e->ok = !oom;
    if (oom) snprintf(e->err, sizeof e->err, "out of memory");
    clarity_app_free(a);
}

/* Entries to read, shared by the scan's workers. */
struct work {
    struct serve_entry *e;
    const struct clarity_app_source **src;
    const struct serve_entry **prev;
    int load_threads;
    size_t *todo, ntodo;
    atomic_size_t next;
};

static void *worker(void *arg)
{
    struct work *w = arg;
    for (size_t i; (i = atomic_fetch_add(&w->next, 1)) < w->ntodo;) {
        size_t k = w->todo[i];
        /* many logs: one per scan thread; one log (a large one, growing): every core on it */
        entry_read(&w->e[k], w->src[k], w->prev[k], w->ntodo == 1 ? w->load_threads : 1);
    }
    return NULL;
}

static const struct serve_entry *old_find(const struct serve_listing *old, const char *path)
{
    if (!old) return NULL;
    size_t lo = 0, hi = old->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int d = strcmp(old->e[mid].path, path);
        if (!d) return &old->e[mid];
        if (d < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

static int entry_copy(struct serve_entry *dst, const struct serve_entry *src)
{
    *dst = *src;
    dst->fresh = false;
    dst->path = strdup(src->path);
    bool oom = !dst->path;
    for (size_t i = 0; i < 5; i++) {
        dst->strs[i] = dup0(src->strs[i]);
        if (src->strs[i] && !dst->strs[i]) oom = true;
    }
    dst->info.app_id = dst->strs[0] ? dst->strs[0] : "";
    dst->info.attempt_id = dst->strs[1];
    dst->info.name = dst->strs[2];
    dst->info.user = dst->strs[3];
    dst->info.spark_version = dst->strs[4];
    dst->resumed = false;
    memset(&dst->acl, 0, sizeof dst->acl);
    if (src->acl_known && clarity__serve_acl_props_copy(&dst->acl, &src->acl) != 0) oom = true;
    return oom ? -1 : 0;
}

static int cmp_entry_path(const void *x, const void *y)
{
    return strcmp(((const struct serve_entry *)x)->path, ((const struct serve_entry *)y)->path);
}

int clarity__serve_listing_index(struct serve_listing *l)
{
    l->by_app = malloc((l->n ? l->n : 1) * sizeof *l->by_app);
    l->rows = malloc((l->n ? l->n : 1) * sizeof *l->rows);
    if (!l->by_app || !l->rows) return -1;
    l->napp_rows = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->e[i].ok) {
            l->rows[l->napp_rows] = l->e[i].info;
            l->by_app[l->napp_rows++] = i;
        }
    qsort_r(l->by_app, l->napp_rows, sizeof *l->by_app, cmp_by_app, l);
    return 0;
}

/* Whether two listings hold the same entries at the same generations. */
static bool same(const struct serve_listing *a, const struct serve_listing *b)
{
    if (!a || a->n != b->n) return false;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->e[i].path, b->e[i].path) || a->e[i].size != b->e[i].size || a->e[i].mtime_ns != b->e[i].mtime_ns)
            return false;
    return true;
}

int clarity__serve_listing_peek_acls(struct clarity_server *s, struct serve_listing *l, struct clarity_error *err)
{
    struct clarity_source_list list = {0};
    const char *paths[] = {s->log_dir};
    struct clarity_error rerr = {0};
    if (clarity_source_resolve(paths, 1, &list, &rerr) == CLARITY_EIO) {
        clarity_source_list_free(&list);
        *err = rerr;
        return CLARITY_EIO;
    }
    for (size_t i = 0; i < list.napps; i++) {
        struct serve_entry *e = (struct serve_entry *)old_find(l, list.apps[i].path);
        if (e && !e->acl_known && clarity__serve_peek_acls(&list.apps[i], &e->acl) == 0) e->acl_known = true;
    }
    clarity_source_list_free(&list);
    return CLARITY_OK;
}

void clarity__serve_listing_publish(struct clarity_server *s, struct serve_listing *l)
{
    pthread_mutex_lock(&s->mu);
    struct serve_listing *prev = s->listing;
    s->listing = l;
    pthread_mutex_unlock(&s->mu);
    clarity__serve_listing_unref(prev);
}

int clarity__serve_rescan(struct clarity_server *s, struct clarity_error *err)
{
    pthread_mutex_lock(&s->scan_mu);
    atomic_fetch_add(&s->scans, 1);
    struct clarity_source_list list = {0};
    const char *paths[] = {s->log_dir};
    struct clarity_error rerr = {0};
    int rc = clarity_source_resolve(paths, 1, &list, &rerr);
    /* an empty directory is a valid, empty listing; an unreadable one keeps the last listing */
    if (rc == CLARITY_EIO) {
        clarity_source_list_free(&list);
        pthread_mutex_unlock(&s->scan_mu);
        *err = rerr;
        return rc;
    }
    struct serve_listing *old = clarity__serve_listing_ref(s);
    struct serve_listing *l = calloc(1, sizeof *l);
    struct work w = {0};
    if (l) {
        l->e = calloc(list.napps ? list.napps : 1, sizeof *l->e);
        w.src = calloc(list.napps ? list.napps : 1, sizeof *w.src);
        w.todo = calloc(list.napps ? list.napps : 1, sizeof *w.todo);
        w.prev = calloc(list.napps ? list.napps : 1, sizeof *w.prev);
    }
    if (!l || !l->e || !w.src || !w.todo || !w.prev) {
        rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
        goto out;
    }
    atomic_init(&l->refs, 1);
    size_t nkept = 0, nold_seen = 0;
    for (size_t i = 0; i < list.napps; i++) {
        struct serve_entry *e = &l->e[l->n];
        uint64_t size;
        int64_t mtime;
        entry_stat(&list.apps[i], &size, &mtime);
        const struct serve_entry *prev = old_find(old, list.apps[i].path);
        nold_seen += prev != NULL;
        if (prev && prev->size == size && prev->mtime_ns == mtime) {
            if (entry_copy(e, prev) != 0) {
                l->n++;
                rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
                goto out;
            }
            if (s->opt.acl && !e->acl_known && clarity__serve_peek_acls(&list.apps[i], &e->acl) == 0) e->acl_known = true;
            nkept++;
        } else {
            if (!(e->path = strdup(list.apps[i].path))) {
                rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
                goto out;
            }
            e->size = size;
            e->mtime_ns = mtime;
            w.src[l->n] = &list.apps[i];
            w.prev[l->n] = prev;
            w.todo[w.ntodo++] = l->n;
        }
        l->n++;
    }
    w.e = l->e;
    w.load_threads = s->opt.load_threads;
    atomic_init(&w.next, 0);
    /* the reads run on the scan's threads, not the request threads: a directory of many
     * logs indexes on every core while requests are still answered from the old listing */
    int nthreads = s->opt.load_threads > 0 ? s->opt.load_threads : 2;
    pthread_t th[16];
    int started = 0;
    for (int t = 1; t < nthreads && t < 16 && (size_t)t < w.ntodo; t++)
        if (pthread_create(&th[started], NULL, worker, &w) == 0) started++;
    worker(&w);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    qsort(l->e, l->n, sizeof *l->e, cmp_entry_path);
    if (clarity__serve_listing_index(l) != 0) {
        rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
        goto out;
    }
    rc = CLARITY_OK;
    if (!same(old, l)) {
        l->generation = old ? old->generation + 1 : 1;
        size_t unreadable = 0;
        for (size_t i = 0; i < l->n; i++) unreadable += !l->e[i].ok;
        clarity__serve_log(s, CLARITY_SERVE_INFO, "scan: %zu logs (%zu read again, %zu unchanged, %zu unreadable), %zu gone",
                           l->n, w.ntodo, nkept, unreadable, old ? old->n - nold_seen : 0);
        size_t grown = 0, resumed = 0;
        for (size_t i = 0; i < l->n; i++) {
            grown += l->e[i].fresh && l->e[i].change == CLARITY_STORE_GROWN;
            resumed += l->e[i].fresh && l->e[i].resumed;
        }
        if (grown)
            clarity__serve_log(s, CLARITY_SERVE_INFO, "scan: %zu logs grew (%zu read from where the last read stopped, %zu again from their start)",
                               grown, resumed, grown - resumed);
        clarity__serve_listing_publish(s, l);
        clarity__serve_store_update(s, old, l);
        l = NULL;
    }
out:
    clarity__serve_listing_unref(old);
    clarity__serve_listing_free(l);
    free(w.src);
    free(w.todo);
    free(w.prev);
    clarity_source_list_free(&list);
    pthread_mutex_unlock(&s->scan_mu);
    return rc;
}
