/* The page's view of an application, computed once: executor rows (the driver in local mode,
 * plus a row for any executor tasks name but no ExecutorAdded announced), stage spans with
 * their task counts and critical-path mark, and busy and available cores per time bucket. */
#include <stdlib.h>
#include <string.h>
#include "report/html/html_internal.h"

static int64_t rel(const struct html_view *v, int64_t ms) { return ms ? clarity__html_rel(ms, v->t0) : 0; }

static int add_exec(struct html_view *v, size_t *cap, size_t row, uint32_t name, int cores, int64_t add, int64_t rm)
{
    if (v->nex == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        struct html_exec *x = realloc(v->ex, nc * sizeof *x);
        if (!x) return -1;
        v->ex = x;
        *cap = nc;
    }
    v->ex[v->nex] = (struct html_exec){.row = row, .cores = cores < 1 ? 1 : cores, .add_ms = add, .remove_ms = rm};
    if (name < v->nstr) v->exec_of_str[name] = (uint32_t)(v->nex + 1);
    v->nex++;
    return 0;
}

static struct html_stage *new_stage(struct html_view *v, size_t *cap)
{
    if (v->nst == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        struct html_stage *x = realloc(v->st, nc * sizeof *x);
        if (!x) return NULL;
        v->st = x;
        *cap = nc;
    }
    return &v->st[v->nst];
}

/* adds the overlap of [from, to) (ms from t0) times weight to the buckets */
static void spread(double *b, const struct html_view *v, double from, double to, double weight)
{
    if (to <= from) return;
    if (from < 0) from = 0;
    double end = (double)v->span_ms;
    if (to > end) to = end;
    if (to <= from) return;
    size_t i = (size_t)(from / v->bucket_ms), j = (size_t)(to / v->bucket_ms);
    if (i >= HTML_BUCKETS) return;
    if (j >= HTML_BUCKETS) j = HTML_BUCKETS - 1;
    for (size_t k = i; k <= j; k++) {
        double lo = k * v->bucket_ms, hi = lo + v->bucket_ms;
        double o = (to < hi ? to : hi) - (from > lo ? from : lo);
        if (o > 0) b[k] += weight * o / v->bucket_ms;
    }
}

