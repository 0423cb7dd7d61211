/* Escaping, the time axis, stage colours, the page's head (CSS, script) and the JSON island. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report/html/html_internal.h"
#include "util/jsonw.h"

void clarity__html_esc(FILE *o, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", o); break;
        case '<': fputs("&lt;", o); break;
        case '>': fputs("&gt;", o); break;
        case '"': fputs("&quot;", o); break;
        default: fputc(*s, o);
        }
    }
}

double clarity__html_x(const struct html_view *v, int64_t ms)
{
    double x = HTML_LABEL_W + (double)ms * HTML_PLOT_W / (double)v->span_ms;
    return x < HTML_LABEL_W ? HTML_LABEL_W : x > HTML_LABEL_W + HTML_PLOT_W ? HTML_LABEL_W + HTML_PLOT_W : x;
}

const char *clarity__html_ms(char *buf, size_t cap, double ms)
{
    return clarity_fmt_ms(buf, cap, (int64_t)llround(ms));
}

/* a round tick step giving about 8 ticks */
static double tick_step(double span)
{
    static const double steps[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5,
                                   6e5, 9e5, 18e5, 36e5, 72e5, 144e5, 288e5, 864e5, 1728e5, 6048e5};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
        if (span / steps[i] <= 10) return steps[i];
    return span / 8;
}

void clarity__html_axis(FILE *o, const struct html_view *v, double y, double height)
{
    double step = tick_step((double)v->span_ms);
    fprintf(o, "<g class=\"axis\">");
    for (double t = 0; t <= (double)v->span_ms; t += step) {
        double x = clarity__html_x(v, (int64_t)t);
        char b[32];
        fprintf(o, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\">%s</text>", x, x, y,
                x, y + height, clarity__html_ms(b, sizeof b, t));
    }
    fprintf(o, "</g>");
}

int clarity__html_hue(int64_t stage_id)
{
    /* the golden angle: consecutive stages get far-apart hues; stage 0 starts at blue, away
     * from the red that marks failures and slow hosts */
    return (int)(fmod(210.0 + fabs((double)stage_id) * 137.508, 360.0));
}

static const char css[] =
    ":root{--fg:#1d2330;--bg:#fff;--mut:#667085;--grid:#e4e7ec;--card:#f6f7f9;--crit:#e8590c;--bad:#d92d20;"
    "--busy:#2f6fde;--avail:#98a2b3;--drv:rgba(250,176,5,.22)}\n"
    "@media (prefers-color-scheme:dark){:root{--fg:#e6e9ef;--bg:#14171c;--mut:#98a2b3;--grid:#2c313a;"
    "--card:#1c2027;--busy:#6ea8fe;--avail:#667085;--drv:rgba(250,176,5,.16)}}\n"
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--fg);background:var(--bg);"
    "margin:0 auto;max-width:1240px;padding:16px 20px}\n"
    "h1{font-size:22px;margin:4px 0}h2{font-size:17px;margin:26px 0 6px;border-bottom:1px solid var(--grid)}"
    ".mut{color:var(--mut)}.note{color:var(--mut);font-size:12px;margin:2px 0 6px}\n"
    ".kv{display:flex;flex-wrap:wrap;gap:8px 22px;background:var(--card);padding:10px 14px;border-radius:6px}"
    ".kv div b{display:block;font-size:11px;color:var(--mut);font-weight:500;text-transform:uppercase}\n"
    "svg{width:100%;height:auto;display:block}svg text{fill:var(--fg);font-size:11px}"
    ".axis line{stroke:var(--grid)}.axis text{fill:var(--mut);text-anchor:middle;font-size:10px}\n"
    ".lbl{font-size:11px;text-anchor:end}.slowlbl{fill:var(--bad)!important;font-weight:600}\n"
    "rect.t{stroke:none}rect.fail{stroke:var(--bad);stroke-width:1.5}rect.kill{opacity:.35}"
    "rect.spec{stroke:var(--fg);stroke-dasharray:2 1;stroke-width:.8}rect.slowt{stroke:#7a0916;stroke-width:1.2}\n"
    ".life{fill:var(--card)}.slow .life{fill:rgba(217,45,32,.10)}.addm{stroke:#12b76a;stroke-width:2}"
    ".rmm{stroke:var(--bad);stroke-width:2}\n"
    ".drv{fill:var(--drv)}.busy{fill:var(--busy);opacity:.75}.availl{fill:none;stroke:var(--avail);stroke-width:1.5}\n"
    ".stage-bar{stroke:none}.stage-bar.crit{stroke:var(--crit);stroke-width:2.5}.cpl{stroke:var(--crit);"
    "stroke-width:1.5;fill:none;stroke-dasharray:4 2}\n"
    ".hl{outline:3px solid var(--crit)}.stage-bar.hl{stroke:var(--bad);stroke-width:3}\n"
    "ol.findings{padding-left:22px}ol.findings li{margin:6px 0}.saving{font-weight:600}"
    ".kind{font-family:ui-monospace,monospace;font-size:12px;background:var(--card);padding:1px 5px;border-radius:4px}\n"
    "table{border-collapse:collapse;font-size:13px}td,th{padding:3px 8px;border-bottom:1px solid var(--grid);"
    "text-align:right}td:first-child,th:first-child,td.l,th.l{text-align:left}th{cursor:pointer;user-select:none}\n"
    "details{margin:4px 0;background:var(--card);border-radius:6px;padding:4px 10px}summary{cursor:pointer}\n"
    ".legend span{display:inline-block;margin-right:14px;font-size:12px}.sw{display:inline-block;width:12px;"
    "height:10px;margin-right:4px;vertical-align:middle}\n"
    "a{color:var(--busy)}\n"
    "@media print{body{max-width:none;color:#000;background:#fff}details{break-inside:avoid}"
    "details:not([open])>*:not(summary){display:none}h2{break-after:avoid}svg{break-inside:avoid}}\n";

