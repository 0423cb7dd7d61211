/* Continuing a load of an append-only log (an .inprogress file Spark is still writing): the
 * loader's context is kept with the model, and a later call applies only the whole lines
 * appended since, then finishes the model again. What finish changed that more events could
 * change back is undone first: the integrity counts it derives (set again from scratch), the
 * stages it called skipped (their status before is restored; a later event may run them),
 * and the task id index it freed (built again from the rows). Lines are applied on the
 * calling thread through the same per-line code as a single-threaded load. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "model/build.h"

#define MAX_LINE (128u << 20)   /* as load.c: a longer line is never buffered */
#define CHUNK ((size_t)4 << 20)

struct clarity_app_resume {
    struct clarity_load_options opt;
    struct apply_ctx c;
    struct blank_names names;
    char *path;
    dev_t dev;
    ino_t ino;
    uint64_t offset;                         /* just past the last whole line applied */
    uint64_t line;                           /* lines read so far */
};

void clarity_app_resume_free(struct clarity_app_resume *st)
{
    if (!st) return;
    clarity__model_ctx_free(&st->c);
    free(st->path);
    free(st);
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

int clarity_app_load_resumable(const struct clarity_app_source *src, const struct clarity_load_options *opt,
                               struct clarity_app **out, struct clarity_app_resume **state, struct clarity_error *err)
{
    static const struct clarity_load_options defaults = {.keep_task_accumulables = true};
    *state = NULL;
    const struct clarity_load_options *o = opt ? opt : &defaults;
    bool one_plain = src->nfiles == 1 && !src->files[0].compact &&
                     (src->files[0].codec == CLARITY_CODEC_PLAIN || src->files[0].codec == CLARITY_CODEC_UNKNOWN);
    if (!one_plain || o->sql_plan_graphs || o->app_events_only || o->task_fold) return clarity_app_load(src, opt, out, err);
    struct clarity_app_resume *st = calloc(1, sizeof *st);
    if (!st || !(st->path = strdup(src->files[0].path))) {
        free(st);
        return clarity_error_set(err, CLARITY_ENOMEM, src->path, 0, 0, "out of memory");
    }
    st->opt = *o;
    st->c.opt = &st->opt;
    st->c.record_skipped = true;
    int rc = clarity__model_load(src, &st->c, &st->names, true, out, err);
    if (rc != CLARITY_OK) {
        free(st->path);
        free(st);
        return rc;
    }
    st->c.acc_names = &st->names;
    st->offset = (*out)->integrity.bytes;
    st->line = (*out)->integrity.lines;
    int fd = open(st->path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    bool ok = fd >= 0 && fstat(fd, &sb) == 0 && !st->c.failed && plain_and_whole(fd, st->offset);
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

int clarity_app_resume(struct clarity_app_resume *st, struct clarity_app *a, uint64_t *from, uint64_t *read,
                       struct clarity_error *err)
{
    *from = st->offset;
    *read = 0;
    st->c.app = a;
    if (st->c.failed) return clarity_error_set(err, CLARITY_ENOMEM, st->path, 0, 0, "out of memory in the last read");
    int fd = open(st->path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        if (fd >= 0) close(fd);
        return clarity_error_set(err, CLARITY_EIO, st->path, 0, 0, "cannot open the log again");
    }
    if (sb.st_dev != st->dev || sb.st_ino != st->ino || (uint64_t)sb.st_size < st->offset) {
        close(fd);
        return clarity_error_set(err, CLARITY_EFORMAT, st->path, 0, 0, "replaced or cut since the last read");
    }
    if (unfinish(st, a) != 0) {
        close(fd);
        return clarity_error_set(err, CLARITY_ENOMEM, st->path, 0, 0, "out of memory");
    }
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
    close(fd);
    if (rc == CLARITY_OK) clarity_model_finish(&st->c);
    return rc;
}
