/* What AppStatusListener accumulates while replaying, recomputed from task rows: per stage
 * attempt counters and metric sums, per (stage, executor) summaries, per executor and per job
 * totals.
 *
 * Why not model/aggregate.c (the summary's totals) for all of it: SHS counts differently.
 *  - It sorts an ended attempt by its end reason: Success completes it, TaskKilled and
 *    TaskCommitDenied kill it, every other reason (Resubmitted too) fails it. The summary
 *    reads Task Info's Failed/Killed flags, which call a commit-denied attempt failed and a
 *    resubmitted one succeeded.
 *  - Its metric sums only hold attempts whose TaskStart it saw (a TaskEnd without one has
 *    no LiveTask to carry the metrics); the summary sums every ended attempt.
 *  - An executor's metric totals skip Resubmitted (its metrics are the first attempt's).
 *  - A job counts only the stage attempts and tasks that ran while it was live.
 * Where the figure is the same, the summary's is used: an executor's totalDuration is the
 * summary's task_ms (every ended attempt on it, from launch to finish). */
#include <stdlib.h>
#include <string.h>
#include "util/checked.h"
#include "shs/shs_internal.h"
#include "util/stats.h"
#include "util/jsonw.h"

static uint64_t text_hash(const char *t)
{
    uint64_t h = 1469598103934665603ull;   /* FNV-1a */
    for (; *t; t++) h = (h ^ (unsigned char)*t) * 1099511628211ull;
    return h;
}

/* Doubles the slot table (from 16) and puts every count back. */
static int counts_rehash(struct shs_counts *c)
{
    size_t ns = c->nslots ? c->nslots * 2 : 16;
    uint32_t *sl = calloc(ns, sizeof *sl);
    if (!sl) return -1;
    for (size_t i = 0; i < c->n; i++) {
        size_t k = c->p[i].hash & (ns - 1);
        while (sl[k]) k = (k + 1) & (ns - 1);
        sl[k] = (uint32_t)i + 1;
    }
    free(c->slots);
    c->slots = sl;
    c->nslots = ns;
    return 0;
}

int clarity__shs_counts_add(struct shs_counts *c, const char *text, int64_t n)
{
    return clarity__shs_counts_add_ord(c, text, n, 0);
}

int clarity__shs_counts_add_ord(struct shs_counts *c, const char *text, int64_t n, uint64_t ord)
{
    if (!text) return 0;
    uint64_t h = text_hash(text);
    size_t k = c->nslots ? h & (c->nslots - 1) : 0;
    for (; c->nslots && c->slots[k]; k = (k + 1) & (c->nslots - 1)) {
        struct shs_count *x = &c->p[c->slots[k] - 1];
        if (x->hash == h && !strcmp(x->text, text)) {
            x->n += n;
            if (ord && (!x->ord || ord < x->ord)) x->ord = ord;
            return 0;
        }
    }
    if ((c->n + 1) * 2 > c->nslots && counts_rehash(c) != 0) return -1;
    if (c->n == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 4;
        struct shs_count *np = realloc(c->p, ncap * sizeof *np);
        if (!np) return -1;
        c->p = np;
        c->cap = ncap;
    }
    char *t = strdup(text);
    if (!t) return -1;
    c->p[c->n] = (struct shs_count){t, n, h, ord};
    for (k = h & (c->nslots - 1); c->slots[k]; k = (k + 1) & (c->nslots - 1)) {}
    c->slots[k] = (uint32_t)++c->n;
    return 0;
}

void clarity__shs_counts_write(struct jsonw *w, const char *key, const struct shs_counts *c)
{
    clarity_jsonw_key(w, key);
    clarity_jsonw_obj_begin(w);
    for (size_t i = 0; i < c->n; i++) clarity_jsonw_kint(w, c->p[i].text, c->p[i].n);
    clarity_jsonw_obj_end(w);
}

