#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli/commands.h"
#include "cli/common/load.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* A progress line is shown only once the work has taken a second, and erased when done. */
struct progress_line { double start; bool shown; };

/* One application: bytes and events of the file being read. */
static void file_progress(void *ctx, const char *file, uint64_t bytes, uint64_t events, uint64_t file_bytes)
{
    struct progress_line *pl = ctx;
    double t = now_s() - pl->start;
    if (t < 1.0) return;
    pl->shown = true;
    const char *base = strrchr(file, '/');
    fprintf(stderr, "\rclarity: %s: %.0f MB read, %.0f events/s", base ? base + 1 : file, bytes / 1e6, events / t);
    /* plain files: the decoded bytes are the file's, so the rest can be estimated */
    if (file_bytes && bytes <= file_bytes && bytes > 0)
        fprintf(stderr, ", %.0f%%, ~%.0f s left", 100.0 * (double)bytes / (double)file_bytes,
                t * (double)(file_bytes - bytes) / (double)bytes);
    fputs("   ", stderr);
}

/* Many applications: how many are read. */
static void set_progress(void *ctx, size_t done, size_t total)
{
    struct progress_line *pl = ctx;
    if (done == total) {
        if (pl->shown) fputs("\r\033[K", stderr);
        pl->shown = false;
        return;
    }
    double t = now_s() - pl->start;
    if (t < 1.0) return;
    pl->shown = true;
    double left = done ? t * (double)(total - done) / (double)done : 0;
    fprintf(stderr, "\rclarity: %zu/%zu applications read, %.0f s elapsed, ~%.0f s left   ", done, total, t, left);
}

/* Under -q a directory of many unreadable files gets one summary line (naming the first),
 * not a line each: 100,000 empty files would otherwise bury the output. A path that could not
 * be opened at all is said once (by resolve_err), not again as a skipped note. */
void print_set_problems(const char *cmd, const struct clarity_app_set *s, bool quiet)
{
    char buf[1200];
    if (s->resolve_err.code) fprintf(stderr, "clarity %s: %s\n", cmd, clarity_error_format(&s->resolve_err, buf, sizeof buf));
    if (!quiet)
        for (size_t i = 0; i < s->sources.nnotes; i++) {
            if (s->resolve_err.code && !strcmp(s->sources.notes[i].path, s->resolve_err.file)) continue;
            fprintf(stderr, "clarity %s: %s: skipped: %s\n", cmd, s->sources.notes[i].path, s->sources.notes[i].why);
        }
    size_t failed = set_failed_count(s), first = s->n;
    for (size_t i = 0; i < s->n && first == s->n; i++)
        if (!s->apps[i].app && !s->apps[i].released) first = i;
    if (quiet && failed > 1) {
        fprintf(stderr, "clarity %s: %zu files skipped (could not be read); the first: %s\n", cmd, failed,
                clarity_error_format(&s->apps[first].err, buf, sizeof buf));
        return;
    }
    for (size_t i = 0; i < s->n; i++)
        if (!s->apps[i].app && !s->apps[i].released) fprintf(stderr, "clarity %s: %s\n", cmd, clarity_error_format(&s->apps[i].err, buf, sizeof buf));
}

size_t set_failed_count(const struct clarity_app_set *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++) n += !s->apps[i].app && !s->apps[i].released;
    return n;
}

int set_exit_code(const struct clarity_app_set *s, int rc)
{
    return rc == EXIT_OK && set_failed_count(s) ? EXIT_PARTIAL : rc;
}

/* Streaming: the progress line is erased before an application's output is written. */
struct each_wrap {
    void (*each)(void *ctx, const struct clarity_app_set *set, size_t i);
    void *ctx;
    struct progress_line *lines[2];
};

static void each_erasing(void *ctx, const struct clarity_app_set *set, size_t i)
{
    struct each_wrap *w = ctx;
    for (int k = 0; k < 2; k++)
        if (w->lines[k]->shown) {
            fputs("\r\033[K", stderr);
            w->lines[k]->shown = false;
        }
    w->each(w->ctx, set, i);
}

int load_set(const char *cmd, const char *const *paths, size_t npaths, bool quiet, const struct clarity_load_options *opt,
             struct clarity_app_set *out)
{
    return load_set_each(cmd, paths, npaths, quiet, opt, out, NULL, NULL);
}

int load_set_each(const char *cmd, const char *const *paths, size_t npaths, bool quiet, const struct clarity_load_options *opt,
                  struct clarity_app_set *out, void (*each)(void *ctx, const struct clarity_app_set *set, size_t i),
                  void *each_ctx)
{
    struct clarity_load_options app = opt ? *opt : (struct clarity_load_options){.keep_task_accumulables = true};
    struct clarity_load_set_options so = {.app = &app, .workers = app.threads > 0 ? app.threads : 0};
    struct progress_line file_line = {.start = now_s()}, set_line = file_line;
    bool tty = !quiet && isatty(STDERR_FILENO);
    if (tty) {
        app.progress = file_progress;
        app.progress_ctx = &file_line;
        so.progress = set_progress;
        so.progress_ctx = &set_line;
    }
    struct each_wrap wrap = {each, each_ctx, {&file_line, &set_line}};
    if (each) {
        so.each = each_erasing;
        so.each_ctx = &wrap;
    }
    struct clarity_error err;
    int rc = clarity_load_set(paths, npaths, &so, out, &err);
    if (file_line.shown) fputs("\r\033[K", stderr);
    print_set_problems(cmd, out, quiet);
    /* a failure the set does not hold (out of memory before loading) */
    if (rc != CLARITY_OK && !out->n && !out->resolve_err.code) {
        char buf[1200];
        fprintf(stderr, "clarity %s: %s\n", cmd, clarity_error_format(&err, buf, sizeof buf));
    }
    return rc == CLARITY_OK ? EXIT_OK : rc == CLARITY_ENOMEM ? EXIT_NOMEM : EXIT_INPUT;
}
