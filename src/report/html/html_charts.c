/* The stage Gantt (jobs as groups, the critical path highlighted), blocked time per job or
 * SQL query, and the what-if core-count curve. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report/html/html_internal.h"

struct gorder { size_t k; int64_t job_start, job, start, id; };

static int gorder_cmp(const void *pa, const void *pb)
{
    const struct gorder *a = pa, *b = pb;
    if (a->job_start != b->job_start) return a->job_start < b->job_start ? -1 : 1;
    if (a->job != b->job) return a->job < b->job ? -1 : 1;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

void clarity__html_gantt(FILE *o, const struct html_view *v)
{
    const struct clarity_app *a = v->a;
    fprintf(o, "<h2 id=\"gantt\">Stages</h2>\n");
    if (!v->nst) {
        fprintf(o, "<p class=\"note\">The log has no stage with a time span.</p>\n");
        return;
    }
    struct gorder *g = malloc(v->nst * sizeof *g);
    if (!g) return;
    /* jobs in order of their first stage, stages of a job by start: a job reads as one block */
    for (size_t k = 0; k < v->nst; k++) {
        int64_t js = v->st[k].start_ms;
        for (size_t q = 0; q < v->nst; q++)
            if (v->st[q].job == v->st[k].job && v->st[q].start_ms < js) js = v->st[q].start_ms;
        g[k] = (struct gorder){k, v->st[k].job < 0 ? v->st[k].start_ms : js, v->st[k].job, v->st[k].start_ms,
                               a->stages[v->st[k].row].stage_id};
        if (v->nst > 3000) break;   /* quadratic beyond: sorted by start alone below */
    }
    if (v->nst > 3000)
        for (size_t k = 0; k < v->nst; k++)
            g[k] = (struct gorder){k, v->st[k].start_ms, 0, v->st[k].start_ms, a->stages[v->st[k].row].stage_id};
    qsort(g, v->nst, sizeof *g, gorder_cmp);
    double rh = 800.0 / (double)v->nst;
    rh = rh > 14 ? 14 : rh < 1.2 ? 1.2 : rh;
    double H = 4 + v->nst * rh;
    size_t ncrit = 0;
    double crit_ms = 0;
    for (size_t k = 0; k < v->nst; k++)
        if (v->st[k].critical) { ncrit++; crit_ms += (double)v->st[k].longest_ms; }
    char b1[32];
    fprintf(o, "<p class=\"note\">One bar per stage attempt, first task launch to last task end, grouped by job "
               "(label on the left: the job and its SQL query). <span style=\"color:var(--crit)\">Orange outline</span>: "
               "the critical path of <code>clarity whatif</code>'s DAG replay with unlimited slots (per group of "
               "overlapping stages, the chain of dependent stages whose longest tasks sum to the most): %zu stage(s), "
               "%s. Click a finding to highlight its stage.</p>\n",
            ncrit, v->p->curve ? clarity__html_ms(b1, sizeof b1, v->p->curve->critical_path_ms) : "not computed");
    fprintf(o, "<svg viewBox=\"0 0 %d %.0f\" role=\"img\" aria-label=\"stage Gantt\">", HTML_W, H + 24);
    clarity__html_axis(o, v, H, 14);
    int64_t last_job = INT64_MIN;
    double px = -1, py = -1;
    fputs("<g>", o);
    for (size_t r = 0; r < v->nst; r++) {
        const struct html_stage *s = &v->st[g[r].k];
        const struct clarity_stage *cs = &a->stages[s->row];
        double y = 4 + r * rh;
        if (s->job != last_job && rh * 3 >= 9) {
            fprintf(o, "<text class=\"lbl\" x=\"%d\" y=\"%.1f\">", HTML_LABEL_W - 6, y + (rh < 10 ? 9 : rh - 2));
            if (s->job >= 0) fprintf(o, "job %lld", (long long)s->job);
            if (s->sql >= 0) fprintf(o, " &#183; SQL %lld", (long long)s->sql);
            fputs("</text>", o);
            if (r) fprintf(o, "<line class=\"axis\" x1=\"0\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"var(--grid)\"/>",
                           HTML_W, y - 0.5, y - 0.5);
        }
        last_job = s->job;
        double x0 = clarity__html_x(v, s->start_ms), x1 = clarity__html_x(v, s->end_ms);
        char b[32];
        fprintf(o, "<rect class=\"stage-bar s%lld%s\" data-stage=\"%lld\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                   "height=\"%.1f\"><title>stage %lld.%d ",
                (long long)cs->stage_id, s->critical ? " crit" : "", (long long)cs->stage_id, x0, y + (rh > 3 ? 0.5 : 0),
                x1 - x0 < 1 ? 1 : x1 - x0, rh > 3 ? rh - 1 : rh, (long long)cs->stage_id, cs->attempt);
        clarity__html_esc(o, clarity_app_str(a, cs->name));
        fprintf(o, ": %s, %zu tasks", clarity__html_ms(b, sizeof b, ((double)s->end_ms - (double)s->start_ms)), s->tasks);
        if (s->failed) fprintf(o, ", %zu failed", s->failed);
        if (s->critical) fprintf(o, ", critical path (longest task %s)", clarity__html_ms(b, sizeof b, (double)s->longest_ms));
        fputs("</title></rect>", o);
        if (rh >= 10 && x1 - x0 >= 60)   /* room for its name */
            fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" style=\"fill:#fff;font-size:10px\" pointer-events=\"none\">stage "
                       "%lld</text>", x0 + 4, y + rh - 3.5, (long long)cs->stage_id);
        if (s->critical) {
            if (px >= 0) fprintf(o, "<path class=\"cpl\" d=\"M%.1f %.1fL%.1f %.1f\"/>", px, py, x0, y + rh / 2);
            px = x1;
            py = y + rh / 2;
        }
    }
    fputs("</g></svg>\n", o);
    free(g);
}

