/* Shared by the HTML report's writers (src/report/html/): escaping, colours, the time axis and
 * the page's view of an application (executor rows, stage spans) computed once and read by
 * every chart and by the JSON island, so that what is drawn and what is embedded agree. */
#ifndef CLARITY_HTML_INTERNAL_H
#define CLARITY_HTML_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "clarity/report.h"

/* Chart geometry: every SVG has this viewBox width and scales to the page (width:100%). */
#define HTML_W 1200
#define HTML_LABEL_W 150         /* left margin for row labels */
#define HTML_PLOT_W (HTML_W - HTML_LABEL_W - 20)
#define HTML_BUCKETS 600         /* time buckets of the utilisation chart and the heat strip */

struct html_exec {               /* one executor row of the timeline */
    size_t row;                  /* in app->execs */
    int cores;                   /* slots drawn: total_cores / task cpus, at least 1 */
    int64_t add_ms, remove_ms;   /* relative to t0; remove -1: alive at the end */
    size_t tasks;
    bool slow_host;              /* a finding names its host */
};

struct html_stage {              /* one stage attempt with a span (a bar of the Gantt) */
    size_t row;                  /* in app->stages */
    int64_t start_ms, end_ms;    /* relative to t0: first launch (else submit) to last finish (else complete) */
    int64_t job;                 /* owning job id, -1 none */
    int64_t sql;                 /* its SQL execution, -1 none */
    size_t tasks, failed, killed, speculative;
    int64_t longest_ms;          /* longest successful task (the critical path weighs stages by it) */
    bool critical;
};

struct html_view {
    const struct clarity_html_app *p;
    const struct clarity_app *a;
    int64_t t0, span_ms;         /* the axis: application start, wall time (>= 1) */
    struct html_exec *ex; size_t nex;
    uint32_t *exec_of_str;       /* string id -> index in ex + 1, 0 none */
    size_t nstr;
    struct html_stage *st; size_t nst;
    size_t *stage_idx;           /* stage attempt row -> index in st + 1, 0 none */
    bool heat;                   /* the timeline is aggregated (more tasks than p->max_task_bars) */
    double *busy, *avail;        /* per bucket: average busy and available cores */
    double bucket_ms;
    int local_cores;             /* local mode: the driver's cores */
};

/* ms - t0, saturating: a damaged log can hold int64-extreme times (the integrity report flags
 * them), and a wrapped difference would be undefined behaviour */
static inline int64_t clarity__html_rel(int64_t ms, int64_t t0)
{
    int64_t d;
    return __builtin_sub_overflow(ms, t0, &d) ? (ms < t0 ? INT64_MIN : INT64_MAX) : d;
}

int clarity__html_view_build(const struct clarity_html_app *p, struct html_view *v, struct clarity_error *err);
void clarity__html_view_free(struct html_view *v);

/* text with & < > " escaped */
void clarity__html_esc(FILE *o, const char *s);
/* x of a time (ms from t0) in the plot */
double clarity__html_x(const struct html_view *v, int64_t ms);
/* "1.2 s" etc. into buf */
const char *clarity__html_ms(char *buf, size_t cap, double ms);
/* a time axis with ticks, at y, over the plot */
void clarity__html_axis(FILE *o, const struct html_view *v, double y, double height);
/* the hue of stage id s (stable for a stage id, far from its neighbours) */
int clarity__html_hue(int64_t stage_id);

void clarity__html_timeline(FILE *o, const struct html_view *v);
void clarity__html_utilisation(FILE *o, const struct html_view *v);
void clarity__html_gantt(FILE *o, const struct html_view *v);
void clarity__html_blocked(FILE *o, const struct html_view *v);
void clarity__html_whatif(FILE *o, const struct html_view *v);
int clarity__html_stage_detail(FILE *o, const struct html_view *v, struct clarity_error *err);
/* the page's CSS and script, shared by the application and the fleet page */
void clarity__html_head(FILE *o, const char *title, const struct html_view *v);
void clarity__html_tail(FILE *o);
/* the JSON island: writes JSON produced by fill() into a script element, "</" escaped */
int clarity__html_island(FILE *o, void (*fill)(struct jsonw *w, const void *ctx), const void *ctx,
                         struct clarity_error *err);

#endif
