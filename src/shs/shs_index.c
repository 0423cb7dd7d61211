/* The request's indexes (shs_index.h): counting sorts and sorted arrays with binary search,
 * so each costs O(n log n) at most to build and O(log n) to read. */
#include "shs/shs_index.h"
#include <stdlib.h>
#include <string.h>

/* ---- task rows by stage: a counting sort, stable, so rows stay ascending per stage ---- */

static int build_tasks(struct shs_index *x, const struct clarity_app *a)
{
    size_t n = a->tasks.n, ns = a->nstages;
    x->task_start = calloc(ns + 2, sizeof *x->task_start);
    x->task_rows = malloc((n ? n : 1) * sizeof *x->task_rows);
    if (!x->task_start || !x->task_rows) return -1;
    for (size_t i = 0; i < n; i++) x->task_start[clarity_icol_get(&a->tasks.stage, i) + 2]++;
    for (size_t s = 0; s < ns; s++) {
        if (x->task_start[s + 2] > x->max_stage_tasks) x->max_stage_tasks = x->task_start[s + 2];
        x->task_start[s + 2] += x->task_start[s + 1];
    }
    /* task_start[s + 1] is where stage s's rows go next; after the pass it is stage s's end,
     * which is where stage s + 1 starts */
    for (size_t i = 0; i < n; i++) x->task_rows[x->task_start[clarity_icol_get(&a->tasks.stage, i) + 1]++] = (uint32_t)i;
    return 0;
}

/* ---- the same groups by launch time ---- */

/* A row with its sort key (a launch time, a stage id), ordered by key, then row: the one
 * comparator of every index here. */
struct key_row { int64_t key; uint32_t row; };

static int cmp_key_row(const void *p, const void *q)
{
    const struct key_row *a = p, *b = q;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

static int build_launch(struct shs_index *x, const struct clarity_app *a)
{
    size_t n = a->tasks.n;
    x->task_rows_by_launch = malloc((n ? n : 1) * sizeof *x->task_rows_by_launch);
    struct key_row *tmp = malloc((x->max_stage_tasks ? x->max_stage_tasks : 1) * sizeof *tmp);
    if (!x->task_rows_by_launch || !tmp) {
        free(tmp);
        return -1;
    }
    for (size_t s = 0; s < a->nstages; s++) {
        size_t k, from = x->task_start[s];
        const uint32_t *rows = clarity__shs_stage_task_rows(x, s, &k);
        for (size_t i = 0; i < k; i++) tmp[i] = (struct key_row){clarity_task_launch_ms(a, rows[i]), rows[i]};
        qsort(tmp, k, sizeof *tmp, cmp_key_row);
        for (size_t i = 0; i < k; i++) x->task_rows_by_launch[from + i] = tmp[i].row;
    }
    free(tmp);
    return 0;
}

/* First position in rows[0..n) whose launch time is >= t (strict: > t). */
static size_t launch_bound(const struct clarity_app *a, const uint32_t *rows, size_t n, int64_t t, bool strict)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t v = clarity_task_launch_ms(a, rows[mid]);
        if (strict ? v <= t : v < t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

size_t clarity__shs_stage_tasks_in_window(const struct shs_index *x, size_t srow, int64_t submit_ms, int64_t end_ms,
                                          uint32_t *out)
{
    const struct clarity_app *a = x->app;
    size_t n = x->task_start[srow + 1] - x->task_start[srow], m = 0;
    const uint32_t *rows = x->task_rows_by_launch + x->task_start[srow];
    size_t lo = submit_ms > 0 ? launch_bound(a, rows, n, submit_ms, false) : 0;
    size_t hi = end_ms > 0 ? launch_bound(a, rows, n, end_ms, true) : n;
    for (size_t i = lo; i < hi; i++) out[m++] = rows[i];
    /* an unknown launch time (0) passes whatever the window; it lies below a positive submit */
    if (submit_ms > 0)
        for (size_t i = launch_bound(a, rows, n, 0, false), e = launch_bound(a, rows, n, 0, true); i < e; i++)
            out[m++] = rows[i];
    return m;
}

/* ---- stage rows by stage id ---- */


static int build_stage_ids(struct shs_index *x, const struct clarity_app *a)
{
    size_t ns = a->nstages;
    struct key_row *tmp = malloc((ns ? ns : 1) * sizeof *tmp);
    x->stage_by_id = malloc((ns ? ns : 1) * sizeof *x->stage_by_id);
    if (!tmp || !x->stage_by_id) {
        free(tmp);
        return -1;
    }
    for (size_t i = 0; i < ns; i++) tmp[i] = (struct key_row){a->stages[i].stage_id, (uint32_t)i};
    qsort(tmp, ns, sizeof *tmp, cmp_key_row);
    for (size_t i = 0; i < ns; i++) x->stage_by_id[i] = tmp[i].row;
    free(tmp);
    return 0;
}

const uint32_t *clarity__shs_stage_rows_of(const struct shs_index *x, int64_t stage_id, size_t *n)
{
    const struct clarity_app *a = x->app;
    size_t lo = 0, hi = a->nstages;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->stages[x->stage_by_id[mid]].stage_id < stage_id) lo = mid + 1;
        else hi = mid;
    }
    size_t e = lo;
    while (e < a->nstages && a->stages[x->stage_by_id[e]].stage_id == stage_id) e++;
    *n = e - lo;
    return x->stage_by_id + lo;
}

