#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/commands.h"
#include "cli/common/ladra_inputs.h"
#include "cli/common/per_app.h"
#include "clarity/report.h"
#include "analysis/anomalies/ladra_train.h"

enum { OPT_NO_CWP = OPT_WIDE + 1, OPT_REFERENCE };

static void help(FILE *o)
{
    fprintf(o,
            "usage: clarity anomalies [options] <log|dir>...\n"
            "       clarity anomalies train -o MODEL [--note TEXT] [--sigma S] [--xsigma S] SYNTH_DIR...\n"
            "       clarity anomalies cv MODEL [--splits N] [--seed N] [--min-cause P]\n\n"
            "Abnormal tasks and their root cause (LADRA, Lu et al. FGCS 2019): per stage, tasks\n"
            "slower than mean + 1.5 sd of their stage (first wave apart), smoothed over a width-5 window\n"
            "per host, grouped into periods (where: host, executor, stage; when: start, end), then the\n"
            "probability of each cause (cpu, memory, network, disk, normal) from seven factors through a\n"
            "GRNN (sigma 0.5) or the paper's weighted rules. Spark's speculation rule is shown beside it.\n"
            "Without --gc-logs, the GC-based factors are approximated from task metrics (and say so).\n\n"
            "options:\n"
            "  --executor-logs DIR   executor/driver log4j logs (<host>/<exec>/stderr, YARN aggregated,\n"
            "                        Spark 4 JSON)\n"
            "  --gc-logs DIR         JVM GC logs (<host>-<exec>.log or <exec>/stdout; JDK 8 or -Xlog:gc*)\n"
            "  --model FILE          GRNN model (default: models/ladra-default.model next to the binary,\n"
            "                        or $CLARITY_LADRA_MODEL)\n"
            "  --rules               the weighted-rule method (Eq. 11-12) instead of the GRNN\n"
            "  --features SET        GRNN inputs: extended (default: the seven factors and seven event-log\n"
            "                        features, z-scored; with GC logs also the event-log approximations\n"
            "                        eDCO, eMCS, eDMC) or paper (the seven factors, raw, as the paper)\n"
            "  --min-cause P         the GRNN names a cause only when it holds at least P of the model's\n"
            "                        weight, else the verdict is normal, cause unclear (default 0.4;\n"
            "                        0 = the likeliest class, as the paper)\n"
            "  --no-softmax          print the GRNN's raw outputs y (they already sum to 1)\n"
            "  --sample-std          sample instead of population standard deviation (D1)\n"
            "  --strict-edges        zero-padded smoothing at the edges instead of edge majority (D4)\n"
            "  --no-skew-filter      keep non-local abnormal tasks (D3)\n"
            "  --min-period-tasks N  a period needs N smoothed-abnormal tasks in a row (default 1, the spec;\n"
            "                        2 drops lone spikes: fewer false alarms, fewer mild faults found)\n"
            "  --min-share S         a period matters when its tasks' time beyond their stage's median is\n"
            "                        at least S of the stage's task time (default 0.006), ...\n"
            "  --min-excess MS       ... at least MS milliseconds (default 1000), its stage ran on other\n"
            "                        hosts without a period and its host ran 3 tasks or more there; only\n"
            "                        the periods that matter are shown and let the verdict name a cause\n"
            "  --all-periods         report every LADRA period (the paper), whether it matters or not\n"
            "  --no-host-scan        no cross-stage scan: only LADRA's per-stage periods make a run\n"
            "                        abnormal (by default a host whose tasks are slower than the other\n"
            "                        hosts' tasks of the same stages over 5+ tasks, z >= 5.5, costing 2%%\n"
            "                        of the run's task time, does too; docs/anomalies.md)\n"
            "  --host-scan-stage-hosts N  the cross-stage scan compares the tasks of stages that ran on\n"
            "                        N hosts or more (default 3: with two, a slow host and a fast one look\n"
            "                        alike)\n"
            "  --no-fetch-scan       no fetch-wait scan (by default readers of shuffle blocks on 2+ hosts\n"
            "                        waiting x2 per remote MB beyond the application's unimpeded readers,\n"
            "                        over 5+ readers, costing 2%% of the run's task time, make a run\n"
            "                        abnormal: a slow network; docs/anomalies.md)\n"
            "  --reference REF_LOG   another run of the same job (last night's, fault-free as far as you\n"
            "                        know): where the readers of a shuffle ran in one wave, so the\n"
            "                        application has no unimpeded reader of its own (\"network not\n"
            "                        checked\"), the fetch-wait scan compares each reader with the\n"
            "                        readers of the same stage in REF_LOG (matched by name and position,\n"
            "                        as clarity diff; per remote MB, so another data size still\n"
            "                        compares). The output names the reference used. REF_LOG must hold\n"
            "                        one application\n"
            "  --no-cause-without-period  no period, no cause: by default the GRNN names its cause for a\n"
            "                        run with no period that matters when the run lies within its domain\n"
            "                        (4.71 kernel widths of a training run with GC logs, 3.06 without)\n"
            "                        and the victim host lost 1 s and 2%% of the run's task time beyond\n"
            "                        its stages' medians (over 4 hosts: against the other hosts' tasks,\n"
            "                        per byte and load; on synth it finds most faults no period shows);\n"
            "                        over 4 hosts the victim's time components against its stages'\n"
            "                        other hosts (run time per CPU time, shuffle write time per byte,\n"
            "                        GC system share) name the cause when clear, and drop a cause of\n"
            "                        the model they do not bear out (the output says which answered)\n"
            "  --cause-without-period  the default (kept for scripts that name it)\n"
            "  --clock-offset MS     add MS to every executor/GC log time (node clock skew)\n"
            "  --limit N             periods that matter listed in text (default 30; the verdict and\n"
            "                        the count above the table use them all; 0 = all)\n"
            "  --wide                text as wide as its values (default: it fits COLUMNS, the\n"
            "                        terminal, or 100 columns)\n"
            "  --json                machine-readable output (schema clarity.anomalies/1, docs/anomalies.md)\n"
            "  --compact             with --json: one line\n"
            "  -o FILE               write to FILE instead of standard output\n"
            "  -q, --quiet           no notes on stderr\n"
            "  -h, --help            this help\n\n"
            "train: reads `clarity synth` output directories (event log, executor and GC logs, truth.json),\n"
            "labels each run by its injected fault (normal when none delayed a task), computes the factors\n"
            "in both modes and writes them as a model file.\n"
            "cv: the paper's protocol on a model file's samples: N (100) random splits, 1/3 test\n"
            "and 2/3 train, per mode; precision and recall per class averaged, for the GRNN on the\n"
            "extended features (likeliest class, and the verdict with --min-cause), on the paper features\n"
            "and for the rules. Same seed, same numbers.\n\n"
            "exit codes: 0 ok, 2 usage, 3 no readable event log, 4 some applications could not be\n"
            "read (the others were analysed), 5 out of memory\n");
}

