/* Loads every application some paths name. Applications are independent, so a directory of
 * many is loaded by one worker per core, each taking the next application; results land in
 * their slot, so the set keeps the sources' order whatever finishes first. In streaming mode
 * (options->each) the calling thread hands each application over in order and frees it, and
 * the workers stay a bounded window ahead, so memory follows the window, not the directory.
 * Nothing here prints: problems stay in the set and progress goes to the caller's callback. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "clarity/model.h"

#define MAX_WORKERS 64

struct load_job {
    struct clarity_app_set *set;
    const struct clarity_load_options *opt;
    atomic_size_t next, done;
    /* streaming only: workers take application i only while i < handed + window */
    bool streaming;
    size_t handed, window;
    bool *ready;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

static void *load_worker(void *arg)
{
    struct load_job *job = arg;
    for (;;) {
        size_t i;
        if (job->streaming) {
            pthread_mutex_lock(&job->mu);
            while (atomic_load(&job->next) < job->set->n && atomic_load(&job->next) >= job->handed + job->window)
                pthread_cond_wait(&job->cv, &job->mu);
            i = atomic_fetch_add(&job->next, 1);
            pthread_mutex_unlock(&job->mu);
        } else {
            i = atomic_fetch_add(&job->next, 1);
        }
        if (i >= job->set->n) return NULL;
        struct clarity_loaded_app *la = &job->set->apps[i];
        la->src = &job->set->sources.apps[i];
        clarity_app_load(la->src, job->opt, &la->app, &la->err);
        atomic_fetch_add(&job->done, 1);
        if (job->streaming) {
            pthread_mutex_lock(&job->mu);
            job->ready[i] = true;
            pthread_cond_broadcast(&job->cv);
            pthread_mutex_unlock(&job->mu);
        }
    }
}

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The calling thread's part of streaming: hand over each application in order, then free it.
 * With no worker thread it loads each one itself first. */
static void hand_over(struct load_job *job, const struct clarity_load_set_options *opt, size_t workers)
{
    struct clarity_app_set *set = job->set;
    double last = mono_s();
    for (size_t i = 0; i < set->n; i++) {
        struct clarity_loaded_app *la = &set->apps[i];
        if (workers == 0) {
            la->src = &set->sources.apps[i];
            clarity_app_load(la->src, job->opt, &la->app, &la->err);
            atomic_fetch_add(&job->done, 1);
        } else {
            pthread_mutex_lock(&job->mu);
            while (!job->ready[i]) pthread_cond_wait(&job->cv, &job->mu);
            pthread_mutex_unlock(&job->mu);
        }
        if (opt->progress && set->n > 1 && mono_s() - last >= 0.2) {
            opt->progress(opt->progress_ctx, atomic_load(&job->done), set->n);
            last = mono_s();
        }
        opt->each(opt->each_ctx, set, i);
        if (la->app) {
            clarity_app_free(la->app);
            la->app = NULL;
            la->released = true;
        }
        pthread_mutex_lock(&job->mu);
        job->handed = i + 1;
        pthread_cond_broadcast(&job->cv);
        pthread_mutex_unlock(&job->mu);
    }
}

static int set_result(struct clarity_app_set *out, struct clarity_error *err);

int clarity_load_set(const char *const *paths, size_t npaths, const struct clarity_load_set_options *opt,
                     struct clarity_app_set *out, struct clarity_error *err)
{
    static const struct clarity_load_set_options no_options = {0};
    if (!opt) opt = &no_options;
    memset(out, 0, sizeof *out);
    clarity_error_clear(err);
    int rc = clarity_source_resolve(paths, npaths, &out->sources, &out->resolve_err);
    if (out->sources.napps == 0) {
        if (err) *err = out->resolve_err;
        return rc != CLARITY_OK ? rc : clarity_error_set(err, CLARITY_ENOTFOUND, NULL, 0, 0, "no event logs found");
    }
    out->apps = calloc(out->sources.napps, sizeof *out->apps);
    if (!out->apps) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    out->n = out->sources.napps;

    struct clarity_load_options app = opt->app ? *opt->app : (struct clarity_load_options){.keep_task_accumulables = true};
    /* many applications already keep every core busy: no read-ahead thread per log, and a
     * per-file progress line would interleave; the count of applications replaces it */
    if (out->n > 1) {
        app.threads = 1;
        app.progress = NULL;
    }
    struct load_job job = {.set = out, .opt = &app};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nthreads = opt->workers > 0 ? (size_t)opt->workers : (size_t)(cores > 0 ? cores : 1);
    if (nthreads > out->n) nthreads = out->n;
    if (nthreads > MAX_WORKERS) nthreads = MAX_WORKERS;
    pthread_t tids[MAX_WORKERS];
    size_t started = 0;
    if (opt->each) {
        /* Streaming: the calling thread hands over; the workers (one per core, or none for
         * a single application) load at most two applications each ahead of it. */
        job.streaming = true;
        job.window = 2 * nthreads;
        job.ready = calloc(out->n, sizeof *job.ready);
        if (!job.ready) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
        pthread_mutex_init(&job.mu, NULL);
        pthread_cond_init(&job.cv, NULL);
        for (size_t t = 0; out->n > 1 && t < nthreads; t++)
            if (pthread_create(&tids[started], NULL, load_worker, &job) == 0) started++;
        hand_over(&job, opt, started);
        for (size_t t = 0; t < started; t++) pthread_join(tids[t], NULL);
        pthread_mutex_destroy(&job.mu);
        pthread_cond_destroy(&job.cv);
        free(job.ready);
        if (out->n > 1 && opt->progress) opt->progress(opt->progress_ctx, out->n, out->n);
        return set_result(out, err);
    }
    /* with a progress callback the calling thread only watches, so it starts one more worker */
    bool watch = nthreads > 1 && opt->progress;
    for (size_t t = watch ? 0 : 1; t < nthreads; t++)
        if (pthread_create(&tids[started], NULL, load_worker, &job) == 0) started++;
    if (watch) {
        while (atomic_load(&job.done) < out->n && started) {
            struct timespec pause = {0, 200 * 1000 * 1000};
            nanosleep(&pause, NULL);
            opt->progress(opt->progress_ctx, atomic_load(&job.done), out->n);
            if (atomic_load(&job.next) >= out->n) break;
        }
    }
    load_worker(&job);
    for (size_t t = 0; t < started; t++) pthread_join(tids[t], NULL);
    if (out->n > 1 && opt->progress) opt->progress(opt->progress_ctx, out->n, out->n);
    return set_result(out, err);
}

/* CLARITY_OK when at least one application loaded; else the first one's error. */
static int set_result(struct clarity_app_set *out, struct clarity_error *err)
{
    const struct clarity_error *first = NULL;
    for (size_t i = 0; i < out->n; i++)
        if (!out->apps[i].app && !out->apps[i].released) {
            out->nfailed++;
            if (!first) first = &out->apps[i].err;
        }
    if (out->nfailed < out->n) return CLARITY_OK;
    if (err) *err = *first;
    return first->code ? first->code : CLARITY_EFORMAT;
}

void clarity_app_set_free(struct clarity_app_set *s)
{
    for (size_t i = 0; i < s->n; i++) clarity_app_free(s->apps[i].app);
    free(s->apps);
    clarity_source_list_free(&s->sources);
    memset(s, 0, sizeof *s);
}
