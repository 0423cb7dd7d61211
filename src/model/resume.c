/* Continuing a load of an append-only log (an .inprogress file Spark is still writing, or a
 * rolling event-log directory that gains parts and whose last part grows): the
 * loader's context is kept with the model, and a later call applies only the whole lines
 * appended since, then finishes the model again. What finish changed that more events could
 * change back is undone first: the integrity counts it derives (set again from scratch), the
 * stages it called skipped (their status before is restored; a later event may run them),
 * and the task id index it freed (built again from the rows). Lines appended to a plain
 * file are applied on the calling thread through the same per-line code as a single-threaded
 * load; a rolling log's new parts are read through the loader's own file reader (a
 * compressed part whole: its framing cannot be read on from a byte offset). A single zstd
 * file (a zstd .inprogress log) keeps a zstd decoder fed to where the load stopped
 * (clarity_zstd_feed: the frame in progress and its window), so a resume feeds it only the
 * compressed bytes appended since; other compressed single files are read whole again (their
 * framings, lz4-java blocks, snappy, lzf, have no decoder kept here). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "clarity/codec.h"
#include "model/build.h"

#define MAX_LINE (128u << 20)   /* as load.c: a longer line is never buffered */
#define CHUNK ((size_t)4 << 20)

struct clarity_app_resume {
    struct clarity_load_options opt;
    struct apply_ctx c;
    struct blank_names names;
    char *path;                              /* the file read on: the single file, the last part */
    /* a rolling log: its directory (listed again at each resume), the parts read in order
     * with their sizes then, and whether the last one is plain and ended on a whole line
     * (else it must not grow: a compressed part is read whole once) */
    char *dir;
    char **parts;
    uint64_t *sizes;
    size_t nparts;
    bool last_plain;
    dev_t dev;
    ino_t ino;
    uint64_t offset;                         /* just past the last whole line applied (decoded) */
    uint64_t line;                           /* lines read so far */
    /* a single zstd file: the decoder fed up to coff compressed bytes, and what it decoded
     * after the last whole line applied (tail, ntail bytes) */
    struct clarity_zstd_feed *zf;
    uint64_t coff;
    char *tail;
    size_t ntail, cap_tail;
};

void clarity_app_resume_free(struct clarity_app_resume *st)
{
    if (!st) return;
    clarity__model_ctx_free(&st->c);
    clarity_zstd_feed_free(st->zf);
    free(st->tail);
    free(st->path);
    free(st->dir);
    for (size_t i = 0; i < st->nparts; i++) free(st->parts[i]);
    free(st->parts);
    free(st->sizes);
    free(st);
}

static uint64_t file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : UINT64_MAX;
}

/* Appends a part read (its path and size now) to a rolling state. */
static int part_add(struct clarity_app_resume *st, const char *path)
{
    char **np = realloc(st->parts, (st->nparts + 1) * sizeof *np);
    if (!np) return -1;
    st->parts = np;
    uint64_t *ns = realloc(st->sizes, (st->nparts + 1) * sizeof *ns);
    if (!ns) return -1;
    st->sizes = ns;
    if (!(st->parts[st->nparts] = strdup(path))) return -1;
    st->sizes[st->nparts++] = file_size(path);
    return 0;
}

/* The file's first non-blank byte is '{' (no compressed framing, whatever the name says) and
 * the byte before end is a newline (no torn line was read as a cut one). */