void clarity__shs_counts_free(struct shs_counts *c)
{
    for (size_t i = 0; i < c->n; i++) free(c->p[i].text);
    free(c->p);
    free(c->slots);
    memset(c, 0, sizeof *c);
}

/* Adds the row's killedTasksSummary key (if it has one) to c. */
static int count_killed(struct shs_counts *c, const struct clarity_app *a, size_t row, uint64_t ord)
{
    bool oom = false;
    char *k = clarity__shs_killed_key(a, row, &oom);
    int rc = oom || clarity__shs_counts_add_ord(c, k, 1, ord) != 0 ? -1 : 0;
    free(k);
    return rc;
}

static void add_metrics(int64_t *dst, const struct clarity_app *a, size_t row)
{
    for (int m = 0; m < CLARITY_TM_COUNT; m++) dst[m] = clarity_sat_add(dst[m], clarity__shs_task_metric(a, row, (enum clarity_tm)m));
}

static int64_t distinct_sorted(int64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, clarity_cmp_i64);
    int64_t d = 0;
    for (size_t k = 0; k < n; k++) d += k == 0 || v[k] != v[k - 1];
    return d;
}

struct shs_exec_stage *clarity__shs_exec_stage_add(struct shs_stage_agg *s, uint32_t exec)
{
    if (s->nex == s->capex) {
        /* from one slot: most stages run on few executors, and a log of 10^5-10^6 small jobs
         * has that many stages (four slots to start held ~1 KB per job that stayed empty) */
        size_t ncap = s->capex ? s->capex * 2 : 1;
        struct shs_exec_stage *np = realloc(s->ex, ncap * sizeof *np);
        if (!np) return NULL;
        s->ex = np;
        s->capex = ncap;
    }
    struct shs_exec_stage *e = &s->ex[s->nex++];
    memset(e, 0, sizeof *e);
    e->exec = exec;
    return e;
}

/* The row-order pass's sink: executor entries by executor row, successful task indices. */
struct row_sink {
    struct shs_stage_sink k;
    size_t *slot;
    int64_t *idx;
    size_t nidx;
};

static struct shs_exec_stage *row_exec_of(struct shs_stage_sink *k, struct shs_stage_agg *s, uint32_t exec, size_t erow)
{
    struct row_sink *rs = (struct row_sink *)k;
    if (rs->slot[erow]) return &s->ex[rs->slot[erow] - 1];
    struct shs_exec_stage *e = clarity__shs_exec_stage_add(s, exec);
    if (e) rs->slot[erow] = s->nex;
    return e;
}

static int row_completed(struct shs_stage_sink *k, int64_t index)
{
    struct row_sink *rs = (struct row_sink *)k;
    rs->idx[rs->nidx++] = index;
    return 0;
}

/* The executor's share of a task row: its totals and counters (AppStatusListener's
 * LiveExecutor). Rows come stage by stage, as the whole-application pass always took them. */
void clarity__shs_exec_task(struct shs_exec_agg *ex, const struct clarity_app *a, size_t row)
{
    size_t erow = 0;
    if (!clarity__shs_exec_by_sid(a, (uint32_t)clarity_icol_get(&a->tasks.executor, row), &erow)) return;
    struct shs_exec_agg *xa = &ex[erow];
    int64_t f = clarity_task_flags(a, row);
    bool started = f & CLARITY_TF_GOT_START, ended = f & CLARITY_TF_ENDED;
    clarity_totals_add_task(&xa->tot, a, row);
    if (started) {
        xa->total++;
        if (!ended) xa->active++;
    }
    if (!ended) return;
    int end = (int)clarity_icol_get(&a->tasks.end, row);
    bool ok = end == CLARITY_END_SUCCESS;
    bool killed = end == CLARITY_END_KILLED || end == CLARITY_END_COMMIT_DENIED;
    xa->had_task_end = true;
    xa->completed += ok;
    xa->failed += !ok && !killed;
    if ((f & CLARITY_TF_HAS_METRICS) && end != CLARITY_END_RESUBMITTED) {
        xa->gc = clarity_sat_add(xa->gc, clarity_task_metric(a, row, CLARITY_TM_GC_MS));
        xa->input = clarity_sat_add(xa->input, clarity_task_metric(a, row, CLARITY_TM_INPUT_BYTES));
        xa->shuffle_read = clarity_sat_add(xa->shuffle_read,
                                           clarity_sat_add(clarity_task_metric(a, row, CLARITY_TM_SR_LOCAL_BYTES),
                                                           clarity_task_metric(a, row, CLARITY_TM_SR_REMOTE_BYTES)));
        xa->shuffle_write = clarity_sat_add(xa->shuffle_write, clarity_task_metric(a, row, CLARITY_TM_SW_BYTES));
    }
}

