/* Builds an iQCAR task table by hand (units, stages, hosts, tasks with chosen waits), so the
 * worked cases derived from the iQCAR paper (numbered cNN in the test names) can check blame,
 * graph and answers with exact numbers. */
#ifndef TEST_IQCAR_FIXTURE_H
#define TEST_IQCAR_FIXTURE_H
#include <stdlib.h>
#include <string.h>
#include "clarity/contention.h"

static inline void fx_init(struct iqcar_result *r)
{
    memset(r, 0, sizeof *r);
    clarity_iqcar_options_default(&r->opt);
    clarity_iqcar_graph_init(&r->g);
    r->unit_kind = IQ_UNIT_SQL;
    r->units = calloc(64, sizeof *r->units);
    r->stages = calloc(256, sizeof *r->stages);
    r->hosts = calloc(16, sizeof *r->hosts);
    r->tasks = calloc(4096, sizeof *r->tasks);
}
static inline size_t fx_unit(struct iqcar_result *r, const char *name)
{
    r->units[r->nunits] = (struct iqcar_unit_info){.name = strdup(name), .start = INT64_MAX, .end = INT64_MIN};
    return r->nunits++;
}
static inline size_t fx_stage(struct iqcar_result *r, size_t unit, const char *name)
{
    r->stages[r->nstages] = (struct iqcar_stage_info){.unit = unit, .stage_id = (int64_t)r->nstages, .name = strdup(name)};
    return r->nstages++;
}
static inline size_t fx_host(struct iqcar_result *r, const char *name)
{
    r->hosts[r->nhosts] = strdup(name);
    return r->nhosts++;
}
/* A task with one wait sub-type p (wait ms, data bytes); slots: submit = launch, 1 offer. */
static inline struct iqcar_task *fx_task(struct iqcar_result *r, size_t stage, size_t host, int64_t launch,
                                         int64_t finish, int p, double wait, double data)
{
    struct iqcar_task *t = &r->tasks[r->ntasks++];
    memset(t, 0, sizeof *t);
    t->stage = (uint32_t)stage;
    t->unit = (uint32_t)r->stages[stage].unit;
    t->host = (uint32_t)host;
    t->launch = launch, t->finish = finish, t->submit = launch;
    t->data[IQ_S_SLOTS] = 1;
    t->wait[p] = wait;
    t->data[p] = data;
    if (p == IQ_S_CPU_BLOCKED || p == IQ_S_CPU_WAITED) t->data[IQ_S_CPU_BLOCKED] = t->data[IQ_S_CPU_WAITED] = data;
    t->weight = 1e9;
    t->ok = true;
    struct iqcar_unit_info *u = &r->units[t->unit];
    if (launch < u->start) u->start = launch;
    if (finish > u->end) u->end = finish;
    u->tasks++;
    u->task_ms += (double)(finish - launch);
    return t;
}
static inline int fx_run(struct iqcar_result *r)
{
    for (size_t i = 0; i < r->ntasks; i++) clarity_iqcar_task_ratps(&r->tasks[i], &r->src);
    r->src.tasks = r->ntasks;
    struct clarity_error err = {0};
    int rc = clarity_iqcar_build(r, &err);
    if (!rc) rc = clarity_iqcar_answers(r, &err);
    return rc ? rc : clarity_iqcar_explain(r, NULL, 0, &err);   /* every target's lists, for the checks */
}
/* DOR toward target t of the first node at level with kind NODE and id a (or kind if a < 0). */
static inline double fx_dor(const struct iqcar_result *r, size_t t, int level, int kind, int a)
{
    double *d = malloc(r->g.nnodes * sizeof *d), s = 0;
    clarity_iqcar_graph_dor(&r->g, t, d);
    for (size_t v = 0; v < r->g.nnodes; v++)
        if (r->g.nodes[v].level == level && r->g.nodes[v].kind == kind && (a < 0 || r->g.nodes[v].a == a)) s += d[v];
    free(d);
    return s;
}
/* Sum of VC of the BE nodes (level 4) of source stage src (or of kind when src < 0) under
 * the DE node of (target stage, sub-type p, host). */
static inline double fx_be_vc(const struct iqcar_result *r, size_t tstage, int p, size_t host, int kind, int src)
{
    double s = 0;
    for (size_t v = 0; v < r->g.nnodes; v++) {
        const struct iqcar_node *n = &r->g.nodes[v];
        if (n->level != 4 || n->kind != kind || (src >= 0 && n->a != src)) continue;
        const struct iqcar_node *de = &r->g.nodes[n->b];
        if (de->a == (int)tstage && de->b == p && de->c == (int)host) s += n->vc;
    }
    return s;
}
#endif
