/* Jobs, SQL queries and the application as sets of stage attempts (and so of their
 * successful task attempts in the task view). */
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

/* owner job row of every stage attempt row, -1 none; NULL when out of memory */
static long *stage_owners(const struct clarity_task_view *v)
{
    const struct clarity_app *a = v->app;
    size_t ns = a->nstages;
    long *owner = malloc((ns ? ns : 1) * sizeof *owner);
    int64_t *first = malloc((ns ? ns : 1) * sizeof *first);
    struct sid_row *ids = malloc((ns ? ns : 1) * sizeof *ids);
    if (!owner || !first || !ids) { free(owner); free(first); free(ids); return NULL; }
    for (size_t s = 0; s < ns; s++) {
        owner[s] = -1;
        first[s] = INT64_MAX;
        ids[s] = (struct sid_row){a->stages[s].stage_id, s};
        const uint32_t *r = clarity_task_view_stage_rows(v, s);
        for (size_t k = 0, m = clarity_task_view_stage_size(v, s); k < m; k++) {
            int64_t t = clarity_task_launch_ms(a, r[k]);
            if (t < first[s]) first[s] = t;
        }
    }
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

/* Groups of one kind: key[s] (or -1) is the row, among nrows, of stage s's group; groups
 * are emitted in id order with their stages ascending, taken from pool at *used. */
static int emit(const struct clarity_task_view *v, int kind, const long *key, size_t nrows, const struct order *ord,
                struct clarity_groups *out, size_t *used)
{
    size_t ns = v->nstages;
    size_t *off = calloc(nrows + 1, sizeof *off), *ntasks = calloc(nrows + 1, sizeof *ntasks);
    if (!off || !ntasks) { free(off); free(ntasks); return -1; }
    for (size_t s = 0; s < ns; s++)
        if (key[s] >= 0 && clarity_task_view_stage_size(v, s)) {
            off[key[s] + 1]++;
            ntasks[key[s]] += clarity_task_view_stage_size(v, s);
        }
    for (size_t r = 0; r < nrows; r++) off[r + 1] += off[r];
    uint32_t *base = out->pool + *used;
    size_t *fill = calloc(nrows + 1, sizeof *fill);
    if (!fill) { free(off); free(ntasks); return -1; }
    for (size_t s = 0; s < ns; s++)
        if (key[s] >= 0 && clarity_task_view_stage_size(v, s)) base[off[key[s]] + fill[key[s]]++] = (uint32_t)s;
    for (size_t k = 0; k < nrows; k++) {
        size_t r = ord[k].row;
        out->g[out->n++] = (struct clarity_group){kind, ord[k].id, r, base + off[r], off[r + 1] - off[r], ntasks[r]};
    }
    *used += off[nrows];
    free(off); free(ntasks); free(fill);
    return 0;
}

int clarity_groups_build(const struct clarity_task_view *v, int kinds, struct clarity_groups *out,
                         struct clarity_error *err)
{
    const struct clarity_app *a = v->app;
    memset(out, 0, sizeof *out);
    size_t ns = a->nstages;
    size_t ng = ((kinds & CLARITY_GROUP_JOB) ? a->njobs : 0) + ((kinds & CLARITY_GROUP_SQL) ? a->nsqls : 0) +
                ((kinds & CLARITY_GROUP_APP) ? 1 : 0);
    long *owner = stage_owners(v);
    long *sql_of_stage = malloc((ns ? ns : 1) * sizeof *sql_of_stage);
    out->g = calloc(ng ? ng : 1, sizeof *out->g);
    out->pool = malloc((3 * ns + 1) * sizeof *out->pool);   /* a stage is in at most one group per kind */
    struct order *ord = malloc(((a->njobs > a->nsqls ? a->njobs : a->nsqls) + 1) * sizeof *ord);
    if (!owner || !sql_of_stage || !out->g || !out->pool || !ord) goto oom;
    size_t used = 0;
    if (kinds & CLARITY_GROUP_JOB) {
        for (size_t j = 0; j < a->njobs; j++) ord[j] = (struct order){a->jobs[j].job_id, j};
        qsort(ord, a->njobs, sizeof *ord, order_cmp);
        if (emit(v, CLARITY_GROUP_JOB, owner, a->njobs, ord, out, &used)) goto oom;
    }
    if (kinds & CLARITY_GROUP_SQL) {
        for (size_t s = 0; s < ns; s++) {
            const struct clarity_job *job = owner[s] >= 0 ? &a->jobs[owner[s]] : NULL;
            const struct clarity_sql *q = job && job->sql_id >= 0 ? clarity_app_sql(a, job->sql_id) : NULL;
            sql_of_stage[s] = q ? q - a->sqls : -1;
        }
        for (size_t q = 0; q < a->nsqls; q++) ord[q] = (struct order){a->sqls[q].id, q};
        qsort(ord, a->nsqls, sizeof *ord, order_cmp);
        if (emit(v, CLARITY_GROUP_SQL, sql_of_stage, a->nsqls, ord, out, &used)) goto oom;
    }
    if (kinds & CLARITY_GROUP_APP) {
        for (size_t s = 0; s < ns; s++) sql_of_stage[s] = 0;   /* every stage: the one row 0 */
        struct order app = {0, 0};
        if (emit(v, CLARITY_GROUP_APP, sql_of_stage, 1, &app, out, &used)) goto oom;
    }
    free(owner); free(sql_of_stage); free(ord);
    return 0;
oom:
    free(owner); free(sql_of_stage); free(ord);
    clarity_groups_free(out);
    return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory grouping tasks");
}

void clarity_groups_free(struct clarity_groups *g)
{
    free(g->g);
    free(g->pool);
    memset(g, 0, sizeof *g);
}
