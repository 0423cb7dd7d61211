/* Text report of `clarity diff`: the headline (how much slower or faster B is and where),
 * the causes ranked, the application's figures side by side, the stages and SQL queries that
 * changed most, the configuration changes. Formats the analysis' result; computes nothing. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/report.h"
#include "report/table.h"

/* a figure as int64 for the formatters: sums of damaged logs' values can be beyond it */
static int64_t i64(double v)
{
    return v >= 9.2e18 ? INT64_MAX : v <= -9.2e18 ? INT64_MIN : (int64_t)llround(v);
}

/* "+1.2 min", "-300 ms", "0 ms" */
static const char *sdur(char *buf, size_t cap, double ms)
{
    char t[24];
    clarity_fmt_ms(t, sizeof t, i64(fabs(ms)));
    snprintf(buf, cap, "%s%s", ms > 0 ? "+" : ms < 0 ? "-" : "", t);
    return buf;
}
static const char *sbytes(char *buf, size_t cap, double b)
{
    char t[24];
    clarity_fmt_bytes(t, sizeof t, i64(fabs(b)));
    snprintf(buf, cap, "%s%s", b > 0 ? "+" : b < 0 ? "-" : "", t);
    return buf;
}
/* "+37%", "-4%", "new" (A had none), "0%" */
static const char *spct(char *buf, size_t cap, double a, double b)
{
    if (a == b) snprintf(buf, cap, "0%%");
    else if (a == 0) snprintf(buf, cap, "new");
    else {
        double p = 100 * (b - a) / a;
        snprintf(buf, cap, fabs(p) < 9.95 && p != 0 ? "%+.1f%%" : "%+.0f%%", p);
    }
    return buf;
}

static bool is_bytes(int d)
{
    return d == CLARITY_DD_INPUT_BYTES || d == CLARITY_DD_OUTPUT_BYTES || d == CLARITY_DD_SR_BYTES ||
           d == CLARITY_DD_SW_BYTES || d == CLARITY_DD_MEM_SPILL || d == CLARITY_DD_DISK_SPILL;
}

/* "shuffle read +9.8 GB (+120%)"; short: "shuffle read +120%" (a table cell) */
static const char *data_move(char *buf, size_t cap, const struct clarity_diff_item *it, bool shrt)
{
    if (it->data_moved < 0) return "";
    char d[32], p[16];
    double a = (double)it->a.data[it->data_moved], b = (double)it->b.data[it->data_moved];
    if (shrt) snprintf(buf, cap, "%s %s", clarity_diff_data_label(it->data_moved), spct(p, sizeof p, a, b));
    else snprintf(buf, cap, "%s %s (%s)", clarity_diff_data_label(it->data_moved), sbytes(d, sizeof d, b - a), spct(p, sizeof p, a, b));
    return buf;
}
/* "CPU +4.1 min" (task time); "none grew" when the item took longer with no component growing */
static const char *comp_move(char *buf, size_t cap, const struct clarity_diff_item *it)
{
    char d[32];
    if (it->moved < 0) return !it->significant ? "" : it->delta_ms > 0 ? "none grew" : "none shrank";
    snprintf(buf, cap, "%s %s", clarity_diff_comp_label(it->moved), sdur(d, sizeof d, it->moved_ms));
    return buf;
}

static const char *item_where(char *buf, size_t cap, const struct clarity_diff_item *it)
{
    char ord[24] = "";
    if (it->ordinal) snprintf(ord, sizeof ord, " #%u", it->ordinal + 1);
    int64_t id = it->in_b ? it->b_id : it->a_id;
    snprintf(buf, cap, "%s %" PRId64 " (%s%s)", it->kind == CLARITY_DK_SQL ? "SQL query" : clarity_diff_kind_name(it->kind), id,
             *it->name ? it->name : "unnamed", ord);
    return buf;
}

static const char *app_label(char *buf, size_t cap, const struct clarity_diff_ident *a)
{
    snprintf(buf, cap, "%s%s%s \"%s\"", a->app_id, a->attempt_id ? "/" : "", a->attempt_id ? a->attempt_id : "", a->name);
    return buf;
}