/* ---- train ---- */
/* What became of each run directory, as it is done. */
static void train_run(void *ctx, const struct clarity_ladra_train_run *run)
{
    (void)ctx;
    char eb[1200];
    if (run->status == CLARITY_LADRA_RUN_NO_TRUTH)
        fprintf(stderr, "clarity anomalies train: %s: no readable truth.json, skipped\n", run->dir);
    if (run->events) print_set_problems("anomalies train", run->events, true);
    if (run->status == CLARITY_LADRA_RUN_NO_EVENT_LOG)
        fprintf(stderr, "clarity anomalies train: %s: no event log, skipped\n", run->dir);
    if (run->logs_err.code) fprintf(stderr, "clarity anomalies: %s\n", clarity_error_format(&run->logs_err, eb, sizeof eb));
}

static int train(int argc, char **argv)
{
    static const struct option opts[] = {{"note", required_argument, 0, 'n'}, {"zscore", no_argument, 0, 'z'},
                                         {"sigma", required_argument, 0, 's'}, {"xsigma", required_argument, 0, 'x'},
                                         {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *out = NULL, *note = "";
    bool quiet = false, zscore = false;
    double sigma = 0.5, xsigma = LADRA_DEFAULT_XSIGMA;
    char *end;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'n': note = optarg; break;
        case 'z': zscore = true; break;
        case 's':
        case 'x': {
            double v = strtod(optarg, &end);
            if (!*optarg || *end || !(v > 0)) {
                fprintf(stderr, "clarity anomalies train: --%s needs a number > 0, not '%s'\n", c == 's' ? "sigma" : "xsigma",
                        optarg);
                return EXIT_USAGE;
            }
            *(c == 's' ? &sigma : &xsigma) = v;
            break;
        }
        case 'q': quiet = true; break;
        case 'h': help(stdout); return EXIT_OK;
        default: return bad_option("anomalies train", argv, "o:qh");
        }
    }
    if (!out || optind >= argc) {
        fprintf(stderr, "clarity anomalies train: needs -o MODEL and at least one synth output directory\n");
        return EXIT_USAGE;
    }
    struct ladra_model m = {.sigma = sigma, .zscore = zscore, .xsigma = xsigma, .nfeat = LADRA_NFEAT};
    snprintf(m.note, sizeof m.note, "%s", note);
    size_t count[LADRA_NCLASS] = {0};
    struct clarity_error err = {0};
    char eb[1200];
    /* a run that could not be analyzed is left out; the model is written all the same */
    int rc = clarity_ladra_train((const char *const *)argv + optind, (size_t)(argc - optind), &m, count, train_run, NULL,
                                 &err) ? EXIT_INPUT : EXIT_OK;
    if (clarity_ladra_model_save(&m, out, &err)) {
        fprintf(stderr, "clarity anomalies train: %s\n", clarity_error_format(&err, eb, sizeof eb));
        rc = EXIT_USAGE;
    } else if (!quiet)
        fprintf(stderr, "model %s: %zu samples (normal %zu, cpu %zu, memory %zu, network %zu, disk %zu runs)\n", out, m.n,
                count[0], count[1], count[2], count[3], count[4]);
    clarity_ladra_model_free(&m);
    return rc;
}

