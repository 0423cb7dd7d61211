/* One run's figures for the diff, in one pass over its task table: per stage (all attempts of
 * a stage id together), per job and SQL query (the stages they ran), per host and for the
 * whole application. Linear in tasks plus a sort of stages and of (stage, executor) pairs. */
#include <stdlib.h>
#include <string.h>
#include "clarity/sim.h"
#include "util/checked.h"
#include "analysis/diff/diff_internal.h"

static void side_add(struct clarity_diff_side *d, const struct clarity_diff_side *s)
{
    d->tasks = clarity_sat_add(d->tasks, s->tasks);
    d->task_ms = clarity_sat_add(d->task_ms, s->task_ms);
    for (int c = 0; c < CLARITY_DC_COUNT; c++) d->comp_ms[c] += s->comp_ms[c];
    for (int k = 0; k < CLARITY_DD_COUNT; k++) d->data[k] = clarity_sat_add(d->data[k], s->data[k]);
    if (s->executors > d->executors) d->executors = s->executors;
    d->cpu_logged |= s->cpu_logged;
}

static void task_add(struct clarity_diff_side *d, const struct clarity_app *a, const struct clarity_task_comp *c)
{
    d->tasks++;
    /* sums saturate: a damaged log can hold int64-extreme values (the integrity report flags them) */
    d->task_ms = clarity_sat_add(d->task_ms, c->runtime_ms < 9e18 ? (int64_t)c->runtime_ms : INT64_MAX);
    double cpu = c->cpu_logged ? c->cpu_ms : 0;
    d->cpu_logged |= c->cpu_logged;
    d->comp_ms[CLARITY_DC_CPU] += cpu;
    d->comp_ms[CLARITY_DC_GC] += c->gc_ms;
    d->comp_ms[CLARITY_DC_FETCH_WAIT] += c->fetch_wait_ms;
    d->comp_ms[CLARITY_DC_SHUFFLE_WRITE] += c->shuffle_write_ms;
    d->comp_ms[CLARITY_DC_SCHED_DELAY] += c->sched_delay_ms;
    d->comp_ms[CLARITY_DC_DESER] += c->deser_ms + c->result_ser_ms + c->getting_result_ms;
    double other = c->run_ms - cpu - c->gc_ms - c->fetch_wait_ms - c->shuffle_write_ms;
    d->comp_ms[CLARITY_DC_OTHER] += other > 0 ? other : 0;
    d->data[CLARITY_DD_INPUT_BYTES] = clarity_sat_add(d->data[CLARITY_DD_INPUT_BYTES], c->input_bytes);
    d->data[CLARITY_DD_INPUT_RECORDS] = clarity_sat_add(d->data[CLARITY_DD_INPUT_RECORDS], c->input_records);
    d->data[CLARITY_DD_OUTPUT_BYTES] = clarity_sat_add(d->data[CLARITY_DD_OUTPUT_BYTES], c->output_bytes);
    d->data[CLARITY_DD_OUTPUT_RECORDS] = clarity_sat_add(d->data[CLARITY_DD_OUTPUT_RECORDS], clarity_task_metric(a, c->row, CLARITY_TM_OUTPUT_RECORDS));
    d->data[CLARITY_DD_SR_BYTES] = clarity_sat_add(d->data[CLARITY_DD_SR_BYTES], c->shuffle_read_bytes);
    d->data[CLARITY_DD_SR_RECORDS] = clarity_sat_add(d->data[CLARITY_DD_SR_RECORDS], c->shuffle_read_records);
    d->data[CLARITY_DD_SW_BYTES] = clarity_sat_add(d->data[CLARITY_DD_SW_BYTES], c->shuffle_write_bytes);
    d->data[CLARITY_DD_SW_RECORDS] = clarity_sat_add(d->data[CLARITY_DD_SW_RECORDS], clarity_task_metric(a, c->row, CLARITY_TM_SW_RECORDS));
    d->data[CLARITY_DD_MEM_SPILL] = clarity_sat_add(d->data[CLARITY_DD_MEM_SPILL], clarity_task_metric(a, c->row, CLARITY_TM_MEM_SPILLED));
    d->data[CLARITY_DD_DISK_SPILL] = clarity_sat_add(d->data[CLARITY_DD_DISK_SPILL], clarity_task_metric(a, c->row, CLARITY_TM_DISK_SPILLED));
}

