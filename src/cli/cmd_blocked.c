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
            "usage: clarity blocked [options] <log|dir>...\n\n"
            "Blocked-time analysis (Ousterhout, thesis ch. 3): for each job, SQL query and the\n"
            "application, how much sooner it would have finished had its tasks never blocked on the\n"
            "network, disk, shuffle write, GC, scheduler delay or stragglers. Successful task attempts\n"
            "are replayed in launch order on the slots the stage used, with and without each resource;\n"
            "the improvement is 1 - simulated without / simulated. Every figure is an upper bound.\n\n"
            "options:\n"
            "  --group KIND    job, sql or app (repeat or comma-separate; default all three)\n"
            "  --slots MODE    observed (default: peak concurrency up to 40 tasks, average above) or\n"
            "                  configured (executor cores / spark.task.cpus over the stage's lifetime)\n"
            "  --limit N       groups listed in text (default 20, largest saving first; 0 = all)\n"
            "  --detail        one full report per application even when there are several (a\n"
            "                  directory or several logs get one row per application)\n"
            "  --wide          text tables as wide as their values (default: they fit COLUMNS,\n"
            "                  the terminal, or 100 columns)\n"
            "  --threads N     threads reading the log and replaying its groups (default: one per\n"
            "                  core; the output is the same for any N)\n"
            "  --json          machine-readable output (schema clarity.blocked/1, docs/blocked-json.md)\n"
            "  --compact       with --json: one line, no indentation\n"
            "  -o FILE         write to FILE instead of standard output\n"
            "  -q, --quiet     no notes about skipped files on stderr\n"
            "  -h, --help      this help\n\n"
            "exit codes: 0 ok, 2 usage, 3 no readable event log, 4 some applications could not be\n"
            "read (the others were analysed), 5 out of memory\n");
}

/* "job,sql" -> mask; 0 on a bad word */
static int parse_groups(const char *s)
{
    int mask = 0;
    while (*s) {
        size_t n = strcspn(s, ",");
        if (n == 3 && !strncmp(s, "job", 3)) mask |= CLARITY_GROUP_JOB;
        else if (n == 3 && !strncmp(s, "sql", 3)) mask |= CLARITY_GROUP_SQL;
        else if (n == 3 && !strncmp(s, "app", 3)) mask |= CLARITY_GROUP_APP;
        else return 0;
        s += n + (s[n] == ',');
    }
    return mask;
}

struct blocked_ctx {
    int kinds;
    enum clarity_slot_mode mode;
    int threads;                 /* workers per analysis: 0 one per core */
    struct blocked_report_options ro;
};

/* --json: each group written as the analysis hands it out, none of them held */
struct json_stream { struct jsonw *w; const struct clarity_app *a; bool begun; };

static int json_group(void *ctx, const struct clarity_blocked_result *head, const struct clarity_blocked_group *g,
                      struct clarity_error *err)
{
    (void)err;
    struct json_stream *s = ctx;
    if (!s->begun) clarity_report_blocked_json_begin(s->w, s->a, head);
    s->begun = true;
    clarity_report_blocked_json_group(s->w, s->a, head, g);
    return 0;
}

static int blocked_one(void *ctx, const struct clarity_app *a, FILE *text, struct jsonw *json,
                       struct clarity_error *err)
{
    const struct blocked_ctx *bc = ctx;
    struct clarity_blocked_result r;
    if (json) {
        struct json_stream s = {json, a, false};
        int rc = clarity_blocked_analyze_each(a, bc->kinds, bc->mode, bc->threads, &r, json_group, &s, err);
        if (rc) return rc;
        if (!s.begun) clarity_report_blocked_json_begin(json, a, &r);
        return clarity_report_blocked_json_end(json, err);
    }
    int rc = clarity_blocked_analyze(a, bc->kinds, bc->mode, bc->threads, &r, err);
    if (rc) return rc;
    rc = clarity_report_blocked_text(text, a, &r, &bc->ro, err);
    clarity_blocked_free(&r);
    return rc;
}

static const struct table_col app_cols[] = {{"application", TCOL_ID}, {"actual", TCOL_NUM},  {"network", TCOL_NUM},
                                            {"disk*", TCOL_NUM},      {"shuf wr", TCOL_NUM}, {"GC", TCOL_NUM},
                                            {"sched", TCOL_NUM},      {"straggl", TCOL_NUM}, {"non-CPU", TCOL_NUM}};

