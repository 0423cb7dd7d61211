/* The saving as the shift of the application's end, with independently arriving queries held
 * at their logged arrivals (fnd_internal.h, clarity_fnd_arrivals_build).
 *
 * Why: the component replay counts a component that ends sooner as wall time saved, as if
 * everything after it moved up. That holds for a driver program running its jobs one after
 * the other. It does not hold where queries arrive on a clock (a Thrift server, a scheduler
 * submitting queries, a TPC-DS throughput run): a query that ends sooner does not make the
 * next one arrive sooner, so the application saves only what moves its end. Measured on the
 * tuning seeds' TPC-DS mixes (4 queries arriving ~5 s apart): the stage rules, GC pressure and
 * driver gaps claimed 1.5-2x what the re-run without the problem saved.
 *
 * How: the workload replay of src/sim/workload_replay.h (the one iQCAR's counterfactuals use):
 * every stage attempt with its ended attempts, on the application's configured slots, in the
 * scheduler's order (FIFO, or FAIR by pool). A query's first stage is submitted at its logged
 * time; every later stage of the same query a logged gap after the stage of that query that
 * ended last before it was submitted. A finding's change is replayed the same way, and its
 * saving is the replayed end's shift. The two replays share the model's error, which cancels
 * in the difference, as in the component replay.
 *
 * Which stages arrive on their own: those of each SQL query (its sub-executions with it); the
 * stages of jobs outside any query are one chain, the driver's own code. A query that starts
 * while no other query is open, less than ARR_CHAIN_MS after the last one ended, continues
 * that one's chain (a script running its statements one after the other: the next one is
 * parsed and planned in well under a second). An application with one chain is left to the
 * component replay (everything follows everything; the same answer at less cost).
 *
 * Cost: one replay is O(attempts log slots). At most ARR_MAX_REPLAYS changes are replayed so
 * (linear in the attempts however many stages a log has); a change past that budget keeps its
 * component saving, an upper bound on the application's, and says so. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/findings/fnd_internal.h"
#include "sim/workload_replay.h"

#define ARR_CHAIN_MS 1000
#define ARR_MAX_REPLAYS 64
/* more FAIR pools than this: FIFO (the replay's pool scan is linear in the pools) */
#define ARR_MAX_POOLS 64

struct fnd_arr {
    struct clarity_wl w;                 /* the logged workload: run_ms is x->rt */
    struct clarity_wl_stage *st, *st2;   /* its stages; a changed replay's */
    double *run2; size_t run2_cap;       /* a changed replay's runtimes (pieces of split attempts) */
    double *uend;                        /* per chain: replayed end */
    double *arrive;                      /* per stage: its query's logged start (its submission
                                            outside a query) */
    struct clarity_wl_run sc;
    double base_end;
    int left;                            /* replays left in the budget */
};

static int cmp_sql_start(const void *pa, const void *pb, void *ctx)
{
    const struct clarity_app *a = ctx;
    size_t i = *(const size_t *)pa, j = *(const size_t *)pb;
    if (a->sqls[i].start_ms != a->sqls[j].start_ms) return a->sqls[i].start_ms < a->sqls[j].start_ms ? -1 : 1;
    return (i > j) - (i < j);
}

/* stages by (chain, submission, index); by (chain, end, index descending) */
static int cmp_sub(const void *pa, const void *pb, void *ctx)
{
    const struct clarity_wl_stage *st = ctx;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    if (st[a].unit != st[b].unit) return st[a].unit < st[b].unit ? -1 : 1;
    if (st[a].submit_ms != st[b].submit_ms) return st[a].submit_ms < st[b].submit_ms ? -1 : 1;
    return (a > b) - (a < b);
}

static int cmp_end(const void *pa, const void *pb, void *ctx)
{
    const struct clarity_wl_stage *st = ctx;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    if (st[a].unit != st[b].unit) return st[a].unit < st[b].unit ? -1 : 1;
    if (st[a].end_ms != st[b].end_ms) return st[a].end_ms < st[b].end_ms ? -1 : 1;
    return (a < b) - (a > b);
}

