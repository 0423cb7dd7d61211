/* Application-level events: log start, application start/end, environment, resource profiles,
 * miscellaneous processes. */
#include "model/build.h"

void clarity_apply_log_start(struct apply_ctx *c, cj_val ev)
{
    c->app->spark_version = clarity_intern_key(c, ev, "Spark Version");
}

/* Databricks writes its own first event instead of SparkListenerLogStart, with the same
 * "Spark Version" (once per rolled file): the version, unless a LogStart gave one. */
void clarity_apply_dbc_metadata(struct apply_ctx *c, cj_val ev)
{
    if (!c->app->spark_version) c->app->spark_version = clarity_intern_key(c, ev, "Spark Version");
}

void clarity_apply_app_start(struct apply_ctx *c, cj_val ev)
{
    struct clarity_app *a = c->app;
    if (++a->integrity.app_starts == 2)
        clarity_problem(c, "a second SparkListenerApplicationStart: two runs in one log? The last one's name, id and start are used");
    a->name = clarity_intern_key(c, ev, "App Name");
    uint32_t id = clarity_intern_key(c, ev, "App ID");
    if (id) a->app_id = id;
    a->user = clarity_intern_key(c, ev, "User");
    a->attempt_id = clarity_intern_key(c, ev, "App Attempt ID");
    int64_t ts;
    if (clarity_cj_get_int(ev, "Timestamp", &ts)) a->start_ms = ts;
    else clarity_problem(c, "SparkListenerApplicationStart without Timestamp");
    cj_val logs;
    if (clarity_cj_get(ev, "Driver Logs", &logs)) clarity_read_kvs(c, logs, &a->driver_logs);
}

void clarity_apply_app_end(struct apply_ctx *c, cj_val ev)
{
    int64_t ts;
    if (clarity_cj_get_int(ev, "Timestamp", &ts)) c->app->end_ms = ts;
    else clarity_problem(c, "SparkListenerApplicationEnd without Timestamp");
}

void clarity_apply_env(struct apply_ctx *c, cj_val ev)
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
        if (clarity_cj_get(ev, maps[i].key, &m)) clarity_read_kvs(c, m, (struct clarity_kvs *)((char *)a + maps[i].off));
    }
    a->have_env = true;
}

void clarity_apply_resource_profile(struct apply_ctx *c, cj_val ev)
{
    struct clarity_app *a = c->app;
    struct clarity_resource_profile *p = CLARITY_VEC_PUSH(a->profiles, a->nprofiles, a->cap_profiles);
    if (!p) {
        c->failed = 1;
        return;
    }
    p->id = (int32_t)clarity_get_int_or(ev, "Resource Profile Id", 0);
    clarity__model_resource_profile_read(c, ev, p);
}

void clarity_apply_misc_process(struct apply_ctx *c, cj_val ev)
{
    struct clarity_app *a = c->app;
    uint32_t id = clarity_intern_key(c, ev, "processId");
    /* AppStatusListener keeps one entry per process id: a second event updates it */
    struct clarity_misc_process *m = NULL;
    for (size_t i = 0; i < a->nmisc && !m; i++)
        if (a->misc[i].id == id) m = &a->misc[i];
    if (!m) {
        m = CLARITY_VEC_PUSH(a->misc, a->nmisc, a->cap_misc);
        if (!m) {
            c->failed = 1;
            return;
        }
        m->id = id;
        m->add_ms = clarity_get_int_or(ev, "time", 0);
    }
    /* the listener marks every process it hears of active; no event ever ends one */
    m->active = true;
    cj_val info;
    if (clarity_cj_get(ev, "info", &info)) {
        m->host_port = clarity_intern_key(c, info, "hostPort");
        m->cores = (int32_t)clarity_get_int_or(info, "cores", 0);
        /* MiscellaneousProcessDetails logs its URLs as "logUrlInfo" (SHS shows them as
         * "processLogs"; the latter spelling is read too) */
        cj_val logs;
        if (clarity_cj_get(info, "logUrlInfo", &logs) || clarity_cj_get(info, "processLogs", &logs)) {
            m->has_logs = true;
            m->logs.n = 0;
            clarity_read_kvs(c, logs, &m->logs);
        }
    }
}
