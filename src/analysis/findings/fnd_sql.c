/* Plan-shape rules, where the log has the SQL plan: nested-loop and cartesian joins, the same
 * exchange computed twice in one query (repeated_work), a broadcast far above the broadcast
 * threshold (large_broadcast). No replay can run another join strategy, so their savings are
 * upper bounds, and only long queries (joins) or large figures are reported. Thresholds and
 * why: docs/findings.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/findings/fnd_internal.h"

/* a query must take at least this share of the run, and this long, to be worth a finding */
#define JOIN_MIN_SHARE 0.10
#define JOIN_MIN_MS 30000
/* a nested-loop join is a problem only when it produces many rows: TPC-DS q88 cross-joins
   eight one-row aggregates (cheap), while a real cartesian product multiplies its sides */
#define JOIN_MIN_ROWS 10000000.0

/* the most rows any nested-loop or cartesian node of the query output, from the stages'
   accumulables (the SQL metric "number of output rows"); -1 when the log has no value */
static double join_rows(const struct clarity_app *a, const struct clarity_sql *s, const char **op)
{
    double best = -1;
    for (size_t m = 0; m < s->nmetrics; m++) {
        const char *node = clarity_app_str(a, s->metrics[m].node);
        bool bnlj = strstr(node, "NestedLoopJoin") != NULL, cart = strstr(node, "CartesianProduct") != NULL;
        if ((!bnlj && !cart) || strcmp(clarity_app_str(a, s->metrics[m].name), "number of output rows")) continue;
        for (size_t k = 0; k < a->stage_accums.n; k++) {
            const struct clarity_accum *x = &a->stage_accums.p[k];
            if (x->id == s->metrics[m].accum_id && (double)x->value > best) {
                best = (double)x->value;
                *op = cart ? "CartesianProduct" : "BroadcastNestedLoopJoin";
            }
        }
    }
    return best;
}

static void cartesian_rule(struct fnd *x)
{
    const struct clarity_app *a = x->a;
    for (size_t q = 0; q < a->nsqls; q++) {
        const struct clarity_sql *s = &a->sqls[q];
        if (!s->end_ms || s->end_ms <= s->start_ms) continue;
        int64_t d = s->end_ms - s->start_ms;
        if (d < JOIN_MIN_MS || (double)d < JOIN_MIN_SHARE * (double)x->duration_ms) continue;
        const char *op = NULL;
        double rows = join_rows(a, s, &op);
        if (!op || rows < JOIN_MIN_ROWS) continue;
        struct clarity_finding *f = clarity_fnd_add(x, CLARITY_FK_CARTESIAN_JOIN);
        if (!f) return;
        f->where = CLARITY_FW_SQL;
        f->sql = s->id;
        f->saving_ms = d;
        f->method = CLARITY_FM_BOUND;
        f->confidence = CLARITY_FC_LOW;
        char b[24], desc[64];
        snprintf(desc, sizeof desc, "%s", clarity_app_str(a, s->description));
        snprintf(f->title, sizeof f->title, "%s in SQL query %lld%s%s%s output %.3g rows; the query took %s", op,
                 (long long)s->id, *desc ? " (" : "", desc, *desc ? ")" : "", rows,
                 clarity_fnd_dur(b, sizeof b, (double)d));
        clarity_fnd_ev(f, "query_ms", (double)d, "ms");
        clarity_fnd_ev(f, "join_output_rows", rows, "rows");
        snprintf(f->caveat, sizeof f->caveat, "upper bound: the whole query's time; a nested-loop join compares every "
                 "pair of rows, and no replay can run another join strategy");
        clarity_fnd_action(x, f, NULL, NULL, NULL, "Give the join an equality condition (so Spark can hash or "
                           "sort-merge it), or filter both sides before joining.");
    }
}

/* ---- repeated_work ----
 * Two copies of one exchange subtree (the same shape: node names and plan text without ids)
 * in one query's last plan, neither under a Reused* node, whose metrics were updated by
 * disjoint sets of stages: Spark computed the same shuffle or broadcast twice instead of
 * reusing it (spark.sql.exchange.reuse off, or plans that differ only in what its
 * canonicalization keeps, such as a nondeterministic expression). Copies sharing a stage are
 * one computation shown twice (AQE lists a reused stage under its reader, dynamic partition
 * pruning under its subquery), not repeated work. */

/* (accumulator id, stage row) sorted by id: which stages updated a plan metric */
struct acc_stage { int64_t id; uint32_t stage; };

static int acc_cmp(const void *pa, const void *pb)
{
    const struct acc_stage *a = pa, *b = pb;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return a->stage < b->stage ? -1 : a->stage > b->stage;
}

