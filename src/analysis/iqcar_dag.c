/* Stage DAG helpers for Level-1 selection (spec 2.1 and decision 6.18): depth of each stage
 * and the critical path. Edges point from a stage to the stage that consumes its output. */
#include <stdlib.h>
#include "clarity/contention.h"

/* Reverse topological order (roots first) by Kahn's algorithm on the reversed edges. */
static int order_from_roots(size_t n, const size_t *from, const size_t *to, size_t ne, size_t *ord)
{
    size_t *outdeg = calloc(n ? n : 1, sizeof *outdeg);
    if (!outdeg) return -1;
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
    return tail == n ? 0 : -1;
}

int iqcar_dag_depth(size_t n, const size_t *from, const size_t *to, size_t nedges, int *depth)
{
    size_t *ord = malloc((n ? n : 1) * sizeof *ord);
    if (!ord || order_from_roots(n, from, to, nedges, ord)) {
        free(ord);
        return -1;
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

size_t iqcar_critical_path(size_t n, const size_t *from, const size_t *to, size_t nedges,
                           const double *runtime, size_t *path, double *total)
{
    size_t *ord = malloc((n ? n : 1) * sizeof *ord), *next = malloc((n ? n : 1) * sizeof *next);
    double *best = malloc((n ? n : 1) * sizeof *best);
    size_t len = 0;
    *total = 0;
    if (!ord || !next || !best || !n || order_from_roots(n, from, to, nedges, ord)) goto out;
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
out:
    free(ord);
    free(next);
    free(best);
    return len;
}
