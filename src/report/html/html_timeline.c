/* The executor timeline (tasks as bars in slot lanes, or a heat strip per executor for large
 * applications) and the utilisation chart (busy against available cores, driver-only time
 * shaded). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report/html/html_internal.h"

#define HEAT_BUCKETS 300         /* the heat strip's resolution: 300 x executors rects at most */
#define HEAT_LEVELS 8

static void exec_label(FILE *o, const struct html_view *v, const struct html_exec *x, double y)
{
    const struct clarity_app *a = v->a;
    const char *id, *host = "";
    if (x->row != SIZE_MAX) {
        id = clarity_app_str(a, a->execs[x->row].id);
        host = clarity_app_str(a, a->execs[x->row].host);
    } else {
        id = "?";
        for (size_t s = 0; s < v->nstr; s++)
            if (v->exec_of_str[s] == (uint32_t)(x - v->ex) + 1) { id = clarity_app_str(a, (uint32_t)s); break; }
    }
    /* the host without its domain: rows are narrow */
    char h[40];
    size_t hl = strcspn(host, ".");
    snprintf(h, sizeof h, "%.*s", (int)(hl < 30 ? hl : 30), host);
    fprintf(o, "<text class=\"lbl%s\" x=\"%d\" y=\"%.1f\">%s", x->slow_host ? " slowlbl" : "", HTML_LABEL_W - 6, y,
            x->slow_host ? "&#9888; " : "");
    clarity__html_esc(o, id);
    if (*h) {
        fputs(" &#183; ", o);
        clarity__html_esc(o, h);
    }
    fputs("</text>", o);
}

/* the executor's life: a band from add to remove, a green tick when added after the start, a
 * red one when removed before the end */
