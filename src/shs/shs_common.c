/* Small pieces every SHS resource uses: errors, dates, peaks, lookups. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shs/shs_internal.h"
#include "util/jsonw.h"

int clarity__shs_fail(struct shs_req *r, enum shs_failure why, const char *fmt, ...)
{
    static const struct { int http, code; } map[] = {
        [SHS_NO_ROUTE] = {404, CLARITY_EUSAGE},
        [SHS_BAD_PARAM] = {400, CLARITY_EUSAGE},
        [SHS_NOT_FOUND] = {404, CLARITY_ENOTFOUND},
        [SHS_INTERNAL] = {500, CLARITY_ENOMEM},
    };
    char msg[sizeof r->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->http = map[why].http;
    return clarity_error_set(r->err, map[why].code, NULL, 0, 0, "%s", msg);
}

int clarity__shs_oom(struct shs_req *r) { return clarity__shs_fail(r, SHS_INTERNAL, "out of memory"); }

void clarity__shs_kdate(struct jsonw *w, const char *key, int64_t ms)
{
    char buf[32];
    clarity_shs_date(ms, buf);
    clarity_jsonw_kstr(w, key, buf);
}

void clarity__shs_kstr_id(struct jsonw *w, const struct clarity_app *a, const char *key, uint32_t id)
{
    clarity_jsonw_kstr(w, key, id ? clarity_app_str(a, id) : "");
}

/* ExecutorMetricType order */
const char *const clarity__shs_peak_names[CLARITY__SHS_NPEAKS] = {
    "JVMHeapMemory", "JVMOffHeapMemory", "OnHeapExecutionMemory", "OffHeapExecutionMemory",
    "OnHeapStorageMemory", "OffHeapStorageMemory", "OnHeapUnifiedMemory", "OffHeapUnifiedMemory",
    "DirectPoolMemory", "MappedPoolMemory", "ProcessTreeJVMVMemory", "ProcessTreeJVMRSSMemory",
    "ProcessTreePythonVMemory", "ProcessTreePythonRSSMemory", "ProcessTreeOtherVMemory",
    "ProcessTreeOtherRSSMemory", "MinorGCCount", "MinorGCTime", "MajorGCCount", "MajorGCTime", "TotalGCTime",
};

int64_t clarity__shs_peak_value(const struct clarity_app *a, const struct clarity_peaks *pk, size_t i)
{
    const char *name = clarity__shs_peak_names[i];
    /* each name is there once at most, usually at its own slot (the loader keeps Spark's
     * order): look there first, then everywhere */
    if (pk && i < pk->n && !strcmp(clarity_app_str(a, pk->p[i].name), name)) return pk->p[i].value;
    for (size_t k = 0; pk && k < pk->n; k++)
        if (!strcmp(clarity_app_str(a, pk->p[k].name), name)) return pk->p[k].value;
    return 0;
}

void clarity__shs_write_peaks(struct jsonw *w, const char *key, const struct clarity_app *a, const struct clarity_peaks *pk)
{
    clarity_jsonw_key(w, key);
    clarity_jsonw_obj_begin(w);
    for (size_t i = 0; i < CLARITY__SHS_NPEAKS; i++)
        clarity_jsonw_kint(w, clarity__shs_peak_names[i], clarity__shs_peak_value(a, pk, i));
    clarity_jsonw_obj_end(w);
}

void clarity__shs_write_kvs_obj(struct jsonw *w, const char *key, const struct clarity_app *a, const struct clarity_kvs *kv)
{
    clarity_jsonw_key(w, key);
    clarity_jsonw_obj_begin(w);
    for (size_t i = 0; i < kv->n; i++) clarity_jsonw_kstr(w, clarity_app_str(a, kv->p[i].k), clarity_app_str(a, kv->p[i].v));
    clarity_jsonw_obj_end(w);
}

struct clarity_executor *clarity__shs_exec_by_sid(const struct clarity_app *a, uint32_t sid, size_t *row)
{
    uint32_t r;
    if (!sid || !clarity_idmap_get(&a->exec_by_name, sid, &r)) return NULL;
    if (row) *row = r;
    return &a->execs[r];
}

/* SHS knows executors from ExecutorAdded or BlockManagerAdded, not from task references. */
bool clarity__shs_exec_visible(const struct clarity_executor *e)
{
    return e->seen_added || e->port >= 0 || e->max_memory >= 0;
}

/* Stages SHS has in its store: announced by a JobStart or submitted/completed. */
bool clarity__shs_stage_visible(const struct clarity_stage *s)
{
    return s->seen_submitted || s->seen_completed || s->njob_ids > 0;
}

const char *clarity__shs_stage_description(const struct clarity_app *a, const struct clarity_stage *s)
{
    for (size_t i = 0; i < s->njob_ids; i++) {
        const struct clarity_job *j = clarity_app_job(a, s->job_ids[i]);
        if (j && j->description) return clarity_app_str(a, j->description);
    }
    return NULL;
}

int clarity__shs_compact_object(struct jsonw *w, const char *key, void (*body)(struct jsonw *cw, const void *ctx),
                                const void *ctx)
{
    clarity_jsonw_key(w, key);
    if (!body) {
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_obj_end(w);
        return 0;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) return -1;
    struct jsonw cw;
    clarity_jsonw_init(&cw, mem, false);
    clarity_jsonw_obj_begin(&cw);
    body(&cw, ctx);
    clarity_jsonw_obj_end(&cw);
    if (fclose(mem) != 0) {
        free(text);
        return -1;
    }
    clarity_jsonw_raw(w, text);
    free(text);
    return 0;
}
