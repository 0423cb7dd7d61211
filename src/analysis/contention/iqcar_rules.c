/* The scheduler rules iQCAR derives (paper section 7): AGG caps the aggressive queries at a
 * share of the largest query concurrency, DYNP raises the victims' priority and lowers the
 * aggressive ones'. The aggressive queries are taken in the order the answer ranks them
 * (r->aggressive_rank: by the victims' runtime attributed, or by total DOR). */
#include <stdlib.h>
#include "analysis/contention/iqcar_internal.h"
#include "util/stats.h"

/* How many of v[0..n) (sorted) are <= x. */
static size_t count_le(const int64_t *v, size_t n, int64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (v[m] <= x) lo = m + 1;
        else hi = m;
    }
    return lo;
}

/* At u.start, the units running are those started by then (start <= u.start) less those also
 * over by then (end <= u.start, i.e. max(start, end) <= u.start): two sorted lists and a binary
 * search each, instead of comparing every unit with every other. */
int clarity_iqcar_max_concurrency(const struct iqcar_unit_info *units, size_t n, int *out)
{
    *out = 0;
    if (!n) return 0;
    int64_t *s = malloc(n * sizeof *s), *m = malloc(n * sizeof *m);
    if (!s || !m) {
        free(s);
        free(m);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        s[i] = units[i].start;
        m[i] = units[i].end > units[i].start ? units[i].end : units[i].start;
    }
    qsort(s, n, sizeof *s, clarity_cmp_i64);
    qsort(m, n, sizeof *m, clarity_cmp_i64);
    size_t best = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t x = units[i].start;
        size_t c = count_le(s, n, x) - count_le(m, n, x);
        if (c > best) best = c;
    }
    free(s);
    free(m);
    *out = best > (size_t)INT32_MAX ? INT32_MAX : (int)best;
    return 0;
}

static int add_rule(struct iqcar_result *r, const char *type, size_t unit, const char *qtype, double v, int order)
{
    struct iqcar_rule *p = realloc(r->rules, (r->nrules + 1) * sizeof *p);
    if (!p) return -1;
    r->rules = p;
    r->rules[r->nrules] = (struct iqcar_rule){(int)r->nrules + 1, type, unit, qtype, v, order};
    r->nrules++;
    return 0;
}

int clarity__iqcar_rules(struct iqcar_result *r)
{
    size_t k = (size_t)r->opt.k;
    if (clarity_iqcar_max_concurrency(r->units, r->nunits, &r->max_concurrency)) return -1;
    for (size_t i = 0; i < r->naggressive_rank && i < k; i++)
        if (add_rule(r, "AGG", r->aggressive_rank[i].node, "Source", r->max_concurrency ? 1.0 / r->max_concurrency : 1,
                     (int)i + 1))
            return -1;
    size_t nv = r->nvictims < k ? r->nvictims : k;
    for (size_t i = 0; i < nv; i++) {
        double rank = r->opt.dynp_reverse ? (double)(nv - i) : (double)(i + 1);
        if (add_rule(r, "DYNP", r->victims[i].node, "Target", r->opt.p_orig + rank, (int)i + 1)) return -1;
    }
    for (size_t i = 0; i < r->naggressive_rank && i < k; i++) {
        double v = r->opt.p_orig - (double)(i + 1);
        if (add_rule(r, "DYNP", r->aggressive_rank[i].node, "Source", v > 0 ? v : 0, (int)i + 1)) return -1;
    }
    return 0;
}