/* The stage attempt's share of a task row (LiveStage and its per-executor summaries). */
int clarity__shs_stage_task(const struct clarity_app *a, struct shs_stage_agg *s, size_t row, struct shs_stage_sink *k)
{
    int64_t f = clarity_task_flags(a, row);
    bool started = f & CLARITY_TF_GOT_START, ended = f & CLARITY_TF_ENDED, spec = f & CLARITY_TF_SPECULATIVE;
    uint32_t exec = (uint32_t)clarity_icol_get(&a->tasks.executor, row);
    size_t erow = 0;
    bool have_exec = clarity__shs_exec_by_sid(a, exec, &erow) != NULL;
    if (started) {
        int64_t launch = clarity_task_launch_ms(a, row);
        if (launch < s->first_launch) s->first_launch = launch;
        if (!ended) s->active++;
        if (spec) {
            s->spec_tasks++;
            if (!ended) s->spec_active++;
        }
    }
    if (!ended) return 0;
    int end = (int)clarity_icol_get(&a->tasks.end, row);
    bool ok = end == CLARITY_END_SUCCESS;
    bool killed = end == CLARITY_END_KILLED || end == CLARITY_END_COMMIT_DENIED;
    bool metrics = started && (f & CLARITY_TF_HAS_METRICS);
    s->had_task_end = true;
    if (ok) {
        s->completed++;
        if (k->completed(k, clarity_icol_get(&a->tasks.index, row)) != 0) return -1;
    } else if (killed) {
        s->killed++;
        if (count_killed(&s->killed_summary, a, row, k->ord) != 0) return -1;
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
        struct shs_exec_stage *es = k->exec_of(k, s, exec, erow);
        if (!es) return -1;
        if (!es->ord || (k->ord && k->ord < es->ord)) es->ord = k->ord;
        es->task_time = clarity_sat_add(es->task_time, clarity_icol_get(&a->tasks.duration, row));
        es->succeeded += ok;
        es->killed += killed;
        es->failed += !ok && !killed;
        if (metrics) add_metrics(es->m, a, row);
    }
    return 0;
}

int clarity__shs_agg_build(struct shs_agg *g, const struct clarity_app *a, const struct shs_index *ix)
{
    memset(g, 0, sizeof *g);
    g->app = a;
    g->ix = ix;
    g->ex = calloc(a->nexecs ? a->nexecs : 1, sizeof *g->ex);
    if (!g->ex) return -1;
    g->fold = a->fold_result;
    if (g->fold) return clarity__shs_fold_exec_aggs(g->fold, g->ex, a->nexecs);
    for (size_t si = 0; si < a->nstages; si++) {
        size_t nrows;
        const uint32_t *rows = clarity__shs_stage_task_rows(ix, si, &nrows);
        for (size_t k = 0; k < nrows; k++) clarity__shs_exec_task(g->ex, a, rows[k]);
    }
    return 0;
}

/* One stage attempt at a time, when its answer is written: held for every stage at once
 * they took ~770 bytes a stage (the metric sums and one executor summary), 1.5 KB per job
 * on a log of many small jobs, more than the rest of the answer's memory. */
