/* Contention across applications: the finding `clarity findings --deep` gives a directory of a
 * shared cluster, when one application's tasks took a large share of the runtime of other
 * applications running at the same time.
 *
 * iQCAR runs over the applications of one group at once (applications whose spans overlap,
 * chained), one unit per application, as `clarity contention --unit app` runs it: hosts are
 * matched by name, so only applications whose executors shared hosts blame each other, and
 * applications on other clusters get nothing. The unit is the application, not its queries:
 * one query's weight on its own application's other queries is the per-application finding's
 * (fnd_ext.c), and what a user can change across applications is the application's share of
 * the cluster (a YARN queue, a Kubernetes namespace or scheduler queue, a standalone cores cap)
 * or its time. The rule is the per-application one (docs/findings.md says why): the first
 * aggressive application is not a close call with the second (iQCAR's 75% rule) and the
 * victims' runtime attributed to it is at least 30% of those victims' runtime. Several
 * applications are never replayed together (each had its own executors), so the ranking is
 * iQCAR's victim runtime attributed and the saving an estimate. */
#include <stdlib.h>
#include <string.h>
#include "analysis/findings/fnd_internal.h"

#define CROSS_MIN_SHARE 0.30   /* the per-application contention rule's share (fnd_ext.c) */

struct span { int64_t start, end; size_t i; };

