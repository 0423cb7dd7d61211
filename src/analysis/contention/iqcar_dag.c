/* Stage DAG helpers for Level-1 selection (all stages, or the critical path with
 * --critical-path): depth of each stage and the critical path. Edges point from a stage to the stage that consumes its output. */
#include <stdlib.h>
#include "clarity/contention.h"

/* Reverse topological order (roots first) by Kahn's algorithm on the reversed edges. */
static int order_from_roots(size_t n, const size_t *from, const size_t *to, size_t ne, size_t *ord,
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
        for (size_t e = 0; e < ne; e++)   /* stage DAGs are small: a scan per node is fine */
            if (to[e] == v && --outdeg[from[e]] == 0) ord[tail++] = from[e];
    }
    free(outdeg);
    return tail == n ? 0 : clarity_error_set(err, CLARITY_EFORMAT, NULL, 0, 0, "the stage DAG has a cycle");
}

int clarity_iqcar_dag_depth(size_t n, const size_t *from, const size_t *to, size_t nedges, int *depth,
                    struct clarity_error *err)
{
    size_t *ord = malloc((n ? n : 1) * sizeof *ord);
    if (!ord) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory walking the stage DAG");
    int rc = order_from_roots(n, from, to, nedges, ord, err);
    if (rc) {
        free(ord);
        return rc;
    }
    for (size_t i = 0; i < n; i++) depth[i] = 1;
    for (size_t k = 0; k < n; k++) {
        size_t v = ord[k];
        for (size_t e = 0; e < nedges; e++)
            if (to[e] == v && depth[from[e]] < depth[v] + 1) depth[from[e]] = depth[v] + 1;
    }
    free(ord);
    return 0;
}

int clarity_iqcar_critical_path(size_t n, const size_t *from, const size_t *to, size_t nedges, const double *runtime,
                        size_t *path, size_t *length, double *total, struct clarity_error *err)
{
    size_t *ord = malloc((n ? n : 1) * sizeof *ord), *next = malloc((n ? n : 1) * sizeof *next);
    double *best = malloc((n ? n : 1) * sizeof *best);
    size_t len = 0;
    int rc = 0;
    *total = 0;
    *length = 0;
    if (!ord || !next || !best)
        rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory walking the stage DAG");
    if (rc || !n || (rc = order_from_roots(n, from, to, nedges, ord, err))) goto out;
    /* best[v] = runtime of the heaviest path from v down to a root */
    for (size_t k = 0; k < n; k++) {
        size_t v = ord[k];
        best[v] = runtime[v];
        next[v] = (size_t)-1;
        for (size_t e = 0; e < nedges; e++) {
            if (from[e] != v) continue;
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
        bool leaf = true;
        for (size_t e = 0; e < nedges && leaf; e++) leaf = to[e] != v;
        if (leaf && (start == (size_t)-1 || best[v] > best[start])) start = v;
    }
    *total = best[start];
    for (size_t v = start; v != (size_t)-1; v = next[v]) path[len++] = v;
    *length = len;
out:
    free(ord);
    free(next);
    free(best);
    return rc;
}

/* A stage's runtime for the critical path (the leaf-to-root path with the largest sum, ties to
 * the smaller stage id): Completion - Submission Time over its attempts (first
 * submission, last completion); when the log lacks them, the span of its tasks that collect
 * measured (last finish - submission). */
static double stage_runtime(const struct clarity_app *a, const struct iqcar_stage_info *si)
{
    int64_t sub = INT64_MAX, done = 0;
    for (size_t k = 0; k < a->nstages; k++) {
        const struct clarity_stage *s = &a->stages[k];
        if (s->stage_id != si->stage_id) continue;
        if (s->submit_ms > 0 && s->submit_ms < sub) sub = s->submit_ms;
        if (s->complete_ms > done) done = s->complete_ms;
    }
    return sub != INT64_MAX && done > sub ? (double)(done - sub) : si->runtime;
}

/* The critical path of one unit's stages us[0..n): edges from Parent IDs inside the unit. */
static int unit_critical(const struct clarity_app *a, struct iqcar_result *r, const size_t *us, size_t n,
                         const struct clarity_idmap *local)
{
    size_t cap = 16, ne = 0;
    size_t *from = malloc(cap * sizeof *from), *to = malloc(cap * sizeof *to), *path = malloc(n * sizeof *path);
    double *rt = malloc(n * sizeof *rt), total;
    int rc = -1;
    if (!from || !to || !path || !rt) goto out;
    for (size_t i = 0; i < n; i++) {
        const struct iqcar_stage_info *si = &r->stages[us[i]];
        rt[i] = stage_runtime(a, si);
        for (size_t k = 0; k < a->nstages; k++) {
            const struct clarity_stage *s = &a->stages[k];
            if (s->stage_id != si->stage_id) continue;
            for (size_t p = 0; p < s->nparents; p++) {
                uint32_t j;
                if (!clarity_idmap_get(local, s->parents[p], &j)) continue;   /* not run, or another unit */
                bool dup = false;
                for (size_t e = 0; e < ne && !dup; e++) dup = from[e] == j && to[e] == i;
                if (dup) continue;   /* stage attempts repeat their parents */
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
    /* stages bucketed by unit (counting sort); within a unit, the DAG is small and the scans
     * over the application's stage attempts above are fine (only with --critical-path) */
    size_t *start = calloc(r->nunits + 1, sizeof *start), *us = malloc((r->nstages ? r->nstages : 1) * sizeof *us);
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
        struct clarity_idmap local = {0};
        for (size_t i = 0; i < n && !rc; i++)
            if (clarity_idmap_put(&local, r->stages[b[i]].stage_id, (uint32_t)i)) rc = -1;
        if (!rc && n) rc = unit_critical(apps[r->stages[b[0]].app], r, b, n, &local);
        clarity_idmap_free(&local);
    }
    free(start);
    free(us);
    if (rc) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory finding critical paths");
    return 0;
}
