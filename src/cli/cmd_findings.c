#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/common/ladra_inputs.h"
#include "cli/common/load.h"
#include "cli/common/per_app.h"
#include "cli/findings_cross.h"
#include "clarity/report.h"
#include "report/table.h"

static void help(FILE *o)
{
    fprintf(o,
            "usage: clarity findings [options] <log|dir>...\n\n"
            "What to fix first: findings ranked by the wall time their fix would save, each with the\n"
            "figures that triggered it, how the saving was computed and the Spark setting to change\n"
            "(its current value from the log's environment and a value computed from the log).\n"
            "Kinds: data skew, slow hosts, spill, too few or oversized partitions, tiny tasks, idle\n"
            "executors, GC pressure, out-of-memory deaths, task and fetch failures, lost executors,\n"
            "speculation waste, driver-bound time, scheduler delay, cartesian joins, repeated\n"
            "exchanges (the same subtree computed twice in a query), broadcasts far over the threshold.\n"
            "Savings: [replay] re-runs the slot replay of blocked time with the problem removed (skewed\n"
            "partitions split, slow-host tasks at the median rate, failed attempts gone, a stage\n"
            "repartitioned); [bound] is an upper bound; [estimate] comes from sizes and assumed rates.\n"
            "A finding saving less than 2%% of the run or 1 s is left out. Rules: docs/findings.md.\n\n"
            "options:\n"
            "  --limit N       findings listed in text (default 10, largest saving first; 0 = all)\n"
            "  --why           with each finding, how its saving was computed and its evidence\n"
            "  --all           keep every rule hit, however small its saving\n"
            "  --deep          also the findings of `clarity anomalies` (LADRA: an abnormal period\n"
            "                  with its host and root cause, kind anomaly) and `clarity contention`\n"
            "                  (iQCAR: the query that slowed the application's other concurrent\n"
            "                  queries most, kind contention), in their words; over several logs also\n"
            "                  contention across the applications that ran at the same time (iQCAR,\n"
            "                  one unit per application: \"Across applications\", JSON\n"
            "                  across_applications); they cost what those commands cost, so they run\n"
            "                  only when asked\n"
            "  --window K      --deep across applications: at most K applications' models held at\n"
            "                  once (default 16, at least 4); a longer run of overlapping applications\n"
            "                  is analysed in windows of K neighbours in start order, each sharing\n"
            "                  half its applications with the next\n"
            "  --executor-logs DIR, --gc-logs DIR\n"
            "                  executor log4j and JVM GC logs for LADRA's log-based mode (as clarity\n"
            "                  anomalies takes them); either one runs the anomaly finding\n"
            "  --detail        one full report per application even when there are several (a\n"
            "                  directory or several logs get one row per application)\n"
            "  --wide          text as wide as its values (default: it fits COLUMNS, the terminal,\n"
            "                  or 100 columns)\n"
            "  --threads N     threads reading the log and replaying (default: one per core; the\n"
            "                  output is the same for any N)\n"
            "  --json          machine-readable output (schema clarity.findings/1, docs/findings.md)\n"
            "  --compact       with --json: one line, no indentation\n"
            "  -o FILE         write to FILE instead of standard output\n"
            "  -q, --quiet     no notes about skipped files on stderr\n"
            "  -h, --help      this help\n\n"
            "exit codes: 0 ok, 2 usage, 3 no readable event log, 4 some applications could not be\n"
            "read (the others were analysed), 5 out of memory\n");
}

static int findings_one(void *ctx, const struct clarity_app *a, FILE *text, struct jsonw *json,
                        struct clarity_error *err)
{
    struct findings_ctx *fc = ctx;
    struct clarity_findings r;
    int rc = clarity_findings_analyze(a, &fc->fo, &r, err);
    if (rc) return rc;
    findings_remember(fc, a, &r);
    rc = json ? clarity_report_findings_json(json, a, &r, err) : clarity_report_findings_text(text, a, &r, &fc->ro, err);
    clarity_findings_free(&r);
    return rc;
}

static const struct table_col app_cols[] = {{"application", TCOL_ID}, {"duration", TCOL_NUM}, {"findings", TCOL_NUM},
                                            {"top finding", TCOL_FIXED}, {"saves", TCOL_NUM},
                                            {"setting", TCOL_NAME}};

/* Several applications: one row each, with its largest finding. */
static int findings_row(void *ctx, const struct clarity_app *a, struct table *tab, struct clarity_error *err)
{
    struct findings_ctx *fc = ctx;
    struct clarity_findings r;
    int rc = clarity_findings_analyze(a, &fc->fo, &r, err);
    if (rc) return rc;
    findings_remember(fc, a, &r);
    char id[160], dur[32], n[16], top[40], saves[48], t1[32];
    snprintf(id, sizeof id, "%s%s%s", clarity_app_str(a, a->app_id), a->attempt_id ? "/" : "", clarity_app_str(a, a->attempt_id));
    snprintf(n, sizeof n, "%zu", r.n);
    const struct clarity_finding *t = r.n ? &r.f[0] : NULL;
    snprintf(top, sizeof top, "%s", t ? clarity_finding_kind_name(t->kind) : "-");
    if (!t) snprintf(saves, sizeof saves, "-");
    else if (t->saving_ms > 0 || t->saving_core_ms <= 0)
        snprintf(saves, sizeof saves, "%s [%s]", clarity_fmt_ms(t1, sizeof t1, t->saving_ms),
                 clarity_finding_method_name(t->method));
    else snprintf(saves, sizeof saves, "%.2f core-h [%s]", (double)t->saving_core_ms / 3600e3,
                  clarity_finding_method_name(t->method));
    /* the setting without its "spark." prefix: the column is narrow, and every setting has it */
    const char *sname = t && t->setting[0] ? t->setting : "-";
    if (!strncmp(sname, "spark.", 6)) sname += 6;
    const char *row[] = {id, clarity_fmt_ms(dur, sizeof dur, r.duration_ms), n, top, saves, sname};
    clarity_table_row(tab, row);
    clarity_findings_free(&r);
    return 0;
}

