/* Names, and the helpers that fill a finding's where, evidence and action. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/findings/fnd_internal.h"

const char *clarity_finding_kind_name(enum clarity_finding_kind k)
{
    static const char *const names[CLARITY_FK_COUNT] = {
        "data_skew", "slow_host", "spill", "too_few_partitions", "tiny_tasks", "oversized_partitions",
        "idle_executors", "gc_pressure", "memory_headroom", "task_failures", "fetch_failures", "lost_executors",
        "speculation_waste", "driver_bound", "scheduler_delay", "repeated_work", "cartesian_join",
        "large_broadcast", "anomaly", "contention"};
    return (unsigned)k < CLARITY_FK_COUNT ? names[k] : "?";
}

const char *clarity_finding_method_name(enum clarity_finding_method m)
{
    return m == CLARITY_FM_REPLAY ? "replay" : m == CLARITY_FM_BOUND ? "bound" : "estimate";
}

const char *clarity_finding_confidence_name(enum clarity_finding_confidence c)
{
    return c == CLARITY_FC_HIGH ? "high" : c == CLARITY_FC_MEDIUM ? "medium" : "low";
}

struct clarity_finding *clarity_fnd_add(struct fnd *x, enum clarity_finding_kind k)
{
    if (x->nf == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 16;
        struct clarity_finding *f = realloc(x->f, cap * sizeof *f);
        if (!f) { x->oom = 1; return NULL; }
        x->f = f;
        x->cap = cap;
    }
    struct clarity_finding *f = &x->f[x->nf++];
    memset(f, 0, sizeof *f);
    f->kind = k;
    f->saving_core_ms = -1;
    f->confidence = CLARITY_FC_MEDIUM;
    return f;
}

void clarity_fnd_ev(struct clarity_finding *f, const char *name, double value, const char *unit)
{
    if (f->nev < CLARITY_FINDING_MAX_EVIDENCE) f->ev[f->nev++] = (struct clarity_finding_evidence){name, value, unit};
}

void clarity_fnd_where_stage(const struct fnd *x, struct clarity_finding *f, size_t s)
{
    const struct clarity_stage *st = &x->a->stages[s];
    f->where |= CLARITY_FW_STAGE | CLARITY_FW_STAGE_ATTEMPT;
    f->stage = st->stage_id;
    f->stage_attempt = st->attempt;
    if (st->njob_ids) {
        f->where |= CLARITY_FW_JOB;
        f->job = st->job_ids[0];
        const struct clarity_job *j = clarity_app_job(x->a, st->job_ids[0]);
        if (j && j->sql_id >= 0) {
            f->where |= CLARITY_FW_SQL;
            f->sql = j->sql_id;
        }
    }
}

const char *clarity_fnd_stage_name(const struct fnd *x, size_t s, char *buf, size_t cap)
{
    const char *n = clarity_app_str(x->a, x->a->stages[s].name);
    size_t len = strlen(n);
    if (len + 1 <= cap) snprintf(buf, cap, "%s", n);
    else snprintf(buf, cap, "%.*s...", (int)(cap > 4 ? cap - 4 : 0), n);
    return buf;
}

const char *clarity_fnd_prop(const struct clarity_app *a, const char *name)
{
    for (size_t i = 0; i < a->spark_props.n; i++)
        if (!strcmp(clarity_app_str(a, a->spark_props.p[i].k), name)) return clarity_app_str(a, a->spark_props.p[i].v);
    return NULL;
}

void clarity_fnd_action(const struct fnd *x, struct clarity_finding *f, const char *setting, const char *dflt,
                        const char *proposed, const char *fmt, ...)
{
    if (setting) {
        snprintf(f->setting, sizeof f->setting, "%s", setting);
        const char *cur = clarity_fnd_prop(x->a, setting);
        if (cur) snprintf(f->current, sizeof f->current, "%s", cur);
        else snprintf(f->current, sizeof f->current, "not set (default %s)", dflt ? dflt : "none");
        snprintf(f->proposed, sizeof f->proposed, "%s", proposed ? proposed : "");
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->action, sizeof f->action, fmt, ap);
    va_end(ap);
}

int64_t clarity_fnd_jvm_size(const char *s)
{
    if (!s || !*s) return -1;
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0) return -1;
    double mult = 1;
    switch (*end) {
    case 'k': case 'K': mult = 1024.0; break;
    case 'm': case 'M': mult = FND_MB; break;
    case 'g': case 'G': mult = 1024.0 * FND_MB; break;
    case 't': case 'T': mult = 1024.0 * 1024.0 * FND_MB; break;
    case '\0': mult = 1; break;
    default: return -1;
    }
    /* past 2^60 bytes (an exbibyte) no JVM exists: a damaged value, read as unknown (and the
     * conversion of a larger double to int64 would be undefined) */
    double b = v * mult;
    return b < 0x1p60 ? (int64_t)b : -1;
}

void clarity_fnd_fmt_jvm(char *buf, size_t cap, int64_t bytes)
{
    double g = (double)bytes / (1024.0 * FND_MB);
    if (g >= 1) snprintf(buf, cap, "%lldg", (long long)ceil(g));
    else snprintf(buf, cap, "%lldm", (long long)ceil((double)bytes / FND_MB));
}

const char *clarity_fnd_bytes(char *buf, size_t cap, double b)
{
    if (b >= 1e9) snprintf(buf, cap, "%.1f GB", b / 1e9);
    else if (b >= 1e6) snprintf(buf, cap, "%.0f MB", b / 1e6);
    else if (b >= 1e3) snprintf(buf, cap, "%.0f kB", b / 1e3);
    else snprintf(buf, cap, "%.0f B", b);
    return buf;
}

const char *clarity_fnd_dur(char *buf, size_t cap, double ms)
{
    if (ms >= 3600e3) snprintf(buf, cap, "%.1f h", ms / 3600e3);
    else if (ms >= 60e3) snprintf(buf, cap, "%.1f min", ms / 60e3);
    else if (ms >= 1e3) snprintf(buf, cap, "%.1f s", ms / 1e3);
    else snprintf(buf, cap, "%.0f ms", ms);
    return buf;
}

int clarity_fnd_victims(const struct iqcar_result *r, size_t s, struct iqcar_victim_dor **out, size_t *n, double *runtime_ms)
{
    *out = NULL, *n = 0, *runtime_ms = 0;
    size_t *rank = malloc((r->nunits ? r->nunits : 1) * sizeof *rank);
    struct iqcar_victim_dor *v = malloc((r->l6_first[s + 1] - r->l6_first[s] + 1) * sizeof *v);
    if (!rank || !v) {
        free(rank);
        free(v);
        return -1;
    }
    clarity_iqcar_victim_ranks(r, rank);
    *n = clarity_iqcar_victims_of(r, rank, s, v, runtime_ms);
    free(rank);
    *out = v;
    return 0;
}

double clarity_fnd_mean_concurrency(const struct iqcar_result *r, double *span_ms)
{
    double sum = 0;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (size_t u = 0; u < r->nunits; u++) {
        if (r->units[u].end <= r->units[u].start) continue;
        sum += (double)(r->units[u].end - r->units[u].start);
        if (r->units[u].start < first) first = r->units[u].start;
        if (r->units[u].end > last) last = r->units[u].end;
    }
    *span_ms = last > first ? (double)(last - first) : 0;
    double conc = *span_ms > 0 && sum > 0 ? sum / *span_ms : 1;
    return conc < 1 ? 1 : conc;
}
