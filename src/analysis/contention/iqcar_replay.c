/* The replay answers ("[replay]"): the application's stages re-run on its slots without each
 * candidate query (src/sim/workload_replay.h), and every other query's end compared with a
 * replay of all of them.
 *
 * Why: the question both answers stand for is a counterfactual (which query's removal would
 * save the others the most runtime; per victim, whose removal would shorten it most). The DOR
 * blames the query holding the slots while a victim waited; measured against re-simulation
 * without each query (docs/contention.md), it missed the query that had delayed the holder:
 * removing an early scan-heavy query lets every later query move up. A replay moves them up.
 * Both replays run on the same model (the logged task runtimes, one slot pool), so its bias
 * cancels in the difference; the median gap between the full replay and the log is reported
 * (fidelity) so a reader can tell when the model does not fit.
 *
 * Cost: one replay per candidate, each O(tasks log slots). Candidates: the K queries with the
 * most task time and the K with the most victim time attributed (their union), and no more
 * than CLARITY_IQ_REPLAY_BUDGET task replays in all (but at least CLARITY_IQ_REPLAY_MIN_CAND
 * candidates), so a 10 M-task log replays 6. Only one application (one cluster) at a time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/contention/iqcar_internal.h"
#include "util/vec.h"
#include "sim/workload_replay.h"
#include "clarity/sim.h"
#include "util/stats.h"

/* One task, 16 bytes (a 10 M-task log holds 160 MB of them while the workload is built):
 * launch relative to the first submission, runtime in ms (clamped at 49 days). */
struct tk { int64_t launch; uint32_t stage, run; };

static int cmp_tk(const void *x, const void *y)
{
    const struct tk *a = x, *b = y;
    if (a->stage != b->stage) return a->stage < b->stage ? -1 : 1;
    if (a->launch != b->launch) return a->launch < b->launch ? -1 : 1;
    return (a->run > b->run) - (a->run < b->run);   /* equal tasks are interchangeable */
}

static int cmp_desc(const void *x, const void *y)
{
    const struct iqcar_ranked *a = x, *b = y;
    if (a->dor != b->dor) return a->dor > b->dor ? -1 : 1;
    return (a->node > b->node) - (a->node < b->node);
}

static const char *app_prop(const struct clarity_app *a, const char *key)
{
    for (size_t i = 0; i < a->spark_props.n; i++)
        if (!strcmp(clarity_app_str(a, a->spark_props.p[i].k), key)) return clarity_app_str(a, a->spark_props.p[i].v);
    return NULL;
}

/* Most tasks running at once (the slots when the log has no executor cores). */
static int peak_running(const struct tk *t, size_t n)
{
    double *ev = malloc((2 * n + 1) * sizeof *ev);
    if (!ev) return 1;
    for (size_t i = 0; i < n; i++) {
        ev[2 * i] = (double)t[i].launch * 2 + 1;                 /* a start after an end at the same ms */
        ev[2 * i + 1] = ((double)t[i].launch + t[i].run) * 2;
    }
    qsort(ev, 2 * n, sizeof *ev, clarity_cmp_double);
    int cur = 0, best = 1;
    for (size_t i = 0; i < 2 * n; i++) {
        double f = ev[i] - 2 * floor(ev[i] / 2);
        cur += f > 0.5 ? 1 : -1;
        if (cur > best) best = cur;
    }
    free(ev);
    return best;
}