static void exec_life(FILE *o, const struct html_view *v, const struct html_exec *x, double y, double h)
{
    double x0 = clarity__html_x(v, x->add_ms), x1 = clarity__html_x(v, x->remove_ms >= 0 ? x->remove_ms : v->span_ms);
    fprintf(o, "<rect class=\"life\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", x0, y, x1 - x0, h);
    if (x->add_ms > 0) fprintf(o, "<line class=\"addm\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x0, x0, y, y + h);
    if (x->remove_ms >= 0 && x->remove_ms < v->span_ms)
        fprintf(o, "<line class=\"rmm\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x1, x1, y, y + h);
}

struct trow { uint32_t ex; uint32_t row; int64_t launch; };

static int trow_cmp(const void *pa, const void *pb)
{
    const struct trow *a = pa, *b = pb;
    if (a->ex != b->ex) return a->ex < b->ex ? -1 : 1;
    if (a->launch != b->launch) return a->launch < b->launch ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

static int dbl_cmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* median successful duration per stage of the view (0 when none) */
static double *stage_medians(const struct html_view *v)
{
    const struct clarity_app *a = v->a;
    double *med = calloc(v->nst ? v->nst : 1, sizeof *med);
    size_t *cnt = calloc(v->nst + 1, sizeof *cnt);
    double *d = malloc((a->tasks.n ? a->tasks.n : 1) * sizeof *d);
    if (!med || !cnt || !d) { free(med); free(cnt); free(d); return NULL; }
    for (size_t i = 0; i < a->tasks.n; i++) {
        size_t s = (size_t)clarity_icol_get(&a->tasks.stage, i);
        if (s < a->nstages && v->stage_idx[s] && clarity_icol_get(&a->tasks.end, i) == CLARITY_END_SUCCESS)
            cnt[v->stage_idx[s]]++;
    }
    for (size_t k = 1; k <= v->nst; k++) cnt[k] += cnt[k - 1];
    size_t *pos = calloc(v->nst + 1, sizeof *pos);
    if (!pos) { free(med); free(cnt); free(d); return NULL; }
    memcpy(pos, cnt, (v->nst + 1) * sizeof *pos);
    for (size_t i = 0; i < a->tasks.n; i++) {
        size_t s = (size_t)clarity_icol_get(&a->tasks.stage, i);
        if (s < a->nstages && v->stage_idx[s] && clarity_icol_get(&a->tasks.end, i) == CLARITY_END_SUCCESS)
            d[pos[v->stage_idx[s] - 1]++] = (double)clarity_icol_get(&a->tasks.duration, i);
    }
    for (size_t k = 0; k < v->nst; k++) {
        size_t lo = cnt[k], m = cnt[k + 1] - lo;
        if (!m) continue;
        qsort(d + lo, m, sizeof *d, dbl_cmp);
        med[k] = m % 2 ? d[lo + m / 2] : (d[lo + m / 2 - 1] + d[lo + m / 2]) / 2;
    }
    free(cnt); free(pos); free(d);
    return med;
}

static void stage_styles(FILE *o, const struct html_view *v)
{
    fputs("<style>", o);
    for (size_t k = 0; k < v->nst; k++) {
        int64_t id = v->a->stages[v->st[k].row].stage_id;
        fprintf(o, ".s%lld{fill:hsl(%d,62%%,56%%)}", (long long)id, clarity__html_hue(id));
    }
    fputs("</style>\n", o);
}

static void bars(FILE *o, const struct html_view *v)
{
    const struct clarity_app *a = v->a;
    size_t n = a->tasks.n;
    struct trow *t = malloc((n ? n : 1) * sizeof *t);
    int *lanes = calloc(v->nex ? v->nex : 1, sizeof *lanes);
    uint16_t *lane_of = malloc((n ? n : 1) * sizeof *lane_of);
    double *med = stage_medians(v);
    int64_t *lane_end = NULL;
    size_t nt = 0;
    if (!t || !lanes || !lane_of || !med) goto out;
    for (size_t i = 0; i < n; i++) {
        uint32_t ex = (uint32_t)clarity_icol_get(&a->tasks.executor, i);
        if (ex >= v->nstr || !v->exec_of_str[ex]) continue;
        t[nt++] = (struct trow){v->exec_of_str[ex] - 1, (uint32_t)i, clarity_task_launch_ms(a, i)};
    }
    qsort(t, nt, sizeof *t, trow_cmp);
    /* lanes: each task takes the first lane free at its launch; an executor has at least its
     * slots, more when the log shows more tasks at once (speculative copies, late ends) */
    int maxl = 1;
    for (size_t e = 0; e < v->nex; e++) if (v->ex[e].cores > maxl) maxl = v->ex[e].cores;
    for (size_t i = 0, j; i < nt; i = j) {   /* at most one lane per task */
        for (j = i; j < nt && t[j].ex == t[i].ex; j++) {}
        if ((size_t)maxl < j - i) maxl = j - i > 65535 ? 65535 : (int)(j - i);
    }
    if (maxl > 65535) maxl = 65535;
    lane_end = malloc((size_t)maxl * sizeof *lane_end);
    if (!lane_end) goto out;
    for (size_t i = 0, j; i < nt; i = j) {
        uint32_t e = t[i].ex;
        int nl = v->ex[e].cores;
        for (int l = 0; l < maxl; l++) lane_end[l] = INT64_MIN;
        for (j = i; j < nt && t[j].ex == e; j++) {
            int64_t f = clarity_task_finish_ms(a, t[j].row);
            if (!f) f = INT64_MAX;   /* still running at the end */
            int l = 0;
            while (l < maxl - 1 && lane_end[l] > t[j].launch) l++;
            lane_end[l] = f;
            lane_of[t[j].row] = (uint16_t)l;
            if (l + 1 > nl) nl = l + 1;
        }
        lanes[e] = nl;
    }
    for (size_t e = 0; e < v->nex; e++) if (lanes[e] < v->ex[e].cores) lanes[e] = v->ex[e].cores;
    size_t total = 0;
    for (size_t e = 0; e < v->nex; e++) total += (size_t)lanes[e];
    double lh = total ? 900.0 / (double)total : 8;
    lh = lh > 9 ? 9 : lh < 1.5 ? 1.5 : lh;
    double gap = 3, y = 4;
    double height = 4;
    for (size_t e = 0; e < v->nex; e++) height += lanes[e] * lh + gap;
    fprintf(o, "<svg viewBox=\"0 0 %d %.0f\" role=\"img\" aria-label=\"executor timeline\">", HTML_W, height + 24);
    clarity__html_axis(o, v, height, 14);
    bool titles = nt <= 5000;
    size_t k = 0;
    for (size_t e = 0; e < v->nex; e++) {
        const struct html_exec *x = &v->ex[e];
        double h = lanes[e] * lh;
        fprintf(o, "<g class=\"exec-row%s\">", x->slow_host ? " slow" : "");
        exec_life(o, v, x, y, h);
        exec_label(o, v, x, y + h / 2 + 4);
        for (; k < nt && t[k].ex == e; k++) {
            size_t r = t[k].row;
            int64_t fl = clarity_task_flags(a, r);
            int64_t l = clarity__html_rel(t[k].launch, v->t0), f = clarity_task_finish_ms(a, r);
            f = f ? clarity__html_rel(f, v->t0) : v->span_ms;
            double dur = (double)f - (double)l;
            size_t s = (size_t)clarity_icol_get(&a->tasks.stage, r);
            int64_t sid = s < a->nstages ? a->stages[s].stage_id : -1;
            double x0 = clarity__html_x(v, l), x1 = clarity__html_x(v, f);
            bool slow = s < a->nstages && v->stage_idx[s] && med[v->stage_idx[s] - 1] > 0 &&
                        dur >= 1.5 * med[v->stage_idx[s] - 1] && dur >= 1000 &&
                        clarity_icol_get(&a->tasks.end, r) == CLARITY_END_SUCCESS;
            fprintf(o, "<rect class=\"t s%lld%s%s%s%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"",
                    (long long)sid, fl & CLARITY_TF_FAILED ? " fail" : "", fl & CLARITY_TF_KILLED ? " kill" : "",
                    fl & CLARITY_TF_SPECULATIVE ? " spec" : "", slow ? " slowt" : "", x0,
                    y + lane_of[r] * lh + (lh > 3 ? 0.5 : 0), x1 - x0 < 0.6 ? 0.6 : x1 - x0, lh > 3 ? lh - 1 : lh);
            if (titles) {
                char b[32];
                fprintf(o, "><title>stage %lld task %lld: %s%s%s%s</title></rect>", (long long)sid,
                        (long long)clarity_icol_get(&a->tasks.index, r), clarity__html_ms(b, sizeof b, dur),
                        fl & CLARITY_TF_FAILED ? ", failed" : "", fl & CLARITY_TF_KILLED ? ", killed" : "",
                        fl & CLARITY_TF_SPECULATIVE ? ", speculative" : "");
            } else fputs("/>", o);
        }
        fputs("</g>\n", o);
        y += h + gap;
    }
    fputs("</svg>\n", o);
out:
    free(t); free(lanes); free(lane_of); free(med); free(lane_end);
}

static void heat(FILE *o, const struct html_view *v)
{
    const struct clarity_app *a = v->a;
    size_t ne = v->nex ? v->nex : 1;
    double *b = calloc(ne * HEAT_BUCKETS, sizeof *b);
    if (!b) return;
    double bms = (double)v->span_ms / HEAT_BUCKETS;
    for (size_t i = 0; i < a->tasks.n; i++) {
        uint32_t ex = (uint32_t)clarity_icol_get(&a->tasks.executor, i);
        if (ex >= v->nstr || !v->exec_of_str[ex]) continue;
        double *row = b + (size_t)(v->exec_of_str[ex] - 1) * HEAT_BUCKETS;
        double l = (double)clarity__html_rel(clarity_task_launch_ms(a, i), v->t0);
        double f = (double)clarity_task_finish_ms(a, i);
        f = f != 0 ? (double)clarity__html_rel(clarity_task_finish_ms(a, i), v->t0) : (double)v->span_ms;
        if (l < 0) l = 0;
        if (f > (double)v->span_ms) f = (double)v->span_ms;
        if (f <= l) continue;
        size_t p = (size_t)(l / bms), q = (size_t)(f / bms);
        if (q >= HEAT_BUCKETS) q = HEAT_BUCKETS - 1;
        for (size_t k = p; k <= q && k < HEAT_BUCKETS; k++) {
            double lo = k * bms, hi = lo + bms, ov = (f < hi ? f : hi) - (l > lo ? l : lo);
            if (ov > 0) row[k] += ov / bms;
        }
    }
    double rh = v->nex ? 900.0 / (double)v->nex : 10;
    rh = rh > 14 ? 14 : rh < 1.5 ? 1.5 : rh;
    double height = 4 + v->nex * (rh + 1);
    fputs("<style>", o);
    for (int l = 1; l <= HEAT_LEVELS; l++) fprintf(o, ".h%d{fill:var(--busy);opacity:%.2f}", l, (double)l / HEAT_LEVELS);
    fputs("</style>\n", o);
    fprintf(o, "<svg viewBox=\"0 0 %d %.0f\" role=\"img\" aria-label=\"executor utilisation heat strip\">", HTML_W,
            height + 24);
    clarity__html_axis(o, v, height, 14);
    double y = 4, w = (double)HTML_PLOT_W / HEAT_BUCKETS;
    for (size_t e = 0; e < v->nex; e++) {
        const struct html_exec *x = &v->ex[e];
        fprintf(o, "<g class=\"exec-row%s\">", x->slow_host ? " slow" : "");
        exec_life(o, v, x, y, rh);
        if (rh >= 7 || x->slow_host) exec_label(o, v, x, y + rh / 2 + 4);
        const double *row = b + e * HEAT_BUCKETS;
        /* runs of one level: one rect each */
        for (size_t k = 0, j; k < HEAT_BUCKETS; k = j) {
            int lv = (int)ceil(row[k] / x->cores * HEAT_LEVELS - 1e-9);
            lv = lv < 0 ? 0 : lv > HEAT_LEVELS ? HEAT_LEVELS : lv;
            for (j = k + 1; j < HEAT_BUCKETS; j++) {
                int lj = (int)ceil(row[j] / x->cores * HEAT_LEVELS - 1e-9);
                lj = lj < 0 ? 0 : lj > HEAT_LEVELS ? HEAT_LEVELS : lj;
                if (lj != lv) break;
            }
            if (lv) fprintf(o, "<rect class=\"h%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", lv,
                            HTML_LABEL_W + k * w, y, (j - k) * w, rh);
        }
        fputs("</g>\n", o);
        y += rh + 1;
    }
    fputs("</svg>\n", o);
    free(b);
}

void clarity__html_timeline(FILE *o, const struct html_view *v)
{
    fprintf(o, "<h2 id=\"timeline\">Executor timeline</h2>\n");
    if (v->heat)
        fprintf(o, "<p class=\"note\">%zu task attempts: aggregated into a heat strip per executor (darker = more of its "
                   "slots busy, %d time buckets), so the file stays small. Green tick: executor added; red: removed. "
                   "&#9888; marks a host a finding names.</p>\n", v->a->tasks.n, HEAT_BUCKETS);
    else
        fprintf(o, "<p class=\"note\">One bar per task attempt in its executor's slot lanes, coloured by stage. "
                   "<span class=\"legend\"><span><svg class=\"sw\" viewBox=\"0 0 12 10\"><rect width=\"12\" height=\"10\" "
                   "fill=\"#aaa\" class=\"fail\"/></svg>failed</span><span><svg class=\"sw\" viewBox=\"0 0 12 10\"><rect "
                   "width=\"12\" height=\"10\" fill=\"#aaa\" class=\"kill\"/></svg>killed</span><span><svg class=\"sw\" "
                   "viewBox=\"0 0 12 10\"><rect width=\"12\" height=\"10\" fill=\"#aaa\" class=\"spec\"/></svg>speculative"
                   "</span><span><svg class=\"sw\" viewBox=\"0 0 12 10\"><rect width=\"12\" height=\"10\" fill=\"#aaa\" "
                   "class=\"slowt\"/></svg>1.5x+ its stage's median (and 1 s+)</span></span> Green tick: executor added; "
                   "red: removed. &#9888; and a red band: a host a finding names as slow.</p>\n");
    stage_styles(o, v);   /* the Gantt's bars use them too */
    if (v->heat) heat(o, v);
    else bars(o, v);
}

void clarity__html_utilisation(FILE *o, const struct html_view *v)
{
    double top = 1;
    for (size_t k = 0; k < HTML_BUCKETS; k++) {
        if (v->avail[k] > top) top = v->avail[k];
        if (v->busy[k] > top) top = v->busy[k];
    }
    const double H = 170;
    double used = 0, avail = 0;
    for (size_t k = 0; k < HTML_BUCKETS; k++) { used += v->busy[k]; avail += v->avail[k]; }
    char bb[32];
    clarity__html_ms(bb, sizeof bb, v->bucket_ms);
    fprintf(o, "<h2 id=\"utilisation\">Utilisation</h2>\n<p class=\"note\">Busy cores (task attempts running, blue) "
               "against available cores (executor cores alive, grey line), averaged over %d buckets of %s; shaded: no task "
               "running (driver-only time, to the bucket's resolution). Busy %.0f%% of available over the run.</p>\n",
            HTML_BUCKETS, bb,
            avail > 0 ? 100 * used / avail : 0);
    fprintf(o, "<svg viewBox=\"0 0 %d %.0f\" role=\"img\" aria-label=\"utilisation\">", HTML_W, H + 24);
    double w = (double)HTML_PLOT_W / HTML_BUCKETS;
    for (size_t k = 0, j; k < HTML_BUCKETS; k = j) {
        for (j = k; j < HTML_BUCKETS && v->busy[j] <= 0; j++) {}
        if (j > k) fprintf(o, "<rect class=\"drv\" x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%.0f\"/>", HTML_LABEL_W + k * w,
                           (j - k) * w, H);
        if (j == k) j++;
    }
    clarity__html_axis(o, v, H, 14);
    fprintf(o, "<path class=\"busy\" d=\"M%d %.0f", HTML_LABEL_W, H);
    for (size_t k = 0; k < HTML_BUCKETS; k++) {
        double y = H - v->busy[k] / top * (H - 6);
        fprintf(o, "L%.1f %.1fL%.1f %.1f", HTML_LABEL_W + k * w, y, HTML_LABEL_W + (k + 1) * w, y);
    }
    fprintf(o, "L%d %.0fZ\"/>", HTML_LABEL_W + HTML_PLOT_W, H);
    fputs("<path class=\"availl\" d=\"", o);
    for (size_t k = 0; k < HTML_BUCKETS; k++) {
        double y = H - v->avail[k] / top * (H - 6);
        fprintf(o, "%c%.1f %.1fL%.1f %.1f", k ? 'L' : 'M', HTML_LABEL_W + k * w, y, HTML_LABEL_W + (k + 1) * w, y);
    }
    fputs("\"/>", o);
    fprintf(o, "<text x=\"%d\" y=\"12\" text-anchor=\"end\">%.0f cores</text><text x=\"%d\" y=\"%.0f\" "
               "text-anchor=\"end\">0</text></svg>\n", HTML_LABEL_W - 6, top, HTML_LABEL_W - 6, H);
}