static bool is_reused(const char *name) { return strstr(name, "Reused") != NULL; }

/* every subtree inside its parent's and inside the list: what the model builds; a query whose
   tree is not so (a load cut short) is left alone rather than trusted */
static bool tree_ok(const struct clarity_sql *q)
{
    for (size_t i = 0; i < q->nnodes; i++)
        if (q->nodes[i].end <= i || q->nodes[i].end > q->nnodes) return false;
    return true;
}
/* a node that produces an exchange's data (Exchange, BroadcastExchange, Photon's
   ShuffleExchangeSink, a GPU exchange), not the reader of one (Photon's ...ExchangeSource) */
static bool is_producer(const char *name)
{
    return strstr(name, "Exchange") && !is_reused(name) && !strstr(name, "Source");
}

struct copy { uint32_t node; uint64_t shape; uint32_t depth; };

static int copy_cmp(const void *pa, const void *pb)
{
    const struct copy *a = pa, *b = pb;
    if (a->shape != b->shape) return a->shape < b->shape ? -1 : 1;
    return a->node < b->node ? -1 : a->node > b->node;
}

/* marks in `in` (one byte per stage row) the stages that updated a metric of the subtree of
   node i, nodes under a Reused* node left out, and of node i itself only its write side
   ("shuffle bytes written", "shuffle records written", "shuffle write time"): its read-side
   metrics ("records read", "fetch wait time") are updated by the stage that reads the
   exchange, which both copies may share; returns how many were newly marked */
static size_t subtree_stages(const struct clarity_app *a, const struct clarity_sql *q, const uint8_t *reused,
                             uint32_t i, const struct acc_stage *ix, size_t nix, uint8_t *in, uint8_t mark)
{
    size_t n = 0;
    for (uint32_t k = i; k < q->nodes[i].end; k++) {
        if (reused[k]) continue;
        const struct clarity_plan_node *pn = &q->nodes[k];
        for (uint32_t m = pn->metric0; m < pn->metric0 + pn->nmetric && m < q->nmetrics; m++) {
            if (k == i && strncmp(clarity_app_str(a, q->metrics[m].name), "shuffle ", 8)) continue;
            struct acc_stage key = {q->metrics[m].accum_id, 0};
            size_t lo = 0, hi = nix;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (acc_cmp(&ix[mid], &key) < 0) lo = mid + 1;
                else hi = mid;
            }
            for (; lo < nix && ix[lo].id == key.id; lo++)
                if (!in[ix[lo].stage]) {
                    in[ix[lo].stage] = mark;
                    n++;
                }
        }
    }
    return n;
}

/* What a copy's stages did: successful tasks, records read (input and shuffle) and shuffle
   records written. The same subtree over the same data reads and writes the same records, so
   copies whose figures differ by more than 1% are different computations that print alike
   (synth's TPC-DS plans name every scan the same way). */
static void copy_work(const struct fnd *x, const uint8_t *in, double w[3])
{
    w[0] = w[1] = w[2] = 0;
    for (size_t s = 0; s < x->a->nstages; s++) {
        if (!in[s]) continue;
        for (uint32_t i = x->lstart[s]; i < x->lstart[s] + x->lsucc[s]; i++) {
            size_t r = x->row[i];
            w[0] += 1;
            w[1] += (double)clarity_task_metric(x->a, r, CLARITY_TM_INPUT_RECORDS) +
                    (double)clarity_task_metric(x->a, r, CLARITY_TM_SR_RECORDS);
            w[2] += (double)clarity_task_metric(x->a, r, CLARITY_TM_SW_RECORDS);
        }
    }
}

static bool same_work(const double a[3], const double b[3])
{
    for (int k = 0; k < 3; k++) {
        double m = a[k] > b[k] ? a[k] : b[k], d = a[k] > b[k] ? a[k] - b[k] : b[k] - a[k];
        if (d > 0.01 * m) return false;
    }
    return true;
}

struct rw_scratch {
    struct acc_stage *ix; size_t nix;
    uint8_t *reused, *covered; size_t cap_nodes;
    struct copy *copies;
    uint8_t *orig, *dup;          /* per stage row: the first copy's stages, the duplicates' */
};

