/* Application-level events: log start, application start/end, environment, resource profiles,
 * miscellaneous processes. */
#include "model/build.h"

void apply_log_start(struct apply_ctx *c, cj_val ev)
{
    c->app->spark_version = intern_key(c, ev, "Spark Version");
}

void apply_app_start(struct apply_ctx *c, cj_val ev)
{
    struct clarity_app *a = c->app;
    a->name = intern_key(c, ev, "App Name");
    uint32_t id = intern_key(c, ev, "App ID");
    if (id) a->app_id = id;
    a->user = intern_key(c, ev, "User");
    a->attempt_id = intern_key(c, ev, "App Attempt ID");
    int64_t ts;
    if (cj_get_int(ev, "Timestamp", &ts)) a->start_ms = ts;
    else problem(c, "SparkListenerApplicationStart without Timestamp");
    cj_val logs;
    if (cj_get(ev, "Driver Logs", &logs)) read_kvs(c, logs, &a->driver_logs);
}

void apply_app_end(struct apply_ctx *c, cj_val ev)
{
    int64_t ts;
    if (cj_get_int(ev, "Timestamp", &ts)) c->app->end_ms = ts;
    else problem(c, "SparkListenerApplicationEnd without Timestamp");
}

void apply_env(struct apply_ctx *c, cj_val ev)
{
    struct clarity_app *a = c->app;
    static const struct { const char *key; size_t off; } maps[] = {
        {"JVM Information", offsetof(struct clarity_app, jvm)},
        {"Spark Properties", offsetof(struct clarity_app, spark_props)},
        {"Hadoop Properties", offsetof(struct clarity_app, hadoop_props)},
        {"System Properties", offsetof(struct clarity_app, system_props)},
        {"Metrics Properties", offsetof(struct clarity_app, metrics_props)},
        {"Classpath Entries", offsetof(struct clarity_app, classpath)},
    };
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++) {
        cj_val m;
        if (cj_get(ev, maps[i].key, &m)) read_kvs(c, m, (struct clarity_kvs *)((char *)a + maps[i].off));
    }
    a->have_env = true;
}

void apply_resource_profile(struct apply_ctx *c, cj_val ev)
{
    struct clarity_app *a = c->app;
    struct clarity_resource_profile *p = CLARITY_VEC_PUSH(a->profiles, a->nprofiles, a->cap_profiles);
    if (!p) {
        c->failed = 1;
        return;
    }
    p->id = (int32_t)get_int_or(ev, "Resource Profile Id", 0);
    clarity__model_resource_profile_read(c, ev, p);
}

void apply_misc_process(struct apply_ctx *c, cj_val ev)
{
    struct clarity_app *a = c->app;
    struct clarity_misc_process *m = CLARITY_VEC_PUSH(a->misc, a->nmisc, a->cap_misc);
    if (!m) {
        c->failed = 1;
        return;
    }
    m->id = intern_key(c, ev, "processId");
    m->add_ms = get_int_or(ev, "time", 0);
    cj_val info;
    if (cj_get(ev, "info", &info)) {
        m->host_port = intern_key(c, info, "hostPort");
        m->cores = (int32_t)get_int_or(info, "cores", 0);
        cj_get_bool(info, "isActive", &m->active);
        cj_val logs;
        if (cj_get(info, "processLogs", &logs)) {
            m->has_logs = true;
            read_kvs(c, logs, &m->logs);
        }
    }
}
