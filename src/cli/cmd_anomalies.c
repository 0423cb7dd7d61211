#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/commands.h"
#include "cli/per_app.h"
#include "clarity/anomalies_report.h"
#include "event/json.h"

static void help(FILE *o)
{
    fprintf(o,
            "usage: clarity anomalies [options] <log|dir>...\n"
            "       clarity anomalies train -o MODEL [--note TEXT] [--sigma S] [--xsigma S] SYNTH_DIR...\n"
            "       clarity anomalies cv MODEL [--splits N] [--seed N] [--min-cause P]\n\n"
            "Abnormal tasks and their root cause (LADRA, Lu et al. FGCS 2019; spec 004): per stage, tasks\n"
            "slower than mean + 1.5 sd of their stage (first wave apart), smoothed over a width-5 window\n"
            "per host, grouped into periods (where: host, executor, stage; when: start, end), then the\n"
            "probability of each cause (cpu, memory, network, disk, normal) from seven factors through a\n"
            "GRNN (sigma 0.5) or the paper's weighted rules. Spark's speculation rule is shown beside it.\n"
            "Without --gc-logs, the GC-based factors are approximated from task metrics (and say so).\n\n"
            "options:\n"
            "  --executor-logs DIR   executor/driver log4j logs (<host>/<exec>/stderr, YARN aggregated, Spark 4 JSON)\n"
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
            "  --clock-offset MS     add MS to every executor/GC log time (node clock skew)\n"
            "  --limit N             periods in text output (default 30, 0 = all)\n"
            "  --json                machine-readable output (schema clarity.anomalies/1, docs/anomalies.md)\n"
            "  --compact             with --json: one line\n"
            "  -o FILE               write to FILE instead of standard output\n"
            "  -q, --quiet           no notes on stderr\n"
            "  -h, --help            this help\n\n"
            "train: reads `clarity synth` output directories (event log, executor and GC logs, truth.json),\n"
            "labels each run by its injected fault (normal when none delayed a task), computes the factors\n"
            "in both modes and writes them as a model file.\n"
            "cv: the paper's protocol (spec 5.5) on a model file's samples: N (100) random splits, 1/3 test\n"
            "and 2/3 train, per mode; precision and recall per class averaged, for the GRNN on the\n"
            "extended features (likeliest class, and the verdict with --min-cause), on the paper features\n"
            "and for the rules. Same seed, same numbers.\n\n"
            "exit codes: 0 ok, 2 usage, 3 no readable event log\n");
}

/* models/ladra-default.model beside the binary (build/ or bin/ one level down). */
static bool default_model(char *out, size_t cap)
{
    const char *env = getenv("CLARITY_LADRA_MODEL");
    if (env && *env) return snprintf(out, cap, "%s", env), true;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return false;
    exe[n] = 0;
    char *s = strrchr(exe, '/');
    if (!s) return false;
    *s = 0;
    static const char *const rel[] = {"/../models/ladra-default.model", "/../share/clarity/ladra-default.model",
                                      "/../../models/ladra-default.model"};
    for (int i = 0; i < 3; i++) {
        snprintf(out, cap, "%s%s", exe, rel[i]);
        if (!access(out, R_OK)) return true;
    }
    return false;
}

static int read_logs(struct clarity_logs *L, const char *ex, const char *gc, int64_t off, bool quiet)
{
    clarity_logs_init(L);
    L->clock_offset_ms = off;
    struct clarity_error err = {0};
    char eb[1200];
    if (ex && clarity_logs_read_dir(L, ex, false, &err)) {
        fprintf(stderr, "clarity anomalies: %s\n", clarity_error_format(&err, eb, sizeof eb));
        return EXIT_INPUT;
    }
    if (gc && clarity_logs_read_dir(L, gc, true, &err)) {
        fprintf(stderr, "clarity anomalies: %s\n", clarity_error_format(&err, eb, sizeof eb));
        return EXIT_INPUT;
    }
    clarity_logs_finish(L);
    if (!quiet && !L->gc_records && gc) fprintf(stderr, "clarity anomalies: no GC record found under %s\n", gc);
    return EXIT_OK;
}