static void repeated_query(struct fnd *x, const struct clarity_sql *q, struct rw_scratch *w)
{
    const struct clarity_app *a = x->a;
    size_t nn = q->nnodes, nc = 0;
    if (!tree_ok(q)) return;
    memset(w->reused, 0, nn);
    memset(w->covered, 0, nn);
    for (uint32_t i = 0; i < nn; i++)
        if (!w->reused[i] && is_reused(clarity_app_str(a, q->nodes[i].name)))
            memset(w->reused + i, 1, q->nodes[i].end - i);
    for (uint32_t i = 0; i < nn; i++)
        if (!w->reused[i] && is_producer(clarity_app_str(a, q->nodes[i].name)))
            w->copies[nc++] = (struct copy){i, q->nodes[i].shape, q->nodes[i].depth};
    if (nc < 2) return;
    qsort(w->copies, nc, sizeof *w->copies, copy_cmp);
    /* groups of one shape, outermost first: an inner exchange of a repeated subtree is
       repeated too, and is part of the outer finding */
    for (;;) {
        size_t best = nc, best_n = 0;
        uint32_t best_depth = UINT32_MAX;
        for (size_t g = 0; g < nc;) {
            size_t e = g;
            while (e < nc && w->copies[e].shape == w->copies[g].shape) e++;
            bool open = e - g >= 2;
            uint32_t d = UINT32_MAX;
            for (size_t k = g; k < e && open; k++) {
                if (w->covered[w->copies[k].node]) open = false;
                if (w->copies[k].depth < d) d = w->copies[k].depth;
            }
            if (open && d < best_depth) { best = g; best_n = e - g; best_depth = d; }
            g = e;
        }
        if (best == nc) return;
        const struct copy *c = &w->copies[best];
        for (size_t k = 0; k < best_n; k++) {
            uint32_t i = c[k].node;
            memset(w->covered + i, 1, q->nodes[i].end - i);
        }
        /* the first copy (plan order) is the one kept; others whose stages are disjoint from
           it and from each other are duplicates */
        memset(w->orig, 0, a->nstages);
        memset(w->dup, 0, a->nstages);
        if (!subtree_stages(a, q, w->reused, c[0].node, w->ix, w->nix, w->orig, 1)) continue;
        size_t ncopies = 1, ndup_stages = 0;
        double w0[3], wk[3];
        copy_work(x, w->orig, w0);
        for (size_t k = 1; k < best_n; k++) {
            /* into dup, only when none of its stages is the original's or another copy's */
            uint8_t *tmp = calloc(a->nstages ? a->nstages : 1, 1);
            if (!tmp) { x->oom = 1; return; }
            size_t n = subtree_stages(a, q, w->reused, c[k].node, w->ix, w->nix, tmp, 1);
            bool disjoint = n > 0;
            for (size_t s = 0; s < a->nstages && disjoint; s++)
                if (tmp[s] && (w->orig[s] || w->dup[s])) disjoint = false;
            if (disjoint) {
                copy_work(x, tmp, wk);
                disjoint = same_work(w0, wk);
            }
            if (disjoint) {
                for (size_t s = 0; s < a->nstages; s++)
                    if (tmp[s]) w->dup[s] = 1;
                ndup_stages += n;
                ncopies++;
            }
            free(tmp);
        }
        if (ncopies < 2) continue;
        double task_ms = 0;
        int64_t first_dup = -1, first_orig = -1;
        for (size_t s = 0; s < a->nstages; s++) {
            if (w->orig[s] && first_orig < 0) first_orig = a->stages[s].stage_id;
            if (!w->dup[s]) continue;
            if (first_dup < 0) first_dup = a->stages[s].stage_id;
            for (uint32_t i = x->lstart[s]; i < x->lstart[s + 1]; i++) {
                task_ms += x->rt[i];
                clarity_fnd_mod_set(x, i, 0);
            }
        }
        double sim = clarity_fnd_mod_end(x, 0, -1);
        if (sim < 0) continue;
        struct clarity_finding *f = clarity_fnd_add(x, CLARITY_FK_REPEATED_WORK);
        if (!f) return;
        f->where = CLARITY_FW_SQL;
        f->sql = q->id;
        clarity_fnd_set_saving(x, f, sim);
        f->method = CLARITY_FM_BOUND;
        f->confidence = CLARITY_FC_MEDIUM;
        char desc[48], b[24];
        snprintf(desc, sizeof desc, "%s", clarity_app_str(a, q->description));
        const char *op = clarity_app_str(a, q->nodes[c[0].node].name);
        char again[48];
        if (ndup_stages == 1) snprintf(again, sizeof again, "stage %lld", (long long)first_dup);
        else snprintf(again, sizeof again, "%zu stages from stage %lld", ndup_stages, (long long)first_dup);
        char t[512];   /* every part is bounded: it fits, and the title cuts it */
        snprintf(t, sizeof t, "Repeated work in SQL query %lld%s%.32s%s: the same %.24s subtree ran %zu times "
                 "(stage %lld; again in %.40s, %.16s of task time) without reuse", (long long)q->id, *desc ? " (" : "", desc,
                 *desc ? ")" : "", op, ncopies, (long long)first_orig, again, clarity_fnd_dur(b, sizeof b, task_ms));
        size_t tl = strlen(t) < sizeof f->title ? strlen(t) : sizeof f->title - 1;
        memcpy(f->title, t, tl);
        f->title[tl] = '\0';
        clarity_fnd_ev(f, "copies", (double)ncopies, "count");
        clarity_fnd_ev(f, "duplicate_stages", (double)ndup_stages, "count");
        clarity_fnd_ev(f, "duplicate_task_ms", task_ms, "ms");
        snprintf(f->caveat, sizeof f->caveat, "upper bound: the replay without the duplicate's stages; reusing the "
                 "exchange still reads its output once more");
        const char *reuse = clarity_fnd_prop(a, "spark.sql.exchange.reuse");
        if (reuse && !strcmp(reuse, "false"))
            clarity_fnd_action(x, f, "spark.sql.exchange.reuse", "true", "true",
                               "Turn exchange reuse back on so Spark computes the subtree once.");
        else
            clarity_fnd_action(x, f, NULL, NULL, NULL, "Compute the shared part once: cache or persist the common "
                               "DataFrame, or make both branches identical (a nondeterministic expression or a "
                               "differing projection keeps Spark from reusing the exchange).");
    }
}