static void headline(FILE *o, const struct clarity_diff_result *r, size_t width)
{
    char wa[32], wb[32], line[1024], wh[512], cm[64], dm[96];
    clarity_fmt_ms(wa, sizeof wa, r->a.wall_ms);
    clarity_fmt_ms(wb, sizeof wb, r->b.wall_ms);
    double p = r->change_pct;
    if (r->no_change) {
        snprintf(line, sizeof line, "no change: %s -> %s (%+.1f%%, under the %.0f%% noise), same configuration, executors and data sizes",
                 wa, wb, p, r->noise_pct);
    } else if (fabs(p) < r->noise_pct) {
        snprintf(line, sizeof line, "B takes as long as A within noise: %s -> %s (%+.1f%%, under %.0f%%)", wa, wb, p, r->noise_pct);
    } else {
        int n = snprintf(line, sizeof line, "B is %.0f%% %s: %s -> %s", fabs(p), p > 0 ? "slower" : "faster", wa, wb);
        if (r->top_stage != SIZE_MAX && n > 0 && (size_t)n < sizeof line) {
            const struct clarity_diff_item *it = &r->items[r->top_stage];
            char dd[32];
            const char *c = it->moved >= 0 ? comp_move(cm, sizeof cm, it) : "", *d = data_move(dm, sizeof dm, it, false);
            snprintf(line + n, sizeof line - (size_t)n, "; most of it in %s: %s%s%s%s", item_where(wh, sizeof wh, it),
                     sdur(dd, sizeof dd, (double)it->delta_ms), *c ? ", " : "", c, *c ? " task time" : "");
            size_t l = strlen(line);
            if (it->moved < 0 && it->a.task_ms > 0)
                snprintf(line + l, sizeof line - l, ", its task time did not %s (%s)", it->delta_ms > 0 ? "grow" : "shrink",
                         spct(dd, sizeof dd, (double)it->a.task_ms, (double)it->b.task_ms));
            l = strlen(line);
            if (*d) snprintf(line + l, sizeof line - l, ", %s", d);
        }
    }
    clarity_fit_wrap(o, width, "", line);
}

static void cause_text(char *buf, size_t cap, const struct clarity_diff_result *r, const struct clarity_diff_cause *c)
{
    char x[32], y[32], p[16];
    switch (c->kind) {
    case CLARITY_CAUSE_CONFIG:
        for (size_t i = 0; i < r->nconfig; i++)
            if (r->config[i].key == c->what) {
                const struct clarity_diff_config *k = &r->config[i];
                if (k->change == CLARITY_CFG_ADDED) snprintf(buf, cap, "setting %s = %s added", k->key, k->b);
                else if (k->change == CLARITY_CFG_REMOVED) snprintf(buf, cap, "setting %s removed (was %s)", k->key, k->a);
                else snprintf(buf, cap, "setting %s: %s -> %s", k->key, k->a, k->b);
                return;
            }
        snprintf(buf, cap, "setting %s", c->what);
        return;
    case CLARITY_CAUSE_EXECUTORS:
        snprintf(buf, cap, "executors %" PRId64 " -> %" PRId64 " (cores %.0f -> %.0f, hosts %" PRId64 " -> %" PRId64 ")", r->a_execs,
                 r->b_execs, c->a, c->b, r->a_hosts, r->b_hosts);
        return;
    case CLARITY_CAUSE_INPUT_SIZE:
    case CLARITY_CAUSE_SHUFFLE_SIZE:
        snprintf(buf, cap, "%s %s -> %s (%s)", c->kind == CLARITY_CAUSE_INPUT_SIZE ? "input" : "shuffle read",
                 clarity_fmt_bytes(x, sizeof x, i64(c->a)), clarity_fmt_bytes(y, sizeof y, i64(c->b)), spct(p, sizeof p, c->a, c->b));
        return;
    case CLARITY_CAUSE_SPILL:
        snprintf(buf, cap, "disk spill %s -> %s (%s)", clarity_fmt_bytes(x, sizeof x, i64(c->a)),
                 clarity_fmt_bytes(y, sizeof y, i64(c->b)), spct(p, sizeof p, c->a, c->b));
        return;
    case CLARITY_CAUSE_TASK_COUNT:
        snprintf(buf, cap, "tasks %.0f -> %.0f (%s)", c->a, c->b, spct(p, sizeof p, c->a, c->b));
        return;
    case CLARITY_CAUSE_SLOW_HOST:
        snprintf(buf, cap, "host %s: run time per %s %.2f -> %.2f (x%.2f; the other hosts changed far less)", c->what,
                 r->a.cpu_logged && r->b.cpu_logged ? "CPU ms" : "task (ms)", c->a, c->b, c->a > 0 ? c->b / c->a : 0);
        return;
    case CLARITY_CAUSE_COMPONENT:
        for (int k = 0; k < CLARITY_DC_COUNT; k++)
            if (!strcmp(clarity_diff_comp_name(k), c->what)) {
                snprintf(buf, cap, "%s: task time %s -> %s (%s)", clarity_diff_comp_label(k),
                         clarity_fmt_ms(x, sizeof x, i64(c->a)), clarity_fmt_ms(y, sizeof y, i64(c->b)),
                         spct(p, sizeof p, c->a, c->b));
                return;
            }
        break;
    }
    snprintf(buf, cap, "%s", clarity_diff_cause_name(c->kind));
}