/* ---- train ---- */
static int truth_label(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/truth.json", dir);
    FILE *f = fopen(p, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + CJ_PADDING);
    int label = -1;
    cj_parser *ps = cj_parser_new((size_t)n + 1);
    if (buf && ps && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        memset(buf + n, 0, CJ_PADDING);
        cj_val root, faults, fl;
        const char *why;
        if (!cj_parse(ps, buf, (size_t)n, &root, &why)) {
            label = LADRA_NORMAL;
            cj_iter it;
            if (cj_get(root, "faults", &faults) && cj_array_begin(faults, &it) && cj_array_next(&it, &fl)) {
                const char *k;
                size_t kl;
                int64_t affected = 0;
                cj_get_int(fl, "affected_tasks", &affected);
                if (affected > 0 && cj_get_str(fl, "kind", &k, &kl)) {
                    if (!strncmp(k, "cpu", 3)) label = LADRA_CPU;
                    else if (!strncmp(k, "memory", 6)) label = LADRA_MEMORY;
                    else if (!strncmp(k, "network", 7)) label = LADRA_NETWORK;
                    else if (!strncmp(k, "disk", 4)) label = LADRA_DISK;
                }
            }
        }
    }
    if (ps) cj_parser_free(ps);
    free(buf);
    fclose(f);
    return label;
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
        default: help(stderr); return EXIT_USAGE;
        }
    }
    if (!out || optind >= argc) {
        fprintf(stderr, "clarity anomalies train: needs -o MODEL and at least one synth output directory\n");
        return EXIT_USAGE;
    }
    struct ladra_model m = {.sigma = sigma, .zscore = zscore, .xsigma = xsigma, .nfeat = LADRA_NFEAT};
    snprintf(m.note, sizeof m.note, "%s", note);
    int rc = EXIT_OK;
    size_t count[LADRA_NCLASS] = {0};
    for (int i = optind; i < argc; i++) {
        int label = truth_label(argv[i]);
        if (label < 0) {
            fprintf(stderr, "clarity anomalies train: %s: no readable truth.json, skipped\n", argv[i]);
            continue;
        }
        char ev[4096], ex[4096], gc[4096];
        snprintf(ev, sizeof ev, "%s/eventlogs", argv[i]);
        snprintf(ex, sizeof ex, "%s/executor-logs", argv[i]);
        snprintf(gc, sizeof gc, "%s/gc", argv[i]);
        const char *paths[1] = {ev};
        struct loaded_set set;
        struct clarity_load_options lo = {.keep_task_accumulables = false, .skip_task_executor_metrics = true, .quiet = true};
        if (load_all_opts(paths, 1, true, &lo, &set) != EXIT_OK || !set.n || !set.apps[0].app) {
            loaded_set_free(&set);
            fprintf(stderr, "clarity anomalies train: %s: no event log, skipped\n", argv[i]);
            continue;
        }
        struct clarity_logs L;
        bool have_logs = !access(gc, R_OK) && read_logs(&L, access(ex, R_OK) ? NULL : ex, gc, 0, true) == EXIT_OK;
        for (int mode = 0; mode < 2; mode++) {
            bool elo = mode == 1;
            if (!elo && !have_logs) continue;
            struct clarity_anomalies_options o = {.logs = elo ? NULL : &L, .method = LADRA_METHOD_RULES};
            ladra_options_default(&o.det);
            struct clarity_anomalies_result r;
            if (clarity_anomalies_analyze(set.apps[0].app, &o, &r, NULL)) {
                rc = EXIT_INPUT;
                continue;
            }
            if (ladra_model_add(&m, r.run.f, label, elo, NULL)) rc = EXIT_INPUT;
            count[label] += !elo || !have_logs;
            clarity_anomalies_free(&r);
        }
        if (have_logs) clarity_logs_free(&L);
        loaded_set_free(&set);
    }
    struct clarity_error err = {0};
    char eb[1200];
    if (ladra_model_save(&m, out, &err)) {
        fprintf(stderr, "clarity anomalies train: %s\n", clarity_error_format(&err, eb, sizeof eb));
        rc = EXIT_USAGE;
    } else if (!quiet)
        fprintf(stderr, "model %s: %zu samples (normal %zu, cpu %zu, memory %zu, network %zu, disk %zu runs)\n", out, m.n,
                count[0], count[1], count[2], count[3], count[4]);
    ladra_model_free(&m);
    return rc;
}

