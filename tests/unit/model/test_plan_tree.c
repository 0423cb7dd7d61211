/* The plan tree and the driver-side SQL metrics the model keeps, with exact values from
 * tests/data/findings-plan.json (written by tests/findings/make-plan-fixture.py). */
#include <criterion/criterion.h>
#include <string.h>
#include "clarity/model.h"
#include "load_helpers.h"

static struct clarity_app *app;

static void setup(void)
{
    struct clarity_error err = {0};
    cr_assert_eq(load_fixture("findings-plan.json", &app, &err), CLARITY_OK, "load failed: %s", err.msg);
}
static void teardown(void) { clarity_app_free(app); }

TestSuite(model_plan, .init = setup, .fini = teardown);

/* query 1: AdaptiveSparkPlan > SortMergeJoin > two sides of Sort > ShuffleQueryStage >
 * Exchange > WholeStageCodegen > Filter > Scan: 2 + 2 x 6 = 14 nodes, depth first */
Test(model_plan, tree_depth_first)
{
    const struct clarity_sql *q = clarity_app_sql(app, 1);
    cr_assert(q);
    cr_assert_eq(q->nnodes, 14);
    cr_assert_str_eq(clarity_app_str(app, q->nodes[0].name), "AdaptiveSparkPlan");
    cr_assert_eq(q->nodes[0].end, 14);
    cr_assert_eq(q->nodes[1].end, 14);
    cr_assert_str_eq(clarity_app_str(app, q->nodes[2].name), "Sort");
    cr_assert_eq(q->nodes[2].end, 8);
    cr_assert_eq(q->nodes[2].depth, 2);
    cr_assert_str_eq(clarity_app_str(app, q->nodes[4].name), "Exchange");
    cr_assert_str_eq(clarity_app_str(app, q->nodes[7].name), "Scan parquet ");
    cr_assert_eq(q->nodes[7].end, 8);
    /* the exchange's three metrics, in the plan's order */
    cr_assert_eq(q->nodes[4].nmetric, 3);
    cr_assert_eq(q->metrics[q->nodes[4].metric0].accum_id, 103);
}

/* the two sides differ only in expression ids (k#10 / k#20), plan ids, codegen and query-stage
 * numbers: one shape; the join above them is another */
Test(model_plan, shapes_ignore_ids_only)
{
    const struct clarity_sql *q = clarity_app_sql(app, 1);
    cr_assert_eq(q->nodes[2].shape, q->nodes[8].shape);
    cr_assert_eq(q->nodes[4].shape, q->nodes[10].shape);
    cr_assert_neq(q->nodes[2].shape, q->nodes[4].shape);
    cr_assert_neq(q->nodes[1].shape, q->nodes[2].shape);
}

Test(model_plan, driver_metrics)
{
    const struct clarity_sql *q = clarity_app_sql(app, 2);
    int64_t v = 0;
    cr_assert_eq(q->ndriver_accums, 6);
    cr_assert(clarity_sql_driver_value(q, 406, &v));
    cr_assert_eq(v, 600LL << 20);
    cr_assert(clarity_sql_driver_value(q, 404, &v));
    cr_assert_eq(v, 8000);
    cr_assert(!clarity_sql_driver_value(q, 410, &v));   /* a task-side metric: not a driver value */
    cr_assert_eq(clarity_app_sql(app, 1)->ndriver_accums, 0);
}