static const struct table_col app_cols[] = {{"", TCOL_NAME}, {"A", TCOL_NUM}, {"B", TCOL_NUM}, {"change", TCOL_NUM}, {"", TCOL_NUM}};

static void app_row(struct table *t, const char *what, const char *a, const char *b, const char *d, const char *p)
{
    const char *row[] = {what, a, b, d, p};
    clarity_table_row(t, row);
}

static int app_table(FILE *o, const struct clarity_diff_result *r, size_t width)
{
    struct table t;
    clarity_table_init(&t, app_cols, 5);
    char a[32], b[32], d[32], p[16];
    app_row(&t, "wall time", clarity_fmt_ms(a, sizeof a, r->a.wall_ms), clarity_fmt_ms(b, sizeof b, r->b.wall_ms),
            sdur(d, sizeof d, (double)r->b.wall_ms - (double)r->a.wall_ms), spct(p, sizeof p, (double)r->a.wall_ms, (double)r->b.wall_ms));
    app_row(&t, "task time", clarity_fmt_ms(a, sizeof a, r->a.task_ms), clarity_fmt_ms(b, sizeof b, r->b.task_ms),
            sdur(d, sizeof d, (double)r->b.task_ms - (double)r->a.task_ms), spct(p, sizeof p, (double)r->a.task_ms, (double)r->b.task_ms));
    for (int c = 0; c < CLARITY_DC_COUNT; c++) {
        char w[48];
        double x = r->a.comp_ms[c], y = r->b.comp_ms[c];
        if (x == 0 && y == 0) continue;
        snprintf(w, sizeof w, "  %s%s", clarity_diff_comp_label(c),
                 c == CLARITY_DC_OTHER && !(r->a.cpu_logged && r->b.cpu_logged) ? " (with CPU: not logged)" : "");
        app_row(&t, w, clarity_fmt_ms(a, sizeof a, i64(x)), clarity_fmt_ms(b, sizeof b, i64(y)),
                sdur(d, sizeof d, y - x), spct(p, sizeof p, x, y));
    }
    snprintf(a, sizeof a, "%" PRId64, r->a.tasks);
    snprintf(b, sizeof b, "%" PRId64, r->b.tasks);
    snprintf(d, sizeof d, "%+.0f", (double)r->b.tasks - (double)r->a.tasks);
    app_row(&t, "tasks", a, b, d, spct(p, sizeof p, (double)r->a.tasks, (double)r->b.tasks));
    snprintf(a, sizeof a, "%" PRId64 " (%" PRId64 " cores)", r->a_execs, r->a_cores);
    snprintf(b, sizeof b, "%" PRId64 " (%" PRId64 " cores)", r->b_execs, r->b_cores);
    /* the change is in cores (what the percentage compares too), said so: a bare "+12" on the
     * executors row reads as twelve more executors */
    snprintf(d, sizeof d, "%+.0f cores", (double)r->b_cores - (double)r->a_cores);
    app_row(&t, "executors", a, b, d, spct(p, sizeof p, (double)r->a_cores, (double)r->b_cores));
    for (int k = 0; k < CLARITY_DD_COUNT; k++) {
        double x = (double)r->a.data[k], y = (double)r->b.data[k];
        if (x == 0 && y == 0) continue;
        if (is_bytes(k))
            app_row(&t, clarity_diff_data_label(k), clarity_fmt_bytes(a, sizeof a, r->a.data[k]), clarity_fmt_bytes(b, sizeof b, r->b.data[k]),
                    sbytes(d, sizeof d, y - x), spct(p, sizeof p, x, y));
        else {
            snprintf(a, sizeof a, "%" PRId64, r->a.data[k]);
            snprintf(b, sizeof b, "%" PRId64, r->b.data[k]);
            snprintf(d, sizeof d, "%+.0f", (double)r->b.data[k] - (double)r->a.data[k]);
            app_row(&t, clarity_diff_data_label(k), a, b, d, spct(p, sizeof p, x, y));
        }
    }
    int rc = clarity_table_write(o, &t, 2, width);
    clarity_table_free(&t);
    return rc;
}

