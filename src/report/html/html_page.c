/* One application's page: the header, the findings, the charts, the stage detail and the
 * JSON island of what was drawn (schema clarity.report/1, docs/report.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report/html/html_internal.h"
#include "util/jsonw.h"

static void kv(FILE *o, const char *k, const char *val)
{
    fprintf(o, "<div><b>%s</b>", k);
    clarity__html_esc(o, val);
    fputs("</div>", o);
}

static void header(FILE *o, const struct html_view *v)
{
    const struct clarity_app *a = v->a;
    const struct clarity_findings *f = v->p->findings;
    char b[256], t[64];
    fputs("<h1>", o);
    clarity__html_esc(o, *clarity_app_str(a, a->name) ? clarity_app_str(a, a->name) : "(unnamed application)");
    fputs("</h1>\n<p class=\"mut\">", o);
    clarity__html_esc(o, clarity_app_str(a, a->app_id));
    if (a->attempt_id) {
        fputs(" attempt ", o);
        clarity__html_esc(o, clarity_app_str(a, a->attempt_id));
    }
    fputs(" &#183; ", o);
    clarity__html_esc(o, a->source_path ? a->source_path : "");
    fputs("</p>\n<div class=\"kv\">", o);
    kv(o, "platform", clarity_report_platform(a, b, sizeof b));
    kv(o, "Spark", clarity_app_str(a, a->spark_version));
    kv(o, "started", clarity_fmt_time(t, sizeof t, a->start_ms));
    kv(o, "duration", clarity_fmt_ms(t, sizeof t, clarity_app_duration_ms(a)));
    int cores = 0;
    for (size_t e = 0; e < v->nex; e++) cores += v->ex[e].cores;
    double alloc = 0, used = 0;
    if (f) {
        snprintf(b, sizeof b, "%d at most at once (%zu executors)", f->slots, v->nex);
        alloc = (double)f->core_ms_allocated / 3.6e6;
        used = (double)f->task_ms / 3.6e6;
    } else snprintf(b, sizeof b, "%d (%zu executors)", cores, v->nex);
    kv(o, "slots", b);
    snprintf(b, sizeof b, "%.2f", used);
    kv(o, "core-hours used (tasks)", b);
    snprintf(b, sizeof b, "%.2f (%.0f%%)", alloc > used ? alloc - used : 0, alloc > 0 ? 100 * (alloc - used) / alloc : 0);
    kv(o, "core-hours idle", b);
    snprintf(b, sizeof b, "%zu", a->tasks.n);
    kv(o, "task attempts", b);
    clarity_report_integrity_flags(a, b, sizeof b);
    kv(o, "integrity", b);
    fputs("</div>\n", o);
    fputs("<p class=\"note\"><a href=\"#findings\">findings</a> &#183; <a href=\"#timeline\">executor timeline</a> &#183; "
          "<a href=\"#utilisation\">utilisation</a> &#183; <a href=\"#gantt\">stages</a> &#183; <a href=\"#blocked\">"
          "blocked time</a> &#183; <a href=\"#whatif\">what if</a> &#183; <a href=\"#stages\">stage detail</a></p>\n", o);
}

static void findings(FILE *o, const struct html_view *v)
{
    const struct clarity_findings *f = v->p->findings;
    fprintf(o, "<h2 id=\"findings\">Findings</h2>\n");
    if (!f || !f->n) {
        fprintf(o, "<p class=\"note\">%s</p>\n", f ? "No finding saves 2%% of the run or 1 s (clarity findings --all lists "
                                                    "every rule hit)." : "Findings were not computed.");
        return;
    }
    fprintf(o, "<p class=\"note\">Largest saving first. [replay]: the slot replay re-run without the problem; [bound]: an "
               "upper bound; [estimate]: from logged sizes and assumed rates. Click one naming a stage to highlight it "
               "in the charts.</p>\n<ol class=\"findings\">\n");
    for (size_t i = 0; i < f->n; i++) {
        const struct clarity_finding *x = &f->f[i];
        char b[32];
        fprintf(o, "<li class=\"finding\" data-kind=\"%s\"", clarity_finding_kind_name(x->kind));
        if (x->where & CLARITY_FW_STAGE) fprintf(o, " data-stage-link=\"%lld\"", (long long)x->stage);
        fprintf(o, "><span class=\"kind\">%s</span> ", clarity_finding_kind_name(x->kind));
        clarity__html_esc(o, x->title);
        fputs(" &#8212; <span class=\"saving\">", o);
        if (x->saving_ms > 0 || x->saving_core_ms <= 0) fputs(clarity_fmt_ms(b, sizeof b, x->saving_ms), o);
        else fprintf(o, "%.2f core-h", (double)x->saving_core_ms / 3.6e6);
        fprintf(o, "</span> <span class=\"mut\">[%s, %s confidence]</span>", clarity_finding_method_name(x->method),
                clarity_finding_confidence_name(x->confidence));
        if (x->where & CLARITY_FW_STAGE)
            fprintf(o, " <a href=\"#stage-%lld-%d\">stage %lld</a>", (long long)x->stage,
                    (x->where & CLARITY_FW_STAGE_ATTEMPT) ? x->stage_attempt : 0, (long long)x->stage);
        if (x->where & CLARITY_FW_HOST) {
            fputs(" <a href=\"#timeline\">host ", o);
            clarity__html_esc(o, x->host);
            fputs("</a>", o);
        }
        fputs("<br><span class=\"mut\">", o);
        clarity__html_esc(o, x->action);
        if (x->caveat[0]) {
            fputs(" (", o);
            clarity__html_esc(o, x->caveat);
            fputs(")", o);
        }
        fputs("</span></li>\n", o);
    }
    fputs("</ol>\n", o);
}

static void island(struct jsonw *w, const void *ctx)
{
    const struct html_view *v = ctx;
    const struct clarity_app *a = v->a;
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "schema", "clarity.report/1");
    clarity_jsonw_kstr(w, "app_id", clarity_app_str(a, a->app_id));
    if (a->attempt_id) clarity_jsonw_kstr(w, "attempt_id", clarity_app_str(a, a->attempt_id));
    clarity_jsonw_kstr(w, "name", clarity_app_str(a, a->name));
    clarity_jsonw_kint(w, "start_ms", v->t0);
    clarity_jsonw_kint(w, "span_ms", v->span_ms);
    clarity_jsonw_kstr(w, "timeline", v->heat ? "heat" : "tasks");
    clarity_jsonw_kint(w, "task_attempts", (int64_t)a->tasks.n);
    clarity_jsonw_key(w, "executors");
    clarity_jsonw_arr_begin(w);
    for (size_t e = 0; e < v->nex; e++) {
        const struct html_exec *x = &v->ex[e];
        clarity_jsonw_obj_begin(w);
        if (x->row != SIZE_MAX) {
            clarity_jsonw_kstr(w, "id", clarity_app_str(a, a->execs[x->row].id));
            clarity_jsonw_kstr(w, "host", clarity_app_str(a, a->execs[x->row].host));
        }
        clarity_jsonw_kint(w, "slots", x->cores);
        clarity_jsonw_kint(w, "add_ms", x->add_ms);
        if (x->remove_ms >= 0) clarity_jsonw_kint(w, "remove_ms", x->remove_ms);
        clarity_jsonw_kint(w, "task_attempts", (int64_t)x->tasks);
        if (x->slow_host) clarity_jsonw_kbool(w, "slow_host", true);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "stages");
    clarity_jsonw_arr_begin(w);
    for (size_t k = 0; k < v->nst; k++) {
        const struct html_stage *s = &v->st[k];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "stage", a->stages[s->row].stage_id);
        clarity_jsonw_kint(w, "attempt", a->stages[s->row].attempt);
        if (s->job >= 0) clarity_jsonw_kint(w, "job", s->job);
        if (s->sql >= 0) clarity_jsonw_kint(w, "sql", s->sql);
        clarity_jsonw_kint(w, "start_ms", s->start_ms);
        clarity_jsonw_kint(w, "end_ms", s->end_ms);
        clarity_jsonw_kint(w, "task_attempts", (int64_t)s->tasks);
        clarity_jsonw_kint(w, "failed", (int64_t)s->failed);
        clarity_jsonw_kint(w, "longest_task_ms", s->longest_ms);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "critical_path");
    clarity_jsonw_obj_begin(w);
    if (v->p->curve) clarity_jsonw_kdouble(w, "length_ms", v->p->curve->critical_path_ms);
    clarity_jsonw_key(w, "stages");
    clarity_jsonw_arr_begin(w);
    for (size_t k = 0; k < v->nst; k++)
        if (v->st[k].critical) {
            clarity_jsonw_obj_begin(w);
            clarity_jsonw_kint(w, "stage", a->stages[v->st[k].row].stage_id);
            clarity_jsonw_kint(w, "attempt", a->stages[v->st[k].row].attempt);
            clarity_jsonw_kint(w, "longest_task_ms", v->st[k].longest_ms);
            clarity_jsonw_obj_end(w);
        }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "findings");
    clarity_jsonw_arr_begin(w);
    const struct clarity_findings *f = v->p->findings;
    for (size_t i = 0; f && i < f->n; i++) {
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "rank", (int64_t)i + 1);
        clarity_jsonw_kstr(w, "kind", clarity_finding_kind_name(f->f[i].kind));
        clarity_jsonw_kstr(w, "title", f->f[i].title);
        if (f->f[i].where & CLARITY_FW_STAGE) clarity_jsonw_kint(w, "stage", f->f[i].stage);
        if (f->f[i].where & CLARITY_FW_HOST) clarity_jsonw_kstr(w, "host", f->f[i].host);
        clarity_jsonw_kint(w, "saving_ms", f->f[i].saving_ms);
        clarity_jsonw_kstr(w, "method", clarity_finding_method_name(f->f[i].method));
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "utilisation");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kdouble(w, "bucket_ms", v->bucket_ms);
    clarity_jsonw_key(w, "busy_cores");
    clarity_jsonw_arr_begin(w);
    for (size_t k = 0; k < HTML_BUCKETS; k++) clarity_jsonw_double(w, round(v->busy[k] * 100) / 100);
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "available_cores");
    clarity_jsonw_arr_begin(w);
    for (size_t k = 0; k < HTML_BUCKETS; k++) clarity_jsonw_double(w, round(v->avail[k] * 100) / 100);
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
    const struct clarity_curve_result *c = v->p->curve;
    if (c) {
        clarity_jsonw_key(w, "whatif");
        clarity_jsonw_arr_begin(w);
        for (size_t i = 0; i < c->npoints; i++) {
            clarity_jsonw_obj_begin(w);
            clarity_jsonw_kdouble(w, "cores", c->points[i].cores);
            clarity_jsonw_kdouble(w, "predicted_ms", round(c->points[i].predicted_ms));
            clarity_jsonw_kdouble(w, "core_hours", c->points[i].core_hours);
            clarity_jsonw_obj_end(w);
        }
        clarity_jsonw_arr_end(w);
    }
    clarity_jsonw_obj_end(w);
}

int clarity_report_html_app(FILE *o, const struct clarity_html_app *p, struct clarity_error *err)
{
    struct html_view v;
    int rc = clarity__html_view_build(p, &v, err);
    if (rc) return rc;
    const struct clarity_app *a = p->app;
    char title[300];
    snprintf(title, sizeof title, "clarity report: %s", *clarity_app_str(a, a->name) ? clarity_app_str(a, a->name)
                                                                                       : clarity_app_str(a, a->app_id));
    clarity__html_head(o, title, &v);
    header(o, &v);
    findings(o, &v);
    clarity__html_timeline(o, &v);
    clarity__html_utilisation(o, &v);
    clarity__html_gantt(o, &v);
    clarity__html_blocked(o, &v);
    clarity__html_whatif(o, &v);
    rc = clarity__html_stage_detail(o, &v, err);
    if (!rc) {
        fputs("<p class=\"note\">Written by clarity from the event log alone; the data drawn is embedded in this file as "
              "JSON (script#clarity-data, schema clarity.report/1).</p>\n", o);
        rc = clarity__html_island(o, island, &v, err);
    }
    if (!rc) clarity__html_tail(o);
    clarity__html_view_free(&v);
    return rc ? rc : clarity_report_status(o, err);
}
