/* Plan-shape rules, where the log has the SQL plan: nested-loop and cartesian joins. No
 * replay can run another join strategy, so the saving is the query's own time above the
 * driver's (an upper bound), and only long queries are reported. Thresholds and why:
 * docs/findings.md. */
#include <stdio.h>
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

void clarity_fnd_sql_rules(struct fnd *x)
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
