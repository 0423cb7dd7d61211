/* Environment (properties sorted by key and redacted as OneApplicationResource does),
 * miscellaneous processes, and RDD storage. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "event/json.h"
#include "shs/shs_internal.h"

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

static void pairs(struct jsonw *w, const char *key, const struct clarity_app *a, const struct clarity_kvs *kv, bool redact)
{
    struct kv_sort *v = malloc((kv->n ? kv->n : 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; v && i < kv->n; i++) {
        v[n].k = clarity_app_str(a, kv->p[i].k);
        v[n].v = clarity_app_str(a, kv->p[i].v);
        if (redact && (redact_match(v[n].k) || redact_match(v[n].v))) v[n].v = "*********(redacted)";
        v[n].pos = i;
        n++;
    }
    if (v) qsort(v, n, sizeof *v, cmp_kv);
    jsonw_key(w, key);
    jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        jsonw_arr_begin(w);
        jsonw_str(w, v[i].k);
        jsonw_str(w, v[i].v);
        jsonw_arr_end(w);
    }
    jsonw_arr_end(w);
    free(v);
}

static const char *jvm(const struct clarity_app *a, const char *key)
{
    for (size_t i = 0; i < a->jvm.n; i++)
        if (!strcmp(clarity_app_str(a, a->jvm.p[i].k), key)) return clarity_app_str(a, a->jvm.p[i].v);
    return NULL;
}

/* "Executor Resource Requests" / "Task Resource Requests" into SHS's request objects. */
static void requests(struct jsonw *w, const char *key, cj_val obj, bool executor)
{
    cj_iter it;
    const char *k, *s;
    size_t kl, sl;
    cj_val r, am;
    jsonw_key(w, key);
    jsonw_obj_begin(w);
    if (cj_object_begin(obj, &it))
        while (cj_object_next(&it, &k, &kl, &r)) {
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)kl, k);
            jsonw_key(w, name);
            jsonw_obj_begin(w);
            jsonw_key(w, "resourceName");
            if (cj_get_str(r, "Resource Name", &s, &sl)) jsonw_strn(w, s, sl);
            else jsonw_str(w, name);
            jsonw_key(w, "amount");
            double d = 0;
            int64_t iv = 0;
            if (executor) {
                if (cj_get(r, "Amount", &am)) cj_int(am, &iv);
                jsonw_int(w, iv);
                jsonw_key(w, "discoveryScript");
                if (cj_get_str(r, "Discovery Script", &s, &sl)) jsonw_strn(w, s, sl);
                else jsonw_str(w, "");
                jsonw_key(w, "vendor");
                if (cj_get_str(r, "Vendor", &s, &sl)) jsonw_strn(w, s, sl);
                else jsonw_str(w, "");
            } else {
                if (cj_get(r, "Amount", &am)) cj_double(am, &d);
                jsonw_double(w, d);
            }
            jsonw_obj_end(w);
        }
    jsonw_obj_end(w);
}

static void profiles(struct jsonw *w, const struct clarity_app *a)
{
    jsonw_key(w, "resourceProfiles");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < a->nprofiles; i++) {
        const char *json = clarity_app_str(a, a->profiles[i].json);
        size_t len = strlen(json);
        char *copy = calloc(len + CJ_PADDING + 1, 1);
        cj_parser *p = cj_parser_new(len + 1);
        cj_val root, v;
        const char *why;
        if (copy && p && (memcpy(copy, json, len), cj_parse(p, copy, len, &root, &why) == 0)) {
            jsonw_obj_begin(w);
            jsonw_kint(w, "id", a->profiles[i].id);
            if (cj_get(root, "Executor Resource Requests", &v)) requests(w, "executorResources", v, true);
            if (cj_get(root, "Task Resource Requests", &v)) requests(w, "taskResources", v, false);
            jsonw_obj_end(w);
        }
        if (p) cj_parser_free(p);
        free(copy);
    }
    jsonw_arr_end(w);
}

enum shs_status shs_environment(struct shs_ctx *c, const struct clarity_app *a)
{
    struct jsonw *w = c->w;
    if (!a->have_env) return shs_fail(c, SHS_NOT_FOUND, "no environment in the log");
    jsonw_obj_begin(w);
    jsonw_key(w, "runtime");
    jsonw_obj_begin(w);
    const char *s;
    if ((s = jvm(a, "Java Version"))) jsonw_kstr(w, "javaVersion", s);
    if ((s = jvm(a, "Java Home"))) jsonw_kstr(w, "javaHome", s);
    if ((s = jvm(a, "Scala Version"))) jsonw_kstr(w, "scalaVersion", s);
    jsonw_obj_end(w);
    pairs(w, "sparkProperties", a, &a->spark_props, true);
    pairs(w, "hadoopProperties", a, &a->hadoop_props, true);
    pairs(w, "systemProperties", a, &a->system_props, true);
    pairs(w, "metricsProperties", a, &a->metrics_props, true);
    pairs(w, "classpathEntries", a, &a->classpath, false);
    profiles(w, a);
    jsonw_obj_end(w);
    return SHS_OK;
}

enum shs_status shs_misc(struct shs_ctx *c, const struct clarity_app *a)
{
    struct jsonw *w = c->w;
    jsonw_arr_begin(w);
    for (size_t i = 0; i < a->nmisc; i++) {
        const struct clarity_misc_process *m = &a->misc[i];
        jsonw_obj_begin(w);
        shs_kstr_id(w, a, "id", m->id);
        shs_kstr_id(w, a, "hostPort", m->host_port);
        jsonw_kbool(w, "isActive", m->active);
        jsonw_kint(w, "totalCores", m->cores);
        shs_kdate(w, "addTime", m->add_ms);
        jsonw_key(w, "processLogs");
        if (m->logs_json) jsonw_raw(w, clarity_app_str(a, m->logs_json));
        else {
            jsonw_obj_begin(w);
            jsonw_obj_end(w);
        }
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    return SHS_OK;
}

/* SHS lists an RDD only once block updates show cached partitions; event logs carry block
 * updates only with spark.eventLog.logBlockUpdates.enabled, which the model does not read. */
enum shs_status shs_storage(struct shs_ctx *c, const struct clarity_app *a, const char *rdd_id)
{
    (void)a;
    if (rdd_id) {
        char *end;
        long long id = strtoll(rdd_id, &end, 10);
        if (!*rdd_id || *end) return shs_fail(c, SHS_BAD_PATH, "bad rdd id '%s'", rdd_id);
        return shs_fail(c, SHS_NOT_FOUND, "unknown rdd: %lld", id);
    }
    jsonw_arr_begin(c->w);
    jsonw_arr_end(c->w);
    return SHS_OK;
}
