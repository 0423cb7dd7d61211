/* Recomputes from task rows what AppStatusListener accumulates while replaying: per stage
 * attempt counters and metric sums, per (stage, executor) summaries, per executor totals.
 * Rules follow onTaskStart/onTaskEnd: Success completes, TaskKilled and TaskCommitDenied
 * count as killed, every other reason as failed; metric deltas only exist for tasks whose
 * start was seen (a TaskEnd without TaskStart has no LiveTask); executor totals skip
 * Resubmitted. */
#include <stdlib.h>
#include <string.h>
#include "shs/shs_internal.h"
#include "util/stats.h"

void shs_counts_add(struct shs_counts *c, const char *text, int64_t n)
{
    if (!text) return;
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->p[i].text, text)) {
            c->p[i].n += n;
            return;
        }
    if (c->n == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 4;
        struct shs_count *np = realloc(c->p, ncap * sizeof *np);
        if (!np) return;
        c->p = np;
        c->cap = ncap;
    }
    char *t = strdup(text);
    if (!t) return;
    c->p[c->n].text = t;
    c->p[c->n++].n = n;
}

void shs_counts_write(struct jsonw *w, const char *key, const struct shs_counts *c)
{
    jsonw_key(w, key);
    jsonw_obj_begin(w);
    for (size_t i = 0; i < c->n; i++) jsonw_kint(w, c->p[i].text, c->p[i].n);
    jsonw_obj_end(w);
}

void shs_counts_free(struct shs_counts *c)
{
    for (size_t i = 0; i < c->n; i++) free(c->p[i].text);
    free(c->p);
    memset(c, 0, sizeof *c);
}

static void add_metrics(int64_t *dst, const struct clarity_app *a, size_t row)
{
    for (int m = 0; m < CLARITY_TM_COUNT; m++) dst[m] += clarity_task_metric(a, row, (enum clarity_tm)m);
}

/* Task rows grouped by stage row (counting sort), so per-stage work can use scratch arrays. */
static size_t *rows_by_stage(const struct clarity_app *a, size_t **start_out)
{
    size_t n = a->tasks.n, ns = a->nstages;
    size_t *start = calloc(ns + 1, sizeof *start);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!start || !order) {
        free(start);
        free(order);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) start[clarity_icol_get(&a->tasks.stage, i) + 1]++;
    for (size_t s = 0; s < ns; s++) start[s + 1] += start[s];
    size_t *fill = malloc((ns ? ns : 1) * sizeof *fill);
    if (!fill) {
        free(start);
        free(order);
        return NULL;
    }
    memcpy(fill, start, ns * sizeof *fill);
    for (size_t i = 0; i < n; i++) order[fill[clarity_icol_get(&a->tasks.stage, i)]++] = i;
    free(fill);
    *start_out = start;
    return order;
}

static struct shs_exec_stage *exec_stage(struct shs_stage_agg *s, uint32_t exec, size_t erow, size_t *slot)
{
    if (slot[erow]) return &s->ex[slot[erow] - 1];
    if (s->nex == s->capex) {
        size_t ncap = s->capex ? s->capex * 2 : 4;
        struct shs_exec_stage *np = realloc(s->ex, ncap * sizeof *np);
        if (!np) return NULL;
        s->ex = np;
        s->capex = ncap;
    }
    struct shs_exec_stage *e = &s->ex[s->nex++];
    memset(e, 0, sizeof *e);
    e->exec = exec;
    slot[erow] = s->nex;
    return e;
}

