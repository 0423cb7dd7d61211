/* Items handed out through one atomic counter: no queue, no per-item allocation, and a worker
 * that finishes early simply takes the next item. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include "sim/workers.h"

#define MAX_WORKERS 64

struct run {
    clarity__work_fn fn;
    void *ctx;
    size_t n;
    atomic_size_t next;
    atomic_bool failed;
    pthread_mutex_t lock;
    size_t err_item;             /* lowest failing item so far; n when none */
    struct clarity_error err;
};

struct worker { struct run *run; size_t id; };

static void *work(void *arg)
{
    struct worker *w = arg;
    struct run *r = w->run;
    for (;;) {
        if (atomic_load(&r->failed)) break;
        size_t i = atomic_fetch_add(&r->next, 1);
        if (i >= r->n) break;
        struct clarity_error e = {0};
        int rc = r->fn(r->ctx, i, w->id, &e);
        if (rc) {
            if (!e.code) e.code = rc;
            pthread_mutex_lock(&r->lock);
            if (i < r->err_item) { r->err_item = i; r->err = e; }
            pthread_mutex_unlock(&r->lock);
            atomic_store(&r->failed, true);
        }
    }
    return NULL;
}

size_t clarity__workers_count(int threads, size_t n)
{
    long cores = threads > 0 ? threads : sysconf(_SC_NPROCESSORS_ONLN);
    size_t k = cores > 0 ? (size_t)cores : 1;
    if (k > MAX_WORKERS) k = MAX_WORKERS;
    if (k > n) k = n;
    return k ? k : 1;
}

int clarity__workers_run(int threads, size_t n, clarity__work_fn fn, void *ctx, struct clarity_error *err)
{
    struct run r = {.fn = fn, .ctx = ctx, .n = n, .err_item = n};
    atomic_init(&r.next, 0);
    atomic_init(&r.failed, false);
    pthread_mutex_init(&r.lock, NULL);
    size_t k = clarity__workers_count(threads, n);
    pthread_t tids[MAX_WORKERS];
    struct worker ws[MAX_WORKERS];
    size_t started = 0;
    for (size_t t = 1; t < k; t++) {
        ws[t] = (struct worker){&r, t};
        if (pthread_create(&tids[started], NULL, work, &ws[t]) != 0) break;   /* fewer workers: same result */
        started++;
    }
    ws[0] = (struct worker){&r, 0};
    work(&ws[0]);
    for (size_t t = 0; t < started; t++) pthread_join(tids[t], NULL);
    pthread_mutex_destroy(&r.lock);
    if (r.err_item == n) return 0;
    if (err) *err = r.err;
    return r.err.code;
}
