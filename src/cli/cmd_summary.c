#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/commands.h"
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
            "exit codes: 0 ok, 2 usage, 3 no readable event log\n");
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

static bool keep(const struct clarity_app *a, int64_t since_ms, const char *name)
{
    if (since_ms && a->start_ms < since_ms) return false;
    if (name && !strstr(clarity_app_str(a, a->name), name) && !strstr(clarity_app_str(a, a->app_id), name))
        return false;
    return true;
}

int cmd_summary(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, 0, 'j'}, {"compact", no_argument, 0, 'c'}, {"limit", required_argument, 0, 'l'},
        {"detail", no_argument, 0, 'd'}, {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
        {"csv", no_argument, 0, 'C'}, {"sort", required_argument, 0, 'S'}, {"since", required_argument, 0, 's'},
        {"name", required_argument, 0, 'n'}, {"threads", required_argument, 0, 't'},
        {0, 0, 0, 0}};
    bool json = false, compact = false, detail = false, quiet = false, csv = false;
    int sort = FLEET_SORT_SOURCE, threads = 0;
    int64_t since_ms = 0;
    const char *name_filter = NULL;
    const char *outpath = NULL;
    struct summary_options so = {.limit = 50};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'c': compact = true; break;
        case 'd': detail = true; break;
        case 'q': quiet = true; break;
        case 'o': outpath = optarg; break;
        case 'C': csv = true; break;
        case 'n': name_filter = optarg; break;
        case 'S':
            if ((sort = fleet_sort_parse(optarg)) < 0) {
                fprintf(stderr, "clarity summary: unknown --sort key '%s'\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 's':
            if (parse_date_ms(optarg, &since_ms) != 0) {
                fprintf(stderr, "clarity summary: --since needs YYYY-MM-DD or YYYY-MM-DDTHH:MM (UTC), not '%s'\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 't': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 64) {
                fprintf(stderr, "clarity summary: --threads needs 1 to 64, not '%s'\n", optarg);
                return EXIT_USAGE;
            }
            threads = (int)v;
            break;
        }
        case 'l': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 0) {
                fprintf(stderr, "clarity summary: --limit needs a whole number >= 0, not '%s'\n", optarg);
                return EXIT_USAGE;
            }
            so.limit = (size_t)v;
            break;
        }
        case 'h': help(stdout); return EXIT_OK;
        default: help(stderr); return EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "clarity summary: no event log given\n\n");
        help(stderr);
        return EXIT_USAGE;
    }
    struct loaded_set set;
    /* the summary never reads task accumulables or per-task executor metrics: skipping them
     * saves memory and a third of the parsing */
    struct clarity_load_options lo = {.keep_task_accumulables = false, .skip_task_executor_metrics = true,
                                      .quiet = quiet, .threads = threads};
    int rc = load_all_opts((const char *const *)argv + optind, (size_t)(argc - optind), quiet, &lo, &set);
    if (rc != EXIT_OK) {
        loaded_set_free(&set);
        return rc;
    }
    FILE *o = open_output(outpath);
    if (!o) {
        loaded_set_free(&set);
        return EXIT_USAGE;
    }
    char buf[1200];
    struct clarity_error err = {0}, first = {0};   /* first: the first report error, reported at the end */
    if (json) {
        struct jsonw w;
        jsonw_init(&w, o, !compact);
        jsonw_obj_begin(&w);
        jsonw_kstr(&w, "schema", "clarity.summary/1");
        jsonw_key(&w, "applications");
        jsonw_arr_begin(&w);
        for (size_t i = 0; i < set.n; i++)
            if (set.apps[i].app && report_summary_json(&w, set.apps[i].app, &err) && !first.code) first = err;
        jsonw_arr_end(&w);
        jsonw_key(&w, "failed");
        jsonw_arr_begin(&w);
        for (size_t i = 0; i < set.n; i++)
            if (!set.apps[i].app) {
                jsonw_obj_begin(&w);
                jsonw_kstr(&w, "source", set.apps[i].src->path);
                jsonw_kstr(&w, "error", clarity_error_format(&set.apps[i].err, buf, sizeof buf));
                jsonw_kstr(&w, "kind", clarity_status_name(set.apps[i].err.code));
                jsonw_obj_end(&w);
            }
        jsonw_arr_end(&w);
        jsonw_key(&w, "skipped");
        jsonw_arr_begin(&w);
        for (size_t i = 0; i < set.sources.nnotes; i++) {
            jsonw_obj_begin(&w);
            jsonw_kstr(&w, "path", set.sources.notes[i].path);
            jsonw_kstr(&w, "why", set.sources.notes[i].why);
            jsonw_obj_end(&w);
        }
        jsonw_arr_end(&w);
        jsonw_obj_end(&w);
        jsonw_end(&w);
    } else if ((set.n == 1 && !csv) || detail) {
        for (size_t i = 0; i < set.n; i++) {
            if (!set.apps[i].app || !keep(set.apps[i].app, since_ms, name_filter)) continue;
            if (i) fputc('\n', o);
            if (report_summary_text(o, set.apps[i].app, &so, &err) && !first.code) first = err;
        }
    } else {
        struct fleet_row *rows = calloc(set.n, sizeof *rows);
        char (*errs)[1200] = calloc(set.n, sizeof *errs);
        size_t n = 0;
        for (size_t i = 0; rows && errs && i < set.n; i++) {
            const struct clarity_app *a = set.apps[i].app;
            if (a && !keep(a, since_ms, name_filter)) continue;
            if (a && fleet_row_fill(&rows[n], a, &err)) {
                if (!first.code) first = err;
                snprintf(errs[i], sizeof errs[i], "%s", err.msg);
                rows[n].error = errs[i];
            } else if (!a) {
                rows[n].source = set.apps[i].src->path;
                rows[n].error = clarity_error_format(&set.apps[i].err, errs[i], sizeof errs[i]);
            }
            n++;
        }
        fleet_sort(rows, n, (enum fleet_sort)sort);
        int frc = csv ? report_fleet_csv(o, rows, n, &err) : report_fleet_text(o, rows, n, &err);
        if (frc && !first.code) first = err;
        free(rows);
        free(errs);
    }
    close_output(o);
    loaded_set_free(&set);
    if (first.code) fprintf(stderr, "clarity summary: %s\n", first.msg);
    return first.code ? EXIT_INPUT : EXIT_OK;
}