/* ---- cv ---- */
static int parse_min_cause(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (!*s || *end || !(v >= 0 && v <= 1)) {
        fprintf(stderr, "clarity anomalies: --min-cause needs a share from 0 to 1, not '%s'\n", s);
        return -1;
    }
    *out = v;
    return 0;
}

static int cv(int argc, char **argv)
{
    static const struct option opts[] = {{"splits", required_argument, 0, 'n'}, {"seed", required_argument, 0, 's'},
                                         {"min-cause", required_argument, 0, 'm'}, {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    long long splits = 100, seed = 1;
    double min_cause = LADRA_DEFAULT_MIN_CAUSE;
    char *end;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
        case 's': {
            long long v = strtoll(optarg, &end, 10);
            if (!*optarg || *end || v < (c == 'n')) {
                fprintf(stderr, "clarity anomalies cv: --%s needs a whole number, not '%s'\n", c == 'n' ? "splits" : "seed",
                        optarg);
                return EXIT_USAGE;
            }
            *(c == 'n' ? &splits : &seed) = v;
            break;
        }
        case 'm':
            if (parse_min_cause(optarg, &min_cause)) return EXIT_USAGE;
            break;
        case 'h': help(stdout); return EXIT_OK;
        default: return bad_option("anomalies cv", argv, "h");
        }
    }
    if (optind + 1 != argc) {
        fprintf(stderr, "clarity anomalies cv: needs one model file (clarity anomalies train -o MODEL ...)\n");
        return EXIT_USAGE;
    }
    struct ladra_model m;
    struct clarity_error err = {0};
    char eb[1200];
    if (clarity_ladra_model_load(&m, argv[optind], &err)) {
        fprintf(stderr, "clarity anomalies cv: %s\n", clarity_error_format(&err, eb, sizeof eb));
        return EXIT_USAGE;
    }
    if (m.nfeat < LADRA_NFEAT) {
        fprintf(stderr, "clarity anomalies cv: %s has no extended features (a /1 file); retrain it\n", argv[optind]);
        clarity_ladra_model_free(&m);
        return EXIT_USAGE;
    }
    clarity_report_ladra_cv_header(stdout);
    int rc = EXIT_OK;
    for (int mode = 0; mode < 2; mode++) {
        struct ladra_cv_result r;
        if (clarity_ladra_cv(&m, mode == 1, (size_t)splits, (uint64_t)seed, min_cause, &r, &err)) {
            fprintf(stderr, "clarity anomalies cv: %s\n", err.msg);
            rc = EXIT_INPUT;
            break;
        }
        clarity_report_ladra_cv_text(stdout, mode == 1, min_cause, &r);
    }
    clarity_ladra_model_free(&m);
    return rc;
}