int clarity__shs_stage_agg(const struct shs_agg *g, size_t si, struct shs_stage_agg *s)
{
    if (g->fold) return clarity__shs_fold_stage_agg(g->fold, si, s);
    memset(s, 0, sizeof *s);
    s->first_launch = INT64_MAX;
    size_t nrows;
    const uint32_t *rows = clarity__shs_stage_task_rows(g->ix, si, &nrows);
    struct row_sink rs = {{row_exec_of, row_completed, 0}, NULL, NULL, 0};
    rs.slot = calloc(g->app->nexecs ? g->app->nexecs : 1, sizeof *rs.slot);
    rs.idx = malloc((nrows ? nrows : 1) * sizeof *rs.idx);
    int rc = -1;
    if (!rs.slot || !rs.idx) goto out;
    for (size_t k = 0; k < nrows; k++)
        if (clarity__shs_stage_task(g->app, s, rows[k], &rs.k) != 0) goto out;
    s->completed_indices = distinct_sorted(rs.idx, rs.nidx);
    rc = 0;
out:
    free(rs.slot);
    free(rs.idx);
    if (rc) clarity__shs_stage_agg_free(s);
    return rc;
}

void clarity__shs_stage_agg_free(struct shs_stage_agg *s)
{
    clarity__shs_counts_free(&s->killed_summary);
    free(s->ex);
    memset(s, 0, sizeof *s);
}

void clarity__shs_agg_free(struct shs_agg *g)
{
    free(g->ex);
    memset(g, 0, sizeof *g);
}

/* ---- jobs (JobData as LiveJob keeps it) ----
 * A job's task and stage counters come from the attempts of its stages that ran while it was
 * live; stages it declared that never ran are its skipped stages, and numTasks leaves out
 * stages already complete when it started (AppStatusListener.onJobStart counts only Stage
 * Infos without a completion time). */

static bool in_window(const struct clarity_job *j, int64_t t)
{
    if (j->submit_ms > 0 && t && t < j->submit_ms) return false;
    if (j->end_ms > 0 && t > j->end_ms) return false;
    return true;
}