/* The workload of r's (one) application: stages with their tasks in launch order. */
static int build(struct iqcar_result *r, struct clarity_wl *w, struct clarity_wl_stage **stp, double **runp)
{
    size_t n = r->ntasks, ns = r->nstages;
    const struct clarity_app *a = r->tab ? r->tab->apps[0] : NULL;
    struct tk *t = malloc((n ? n : 1) * sizeof *t);
    double *run = NULL;
    struct clarity_wl_stage *st = calloc(ns ? ns : 1, sizeof *st);
    uint32_t *pool_ids = calloc(ns ? ns : 1, sizeof *pool_ids);
    int rc = -1;
    if (!t || !st || !pool_ids) goto out;
    for (size_t s = 0; s < ns; s++)
        st[s] = (struct clarity_wl_stage){.unit = (uint32_t)r->stages[s].unit, .job_id = INT64_MAX,
                                          .stage_id = r->stages[s].stage_id, .submit_ms = INFINITY, .end_ms = -INFINITY,
                                          .pred = CLARITY_WL_NONE};
    /* times relative to the first submission (every unit starts at its first), so doubles
     * hold them exactly; one pass, each task's record computed once */
    int64_t t0 = INT64_MAX;
    for (size_t u = 0; u < r->nunits; u++)
        if (r->units[u].start < t0) t0 = r->units[u].start;
    for (size_t i = 0; i < n; i++) {
        struct iqcar_task x;
        clarity_iqcar_task(r, i, &x);
        struct clarity_wl_stage *s = &st[x.stage];
        double sub = (double)x.submit - (double)t0, f = (double)x.finish - (double)t0, d = (double)x.finish - (double)x.launch;
        if (sub < s->submit_ms) s->submit_ms = sub;
        if (f > s->end_ms) s->end_ms = f;
        t[i] = (struct tk){x.launch - t0, x.stage, d <= 0 ? 0 : d >= UINT32_MAX ? UINT32_MAX : (uint32_t)d};
        if (a) {   /* FIFO order and FAIR pool from the stage attempt the task ran in */
            const struct clarity_stage *sa = &a->stages[clarity_icol_get(&a->tasks.stage, r->tab->row[i])];
            for (size_t k = 0; k < sa->njob_ids; k++)
                if (sa->job_ids[k] < s->job_id) s->job_id = sa->job_ids[k];
            pool_ids[x.stage] = sa->pool;
        }
    }
    qsort(t, n, sizeof *t, cmp_tk);
    if (!(run = malloc((n ? n : 1) * sizeof *run))) goto out;
    for (size_t i = 0; i < n; i++) {
        run[i] = t[i].run;
        struct clarity_wl_stage *s = &st[t[i].stage];
        if (s->ntasks == 0) s->first = i;
        s->ntasks++;
    }
    /* FAIR pools: the stages' pool names to dense indices */
    size_t npools = 0;
    struct clarity_idmap pm = {0};
    for (size_t s = 0; s < ns; s++) {
        uint32_t v;
        if (!clarity_idmap_get(&pm, pool_ids[s], &v)) {
            v = (uint32_t)npools++;
            if (clarity_idmap_put(&pm, pool_ids[s], v)) { clarity_idmap_free(&pm); goto out; }
        }
        st[s].pool = v;
    }
    clarity_idmap_free(&pm);
    /* predecessor: of the same query, the stage that ended last at or before this one's
     * submission (see clarity_wl_link_preds) */
    if (clarity_wl_link_preds(st, ns)) goto out;
    w->st = st;
    w->nst = ns;
    w->run_ms = run;
    w->ntasks = n;
    w->nunits = r->nunits;
    w->npools = npools ? npools : 1;
    const char *mode = a ? app_prop(a, "spark.scheduler.mode") : NULL;
    w->fair = mode && !strcmp(mode, "FAIR");
    int slots = a ? clarity_sim_configured_slots(a, a->start_ms, a->end_ms > a->start_ms ? a->end_ms : INT64_MAX) : 0;
    w->slots = slots > 0 ? slots : peak_running(t, n);
    *stp = st;
    *runp = run;
    st = NULL;
    run = NULL;
    rc = 0;
out:
    free(t); free(run); free(st); free(pool_ids);
    return rc;
}

static struct iqcar_ranked *take(const struct iqcar_ranked *v, size_t n)
{
    struct iqcar_ranked *p = malloc((n ? n : 1) * sizeof *p);
    if (p && n) memcpy(p, v, n * sizeof *p);
    return p;
}

/* Marks the first k units of a ranking as candidates. */
static void mark(const struct iqcar_ranked *v, size_t n, size_t k, bool *cand)
{
    for (size_t i = 0; i < n && i < k; i++) cand[v[i].node] = true;
}

/* The workload read before the answers (clarity_iqcar_detach), so the models can go. */
struct iqcar_replay_prep { struct clarity_wl w; struct clarity_wl_stage *st; double *run; };

/* Why the replay does not run on r, or NULL when it does. */
static const char *why_not(const struct iqcar_result *r)
{
    if (r->opt.replay_candidates <= 0) return "off (--replay-candidates 0)";
    if (r->napps > 1) return "not run: several applications (one cluster each)";
    if (r->nunits < 2 || r->ntasks == 0) return "not run: fewer than two queries";
    return NULL;
}

int clarity__iqcar_replay_prepare(struct iqcar_result *r)
{
    if (why_not(r) || r->replay_prep) return 0;
    struct iqcar_replay_prep *p = calloc(1, sizeof *p);
    if (!p || build(r, &p->w, &p->st, &p->run)) {
        free(p);
        return -1;
    }
    r->replay_prep = p;
    return 0;
}

void clarity__iqcar_replay_prep_free(struct iqcar_replay_prep *p)
{
    if (!p) return;
    free(p->st);
    free(p->run);
    free(p);
}