static void repeated_rule(struct fnd *x)
{
    const struct clarity_app *a = x->a;
    size_t maxn = 0;
    for (size_t q = 0; q < a->nsqls; q++)
        if (a->sqls[q].nnodes > maxn) maxn = a->sqls[q].nnodes;
    if (maxn < 2 || !a->stage_accums.n) return;
    struct rw_scratch w = {0};
    w.ix = malloc(a->stage_accums.n * sizeof *w.ix);
    w.reused = malloc(maxn);
    w.covered = malloc(maxn);
    w.copies = malloc(maxn * sizeof *w.copies);
    w.orig = malloc(a->nstages + 1);
    w.dup = malloc(a->nstages + 1);
    if (!w.ix || !w.reused || !w.covered || !w.copies || !w.orig || !w.dup) {
        x->oom = 1;
        goto out;
    }
    for (size_t k = 0; k < a->stage_accums.n; k++) {
        const struct clarity_accum *ac = &a->stage_accums.p[k];
        if (ac->owner < a->nstages) w.ix[w.nix++] = (struct acc_stage){ac->id, ac->owner};
    }
    qsort(w.ix, w.nix, sizeof *w.ix, acc_cmp);
    for (size_t q = 0; q < a->nsqls && !x->oom; q++)
        if (a->sqls[q].nnodes >= 2) repeated_query(x, &a->sqls[q], &w);
out:
    free(w.ix); free(w.reused); free(w.covered); free(w.copies); free(w.orig); free(w.dup);
}

/* ---- large_broadcast ----
 * A BroadcastExchange whose built relation (its "data size" metric, sent by the driver in
 * SparkListenerDriverAccumUpdates) is at least LB_FACTOR x the broadcast threshold and at
 * least LB_MIN_BYTES. The planner broadcasts a side whose estimated size is under
 * spark.sql.autoBroadcastJoinThreshold (or a hinted one): far above it, the estimate was
 * wrong (missing or stale statistics, a filter it over-trusted) or a hint forced it, and the
 * relation is collected to the driver, built there and copied to every executor. */
#define LB_FACTOR 4.0
#define LB_MIN_BYTES (128.0 * FND_MB)
#define LB_DEFAULT_THRESHOLD (10.0 * FND_MB)   /* Spark's default, 10m */

static double node_driver_metric(const struct clarity_app *a, const struct clarity_sql *q,
                                 const struct clarity_plan_node *pn, const char *name)
{
    for (uint32_t m = pn->metric0; m < pn->metric0 + pn->nmetric && m < q->nmetrics; m++) {
        int64_t v;
        if (!strcmp(clarity_app_str(a, q->metrics[m].name), name) &&
            clarity_sql_driver_value(q, q->metrics[m].accum_id, &v))
            return (double)v;
    }
    return -1;
}

static double threshold_of(const struct clarity_app *a, const char *setting)
{
    const char *v = clarity_fnd_prop(a, setting);
    if (!v) return 0;
    int64_t b = clarity_fnd_jvm_size(v);
    return b > 0 ? (double)b : -1;
}