/* id: "18", or "18>20" when B's id differs; tasks likewise */
static const struct table_col item_cols[] = {{"id", TCOL_FIXED},    {"A time", TCOL_NUM}, {"B time", TCOL_NUM},
                                             {"change", TCOL_NUM},  {"tasks", TCOL_NUM},  {"moved (task time)", TCOL_FIXED},
                                             {"data", TCOL_FIXED},  {"name", TCOL_NAME}};

/* Items of one kind, most changed first; those only on one side are counted, then listed
 * after the matched ones as long as the limit allows. */
static int item_table(FILE *o, const struct clarity_diff_result *r, size_t first, size_t n, const char *title,
                      const struct diff_report_options *opt)
{
    if (!n) return 0;
    size_t matched = 0, only_a = 0, only_b = 0, plan = 0;
    for (size_t i = first; i < first + n; i++) {
        const struct clarity_diff_item *it = &r->items[i];
        if (it->in_a && it->in_b) matched++, plan += it->plan_changed;
        else if (it->in_a) only_a++;
        else only_b++;
    }
    char head[512];
    int hl = snprintf(head, sizeof head, "%s, most changed first: %zu matched, %zu only in A, %zu only in B", title, matched,
                      only_a, only_b);
    if (plan && hl > 0 && (size_t)hl < sizeof head) snprintf(head + hl, sizeof head - (size_t)hl, ", %zu with another plan", plan);
    fputc('\n', o);
    clarity_fit_wrap(o, opt->width, "", head);
    struct table t;
    clarity_table_init(&t, item_cols, 8);
    size_t shown = 0;
    for (size_t i = first; i < first + n && (!opt->limit || shown < opt->limit); i++, shown++) {
        const struct clarity_diff_item *it = &r->items[i];
        char id[48], ta[24] = "-", tb[24] = "-", d[32] = "", tk[48], cm[64], dm[96], nm[512], p[16];
        if (it->in_a) clarity_fmt_ms(ta, sizeof ta, it->a.wall_ms);
        if (it->in_b) clarity_fmt_ms(tb, sizeof tb, it->b.wall_ms);
        if (it->in_a && it->in_b && it->a_id != it->b_id)
            snprintf(id, sizeof id, "%" PRId64 ">%" PRId64, it->a_id, it->b_id);
        else snprintf(id, sizeof id, "%" PRId64, it->in_a ? it->a_id : it->b_id);
        if (it->in_a && it->in_b && it->a.wall_ms >= 0 && it->b.wall_ms >= 0)
            snprintf(d, sizeof d, "%s", spct(p, sizeof p, (double)it->a.wall_ms, (double)it->b.wall_ms));
        else snprintf(d, sizeof d, !it->in_a ? "only B" : !it->in_b ? "only A" : "-");
        if (it->in_a && it->in_b && it->a.tasks != it->b.tasks)
            snprintf(tk, sizeof tk, "%" PRId64 ">%" PRId64, it->a.tasks, it->b.tasks);
        else snprintf(tk, sizeof tk, "%" PRId64, it->in_a ? it->a.tasks : it->b.tasks);
        const char *c = it->in_a && it->in_b ? comp_move(cm, sizeof cm, it) : "";
        const char *dd = it->in_a && it->in_b ? data_move(dm, sizeof dm, it, true) : "";
        snprintf(nm, sizeof nm, "%s%s", *it->name ? it->name : "unnamed", it->plan_changed ? " [plan changed]" : "");
        if (it->ordinal) {
            size_t l = strlen(nm);
            snprintf(nm + l, sizeof nm - l, " #%u", it->ordinal + 1);
        }
        const char *row[] = {id, ta, tb, d, tk, c, dd, nm};
        clarity_table_row(&t, row);
    }
    int rc = clarity_table_write(o, &t, 2, opt->width);
    clarity_table_free(&t);
    if (shown < n) fprintf(o, "  ... %zu more (--limit 0 shows all)\n", n - shown);
    return rc;
}

