/* Where an application's tasks ran: on executors, or (local mode) inside the driver. */
#include <stdlib.h>
#include <string.h>
#include "clarity/model.h"

static const char *spark_prop(const struct clarity_app *a, const char *key)
{
    /* the last value wins, as a later EnvironmentUpdate replaces an earlier one */
    const char *v = NULL;
    for (size_t i = 0; i < a->spark_props.n; i++)
        if (!strcmp(clarity_app_str(a, a->spark_props.p[i].k), key)) v = clarity_app_str(a, a->spark_props.p[i].v);
    return v;
}

/* A local-mode application has no executor but the driver, which runs every task: its cores
 * are the task slots. They come from spark.master local[N] (or local[N,F]); for local[*] and
 * plain "local" from the driver's own ExecutorAdded ("Total Cores", the JVM's processor count),
 * else spark.driver.cores; plain "local" without either is one core, as Spark runs it. */
int32_t clarity_app_local_cores(const struct clarity_app *a)
{
    for (size_t i = 0; i < a->nexecs; i++)
        if (!a->execs[i].is_driver) return 0;
    const char *m = spark_prop(a, "spark.master");
    if (!m || strncmp(m, "local", 5) != 0) return 0;
    const char *br = strchr(m, '[');
    if (br && br[1] != '*') {
        long n = strtol(br + 1, NULL, 10);
        if (n > 0 && n < 1000000) return (int32_t)n;
    }
    for (size_t i = 0; i < a->nexecs; i++)
        if (a->execs[i].is_driver && a->execs[i].total_cores > 0) return a->execs[i].total_cores;
    const char *dc = spark_prop(a, "spark.driver.cores");
    long n = dc ? strtol(dc, NULL, 10) : 0;
    if (n > 0 && n < 1000000) return (int32_t)n;
    return br ? 0 : 1;
}