static bool plain_and_whole(int fd, uint64_t end)
{
    char head[64], last;
    ssize_t n = pread(fd, head, sizeof head, 0);
    size_t i = 0;
    while (n > 0 && i < (size_t)n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r')) i++;
    if (n <= 0 || i == (size_t)n || head[i] != '{') return false;
    return end > 0 && pread(fd, &last, 1, (off_t)(end - 1)) == 1 && last == '\n';
}

/* Appends decoded bytes to the tail (emit callback of clarity_zstd_feed); the bytes before
 * skip (those the load applied) are dropped. */
struct tail_sink { struct clarity_app_resume *st; uint64_t skip, seen; char last; };

static int tail_add(void *ctx, const void *p, size_t n)
{
    struct tail_sink *k = ctx;
    struct clarity_app_resume *st = k->st;
    const char *b = p;
    if (k->seen < k->skip) {
        uint64_t drop = k->skip - k->seen < n ? k->skip - k->seen : n;
        k->seen += drop;
        if (k->seen == k->skip && drop) k->last = b[drop - 1];
        b += drop;
        n -= (size_t)drop;
    }
    if (!n) return 0;
    k->seen += n;
    if (st->ntail + n + CJ_PADDING > st->cap_tail) {
        size_t ncap = st->cap_tail ? st->cap_tail : CHUNK;
        while (st->ntail + n + CJ_PADDING > ncap) ncap *= 2;
        if (ncap > MAX_LINE + CHUNK) return CLARITY_EFORMAT;   /* a line past the loader's limit */
        char *nt = realloc(st->tail, ncap);
        if (!nt) return CLARITY_ENOMEM;
        st->tail = nt;
        st->cap_tail = ncap;
    }
    memcpy(st->tail + st->ntail, b, n);
    st->ntail += n;
    return 0;
}

/* Feeds fd's compressed bytes from st->coff to its end to the decoder; adds them to *read. */
static int zstd_feed_file(struct clarity_app_resume *st, int fd, struct tail_sink *k, uint64_t *read, struct clarity_error *err)
{
    char *buf = malloc(CHUNK);
    if (!buf) return clarity_error_set(err, CLARITY_ENOMEM, st->path, 0, 0, "out of memory");
    int rc = CLARITY_OK;
    for (;;) {
        ssize_t n = pread(fd, buf, CHUNK, (off_t)st->coff);
        if (n < 0) rc = clarity_error_set(err, CLARITY_EIO, st->path, 0, st->coff, "read error");
        if (n <= 0) break;
        st->coff += (uint64_t)n;
        *read += (uint64_t)n;
        rc = clarity_zstd_feed(st->zf, buf, (size_t)n, tail_add, k, err);
        if (rc == CLARITY_ENOMEM) clarity_error_set(err, rc, st->path, 0, 0, "out of memory");
        if (rc == CLARITY_EFORMAT && !err->msg[0]) clarity_error_set(err, rc, st->path, 0, 0, "a line longer than %u MiB", MAX_LINE >> 20);
        if (rc) break;
    }
    free(buf);
    return rc;
}

/* After a whole load of one zstd file: a decoder fed to the file's end, the decoded bytes
 * the load applied dropped. Decoding again costs a fraction of the load (no parsing); the
 * loader's own reader runs on its own thread and keeps no state to hand over. Resumable only
 * when the load ended on a whole line and the bytes decode. */
static bool zstd_prepare(struct clarity_app_resume *st, int fd)
{
    struct clarity_error e = {0};
    uint64_t read = 0;
    struct tail_sink k = {st, st->offset, 0, 0};
    if (clarity_zstd_feed_new(&st->zf) != CLARITY_OK) return false;
    if (zstd_feed_file(st, fd, &k, &read, &e) != CLARITY_OK) return false;
    return k.seen >= st->offset && st->offset > 0 && k.last == '\n';
}

int clarity_app_load_resumable(const struct clarity_app_source *src, const struct clarity_load_options *opt,
                               struct clarity_app **out, struct clarity_app_resume **state, struct clarity_error *err)
{
    static const struct clarity_load_options defaults = {.keep_task_accumulables = true};
    *state = NULL;
    const struct clarity_load_options *o = opt ? opt : &defaults;
    bool one_plain = src->nfiles == 1 && !src->files[0].compact &&
                     (src->files[0].codec == CLARITY_CODEC_PLAIN || src->files[0].codec == CLARITY_CODEC_UNKNOWN);
    bool rolling = src->layout == CLARITY_LAYOUT_ROLLING_DIR && src->nfiles > 0;
    /* only a log still being written: the decoder's state costs a second decoding pass */
    bool one_zstd = src->nfiles == 1 && !src->files[0].compact && src->files[0].codec == CLARITY_CODEC_ZSTD && !rolling &&
                    src->in_progress;
    if ((!one_plain && !rolling && !one_zstd) || o->sql_plan_graphs || o->app_events_only || o->task_fold)
        return clarity_app_load(src, opt, out, err);
    struct clarity_app_resume *st = calloc(1, sizeof *st);
    if (!st || !(st->path = strdup(src->files[src->nfiles - 1].path)) || (rolling && !(st->dir = strdup(src->path)))) {
        clarity_app_resume_free(st);
        return clarity_error_set(err, CLARITY_ENOMEM, src->path, 0, 0, "out of memory");
    }
    for (size_t i = 0; rolling && i < src->nfiles; i++)
        if (part_add(st, src->files[i].path) != 0) {
            clarity_app_resume_free(st);
            return clarity_error_set(err, CLARITY_ENOMEM, src->path, 0, 0, "out of memory");
        }
    st->opt = *o;
    st->c.opt = &st->opt;
    st->c.record_skipped = true;
    int rc = clarity__model_load(src, &st->c, &st->names, true, out, err);
    if (rc != CLARITY_OK) {
        st->c = (struct apply_ctx){0};   /* the load freed what it held */
        clarity_app_resume_free(st);
        return rc;
    }
    st->c.acc_names = &st->names;
    st->offset = st->c.last_file_bytes;
    st->line = st->c.last_file_lines;
    int fd = open(st->path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    bool ok = fd >= 0 && fstat(fd, &sb) == 0 && !st->c.failed;
    if (one_zstd) {
        /* a zstd stream cut inside a frame is a whole load's "truncated" (an .inprogress
         * file being written); any other damage is not read on */
        ok = ok && zstd_prepare(st, fd);
    } else {
        st->last_plain = ok && plain_and_whole(fd, st->offset);
        /* a rolling log whose last part cannot be read on still takes new parts */
        ok = ok && (st->last_plain || rolling);
    }
    if (ok) {
        st->dev = sb.st_dev;
        st->ino = sb.st_ino;
        *state = st;
    } else {
        clarity_app_resume_free(st);
    }
    if (fd >= 0) close(fd);
    return CLARITY_OK;
}

/* Undoes what finish derived that later events could change (see the top of the file). */
static int unfinish(struct clarity_app_resume *st, struct clarity_app *a)
{
    struct clarity_integrity *in = &a->integrity;
    in->no_app_end = false;
    in->jobs_without_end = in->sql_without_end = 0;
    in->task_start_without_end = in->stages_without_end = 0;
    in->dropped_task_ends = in->stages_missing_task_ends = 0;
    in->no_task_events = false;
    for (size_t k = st->c.nskipped; k-- > 0;) a->stages[st->c.skipped[k].row].status = st->c.skipped[k].status;
    st->c.nskipped = 0;
    return clarity__model_tasks_reindex(a);
}

/* Applies the whole lines in buf[0, len) (buf has CJ_PADDING bytes after len); returns the
 * bytes they took (up to and with the last newline). */
static size_t apply_lines(struct clarity_app_resume *st, cj_parser *p, char *buf, size_t len)
{
    struct clarity_app *a = st->c.app;
    size_t used = 0;
    for (;;) {
        char *nl = memchr(buf + used, '\n', len - used);
        if (!nl) break;
        char *line = buf + used;
        size_t n = (size_t)(nl - line);
        st->c.line = ++st->line;
        st->c.offset = st->offset + used;
        used += n + 1;
        a->integrity.lines++;
        size_t i = 0;
        while (i < n && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) i++;
        if (i == n) {
            a->integrity.lines_blank++;
            continue;
        }
        clarity__model_apply_line(&st->c, p, line, n, false);
        if (st->c.failed) break;
    }
    return used;
}

/* Applies the whole lines of st->path from st->offset on (the file open as fd); adds the
 * bytes read to *read. */
static int read_on(struct clarity_app_resume *st, struct clarity_app *a, int fd, uint64_t *read, struct clarity_error *err)
{
    size_t cap = CHUNK, len = 0;
    char *buf = malloc(cap + CJ_PADDING);
    cj_parser *p = clarity_cj_parser_new(MAX_LINE + 1024);
    int rc = CLARITY_OK;
    if (!buf || !p) rc = clarity_error_set(err, CLARITY_ENOMEM, st->path, 0, 0, "out of memory");
    uint64_t pos = st->offset;
    while (rc == CLARITY_OK) {
        if (len == cap) {
            /* a line longer than the buffer: grow it, up to the loader's line limit */
            if (cap >= MAX_LINE) {
                rc = clarity_error_set(err, CLARITY_EFORMAT, st->path, st->line + 1, st->offset, "line longer than %u MiB",
                                       MAX_LINE >> 20);
                break;
            }
            char *nb = realloc(buf, cap * 2 + CJ_PADDING);
            if (!nb) {
                rc = clarity_error_set(err, CLARITY_ENOMEM, st->path, 0, 0, "out of memory");
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t n = pread(fd, buf + len, cap - len, (off_t)pos);
        if (n < 0) {
            rc = clarity_error_set(err, CLARITY_EIO, st->path, st->line + 1, pos, "read error");
            break;
        }
        if (n == 0) break;
        pos += (uint64_t)n;
        *read += (uint64_t)n;
        len += (size_t)n;
        memset(buf + len, 0, CJ_PADDING);
        size_t used = apply_lines(st, p, buf, len);
        if (st->c.failed) {
            rc = clarity_error_set(err, CLARITY_ENOMEM, st->path, 0, 0, "out of memory while reading");
            break;
        }
        memmove(buf, buf + used, len - used);
        len -= used;
        st->offset += used;
        a->integrity.bytes += used;
    }
    clarity_cj_parser_free(p);
    free(buf);
    return rc;
}

/* A single zstd file: the compressed bytes appended since are fed to the kept decoder; the
 * whole lines decoded (after what was left from the last read) are applied, a torn last one
 * kept for the next read. Whether the stream now ends inside a frame is what a whole read
 * would call truncated. */
static int read_on_zstd(struct clarity_app_resume *st, struct clarity_app *a, int fd, uint64_t *read,
                        struct clarity_error *err)
{
    struct tail_sink k = {st, 0, 0, 0};
    char *buf = malloc(CHUNK);
    cj_parser *p = clarity_cj_parser_new(MAX_LINE + 1024);
    int rc = buf && p ? CLARITY_OK : clarity_error_set(err, CLARITY_ENOMEM, st->path, 0, 0, "out of memory");
    /* what the last read left first, then chunk by chunk: the decoded bytes of a chunk are
     * applied before the next is read, so only a chunk's worth is held */
    for (bool first = true; rc == CLARITY_OK; first = false) {
        ssize_t n = first ? 0 : pread(fd, buf, CHUNK, (off_t)st->coff);
        if (n < 0) rc = clarity_error_set(err, CLARITY_EIO, st->path, 0, st->coff, "read error");
        if (n < 0 || (n == 0 && !first)) break;
        if (n > 0) {
            st->coff += (uint64_t)n;
            *read += (uint64_t)n;
            rc = clarity_zstd_feed(st->zf, buf, (size_t)n, tail_add, &k, err);
            if (rc == CLARITY_ENOMEM) clarity_error_set(err, rc, st->path, 0, 0, "out of memory");
            else if (rc) clarity_error_set(err, rc, st->path, 0, st->coff, "%s", err->msg[0] ? err->msg : "line too long");
            if (rc) break;
        }
        if (!st->ntail) continue;
        memset(st->tail + st->ntail, 0, CJ_PADDING);
        size_t used = apply_lines(st, p, st->tail, st->ntail);
        if (st->c.failed) rc = clarity_error_set(err, CLARITY_ENOMEM, st->path, 0, 0, "out of memory while reading");
        memmove(st->tail, st->tail + used, st->ntail - used);
        st->ntail -= used;
        st->offset += used;
        a->integrity.bytes += used;
    }
    clarity_cj_parser_free(p);
    free(buf);
    /* as a whole read of the file as it is: cut inside a frame, or inside a line */
    if (rc == CLARITY_OK) a->integrity.truncated = clarity_zstd_feed_mid_frame(st->zf) || st->ntail;
    return rc;
}

/* Opens st->path again: the same file, no shorter than what was read. */
static int reopen(struct clarity_app_resume *st, int *fd, struct clarity_error *err)
{
    struct stat sb;
    *fd = open(st->path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0 || fstat(*fd, &sb) != 0) {
        if (*fd >= 0) close(*fd);
        return clarity_error_set(err, CLARITY_EIO, st->path, 0, 0, "cannot open the log again");
    }
    if (sb.st_dev != st->dev || sb.st_ino != st->ino || (uint64_t)sb.st_size < (st->zf ? st->coff : st->offset)) {
        close(*fd);
        return clarity_error_set(err, CLARITY_EFORMAT, st->path, 0, 0, "replaced or cut since the last read");
    }
    return CLARITY_OK;
}

/* A new part that ends the list and is plain: read on from its start, so its growth later
 * is read on too. */
static bool plain_part(const struct clarity_log_file *f)
{
    return !f->compact && (f->codec == CLARITY_CODEC_PLAIN || f->codec == CLARITY_CODEC_UNKNOWN);
}

/* A rolling log: the parts read must still open the list, unchanged but for the last one
 * (which, when plain, may have grown); then the grown bytes and the new parts are read.
 * Anything else (a compaction, a part replaced, a compressed last part grown) is an error:
 * the caller reads the log whole. */
static int resume_rolling(struct clarity_app_resume *st, struct clarity_app *a, uint64_t *read, struct clarity_error *err)
{
    struct clarity_source_list list = {0};
    const char *paths[] = {st->dir};
    int rc = clarity_source_resolve(paths, 1, &list, err);
    const struct clarity_app_source *src = rc == CLARITY_OK && list.napps == 1 ? &list.apps[0] : NULL;
    if (rc == CLARITY_OK && (!src || src->layout != CLARITY_LAYOUT_ROLLING_DIR || src->nfiles < st->nparts))
        rc = clarity_error_set(err, CLARITY_EFORMAT, st->dir, 0, 0, "no longer the rolling log read");
    for (size_t i = 0; rc == CLARITY_OK && i < st->nparts; i++) {
        bool last = i + 1 == st->nparts;
        if (strcmp(src->files[i].path, st->parts[i]))
            rc = clarity_error_set(err, CLARITY_EFORMAT, st->dir, 0, 0, "its parts changed (compacted?)");
        else if ((!last || !st->last_plain) && file_size(st->parts[i]) != st->sizes[i])
            rc = clarity_error_set(err, CLARITY_EFORMAT, st->parts[i], 0, 0, "a part read whole changed");
    }
    if (rc != CLARITY_OK) {
        clarity_source_list_free(&list);
        return rc;
    }
    if (unfinish(st, a) != 0) rc = clarity_error_set(err, CLARITY_ENOMEM, st->dir, 0, 0, "out of memory");
    if (rc == CLARITY_OK && st->last_plain) {
        int fd;
        if ((rc = reopen(st, &fd, err)) == CLARITY_OK) {
            rc = read_on(st, a, fd, read, err);
            /* a torn line ends a part that is no longer the last: a fresh load reads it cut */
            struct stat sb;
            if (rc == CLARITY_OK && src->nfiles > st->nparts && fstat(fd, &sb) == 0 && (uint64_t)sb.st_size != st->offset)
                rc = clarity_error_set(err, CLARITY_EFORMAT, st->path, 0, 0, "a part ends inside a line");
            close(fd);
        }
    }
    cj_parser *p = src->nfiles > st->nparts ? clarity_cj_parser_new(MAX_LINE + 1024) : NULL;
    if (rc == CLARITY_OK && src->nfiles > st->nparts && !p) rc = clarity_error_set(err, CLARITY_ENOMEM, st->dir, 0, 0, "out of memory");
    for (size_t i = st->nparts; rc == CLARITY_OK && i < src->nfiles; i++) {
        const struct clarity_log_file *f = &src->files[i];
        bool last = i + 1 == src->nfiles;
        char *path = strdup(f->path);
        if (!path || part_add(st, f->path) != 0) {
            free(path);
            rc = clarity_error_set(err, CLARITY_ENOMEM, st->dir, 0, 0, "out of memory");
            break;
        }
        free(st->path);
        st->path = path;
        st->c.file = clarity_intern(&st->c, f->path, strlen(f->path));
        int fd = -1;
        struct stat sb;
        st->last_plain = false;
        if (last && plain_part(f) && (fd = open(f->path, O_RDONLY | O_CLOEXEC)) >= 0 && fstat(fd, &sb) == 0) {
            st->dev = sb.st_dev;
            st->ino = sb.st_ino;
            st->offset = st->line = 0;
            st->last_plain = true;
            rc = read_on(st, a, fd, read, err);
        } else {
            bool any = false;
            struct clarity_error first = {0};
            clarity__model_read_file(&st->c, p, f, &any, &first);
            *read += st->sizes[st->nparts - 1] != UINT64_MAX ? st->sizes[st->nparts - 1] : 0;
            if (st->c.failed) rc = clarity_error_set(err, CLARITY_ENOMEM, f->path, 0, 0, "out of memory while reading");
        }
        if (fd >= 0) close(fd);
    }
    clarity_cj_parser_free(p);
    if (rc == CLARITY_OK) {
        /* what a fresh load takes from the listing of the directory */
        a->integrity.in_progress = src->in_progress;
        a->integrity.rolling_parts_missing = src->missing_parts;
        a->integrity.rolling_first_missing = src->first_missing_part;
    }
    clarity_source_list_free(&list);
    return rc;
}

int clarity_app_resume(struct clarity_app_resume *st, struct clarity_app *a, uint64_t *from, uint64_t *read,
                       struct clarity_error *err)
{
    *from = st->offset;
    *read = 0;
    st->c.app = a;
    if (st->c.failed) return clarity_error_set(err, CLARITY_ENOMEM, st->path, 0, 0, "out of memory in the last read");
    int rc;
    if (st->dir) {
        rc = resume_rolling(st, a, read, err);
    } else {
        int fd;
        if ((rc = reopen(st, &fd, err)) != CLARITY_OK) return rc;
        if (unfinish(st, a) != 0) rc = clarity_error_set(err, CLARITY_ENOMEM, st->path, 0, 0, "out of memory");
        if (rc == CLARITY_OK) rc = st->zf ? read_on_zstd(st, a, fd, read, err) : read_on(st, a, fd, read, err);
        close(fd);
    }
    if (rc == CLARITY_OK) clarity_model_finish(&st->c);
    return rc;
}
