/* Jobs, SQL queries and the application as sets of successful task attempts. */
#include <stdlib.h>
#include <string.h>
#include "clarity/sim.h"

const char *clarity_group_kind_name(int kind)
{
    return kind == CLARITY_GROUP_JOB ? "job" : kind == CLARITY_GROUP_SQL ? "sql" : "app";
}

struct sid_row { int64_t stage_id; size_t row; };

static int sid_cmp(const void *pa, const void *pb)
{
    const struct sid_row *a = pa, *b = pb;
    if (a->stage_id != b->stage_id) return a->stage_id < b->stage_id ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

struct order { int64_t id; size_t row; };

static int order_cmp(const void *pa, const void *pb)
{
    const struct order *a = pa, *b = pb;
    return (a->id > b->id) - (a->id < b->id);
}

/* Is job row j a better owner than the current one (cur, -1 none) for a stage first
 * launched at t? */
static bool better_owner(const struct clarity_app *a, long cur, size_t j, int64_t t)
{
    if (cur < 0) return true;
    const struct clarity_job *x = &a->jobs[j], *y = &a->jobs[cur];
    bool xe = x->submit_ms > 0 && x->submit_ms <= t, ye = y->submit_ms > 0 && y->submit_ms <= t;
    if (xe != ye) return xe;
    if (xe && x->submit_ms != y->submit_ms) return x->submit_ms > y->submit_ms;
    return x->job_id < y->job_id;
}

static long *stage_owners(const struct clarity_app *a, const struct clarity_task_comps *c)
{
    size_t ns = a->nstages;
    long *owner = malloc((ns ? ns : 1) * sizeof *owner);
    int64_t *first = malloc((ns ? ns : 1) * sizeof *first);
    struct sid_row *ids = malloc((ns ? ns : 1) * sizeof *ids);
    if (!owner || !first || !ids) { free(owner); free(first); free(ids); return NULL; }
    for (size_t s = 0; s < ns; s++) {
        owner[s] = -1;
        first[s] = INT64_MAX;
        ids[s] = (struct sid_row){a->stages[s].stage_id, s};
    }
    for (size_t i = 0; i < c->n; i++)
        if (c->t[i].launch_ms < first[c->t[i].stage]) first[c->t[i].stage] = c->t[i].launch_ms;
    qsort(ids, ns, sizeof *ids, sid_cmp);
    for (size_t j = 0; j < a->njobs; j++) {
        const struct clarity_job *job = &a->jobs[j];
        for (size_t k = 0; k < job->nstage_ids; k++) {
            size_t lo = 0, hi = ns;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (ids[mid].stage_id < job->stage_ids[k]) lo = mid + 1; else hi = mid;
            }
            for (; lo < ns && ids[lo].stage_id == job->stage_ids[k]; lo++) {
                size_t s = ids[lo].row;
                if (better_owner(a, owner[s], j, first[s])) owner[s] = (long)j;
            }
        }
    }
    /* Stage Infos may name a job the Stage IDs list missed (or the reverse): take both. */
    for (size_t s = 0; s < ns; s++)
        for (size_t k = 0; k < a->stages[s].njob_ids; k++) {
            const struct clarity_job *job = clarity_app_job(a, a->stages[s].job_ids[k]);
            if (job && better_owner(a, owner[s], (size_t)(job - a->jobs), first[s])) owner[s] = job - a->jobs;
        }
    free(first);
    free(ids);
    return owner;
}

static size_t count_stages(const struct clarity_task_comps *c, const size_t *tasks, size_t n, unsigned *stamp,
                           unsigned mark)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t s = c->t[tasks[i]].stage;
        if (stamp[s] != mark) { stamp[s] = mark; k++; }
    }
    return k;
}