static void one_task(struct shs_agg *g, struct shs_stage_agg *s, size_t row, size_t *slot, int64_t *idx, size_t *nidx)
{
    const struct clarity_app *a = g->app;
    int64_t f = clarity_task_flags(a, row);
    bool started = f & CLARITY_TF_GOT_START, ended = f & CLARITY_TF_ENDED, spec = f & CLARITY_TF_SPECULATIVE;
    uint32_t exec = (uint32_t)clarity_icol_get(&a->tasks.executor, row);
    size_t erow = 0;
    bool have_exec = shs_exec_by_sid(a, exec, &erow) != NULL;
    struct shs_exec_agg *xa = have_exec ? &g->ex[erow] : NULL;
    if (started) {
        int64_t launch = clarity_task_launch_ms(a, row);
        if (launch < s->first_launch) s->first_launch = launch;
        if (!ended) s->active++;
        if (spec) {
            s->spec_tasks++;
            if (!ended) s->spec_active++;
        }
        if (xa) {
            xa->total++;
            if (!ended) xa->active++;
        }
    }
    if (!ended) return;
    int end = (int)clarity_icol_get(&a->tasks.end, row);
    int64_t dur = clarity_icol_get(&a->tasks.duration, row);
    bool ok = end == CLARITY_END_SUCCESS;
    bool killed = end == CLARITY_END_KILLED || end == CLARITY_END_COMMIT_DENIED;
    bool metrics = started && (f & CLARITY_TF_HAS_METRICS);
    s->had_task_end = true;
    if (ok) {
        s->completed++;
        idx[(*nidx)++] = clarity_icol_get(&a->tasks.index, row);
    } else if (killed) {
        s->killed++;
        char *k = shs_killed_key(g, row);
        shs_counts_add(&s->killed_summary, k, 1);
        free(k);
    } else {
        s->failed++;
    }
    if (metrics) add_metrics(s->m, a, row);
    if (spec) {
        s->spec_completed += ok;
        s->spec_killed += killed;
        s->spec_failed += !ok && !killed;
    }
    if (have_exec) {
        struct shs_exec_stage *es = exec_stage(s, exec, erow, slot);
        if (es) {
            es->task_time += dur;
            es->succeeded += ok;
            es->killed += killed;
            es->failed += !ok && !killed;
            if (metrics) add_metrics(es->m, a, row);
        }
    }
    if (xa) {
        xa->had_task_end = true;
        xa->completed += ok;
        xa->failed += !ok && !killed;
        xa->duration += dur;
        if ((f & CLARITY_TF_HAS_METRICS) && end != CLARITY_END_RESUBMITTED) {
            xa->gc += clarity_task_metric(a, row, CLARITY_TM_GC_MS);
            xa->input += clarity_task_metric(a, row, CLARITY_TM_INPUT_BYTES);
            xa->shuffle_read += clarity_task_metric(a, row, CLARITY_TM_SR_LOCAL_BYTES) +
                                clarity_task_metric(a, row, CLARITY_TM_SR_REMOTE_BYTES);
            xa->shuffle_write += clarity_task_metric(a, row, CLARITY_TM_SW_BYTES);
        }
    }
}

int shs_agg_build(struct shs_agg *g, const struct clarity_app *a)
{
    memset(g, 0, sizeof *g);
    g->app = a;
    size_t nt = a->tasks.n;
    g->st = calloc(a->nstages ? a->nstages : 1, sizeof *g->st);
    g->ex = calloc(a->nexecs ? a->nexecs : 1, sizeof *g->ex);
    g->reason_of_row = calloc(nt ? nt : 1, sizeof *g->reason_of_row);
    size_t *slot = calloc(a->nexecs ? a->nexecs : 1, sizeof *slot);
    int64_t *idx = malloc((nt ? nt : 1) * sizeof *idx);
    size_t *start = NULL, *order = rows_by_stage(a, &start);
    int rc = -1;
    if (!g->st || !g->ex || !g->reason_of_row || !slot || !idx || !order) goto out;
    for (size_t i = 0; i < a->ntask_reasons; i++)
        if (a->task_reasons[i].row < nt) g->reason_of_row[a->task_reasons[i].row] = a->task_reasons[i].reason_json;
    g->acc_first = calloc(nt ? nt : 1, sizeof *g->acc_first);
    g->acc_n = calloc(nt ? nt : 1, sizeof *g->acc_n);
    if (!g->acc_first || !g->acc_n) goto out;
    /* a task's accumulables are appended together at its TaskEnd */
    for (size_t i = a->task_accums.n; i-- > 0;) {
        uint32_t o = a->task_accums.p[i].owner;
        if (o >= nt) continue;
        g->acc_first[o] = i;
        g->acc_n[o]++;
    }
    for (size_t si = 0; si < a->nstages; si++) {
        struct shs_stage_agg *s = &g->st[si];
        s->first_launch = INT64_MAX;
        size_t nidx = 0;
        for (size_t k = start[si]; k < start[si + 1]; k++) one_task(g, s, order[k], slot, idx, &nidx);
        qsort(idx, nidx, sizeof *idx, clarity_cmp_i64);
        for (size_t k = 0; k < nidx; k++) s->completed_indices += k == 0 || idx[k] != idx[k - 1];
        for (size_t k = 0; k < s->nex; k++) {
            size_t erow;
            if (shs_exec_by_sid(a, s->ex[k].exec, &erow)) slot[erow] = 0;
        }
    }
    rc = 0;
out:
    free(slot);
    free(idx);
    free(start);
    free(order);
    if (rc) shs_agg_free(g);
    return rc;
}

void shs_agg_free(struct shs_agg *g)
{
    if (g->st && g->app)
        for (size_t i = 0; i < g->app->nstages; i++) {
            shs_counts_free(&g->st[i].killed_summary);
            free(g->st[i].ex);
        }
    free(g->st);
    free(g->ex);
    free(g->reason_of_row);
    free(g->acc_first);
    free(g->acc_n);
    memset(g, 0, sizeof *g);
}
