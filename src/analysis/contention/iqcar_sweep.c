/* Which tasks overlap which (tasks on the same host string, executors merged): a sweep over
 * windows sorted by start with the set of runs active at each window's start, plus the runs
 * starting inside the window.
 * Every step either reports an overlapping pair or retires a run for good, so the cost is
 * O(n log n + overlaps), not O(n^2). Intervals are half-open [start, end) in ms. */
#include <stdlib.h>
#include <string.h>
#include "analysis/contention/iqcar_internal.h"

struct key { int64_t t; size_t i; };

static int cmp_key(const void *x, const void *y)
{
    const struct key *a = x, *b = y;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

int clarity_iqcar_interval_join(const int64_t *ws, const int64_t *we, size_t nw, const int64_t *rs, const int64_t *re,
                        size_t nr, bool same, iqcar_pair_fn fn, void *ctx, struct clarity_error *err)
{
    struct key *w = malloc((nw ? nw : 1) * sizeof *w), *r = malloc((nr ? nr : 1) * sizeof *r);
    size_t *act = malloc((nr ? nr : 1) * sizeof *act);
    if (!w || !r || !act) {
        free(w);
        free(r);
        free(act);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory joining task intervals");
    }
    size_t n_w = 0, n_r = 0, nact = 0;
    for (size_t i = 0; i < nw; i++)
        if (we[i] > ws[i]) w[n_w++] = (struct key){ws[i], i};
    for (size_t i = 0; i < nr; i++)
        if (re[i] > rs[i]) r[n_r++] = (struct key){rs[i], i};
    qsort(w, n_w, sizeof *w, cmp_key);
    qsort(r, n_r, sizeof *r, cmp_key);
    size_t rp = 0;
    for (size_t k = 0; k < n_w; k++) {
        size_t wi = w[k].i;
        int64_t s = ws[wi], e = we[wi];
        while (rp < n_r && r[rp].t <= s) act[nact++] = r[rp++].i;
        for (size_t a = 0; a < nact;) {
            size_t ri = act[a];
            if (re[ri] <= s) {   /* finished before this and every later window */
                act[a] = act[--nact];
                continue;
            }
            if (!(same && ri == wi)) fn(ctx, wi, ri, (re[ri] < e ? re[ri] : e) - s);
            a++;
        }
        for (size_t q = rp; q < n_r && r[q].t < e; q++) {
            size_t ri = r[q].i;
            if (!(same && ri == wi)) fn(ctx, wi, ri, (re[ri] < e ? re[ri] : e) - rs[ri]);
        }
    }
    free(w);
    free(r);
    free(act);
    return 0;
}

size_t clarity__iqcar_order_by_start(const int64_t *start, const int64_t *end, size_t n, uint32_t *out, uint32_t *tmp)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (end[i] > start[i]) out[k++] = (uint32_t)i;
    if (k < 2) return k;
    int64_t lo = start[out[0]], hi = lo;
    for (size_t j = 1; j < k; j++) {
        int64_t t = start[out[j]];
        if (t < lo) lo = t;
        if (t > hi) hi = t;
    }
    /* LSD radix sort of start - lo, 11 bits a pass, stable: ties keep index order, as the
     * (start, index) order of the interval join */
    enum { BITS = 11, DIGITS = 1 << BITS };
    uint64_t range = (uint64_t)hi - (uint64_t)lo;
    size_t cnt[DIGITS];
    uint32_t *a = out, *b = tmp;
    for (int shift = 0; shift < 64 && (range >> shift); shift += BITS) {
        memset(cnt, 0, sizeof cnt);
        for (size_t j = 0; j < k; j++) cnt[((uint64_t)start[a[j]] - (uint64_t)lo) >> shift & (DIGITS - 1)]++;
        size_t sum = 0;
        for (size_t d = 0; d < DIGITS; d++) {
            size_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (size_t j = 0; j < k; j++) b[cnt[((uint64_t)start[a[j]] - (uint64_t)lo) >> shift & (DIGITS - 1)]++] = a[j];
        uint32_t *x = a;
        a = b, b = x;
    }
    if (a != out) memcpy(out, a, k * sizeof *out);
    return k;
}
