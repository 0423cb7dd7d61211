#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/commands.h"
#include "cli/common/per_app.h"
#include "clarity/report.h"

static void help(FILE *o)
{
    fprintf(o,
            "usage: clarity report [options] <log|dir>...\n\n"
            "One self-contained HTML page (inline CSS, SVG and a little script; nothing fetched, works\n"
            "from a file or a mail attachment, light and dark, printable) per application:\n"
            "  - a header: application, platform, duration, slots, core-hours used and idle, integrity;\n"
            "  - the findings (clarity findings), largest saving first, linked to their stage and host;\n"
            "  - the executor timeline: tasks as bars in slot lanes coloured by stage (failed, killed,\n"
            "    speculative and 1.5x-median tasks marked; executors added and removed), or above\n"
            "    --max-bars task attempts a utilisation heat strip per executor;\n"
            "  - utilisation: busy against available cores, driver-only time shaded;\n"
            "  - the stage Gantt grouped by job and SQL query, with the critical path of clarity\n"
            "    whatif's DAG replay (unlimited slots) outlined;\n"
            "  - blocked time per job or SQL query (clarity blocked): what each resource cost;\n"
            "  - the what-if curve: predicted time and core-hours at 0.25x to 4x the cores;\n"
            "  - stage detail: task quantiles as the History Server shows them, the slowest tasks and\n"
            "    their straggler causes (clarity stragglers).\n"
            "The data drawn is embedded as JSON (script#clarity-data, schema clarity.report/1). Several\n"
            "applications (a directory) give one page with a sortable row per application, each with a\n"
            "utilisation sparkline and its largest finding (schema clarity.report-fleet/1). See\n"
            "docs/report.md.\n\n"
            "options:\n"
            "  -o FILE         write the page to FILE (default: standard output, unless a terminal)\n"
            "  --max-bars N    task attempts drawn one bar each; more: a heat strip (default 20000)\n"
            "  --threads N     threads reading the log and replaying (default: one per core; the\n"
            "                  page is the same for any N)\n"
            "  -q, --quiet     no notes about skipped files on stderr\n"
            "  -h, --help      this help\n\n"
            "exit codes: 0 ok, 2 usage, 3 no readable event log, 4 some applications could not be\n"
            "read (the others were reported), 5 out of memory\n");
}

struct report_ctx {
    int threads;
    size_t max_bars;
    struct clarity_html_fleet_row *rows;
    size_t nrows, cap, failed;
};

static int app_page(const struct report_ctx *rc, const struct clarity_app *a, FILE *o, struct clarity_error *err)
{
    struct clarity_findings_options fo = {.threads = rc->threads};
    struct clarity_findings f;
    struct clarity_hw hw;
    struct clarity_curve_result curve;
    struct clarity_blocked_result blocked;
    struct clarity_stragglers_result strag;
    static const struct clarity_curve_ask ask[] = {{0.25, true}, {0.5, true}, {1, true}, {2, true}, {4, true}};
    int r = clarity_findings_analyze(a, &fo, &f, err);
    if (r) return r;
    clarity_hw_from_log(a, &hw);
    /* observed slots and the DAG replay, as clarity whatif's default: the same critical path */
    r = clarity_curve_analyze(a, &hw, CLARITY_SLOTS_OBSERVED, CLARITY_CURVE_EXECUTORS, ask, sizeof ask / sizeof *ask,
                              rc->threads, &curve, err);
    if (r) goto free_f;
    r = clarity_blocked_analyze(a, CLARITY_GROUP_JOB | CLARITY_GROUP_SQL, CLARITY_SLOTS_OBSERVED, rc->threads, &blocked,
                                err);
    if (r) goto free_c;
    r = clarity_stragglers_analyze(a, 0, 0, rc->threads, &strag, err);
    if (r) goto free_b;
    struct clarity_html_app p = {.app = a, .findings = &f, .curve = &curve, .blocked = &blocked, .strag = &strag,
                                 .max_task_bars = rc->max_bars};
    r = clarity_report_html_app(o, &p, err);
    clarity_stragglers_free(&strag);
free_b:
    clarity_blocked_free(&blocked);
free_c:
    clarity_curve_free(&curve);
free_f:
    clarity_findings_free(&f);
    return r;
}

static int report_each(void *ctx, const struct clarity_app_set *set, size_t i, const struct app_filter *flt, FILE *o,
                       struct clarity_error *err)
{
    struct report_ctx *rc = ctx;
    const struct clarity_app *a = set->apps[i].app;
    (void)flt;
    if (set->n == 1) return a ? app_page(rc, a, o, err) : 0;
    if (!a) {
        rc->failed++;
        return 0;
    }
    if (rc->nrows == rc->cap) {
        size_t nc = rc->cap ? rc->cap * 2 : 16;
        struct clarity_html_fleet_row *x = realloc(rc->rows, nc * sizeof *x);
        if (!x) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
        rc->rows = x;
        rc->cap = nc;
    }
    struct clarity_findings_options fo = {.threads = rc->threads};
    struct clarity_findings f;
    int r = clarity_findings_analyze(a, &fo, &f, err);
    if (r) return r;
    r = clarity_html_fleet_row_fill(&rc->rows[rc->nrows], a, &f, err);
    clarity_findings_free(&f);
    if (!r) rc->nrows++;
    return r;
}

static int report_end(void *ctx, const struct clarity_app_set *set, FILE *o, struct clarity_error *err)
{
    struct report_ctx *rc = ctx;
    if (set->n == 1 || !o) return 0;
    return clarity_report_html_fleet(o, rc->rows, rc->nrows, rc->failed, err);
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {{"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
                                         {"threads", required_argument, 0, 'T'},
                                         {"max-bars", required_argument, 0, 'm'}, {0, 0, 0, 0}};
    struct common_opts co = {.cmd = "report"};
    struct report_ctx rc = {.max_bars = 20000};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        if (c != OPT_JSON && c != OPT_COMPACT && common_option(&co, c, optarg)) continue;
        switch (c) {
        case 'T': {
            long long t;
            if (!opt_int_range(co.cmd, "threads", optarg, 1, 64, &t)) return EXIT_USAGE;
            rc.threads = (int)t;
            break;
        }
        case 'm':
            if (!opt_count(co.cmd, "max-bars", optarg, &rc.max_bars)) return EXIT_USAGE;
            if (!rc.max_bars) rc.max_bars = 1;
            break;
        case 'h': help(stdout); return EXIT_OK;
        default: return bad_option(co.cmd, argv, "o:qh");
        }
    }
    if (no_logs_given(co.cmd, optind, argc, help)) return EXIT_USAGE;
    /* A page of HTML (hundreds of kB) scrolled through a terminal helps no one: refused before
     * any log is read, as gzip refuses to write compressed data to one. A pipe or a file
     * (-o, or standard output redirected) gets the page as before. */
    if ((!co.outpath || !strcmp(co.outpath, "-")) && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "clarity report: the page is HTML, not written to a terminal: give -o FILE.html "
                        "(or redirect standard output)\n");
        return EXIT_USAGE;
    }
    struct clarity_load_options lo = lean_load_options(co.quiet);
    lo.threads = rc.threads;
    struct per_app_cmd pc = {.schema = "clarity.report/1", .out = &co, .load = &lo, .one = NULL,
                             .text_each = report_each, .text_end = report_end, .ctx = &rc};
    int r = run_per_app(&pc, argv + optind, (size_t)(argc - optind));
    free(rc.rows);
    return r;
}