int clarity_groups_build(const struct clarity_app *a, const struct clarity_task_comps *c, int kinds,
                         struct clarity_groups *out, struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    size_t ng = ((kinds & CLARITY_GROUP_JOB) ? a->njobs : 0) + ((kinds & CLARITY_GROUP_SQL) ? a->nsqls : 0) +
                ((kinds & CLARITY_GROUP_APP) ? 1 : 0);
    long *owner = stage_owners(a, c);
    long *sql_of_job = malloc((a->njobs ? a->njobs : 1) * sizeof *sql_of_job);
    unsigned *stamp = calloc(a->nstages ? a->nstages : 1, sizeof *stamp);
    out->g = calloc(ng ? ng : 1, sizeof *out->g);
    /* each task appears at most once per kind */
    out->pool = malloc((3 * c->n + 1) * sizeof *out->pool);
    struct order *ord = malloc(((a->njobs > a->nsqls ? a->njobs : a->nsqls) + 1) * sizeof *ord);
    size_t *count = calloc(a->njobs + a->nsqls + 1, sizeof *count);
    if (!owner || !sql_of_job || !stamp || !out->g || !out->pool || !ord || !count) {
        goto oom;
    }
    for (size_t j = 0; j < a->njobs; j++) {
        const struct clarity_sql *q = a->jobs[j].sql_id >= 0 ? clarity_app_sql(a, a->jobs[j].sql_id) : NULL;
        sql_of_job[j] = q ? q - a->sqls : -1;
    }
    size_t used = 0;
    unsigned mark = 0;
    /* jobs */
    if (kinds & CLARITY_GROUP_JOB) {
        for (size_t i = 0; i < c->n; i++) {
            long j = owner[c->t[i].stage];
            if (j >= 0) count[j]++;
        }
        for (size_t j = 0; j < a->njobs; j++) ord[j] = (struct order){a->jobs[j].job_id, j};
        qsort(ord, a->njobs, sizeof *ord, order_cmp);
        size_t *off = malloc((a->njobs + 1) * sizeof *off);
        if (!off) goto oom;
        for (size_t j = 0; j < a->njobs; j++) { off[j] = used; used += count[j]; }
        size_t *fill = calloc(a->njobs + 1, sizeof *fill);
        if (!fill) { free(off); goto oom; }
        for (size_t i = 0; i < c->n; i++) {
            long j = owner[c->t[i].stage];
            if (j >= 0) out->pool[off[j] + fill[j]++] = i;
        }
        for (size_t k = 0; k < a->njobs; k++) {
            size_t j = ord[k].row;
            struct clarity_group *g = &out->g[out->n++];
            *g = (struct clarity_group){CLARITY_GROUP_JOB, a->jobs[j].job_id, j, out->pool + off[j], count[j], 0};
            g->nstages = count_stages(c, g->tasks, g->ntasks, stamp, ++mark);
        }
        free(off);
        free(fill);
    }
    if (kinds & CLARITY_GROUP_SQL) {
        size_t *qcount = count + a->njobs;
        for (size_t i = 0; i < c->n; i++) {
            long j = owner[c->t[i].stage];
            if (j >= 0 && sql_of_job[j] >= 0) qcount[sql_of_job[j]]++;
        }
        size_t *off = malloc((a->nsqls + 1) * sizeof *off), *fill = calloc(a->nsqls + 1, sizeof *fill);
        if (!off || !fill) { free(off); free(fill); goto oom; }
        for (size_t q = 0; q < a->nsqls; q++) { off[q] = used; used += qcount[q]; }
        for (size_t i = 0; i < c->n; i++) {
            long j = owner[c->t[i].stage];
            if (j >= 0 && sql_of_job[j] >= 0) out->pool[off[sql_of_job[j]] + fill[sql_of_job[j]]++] = i;
        }
        for (size_t q = 0; q < a->nsqls; q++) ord[q] = (struct order){a->sqls[q].id, q};
        qsort(ord, a->nsqls, sizeof *ord, order_cmp);
        for (size_t k = 0; k < a->nsqls; k++) {
            size_t q = ord[k].row;
            struct clarity_group *g = &out->g[out->n++];
            *g = (struct clarity_group){CLARITY_GROUP_SQL, a->sqls[q].id, q, out->pool + off[q], qcount[q], 0};
            g->nstages = count_stages(c, g->tasks, g->ntasks, stamp, ++mark);
        }
        free(off);
        free(fill);
    }
    if (kinds & CLARITY_GROUP_APP) {
        struct clarity_group *g = &out->g[out->n++];
        *g = (struct clarity_group){CLARITY_GROUP_APP, 0, 0, out->pool + used, c->n, 0};
        for (size_t i = 0; i < c->n; i++) out->pool[used + i] = i;
        used += c->n;
        g->nstages = count_stages(c, g->tasks, g->ntasks, stamp, ++mark);
    }
    free(owner); free(sql_of_job); free(stamp); free(ord); free(count);
    return 0;
oom:
    free(owner); free(sql_of_job); free(stamp); free(ord); free(count);
    clarity_groups_free(out);
    return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory grouping tasks");
}

void clarity_groups_free(struct clarity_groups *g)
{
    free(g->g);
    free(g->pool);
    memset(g, 0, sizeof *g);
}