static void broadcast_rule(struct fnd *x)
{
    const struct clarity_app *a = x->a;
    /* the larger of the two thresholds (AQE re-plans joins with its own, Spark 3.2+); with
       broadcasting turned off (-1), a broadcast came from a hint: compare with the default */
    double thr = threshold_of(a, "spark.sql.autoBroadcastJoinThreshold"),
           aqe = threshold_of(a, "spark.sql.adaptive.autoBroadcastJoinThreshold");
    bool set = thr != 0;
    if (thr <= 0) thr = LB_DEFAULT_THRESHOLD;
    if (aqe > thr) thr = aqe;
    for (size_t qi = 0; qi < a->nsqls; qi++) {
        const struct clarity_sql *q = &a->sqls[qi];
        if (!q->ndriver_accums || !q->nnodes || !tree_ok(q)) continue;
        size_t n = 0;
        double biggest = 0, time_ms = 0, rows = -1;
        uint32_t under_reused = 0;
        for (uint32_t i = 0; i < q->nnodes; i++) {
            const char *name = clarity_app_str(a, q->nodes[i].name);
            if (i < under_reused) continue;
            if (is_reused(name)) { under_reused = q->nodes[i].end; continue; }
            if (!strstr(name, "BroadcastExchange")) continue;
            double size = node_driver_metric(a, q, &q->nodes[i], "data size");
            if (size < LB_FACTOR * thr || size < LB_MIN_BYTES) continue;
            n++;
            double t = 0, v;
            if ((v = node_driver_metric(a, q, &q->nodes[i], "time to collect")) > 0) t += v;
            if ((v = node_driver_metric(a, q, &q->nodes[i], "time to build")) > 0) t += v;
            if ((v = node_driver_metric(a, q, &q->nodes[i], "time to broadcast")) > 0) t += v;
            time_ms += t;
            if (size > biggest) {
                biggest = size;
                rows = node_driver_metric(a, q, &q->nodes[i], "number of output rows");
            }
        }
        if (!n) continue;
        int64_t d = q->end_ms > q->start_ms ? q->end_ms - q->start_ms : 0;
        struct clarity_finding *f = clarity_fnd_add(x, CLARITY_FK_LARGE_BROADCAST);
        if (!f) return;
        f->where = CLARITY_FW_SQL;
        f->sql = q->id;
        f->saving_ms = (int64_t)(d > 0 && time_ms > (double)d ? (double)d : time_ms);
        f->method = CLARITY_FM_BOUND;
        f->confidence = CLARITY_FC_LOW;
        char desc[48], b1[24], b2[24], b3[24];
        snprintf(desc, sizeof desc, "%s", clarity_app_str(a, q->description));
        snprintf(f->title, sizeof f->title, "Large broadcast in SQL query %lld%s%s%s: %s broadcast (%.0fx the %s "
                 "threshold)%s, %s to collect, build and send", (long long)q->id, *desc ? " (" : "", desc,
                 *desc ? ")" : "", clarity_fnd_bytes(b1, sizeof b1, biggest), biggest / thr,
                 clarity_fnd_bytes(b2, sizeof b2, thr), n > 1 ? " and more" : "",
                 clarity_fnd_dur(b3, sizeof b3, time_ms));
        clarity_fnd_ev(f, "broadcast_bytes", biggest, "bytes");
        clarity_fnd_ev(f, "threshold_bytes", thr, "bytes");
        if (rows >= 0) clarity_fnd_ev(f, "broadcast_rows", rows, "rows");
        clarity_fnd_ev(f, "large_broadcasts", (double)n, "count");
        clarity_fnd_ev(f, "broadcast_ms", time_ms, "ms");
        snprintf(f->caveat, sizeof f->caveat, "upper bound: the broadcasts' own time (collect, build, send); a "
                 "sort-merge join instead shuffles both sides, and executors hold the relation in memory");
        if (set && thr > LB_DEFAULT_THRESHOLD)
            clarity_fnd_action(x, f, "spark.sql.autoBroadcastJoinThreshold", "10m", "10m",
                               "Lower the broadcast threshold back to the default (the raised one let a %s side "
                               "in); or hint the join MERGE.", b1);
        else
            clarity_fnd_action(x, f, NULL, NULL, NULL, "The planner estimated this side under the threshold: "
                               "refresh the table's statistics (ANALYZE TABLE ... COMPUTE STATISTICS), drop a "
                               "BROADCAST hint, or hint the join MERGE.");
    }
}

void clarity_fnd_sql_rules(struct fnd *x)
{
    cartesian_rule(x);
    if (!x->oom) repeated_rule(x);
    if (!x->oom) broadcast_rule(x);
}
