/* The fetch-wait scan's reference from another run of the same job (issue 19, lad30). On 8 and
 * 16 hosts a Sort's 64 reducers read in one wave, and a slow spell over that wave slows the
 * scan's own reference (their 25th percentile) as much as every reader: on synth's throttled
 * Sorts x2-4.75 a fault-free run's, and no reader ran outside the spell. Last night's run of the
 * same job has such readers. Its shuffle-read stages are matched with this application's by what
 * they are, as `clarity diff` matches stages (clarity_match_items: the stage name, which holds the
 * call site, then the position among the stages of that name in id order), never by id; each
 * stage's reference is the 25th percentile of the matched stage's readers' (fetch wait +
 * latency) per remote MB, the scan's own rate and quantile, so that only where the readers come
 * from changes. A reader is the scan's (min_bytes of remote blocks, fetch wait logged); a
 * stage's attempts count as one stage (a retried stage is the same work). Linear in both task
 * tables plus sorts. */
#include <math.h>
#include <stdlib.h>
#include "clarity/anomalies.h"
#include "util/stats.h"
#include "clarity/sim.h"

/* One reader: its stage id and name (string id) and its log rate. */
struct rrow { int64_t sid; double l; uint32_t name; int32_t dense; };

static int by_sid_rate(const void *a, const void *b)
{
    const struct rrow *x = a, *y = b;
    if (x->sid != y->sid) return x->sid < y->sid ? -1 : 1;
    return (x->l > y->l) - (x->l < y->l);
}

/* The reader row of task row i of app a, or false when it is no reader. */
static bool reader_of(const struct clarity_app *a, size_t i, const struct ladra_netscan_options *o, struct rrow *out)
{
    struct ladra_input one = {.app = a};
    struct ladra_task t = {.row = (uint32_t)i};
    struct ladra_metrics m;
    clarity_ladra_task_metrics(&one, &t, &m);
    if (m.fetch_wait_ms < 0 || (double)m.remote_bytes < o->min_bytes) return false;
    int64_t srow = clarity_icol_get(&a->tasks.stage, i);
    if (srow < 0 || (size_t)srow >= a->nstages) return false;
    *out = (struct rrow){.sid = a->stages[srow].stage_id, .name = a->stages[srow].name, .dense = -1,
                         .l = log(((double)m.fetch_wait_ms + o->latency_ms) / ((double)m.remote_bytes / 1e6))};
    return true;
}

/* Sorted rows r[0..n) grouped by stage id: one key per stage (name, id) and its first row. */
static size_t keys_of(const struct clarity_app *a, const struct rrow *r, size_t n, struct clarity_match_key *k, size_t *first)
{
    size_t nk = 0;
    for (size_t i = 0; i < n; i++)
        if (!i || r[i].sid != r[i - 1].sid) {
            k[nk] = (struct clarity_match_key){.name = clarity_app_str(a, r[i].name), .id = r[i].sid};
            first[nk++] = i;
        }
    first[nk] = n;
    return nk;
}

void clarity_ladra_netref_free(struct ladra_netref *ref)
{
    free(ref->stage_lref);
    *ref = (struct ladra_netref){0};
}

int clarity_ladra_netref_build(const struct ladra_input *in, const struct clarity_app *reference,
                               const struct ladra_netscan_options *o, struct ladra_netref *ref, struct clarity_error *err)
{
    *ref = (struct ladra_netref){.nstages = in->nstages};
    const struct clarity_app *a = in->app;
    size_t nb = reference->tasks.n, na = in->ntasks;
    struct rrow *ra = malloc((na ? na : 1) * sizeof *ra), *rb = malloc((nb ? nb : 1) * sizeof *rb);
    struct clarity_match_key *ka = malloc((na + 1) * sizeof *ka), *kb = malloc((nb + 1) * sizeof *kb);
    size_t *fa = malloc((na + 1) * sizeof *fa), *fb = malloc((nb + 1) * sizeof *fb);
    long *a2b = malloc((na + 1) * sizeof *a2b), *b2a = malloc((nb + 1) * sizeof *b2a);
    uint32_t *oa = malloc((na + 1) * sizeof *oa), *ob = malloc((nb + 1) * sizeof *ob);
    double *lb = NULL;
    ref->stage_lref = malloc((in->nstages ? in->nstages : 1) * sizeof *ref->stage_lref);
    int rc = 0;
    if (!ra || !rb || !ka || !kb || !fa || !fb || !a2b || !b2a || !oa || !ob || !ref->stage_lref) goto oom;
    for (size_t s = 0; s < in->nstages; s++) ref->stage_lref[s] = NAN;
    size_t ma = 0, mb = 0;
    if (a)
        for (size_t i = 0; i < na; i++)
            if (reader_of(a, in->tasks[i].row, o, &ra[ma])) ra[ma++].dense = in->tasks[i].stage;
    /* the reference's successful attempts, as the analysis takes them from its own log */
    for (size_t i = 0; i < nb; i++)
        if (clarity_icol_get(&reference->tasks.end, i) == CLARITY_END_SUCCESS &&
            (clarity_task_flags(reference, i) & CLARITY_TF_ENDED) && reader_of(reference, i, o, &rb[mb]))
            mb++;
    qsort(ra, ma, sizeof *ra, by_sid_rate);
    qsort(rb, mb, sizeof *rb, by_sid_rate);
    size_t nka = keys_of(a, ra, ma, ka, fa), nkb = keys_of(reference, rb, mb, kb, fb);
    ref->read_stages = nka;
    if (clarity_match_items(ka, nka, kb, nkb, false, a2b, b2a, oa, ob)) goto oom;
    /* the reference's rates in the same order (by stage, then rate), for the quantile */
    if (!(lb = malloc((mb ? mb : 1) * sizeof *lb))) goto oom;
    for (size_t i = 0; i < mb; i++) lb[i] = rb[i].l;
    for (size_t g = 0; g < nka; g++) {
        if (a2b[g] < 0) continue;
        size_t lo = fb[a2b[g]], cnt = fb[a2b[g] + 1] - lo;
        if (cnt < LADRA_NET_REF_MIN_READERS) continue;
        /* the 25th percentile, the scan's own reference rule */
        double l = clarity_quantile_linear(lb + lo, cnt, 0.25);
        for (size_t i = fa[g]; i < fa[g + 1]; i++)
            if (ra[i].dense >= 0 && (size_t)ra[i].dense < in->nstages) ref->stage_lref[ra[i].dense] = l;
        ref->matched++;
    }
    goto done;
oom:
    clarity_ladra_netref_free(ref);
    rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in LADRA's reference run");
done:
    free(ra), free(rb), free(ka), free(kb), free(fa), free(fb), free(a2b), free(b2a), free(oa), free(ob), free(lb);
    return rc;
}
