/* Stage DAG helpers for Level-1 selection (all stages, or the critical path with
 * --critical-path): depth of each stage and the critical path. Edges point from a stage to the
 * stage that consumes its output. Every walk goes through adjacency lists (edges by child and by
 * parent, each in edge order), so a DAG costs its nodes plus edges: a unit can be a whole
 * application (--unit app) with tens of thousands of stages. */
#include <stdlib.h>
#include <string.h>
#include "clarity/contention.h"

/* Edge indices grouped by node: first[v]..first[v + 1] index list, in edge order. */
struct adj { size_t *first, *list; };

static int adj_build(struct adj *a, size_t n, const size_t *key, size_t ne)
{
    a->first = calloc(n + 1, sizeof *a->first);
    a->list = malloc((ne ? ne : 1) * sizeof *a->list);
    size_t *pos = malloc((n ? n : 1) * sizeof *pos);
    if (!a->first || !a->list || !pos) {
        free(pos);
        return -1;
    }
    for (size_t e = 0; e < ne; e++) a->first[key[e] + 1]++;
    for (size_t v = 0; v < n; v++) a->first[v + 1] += a->first[v];
    memcpy(pos, a->first, n * sizeof *pos);
    for (size_t e = 0; e < ne; e++) a->list[pos[key[e]]++] = e;
    free(pos);
    return 0;
}

static void adj_free(struct adj *a)
{
    free(a->first);
    free(a->list);
}

/* Reverse topological order (roots first) by Kahn's algorithm on the reversed edges: a node is
 * taken once every stage it feeds is; its feeders are released in edge order. */
static int order_from_roots(size_t n, const size_t *from, size_t ne, const struct adj *by_to, size_t *ord,
                            struct clarity_error *err)
{
    size_t *outdeg = calloc(n ? n : 1, sizeof *outdeg);
    if (!outdeg) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory walking the stage DAG");
    for (size_t e = 0; e < ne; e++) outdeg[from[e]]++;
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++)
        if (!outdeg[i]) ord[tail++] = i;
    while (head < tail) {
        size_t v = ord[head++];
        for (size_t k = by_to->first[v]; k < by_to->first[v + 1]; k++) {
            size_t e = by_to->list[k];
            if (--outdeg[from[e]] == 0) ord[tail++] = from[e];
        }
    }
    free(outdeg);
    return tail == n ? 0 : clarity_error_set(err, CLARITY_EFORMAT, NULL, 0, 0, "the stage DAG has a cycle");
}

int clarity_iqcar_dag_depth(size_t n, const size_t *from, const size_t *to, size_t nedges, int *depth,
                    struct clarity_error *err)
{
    size_t *ord = malloc((n ? n : 1) * sizeof *ord);
    struct adj by_to = {0};
    int rc;
    if (!ord || adj_build(&by_to, n, to, nedges)) {
        rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory walking the stage DAG");
        goto out;
    }
    if ((rc = order_from_roots(n, from, nedges, &by_to, ord, err))) goto out;
    for (size_t i = 0; i < n; i++) depth[i] = 1;
    for (size_t k = 0; k < n; k++) {
        size_t v = ord[k];
        for (size_t j = by_to.first[v]; j < by_to.first[v + 1]; j++) {
            size_t e = by_to.list[j];
            if (depth[from[e]] < depth[v] + 1) depth[from[e]] = depth[v] + 1;
        }
    }
out:
    adj_free(&by_to);
    free(ord);
    return rc;
}

