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

void clarity_fnd_sql_rules(struct fnd *x)
{
    const struct clarity_app *a = x->a;
    for (size_t q = 0; q < a->nsqls; q++) {
        const struct clarity_sql *s = &a->sqls[q];
        const char *plan = clarity_app_str(a, s->plan);
        const char *op = strstr(plan, "CartesianProduct") ? "CartesianProduct"
                         : strstr(plan, "BroadcastNestedLoopJoin") ? "BroadcastNestedLoopJoin" : NULL;
        if (!op || !s->end_ms || s->end_ms <= s->start_ms) continue;
        int64_t d = s->end_ms - s->start_ms;
        if (d < JOIN_MIN_MS || (double)d < JOIN_MIN_SHARE * (double)x->duration_ms) continue;
        struct clarity_finding *f = clarity_fnd_add(x, CLARITY_FK_CARTESIAN_JOIN);
        if (!f) return;
        f->where = CLARITY_FW_SQL;
        f->sql = s->id;
        f->saving_ms = d;
        f->method = CLARITY_FM_BOUND;
        f->confidence = CLARITY_FC_LOW;
        char b[24], desc[64];
        snprintf(desc, sizeof desc, "%s", clarity_app_str(a, s->description));
        snprintf(f->title, sizeof f->title, "%s in SQL query %lld%s%s%s, which took %s", op, (long long)s->id,
                 *desc ? " (" : "", desc, *desc ? ")" : "", clarity_fnd_dur(b, sizeof b, (double)d));
        clarity_fnd_ev(f, "query_ms", (double)d, "ms");
        snprintf(f->caveat, sizeof f->caveat, "upper bound: the whole query's time; a nested-loop join compares every "
                 "pair of rows, and no replay can run another join strategy");
        clarity_fnd_action(x, f, NULL, NULL, NULL, "Give the join an equality condition (so Spark can hash or "
                           "sort-merge it), or filter both sides before joining.");
    }
}
