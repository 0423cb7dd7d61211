/* Loads every application some paths name. Applications are independent, so a directory of
 * many is loaded by one worker per core, each taking the next application; results land in
 * their slot, so the set keeps the sources' order whatever finishes first. Nothing here
 * prints: problems stay in the set and progress goes to the caller's callback. */
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
};

static void *load_worker(void *arg)
{
    struct load_job *job = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&job->next, 1);
        if (i >= job->set->n) return NULL;
        struct clarity_loaded_app *la = &job->set->apps[i];
        la->src = &job->set->sources.apps[i];
        clarity_app_load(la->src, job->opt, &la->app, &la->err);
        atomic_fetch_add(&job->done, 1);
    }
}

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

    const struct clarity_error *first = NULL;
    for (size_t i = 0; i < out->n; i++)
        if (!out->apps[i].app) {
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
