/* A query's plan metrics list: every plan node's metrics and every AQE metric update append to
 * it. Up to half of CLARITY_SQL_METRICS_HEAP entries it lives in the model's arena (no malloc per
 * small query); past that it moves to the heap and grows by realloc, because in the arena every
 * outgrown block stayed behind, zeroed and resident. These tests hold the list to the same
 * entries in the same order across both moves, and (under ASan) free the heap block with the
 * model. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "load_helpers.h"
#include "model/build.h"

#define START "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"x\",\"App ID\":\"a-1\",\"Timestamp\":1000,\"User\":\"u\"}\n"
#define SQL_EV "org.apache.spark.sql.execution.ui."

/* One execution whose plan is a single node with `nplan` metrics (accumulators base + 0..), then
 * `nupd` AQE metric updates of `per` metrics each (accumulators base + 1000 + 0..). */
static size_t write_query(char *buf, size_t cap, int id, int base, int nplan, int nupd, int per)
{
    size_t n = (size_t)snprintf(buf, cap,
        "{\"Event\":\"" SQL_EV "SparkListenerSQLExecutionStart\",\"executionId\":%d,\"description\":\"q%d\","
        "\"details\":\"\",\"physicalPlanDescription\":\"== Physical Plan ==\",\"sparkPlanInfo\":{\"nodeName\":"
        "\"Scan\",\"simpleString\":\"Scan t\",\"children\":[],\"metadata\":{},\"metrics\":[", id, id);
    for (int i = 0; i < nplan; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s{\"name\":\"p%d\",\"accumulatorId\":%d,\"metricType\":\"sum\"}",
                              i ? "," : "", i, base + i);
    n += (size_t)snprintf(buf + n, cap - n, "]},\"time\":2000}\n");
    for (int u = 0; u < nupd; u++) {
        n += (size_t)snprintf(buf + n, cap - n,
            "{\"Event\":\"" SQL_EV "SparkListenerSQLAdaptiveSQLMetricUpdates\",\"executionId\":%d,\"sqlPlanMetrics\":[", id);
        for (int i = 0; i < per; i++)
            n += (size_t)snprintf(buf + n, cap - n, "%s{\"name\":\"u%d\",\"accumulatorId\":%d,\"metricType\":\"timing\"}",
                                  i ? "," : "", u * per + i, base + 1000 + u * per + i);
        n += (size_t)snprintf(buf + n, cap - n, "]}\n");
    }
    return n;
}

Test(model_sql_metrics, list_keeps_every_entry_in_order_across_arena_and_heap)
{
    static char text[1 << 16];
    size_t n = (size_t)snprintf(text, sizeof text, START);
    /* query 7: 3 + 40 x 5 = 203 entries, through the arena (<= 32), the heap's first block (64)
     * and two reallocs (128, 256); query 8: 2 + 1 x 3 = 5 entries, arena only */
    n += write_query(text + n, sizeof text - n, 7, 100, 3, 40, 5);
    n += write_query(text + n, sizeof text - n, 8, 5000, 2, 1, 3);
    cr_assert_lt(n, sizeof text - 1);

    struct clarity_app *a = NULL;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(text, &a, &err), CLARITY_OK, "%s", err.msg);

    const struct clarity_sql *q = clarity_app_sql(a, 7);
    cr_assert(q);
    cr_assert_eq(q->nmetrics, 203);
    cr_assert_eq(q->cap_metrics, 256);
    cr_assert_geq(q->cap_metrics, CLARITY_SQL_METRICS_HEAP);
    for (int i = 0; i < 3; i++) cr_assert_eq(q->metrics[i].accum_id, 100 + i);
    for (int i = 0; i < 200; i++) cr_assert_eq(q->metrics[3 + i].accum_id, 1100 + i, "entry %d", 3 + i);
    cr_assert_str_eq(clarity_app_str(a, q->metrics[2].name), "p2");
    cr_assert_str_eq(clarity_app_str(a, q->metrics[31].name), "u28");    /* last arena entry */
    cr_assert_str_eq(clarity_app_str(a, q->metrics[32].name), "u29");    /* first heap entry */
    cr_assert_str_eq(clarity_app_str(a, q->metrics[202].name), "u199");
    cr_assert_str_eq(clarity_app_str(a, q->metrics[202].type), "timing");

    const struct clarity_sql *s = clarity_app_sql(a, 8);
    cr_assert(s);
    cr_assert_eq(s->nmetrics, 5);
    cr_assert_lt(s->cap_metrics, CLARITY_SQL_METRICS_HEAP);   /* a small query stays in the arena */
    cr_assert_eq(s->metrics[0].accum_id, 5000);
    cr_assert_eq(s->metrics[4].accum_id, 6002);
    clarity_app_free(a);
}
