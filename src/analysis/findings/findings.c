/* clarity_findings_analyze: every rule on one application, then the minimum-saving filter
 * (the "no false alarms" rule) and the ranking. */
#include <stdlib.h>
#include <string.h>
#include "util/checked.h"
#include "analysis/findings/fnd_internal.h"

#define DEFAULT_MIN_SHARE 0.02
#define DEFAULT_MIN_MS 1000
/* a finding whose cost is core time (saving_ms 0) must save this share of the allocation */
#define CORE_MIN_SHARE 0.10
/* ... and at least a tenth of a core-hour: less is not worth a configuration change */
#define CORE_MIN_MS 360000

static int rank_cmp(const void *pa, const void *pb)
{
    const struct clarity_finding *a = pa, *b = pb;
    if (a->saving_ms != b->saving_ms) return a->saving_ms > b->saving_ms ? -1 : 1;
    if (a->saving_core_ms != b->saving_core_ms) return a->saving_core_ms > b->saving_core_ms ? -1 : 1;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    if (a->stage != b->stage) return a->stage < b->stage ? -1 : 1;
    return strcmp(a->host, b->host);
}

/* executor cores x lifetime; the driver's cores in local mode */
static int64_t allocated_core_ms(const struct clarity_app *a, int64_t end)
{
    int64_t t = 0;
    size_t nexec = 0;
    for (size_t e = 0; e < a->nexecs; e++) {
        const struct clarity_executor *x = &a->execs[e];
        if (x->is_driver || x->total_cores <= 0) continue;
        nexec++;
        int64_t from = x->add_ms ? x->add_ms : a->start_ms, to = x->remove_ms ? x->remove_ms : end;
        /* saturating: damaged logs carry times and core counts at the int64 limits */
        if (to > from) t = clarity_sat_add(t, clarity_sat_mul(clarity_sat_sub(to, from), x->total_cores));
    }
    if (!nexec) t = clarity_sat_mul((int64_t)clarity_app_local_cores(a), clarity_sat_sub(end, a->start_ms));
    return t > 0 ? t : 0;
}

/* min_wall: max(min ms, min share x duration), the wall saving a finding needs (fnd->min_wall) */
static bool keep(const struct clarity_findings_options *o, const struct clarity_findings *r, double min_wall,
                 const struct clarity_finding *f)
{
    if (o->keep_all) return true;
    if (f->kind == CLARITY_FK_MEMORY_HEADROOM) return true;   /* an out-of-memory death is never noise */
    if ((double)f->saving_ms >= min_wall) return true;
    return f->saving_core_ms > 0 && (double)f->saving_core_ms >= CORE_MIN_SHARE * (double)r->core_ms_allocated &&
           f->saving_core_ms >= CORE_MIN_MS;
}

int clarity_findings_analyze(const struct clarity_app *a, const struct clarity_findings_options *opt,
                             struct clarity_findings *out, struct clarity_error *err)
{
    static const struct clarity_findings_options none = {0};
    if (!opt) opt = &none;
    memset(out, 0, sizeof *out);
    struct fnd x = {0};
    int rc = clarity_fnd_build(&x, a, err);
    if (rc) { clarity_fnd_free(&x); return rc; }
    int64_t end = a->end_ms ? a->end_ms : clarity_app_last_time_ms(a);
    out->duration_ms = x.duration_ms;
    out->driver_ms = x.driver_ms;
    out->core_ms_allocated = allocated_core_ms(a, end > a->start_ms ? end : a->start_ms);
    out->slots = x.slots;
    out->tasks = x.n;
    double task_ms = 0;
    for (size_t i = 0; i < x.n; i++) task_ms += x.rt[i];
    out->task_ms = (int64_t)task_ms;
    for (size_t s = 0; s < a->nstages; s++) out->stages += x.lstart[s + 1] > x.lstart[s];
    /* the smallest wall saving keep() accepts, and the same in simulated ms: rules skip the
       replay of a change whose bound is below it */
    if (!opt->keep_all) {
        double share = opt->min_share > 0 ? opt->min_share : DEFAULT_MIN_SHARE;
        double min_ms = (double)(opt->min_ms > 0 ? opt->min_ms : DEFAULT_MIN_MS);
        x.min_wall = share * (double)x.duration_ms > min_ms ? share * (double)x.duration_ms : min_ms;
        if (x.task_span_ms > 0) x.min_sim = x.min_wall * x.sim_total / (double)x.task_span_ms * 0.999;
    }
    clarity_fnd_stage_rules(&x);
    if (!x.oom) clarity_fnd_app_rules(&x);
    if (!x.oom) clarity_fnd_failure_rules(&x);
    if (!x.oom) clarity_fnd_sql_rules(&x);
    if (!x.oom) clarity_fnd_ext_rules(&x, opt);
    if (!x.oom) clarity_fnd_idle_rule(&x, opt->threads, task_ms * clarity_sim_task_cpus(a), out->core_ms_allocated);
    if (x.oom) {
        free(x.f);
        x.f = NULL;
        clarity_fnd_free(&x);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory finding what to fix");
    }
    /* say how the saving of a change in one query reached the application's end */
    for (size_t i = 0; i < x.nf; i++) {
        struct clarity_finding *f = &x.f[i];
        if (!f->arrivals) continue;
        size_t len = strlen(f->caveat);
        snprintf(f->caveat + len, sizeof f->caveat - len, "%s%s", len ? "; " : "",
                 f->arrivals == 1 ? "queries held at their logged arrivals" :
                 "queries not held at their arrivals (replay budget spent): an upper bound");
    }
    out->candidates = x.nf;
    size_t n = 0;
    for (size_t i = 0; i < x.nf; i++)
        if (keep(opt, out, x.min_wall, &x.f[i])) x.f[n++] = x.f[i];
    if (n) qsort(x.f, n, sizeof *x.f, rank_cmp);
    out->f = x.f;
    out->n = n;
    x.f = NULL;
    clarity_fnd_free(&x);
    return 0;
}

void clarity_findings_free(struct clarity_findings *f)
{
    free(f->f);
    memset(f, 0, sizeof *f);
}
