/* Small pieces every SHS resource uses: errors, query parameters, dates, peaks, lookups. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "shs/shs_internal.h"

enum shs_status shs_fail(struct shs_ctx *c, enum shs_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
    return st;
}

const char *shs_query_get(const struct shs_query *q, const char *key)
{
    for (size_t i = 0; q && i < q->n; i++)
        if (!strcmp(q->key[i], key)) return q->val[i];
    return NULL;
}

size_t shs_query_list(const struct shs_query *q, const char *key, const char **out, size_t max,
                      char *scratch, size_t scratch_len)
{
    size_t n = 0, used = 0;
    for (size_t i = 0; q && i < q->n; i++) {
        if (strcmp(q->key[i], key)) continue;
        size_t len = strlen(q->val[i]);
        if (used + len + 1 > scratch_len) break;
        char *copy = scratch + used;
        memcpy(copy, q->val[i], len + 1);
        used += len + 1;
        for (char *save = NULL, *t = strtok_r(copy, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save))
            out[n++] = t;
    }
    return n;
}

bool shs_query_bool(const struct shs_query *q, const char *key, bool dflt, bool *bad)
{
    const char *v = shs_query_get(q, key);
    if (!v) return dflt;
    if (!strcasecmp(v, "true")) return true;
    if (!strcasecmp(v, "false")) return false;
    *bad = true;
    return dflt;
}

void shs_kdate(struct jsonw *w, const char *key, int64_t ms)
{
    char buf[32];
    shs_date(ms, buf);
    jsonw_kstr(w, key, buf);
}

void shs_kstr_id(struct jsonw *w, const struct clarity_app *a, const char *key, uint32_t id)
{
    jsonw_kstr(w, key, id ? clarity_app_str(a, id) : "");
}

void shs_write_peaks(struct jsonw *w, const char *key, const struct clarity_app *a, const struct clarity_peaks *pk)
{
    /* ExecutorMetricType order */
    static const char *names[] = {
        "JVMHeapMemory", "JVMOffHeapMemory", "OnHeapExecutionMemory", "OffHeapExecutionMemory",
        "OnHeapStorageMemory", "OffHeapStorageMemory", "OnHeapUnifiedMemory", "OffHeapUnifiedMemory",
        "DirectPoolMemory", "MappedPoolMemory", "ProcessTreeJVMVMemory", "ProcessTreeJVMRSSMemory",
        "ProcessTreePythonVMemory", "ProcessTreePythonRSSMemory", "ProcessTreeOtherVMemory",
        "ProcessTreeOtherRSSMemory", "MinorGCCount", "MinorGCTime", "MajorGCCount", "MajorGCTime", "TotalGCTime",
    };
    jsonw_key(w, key);
    jsonw_obj_begin(w);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        int64_t v = 0;
        for (size_t k = 0; pk && k < pk->n; k++)
            if (!strcmp(clarity_app_str(a, pk->p[k].name), names[i])) v = pk->p[k].value;
        jsonw_kint(w, names[i], v);
    }
    jsonw_obj_end(w);
}

void shs_write_kvs_obj(struct jsonw *w, const char *key, const struct clarity_app *a, const struct clarity_kvs *kv)
{
    jsonw_key(w, key);
    jsonw_obj_begin(w);
    for (size_t i = 0; i < kv->n; i++) jsonw_kstr(w, clarity_app_str(a, kv->p[i].k), clarity_app_str(a, kv->p[i].v));
    jsonw_obj_end(w);
}

struct clarity_executor *shs_exec_by_sid(const struct clarity_app *a, uint32_t sid, size_t *row)
{
    uint32_t r;
    if (!sid || !clarity_idmap_get(&a->exec_by_name, sid, &r)) return NULL;
    if (row) *row = r;
    return &a->execs[r];
}

/* SHS knows executors from ExecutorAdded or BlockManagerAdded, not from task references. */
bool shs_exec_visible(const struct clarity_executor *e)
{
    return e->seen_added || e->port >= 0 || e->max_memory >= 0;
}

const char *shs_stage_description(const struct clarity_app *a, const struct clarity_stage *s)
{
    for (size_t i = 0; i < s->njob_ids; i++) {
        const struct clarity_job *j = clarity_app_job(a, s->job_ids[i]);
        if (j && j->description) return clarity_app_str(a, j->description);
    }
    return NULL;
}