int clarity_iqcar_critical_path(size_t n, const size_t *from, const size_t *to, size_t nedges, const double *runtime,
                        size_t *path, size_t *length, double *total, struct clarity_error *err)
{
    size_t *ord = malloc((n ? n : 1) * sizeof *ord), *next = malloc((n ? n : 1) * sizeof *next);
    double *best = malloc((n ? n : 1) * sizeof *best);
    struct adj by_to = {0}, by_from = {0};
    size_t len = 0;
    int rc = 0;
    *total = 0;
    *length = 0;
    if (!ord || !next || !best || adj_build(&by_to, n, to, nedges) || adj_build(&by_from, n, from, nedges))
        rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory walking the stage DAG");
    if (rc || !n || (rc = order_from_roots(n, from, nedges, &by_to, ord, err))) goto out;
    /* best[v] = runtime of the heaviest path from v down to a root */
    for (size_t k = 0; k < n; k++) {
        size_t v = ord[k];
        best[v] = runtime[v];
        next[v] = (size_t)-1;
        for (size_t j = by_from.first[v]; j < by_from.first[v + 1]; j++) {
            size_t e = by_from.list[j];
            double c = runtime[v] + best[to[e]];
            if (c > best[v] || (c == best[v] && next[v] != (size_t)-1 && to[e] < next[v])) {
                best[v] = c;
                next[v] = to[e];
            }
        }
    }
    /* start at the best leaf (a stage nothing feeds), smaller index on ties */
    size_t start = (size_t)-1;
    for (size_t v = 0; v < n; v++) {
        bool leaf = by_to.first[v] == by_to.first[v + 1];
        if (leaf && (start == (size_t)-1 || best[v] > best[start])) start = v;
    }
    *total = best[start];
    for (size_t v = start; v != (size_t)-1; v = next[v]) path[len++] = v;
    *length = len;
out:
    adj_free(&by_to);
    adj_free(&by_from);
    free(ord);
    free(next);
    free(best);
    return rc;
}

/* An application's stage attempts by stage id (then attempt row), so that a stage's attempts are
 * found by binary search instead of a scan of every attempt. */
struct attempts { const struct clarity_app *a; size_t *rows; };

static int cmp_attempt(const void *x, const void *y, void *ctx)
{
    const struct clarity_app *a = ctx;
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    int64_t si = a->stages[i].stage_id, sj = a->stages[j].stage_id;
    if (si != sj) return si < sj ? -1 : 1;
    return (i > j) - (i < j);
}

static int attempts_build(struct attempts *t, const struct clarity_app *a)
{
    free(t->rows);
    t->a = a;
    if (!(t->rows = malloc((a->nstages ? a->nstages : 1) * sizeof *t->rows))) return -1;
    for (size_t k = 0; k < a->nstages; k++) t->rows[k] = k;
    qsort_r(t->rows, a->nstages, sizeof *t->rows, cmp_attempt, (void *)a);
    return 0;
}

/* The attempts of stage id: rows[*first .. return value). */
static size_t attempts_of(const struct attempts *t, int64_t id, size_t *first)
{
    size_t lo = 0, hi = t->a->nstages;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (t->a->stages[t->rows[m]].stage_id < id) lo = m + 1;
        else hi = m;
    }
    *first = lo;
    while (hi < t->a->nstages && t->a->stages[t->rows[hi]].stage_id == id) hi++;
    return hi;
}

/* A stage's runtime for the critical path (the leaf-to-root path with the largest sum, ties to
 * the smaller stage id): Completion - Submission Time over its attempts (first
 * submission, last completion); when the log lacks them, the span of its tasks that collect
 * measured (last finish - submission). */
static double stage_runtime(const struct attempts *t, const struct iqcar_stage_info *si)
{
    int64_t sub = INT64_MAX, done = 0;
    size_t k, end = attempts_of(t, si->stage_id, &k);
    for (; k < end; k++) {
        const struct clarity_stage *s = &t->a->stages[t->rows[k]];
        if (s->submit_ms > 0 && s->submit_ms < sub) sub = s->submit_ms;
        if (s->complete_ms > done) done = s->complete_ms;
    }
    return sub != INT64_MAX && done > sub ? (double)(done - sub) : si->runtime;
}