static double replay_end(const struct clarity_wl *w, struct fnd_arr *r)
{
    clarity_wl_replay(w, &r->sc, CLARITY_WL_NONE, r->uend);
    double e = -INFINITY;
    for (size_t u = 0; u < w->nunits; u++)
        if (r->uend[u] > e) e = r->uend[u];
    return e;
}

void clarity_fnd_arrivals_free(struct fnd *x)
{
    struct fnd_arr *r = x->arr;
    if (!r) return;
    clarity_wl_run_free(&r->sc);
    free(r->st); free(r->st2); free(r->run2); free(r->uend); free(r->arrive);
    free(r);
    x->arr = NULL;
}

/* chain per SQL query row (-1: none); returns the chain count, or -1 when out of memory */
static long sql_chains(const struct clarity_app *a, long *chain)
{
    size_t nq = a->nsqls;
    size_t *ord = malloc((nq ? nq : 1) * sizeof *ord);
    if (!ord) return -1;
    for (size_t q = 0; q < nq; q++) ord[q] = q, chain[q] = -1;
    qsort_r(ord, nq, sizeof *ord, cmp_sql_start, (void *)a);
    long n = 0, last = -1;
    int64_t last_end = INT64_MIN;
    for (size_t k = 0; k < nq; k++) {
        const struct clarity_sql *q = &a->sqls[ord[k]];
        if (q->start_ms <= 0) continue;
        const struct clarity_sql *root = q->root_id != q->id ? clarity_app_sql(a, q->root_id) : NULL;
        long c;
        if (root && chain[root - a->sqls] >= 0) c = chain[root - a->sqls];
        else if (last >= 0 && q->start_ms >= last_end && q->start_ms - last_end <= ARR_CHAIN_MS) c = last;
        else c = n++;
        chain[ord[k]] = c;
        int64_t end = q->end_ms > q->start_ms ? q->end_ms : q->start_ms;
        if (end >= last_end) last_end = end, last = c;
    }
    free(ord);
    return n;
}