/* Several applications: one row each, the application as one group. */
static int blocked_row(void *ctx, const struct clarity_app *a, struct table *t, struct clarity_error *err)
{
    const struct blocked_ctx *bc = ctx;
    struct clarity_blocked_result r;
    int rc = clarity_blocked_analyze(a, CLARITY_GROUP_APP, bc->mode, bc->threads, &r, err);
    if (rc) return rc;
    static const int res[] = {CLARITY_RES_NETWORK, CLARITY_RES_DISK, CLARITY_RES_SHUFFLE_WRITE, CLARITY_RES_GC,
                              CLARITY_RES_SCHED_DELAY, CLARITY_RES_STRAGGLERS, CLARITY_RES_NON_CPU};
    char id[160], act[32], p[7][16];
    const char *row[9];
    snprintf(id, sizeof id, "%s%s%s", clarity_app_str(a, a->app_id), a->attempt_id ? "/" : "", clarity_app_str(a, a->attempt_id));
    row[0] = id;
    for (size_t g = 0; g < r.ngroups && g < 1; g++) {
        row[1] = clarity_fmt_ms(act, sizeof act, r.groups[g].actual_ms);
        for (int k = 0; k < 7; k++) {
            const struct clarity_blocked_without *w = &r.groups[g].without[res[k]];
            if (w->available) snprintf(p[k], sizeof p[k], "%.1f%%", 100 * w->improvement);
            else snprintf(p[k], sizeof p[k], "-");
            row[2 + k] = p[k];
        }
        clarity_table_row(t, row);
    }
    clarity_blocked_free(&r);
    return 0;
}

static void blocked_note(FILE *o)
{
    fprintf(o, "disk*: shuffle only; every figure is an upper bound\n(clarity blocked --help).\n");
}

int cmd_blocked(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, 0, OPT_JSON}, {"compact", no_argument, 0, OPT_COMPACT}, {"group", required_argument, 0, 'g'},
        {"slots", required_argument, 0, 's'}, {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
        {"threads", required_argument, 0, 'T'}, {"limit", required_argument, 0, 'l'}, {"detail", no_argument, 0, 'd'},
        {"wide", no_argument, 0, OPT_WIDE}, {0, 0, 0, 0}};
    struct common_opts co = {.cmd = "blocked"};
    struct blocked_ctx bc = {.kinds = 0, .mode = CLARITY_SLOTS_OBSERVED, .ro = {.limit = 20}};
    struct per_app_rows pr = {.row = blocked_row, .note = blocked_note,
                              .title = "improvement if the tasks never blocked on the resource, each application as one group\n"
                                       "(simulated without / simulated; --detail: a full report each)\n"};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        if (common_option(&co, c, optarg)) continue;
        switch (c) {
        case 'g': {
            int m = parse_groups(optarg);
            if (!m) {
                fprintf(stderr, "clarity blocked: --group takes job, sql or app, not '%s'\n", optarg);
                return EXIT_USAGE;
            }
            bc.kinds |= m;
            break;
        }
        case 's':
            if (!opt_slots(co.cmd, optarg, &bc.mode)) return EXIT_USAGE;
            break;
        case 'T': {
            long long t;
            if (!opt_int_range(co.cmd, "threads", optarg, 1, 64, &t)) return EXIT_USAGE;
            bc.threads = (int)t;
            break;
        }
        case 'l':
            if (!opt_count(co.cmd, "limit", optarg, &bc.ro.limit)) return EXIT_USAGE;
            break;
        case 'd': pr.detail = true; break;
        case 'h': help(stdout); return EXIT_OK;
        default: return bad_option(co.cmd, argv, "o:qh");
        }
    }
    if (!bc.kinds) bc.kinds = CLARITY_GROUP_JOB | CLARITY_GROUP_SQL | CLARITY_GROUP_APP;
    if (no_logs_given(co.cmd, optind, argc, help)) return EXIT_USAGE;
    struct clarity_load_options lo = lean_load_options(co.quiet);
    lo.threads = bc.threads;
    bc.ro.width = pr.width = out_width(&co);
    clarity_table_init(&pr.table, app_cols, sizeof app_cols / sizeof *app_cols);
    struct per_app_cmd pc = {.schema = "clarity.blocked/1", .out = &co, .load = &lo, .one = blocked_one, .rows = &pr, .ctx = &bc};
    int rc = run_per_app(&pc, argv + optind, (size_t)(argc - optind));
    clarity_table_free(&pr.table);
    return rc;
}
