/* The fleet page: one sortable row per application with a utilisation sparkline (busy over
 * available cores across its run) and its largest finding. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report/html/html_internal.h"
#include "util/jsonw.h"

int clarity_html_fleet_row_fill(struct clarity_html_fleet_row *r, const struct clarity_app *a,
                                const struct clarity_findings *f, struct clarity_error *err)
{
    memset(r, 0, sizeof *r);
    struct clarity_html_app p = {.app = a, .findings = f, .max_task_bars = 1};
    struct html_view v;
    int rc = clarity__html_view_build(&p, &v, err);
    if (rc) return rc;
    snprintf(r->source, sizeof r->source, "%s", a->source_path ? a->source_path : "");
    snprintf(r->app_id, sizeof r->app_id, "%s%s%s", clarity_app_str(a, a->app_id), a->attempt_id ? "/" : "",
             clarity_app_str(a, a->attempt_id));
    snprintf(r->name, sizeof r->name, "%s", clarity_app_str(a, a->name));
    clarity_report_platform(a, r->platform, sizeof r->platform);
    clarity_report_integrity_flags(a, r->flags, sizeof r->flags);
    r->start_ms = a->start_ms;
    r->duration_ms = clarity_app_duration_ms(a);
    r->tasks = (int64_t)a->tasks.n;
    if (f) {
        r->cores = f->slots;
        r->core_hours_used = (double)f->task_ms / 3.6e6;
        double alloc = (double)f->core_ms_allocated / 3.6e6;
        r->core_hours_idle = alloc > r->core_hours_used ? alloc - r->core_hours_used : 0;
        r->findings = f->n;
        if (f->n) {
            snprintf(r->top_kind, sizeof r->top_kind, "%s", clarity_finding_kind_name(f->f[0].kind));
            snprintf(r->top_title, sizeof r->top_title, "%s", f->f[0].title);
            r->top_saving_ms = f->f[0].saving_ms;
            r->top_saving_core_ms = f->f[0].saving_core_ms;
        }
    }
    const size_t per = HTML_BUCKETS / CLARITY_HTML_SPARK;
    for (size_t k = 0; k < CLARITY_HTML_SPARK; k++) {
        double b = 0, av = 0;
        for (size_t q = k * per; q < (k + 1) * per; q++) { b += v.busy[q]; av += v.avail[q]; }
        r->spark[k] = av > 0 ? (float)fmin(1.0, b / av) : b > 0 ? 1.0f : 0.0f;
    }
    clarity__html_view_free(&v);
    return 0;
}

struct fleet_ctx { const struct clarity_html_fleet_row *rows; size_t n, failed; };

static void island(struct jsonw *w, const void *ctx)
{
    const struct fleet_ctx *c = ctx;
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "schema", "clarity.report-fleet/1");
    clarity_jsonw_kint(w, "failed", (int64_t)c->failed);
    clarity_jsonw_key(w, "applications");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < c->n; i++) {
        const struct clarity_html_fleet_row *r = &c->rows[i];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "app_id", r->app_id);
        clarity_jsonw_kstr(w, "name", r->name);
        clarity_jsonw_kstr(w, "source", r->source);
        clarity_jsonw_kint(w, "duration_ms", r->duration_ms);
        clarity_jsonw_kint(w, "task_attempts", r->tasks);
        clarity_jsonw_kint(w, "slots", r->cores);
        clarity_jsonw_kdouble(w, "core_hours_used", round(r->core_hours_used * 1000) / 1000);
        clarity_jsonw_kdouble(w, "core_hours_idle", round(r->core_hours_idle * 1000) / 1000);
        clarity_jsonw_kint(w, "findings", (int64_t)r->findings);
        if (r->top_kind[0]) {
            clarity_jsonw_kstr(w, "top_kind", r->top_kind);
            clarity_jsonw_kint(w, "top_saving_ms", r->top_saving_ms);
            if (r->top_saving_core_ms > 0) clarity_jsonw_kint(w, "top_saving_core_ms", r->top_saving_core_ms);
        }
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
}

int clarity_report_html_fleet(FILE *o, const struct clarity_html_fleet_row *rows, size_t n, size_t failed,
                              struct clarity_error *err)
{
    char title[64];
    snprintf(title, sizeof title, "clarity report: %zu applications", n);
    clarity__html_head(o, title, NULL);
    fprintf(o, "<h1>%zu applications</h1>\n<p class=\"note\">%zu more could not be read. Click a column to sort. "
               "Utilisation: busy over available cores across each run (48 steps). Top finding: the largest saving "
               "(clarity report LOG for one application's page).</p>\n", n, failed);
    fputs("<table class=\"sortable\"><thead><tr><th class=\"l\">application</th><th class=\"l\">name</th>"
          "<th>duration</th><th>slots</th><th>core-h used</th><th>core-h idle</th><th>tasks</th><th class=\"l\">"
          "utilisation</th><th>findings</th><th class=\"l\">top finding</th><th>saves</th><th class=\"l\">integrity</th>"
          "</tr></thead><tbody>\n", o);
    for (size_t i = 0; i < n; i++) {
        const struct clarity_html_fleet_row *r = &rows[i];
        char d[32], s[48];
        fputs("<tr class=\"app-row\"><td title=\"", o);
        clarity__html_esc(o, r->source);
        fputs("\">", o);
        clarity__html_esc(o, r->app_id);
        fputs("</td><td class=\"l\">", o);
        clarity__html_esc(o, r->name);
        fprintf(o, "</td><td data-v=\"%lld\">%s</td><td>%d</td><td>%.2f</td><td>%.2f</td><td>%lld</td>",
                (long long)r->duration_ms, clarity_fmt_ms(d, sizeof d, r->duration_ms), r->cores, r->core_hours_used,
                r->core_hours_idle, (long long)r->tasks);
        double mean = 0;
        for (size_t k = 0; k < CLARITY_HTML_SPARK; k++) mean += r->spark[k];
        mean /= CLARITY_HTML_SPARK;
        fprintf(o, "<td class=\"l\" data-v=\"%.3f\"><svg viewBox=\"0 0 96 18\" style=\"width:96px;height:18px\"><path "
                   "class=\"busy\" d=\"M0 18", mean);
        for (size_t k = 0; k < CLARITY_HTML_SPARK; k++)
            fprintf(o, "L%zu %.1fL%zu %.1f", 2 * k, 18 - 17 * r->spark[k], 2 * k + 2, 18 - 17 * r->spark[k]);
        fprintf(o, "L96 18Z\"/></svg></td><td>%zu</td><td class=\"l\" title=\"", r->findings);
        clarity__html_esc(o, r->top_title);
        fputs("\">", o);
        clarity__html_esc(o, r->top_kind[0] ? r->top_kind : "-");
        /* a saving in core time (idle executors) rather than wall time is shown in core-hours */
        if (r->top_kind[0] && r->top_saving_ms <= 0 && r->top_saving_core_ms > 0)
            snprintf(s, sizeof s, "%.2f core-h", (double)r->top_saving_core_ms / 3.6e6);
        else snprintf(s, sizeof s, "%s", r->top_kind[0] ? clarity_fmt_ms(d, sizeof d, r->top_saving_ms) : "-");
        fprintf(o, "</td><td data-v=\"%lld\">%s</td><td class=\"l\">", (long long)r->top_saving_ms, s);
        clarity__html_esc(o, r->flags);
        fputs("</td></tr>\n", o);
    }
    fputs("</tbody></table>\n", o);
    struct fleet_ctx c = {rows, n, failed};
    int rc = clarity__html_island(o, island, &c, err);
    if (rc) return rc;
    clarity__html_tail(o);
    return clarity_report_status(o, err);
}