/* --reference: one application, loaded whole (a second one would leave which run is the
 * reference to chance). Returns EXIT_OK, or the exit code with the problem printed. */
static int load_reference(const char *path, bool quiet, struct clarity_app_set *set)
{
    struct clarity_load_options lo = lean_load_options(quiet);
    int rc = load_set("anomalies", &path, 1, quiet, &lo, set);
    if (rc == EXIT_OK && (set->n - set->nfailed != 1 || !set->apps[0].app)) {
        fprintf(stderr, "clarity anomalies: %s: --reference needs one application, it holds %zu\n", path, set->n);
        rc = EXIT_USAGE;
    }
    if (rc != EXIT_OK) clarity_app_set_free(set);
    return rc;
}

struct anomalies_ctx {
    const struct clarity_anomalies_options *o;
    size_t limit, width;
};

static int anomalies_one(void *ctx, const struct clarity_app *a, FILE *text, struct jsonw *json,
                         struct clarity_error *err)
{
    const struct anomalies_ctx *ac = ctx;
    struct clarity_anomalies_result r;
    int rc = clarity_anomalies_analyze(a, ac->o, &r, err);
    if (rc) return rc;
    rc = json ? clarity_report_anomalies_json(json, a, &r, ac->o->logs, err)
              : clarity_report_anomalies_text(text, a, &r, ac->o->logs, ac->limit, ac->width, err);
    clarity_anomalies_free(&r);
    return rc;
}