/* Sorting tables, highlighting a finding's stage, and a self-check that writes into the DOM
 * how many stage bars, executors, findings and critical stages the page drew next to the
 * JSON island's counts (the browser test reads it). Plain script, nothing fetched. */
static const char script[] =
    "(function(){\n"
    "var d=JSON.parse(document.getElementById('clarity-data').textContent);\n"
    "function n(s){return document.querySelectorAll(s).length;}\n"
    "var c=document.getElementById('clarity-check');\n"
    "if(c&&d.schema==='clarity.report/1'){var got={stages:n('.stage-bar'),executors:n('.exec-row'),"
    "findings:n('li.finding'),critical:n('.stage-bar.crit')};\n"
    "var want={stages:d.stages.length,executors:d.executors.length,findings:d.findings.length,"
    "critical:d.critical_path.stages.length};var ok=true;for(var k in want)if(got[k]!==want[k])ok=false;\n"
    "c.setAttribute('data-ok',ok?'yes':'no');c.textContent=JSON.stringify({ok:ok,got:got,want:want});}\n"
    "if(c&&d.schema==='clarity.report-fleet/1'){var g=n('tr.app-row');c.setAttribute('data-ok',"
    "g===d.applications.length?'yes':'no');c.textContent=JSON.stringify({rows:g,want:d.applications.length});}\n"
    "document.querySelectorAll('[data-stage-link]').forEach(function(e){e.addEventListener('click',function(){"
    "document.querySelectorAll('.hl').forEach(function(h){h.classList.remove('hl');});"
    "document.querySelectorAll('[data-stage=\"'+e.getAttribute('data-stage-link')+'\"]').forEach(function(h){"
    "h.classList.add('hl');});});});\n"
    "document.querySelectorAll('table.sortable th').forEach(function(th,i){th.addEventListener('click',function(){"
    "var tb=th.closest('table').tBodies[0],rows=Array.prototype.slice.call(tb.rows),asc=th.getAttribute('data-asc')!=='1';"
    "th.setAttribute('data-asc',asc?'1':'0');rows.sort(function(a,b){var x=a.cells[i].getAttribute('data-v')||"
    "a.cells[i].textContent,y=b.cells[i].getAttribute('data-v')||b.cells[i].textContent,nx=parseFloat(x),ny=parseFloat(y);"
    "var r=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);return asc?r:-r;});rows.forEach(function(r){tb.appendChild(r);});"
    "});});\n"
    "})();\n";

void clarity__html_head(FILE *o, const char *title, const struct html_view *v)
{
    (void)v;
    fprintf(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
               "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
               "<meta name=\"color-scheme\" content=\"light dark\"><title>");
    clarity__html_esc(o, title);
    fprintf(o, "</title>\n<style>\n%s</style></head>\n<body>\n", css);
}

void clarity__html_tail(FILE *o)
{
    fprintf(o, "<div id=\"clarity-check\" hidden></div>\n<script>\n%s</script>\n</body></html>\n", script);
}

int clarity__html_island(FILE *o, void (*fill)(struct jsonw *w, const void *ctx), const void *ctx,
                         struct clarity_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the JSON island");
    struct jsonw w;
    clarity_jsonw_init(&w, m, false);
    fill(&w, ctx);
    clarity_jsonw_end(&w);
    if (fclose(m) || !buf) {
        free(buf);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the JSON island");
    }
    /* "</script>" or "<!--" in a name would end or upset the script element: '<' only occurs
     * inside JSON strings, where \u003c means the same */
    while (len && buf[len - 1] == '\n') len--;   /* one line: island and tags */
    fputs("<script type=\"application/json\" id=\"clarity-data\">", o);
    for (size_t i = 0; i < len; i++) {
        if (buf[i] == '<') fputs("\\u003c", o);
        else fputc(buf[i], o);
    }
    fputs("</script>\n", o);
    free(buf);
    return 0;
}