/* stage rows by (stage id, attempt) */
static int by_stage_r(const void *p, const void *q, void *ctx)
{
    const struct clarity_app *a = ctx;
    const struct clarity_stage *x = &a->stages[*(const uint32_t *)p], *y = &a->stages[*(const uint32_t *)q];
    if (x->stage_id != y->stage_id) return x->stage_id < y->stage_id ? -1 : 1;
    return (x->attempt > y->attempt) - (x->attempt < y->attempt);
}

static int cmp_u64(const void *p, const void *q)
{
    uint64_t x = *(const uint64_t *)p, y = *(const uint64_t *)q;
    return (x > y) - (x < y);
}

static int64_t span(int64_t from, int64_t to)
{
    int64_t d;
    if (!from || !to || __builtin_sub_overflow(to, from, &d) || d < 0) return -1;
    return d;
}

static int stages(const struct clarity_app *a, struct diff_strs *t, struct diff_run *r, uint32_t *row2grp)
{
    uint32_t *idx = malloc((a->nstages ? a->nstages : 1) * sizeof *idx);
    r->st_key = calloc(a->nstages ? a->nstages : 1, sizeof *r->st_key);
    r->st = calloc(a->nstages ? a->nstages : 1, sizeof *r->st);
    if (!idx || !r->st_key || !r->st) {
        free(idx);
        return CLARITY_ENOMEM;
    }
    for (size_t i = 0; i < a->nstages; i++) idx[i] = (uint32_t)i, row2grp[i] = UINT32_MAX;
    qsort_r(idx, a->nstages, sizeof *idx, by_stage_r, (void *)a);
    for (size_t i = 0; i < a->nstages;) {
        size_t j = i;
        bool ran = false;
        int64_t from = 0, to = 0;
        while (j < a->nstages && a->stages[idx[j]].stage_id == a->stages[idx[i]].stage_id) {
            const struct clarity_stage *s = &a->stages[idx[j]];
            if (s->status != CLARITY_STAGE_SKIPPED) ran = true;
            if (s->submit_ms && (!from || s->submit_ms < from)) from = s->submit_ms;
            if (s->complete_ms > to) to = s->complete_ms;
            j++;
        }
        if (ran) {
            size_t g = r->nst++;
            const struct clarity_stage *s0 = &a->stages[idx[i]];
            r->st_key[g] = (struct clarity_match_key){.name = clarity__diff_str(t, s0->name), .id = s0->stage_id};
            if (!r->st_key[g].name) {
                free(idx);
                return CLARITY_ENOMEM;
            }
            r->st[g].wall_ms = span(from, to);
            for (size_t k = i; k < j; k++) row2grp[idx[k]] = (uint32_t)g;
        }
        i = j;
    }
    free(idx);
    return 0;
}

/* distinct executors per stage group and for the application, from (group, executor) pairs */
static int executors(const struct clarity_app *a, struct diff_run *r, const uint32_t *row2grp)
{
    size_t n = a->tasks.n, m = 0;
    uint64_t *p = malloc((n ? n : 1) * sizeof *p);
    if (!p) return CLARITY_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (!(clarity_task_flags(a, i) & CLARITY_TF_ENDED)) continue;
        uint32_t g = row2grp[clarity_icol_get(&a->tasks.stage, i)];
        if (g != UINT32_MAX) p[m++] = (uint64_t)g << 32 | (uint32_t)clarity_icol_get(&a->tasks.executor, i);
    }
    qsort(p, m, sizeof *p, cmp_u64);
    for (size_t i = 0; i < m; i++)
        if (!i || p[i] != p[i - 1]) r->st[p[i] >> 32].executors++;
    for (size_t i = 0; i < m; i++) p[i] &= 0xffffffffu;
    qsort(p, m, sizeof *p, cmp_u64);
    for (size_t i = 0; i < m; i++)
        if (!i || p[i] != p[i - 1]) r->app.executors++;
    free(p);
    return 0;
}

