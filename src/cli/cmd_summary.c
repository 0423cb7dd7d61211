#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/commands.h"
#include "cli/common/per_app.h"
#include "clarity/arena.h"
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
            "  --wide          text tables as wide as their longest value (default: they fit\n"
            "                  COLUMNS, the terminal, or 100 columns; long names are shortened)\n"
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
            "read (the others were analysed), 5 out of memory\n");
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
    /* the one-row-per-application table, gathered while the applications stream by */
    struct fleet_row *rows;
    size_t nrows;
    char (*errs)[1200];
    struct clarity_arena strings;
};

static int summary_one(void *ctx, const struct clarity_app *a, FILE *text, struct jsonw *json,
                       struct clarity_error *err)
{
    (void)ctx;
    (void)text;
    return clarity_report_summary_json(json, a, err);
}

/* One full summary per application (a single log, or --detail), written as each is loaded;
 * else one row per application, the ones that could not be read included, gathered here
 * (strings copied: the application is freed after this call) and written at the end. */
static int summary_text_each(void *ctx, const struct clarity_app_set *set, size_t i, const struct app_filter *f,
                             FILE *o, struct clarity_error *err)
{
    struct summary_ctx *sc = ctx;
    const struct clarity_app *a = set->apps[i].app;
    if ((set->n == 1 && !sc->csv) || sc->detail) {
        if (!a || !app_filter_keep(f, a)) return 0;
        if (i) fputc('\n', o);
        return clarity_report_summary_text(o, a, &sc->so, err);
    }
    if (!sc->rows) {
        sc->rows = calloc(set->n, sizeof *sc->rows);
        sc->errs = calloc(set->n, sizeof *sc->errs);
        if (!sc->rows || !sc->errs) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    }
    if (a && !app_filter_keep(f, a)) return 0;
    struct fleet_row *row = &sc->rows[sc->nrows++];
    struct clarity_error one = {0};
    int rc = 0;
    if (a && clarity_fleet_row_fill(row, a, &one)) {
        /* the row still appears, with what went wrong in place of its figures */
        rc = one.code, *err = one;
        snprintf(sc->errs[i], sizeof sc->errs[i], "%s", one.msg);
        row->error = sc->errs[i];
    } else if (!a) {
        row->source = set->apps[i].src->path;
        row->error = clarity_error_format(&set->apps[i].err, sc->errs[i], sizeof sc->errs[i]);
    }
    const char **strs[] = {&row->source, &row->app_id, &row->name, &row->user, &row->attempt};
    for (size_t k = 0; a && k < sizeof strs / sizeof *strs; k++)
        if (*strs[k] && !(*strs[k] = clarity_arena_strndup(&sc->strings, *strs[k], strlen(*strs[k]))))
            return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    return rc;
}

static int summary_text_end(void *ctx, const struct clarity_app_set *set, FILE *o, struct clarity_error *err)
{
    struct summary_ctx *sc = ctx;
    (void)set;
    if (!sc->rows) return 0;
    clarity_fleet_sort(sc->rows, sc->nrows, (enum clarity_fleet_sort)sc->sort);
    return sc->csv ? clarity_report_fleet_csv(o, sc->rows, sc->nrows, err)
                   : clarity_report_fleet_text(o, sc->rows, sc->nrows, sc->so.width, err);
}

int cmd_summary(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, 0, OPT_JSON}, {"compact", no_argument, 0, OPT_COMPACT}, {"wide", no_argument, 0, OPT_WIDE}, {"limit", required_argument, 0, 'l'},
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
    opterr = 0;
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
        default: return bad_option(co.cmd, argv, "o:qh");
        }
    }
    sc.so.width = out_width(&co);
    if (no_logs_given(co.cmd, optind, argc, help)) return EXIT_USAGE;
    /* the summary never reads task accumulables or per-task executor metrics: skipping them
     * saves memory and a third of the parsing */
    struct clarity_load_options lo = lean_load_options(co.quiet);
    /* the executors table shows each executor's JVM heap peaks, which Spark 3 logs on
     * TaskEnd ("Task Executor Metrics"): read them, at some cost in loading time */
    lo.skip_task_executor_metrics = false;
    lo.threads = (int)threads;
    struct per_app_cmd pc = {.schema = "clarity.summary/1", .out = &co, .load = &lo, .filter = filter,
                             .list_problems = true, .one = summary_one, .text_each = summary_text_each,
                             .text_end = summary_text_end, .ctx = &sc};
    int rc = run_per_app(&pc, argv + optind, (size_t)(argc - optind));
    free(sc.rows);
    free(sc.errs);
    clarity_arena_free(&sc.strings);
    return rc;
}