/* The critical path of one unit's stages us[0..n): edges from Parent IDs inside the unit. */
static int unit_critical(const struct attempts *t, struct iqcar_result *r, const size_t *us, size_t n,
                         const struct clarity_idmap *local)
{
    size_t cap = 16, ne = 0;
    size_t *from = malloc(cap * sizeof *from), *to = malloc(cap * sizeof *to), *path = malloc(n * sizeof *path);
    double *rt = malloc(n * sizeof *rt), total;
    int rc = -1;
    if (!from || !to || !path || !rt) goto out;
    for (size_t i = 0; i < n; i++) {
        const struct iqcar_stage_info *si = &r->stages[us[i]];
        rt[i] = stage_runtime(t, si);
        size_t first_edge = ne, k, end = attempts_of(t, si->stage_id, &k);
        for (; k < end; k++) {
            const struct clarity_stage *s = &t->a->stages[t->rows[k]];
            for (size_t p = 0; p < s->nparents; p++) {
                uint32_t j;
                if (!clarity_idmap_get(local, s->parents[p], &j)) continue;   /* not run, or another unit */
                bool dup = false;   /* stage attempts repeat their parents: only i's edges can match */
                for (size_t e = first_edge; e < ne && !dup; e++) dup = from[e] == j;
                if (dup) continue;
                if (ne == cap) {
                    cap *= 2;
                    size_t *f2 = realloc(from, cap * sizeof *f2);
                    if (!f2) goto out;
                    from = f2;
                    size_t *t2 = realloc(to, cap * sizeof *t2);
                    if (!t2) goto out;
                    to = t2;
                }
                from[ne] = j, to[ne] = i, ne++;
            }
        }
    }
    size_t len = 0;
    int cp = clarity_iqcar_critical_path(n, from, to, ne, rt, path, &len, &total, NULL);
    if (cp == CLARITY_ENOMEM) goto out;
    /* a cycle (a corrupt log) gives no path: keep every stage rather than none */
    if (!len)
        for (size_t i = 0; i < n; i++) r->stages[us[i]].critical = true;
    for (size_t k = 0; k < len; k++) r->stages[us[path[k]]].critical = true;
    rc = 0;
out:
    free(from);
    free(to);
    free(path);
    free(rt);
    return rc;
}

int clarity_iqcar_mark_critical(const struct clarity_app *const *apps, struct iqcar_result *r, struct clarity_error *err)
{
    /* stages bucketed by unit (counting sort); a unit's stages are all of one application, whose
     * attempts are indexed once */
    size_t *start = calloc(r->nunits + 1, sizeof *start), *us = malloc((r->nstages ? r->nstages : 1) * sizeof *us);
    struct attempts att = {0};
    int rc = 0;
    if (!start || !us) rc = -1;
    for (size_t s = 0; !rc && s < r->nstages; s++) {
        r->stages[s].critical = false;
        start[r->stages[s].unit + 1]++;
    }
    for (size_t u = 0; !rc && u < r->nunits; u++) start[u + 1] += start[u];
    for (size_t s = 0; !rc && s < r->nstages; s++) us[start[r->stages[s].unit]++] = s;
    for (size_t u = r->nunits; !rc && u > 0; u--) start[u] = start[u - 1];   /* back to bucket starts */
    if (!rc) start[0] = 0;
    for (size_t u = 0; u < r->nunits && !rc; u++) {
        size_t n = start[u + 1] - start[u], *b = us + start[u];
        if (!n) continue;
        const struct clarity_app *a = apps[r->stages[b[0]].app];
        if (att.a != a && attempts_build(&att, a)) {
            rc = -1;
            break;
        }
        struct clarity_idmap local = {0};
        for (size_t i = 0; i < n && !rc; i++)
            if (clarity_idmap_put(&local, r->stages[b[i]].stage_id, (uint32_t)i)) rc = -1;
        if (!rc) rc = unit_critical(&att, r, b, n, &local);
        clarity_idmap_free(&local);
    }
    free(att.rows);
    free(start);
    free(us);
    if (rc) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory finding critical paths");
    return 0;
}
