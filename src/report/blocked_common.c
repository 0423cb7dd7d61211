/* Labels and verdicts shared by the blocked-time text and JSON reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/report.h"
#include "report/group_json.h"

const char *clarity_blocked_resource_note(const struct clarity_blocked_result *r, enum clarity_resource res)
{
    switch (res) {
    case CLARITY_RES_NETWORK:
        return "upper bound: Fetch Wait Time covers network and remote-disk time together; output write and "
               "remote input read times are not in standard logs (counted 0)";
    case CLARITY_RES_DISK:
        return "partial disk-blocked (shuffle only): Shuffle Write Time + Fetch Wait Time; input read, output write "
               "and local shuffle read times are not in standard logs";
    case CLARITY_RES_SHUFFLE_READ:
        return "Fetch Wait Time (remote blocks); local shuffle read time is not in standard logs";
    case CLARITY_RES_SHUFFLE_WRITE: return "Shuffle Write Time (ns), as logged";
    case CLARITY_RES_GC:
        return "JVM GC Time is the executor's GC over the task's life: concurrent tasks all count the same pauses";
    case CLARITY_RES_SCHED_DELAY:
        return "runtime - run - deserialize - result serialization - getting result, clamped at 0";
    case CLARITY_RES_NON_CPU:
        return r->cpu_logged < r->counts.n
                   ? "not available where tasks lack Executor CPU Time (logged from Spark 2.1)"
                   : "heuristic: each task keeps only Executor CPU Time + Deserialize CPU Time";
    case CLARITY_RES_STRAGGLERS:
        return "Dolly rule: a task slower than its stage's median time per input byte runs at the median rate; "
               "tasks without input keep their runtime";
    default: return NULL;
    }
}

const char *clarity_blocked_group_name(const struct clarity_app *a, int kind, size_t row)
{
    if (kind == CLARITY_GROUP_JOB && row < a->njobs) {
        const struct clarity_job *j = &a->jobs[row];
        return clarity_app_str(a, j->description ? j->description : j->name);
    }
    if (kind == CLARITY_GROUP_SQL && row < a->nsqls) return clarity_app_str(a, a->sqls[row].description);
    return clarity_app_str(a, a->name);
}

void clarity__report_group_json(struct jsonw *w, const struct clarity_app *a, int kind, int64_t id, size_t row)
{
    clarity_jsonw_kstr(w, "kind", clarity_group_kind_name(kind));
    if (kind == CLARITY_GROUP_APP) {
        clarity_jsonw_key(w, "id");
        clarity_jsonw_null(w);
    } else {
        clarity_jsonw_kint(w, "id", id);
    }
    clarity_jsonw_kstr(w, "name", clarity_blocked_group_name(a, kind, row));
}

static const char *const verdict_label[CLARITY_RES_COUNT] = {
    "network", "disk (shuffle)", "shuffle read", "shuffle write", "GC", "scheduler delay", "all non-CPU",
    "stragglers",
};

static int pct_cmp(const void *pa, const void *pb, void *ctx)
{
    const struct clarity_blocked_group *g = ctx;
    double a = g->without[*(const int *)pa].improvement, b = g->without[*(const int *)pb].improvement;
    return (a < b) - (a > b);
}

void clarity_blocked_verdict(const struct clarity_blocked_group *g, char *buf, size_t cap)
{
    if (g->tasks == 0) {
        snprintf(buf, cap, "no successful task: nothing to replay");
        return;
    }
    int order[CLARITY_RES_COUNT], n = 0;
    for (int r = 0; r < CLARITY_RES_COUNT; r++)
        if (r != CLARITY_RES_NETWORK && r != CLARITY_RES_NON_CPU && r != CLARITY_RES_SHUFFLE_READ &&
            g->without[r].available && g->without[r].improvement >= 0.01)
            order[n++] = r;
    qsort_r(order, (size_t)n, sizeof *order, pct_cmp, (void *)g);
    size_t w = 0;
    for (int k = 0; k < n && k < 3 && w < cap; k++)
        w += (size_t)snprintf(buf + w, cap - w, "%s%s %s %.0f%%", k ? "; " : "", verdict_label[order[k]],
                              k ? "up to" : "could save up to", 100 * g->without[order[k]].improvement);
    if (w < cap)
        w += (size_t)snprintf(buf + w, cap - w, "%snetwork %s %.1f%%", n ? "; " : "",
                              n ? "at most" : "could save at most", 100 * g->without[CLARITY_RES_NETWORK].improvement);
    if (n == 0 && w < cap) w += (size_t)snprintf(buf + w, cap - w, "; nothing else over 1%%");
    if (g->without[CLARITY_RES_NON_CPU].available && w < cap)
        snprintf(buf + w, cap - w, " (all non-CPU waiting: %.0f%%)", 100 * g->without[CLARITY_RES_NON_CPU].improvement);
}
