/* Indexes one request builds over an application, so that every resource reads what belongs
 * to one stage, job or task directly instead of scanning whole tables for it: with tens of
 * thousands of stages and millions of tasks, a scan per stage or per job is quadratic.
 * Each part is built only when the route asks for it, before any byte of the answer. */
#ifndef CLARITY_SHS_INDEX_H
#define CLARITY_SHS_INDEX_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/model.h"

enum {
    SHS_IX_TASKS = 1 << 0,        /* task rows by stage row */
    SHS_IX_LAUNCH = 1 << 1,       /* the same groups by launch time (implies SHS_IX_TASKS) */
    SHS_IX_STAGE_IDS = 1 << 2,    /* stage rows by stage id */
    SHS_IX_ACCUMS = 1 << 3,       /* shown stage accumulables by stage, task accumulables by task */
};

struct shs_index {
    const struct clarity_app *app;
    /* task rows of stage row s: task_rows[task_start[s] .. task_start[s + 1]), ascending */
    uint32_t *task_rows;
    size_t *task_start;
    size_t max_stage_tasks;          /* the largest group */
    /* the same groups, each ordered by launch time, then row */
    uint32_t *task_rows_by_launch;
    /* stage rows ordered by stage id, then row */
    uint32_t *stage_by_id;
    /* positions in app->stage_accums of the accumulables SHS shows (neither internal nor
     * SQL), ordered by owner stage row, id, then position */
    uint32_t *stage_acc;
    size_t nstage_acc;
    /* positions in app->task_accums ordered by owner task row, then position */
    uint32_t *task_acc;
    size_t ntask_acc;
};

/* Builds the parts named by what (SHS_IX_*). 0, or -1 when out of memory (x freed). */
int clarity__shs_index_build(struct shs_index *x, const struct clarity_app *a, unsigned what);
void clarity__shs_index_free(struct shs_index *x);

/* Task rows of a stage row, ascending (SHS_IX_TASKS). */
static inline const uint32_t *clarity__shs_stage_task_rows(const struct shs_index *x, size_t srow, size_t *n)
{
    *n = x->task_start[srow + 1] - x->task_start[srow];
    return x->task_rows + x->task_start[srow];
}

/* Task rows of a stage row whose launch time passes a job's window as SHS draws it: from
 * submit (when > 0; a launch time of 0 always passes) to end (when > 0), both included.
 * Appends them to out (room for the stage's task count); returns how many (SHS_IX_LAUNCH). */
size_t clarity__shs_stage_tasks_in_window(const struct shs_index *x, size_t srow, int64_t submit_ms, int64_t end_ms,
                                          uint32_t *out);

/* Stage rows with a stage id, ascending (SHS_IX_STAGE_IDS); *n = 0 when none. */
const uint32_t *clarity__shs_stage_rows_of(const struct shs_index *x, int64_t stage_id, size_t *n);

/* Positions in app->stage_accums of a stage row's shown accumulables, by id (SHS_IX_ACCUMS). */
const uint32_t *clarity__shs_stage_accums_of(const struct shs_index *x, size_t srow, size_t *n);

/* A task row's accumulables as one run of app->task_accums: the first position and how many
 * (a task's accumulables are appended together at its TaskEnd). n = 0 when none. */
size_t clarity__shs_task_accums_of(const struct shs_index *x, size_t row, size_t *first);


#endif