/* ---- cv ---- */
static void cv_value(double v)
{
    if (v < 0) printf(" | -");
    else printf(" | %.2f", v);
}

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
        default: help(stderr); return EXIT_USAGE;
        }
    }
    if (optind + 1 != argc) {
        fprintf(stderr, "clarity anomalies cv: needs one model file (clarity anomalies train -o MODEL ...)\n");
        return EXIT_USAGE;
    }
    struct ladra_model m;
    struct clarity_error err = {0};
    char eb[1200];
    if (ladra_model_load(&m, argv[optind], &err)) {
        fprintf(stderr, "clarity anomalies cv: %s\n", clarity_error_format(&err, eb, sizeof eb));
        return EXIT_USAGE;
    }
    if (m.nfeat < LADRA_NFEAT) {
        fprintf(stderr, "clarity anomalies cv: %s has no extended features (a /1 file); retrain it\n", argv[optind]);
        ladra_model_free(&m);
        return EXIT_USAGE;
    }
    char confident[64];
    snprintf(confident, sizeof confident, "GRNN extended, min cause %g", min_cause);
    const char *const method[LADRA_CV_NMETHOD] = {"GRNN extended", confident, "GRNN paper", "rules"};
    printf("| mode | method | class | runs | P | recall |\n|---|---|---|---:|---:|---:|\n");
    int rc = EXIT_OK;
    for (int mode = 0; mode < 2 && !rc; mode++) {
        struct ladra_cv_result r;
        if (ladra_cv(&m, mode == 1, (size_t)splits, (uint64_t)seed, min_cause, &r, &err)) {
            fprintf(stderr, "clarity anomalies cv: %s\n", err.msg);
            rc = EXIT_INPUT;
            break;
        }
        if (!r.samples) continue;
        for (int me = 0; me < LADRA_CV_NMETHOD; me++)
            for (int k = 0; k < LADRA_NCLASS; k++) {
                int cl = (k + 1) % LADRA_NCLASS;   /* the four causes first, normal last */
                printf("| %s | %s | %s | %zu", mode ? "eventlog" : "logs", method[me], ladra_class_name(cl),
                       r.per_class[cl]);
                cv_value(r.precision[me][cl]);
                cv_value(r.recall[me][cl]);
                printf(" |\n");
            }
    }
    ladra_model_free(&m);
    return rc;
}

struct anomalies_ctx {
    const struct clarity_anomalies_options *o;
    size_t limit;
};

static int anomalies_one(void *ctx, const struct clarity_app *a, FILE *text, struct jsonw *json,
                         struct clarity_error *err)
{
    const struct anomalies_ctx *ac = ctx;
    struct clarity_anomalies_result r;
    int rc = clarity_anomalies_analyze(a, ac->o, &r, err);
    if (rc) return rc;
    rc = json ? report_anomalies_json(json, a, &r, ac->o->logs, err)
              : report_anomalies_text(text, a, &r, ac->o->logs, ac->limit, err);
    clarity_anomalies_free(&r);
    return rc;
}

