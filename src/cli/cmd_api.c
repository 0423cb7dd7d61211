/* clarity api LOGS... REST_PATH: the History Server REST v1 answer for a path. */
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "clarity/shs.h"

static void api_usage(FILE *o)
{
    fprintf(o,
            "usage: clarity api [-o FILE] [--compact] LOGS... REST_PATH\n\n"
            "Prints what the Spark History Server REST API (v1) answers for REST_PATH, computed\n"
            "from the event logs alone. LOGS are log files or directories (a History Server log\n"
            "directory lists every application; attempts of one application are grouped).\n"
            "REST_PATH may start with /api/v1 and may carry a query string, e.g.\n"
            "  /applications[?status=completed&minDate=&maxDate=&minEndDate=&maxEndDate=&limit=N]\n"
            "    (dates as 2015-02-03T16:42:40.000GMT or a GMT day 2015-02-10)\n"
            "  /applications/ID[/ATTEMPT]\n"
            "  .../jobs[?status=succeeded]  .../jobs/ID\n"
            "  .../stages[?status=&details=&withSummaries=&quantiles=]  .../stages/ID[/ATTEMPT]\n"
            "  .../stages/ID/ATTEMPT/taskSummary[?quantiles=0.05,0.5]\n"
            "  .../stages/ID/ATTEMPT/taskList[?offset=&length=&sortBy=&status=]\n"
            "  .../executors  .../allexecutors  .../environment  .../storage/rdd[/ID]\n"
            "  .../allmiscellaneousprocess\n"
            "  .../sql[?details=&planDescription=&offset=&length=]  .../sql/EXECUTION_ID\n"
            "  .../logs     the application's event log files as a ZIP (binary: use -o)\n"
            "  /version\n\n"
            "options:\n"
            "  -o FILE      write the answer (JSON, or the ZIP of .../logs) to FILE instead of stdout\n"
            "  --compact    one-line JSON instead of the History Server's pretty printing\n"
            "  --help       this text\n\n"
            "exit: 0 ok, 2 usage or a path the History Server would not route, 3 unreadable\n"
            "logs or an unknown application, job, stage or other id (HTTP 404).\n");
}

int cmd_api(int argc, char **argv)
{
    const char *out_path = NULL;
    bool pretty = true;
    const char **pos = calloc((size_t)argc + 1, sizeof *pos);
    size_t npos = 0;
    if (!pos) return EXIT_INPUT;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            api_usage(stdout);
            free(pos);
            return EXIT_OK;
        } else if (!strcmp(argv[i], "--compact")) {
            pretty = false;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out_path = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] && strcmp(argv[i], "--")) {
            fprintf(stderr, "clarity api: unknown option '%s'; see clarity api --help\n", argv[i]);
            free(pos);
            return EXIT_USAGE;
        } else if (strcmp(argv[i], "--")) {
            pos[npos++] = argv[i];
        }
    }
    if (npos < 2) {
        api_usage(stderr);
        free(pos);
        return EXIT_USAGE;
    }
    const char *rest = pos[npos - 1];
    struct clarity_app_set set;
    struct clarity_load_options lo = {0};
    clarity_shs_load_options(rest, &lo);
    int rc = load_set("api", pos, npos - 1, false, &lo, &set);
    free(pos);
    if (rc != EXIT_OK) {
        clarity_app_set_free(&set);
        return rc;
    }
    struct clarity_app **apps = calloc(set.n ? set.n : 1, sizeof *apps);
    size_t n = 0;
    for (size_t i = 0; apps && i < set.n; i++)
        if (set.apps[i].app) apps[n++] = set.apps[i].app;
    FILE *out = apps ? open_output("api", out_path) : NULL;
    if (!out) {
        free(apps);
        clarity_app_set_free(&set);
        return EXIT_INPUT;
    }
    struct clarity_error err = {0};
    int status;
    /* streamed: the answer to every task of every stage can outgrow memory */
    int st = clarity_shs_answer_to(apps, n, rest, pretty, out, &status, &err);
    int crc = close_output(out, "api", out_path, st == CLARITY_OK);
    if (st != CLARITY_OK) fprintf(stderr, "clarity api: %s\n", err.msg);
    free(apps);
    clarity_app_set_free(&set);
    /* a path SHS would not route, or a parameter it would not take, is a usage error; an
     * unknown id (and, as always, running out of memory) an input error */
    return st == CLARITY_OK ? crc : st == CLARITY_EUSAGE ? EXIT_USAGE : EXIT_INPUT;
}
