/* Which successful task attempts make up a job, a SQL query or the application: the units
 * blocked-time, straggler and what-if analyses report on (src/sim, their shared lower module). */
#ifndef CLARITY_GROUPS_H
#define CLARITY_GROUPS_H
#include "clarity/error.h"
#include "clarity/taskcomp.h"

enum clarity_group_kind { CLARITY_GROUP_JOB = 1, CLARITY_GROUP_SQL = 2, CLARITY_GROUP_APP = 4 };
const char *clarity_group_kind_name(int kind);   /* "job", "sql", "app" */

struct clarity_group {
    int kind;
    int64_t id;              /* job id, SQL execution id, 0 for the application */
    size_t row;              /* row in app->jobs / app->sqls */
    size_t *tasks;           /* indices into the task_comps array, in row order */
    size_t ntasks;
    size_t nstages;          /* stage attempts with tasks */
};
struct clarity_groups { struct clarity_group *g; size_t n; size_t *pool; };

/* A stage attempt belongs to one job: of the jobs that list its stage, the one submitted
 * last before the stage's first task launched (else the lowest job id). A job that reuses an
 * earlier job's shuffle output lists that stage as skipped; counting its tasks there too, as
 * the thesis' scripts do, would stretch the later job over both. SQL queries take their
 * jobs' tasks. Groups come jobs first (by id), then SQL queries (by id), then the app.
 * Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_groups_build(const struct clarity_app *a, const struct clarity_task_comps *c, int kinds,
                         struct clarity_groups *out, struct clarity_error *err);
void clarity_groups_free(struct clarity_groups *g);

#endif
