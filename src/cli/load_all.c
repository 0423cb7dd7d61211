#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli/commands.h"

/* Applications are independent, so a directory of many is loaded by one worker per core, each
 * taking the next application; results land in their slot, so output order stays the
 * sources' order whatever finishes first. */
struct load_job {
    struct loaded_set *set;
    const struct clarity_load_options *opt;
    atomic_size_t next, done;
};

static void *load_worker(void *arg)
{
    struct load_job *job = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&job->next, 1);
        if (i >= job->set->n) return NULL;
        struct loaded_app *la = &job->set->apps[i];
        la->src = &job->set->sources.apps[i];
        /* many applications already keep every core busy: no read-ahead thread per log */
        struct clarity_load_options o = job->opt ? *job->opt : (struct clarity_load_options){.keep_task_accumulables = true};
        if (job->set->n > 1) o.threads = 1;
        clarity_app_load(la->src, &o, &la->app, &la->err);
        atomic_fetch_add(&job->done, 1);
    }
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

void progress_print(void *ctx, const char *file, uint64_t bytes, uint64_t events, uint64_t file_bytes)
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

/* A progress line on stderr, only on a terminal and only once the work has taken a second. */
static void progress(struct load_job *job, double start, bool quiet)
{
    if (quiet || !isatty(STDERR_FILENO)) return;
    double t = now_s() - start;
    if (t < 1.0) return;
    size_t done = atomic_load(&job->done), n = job->set->n;
    double left = done ? t * (double)(n - done) / (double)done : 0;
    fprintf(stderr, "\rclarity: %zu/%zu applications read, %.0f s elapsed, ~%.0f s left   ", done, n, t, left);
}

int load_all(const char *const *paths, size_t npaths, bool quiet, struct loaded_set *out)
{
    return load_all_opts(paths, npaths, quiet, NULL, out);
}

int load_all_lean(const char *const *paths, size_t npaths, bool quiet, struct loaded_set *out)
{
    struct clarity_load_options o = lean_load_options(quiet);
    return load_all_opts(paths, npaths, quiet, &o, out);
}

int load_all_opts(const char *const *paths, size_t npaths, bool quiet, const struct clarity_load_options *opt,
                  struct loaded_set *out)
{
    memset(out, 0, sizeof *out);
    struct clarity_error err = {0};
    char buf[1200];
    int rc = clarity_source_resolve(paths, npaths, &out->sources, &err);
    if (rc != CLARITY_OK && err.code) fprintf(stderr, "clarity: %s\n", clarity_error_format(&err, buf, sizeof buf));
    if (!quiet)
        for (size_t i = 0; i < out->sources.nnotes; i++)
            fprintf(stderr, "clarity: %s: skipped: %s\n", out->sources.notes[i].path, out->sources.notes[i].why);
    if (out->sources.napps == 0) return EXIT_INPUT;
    out->apps = calloc(out->sources.napps, sizeof *out->apps);
    if (!out->apps) return EXIT_INPUT;
    out->n = out->sources.napps;
    /* one application: its own progress line (many: the count of applications, below) */
    struct clarity_load_options one = opt ? *opt : (struct clarity_load_options){.keep_task_accumulables = true};
    struct progress_line single = {.start = now_s()};
    if (out->n == 1 && !quiet && isatty(STDERR_FILENO)) {
        one.progress = progress_print;
        one.progress_ctx = &single;
        opt = &one;
    }
    struct load_job job = {.set = out, .opt = opt};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nthreads = opt && opt->threads > 0 ? (size_t)opt->threads : (size_t)(cores > 0 ? cores : 1);
    if (nthreads > out->n) nthreads = out->n;
    if (nthreads > 64) nthreads = 64;
    pthread_t tids[64];
    size_t started = 0;
    double start = now_s();
    /* with a progress line the calling thread only watches, so it starts one more worker */
    bool watch = nthreads > 1 && !quiet && isatty(STDERR_FILENO);
    for (size_t t = watch ? 0 : 1; t < nthreads; t++)
        if (pthread_create(&tids[started], NULL, load_worker, &job) == 0) started++;
    if (watch) {
        /* the calling thread reports progress while the workers load */
        while (atomic_load(&job.done) < out->n && started) {
            struct timespec pause = {0, 200 * 1000 * 1000};
            nanosleep(&pause, NULL);
            progress(&job, start, quiet);
            if (atomic_load(&job.next) >= out->n) break;
        }
    }
    load_worker(&job);
    for (size_t t = 0; t < started; t++) pthread_join(tids[t], NULL);
    if (single.shown) fputs("\r\033[K", stderr);
    if (!quiet && isatty(STDERR_FILENO) && now_s() - start >= 1.0) fputs("\r\033[K", stderr);
    for (size_t i = 0; i < out->n; i++)
        if (!out->apps[i].app) {
            out->nfailed++;
            fprintf(stderr, "clarity: %s\n", clarity_error_format(&out->apps[i].err, buf, sizeof buf));
        }
    return out->nfailed == out->n ? EXIT_INPUT : EXIT_OK;
}

void loaded_set_free(struct loaded_set *s)
{
    for (size_t i = 0; i < s->n; i++) clarity_app_free(s->apps[i].app);
    free(s->apps);
    clarity_source_list_free(&s->sources);
    memset(s, 0, sizeof *s);
}

FILE *open_output(const char *path)
{
    if (!path || strcmp(path, "-") == 0) return stdout;
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "clarity: %s: cannot write: %s\n", path, strerror(errno));
    return f;
}

void close_output(FILE *f)
{
    if (f && f != stdout) fclose(f);
    else fflush(stdout);
}