static int cmp_span(const void *x, const void *y)
{
    const struct span *a = x, *b = y;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

size_t clarity_findings_overlap_groups(const int64_t *start_ms, const int64_t *end_ms, size_t n, size_t *group)
{
    struct span *s = malloc((n ? n : 1) * sizeof *s);
    if (!s) return SIZE_MAX;
    size_t m = n;
    n = 0;
    for (size_t i = 0; i < m; i++) {
        group[i] = SIZE_MAX;
        /* an empty span (no known time) shares no time with anything */
        if (end_ms[i] > start_ms[i]) s[n++] = (struct span){start_ms[i], end_ms[i], i};
    }
    qsort(s, n, sizeof *s, cmp_span);
    /* a sweep by start: an application joins the running group when it starts before the
       latest end so far (strictly: one ending as another starts did not share the cluster) */
    size_t groups = 0, first = 0;
    int64_t reach = 0;
    for (size_t k = 0; k <= n; k++) {
        if (k < n && k > first && s[k].start < reach) {
            if (s[k].end > reach) reach = s[k].end;
            continue;
        }
        if (k - first >= 2) {
            for (size_t m = first; m < k; m++) group[s[m].i] = groups;
            groups++;
        }
        if (k < n) first = k, reach = s[k].end;
    }
    free(s);
    return groups;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* the number of values in v[0..n) (sorted) below x, or at most x when le */
static size_t rank_of(const int64_t *v, size_t n, int64_t x, bool le)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x || (le && v[mid] == x)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int clarity_findings_overlap_counts(const int64_t *start_ms, const int64_t *end_ms, size_t n, size_t *count)
{
    int64_t *s = malloc((n ? n : 1) * sizeof *s), *e = malloc((n ? n : 1) * sizeof *e);
    if (!s || !e) {
        free(s);
        free(e);
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (end_ms[i] > start_ms[i]) s[m] = start_ms[i], e[m++] = end_ms[i];
    qsort(s, m, sizeof *s, cmp_i64);
    qsort(e, m, sizeof *e, cmp_i64);
    /* j overlaps i unless it starts at or after i's end or ends at or before i's start; i
       itself is among the m and overlaps itself */
    for (size_t i = 0; i < n; i++)
        count[i] = end_ms[i] > start_ms[i] ? rank_of(s, m, end_ms[i], false) - rank_of(e, m, start_ms[i], true) - 1 : 0;
    free(s);
    free(e);
    return 0;
}

size_t clarity_findings_cross_windows(size_t n, size_t k, size_t *block)
{
    if (k < 4) k = 4;
    k -= k % 2;
    if (n < 2) return *block = n, 0;
    if (n <= k) return *block = n, 1;
    *block = k / 2;
    return (n + *block - 1) / *block - 1;   /* blocks less one: each window is a pair of neighbours */
}

static const char *app_label(const struct clarity_app *a, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s%s", clarity_app_str(a, a->app_id), a->attempt_id ? "/" : "", clarity_app_str(a, a->attempt_id));
    return buf;
}

/* The action by the culprit's cluster manager (spark.master): the share of the cluster it may
 * take is set there, not inside Spark's scheduler, which orders only one application's jobs. */
static void action(const struct clarity_app *a, struct clarity_finding *f, const char *id)
{
    const char *m = clarity_fnd_prop(a, "spark.master");
    struct fnd x = {.a = a};
    if (m && !strncmp(m, "yarn", 4))
        clarity_fnd_action(&x, f, "spark.yarn.queue", "default", "a queue with a smaller share",
                           "Run %.120s apart from the others: submit it to its own YARN queue with a smaller "
                           "capacity (or FAIR with a low weight), or at another time.", id);
    else if (m && !strncmp(m, "k8s", 3))
        clarity_fnd_action(&x, f, "spark.kubernetes.namespace", "default", "a namespace with a smaller quota",
                           "Run %.120s apart from the others: its own namespace or scheduler queue (Volcano, "
                           "YuniKorn) with a smaller quota or a low weight, or at another time.", id);
    else if (m && !strncmp(m, "spark://", 8))
        clarity_fnd_action(&x, f, "spark.cores.max", "all the cores", "fewer cores",
                           "Run %.120s apart from the others: cap its cores (spark.cores.max) so the others keep "
                           "theirs, or run it at another time.", id);
    else
        clarity_fnd_action(&x, f, NULL, NULL, NULL, "Run %.120s apart from the others: its own YARN queue or "
                           "Kubernetes namespace with a smaller share (FAIR with a low weight), or at another "
                           "time.", id);
}

int clarity_findings_cross(const struct clarity_app *const *apps, size_t napps, const struct iqcar_options *opt,
                           struct clarity_cross_finding *out, bool *found, struct clarity_error *err)
{
    *found = false;
    memset(out, 0, sizeof *out);
    if (napps < 2) return 0;
    struct iqcar_options o = *opt;
    o.unit = IQ_UNIT_APP;
    struct iqcar_result r;
    int rc = clarity_iqcar_analyze(apps, napps, &o, &r, err);
    if (rc) {
        clarity_iqcar_result_free(&r);
        return rc;
    }
    struct iqcar_victim_dor *v = NULL;
    if (r.nunits < 2 || !r.naggressive_rank || r.aggressive_close) goto out;
    const struct iqcar_ranked *ag = &r.aggressive_rank[0];
    double ms = o.aggressive_by_dor ? ag->aux : ag->dor, dor = o.aggressive_by_dor ? ag->dor : ag->aux;
    if (!(ms > 0)) goto out;
    size_t s = ag->node, nv = 0;
    /* its victims as `clarity contention` lists them: in the victim answer's order */
    double victim_ms = 0;
    if (clarity_fnd_victims(&r, s, &v, &nv, &victim_ms) != 0) {
        rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
        goto out;
    }
    /* the culprit matters when it took CROSS_MIN_SHARE of its victims' runtime: every
       application of a busy cluster takes some of the others' (the per-application rule) */
    if (!(victim_ms > 0) || ms < CROSS_MIN_SHARE * victim_ms) goto out;
    size_t ai = r.units[s].app;
    const struct clarity_app *a = apps[ai];
    struct clarity_finding *f = &out->f;
    f->kind = CLARITY_FK_CONTENTION;
    f->saving_core_ms = -1;
    out->culprit = ai;
    app_label(a, out->app_id, sizeof out->app_id);
    snprintf(out->name, sizeof out->name, "%s", clarity_app_str(a, a->name));
    out->victims_total = nv;
    char victims[200] = "";
    size_t len = 0;
    for (size_t j = 0; j < nv; j++) {
        const struct iqcar_unit_info *u = &r.units[v[j].unit];
        if (j < CLARITY_CROSS_MAX_VICTIMS) {
            struct clarity_cross_victim *cv = &out->victims[out->nvictims++];
            app_label(apps[u->app], cv->app_id, sizeof cv->app_id);
            cv->dor = v[j].dor;
            cv->runtime_ms = u->end > u->start ? u->end - u->start : 0;
            cv->index = u->app;
        }
        if (j < 3 && len < sizeof victims)
            len += (size_t)snprintf(victims + len, sizeof victims - len, "%s%.40s %.3f", j ? ", " : "", u->name, v[j].dor);
    }
    /* the title: its line of `clarity contention --unit app` (figures, then the first three
       victims), as the per-application finding has the query's; what does not fit is cut */
    char *t = out->title;
    snprintf(t, sizeof out->title, "Contention across applications (iQCAR): aggressive application %.60s: %.1f s of victim "
             "runtime attributed | total DOR %.4f; victims %.180s%s", r.units[s].name, ms / 1000, dor, victims,
             nv > 3 ? ", ..." : "");
    size_t tl = strlen(t) < sizeof f->title ? strlen(t) : sizeof f->title - 1;
    memcpy(f->title, t, tl);
    f->title[tl] = '\0';
    /* wall time: the attributed runtime spread over the applications running at once on
       average (their summed runtime over the span they cover), at most that span: victims
       that overlap each gain, the cluster's time only once */
    double span;
    double conc = clarity_fnd_mean_concurrency(&r, &span);
    double wall = ms / conc;
    f->saving_ms = (int64_t)(span > 0 && wall > span ? span : wall);
    f->method = CLARITY_FM_ESTIMATE;
    f->confidence = CLARITY_FC_LOW;
    clarity_fnd_ev(f, "victim_runtime_attributed_ms", ms, "ms");
    clarity_fnd_ev(f, "total_dor", dor, "share");
    clarity_fnd_ev(f, "victims", (double)nv, "count");
    clarity_fnd_ev(f, "victims_runtime_ms", victim_ms, "ms");
    clarity_fnd_ev(f, "applications", (double)r.nunits, "count");
    clarity_fnd_ev(f, "max_concurrency", (double)r.max_concurrency, "count");
    clarity_fnd_ev(f, "mean_concurrency", conc, "count");
    clarity_fnd_ev(f, "span_ms", span, "ms");
    snprintf(f->caveat, sizeof f->caveat, "estimate: iQCAR's degree of responsibility x the victims' runtime, over "
             "the mean number of applications running at once; hosts matched by name; waits from %s",
             r.src.instrumented_cpu || r.src.sidecar_tasks ? "instrumented metrics" : "labelled proxies of the event log");
    char who[300];
    snprintf(who, sizeof who, "%.128s%s%.100s%s", out->app_id, out->name[0] ? " (" : "", out->name, out->name[0] ? ")" : "");
    action(a, f, who);
    *found = true;
out:
    free(v);
    clarity_iqcar_result_free(&r);
    return rc;
}