int clarity__iqcar_replay(struct iqcar_result *r)
{
    struct iqcar_replay_info *ri = &r->replay;
    memset(ri, 0, sizeof *ri);
    if ((ri->why = why_not(r))) return 0;
    struct clarity_wl w = {0};
    struct clarity_wl_stage *st = NULL;
    double *run = NULL, *base = NULL, *wo = NULL, *start = NULL;
    bool *cand = NULL;
    uint32_t *cl = NULL;
    struct iqcar_ranked *buf = NULL;
    struct clarity_wl_run sc = {0};
    int rc = -1;
    if (r->replay_prep) {   /* read before the models were released */
        w = r->replay_prep->w, st = r->replay_prep->st, run = r->replay_prep->run;
        free(r->replay_prep);
        r->replay_prep = NULL;
    } else if (build(r, &w, &st, &run)) goto out;
    if (clarity_wl_run_init(&sc, &w, NULL)) goto out;
    size_t nu = r->nunits;
    /* candidates: the union of the K heaviest and the K with most victim time, within budget */
    size_t k = (size_t)r->opt.replay_candidates, most = CLARITY_IQ_REPLAY_BUDGET / r->ntasks;
    if (most < CLARITY_IQ_REPLAY_MIN_CAND) most = CLARITY_IQ_REPLAY_MIN_CAND;
    cand = calloc(nu, sizeof *cand);
    cl = malloc(nu * sizeof *cl);
    if (!cand || !cl) goto out;
    size_t kk = k;
    for (;;) {
        memset(cand, 0, nu * sizeof *cand);
        mark(r->heaviest, r->nheaviest, kk, cand);
        mark(r->aggressive_time, r->naggressive_time, kk, cand);
        size_t m = 0;
        for (size_t u = 0; u < nu; u++) m += cand[u];
        if (m <= most || kk == 1) break;
        kk--;
        ri->budget_cut = true;
    }
    size_t nc = 0;
    for (size_t u = 0; u < nu; u++)
        if (cand[u]) cl[nc++] = (uint32_t)u;
    base = malloc(nu * sizeof *base);
    start = malloc(nu * sizeof *start);
    wo = malloc((nc ? nc : 1) * nu * sizeof *wo);
    buf = malloc((nu + 1) * sizeof *buf);
    if (!base || !start || !wo || !buf) goto out;
    clarity_wl_replay(&w, &sc, CLARITY_WL_NONE, base);
    for (size_t c = 0; c < nc; c++) clarity_wl_replay(&w, &sc, cl[c], wo + c * nu);
    /* fidelity: each query's replayed runtime against its logged one (median relative gap) */
    for (size_t u = 0; u < nu; u++) start[u] = INFINITY;
    for (size_t s = 0; s < w.nst; s++)
        if (st[s].submit_ms < start[st[s].unit]) start[st[s].unit] = st[s].submit_ms;
    size_t nf = 0;
    double *gap = (double *)buf;   /* nu + 1 ranked entries hold nu doubles */
    for (size_t u = 0; u < nu; u++) {
        double logged = (double)r->units[u].end - (double)r->units[u].start;
        if (logged > 0 && isfinite(base[u]) && isfinite(start[u])) gap[nf++] = fabs(base[u] - start[u] - logged) / logged;
    }
    ri->fidelity = nf ? clarity_median_mean_mid(gap, nf) : 0;
    /* per victim: the candidates whose removal ends it sooner, most first; every victim's list
     * in one array (r->replay_lists), victim after victim, pointed at once it is complete */
    size_t nl = 0, cap_l = 0;
    for (size_t v = 0; v < nu; v++) {
        struct iqcar_target_answer *a = &r->targets[v];
        double rt = isfinite(start[v]) ? base[v] - start[v] : 0;
        size_t n = 0;
        for (size_t c = 0; c < nc; c++) {
            double d = base[v] - wo[c * nu + v];
            if (cl[c] != v && isfinite(d) && d > 0) buf[n++] = (struct iqcar_ranked){cl[c], d, rt > 0 ? d / rt : 0};
        }
        qsort(buf, n, sizeof *buf, cmp_desc);
        a->nreplay = n < (size_t)r->opt.k ? n : (size_t)r->opt.k;
        if (CLARITY_VEC_RESERVE(r->replay_lists, cap_l, nl + a->nreplay)) goto out;
        if (a->nreplay) memcpy(r->replay_lists + nl, buf, a->nreplay * sizeof *buf);
        nl += a->nreplay;
    }
    for (size_t v = 0, at = 0; v < nu; v++) {
        struct iqcar_target_answer *a = &r->targets[v];
        a->replay = a->nreplay ? r->replay_lists + at : NULL;
        at += a->nreplay;
    }
    /* aggregate: the others' runtime saved, summed (signed: a removal that lets one query
     * crowd another costs), and how many of them end sooner */
    /* only candidates whose removal saves the others something: queries that never shared
     * the slots (a log of queries run one after another) leave the answer empty, and the
     * output says so, rather than naming a query that changes nothing */
    size_t na = 0;
    for (size_t c = 0; c < nc; c++) {
        double sum = 0, faster = 0;
        for (size_t v = 0; v < nu; v++) {
            double d = base[v] - wo[c * nu + v];
            if (v == cl[c] || !isfinite(d)) continue;
            sum += d;
            faster += d > 0;
        }
        if (sum > 0) buf[na++] = (struct iqcar_ranked){cl[c], sum, faster};
    }
    qsort(buf, na, sizeof *buf, cmp_desc);
    r->naggressive_replay = na;
    if (!(r->aggressive_replay = take(buf, na))) goto out;
    ri->ran = true;
    ri->slots = w.slots;
    ri->fair = w.fair;
    ri->candidates = nc;
    rc = 0;
out:
    clarity_wl_run_free(&sc);
    free(st); free(run); free(base); free(wo); free(start); free(cand); free(cl); free(buf);
    return rc;
}
