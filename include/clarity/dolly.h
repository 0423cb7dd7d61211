/* Dolly's straggler rule (thesis 4.7.4) on task components: what a stage would have taken had
 * no task run slower than the stage's median rate. Blocked time replays these runtimes as its
 * "without stragglers" case and the straggler analysis reports on the same rates, so both use
 * this one definition (src/sim, the analyses' shared lower module). */
#ifndef CLARITY_DOLLY_H
#define CLARITY_DOLLY_H
#include <stddef.h>
#include <stdint.h>
#include "clarity/error.h"
#include "clarity/taskcomp.h"

/* Input a task's rate is measured against: shuffle bytes read if any, else input bytes. */
int64_t clarity_task_input_bytes(const struct clarity_task_comp *c);

/* One stage: all[idx[0..n-1]] are its tasks. A task slower than the stage's median rate
 * (runtime per input byte, over the tasks with input) runs at the median rate (input x median);
 * others, and tasks without input, keep their runtime. runtime[k] is for idx[k]. Returns 0, or
 * CLARITY_ENOMEM with err filled. */
int clarity_dolly_stage(const struct clarity_task_comp *all, const size_t *idx, size_t n, double *runtime,
                        struct clarity_error *err);

/* Runtimes of every task in comps under Dolly's rule, stage by stage (runtime[i] for
 * comps->t[i]). Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_dolly_runtimes(const struct clarity_task_comps *comps, double *runtime, struct clarity_error *err);

/* Stage attempts' tasks: *idx (malloc'd) sorted by (stage, row); (*starts)[s]..(*starts)[s+1]
 * per distinct stage. Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_tasks_by_stage(const struct clarity_task_comps *comps, size_t **idx, size_t **starts, size_t *nstages,
                           struct clarity_error *err);

#endif
