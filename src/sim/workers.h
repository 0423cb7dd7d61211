/* One worker per core over a list of independent items (the stages, groups or replay
 * components of an analysis). Each item writes only its own result slot, and the caller
 * combines the slots in item order afterwards, so the output is the same for any number of
 * workers and any finishing order. */
#ifndef CLARITY_SIM_WORKERS_H
#define CLARITY_SIM_WORKERS_H
#include <stddef.h>
#include "clarity/error.h"

/* Work on item `item` by worker `worker` (< clarity__workers_count(): the index of the
 * worker's scratch). Returns 0, or an error code with err filled. */
typedef int (*clarity__work_fn)(void *ctx, size_t item, size_t worker, struct clarity_error *err);

/* Workers run() uses for n items: threads (0: one per online core), at most n and at most 64,
 * at least 1. */
size_t clarity__workers_count(int threads, size_t n);

/* Calls fn for every item of [0, n), items handed out in increasing order to
 * clarity__workers_count(threads, n) workers; the calling thread is one of them, so
 * threads == 1 starts no thread. After a failure no further item starts. Returns 0, or the
 * error of the lowest failing item (err filled). */
int clarity__workers_run(int threads, size_t n, clarity__work_fn fn, void *ctx, struct clarity_error *err);

#endif