static void job_stage_counts(const struct shs_agg *g, const struct clarity_job *j, const int64_t *sids, size_t nsids,
                             struct shs_job_agg *ja)
{
    const struct clarity_app *a = g->app;
    for (size_t k = 0; k < nsids; k++) {
        bool ran = false, completed = false, done_before = false;
        const struct clarity_stage *first = NULL;
        size_t nrows;
        const uint32_t *rows = clarity__shs_stage_rows_of(g->ix, sids[k], &nrows);
        for (size_t i = 0; i < nrows; i++) {
            const struct clarity_stage *s = &a->stages[rows[i]];
            if (!first || s->attempt < first->attempt) first = s;
            if (s->seen_completed && s->complete_ms && j->submit_ms > 0 && s->complete_ms <= j->submit_ms)
                done_before = true;
            if (!s->seen_submitted || !in_window(j, s->submit_ms)) continue;
            ran = true;
            if (s->status == CLARITY_STAGE_ACTIVE) ja->active_stages++;
            else if (s->status == CLARITY_STAGE_FAILED) ja->failed_stages++;
            else if (s->status == CLARITY_STAGE_COMPLETE) completed = true;
        }
        if (first && !done_before) ja->num_tasks = clarity_sat_add(ja->num_tasks, first->num_tasks);
        ja->completed_stages += completed;
        if (!ran && j->status != CLARITY_JOB_RUNNING && first) {
            ja->skipped_stages++;
            ja->skipped_tasks = clarity_sat_add(ja->skipped_tasks, first->num_tasks);
        }
    }
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* The job's stage ids, each once, ascending (a job may list one twice). */
static int64_t *distinct_stage_ids(const struct clarity_job *j, size_t *n)
{
    int64_t *v = malloc((j->nstage_ids ? j->nstage_ids : 1) * sizeof *v);
    if (!v) return NULL;
    if (j->nstage_ids) memcpy(v, j->stage_ids, j->nstage_ids * sizeof *v);
    qsort(v, j->nstage_ids, sizeof *v, clarity_cmp_i64);
    size_t m = 0;
    for (size_t i = 0; i < j->nstage_ids; i++)
        if (m == 0 || v[i] != v[m - 1]) v[m++] = v[i];
    *n = m;
    return v;
}

/* Tallies the job's tasks (rows, any order); killed ones are counted by reason afterwards in
 * row order, the order SHS's summary map takes its keys in. */
static int job_tasks(const struct clarity_app *a, const uint32_t *rows, size_t n, struct shs_job_agg *ja, int64_t *idx,
                     uint32_t *killed)
{
    size_t nidx = 0, nkilled = 0;
    for (size_t i = 0; i < n; i++) {
        size_t r = rows[i];
        int64_t f = clarity_task_flags(a, r);
        if (!(f & CLARITY_TF_ENDED)) {
            ja->active += (f & CLARITY_TF_GOT_START) != 0;
            continue;
        }
        int end = (int)clarity_icol_get(&a->tasks.end, r);
        if (end == CLARITY_END_SUCCESS) {
            ja->completed++;
            const struct clarity_stage *s = &a->stages[clarity_icol_get(&a->tasks.stage, r)];
            /* stage id and task index packed as SHS packs them (a Java long shift wraps: done
             * unsigned here, as a negative stage id shifted left is undefined in C) */
            idx[nidx++] = (int64_t)(((uint64_t)s->stage_id << 32) |
                                    ((uint64_t)clarity_icol_get(&a->tasks.index, r) & 0xffffffffu));
        } else if (end == CLARITY_END_KILLED || end == CLARITY_END_COMMIT_DENIED) {
            ja->killed++;
            killed[nkilled++] = (uint32_t)r;
        } else {
            ja->failed++;
        }
    }
    ja->completed_indices = distinct_sorted(idx, nidx);
    qsort(killed, nkilled, sizeof *killed, cmp_u32);
    for (size_t i = 0; i < nkilled; i++)
        if (count_killed(&ja->killed_summary, a, killed[i], 0) != 0) return -1;
    return 0;
}

int clarity__shs_job_agg(const struct shs_agg *g, const struct clarity_job *j, struct shs_job_agg *ja)
{
    const struct clarity_app *a = g->app;
    memset(ja, 0, sizeof *ja);
    size_t nsids = 0, cap = 0, n = 0;
    int64_t *sids = distinct_stage_ids(j, &nsids);
    if (!sids) return -1;
    job_stage_counts(g, j, sids, nsids, ja);
    if (g->fold) {
        int frc = clarity__shs_fold_job_tasks(g->fold, g->ix, j, sids, nsids, ja);
        if (frc) clarity__shs_counts_free(&ja->killed_summary);
        free(sids);
        return frc;
    }
    for (size_t k = 0; k < nsids; k++) {
        size_t nrows, nt;
        const uint32_t *srows = clarity__shs_stage_rows_of(g->ix, sids[k], &nrows);
        for (size_t i = 0; i < nrows; i++) cap += (clarity__shs_stage_task_rows(g->ix, srows[i], &nt), nt);
    }
    uint32_t *rows = malloc((cap ? cap : 1) * sizeof *rows), *killed = malloc((cap ? cap : 1) * sizeof *killed);
    int64_t *idx = malloc((cap ? cap : 1) * sizeof *idx);
    int rc = -1;
    if (!rows || !killed || !idx) goto out;
    for (size_t k = 0; k < nsids; k++) {
        size_t nrows;
        const uint32_t *srows = clarity__shs_stage_rows_of(g->ix, sids[k], &nrows);
        for (size_t i = 0; i < nrows; i++) n += clarity__shs_stage_tasks_in_window(g->ix, srows[i], j->submit_ms, j->end_ms, rows + n);
    }
    rc = job_tasks(a, rows, n, ja, idx, killed);
out:
    if (rc) clarity__shs_counts_free(&ja->killed_summary);
    free(sids);
    free(rows);
    free(killed);
    free(idx);
    return rc;
}