int clarity__html_view_build(const struct clarity_html_app *p, struct html_view *v, struct clarity_error *err)
{
    const struct clarity_app *a = p->app;
    memset(v, 0, sizeof *v);
    v->p = p;
    v->a = a;
    size_t n = a->tasks.n;
    int64_t first = INT64_MAX, last = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t l = clarity_task_launch_ms(a, i), f = clarity_task_finish_ms(a, i);
        if (l < first) first = l;
        if (f > last) last = f;
        if (l > last) last = l;
    }
    v->t0 = a->start_ms ? a->start_ms : first != INT64_MAX ? first : 0;
    int64_t end = a->end_ms > 0 ? a->end_ms : clarity_app_last_time_ms(a);
    if (last > end) end = last;
    int64_t span = clarity__html_rel(end, v->t0);
    v->span_ms = span > 0 ? span : 1;
    v->bucket_ms = (double)v->span_ms / HTML_BUCKETS;
    v->heat = n > (p->max_task_bars ? p->max_task_bars : 20000);
    v->local_cores = clarity_app_local_cores(a);
    v->nstr = a->strs.n;
    v->exec_of_str = calloc(v->nstr ? v->nstr : 1, sizeof *v->exec_of_str);
    v->stage_idx = calloc(a->nstages ? a->nstages : 1, sizeof *v->stage_idx);
    v->busy = calloc(HTML_BUCKETS, sizeof *v->busy);
    v->avail = calloc(HTML_BUCKETS, sizeof *v->avail);
    if (!v->exec_of_str || !v->stage_idx || !v->busy || !v->avail) goto oom;

    /* executors: the driver only in local mode (no other executor) */
    int cpus = clarity_sim_task_cpus(a);
    size_t cap = 0, scap = 0, others = 0;
    for (size_t e = 0; e < a->nexecs; e++) others += !a->execs[e].is_driver;
    for (size_t e = 0; e < a->nexecs; e++) {
        const struct clarity_executor *x = &a->execs[e];
        if (x->is_driver && others) continue;
        int cores = x->total_cores > 0 ? x->total_cores : x->is_driver ? v->local_cores : 1;
        if (add_exec(v, &cap, e, x->id, cores / (cpus > 0 ? cpus : 1), x->add_ms ? rel(v, x->add_ms) : 0,
                     x->remove_ms ? rel(v, x->remove_ms) : -1)) goto oom;
    }
    /* hosts a finding names (slow_host): their rows are marked */
    const struct clarity_findings *fs = p->findings;
    for (size_t k = 0; fs && k < fs->n; k++) {
        const struct clarity_finding *f = &fs->f[k];
        if (!(f->where & CLARITY_FW_HOST) || f->kind != CLARITY_FK_SLOW_HOST) continue;
        for (size_t e = 0; e < v->nex; e++)
            if (v->ex[e].row != SIZE_MAX && !strcmp(clarity_app_str(a, a->execs[v->ex[e].row].host), f->host))
                v->ex[e].slow_host = true;
    }

    /* tasks: executor rows, stage spans, busy cores */
    for (size_t i = 0; i < n; i++) {
        uint32_t ex = (uint32_t)clarity_icol_get(&a->tasks.executor, i);
        if (ex < v->nstr && !v->exec_of_str[ex]) {
            /* an executor the log never announced: a row of its own, slots as its tasks need */
            if (add_exec(v, &cap, SIZE_MAX, ex, 1, 0, -1)) goto oom;
        }
        if (ex < v->nstr) v->ex[v->exec_of_str[ex] - 1].tasks++;
        size_t s = (size_t)clarity_icol_get(&a->tasks.stage, i);
        if (s >= a->nstages) continue;
        if (!v->stage_idx[s]) {
            struct html_stage *x = new_stage(v, &scap);
            if (!x) goto oom;
            *x = (struct html_stage){.row = s, .start_ms = INT64_MAX, .end_ms = INT64_MIN, .job = -1, .sql = -1};
            v->stage_idx[s] = ++v->nst;
        }
        struct html_stage *st = &v->st[v->stage_idx[s] - 1];
        int64_t l = clarity__html_rel(clarity_task_launch_ms(a, i), v->t0), fl = clarity_task_flags(a, i);
        int64_t f = (fl & CLARITY_TF_ENDED) ? clarity__html_rel(clarity_task_finish_ms(a, i), v->t0) : v->span_ms;
        if (l < st->start_ms) st->start_ms = l;
        if (f > st->end_ms) st->end_ms = f;
        st->tasks++;
        st->failed += (fl & CLARITY_TF_FAILED) != 0;
        st->killed += (fl & CLARITY_TF_KILLED) != 0;
        st->speculative += (fl & CLARITY_TF_SPECULATIVE) != 0;
        if (clarity_icol_get(&a->tasks.end, i) == CLARITY_END_SUCCESS) {
            int64_t d = clarity_icol_get(&a->tasks.duration, i);
            if (d > st->longest_ms) st->longest_ms = d;
        }
        spread(v->busy, v, (double)l, (double)f, 1.0);
    }
    /* stages the log has times for but no task events (stage-level logs) */
    for (size_t s = 0; s < a->nstages; s++) {
        const struct clarity_stage *g = &a->stages[s];
        if (v->stage_idx[s] || !g->submit_ms || !g->complete_ms) continue;
        struct html_stage *x = new_stage(v, &scap);
        if (!x) goto oom;
        *x = (struct html_stage){.row = s, .start_ms = rel(v, g->submit_ms), .end_ms = rel(v, g->complete_ms),
                                            .job = -1, .sql = -1};
        v->stage_idx[s] = ++v->nst;
    }
    for (size_t k = 0; k < v->nst; k++) {
        struct html_stage *st = &v->st[k];
        const struct clarity_stage *g = &a->stages[st->row];
        if (g->njob_ids) {
            st->job = g->job_ids[0];
            const struct clarity_job *j = clarity_app_job(a, st->job);
            if (j) st->sql = j->sql_id;
        }
        if (st->end_ms < st->start_ms) st->end_ms = st->start_ms;
        st->critical = p->curve && p->curve->on_critical && p->curve->on_critical[st->row];
    }
    for (size_t e = 0; e < v->nex; e++) {
        const struct html_exec *x = &v->ex[e];
        spread(v->avail, v, (double)x->add_ms, x->remove_ms >= 0 ? (double)x->remove_ms : (double)v->span_ms, x->cores);
    }
    return 0;
oom:
    clarity__html_view_free(v);
    return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory building the HTML report");
}

void clarity__html_view_free(struct html_view *v)
{
    free(v->ex); free(v->exec_of_str); free(v->st); free(v->stage_idx); free(v->busy); free(v->avail);
    memset(v, 0, sizeof *v);
}
