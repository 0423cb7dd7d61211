/* One loaded application turned into the store's rows: the fleet table's figures (so
 * `clarity summary` and the store agree), the integrity flags as bits, the findings with
 * their savings, and the History Server's listing JSON of the attempt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/findings.h"
#include "clarity/fleet.h"
#include "clarity/report.h"
#include "clarity/shs.h"

static const char *own(struct clarity_fleet_rows *r, char *s)
{
    if (!s) return NULL;
    if (r->nowned == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        char **p = realloc(r->owned, cap * sizeof *p);
        if (!p) {
            free(s);
            return NULL;
        }
        r->owned = p;
        r->cap = cap;
    }
    return r->owned[r->nowned++] = s;
}

static const char *dup(struct clarity_fleet_rows *r, const char *s)
{
    return own(r, strdup(s ? s : ""));
}

static const char *prop(const struct clarity_app *a, const char *key)
{
    for (size_t i = 0; i < a->spark_props.n; i++)
        if (!strcmp(clarity_app_str(a, a->spark_props.p[i].k), key)) return clarity_app_str(a, a->spark_props.p[i].v);
    return NULL;
}

static uint32_t integrity_bits(const struct clarity_integrity *g)
{
    uint32_t b = 0;
    if (g->in_progress || g->no_app_end) b |= CLARITY_STORE_INT_IN_PROGRESS;
    if (g->truncated) b |= CLARITY_STORE_INT_TRUNCATED;
    if (g->compacted) b |= CLARITY_STORE_INT_COMPACTED;
    if (g->rolling_parts_missing) b |= CLARITY_STORE_INT_PARTS_MISSING;
    if (g->lines_malformed) b |= CLARITY_STORE_INT_MALFORMED;
    if (g->dropped_task_ends) b |= CLARITY_STORE_INT_DROPPED_TASKS;
    if (g->no_task_events) b |= CLARITY_STORE_INT_NO_TASKS;
    if (g->values_out_of_range) b |= CLARITY_STORE_INT_OUT_OF_RANGE;
    return b;
}

/* The platform as a grouping key: the vendor when one is recognised, else the cluster manager
 * ("Databricks", "EMR", "Dataproc", "YARN", "Kubernetes", "local", ...; "unknown"). */
static const char *platform_key(const struct clarity_app *a)
{
    const char *v = clarity_vendor_name(a->platform.vendor);
    return v && *v ? v : clarity_cluster_manager_name(a->platform.manager);
}

static void where_text(const struct clarity_finding *f, char *buf, size_t cap)
{
    if (f->where & (CLARITY_FW_STAGE | CLARITY_FW_STAGE_ATTEMPT))
        snprintf(buf, cap, "stage %lld.%d", (long long)f->stage, f->where & CLARITY_FW_STAGE_ATTEMPT ? f->stage_attempt : 0);
    else if (f->where & CLARITY_FW_SQL) snprintf(buf, cap, "sql %lld", (long long)f->sql);
    else if (f->where & CLARITY_FW_JOB) snprintf(buf, cap, "job %lld", (long long)f->job);
    else if (f->where & CLARITY_FW_EXECUTOR) snprintf(buf, cap, "executor %s", f->executor);
    else if (f->where & CLARITY_FW_HOST) snprintf(buf, cap, "host %s", f->host);
    else snprintf(buf, cap, "application");
}

static int fill_findings(const struct clarity_app *a, struct clarity_fleet_rows *r, struct clarity_error *err)
{
    struct clarity_findings fs;
    struct clarity_findings_options fo = {0};
    int rc = clarity_findings_analyze(a, &fo, &fs, err);
    if (rc) return rc;
    r->f = calloc(fs.n ? fs.n : 1, sizeof *r->f);
    if (!r->f) {
        clarity_findings_free(&fs);
        return clarity_error_set(err, CLARITY_ENOMEM, a->source_path, 0, 0, "out of memory");
    }
    for (size_t i = 0; i < fs.n; i++) {
        const struct clarity_finding *f = &fs.f[i];
        char where[200];
        where_text(f, where, sizeof where);
        struct clarity_store_finding *o = &r->f[r->nf++];
        o->app_index = 0;
        o->rank = (int)i + 1;
        o->kind = clarity_finding_kind_name(f->kind);   /* static strings */
        o->basis = clarity_finding_method_name(f->method);
        o->where = dup(r, where);
        o->action = dup(r, f->action);
        o->saving_ms = f->saving_ms;
        o->saving_core_hours = f->saving_core_ms > 0 ? (double)f->saving_core_ms / 3.6e6 : 0;
        if (!o->where || !o->action) rc = CLARITY_ENOMEM;
        /* ranked by wall time saved: the first is the top saving in ms; core-hours may rank
         * another finding first, so take the largest */
        if (i == 0) r->app.top_saving_ms = f->saving_ms;
        if (o->saving_core_hours > r->app.top_saving_core_hours) r->app.top_saving_core_hours = o->saving_core_hours;
    }
    clarity_findings_free(&fs);
    return rc ? clarity_error_set(err, CLARITY_ENOMEM, a->source_path, 0, 0, "out of memory") : CLARITY_OK;
}

int clarity_fleet_rows_fill(const struct clarity_app *a, bool findings, int64_t last_updated_ms,
                            struct clarity_fleet_rows *out, struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    struct fleet_row fr;
    int rc = clarity_fleet_row_fill(&fr, a, err);
    if (rc) return rc;
    struct clarity_store_app *s = &out->app;
    s->app_id = dup(out, clarity_app_str(a, a->app_id));
    s->attempt_id = a->attempt_id ? dup(out, clarity_app_str(a, a->attempt_id)) : NULL;
    s->name = dup(out, clarity_app_str(a, a->name));
    s->user = dup(out, clarity_app_str(a, a->user));
    s->spark_version = dup(out, a->spark_version ? clarity_app_str(a, a->spark_version) : "");
    s->platform = platform_key(a);   /* static */
    const char *q = prop(a, "spark.yarn.queue");
    if (!q) q = prop(a, "spark.scheduler.pool");
    s->queue = q ? dup(out, q) : NULL;
    s->start_ms = a->start_ms;
    s->end_ms = a->end_ms;
    s->completed = a->end_ms != 0;
    s->duration_ms = s->completed ? fr.duration_ms : 0;
    s->last_updated_ms = last_updated_ms;
    s->cores = fr.cores;
    s->core_hours = fr.core_hours_used + fr.core_hours_idle;
    s->idle_core_hours = fr.core_hours_idle;
    s->gc_share = fr.gc_share;
    s->tasks = fr.tasks;
    s->failed_tasks = fr.failed_tasks;
    s->integrity = integrity_bits(&a->integrity);
    char *json;
    size_t len;
    if ((rc = clarity_shs_attempt_json(a, &json, &len, err))) goto fail;
    s->app_info_json = own(out, json);
    if (!s->app_id || !s->name || !s->user || !s->spark_version || !s->app_info_json || (q && !s->queue) ||
        (a->attempt_id && !s->attempt_id)) {
        rc = clarity_error_set(err, CLARITY_ENOMEM, a->source_path, 0, 0, "out of memory");
        goto fail;
    }
    if (findings && (rc = fill_findings(a, out, err))) goto fail;
    return CLARITY_OK;
fail:
    clarity_fleet_rows_free(out);
    return rc;
}

void clarity_fleet_rows_free(struct clarity_fleet_rows *r)
{
    for (size_t i = 0; i < r->nowned; i++) free(r->owned[i]);
    free(r->owned);
    free(r->f);
    memset(r, 0, sizeof *r);
}