static int by_host_name(const void *p, const void *q)
{
    return strcmp(((const struct diff_host_acc *)p)->name, ((const struct diff_host_acc *)q)->name);
}

static int tasks(const struct clarity_app *a, struct diff_strs *t, struct diff_run *r, const uint32_t *row2grp)
{
    struct clarity_idmap hix = {0};
    size_t cap = 16;
    r->host = malloc(cap * sizeof *r->host);
    if (!r->host) return CLARITY_ENOMEM;
    for (size_t i = 0; i < a->tasks.n; i++) {
        if (!(clarity_task_flags(a, i) & CLARITY_TF_ENDED)) continue;
        struct clarity_task_comp c;
        clarity_task_comp_from_row(a, i, &c);
        uint32_t g = row2grp[c.stage];
        if (g != UINT32_MAX) task_add(&r->st[g], a, &c);
        task_add(&r->app, a, &c);
        uint32_t h;
        if (!clarity_idmap_get(&hix, c.host, &h)) {
            if (r->nhost == cap) {
                struct diff_host_acc *n = realloc(r->host, 2 * cap * sizeof *n);
                if (!n) goto oom;
                r->host = n, cap *= 2;
            }
            h = (uint32_t)r->nhost++;
            r->host[h] = (struct diff_host_acc){.host = c.host, .name = clarity__diff_str(t, c.host)};
            if (!r->host[h].name || clarity_idmap_put(&hix, c.host, h)) goto oom;
        }
        r->host[h].tasks++;
        /* GC out: memory pressure lengthens GC unevenly across hosts, which is not a slow host */
        r->host[h].run_ms += c.run_ms > c.gc_ms ? c.run_ms - c.gc_ms : 0;
        r->host[h].cpu_ms += c.cpu_logged ? c.cpu_ms : 0;
        r->host[h].cpu_logged |= c.cpu_logged;
    }
    clarity_idmap_free(&hix);
    qsort(r->host, r->nhost, sizeof *r->host, by_host_name);
    return 0;
oom:
    clarity_idmap_free(&hix);
    return CLARITY_ENOMEM;
}

/* Jobs get the stages they submitted (a stage's first job), SQL queries their jobs. */
static int groups(const struct clarity_app *a, struct diff_strs *t, struct diff_run *r, const uint32_t *row2grp)
{
    r->njob = a->njobs;
    r->nsql = a->nsqls;
    r->job_key = calloc(a->njobs ? a->njobs : 1, sizeof *r->job_key);
    r->job = calloc(a->njobs ? a->njobs : 1, sizeof *r->job);
    r->sql_key = calloc(a->nsqls ? a->nsqls : 1, sizeof *r->sql_key);
    r->sql = calloc(a->nsqls ? a->nsqls : 1, sizeof *r->sql);
    if (!r->job_key || !r->job || !r->sql_key || !r->sql) return CLARITY_ENOMEM;
    for (size_t j = 0; j < a->njobs; j++) {
        const struct clarity_job *jb = &a->jobs[j];
        r->job_key[j] = (struct clarity_match_key){.name = clarity__diff_str(t, jb->name), .id = jb->job_id};
        if (!r->job_key[j].name) return CLARITY_ENOMEM;
        r->job[j].wall_ms = clarity_job_duration_ms(a, jb);
    }
    for (size_t q = 0; q < a->nsqls; q++) {
        const struct clarity_sql *s = &a->sqls[q];
        r->sql_key[q] = (struct clarity_match_key){.name = clarity__diff_str(t, s->description),
                                                  .shape = clarity_diff_plan_shape(clarity_app_str(a, s->plan)),
                                                  .id = s->id};
        if (!r->sql_key[q].name) return CLARITY_ENOMEM;
        r->sql[q].wall_ms = span(s->start_ms, s->end_ms);
    }
    /* each stage group once, through the first job of the first of its rows met */
    bool *seen = calloc(r->nst ? r->nst : 1, sizeof *seen);
    if (!seen) return CLARITY_ENOMEM;
    for (size_t i = 0; i < a->nstages; i++) {
        uint32_t g = row2grp[i];
        const struct clarity_stage *s = &a->stages[i];
        if (g == UINT32_MAX || seen[g]) continue;
        seen[g] = true;
        int64_t first = -1;
        for (size_t k = 0; k < s->njob_ids; k++)
            if (first < 0 || s->job_ids[k] < first) first = s->job_ids[k];
        const struct clarity_job *jb = first >= 0 ? clarity_app_job(a, first) : NULL;
        if (!jb) continue;
        side_add(&r->job[jb - a->jobs], &r->st[g]);
    }
    free(seen);
    for (size_t j = 0; j < a->njobs; j++) {
        const struct clarity_sql *s = a->jobs[j].sql_id >= 0 ? clarity_app_sql(a, a->jobs[j].sql_id) : NULL;
        if (s) side_add(&r->sql[s - a->sqls], &r->job[j]);
    }
    return 0;
}