int cmd_anomalies(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "train")) return train(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "cv")) return cv(argc - 1, argv + 1);
    static const struct option opts[] = {
        {"json", no_argument, 0, OPT_JSON}, {"compact", no_argument, 0, OPT_COMPACT}, {"executor-logs", required_argument, 0, 'E'},
        {"gc-logs", required_argument, 0, 'G'}, {"model", required_argument, 0, 'M'}, {"rules", no_argument, 0, 'R'},
        {"features", required_argument, 0, 'F'}, {"min-cause", required_argument, 0, 'm'},
        {"no-softmax", no_argument, 0, 'S'}, {"sample-std", no_argument, 0, 's'}, {"strict-edges", no_argument, 0, 'e'},
        {"no-skew-filter", no_argument, 0, 'k'}, {"min-period-tasks", required_argument, 0, 'P'}, {"clock-offset", required_argument, 0, 'C'},
        {"limit", required_argument, 0, 'l'}, {"wide", no_argument, 0, OPT_WIDE}, {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
        {"min-share", required_argument, 0, 'x'}, {"min-excess", required_argument, 0, 'X'},
        {"all-periods", no_argument, 0, 'A'}, {"cause-without-period", no_argument, 0, 'W'},
        {"no-cause-without-period", no_argument, 0, OPT_NO_CWP},
        {"no-host-scan", no_argument, 0, 'N'}, {"no-fetch-scan", no_argument, 0, 'B'},
        {"host-scan-stage-hosts", required_argument, 0, 'H'}, {"reference", required_argument, 0, OPT_REFERENCE},
        {0, 0, 0, 0}};
    static const struct opt_choice feature_sets[] = {
        {"extended", LADRA_FEATURES_EXTENDED, false}, {"paper", LADRA_FEATURES_PAPER, false}, {0}};
    struct common_opts co = {.cmd = "anomalies"};
    const char *exdir = NULL, *gcdir = NULL, *model_path = NULL, *ref_path = NULL;
    long long clock = 0, v;
    size_t limit = 30;
    struct clarity_anomalies_options o = {.method = LADRA_METHOD_GRNN, .softmax = true,
                                          .min_cause = LADRA_DEFAULT_MIN_CAUSE, .cause_without_period = true};
    clarity_ladra_options_default(&o.det);
    int c;
    char *end;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        if (common_option(&co, c, optarg)) continue;
        switch (c) {
        case 'E': exdir = optarg; break;
        case 'G': gcdir = optarg; break;
        case 'M': model_path = optarg; break;
        case 'R': o.method = LADRA_METHOD_RULES; break;
        case 'F':
            if (!opt_choice(co.cmd, "features", optarg, feature_sets, &o.features)) return EXIT_USAGE;
            break;
        case 'S': o.softmax = false; break;
        case 'm':
            if (parse_min_cause(optarg, &o.min_cause)) return EXIT_USAGE;
            break;
        case 's': o.det.sample_std = true; break;
        case 'e': o.det.strict_edges = true; break;
        case 'k': o.det.skew_filter = false; break;
        case 'P':
            if (!opt_int_range(co.cmd, "min-period-tasks", optarg, 1, 1000, &v)) return EXIT_USAGE;
            o.det.min_period_tasks = (int)v;
            break;
        case 'x':
        case 'X': {
            double d = strtod(optarg, &end);
            if (!*optarg || *end || !(d >= 0) || (c == 'x' && d > 1) || !(d < 1e9)) {
                fprintf(stderr, "clarity anomalies: --%s needs %s, not '%s'\n", c == 'x' ? "min-share" : "min-excess",
                        c == 'x' ? "a share from 0 to 1" : "milliseconds, 0 or more", optarg);
                return EXIT_USAGE;
            }
            if (c == 'x') o.det.min_share = d;
            else o.det.min_excess_ms = d;
            break;
        }
        case 'A': o.det.all_periods = true; break;
        case 'W': o.cause_without_period = true; break;
        case OPT_NO_CWP: o.cause_without_period = false; break;
        case 'N': o.det.host.off = true; break;
        case 'B': o.det.net.off = true; break;
        case OPT_REFERENCE: ref_path = optarg; break;
        case 'H':
            if (!opt_int_range(co.cmd, "host-scan-stage-hosts", optarg, 2, 1000, &v)) return EXIT_USAGE;
            o.det.host.stage_hosts = (int)v;
            break;
        case 'C':
            clock = strtoll(optarg, &end, 10);
            if (!*optarg || *end) {
                fprintf(stderr, "clarity anomalies: --clock-offset needs whole milliseconds, not '%s'\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'l':
            if (!opt_count(co.cmd, "limit", optarg, &limit)) return EXIT_USAGE;
            break;
        case 'h': help(stdout); return EXIT_OK;
        default: return bad_option("anomalies", argv, "o:qh");
        }
    }
    if (no_logs_given(co.cmd, optind, argc, help)) return EXIT_USAGE;
    struct ladra_model model = {0};
    char mp[PATH_MAX + 64];
    struct clarity_error err = {0};
    char eb[1200];
    if (o.method == LADRA_METHOD_GRNN) {
        if (model_path || ladra_default_model(mp, sizeof mp)) {
            const char *path = model_path ? model_path : mp;
            if (clarity_ladra_model_load(&model, path, &err)) {
                fprintf(stderr, "clarity anomalies: %s\n", clarity_error_format(&err, eb, sizeof eb));
                return EXIT_USAGE;
            }
            o.model = &model;
            if (o.features == LADRA_FEATURES_EXTENDED && model.nfeat < LADRA_NFEAT) {
                fprintf(stderr, "clarity anomalies: %s has only the paper's seven factors (a /1 file): use --features "
                                "paper or retrain it\n", path);
                clarity_ladra_model_free(&model);
                return EXIT_USAGE;
            }
        } else if (!co.quiet)
            fprintf(stderr, "clarity anomalies: no GRNN model found (--model FILE); using the weighted rules\n");
    }
    struct clarity_logs L;
    bool have_logs = exdir || gcdir;
    if (have_logs) {
        int rc = ladra_read_logs("anomalies", &L, exdir, gcdir, clock, co.quiet);
        if (rc) {
            clarity_logs_free(&L);
            clarity_ladra_model_free(&model);
            return rc;
        }
        o.logs = &L;
    }
    struct clarity_app_set refset = {0};
    if (ref_path) {
        int rc = load_reference(ref_path, co.quiet, &refset);
        if (rc) {
            if (have_logs) clarity_logs_free(&L);
            clarity_ladra_model_free(&model);
            return rc;
        }
        o.reference = refset.apps[0].app, o.reference_name = ref_path;
    }
    struct anomalies_ctx ac = {.o = &o, .limit = limit, .width = out_width(&co)};
    struct per_app_cmd pc = {.schema = "clarity.anomalies/1", .out = &co, .one = anomalies_one, .ctx = &ac};
    int rc = run_per_app(&pc, argv + optind, (size_t)(argc - optind));
    if (ref_path) clarity_app_set_free(&refset);
    if (have_logs) clarity_logs_free(&L);
    clarity_ladra_model_free(&model);
    return rc;
}
