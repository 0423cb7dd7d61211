#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/commands.h"
#include "cli/common/per_app.h"
#include "clarity/report.h"

static void help(FILE *o)
{
    fprintf(o,
            "usage: clarity summary [options] <log|dir>...\n\n"
            "Where the time went: application, jobs, stages, executors and SQL queries, then an\n"
            "integrity report (truncation, dropped events, unit sanity). Given a directory of many\n"
            "applications (or several logs), prints one row per application instead.\n\n"
            "options:\n"
            "  --json          machine-readable output (schema clarity.summary/1, docs/summary-json.md)\n"
            "  --compact       with --json: one line, no indentation\n"
            "  --limit N       rows per table in text output (default 50, 0 = all)\n"
            "  --detail        one full summary per application even when there are several\n"
            "  --csv           the one-row-per-application table as CSV\n"
            "  --sort KEY      order of that table: source (default), start, duration, name,\n"
            "                  core-hours, idle, gc, shuffle, tasks (numbers: largest first)\n"
            "  --since DATE    only applications started at or after DATE (YYYY-MM-DD[THH:MM], UTC)\n"
            "  --name TEXT     only applications whose name or id contains TEXT\n"
            "  --threads N     applications read at once (default: one per core)\n"
            "  -o FILE         write to FILE instead of standard output\n"
            "  -q, --quiet     no notes about skipped files on stderr\n"
            "  -h, --help      this help\n\n"
            "exit codes: 0 ok, 2 usage, 3 no readable event log, 4 some applications could not be\n"
            "read (the others were analysed)\n");
}

/* "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM" in UTC to epoch ms. */
static int parse_date_ms(const char *s, int64_t *out)
{
    struct tm tm = {0};
    const char *end = strptime(s, "%Y-%m-%dT%H:%M", &tm);
    if (!end || *end) {
        memset(&tm, 0, sizeof tm);
        end = strptime(s, "%Y-%m-%d", &tm);
        if (!end || *end) return -1;
    }
    *out = (int64_t)timegm(&tm) * 1000;
    return 0;
}

struct summary_ctx {
    struct summary_options so;
    bool detail, csv;
    int sort;                    /* enum fleet_sort */
};

static int summary_one(void *ctx, const struct clarity_app *a, FILE *text, struct jsonw *json,
                       struct clarity_error *err)
{
    (void)ctx;
    (void)text;
    return clarity_report_summary_json(json, a, err);
}

/* One full summary per application (a single log, or --detail), else one row per
 * application, the ones that could not be read included. */
static int summary_text(void *ctx, const struct clarity_app_set *set, const struct app_filter *f, FILE *o,
                        struct clarity_error *err)
{
    const struct summary_ctx *sc = ctx;
    struct clarity_error one = {0};
    int rc = 0;   /* the first report error; the other applications are still written */
    if ((set->n == 1 && !sc->csv) || sc->detail) {
        for (size_t i = 0; i < set->n; i++) {
            if (!set->apps[i].app || !app_filter_keep(f, set->apps[i].app)) continue;
            if (i) fputc('\n', o);
            if (clarity_report_summary_text(o, set->apps[i].app, &sc->so, &one) && !rc) rc = one.code, *err = one;
        }
        return rc;
    }
    struct fleet_row *rows = calloc(set->n, sizeof *rows);
    char (*errs)[1200] = calloc(set->n, sizeof *errs);
    if (!rows || !errs) {
        free(rows);
        free(errs);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    }
    size_t n = 0;
    for (size_t i = 0; i < set->n; i++) {
        const struct clarity_app *a = set->apps[i].app;
        if (a && !app_filter_keep(f, a)) continue;
        if (a && clarity_fleet_row_fill(&rows[n], a, &one)) {
            /* the row still appears, with what went wrong in place of its figures */
            if (!rc) rc = one.code, *err = one;
            snprintf(errs[i], sizeof errs[i], "%s", one.msg);
            rows[n].error = errs[i];
        } else if (!a) {
            rows[n].source = set->apps[i].src->path;
            rows[n].error = clarity_error_format(&set->apps[i].err, errs[i], sizeof errs[i]);
        }
        n++;
    }
    clarity_fleet_sort(rows, n, (enum clarity_fleet_sort)sc->sort);
    int frc = sc->csv ? clarity_report_fleet_csv(o, rows, n, &one) : clarity_report_fleet_text(o, rows, n, &one);
    if (frc && !rc) rc = frc, *err = one;
    free(rows);
    free(errs);
    return rc;
}

int cmd_summary(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, 0, OPT_JSON}, {"compact", no_argument, 0, OPT_COMPACT}, {"limit", required_argument, 0, 'l'},
        {"detail", no_argument, 0, 'd'}, {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
        {"csv", no_argument, 0, 'C'}, {"sort", required_argument, 0, 'S'}, {"since", required_argument, 0, 's'},
        {"name", required_argument, 0, 'n'}, {"threads", required_argument, 0, 't'},
        {0, 0, 0, 0}};
    struct common_opts co = {.cmd = "summary"};
    struct summary_ctx sc = {.so = {.limit = 50}, .sort = FLEET_SORT_SOURCE};
    struct app_filter filter = {0};
    long long threads = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        if (common_option(&co, c, optarg)) continue;
        switch (c) {
        case 'd': sc.detail = true; break;
        case 'C': sc.csv = true; break;
        case 'n': filter.name = optarg; break;
        case 'S':
            if ((sc.sort = clarity_fleet_sort_parse(optarg)) < 0) {
                fprintf(stderr, "clarity summary: unknown --sort key '%s'\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 's':
            if (parse_date_ms(optarg, &filter.since_ms) != 0) {
                fprintf(stderr, "clarity summary: --since needs YYYY-MM-DD or YYYY-MM-DDTHH:MM (UTC), not '%s'\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 't':
            if (!opt_int_range(co.cmd, "threads", optarg, 1, 64, &threads)) return EXIT_USAGE;
            break;
        case 'l':
            if (!opt_count(co.cmd, "limit", optarg, &sc.so.limit)) return EXIT_USAGE;
            break;
        case 'h': help(stdout); return EXIT_OK;
        default: help(stderr); return EXIT_USAGE;
        }
    }
    if (no_logs_given(co.cmd, optind, argc, help)) return EXIT_USAGE;
    /* the summary never reads task accumulables or per-task executor metrics: skipping them
     * saves memory and a third of the parsing */
    struct clarity_load_options lo = lean_load_options(co.quiet);
    lo.threads = (int)threads;
    struct per_app_cmd pc = {.schema = "clarity.summary/1", .out = &co, .load = &lo, .filter = filter,
                             .list_problems = true, .one = summary_one, .text = summary_text, .ctx = &sc};
    return run_per_app(&pc, argv + optind, (size_t)(argc - optind));
}
