#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/common/per_app.h"
#include "clarity/report.h"
#include "report/table.h"

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
            "  --limit N       stage and group rows in text output (default 50, 0 = all); stages with\n"
            "                  fewer than 10 rated tasks and groups without stragglers are counted,\n"
            "                  not listed\n"
            "  --detail        one full report per application even when there are several (a\n"
            "                  directory or several logs get one row per application)\n"
            "  --wide          text tables as wide as their values (default: they fit COLUMNS,\n"
            "                  the terminal, or 100 columns)\n"
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

static const struct table_col app_cols[] = {{"application", TCOL_ID}, {"rated", TCOL_NUM},    {"stages", TCOL_NUM},
                                            {"with strag", TCOL_NUM},  {"strag", TCOL_NUM},    {"explained", TCOL_NUM},
                                            {"top cause", TCOL_NAME}};

/* Several applications: one row each. */
static int stragglers_row(void *ctx, const struct clarity_app *a, struct table *t, struct clarity_error *err)
{
    const struct stragglers_ctx *sc = ctx;
    struct clarity_stragglers_result r;
    int rc = clarity_stragglers_analyze(a, CLARITY_GROUP_APP, 0, sc->threads, &r, err);
    if (rc) return rc;
    size_t examined = 0, with = 0;
    for (size_t s = 0; s < r.nstages; s++) {
        const struct clarity_stage_strag *st = &r.stages[s];
        if (st->skipped || st->with_input < CLARITY_STRAGGLER_MIN_RATED) continue;
        examined++;
        with += st->stragglers > 0;
    }
    char id[160], rt[24], ex[24], wi[24], sn[24], ep[16] = "-", top[64] = "-";
    snprintf(id, sizeof id, "%s%s%s", clarity_app_str(a, a->app_id), a->attempt_id ? "/" : "", clarity_app_str(a, a->attempt_id));
    snprintf(rt, sizeof rt, "%zu", r.counts.n);
    snprintf(ex, sizeof ex, "%zu", examined);
    snprintf(wi, sizeof wi, "%zu", with);
    const struct clarity_straggler_group *g = r.ngroups ? &r.groups[0] : NULL;
    snprintf(sn, sizeof sn, "%zu", g ? g->stragglers : 0);
    if (g && g->stragglers) {
        snprintf(ep, sizeof ep, "%.0f%%", 100.0 * (double)g->explained / (double)g->stragglers);
        int best = -1;
        for (int q = 0; q < CLARITY_SC_COUNT; q++)
            if (g->by_cause[q] && (best < 0 || g->by_cause[q] > g->by_cause[best])) best = q;
        if (best >= 0)
            snprintf(top, sizeof top, "%s %.0f%%", clarity_scause_label(best), 100.0 * (double)g->by_cause[best] / (double)g->stragglers);
    }
    const char *row[] = {id, rt, ex, wi, sn, ep, top};
    clarity_table_row(t, row);
    clarity_stragglers_free(&r);
    return 0;
}

static void stragglers_note(FILE *o)
{
    fprintf(o, "rated: successful attempts with input; stages:\n"
               "stage attempts with %d or more rated tasks (the others are not examined); with strag: those\n"
               "with stragglers; strag counts every stage; explained: by at least one cause.\n",
            CLARITY_STRAGGLER_MIN_RATED);
}

int cmd_stragglers(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, 0, OPT_JSON}, {"compact", no_argument, 0, OPT_COMPACT}, {"top", required_argument, 0, 't'},
        {"limit", required_argument, 0, 'l'}, {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
        {"threads", required_argument, 0, 'T'}, {"detail", no_argument, 0, 'd'}, {"wide", no_argument, 0, OPT_WIDE},
        {0, 0, 0, 0}};
    struct common_opts co = {.cmd = "stragglers"};
    size_t top = 10;
    struct stragglers_report_options ro = {.stage_limit = 50};
    long long threads = 0;
    bool detail = false;
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
        case 'd': detail = true; break;
        case 'h': help(stdout); return EXIT_OK;
        default: return bad_option(co.cmd, argv, "o:qh");
        }
    }
    if (no_logs_given(co.cmd, optind, argc, help)) return EXIT_USAGE;
    ro.width = out_width(&co);
    struct stragglers_ctx sc = {.top = top, .threads = (int)threads, .ro = &ro};
    struct per_app_rows pr = {.detail = detail, .width = ro.width, .row = stragglers_row, .note = stragglers_note,
                              .title = "stragglers per application (--detail: a full report each)\n"};
    clarity_table_init(&pr.table, app_cols, sizeof app_cols / sizeof *app_cols);
    struct clarity_load_options lo = lean_load_options(co.quiet);
    lo.threads = (int)threads;
    struct per_app_cmd pc = {.schema = "clarity.stragglers/1", .out = &co, .load = &lo, .one = stragglers_one,
                             .rows = &pr, .ctx = &sc};
    int rc = run_per_app(&pc, argv + optind, (size_t)(argc - optind));
    clarity_table_free(&pr.table);
    return rc;
}
