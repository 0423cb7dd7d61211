/* Per-task components from a TaskEnd as logged (scheduler delay, fetch wait, shuffle write
 * ns -> ms, GC, runtime without each resource), on one worked TaskEnd (T4). */
#include <criterion/criterion.h>
#include "../../model/load_helpers.h"
#include "clarity/sim.h"

#define EPS 1e-9
#define APP "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"t\",\"App ID\":\"a-1\",\"Timestamp\":900,\"User\":\"u\"}\n"
#define T4 "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Stage Attempt ID\":0,\"Task Type\":\"ShuffleMapTask\"," \
    "\"Task End Reason\":{\"Reason\":\"Success\"},\"Task Info\":{\"Task ID\":0,\"Index\":0,\"Attempt\":0,\"Launch Time\":1000," \
    "\"Executor ID\":\"1\",\"Host\":\"h\",\"Locality\":\"NODE_LOCAL\",\"Speculative\":false,\"Getting Result Time\":0," \
    "\"Finish Time\":2000,\"Failed\":false,\"Killed\":false},\"Task Metrics\":{\"Executor Deserialize Time\":30," \
    "\"Executor Run Time\":900,\"JVM GC Time\":40,\"Result Serialization Time\":10,\"Shuffle Read Metrics\":" \
    "{\"Remote Blocks Fetched\":1,\"Local Blocks Fetched\":0,\"Fetch Wait Time\":200,\"Remote Bytes Read\":5000," \
    "\"Local Bytes Read\":0,\"Total Records Read\":10},\"Shuffle Write Metrics\":{\"Shuffle Bytes Written\":100," \
    "\"Shuffle Write Time\":50000000,\"Shuffle Records Written\":1}}}\n"

Test(taskcomp, t4_per_task_derivation)
{
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(APP T4, &a, &err), CLARITY_OK, "%s", err.msg);
    struct clarity_task_view v;
    cr_assert_eq(clarity_task_view_build(a, &v, NULL), 0);
    cr_assert_eq(v.counts.n, 1);
    struct clarity_task_comp cs[1];
    clarity_task_view_stage_comps(&v, 0, cs);
    const struct clarity_task_comp *c = &cs[0];
    cr_assert_float_eq(c->runtime_ms, 1000, EPS);
    cr_assert_float_eq(c->sched_delay_ms, 60, EPS);
    cr_assert_float_eq(c->shuffle_write_ms, 50, EPS);
    cr_assert_float_eq(clarity_task_without(c, CLARITY_RES_NETWORK), 800, EPS);
    cr_assert_float_eq(clarity_task_without(c, CLARITY_RES_DISK), 750, EPS);
    double compute = clarity_task_compute_ms(c);
    cr_assert_float_eq(compute - c->gc_ms, 650, EPS);   /* compute_no_gc */
    cr_assert_float_eq(compute, 690, EPS);
    cr_assert_float_eq(clarity_task_without(c, CLARITY_RES_SHUFFLE_READ), 800, EPS);
    cr_assert_float_eq(clarity_task_without(c, CLARITY_RES_SHUFFLE_WRITE), 950, EPS);
    cr_assert_float_eq(clarity_task_without(c, CLARITY_RES_GC), 960, EPS);
    cr_assert_float_eq(clarity_task_without(c, CLARITY_RES_SCHED_DELAY), 940, EPS);
    /* no CPU time logged: no non-CPU what-if, no unattributed time */
    cr_assert_not(c->cpu_logged);
    cr_assert_float_eq(clarity_task_without(c, CLARITY_RES_NON_CPU), 1000, EPS);
    cr_assert(c->has_fetch);
    cr_assert(c->data_local);
    clarity_task_view_free(&v);
    clarity_app_free(a);
}

Test(taskcomp, getting_result_time_is_not_scheduler_delay)
{
    /* modern UI form: the result fetch (finish - getting result time) is not scheduler delay */
    char buf[4096];
    const char *p = strstr(APP T4, "\"Getting Result Time\":0");
    size_t head = (size_t)(p - (APP T4));
    snprintf(buf, sizeof buf, "%.*s\"Getting Result Time\":1980%s", (int)head, APP T4,
             p + strlen("\"Getting Result Time\":0"));
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(buf, &a, &err), CLARITY_OK, "%s", err.msg);
    struct clarity_task_comp c;
    clarity_task_comp_from_row(a, 0, &c);
    cr_assert_float_eq(c.getting_result_ms, 20, EPS);
    cr_assert_float_eq(c.sched_delay_ms, 40, EPS);
    clarity_app_free(a);
}

Test(taskcomp, clamps_never_negative)
{
    struct clarity_task_comp c = {0};
    c.runtime_ms = 100;
    c.fetch_wait_ms = 500;   /* a reporting bug: more fetch wait than runtime */
    c.has_fetch = true;
    c.gc_ms = 300;
    for (int r = 0; r < CLARITY_RES_COUNT; r++) {
        double v = clarity_task_without(&c, (enum clarity_resource)r);
        cr_assert(v >= 0 && v <= 100, "%s: %g", clarity_resource_name((enum clarity_resource)r), v);
    }
    cr_assert(clarity_task_compute_ms(&c) >= 0);
}
