/* The History Server's SQL listener, replayed while loading (load option sql_plan_graphs): it
 * follows executions, their jobs and stages, and each stage's SQL metric values per task
 * index, and turns them into each execution's metric values when it ends. Its state lives in
 * the apply context only while loading. */
#ifndef CLARITY_MODEL_SQL_LISTEN_H
#define CLARITY_MODEL_SQL_LISTEN_H
#include "model/build.h"

struct sql_listen;
struct task_rec;

/* Builds g from a sparkPlanInfo (sql_graph.c); 0, or -1 when out of memory. */
int clarity__sql_graph_build(struct apply_ctx *c, struct clarity_sql_graph *g, cj_val plan);

/* Event hooks; each does nothing when the option is off (c->sql is NULL). */
void clarity__sql_listen_start(struct apply_ctx *c, struct clarity_sql *q, cj_val plan);
void clarity__sql_listen_adaptive(struct apply_ctx *c, struct clarity_sql *q, cj_val plan);
void clarity__sql_listen_adaptive_metrics(struct apply_ctx *c, struct clarity_sql *q, cj_val metrics);
void clarity__sql_listen_end(struct apply_ctx *c, struct clarity_sql *q);
void clarity__sql_listen_driver(struct apply_ctx *c, struct clarity_sql *q, size_t first_new);
void clarity__sql_listen_job_start(struct apply_ctx *c, int64_t sql_id, int64_t job_id, cj_val ev);
void clarity__sql_listen_job_end(struct apply_ctx *c, int64_t job_id);
void clarity__sql_listen_stage_submitted(struct apply_ctx *c, int64_t stage_id, int64_t attempt);
void clarity__sql_listen_task_end(struct apply_ctx *c, const struct task_rec *r);
/* End of replay: executions still running get the values gathered so far, as SHS's flush does. */
void clarity__sql_listen_finish(struct apply_ctx *c);
/* Starts the replay (c->sql); 0, or -1 when out of memory. */
int clarity__sql_listen_new(struct apply_ctx *c);
void clarity__sql_listen_free(struct apply_ctx *c);

#endif