const char *clarity__diff_str(struct diff_strs *t, uint32_t id)
{
    uint32_t k;
    if (clarity_idmap_get(&t->ix, id, &k)) return t->s[k];
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        const char **n = realloc(t->s, cap * sizeof *n);
        if (!n) return NULL;
        t->s = n, t->cap = cap;
    }
    const char *v = clarity_app_str(t->a, id);
    char *c = clarity_arena_strdup(t->arena, v);
    if (!c || clarity_idmap_put(&t->ix, id, (uint32_t)t->n)) return NULL;
    t->s[t->n++] = c;
    return c;
}

int clarity__diff_run_build(const struct clarity_app *a, struct diff_strs *t, struct diff_run *r)
{
    memset(r, 0, sizeof *r);
    uint32_t *row2grp = malloc((a->nstages ? a->nstages : 1) * sizeof *row2grp);
    if (!row2grp) return CLARITY_ENOMEM;
    int rc = stages(a, t, r, row2grp);
    if (!rc) rc = tasks(a, t, r, row2grp);
    if (!rc) rc = executors(a, r, row2grp);
    if (!rc) rc = groups(a, t, r, row2grp);
    free(row2grp);
    if (rc) return rc;
    r->app.wall_ms = clarity_app_duration_ms(a);
    /* executors added, their cores and hosts (the driver only in local mode, where it runs the tasks) */
    uint64_t *hosts = malloc((a->nexecs ? a->nexecs : 1) * sizeof *hosts);
    if (!hosts) return CLARITY_ENOMEM;
    size_t nh = 0;
    for (size_t e = 0; e < a->nexecs; e++) {
        const struct clarity_executor *x = &a->execs[e];
        if (x->is_driver) continue;
        r->execs++;
        if (x->total_cores > 0) r->cores = clarity_sat_add(r->cores, x->total_cores);
        hosts[nh++] = x->host;
    }
    if (!r->execs) {
        int32_t lc = clarity_app_local_cores(a);
        if (lc > 0) r->execs = 1, r->cores = lc, r->hosts = 1;
    }
    qsort(hosts, nh, sizeof *hosts, cmp_u64);
    for (size_t i = 0; i < nh; i++)
        if (!i || hosts[i] != hosts[i - 1]) r->hosts++;
    free(hosts);
    return 0;
}

void clarity__diff_run_free(struct diff_run *r)
{
    free(r->st_key);
    free(r->st);
    free(r->job_key);
    free(r->job);
    free(r->sql_key);
    free(r->sql);
    free(r->host);
    memset(r, 0, sizeof *r);
}
