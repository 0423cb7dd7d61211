/* Environment (properties sorted by key and redacted as OneApplicationResource does),
 * miscellaneous processes. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "shs/shs_internal.h"
#include "util/jsonw.h"

/* spark.redaction.regex default: (?i)secret|password|token|access[.]?key */
static bool redact_match(const char *s)
{
    static const char *pats[] = {"secret", "password", "token", "accesskey", "access.key"};
    for (size_t i = 0; i < sizeof pats / sizeof *pats; i++)
        if (strcasestr(s, pats[i])) return true;
    return false;
}

struct kv_sort { const char *k, *v; size_t pos; };

static int cmp_kv(const void *x, const void *y)
{
    const struct kv_sort *a = x, *b = y;
    int d = strcmp(a->k, b->k);   /* Scala sortBy is stable: logged order breaks ties */
    return d ? d : (a->pos > b->pos) - (a->pos < b->pos);
}

static int pairs(struct jsonw *w, const char *key, const struct clarity_app *a, const struct clarity_kvs *kv, bool redact)
{
    struct kv_sort *v = malloc((kv->n ? kv->n : 1) * sizeof *v);
    size_t n = 0;
    if (!v) return -1;
    for (size_t i = 0; i < kv->n; i++) {
        v[n].k = clarity_app_str(a, kv->p[i].k);
        v[n].v = clarity_app_str(a, kv->p[i].v);
        if (redact && (redact_match(v[n].k) || redact_match(v[n].v))) v[n].v = "*********(redacted)";
        v[n].pos = i;
        n++;
    }
    qsort(v, n, sizeof *v, cmp_kv);
    clarity_jsonw_key(w, key);
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        clarity_jsonw_arr_begin(w);
        clarity_jsonw_str(w, v[i].k);
        clarity_jsonw_str(w, v[i].v);
        clarity_jsonw_arr_end(w);
    }
    clarity_jsonw_arr_end(w);
    free(v);
    return 0;
}

static const char *jvm(const struct clarity_app *a, const char *key)
{
    for (size_t i = 0; i < a->jvm.n; i++)
        if (!strcmp(clarity_app_str(a, a->jvm.p[i].k), key)) return clarity_app_str(a, a->jvm.p[i].v);
    return NULL;
}

/* ExecutorResourceRequest / TaskResourceRequest objects, keyed as logged. */
static void exec_requests(struct jsonw *w, const struct clarity_app *a, const struct clarity_resource_profile *p)
{
    clarity_jsonw_key(w, "executorResources");
    clarity_jsonw_obj_begin(w);
    for (size_t i = 0; i < p->nexec_requests; i++) {
        const struct clarity_exec_request *q = &p->exec_requests[i];
        clarity_jsonw_key(w, clarity_app_str(a, q->key));
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "resourceName", clarity_app_str(a, q->name));
        clarity_jsonw_kint(w, "amount", q->amount);
        clarity_jsonw_kstr(w, "discoveryScript", clarity_app_str(a, q->discovery_script));
        clarity_jsonw_kstr(w, "vendor", clarity_app_str(a, q->vendor));
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_obj_end(w);
}

static void task_requests(struct jsonw *w, const struct clarity_app *a, const struct clarity_resource_profile *p)
{
    clarity_jsonw_key(w, "taskResources");
    clarity_jsonw_obj_begin(w);
    for (size_t i = 0; i < p->ntask_requests; i++) {
        const struct clarity_task_request *q = &p->task_requests[i];
        clarity_jsonw_key(w, clarity_app_str(a, q->key));
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "resourceName", clarity_app_str(a, q->name));
        clarity_jsonw_kdouble(w, "amount", q->amount);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_obj_end(w);
}

static void profiles(struct jsonw *w, const struct clarity_app *a)
{
    clarity_jsonw_key(w, "resourceProfiles");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < a->nprofiles; i++) {
        const struct clarity_resource_profile *p = &a->profiles[i];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "id", p->id);
        if (p->has_exec_requests) exec_requests(w, a, p);
        if (p->has_task_requests) task_requests(w, a, p);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
}

int clarity__shs_environment_check(struct shs_req *r)
{
    return r->app->have_env ? CLARITY_OK : clarity__shs_fail(r, SHS_NOT_FOUND, "no environment in the log");
}

int clarity__shs_environment(struct shs_req *r)
{
    struct jsonw *w = r->w;
    const struct clarity_app *a = r->app;
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_key(w, "runtime");
    clarity_jsonw_obj_begin(w);
    const char *s;
    if ((s = jvm(a, "Java Version"))) clarity_jsonw_kstr(w, "javaVersion", s);
    if ((s = jvm(a, "Java Home"))) clarity_jsonw_kstr(w, "javaHome", s);
    if ((s = jvm(a, "Scala Version"))) clarity_jsonw_kstr(w, "scalaVersion", s);
    clarity_jsonw_obj_end(w);
    if (pairs(w, "sparkProperties", a, &a->spark_props, true) || pairs(w, "hadoopProperties", a, &a->hadoop_props, true) ||
        pairs(w, "systemProperties", a, &a->system_props, true) || pairs(w, "metricsProperties", a, &a->metrics_props, true) ||
        pairs(w, "classpathEntries", a, &a->classpath, false))
        return clarity__shs_oom(r);
    profiles(w, a);
    clarity_jsonw_obj_end(w);
    return CLARITY_OK;
}

int clarity__shs_misc(struct shs_req *r)
{
    struct jsonw *w = r->w;
    const struct clarity_app *a = r->app;
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < a->nmisc; i++) {
        const struct clarity_misc_process *m = &a->misc[i];
        clarity_jsonw_obj_begin(w);
        clarity__shs_kstr_id(w, a, "id", m->id);
        clarity__shs_kstr_id(w, a, "hostPort", m->host_port);
        clarity_jsonw_kbool(w, "isActive", m->active);
        clarity_jsonw_kint(w, "totalCores", m->cores);
        clarity__shs_kdate(w, "addTime", m->add_ms);
        /* pretty-printed like every other map SHS writes (it was kept on one line before,
         * when the URLs were never read and the object was always empty) */
        clarity__shs_write_kvs_obj(w, "processLogs", a, &m->logs);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    return CLARITY_OK;
}
