#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/common/per_app.h"
#include "clarity/report.h"

static void help(FILE *o)
{
    fprintf(o,
            "usage: clarity stragglers [options] <log|dir>...\n\n"
            "Stragglers and their causes (Ousterhout, thesis 4.7): per stage, tasks whose runtime per\n"
            "input byte is at least 1.5x the stage's median, and what explains each one: scheduler\n"
            "delay, shuffle read, shuffle write, GC, output skew, first task on its host (JIT), plus\n"
            "stragglers clustered on one host or executor. Also data skew by bytes and records, the\n"
            "explained fraction per job and SQL query, and the slowest tasks.\n\n"
            "options:\n"
            "  --top N         slowest tasks to list (default 10)\n"
            "  --limit N       stage rows in text output (default 50, 0 = all)\n"
            "  --threads N     threads reading the log and analysing its stages (default: one per\n"
            "                  core; the output is the same for any N)\n"
            "  --json          machine-readable output (schema clarity.stragglers/1, docs/stragglers-json.md)\n"
            "  --compact       with --json: one line, no indentation\n"
            "  -o FILE         write to FILE instead of standard output\n"
            "  -q, --quiet     no notes about skipped files on stderr\n"
            "  -h, --help      this help\n\n"
            "exit codes: 0 ok, 2 usage, 3 no readable event log, 4 some applications could not be\n"
            "read (the others were analysed), 5 out of memory\n");
}

struct stragglers_ctx {
    size_t top;
    int threads;                 /* workers per analysis: 0 one per core */
    const struct stragglers_report_options *ro;
};

static int stragglers_one(void *ctx, const struct clarity_app *a, FILE *text, struct jsonw *json,
                          struct clarity_error *err)
{
    const struct stragglers_ctx *sc = ctx;
    struct clarity_stragglers_result r;
    int rc = clarity_stragglers_analyze(a, CLARITY_GROUP_JOB | CLARITY_GROUP_SQL | CLARITY_GROUP_APP, sc->top, sc->threads, &r, err);
    if (rc) return rc;
    rc = json ? clarity_report_stragglers_json(json, a, &r, err) : clarity_report_stragglers_text(text, a, &r, sc->ro, err);
    clarity_stragglers_free(&r);
    return rc;
}

int cmd_stragglers(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, 0, OPT_JSON}, {"compact", no_argument, 0, OPT_COMPACT}, {"top", required_argument, 0, 't'},
        {"limit", required_argument, 0, 'l'}, {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
        {"threads", required_argument, 0, 'T'}, {0, 0, 0, 0}};
    struct common_opts co = {.cmd = "stragglers"};
    size_t top = 10;
    struct stragglers_report_options ro = {.stage_limit = 50};
    long long threads = 0;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        if (common_option(&co, c, optarg)) continue;
        switch (c) {
        case 't':
            if (!opt_count(co.cmd, "top", optarg, &top)) return EXIT_USAGE;
            break;
        case 'l':
            if (!opt_count(co.cmd, "limit", optarg, &ro.stage_limit)) return EXIT_USAGE;
            break;
        case 'T':
            if (!opt_int_range(co.cmd, "threads", optarg, 1, 64, &threads)) return EXIT_USAGE;
            break;
        case 'h': help(stdout); return EXIT_OK;
        default: return bad_option(co.cmd, argv, "o:qh");
        }
    }
    if (no_logs_given(co.cmd, optind, argc, help)) return EXIT_USAGE;
    struct stragglers_ctx sc = {.top = top, .threads = (int)threads, .ro = &ro};
    struct clarity_load_options lo = lean_load_options(co.quiet);
    lo.threads = (int)threads;
    struct per_app_cmd pc = {.schema = "clarity.stragglers/1", .out = &co, .load = &lo, .one = stragglers_one, .ctx = &sc};
    return run_per_app(&pc, argv + optind, (size_t)(argc - optind));
}
