#include <getopt.h>
#include <stdlib.h>
#include <string.h>
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
            "  -o FILE         write to FILE instead of standard output\n"
            "  -q, --quiet     no notes about skipped files on stderr\n"
            "  -h, --help      this help\n\n"
            "exit codes: 0 ok, 2 usage, 3 no readable event log\n");
}

int cmd_summary(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, 0, 'j'}, {"compact", no_argument, 0, 'c'}, {"limit", required_argument, 0, 'l'},
        {"detail", no_argument, 0, 'd'}, {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    bool json = false, compact = false, detail = false, quiet = false;
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
                                      .quiet = quiet};
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
    if (json) {
        struct jsonw w;
        jsonw_init(&w, o, !compact);
        jsonw_obj_begin(&w);
        jsonw_kstr(&w, "schema", "clarity.summary/1");
        jsonw_key(&w, "applications");
        jsonw_arr_begin(&w);
        for (size_t i = 0; i < set.n; i++)
            if (set.apps[i].app) report_summary_json(&w, set.apps[i].app);
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
    } else if (set.n == 1 || detail) {
        for (size_t i = 0; i < set.n; i++) {
            if (!set.apps[i].app) continue;
            if (i) fputc('\n', o);
            report_summary_text(o, set.apps[i].app, &so);
        }
    } else {
        report_fleet_header(o);
        for (size_t i = 0; i < set.n; i++) {
            if (set.apps[i].app) report_fleet_row(o, set.apps[i].app);
            else report_fleet_failed_row(o, set.apps[i].src->path, clarity_error_format(&set.apps[i].err, buf, sizeof buf));
        }
        fprintf(o, "\n%zu application(s), %zu failed to load, %zu other path(s) skipped\n", set.n, set.nfailed,
                set.sources.nnotes);
    }
    close_output(o);
    loaded_set_free(&set);
    return EXIT_OK;
}
