/* SQL executions: SparkListenerSQLExecutionStart with a sparkPlanInfo tree whose metric
 * accumulator ids are the ones the stages' tasks update, so plan nodes map to stages the way
 * the SQL UI maps them (SPARK-37340). */
#include <stdio.h>
#include "synth/internal.h"

static void metric_ids(struct sim *s, struct sy_stage *st)
{
    static const char *const names[SQL_COUNT] = {"number of output rows", "scan time", "shuffle bytes written",
                                                 "shuffle write time", "fetch wait time", "remote bytes read"};
    static const char *const types[SQL_COUNT] = {"sum", "timing", "size", "nsTiming", "timing", "size"};
    for (int k = 0; k < SQL_COUNT; k++) {
        bool want = k == SQL_ROWS || (k == SQL_SCAN_TIME && st->input_kind == IN_HDFS) ||
                    (k >= SQL_SW_BYTES && st->sw_bytes > 0);
        if (!want || st->sql[k].id) continue;
        st->sql[k] = (struct sql_metric){.id = s->next_accum++, .name = names[k], .type = types[k]};
    }
}

static void metrics(struct clarity_strbuf *b, const struct sy_stage *st, int from, int to)
{
    clarity_sb_str(b, "\"metrics\":[");
    bool first = true;
    for (int k = from; k <= to; k++) {
        if (!st->sql[k].id) continue;
        if (!first) clarity_sb_ch(b, ',');
        first = false;
        clarity_sb_printf(b, "{\"name\":\"%s\",\"accumulatorId\":%lld,\"metricType\":\"%s\"}", st->sql[k].name,
                  (long long)st->sql[k].id, st->sql[k].type);
    }
    clarity_sb_ch(b, ']');
}

static const char *op_of(const struct sy_stage *st)
{
    return st->op ? st->op : st->input_kind == IN_HDFS ? "Project" : "HashAggregate";
}

/* One stage as plan nodes: its operator, over a scan (leaf stage) or exchanges into its
 * parents; a broadcast join also takes the query's broadcast stages. */
static void node(struct sim *s, struct clarity_strbuf *b, struct clarity_strbuf *txt, const struct sy_query *q, int si, int depth)
{
    const struct sy_stage *st = &s->stages[si];
    const char *op = op_of(st);
    clarity_sb_printf(txt, "%*s%s%s\n", depth * 3, "", depth ? "+- " : "", op);
    clarity_sb_printf(b, "{\"nodeName\":\"%s\",\"simpleString\":\"%s\",\"children\":[", op, op);
    bool first = true;
    if (st->input_kind == IN_HDFS) {
        clarity_sb_printf(txt, "%*s+- FileScan parquet\n", (depth + 1) * 3, "");
        clarity_sb_str(b, "{\"nodeName\":\"Scan parquet\",\"simpleString\":\"FileScan parquet [ss_item_sk#1,ss_sales_price#2]\","
                  "\"children\":[],\"metadata\":{\"Format\":\"Parquet\",\"Location\":\"InMemoryFileIndex[hdfs://namenode:8020/tpcds]\"},");
        metrics(b, st, SQL_SCAN_TIME, SQL_SCAN_TIME);
        clarity_sb_ch(b, '}');
        first = false;
    }
    for (int p = 0; p < st->nparents; p++) {
        const struct sy_stage *ps = &s->stages[st->parents[p]];
        if (!first) clarity_sb_ch(b, ',');
        first = false;
        clarity_sb_printf(txt, "%*s+- Exchange hashpartitioning(%d)\n", (depth + 1) * 3, "", st->ntasks);
        clarity_sb_printf(b, "{\"nodeName\":\"Exchange\",\"simpleString\":\"Exchange hashpartitioning(ss_item_sk#1, %d), "
                     "ENSURE_REQUIREMENTS, [plan_id=%d]\",\"children\":[",
                  st->ntasks, ps->idx);
        node(s, b, txt, q, st->parents[p], depth + 2);
        clarity_sb_str(b, "],\"metadata\":{},");
        metrics(b, ps, SQL_SW_BYTES, SQL_REMOTE_BYTES);
        clarity_sb_ch(b, '}');
    }
    if (!strcmp(op, "BroadcastHashJoin"))
        for (int k = 0; k < q->njobs; k++) {
            const struct sy_job *j = &s->jobs[q->jobs[k]];
            for (int m = 0; m < j->nstages; m++) {
                const struct sy_stage *bs = &s->stages[j->stages[m]];
                if (!bs->op || strcmp(bs->op, "BroadcastExchange")) continue;
                if (!first) clarity_sb_ch(b, ',');
                first = false;
                node(s, b, txt, q, bs->idx, depth + 1);
            }
        }
    clarity_sb_str(b, "],\"metadata\":{},");
    metrics(b, st, SQL_ROWS, SQL_ROWS);
    clarity_sb_ch(b, '}');
}

void clarity_ev_sql_start(struct sim *s, struct sy_query *q)
{
    for (int k = 0; k < q->njobs; k++) {
        struct sy_job *j = &s->jobs[q->jobs[k]];
        for (int m = 0; m < j->nstages; m++) metric_ids(s, &s->stages[j->stages[m]]);
    }
    const struct sy_job *last = &s->jobs[q->jobs[q->njobs - 1]];
    int root = last->stages[last->nstages - 1];
    struct clarity_strbuf plan = {0}, txt = {0};
    clarity_sb_str(&txt, "== Physical Plan ==\nAdaptiveSparkPlan isFinalPlan=true\n");
    clarity_sb_str(&plan, "{\"nodeName\":\"AdaptiveSparkPlan\",\"simpleString\":\"AdaptiveSparkPlan isFinalPlan=true\",\"children\":[");
    node(s, &plan, &txt, q, root, 1);
    clarity_sb_str(&plan, "],\"metadata\":{},\"metrics\":[]}");
    struct clarity_strbuf *b = &s->line;
    b->n = 0;
    clarity_sb_printf(b, "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\",\"executionId\":%lld,"
                 "\"rootExecutionId\":%lld,\"description\":",
              (long long)q->sql_id, (long long)q->sql_id);
    clarity_sb_jstr(b, q->description);
    clarity_sb_str(b, ",\"details\":\"org.apache.spark.sql.Dataset.collect(Dataset.scala:3585)\",\"physicalPlanDescription\":");
    clarity_sb_jstr(b, txt.p ? txt.p : "");
    clarity_sb_str(b, ",\"sparkPlanInfo\":");
    clarity_sb_str(b, plan.p ? plan.p : "{}");
    clarity_sb_kint(b, ",\"time\":", sim_ms(s, s->now));
    clarity_sb_str(b, ",\"modifiedConfigs\":{},\"jobTags\":[]}");
    if (plan.oom || txt.oom) SIM_FAIL(s, "out of memory");
    clarity_sb_free(&plan);
    clarity_sb_free(&txt);
    clarity_ev_emit(s, true);
}