int clarity_fnd_arrivals_build(struct fnd *x, struct clarity_error *err)
{
    const struct clarity_app *a = x->a;
    x->arr_wall = -1;
    if (!a->nsqls || !x->n) return 0;
    size_t ns = a->nstages;
    long *chain = malloc(a->nsqls * sizeof *chain);
    uint32_t *sunit = malloc((ns ? ns : 1) * sizeof *sunit);
    struct fnd_arr *r = calloc(1, sizeof *r);
    uint32_t *by_sub = NULL, *by_end = NULL, *pools = NULL;
    if (!chain || !sunit || !r) goto oom;
    long nchain = sql_chains(a, chain);
    if (nchain < 0) goto oom;
    /* each stage attempt that has attempts in the replay: its query's chain, or the driver's */
    uint32_t driver = (uint32_t)nchain;
    bool any_driver = false;
    size_t used = 0;
    uint8_t *seen = calloc((size_t)nchain + 1, 1);
    if (!seen) goto oom;
    for (size_t s = 0; s < ns; s++) {
        if (x->lstart[s + 1] == x->lstart[s]) continue;
        const struct clarity_stage *st = &a->stages[s];
        const struct clarity_job *j = st->njob_ids ? clarity_app_job(a, st->job_ids[0]) : NULL;
        const struct clarity_sql *q = j && j->sql_id >= 0 ? clarity_app_sql(a, j->sql_id) : NULL;
        long c = q ? chain[q - a->sqls] : -1;
        sunit[s] = c >= 0 ? (uint32_t)c : driver;
        if (c < 0) any_driver = true;
        if (!seen[sunit[s]]) seen[sunit[s]] = 1, used++;
    }
    free(seen);
    free(chain);
    chain = NULL;
    if (used < 2) {   /* one chain: the component replay's answer */
        free(sunit);
        free(r);
        return 0;
    }
    size_t nu = (size_t)nchain + (any_driver ? 1 : 0);
    r->st = calloc(ns ? ns : 1, sizeof *r->st);
    r->st2 = malloc((ns ? ns : 1) * sizeof *r->st2);
    r->uend = malloc((nu ? nu : 1) * sizeof *r->uend);
    r->arrive = malloc((ns ? ns : 1) * sizeof *r->arrive);
    by_sub = malloc((ns ? ns : 1) * sizeof *by_sub);
    by_end = malloc((ns ? ns : 1) * sizeof *by_end);
    pools = malloc(ARR_MAX_POOLS * sizeof *pools);
    if (!r->st || !r->st2 || !r->uend || !r->arrive || !by_sub || !by_end || !pools) goto oom;
    /* the stages, times relative to the first launch (doubles hold them exactly) */
    int64_t t0 = INT64_MAX;
    for (size_t i = 0; i < x->n; i++) {
        int64_t l = clarity_task_launch_ms(a, x->row[i]);
        if (l < t0) t0 = l;
    }
    size_t m = 0, npools = 0;
    bool fair = false;
    const char *mode = clarity_fnd_prop(a, "spark.scheduler.mode");
    if (mode && !strcmp(mode, "FAIR")) fair = true;
    for (size_t s = 0; s < ns; s++) {
        uint32_t lo = x->lstart[s], hi = x->lstart[s + 1];
        if (hi == lo) continue;
        const struct clarity_stage *sa = &a->stages[s];
        double first = INFINITY, end = -INFINITY;
        for (uint32_t i = lo; i < hi; i++) {
            double l = (double)(clarity_task_launch_ms(a, x->row[i]) - t0);
            if (l < first) first = l;
            if (l + x->rt[i] > end) end = l + x->rt[i];
        }
        double sub = sa->submit_ms > 0 ? (double)(sa->submit_ms - t0) : first;
        if (sub > first) sub = first;
        int64_t job = INT64_MAX;
        for (size_t k = 0; k < sa->njob_ids; k++)
            if (sa->job_ids[k] < job) job = sa->job_ids[k];
        uint32_t pool = 0;
        if (fair) {
            while (pool < npools && pools[pool] != sa->pool) pool++;
            if (pool == npools) {
                if (npools == ARR_MAX_POOLS) fair = false, pool = 0;
                else pools[npools++] = sa->pool;
            }
        }
        const struct clarity_job *j = sa->njob_ids ? clarity_app_job(a, sa->job_ids[0]) : NULL;
        const struct clarity_sql *q = j && j->sql_id >= 0 ? clarity_app_sql(a, j->sql_id) : NULL;
        double arr = q && q->start_ms > 0 ? (double)(q->start_ms - t0) : sub;
        r->arrive[m] = arr < sub ? arr : sub;
        r->st[m++] = (struct clarity_wl_stage){.unit = sunit[s], .pool = pool, .job_id = job, .stage_id = sa->stage_id,
                                              .submit_ms = sub, .end_ms = end, .pred = CLARITY_WL_NONE,
                                              .first = lo, .ntasks = hi - lo};
    }
    if (!fair) for (size_t k = 0; k < m; k++) r->st[k].pool = 0;
    /* predecessor: of the same chain, the stage that ended last at or before this one's
       submission and was submitted before it (so the relation cannot cycle) */
    for (size_t k = 0; k < m; k++) by_sub[k] = by_end[k] = (uint32_t)k;
    qsort_r(by_sub, m, sizeof *by_sub, cmp_sub, r->st);
    qsort_r(by_end, m, sizeof *by_end, cmp_end, r->st);
    for (size_t i = 0, e = 0; i < m;) {   /* chain by chain: both orders list the chains alike */
        uint32_t u = r->st[by_sub[i]].unit;
        size_t i1 = i, e1 = e;
        while (i1 < m && r->st[by_sub[i1]].unit == u) i1++;
        while (e1 < m && r->st[by_end[e1]].unit == u) e1++;
        for (size_t k = i, j = e; k < i1; k++) {
            uint32_t s = by_sub[k];
            while (j < e1 && r->st[by_end[j]].end_ms <= r->st[s].submit_ms) j++;
            for (size_t t = j; t > e; t--) {
                uint32_t q = by_end[t - 1];
                if (r->st[q].submit_ms < r->st[s].submit_ms || (r->st[q].submit_ms == r->st[s].submit_ms && q < s)) {
                    r->st[s].pred = q;
                    break;
                }
            }
        }
        i = i1;
        e = e1;
    }
    free(by_sub); free(by_end); free(pools); free(sunit);
    by_sub = by_end = pools = NULL;
    sunit = NULL;
    int slots = x->slots;
    if (slots <= 0)
        for (size_t c = 0; c < x->plan.ncomp; c++)
            if (x->plan.comp[c].slots > slots) slots = x->plan.comp[c].slots;
    r->w = (struct clarity_wl){.st = r->st, .nst = m, .run_ms = x->rt, .ntasks = x->n, .nunits = nu,
                               .npools = fair && npools ? npools : 1, .slots = slots > 0 ? slots : 1, .fair = fair};
    /* the scratch sized for the most tasks a slot count can run at once */
    struct clarity_wl sized = r->w;
    if (sized.ntasks < (size_t)sized.slots) sized.ntasks = (size_t)sized.slots;
    int rc = clarity_wl_run_init(&r->sc, &sized, err);
    if (rc) {
        free(r->st); free(r->st2); free(r->uend); free(r->arrive); free(r);
        return rc;
    }
    r->base_end = replay_end(&r->w, r);
    r->left = ARR_MAX_REPLAYS;
    x->arr = r;
    return 0;
oom:
    free(chain); free(sunit); free(by_sub); free(by_end); free(pools);
    if (r) { free(r->st); free(r->st2); free(r->uend); free(r->arrive); free(r); }
    return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory building the findings replay");
}