int cmd_anomalies(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "train")) return train(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "cv")) return cv(argc - 1, argv + 1);
    static const struct option opts[] = {
        {"json", no_argument, 0, 'j'}, {"compact", no_argument, 0, 'c'}, {"executor-logs", required_argument, 0, 'E'},
        {"gc-logs", required_argument, 0, 'G'}, {"model", required_argument, 0, 'M'}, {"rules", no_argument, 0, 'R'},
        {"features", required_argument, 0, 'F'}, {"min-cause", required_argument, 0, 'm'},
        {"no-softmax", no_argument, 0, 'S'}, {"sample-std", no_argument, 0, 's'}, {"strict-edges", no_argument, 0, 'e'},
        {"no-skew-filter", no_argument, 0, 'k'}, {"min-period-tasks", required_argument, 0, 'P'}, {"clock-offset", required_argument, 0, 'C'},
        {"limit", required_argument, 0, 'l'}, {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    bool json = false, compact = false, quiet = false;
    const char *outpath = NULL, *exdir = NULL, *gcdir = NULL, *model_path = NULL;
    long long clock = 0, limit = 30;
    struct clarity_anomalies_options o = {.method = LADRA_METHOD_GRNN, .softmax = true,
                                          .min_cause = LADRA_DEFAULT_MIN_CAUSE};
    ladra_options_default(&o.det);
    int c;
    char *end;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'c': compact = true; break;
        case 'q': quiet = true; break;
        case 'o': outpath = optarg; break;
        case 'E': exdir = optarg; break;
        case 'G': gcdir = optarg; break;
        case 'M': model_path = optarg; break;
        case 'R': o.method = LADRA_METHOD_RULES; break;
        case 'F':
            if (!strcmp(optarg, "paper")) o.features = LADRA_FEATURES_PAPER;
            else if (!strcmp(optarg, "extended")) o.features = LADRA_FEATURES_EXTENDED;
            else {
                fprintf(stderr, "clarity anomalies: --features is extended or paper, not '%s'\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'S': o.softmax = false; break;
        case 'm':
            if (parse_min_cause(optarg, &o.min_cause)) return EXIT_USAGE;
            break;
        case 's': o.det.sample_std = true; break;
        case 'e': o.det.strict_edges = true; break;
        case 'k': o.det.skew_filter = false; break;
        case 'P': {
            long long v = strtoll(optarg, &end, 10);
            if (!*optarg || *end || v < 1 || v > 1000) {
                fprintf(stderr, "clarity anomalies: --min-period-tasks needs a whole number from 1 to 1000, not '%s'\n",
                        optarg);
                return EXIT_USAGE;
            }
            o.det.min_period_tasks = (int)v;
            break;
        }
        case 'C':
            clock = strtoll(optarg, &end, 10);
            if (!*optarg || *end) {
                fprintf(stderr, "clarity anomalies: --clock-offset needs whole milliseconds, not '%s'\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'l':
            limit = strtoll(optarg, &end, 10);
            if (!*optarg || *end || limit < 0) {
                fprintf(stderr, "clarity anomalies: --limit needs a whole number >= 0, not '%s'\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'h': help(stdout); return EXIT_OK;
        default: help(stderr); return EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "clarity anomalies: no event log given\n\n");
        help(stderr);
        return EXIT_USAGE;
    }
    struct ladra_model model = {0};
    char mp[PATH_MAX + 64];
    struct clarity_error err = {0};
    char eb[1200];
    if (o.method == LADRA_METHOD_GRNN) {
        if (model_path || default_model(mp, sizeof mp)) {
            const char *path = model_path ? model_path : mp;
            if (ladra_model_load(&model, path, &err)) {
                fprintf(stderr, "clarity anomalies: %s\n", clarity_error_format(&err, eb, sizeof eb));
                return EXIT_USAGE;
            }
            o.model = &model;
            if (o.features == LADRA_FEATURES_EXTENDED && model.nfeat < LADRA_NFEAT) {
                fprintf(stderr, "clarity anomalies: %s has only the paper's seven factors (a /1 file): use --features "
                                "paper or retrain it\n", path);
                ladra_model_free(&model);
                return EXIT_USAGE;
            }
        } else if (!quiet)
            fprintf(stderr, "clarity anomalies: no GRNN model found (--model FILE); using the weighted rules\n");
    }
    struct clarity_logs L;
    bool have_logs = exdir || gcdir;
    if (have_logs) {
        int rc = read_logs(&L, exdir, gcdir, clock, quiet);
        if (rc) {
            clarity_logs_free(&L);
            ladra_model_free(&model);
            return rc;
        }
        o.logs = &L;
    }
    struct anomalies_ctx ac = {.o = &o, .limit = (size_t)limit};
    struct per_app_cmd pc = {.name = "anomalies", .schema = "clarity.anomalies/1", .json = json, .compact = compact,
                             .quiet = quiet, .outpath = outpath, .one = anomalies_one, .ctx = &ac};
    int rc = run_per_app(&pc, argv + optind, (size_t)(argc - optind));
    if (have_logs) clarity_logs_free(&L);
    ladra_model_free(&model);
    return rc;
}