/* Findings that went away, appeared, or stayed (clarity findings on both runs). */
static int findings_table(FILE *o, const struct clarity_diff_result *r, const struct diff_report_options *opt)
{
    if (!r->findings_compared) {
        fprintf(o, "\nfindings: not compared (--no-findings)\n");
        return 0;
    }
    size_t n[3] = {0};
    for (size_t i = 0; i < r->nfindings; i++) n[r->findings[i].change]++;
    fprintf(o, "\nfindings (clarity findings on both): %zu appeared, %zu went away, %zu in both\n", n[CLARITY_FIND_APPEARED],
            n[CLARITY_FIND_GONE], n[CLARITY_FIND_BOTH]);
    if (!r->nfindings) return 0;
    /* one wrapped line per finding: a title must not lose its middle (the stage it names) */
    static const char *const chg[] = {"gone", "new", "both"};
    fprintf(o, "        saving A  saving B  finding\n");
    size_t shown = 0;
    for (size_t i = 0; i < r->nfindings && (!opt->limit || shown < opt->limit); i++, shown++) {
        const struct clarity_diff_finding *f = &r->findings[i];
        char sa[24] = "-", sb[24] = "-", lead[64];
        if (f->a_saving_ms >= 0) clarity_fmt_ms(sa, sizeof sa, f->a_saving_ms);
        if (f->b_saving_ms >= 0) clarity_fmt_ms(sb, sizeof sb, f->b_saving_ms);
        snprintf(lead, sizeof lead, "  %-4s %9s %9s  ", chg[f->change], sa, sb);
        clarity_fit_wrap(o, opt->width, lead, f->title);
    }
    if (shown < r->nfindings) fprintf(o, "  ... %zu more (--limit 0 shows all)\n", r->nfindings - shown);
    return 0;
}

static const struct table_col cfg_cols[] = {{"setting", TCOL_NAME}, {"A", TCOL_NAME}, {"B", TCOL_NAME}};

int clarity_report_diff_text(FILE *o, const struct clarity_diff_result *r, const struct diff_report_options *opt,
                             struct clarity_error *err)
{
    char la[512], lb[512], buf[1024];
    size_t width = opt->width;
    const struct clarity_diff_ident *a = &r->a_app, *b = &r->b_app;
    clarity_fit_line(o, width, "A  %s", app_label(la, sizeof la, a));
    clarity_fit_line(o, width, "   %s", a->source ? a->source : "");
    clarity_fit_line(o, width, "B  %s", app_label(lb, sizeof lb, b));
    clarity_fit_line(o, width, "   %s", b->source ? b->source : "");
    headline(o, r, width);
    if (r->ncauses) {
        fprintf(o, "why, most likely first:\n");
        /* at most CFG_SHOWN settings here: all of them are in the configuration table */
        enum { CFG_SHOWN = 3 };
        size_t ncfg = 0;
        for (size_t i = 0; i < r->ncauses; i++) {
            if (r->causes[i].kind == CLARITY_CAUSE_CONFIG && ++ncfg > CFG_SHOWN) {
                if (ncfg == CFG_SHOWN + 1) fprintf(o, "  - %zu more settings (configuration, below)\n", r->nconfig - CFG_SHOWN);
                continue;
            }
            cause_text(buf, sizeof buf, r, &r->causes[i]);
            clarity_fit_wrap(o, width, "  - ", buf);
        }
    }
    fputc('\n', o);
    int rc = app_table(o, r, width);
    if (!rc) rc = item_table(o, r, 0, r->nstages, "stages (matched by name and position among same-named stages)", opt);
    if (!rc) rc = item_table(o, r, r->nstages, r->nsqls, "SQL queries (matched by description and plan shape)", opt);
    if (!rc && r->njobs) {
        size_t n[3] = {0};
        for (size_t i = r->nstages + r->nsqls; i < r->nitems; i++)
            n[r->items[i].in_a && r->items[i].in_b ? 0 : r->items[i].in_a ? 1 : 2]++;
        clarity_fit_wrapf(o, opt->width, "\n", "jobs (matched by name and position; --json lists them): %zu matched, %zu only in A, "
                          "%zu only in B", n[0], n[1], n[2]);
    }
    if (!rc) {
        fprintf(o, "\nconfiguration: %zu Spark propert%s (%zu ignored: ids, times, hosts, ports)\n", r->nconfig,
                r->nconfig == 1 ? "y differs" : "ies differ", r->nconfig_ignored);
        if (r->nconfig) {
            struct table t;
            clarity_table_init(&t, cfg_cols, 3);
            for (size_t i = 0; i < r->nconfig; i++) {
                const char *row[] = {r->config[i].key, r->config[i].a ? r->config[i].a : "(unset)",
                                     r->config[i].b ? r->config[i].b : "(unset)"};
                clarity_table_row(&t, row);
            }
            rc = clarity_table_write(o, &t, 2, width);
            clarity_table_free(&t);
        }
    }
    if (!rc) rc = findings_table(o, r, opt);
    if (rc) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the diff");
    return clarity_report_status(o, err);
}