/* Called by clarity_fnd_mod_end while the change is in x->mod / x->split: the replayed end's
 * shift in ms, or -1 (no arrivals, the budget spent, out of memory). */
double clarity_fnd_arrivals_shift(struct fnd *x)
{
    struct fnd_arr *r = x->arr;
    if (!r) return -1;
    if (r->left <= 0) { x->arr_over_budget = true; return -1; }
    r->left--;
    double base_end = r->base_end;
    if (x->base_alt) {   /* a changed base (a failed attempt chained with its retry): replayed too */
        struct clarity_wl wb = r->w;
        wb.run_ms = x->base_alt;
        base_end = replay_end(&wb, r);
    }
    size_t need = 0;
    for (size_t k = 0; k < r->w.nst; k++)
        for (size_t i = r->st[k].first; i < r->st[k].first + r->st[k].ntasks; i++)
            need += x->split[i] > 1 ? x->split[i] : 1;
    if (need > r->run2_cap) {
        double *p = realloc(r->run2, need * sizeof *p);
        if (!p) { x->oom = 1; return -1; }
        r->run2 = p;
        r->run2_cap = need;
    }
    size_t pos = 0;
    for (size_t k = 0; k < r->w.nst; k++) {
        r->st2[k] = r->st[k];
        r->st2[k].first = pos;
        for (size_t i = r->st[k].first; i < r->st[k].first + r->st[k].ntasks; i++) {
            size_t pieces = x->split[i] > 1 ? x->split[i] : 1;
            for (size_t p = 0; p < pieces; p++) r->run2[pos++] = x->mod[i] / (double)pieces;
        }
        r->st2[k].ntasks = pos - r->st2[k].first;
    }
    struct clarity_wl w2 = r->w;
    w2.st = r->st2;
    w2.run_ms = r->run2;
    w2.ntasks = pos;
    double shift = base_end - replay_end(&w2, r);
    return shift > 0 ? shift : 0;
}

/* The driver's time inside each chain removed: every stage submitted as its predecessor ends,
 * and a query's first stage as the query starts; the shift of the replayed end in ms, or -1
 * (no arrivals). Queries still arrive when they did. */
double clarity_fnd_arrivals_no_gaps(struct fnd *x)
{
    struct fnd_arr *r = x->arr;
    if (!r) return -1;
    for (size_t k = 0; k < r->w.nst; k++) {
        r->st2[k] = r->st[k];
        uint32_t p = r->st[k].pred;
        if (p != CLARITY_WL_NONE) {
            if (r->st2[k].submit_ms > r->st[p].end_ms) r->st2[k].submit_ms = r->st[p].end_ms;
        } else r->st2[k].submit_ms = r->arrive[k];
    }
    struct clarity_wl w2 = r->w;
    w2.st = r->st2;
    double shift = r->base_end - replay_end(&w2, r);
    return shift > 0 ? shift : 0;
}