/* ---- accumulables ---- */

struct acc_key { uint32_t owner, pos; int64_t id; };

static int cmp_acc_key(const void *p, const void *q)
{
    const struct acc_key *a = p, *b = q;
    if (a->owner != b->owner) return a->owner < b->owner ? -1 : 1;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static int cmp_u64(const void *p, const void *q)
{
    uint64_t a = *(const uint64_t *)p, b = *(const uint64_t *)q;
    return (a > b) - (a < b);
}

static int build_accums(struct shs_index *x, const struct clarity_app *a)
{
    const struct clarity_accums *sa = &a->stage_accums, *ta = &a->task_accums;
    struct acc_key *keys = malloc((sa->n ? sa->n : 1) * sizeof *keys);
    uint64_t *tk = malloc((ta->n ? ta->n : 1) * sizeof *tk);
    x->stage_acc = malloc((sa->n ? sa->n : 1) * sizeof *x->stage_acc);
    x->task_acc = malloc((ta->n ? ta->n : 1) * sizeof *x->task_acc);
    int rc = -1;
    if (!keys || !tk || !x->stage_acc || !x->task_acc) goto out;
    size_t n = 0;
    for (size_t i = 0; i < sa->n; i++) {
        const struct clarity_accum *c = &sa->p[i];
        if (!c->internal && !c->is_sql) keys[n++] = (struct acc_key){c->owner, (uint32_t)i, c->id};
    }
    qsort(keys, n, sizeof *keys, cmp_acc_key);
    for (size_t i = 0; i < n; i++) x->stage_acc[i] = keys[i].pos;
    x->nstage_acc = n;
    n = 0;
    for (size_t i = 0; i < ta->n; i++)
        if (ta->p[i].owner < a->tasks.n) tk[n++] = (uint64_t)ta->p[i].owner << 32 | i;
    qsort(tk, n, sizeof *tk, cmp_u64);
    for (size_t i = 0; i < n; i++) x->task_acc[i] = (uint32_t)tk[i];
    x->ntask_acc = n;
    rc = 0;
out:
    free(keys);
    free(tk);
    return rc;
}

const uint32_t *clarity__shs_stage_accums_of(const struct shs_index *x, size_t srow, size_t *n)
{
    const struct clarity_accum *p = x->app->stage_accums.p;
    size_t lo = 0, hi = x->nstage_acc;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p[x->stage_acc[mid]].owner < srow) lo = mid + 1;
        else hi = mid;
    }
    size_t e = lo;
    while (e < x->nstage_acc && p[x->stage_acc[e]].owner == srow) e++;
    *n = e - lo;
    return x->stage_acc + lo;
}

size_t clarity__shs_task_accums_of(const struct shs_index *x, size_t row, size_t *first)
{
    const struct clarity_accum *p = x->app->task_accums.p;
    size_t lo = 0, hi = x->ntask_acc;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p[x->task_acc[mid]].owner < row) lo = mid + 1;
        else hi = mid;
    }
    size_t e = lo;
    while (e < x->ntask_acc && p[x->task_acc[e]].owner == row) e++;
    *first = lo < e ? x->task_acc[lo] : 0;
    return e - lo;
}

/* ---- building ---- */

int clarity__shs_index_build(struct shs_index *x, const struct clarity_app *a, unsigned what)
{
    memset(x, 0, sizeof *x);
    x->app = a;
    if (what & SHS_IX_LAUNCH) what |= SHS_IX_TASKS;
    int rc = 0;
    if (!rc && (what & SHS_IX_TASKS)) rc = build_tasks(x, a);
    if (!rc && (what & SHS_IX_LAUNCH)) rc = build_launch(x, a);
    if (!rc && (what & SHS_IX_STAGE_IDS)) rc = build_stage_ids(x, a);
    if (!rc && (what & SHS_IX_ACCUMS)) rc = build_accums(x, a);
    if (rc) clarity__shs_index_free(x);
    return rc;
}

void clarity__shs_index_free(struct shs_index *x)
{
    free(x->task_rows);
    free(x->task_start);
    free(x->task_rows_by_launch);
    free(x->stage_by_id);
    free(x->stage_acc);
    free(x->task_acc);
    memset(x, 0, sizeof *x);
}