static void findings_note(FILE *o)
{
    fprintf(o, "[replay]: the slot replay re-run without the\n"
               "problem; [bound]: an upper bound; [estimate]: from sizes and rates (clarity findings --help).\n");
}

int cmd_findings(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, 0, OPT_JSON}, {"compact", no_argument, 0, OPT_COMPACT}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'}, {"threads", required_argument, 0, 'T'}, {"limit", required_argument, 0, 'l'},
        {"detail", no_argument, 0, 'd'}, {"why", no_argument, 0, 'w'}, {"all", no_argument, 0, 'a'},
        {"wide", no_argument, 0, OPT_WIDE}, {"deep", no_argument, 0, 'D'}, {"window", required_argument, 0, 'W'},
        {"executor-logs", required_argument, 0, 'E'}, {"gc-logs", required_argument, 0, 'G'}, {0, 0, 0, 0}};
    struct common_opts co = {.cmd = "findings"};
    struct findings_ctx fc = {.ro = {.limit = 10}, .window = CLARITY_CROSS_DEFAULT_WINDOW};
    bool deep = false;
    const char *exdir = NULL, *gcdir = NULL;
    struct per_app_rows pr = {.row = findings_row, .note = findings_note,
                              .title = "the largest finding of each application (--detail: every finding of each)\n"};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        if (common_option(&co, c, optarg)) continue;
        switch (c) {
        case 'T': {
            long long t;
            if (!opt_int_range(co.cmd, "threads", optarg, 1, 64, &t)) return EXIT_USAGE;
            fc.fo.threads = (int)t;
            break;
        }
        case 'l':
            if (!opt_count(co.cmd, "limit", optarg, &fc.ro.limit)) return EXIT_USAGE;
            break;
        case 'd': pr.detail = true; break;
        case 'w': fc.ro.why = true; break;
        case 'a': fc.fo.keep_all = true; break;
        case 'D': deep = true; break;
        case 'W': {
            long long k;
            if (!opt_int_range(co.cmd, "window", optarg, 4, 100000, &k)) return EXIT_USAGE;
            fc.window = (size_t)k;
            break;
        }
        case 'E': exdir = optarg; break;
        case 'G': gcdir = optarg; break;
        case 'h': help(stdout); return EXIT_OK;
        default: return bad_option(co.cmd, argv, "o:qh");
        }
    }
    if (no_logs_given(co.cmd, optind, argc, help)) return EXIT_USAGE;
    /* the anomaly finding: LADRA as `clarity anomalies` runs it by default (its GRNN model when
       one is found, else the weighted rules), on the event log, or with the logs given */
    struct clarity_anomalies_options ao = {.method = LADRA_METHOD_GRNN, .softmax = true,
                                           .min_cause = LADRA_DEFAULT_MIN_CAUSE};
    clarity_ladra_options_default(&ao.det);
    struct ladra_model model = {0};
    struct clarity_logs L;
    bool have_logs = exdir || gcdir;
    struct iqcar_options io;
    clarity_iqcar_options_default(&io);
    if (deep || have_logs) {
        char mp[PATH_MAX + 64];
        struct clarity_error err = {0};
        if (ladra_default_model(mp, sizeof mp) && !clarity_ladra_model_load(&model, mp, &err) &&
            model.nfeat >= LADRA_NFEAT)
            ao.model = &model;
        else ao.method = LADRA_METHOD_RULES;   /* as `clarity anomalies` falls back without a model */
        if (have_logs) {
            int rc = ladra_read_logs(co.cmd, &L, exdir, gcdir, 0, co.quiet);
            if (rc) {
                clarity_logs_free(&L);
                clarity_ladra_model_free(&model);
                return rc;
            }
            ao.logs = &L;
        }
        fc.fo.anomalies = &ao;
    }
    if (deep) fc.fo.contention = &io;
    struct clarity_load_options lo = lean_load_options(co.quiet);
    lo.threads = fc.fo.threads;
    /* iQCAR reads a few task accumulables (the SQL scan time, instrumented waits): kept as
       `clarity contention` keeps them, so the contention finding has its figures */
    const char *acc_names[IQ_ACC_NAMES_MAX];
    if (deep) {
        lo.task_accumulable_names = acc_names;
        lo.ntask_accumulable_names = clarity_iqcar_accumulable_names(&io, acc_names);
    }
    fc.ro.width = pr.width = out_width(&co);
    clarity_table_init(&pr.table, app_cols, sizeof app_cols / sizeof *app_cols);
    struct per_app_cmd pc = {.schema = "clarity.findings/1", .out = &co, .load = &lo, .one = findings_one,
                             .rows = &pr, .ctx = &fc};
    if (deep) {   /* contention across the applications that ran at the same time */
        fc.cross = true;
        fc.quiet = co.quiet;
        fc.lo = &lo;
        pc.end = findings_cross_end;
    }
    int rc = run_per_app(&pc, argv + optind, (size_t)(argc - optind));
    for (size_t i = 0; i < fc.nseen; i++) {
        free(fc.seen[i].path);
        free(fc.seen[i].id);
    }
    free(fc.seen);
    clarity_table_free(&pr.table);
    if (have_logs) clarity_logs_free(&L);
    clarity_ladra_model_free(&model);
    return rc;
}