static const enum clarity_resource shown[] = {CLARITY_RES_NETWORK, CLARITY_RES_DISK, CLARITY_RES_GC,
                                              CLARITY_RES_SCHED_DELAY, CLARITY_RES_STRAGGLERS, CLARITY_RES_NON_CPU};
static const char *const shown_colour[] = {"#2f6fde", "#7f56d9", "#f79009", "#98a2b3", "#d92d20", "#12b76a"};
static const char *const shown_label[] = {"network", "disk (partial)", "GC", "scheduler delay", "stragglers",
                                          "non-CPU"};

struct bsort { size_t i; int64_t ms; };
static int bsort_cmp(const void *pa, const void *pb)
{
    const struct bsort *a = pa, *b = pb;
    if (a->ms != b->ms) return a->ms > b->ms ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

void clarity__html_blocked(FILE *o, const struct html_view *v)
{
    const struct clarity_blocked_result *r = v->p->blocked;
    fprintf(o, "<h2 id=\"blocked\">Blocked time</h2>\n");
    if (!r || !r->ngroups) {
        fprintf(o, "<p class=\"note\">No job or SQL query with successful tasks.</p>\n");
        return;
    }
    int kind = CLARITY_GROUP_JOB;
    for (size_t i = 0; i < r->ngroups; i++) if (r->groups[i].kind == CLARITY_GROUP_SQL) kind = CLARITY_GROUP_SQL;
    struct bsort *s = malloc(r->ngroups * sizeof *s);
    if (!s) return;
    size_t n = 0;
    for (size_t i = 0; i < r->ngroups; i++)
        if (r->groups[i].kind == kind) s[n++] = (struct bsort){i, r->groups[i].actual_ms};
    qsort(s, n, sizeof *s, bsort_cmp);
    size_t shown_n = n > 25 ? 25 : n;
    int64_t top = 1;
    for (size_t k = 0; k < shown_n; k++) if (s[k].ms > top) top = s[k].ms;
    fprintf(o, "<p class=\"note\">Per %s (the %zu longest of %zu): the grey bar is its time, each coloured bar the time it "
               "would have saved had its tasks never waited on that resource (blocked-time analysis: slot replay with and "
               "without it; input/output disk time is not logged, so disk is a lower bound). <span class=\"legend\">",
            kind == CLARITY_GROUP_SQL ? "SQL query" : "job", shown_n, n);
    for (size_t q = 0; q < 6; q++)
        fprintf(o, "<span><i class=\"sw\" style=\"background:%s\"></i>%s</span>", shown_colour[q], shown_label[q]);
    fputs("</span></p>\n", o);
    const double bh = 3, rowh = 6 * bh + 8;
    fprintf(o, "<svg viewBox=\"0 0 %d %.0f\" role=\"img\" aria-label=\"blocked time\">", HTML_W, shown_n * rowh + 8);
    for (size_t k = 0; k < shown_n; k++) {
        const struct clarity_blocked_group *gr = &r->groups[s[k].i];
        double y = 4 + k * rowh;
        char b[32];
        fprintf(o, "<g class=\"blocked-row\"><text class=\"lbl\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s %lld &#183; %s"
                   "</text>", HTML_LABEL_W - 6, y + rowh / 2 + 2, kind == CLARITY_GROUP_SQL ? "SQL" : "job",
                (long long)gr->id, clarity__html_ms(b, sizeof b, (double)gr->actual_ms));
        double w = (double)gr->actual_ms / (double)top * HTML_PLOT_W;
        fprintf(o, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"life\"/>", HTML_LABEL_W, y, w,
                rowh - 4);
        for (size_t q = 0; q < 6; q++) {
            const struct clarity_blocked_without *wo = &gr->without[shown[q]];
            if (!wo->available || wo->improvement <= 0) continue;
            double saved = wo->improvement * (double)gr->actual_ms;
            fprintf(o, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s: %s (%.1f%%)</title>"
                       "</rect>", HTML_LABEL_W, y + 2 + q * bh, saved / (double)top * HTML_PLOT_W, bh - 0.5,
                    shown_colour[q], shown_label[q], clarity__html_ms(b, sizeof b, saved), 100 * wo->improvement);
        }
        fputs("</g>", o);
    }
    fputs("</svg>\n", o);
    free(s);
}

void clarity__html_whatif(FILE *o, const struct html_view *v)
{
    const struct clarity_curve_result *c = v->p->curve;
    fprintf(o, "<h2 id=\"whatif\">What if: more or fewer cores</h2>\n");
    if (!c || !c->npoints || c->tasks == 0) {
        fprintf(o, "<p class=\"note\">No successful task to replay.</p>\n");
        return;
    }
    double xmax = 1, ymax = 1, hmax = 1e-9;
    for (size_t i = 0; i < c->npoints; i++) {
        if (c->points[i].cores > xmax) xmax = c->points[i].cores;
        if (c->points[i].predicted_ms > ymax) ymax = c->points[i].predicted_ms;
        if (c->points[i].core_hours > hmax) hmax = c->points[i].core_hours;
    }
    char b[32], b2[32];
    fprintf(o, "<p class=\"note\">Predicted wall time (solid) and core-hours (dashed) against the cores given, from the "
               "DAG-aware slot replay of the successful tasks, driver-only time (%s) kept as measured; the replay at the "
               "observed cores is %+.0f%% off the measured task time. Circle: now; square: the knee (fewest cores within "
               "10%% of the best). Critical path (unlimited cores): %s.</p>\n",
            clarity__html_ms(b, sizeof b, (double)c->driver_ms), 100 * c->replay_error,
            clarity__html_ms(b2, sizeof b2, c->critical_path_ms));
    const double W = 700, H = 240, L = 90, T = 10;
    fprintf(o, "<svg viewBox=\"0 0 %.0f %.0f\" style=\"max-width:760px\" role=\"img\" aria-label=\"what-if curve\">",
            W + 100, H + 40);
    fprintf(o, "<g class=\"axis\"><line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\"/><line x1=\"%.0f\" x2=\"%.0f\" "
               "y1=\"%.0f\" y2=\"%.0f\"/></g>", L, L + W - L, T + H, T + H, L, L, T, T + H);
#define PX(cores) (L + (cores) / xmax * (W - L - 10))
#define PY(ms) (T + H - (ms) / ymax * (H - 10))
#define PH(h) (T + H - (h) / hmax * (H - 10))
    fputs("<path fill=\"none\" stroke=\"var(--busy)\" stroke-width=\"2\" d=\"", o);
    for (size_t i = 0; i < c->npoints; i++)
        fprintf(o, "%c%.1f %.1f", i ? 'L' : 'M', PX(c->points[i].cores), PY(c->points[i].predicted_ms));
    fputs("\"/><path fill=\"none\" stroke=\"var(--crit)\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\" d=\"", o);
    for (size_t i = 0; i < c->npoints; i++)
        fprintf(o, "%c%.1f %.1f", i ? 'L' : 'M', PX(c->points[i].cores), PH(c->points[i].core_hours));
    fputs("\"/>", o);
    for (size_t i = 0; i < c->npoints; i++) {
        const struct clarity_curve_point *p = &c->points[i];
        bool now = p->ask.relative && fabs(p->ask.v - 1) < 1e-9;
        double x = PX(p->cores), y = PY(p->predicted_ms);
        if (now)
            fprintf(o, "<circle class=\"now\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"var(--busy)\"/>", x, y);
        else if (i == c->knee)
            fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\" fill=\"var(--busy)\"/>", x - 4.5, y - 4.5);
        else fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"var(--busy)\"/>", x, y);
        fprintf(o, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" class=\"mut\">%.0f</text>", x, T + H + 14, p->cores);
        fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">%s%s</text>", x + 6, y - 6,
                clarity__html_ms(b, sizeof b, p->predicted_ms), now ? " (now)" : "");
    }
    fprintf(o, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">cores</text>", (L + W) / 2, T + H + 30);
    fprintf(o, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%s</text><text x=\"%.0f\" y=\"%.0f\" "
               "text-anchor=\"end\">0</text>", L - 6, PY(ymax) + 4, clarity__html_ms(b, sizeof b, ymax), L - 6, T + H);
    fprintf(o, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" style=\"fill:var(--crit)\">- - core-hours (top of the "
               "chart: %.2f)</text>", W + 90, T + 10, hmax);
#undef PX
#undef PY
#undef PH
    fputs("</svg>\n", o);
}
