/* clarity predict: PERIDOT from two or more small reference runs. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/common/predict_args.h"
#include "clarity/report.h"
#include "util/jsonw.h"

#define MAXT 256

static void help(FILE *o)
{
    fprintf(o,
            "usage: clarity predict --ref LOG --ref LOG [options]\n\n"
            "PERIDOT (Shah et al.): predicts the application's time at a new data size and core count\n"
            "from two (or more) small runs of it. Stages submitted together form groups; groups whose\n"
            "task count grows with the data take ceil(tasks / cores) waves of their mean wave time; the\n"
            "rest is a fixed time. Works on logs with only job and stage events.\n\n"
            "options:\n"
            "  --ref LOG              a reference run (at least two; repeat the option)\n"
            "  --ref-size S[,S...]    the references' data sizes, in order (default: each log's largest\n"
            "                         stage input in bytes). Units k, M, G, T (decimal: 10G = 10^10),\n"
            "                         Ki, Mi, Gi, Ti (binary: 10Gi = 10 x 2^30) or none: only ratios\n"
            "                         matter, but targets must use the same unit\n"
            "  --ref-cores E[,E...]   the references' task slots (default: executor cores in the log)\n"
            "  --data-size LIST       target data sizes, e.g. 100G or 10G,50G,100G (default: the\n"
            "                         largest reference's)\n"
            "  --cores LIST           target cores, e.g. 40 or 10,20,40 (default: the references')\n"
            "                         every size x cores pair is predicted\n"
            "  --actual LOG           compare with a real run: its size and cores are the target\n"
            "                         unless --data-size / --cores say otherwise\n"
            "  --fixed-groups MODE    auto (default): groups whose partition count is fixed while the\n"
            "                         data grows are scaled by data per task (beyond the paper);\n"
            "                         constant: the paper's model; data: scale every fixed group\n"
            "  --scale-fixed          also give fixed groups ceil(tasks / cores) waves\n"
            "  --peridot-only         answer with PERIDOT's model alone (default with --fixed-groups\n"
            "                         auto: combined with a per-group affine fit, beyond the paper:\n"
            "                         with 2 refs their mean, or the affine fit alone when the time\n"
            "                         grew faster than data^1.25; with 3+ both weighted by their\n"
            "                         error on the largest ref predicted from the others); the\n"
            "                         interval is always given\n"
            "  --grouping MODE        overlap (default: submitted before any member completed) or\n"
            "                         tolerance (submitted within --delta ms of the group's first)\n"
            "  --delta MS             tolerance for --grouping tolerance (default 50)\n"
            "  --detail               the per-group breakdown at every target, not only the first\n"
            "  --limit N              stage groups listed per breakdown in text (default 20, in the\n"
            "                         order they ran; the prediction counts them all; 0 = all)\n"
            "  --wide                 text tables as wide as their values (default: they fit COLUMNS,\n"
            "                         the terminal, or 100 columns)\n"
            "  --json                 machine-readable output (clarity.predict/1, docs/predict-json.md)\n"
            "  -o FILE                write to FILE instead of standard output\n"
            "  -q, --quiet            no notes on stderr\n"
            "  -h, --help             this help\n\n"
            "exit codes: 0 ok, 2 usage (including missing sizes or cores), 3 unreadable log or\n"
            "references that do not run the same stages, 5 out of memory\n");
}

static struct clarity_app *load_one(const char *path, bool quiet, struct clarity_app_set *set)
{
    const char *p[1] = {path};
    struct clarity_load_options lean = lean_load_options(quiet);
    if (load_set("predict", p, 1, quiet, &lean, set) != EXIT_OK) return NULL;
    if (set->n != 1) {
        fprintf(stderr, "clarity predict: %s holds %zu applications; name one log\n", path, set->n);
        return NULL;
    }
    return set->apps[0].app;
}

struct popts {
    const char *refs[PERIDOT_MAX_REFS]; int nrefs;
    double ref_size[PERIDOT_MAX_REFS]; int nref_size;
    double ref_cores[PERIDOT_MAX_REFS]; int nref_cores;
    double sizes[MAXT]; int nsizes;
    double cores[MAXT]; int ncores;
    bool units;
    struct common_opts co;
    const char *actual;
    bool detail;
    size_t limit;
    struct peridot_options po;
};

static int usage_err(const char *msg, const char *arg)
{
    fprintf(stderr, "clarity predict: %s%s%s%s\n", msg, arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
    return EXIT_USAGE;
}

static int parse(int argc, char **argv, struct popts *o)
{
    static const struct opt_choice fixed[] = {
        {"auto", PERIDOT_FIXED_AUTO, false}, {"constant", PERIDOT_FIXED_CONSTANT, false}, {"data", PERIDOT_FIXED_DATA, false}, {0}};
    static const struct opt_choice grouping[] = {
        {"overlap", PERIDOT_GROUP_OVERLAP, false}, {"tolerance", PERIDOT_GROUP_TOLERANCE, false}, {0}};
    static const struct option opts[] = {
        {"ref", required_argument, 0, 'r'}, {"ref-size", required_argument, 0, 'S'},
        {"ref-cores", required_argument, 0, 'C'}, {"data-size", required_argument, 0, 's'},
        {"cores", required_argument, 0, 'c'}, {"actual", required_argument, 0, 'a'},
        {"fixed-groups", required_argument, 0, 'f'}, {"scale-fixed", no_argument, 0, 'F'},
        {"peridot-only", no_argument, 0, 'P'},
        {"grouping", required_argument, 0, 'g'}, {"delta", required_argument, 0, 'd'},
        {"detail", no_argument, 0, 'D'}, {"limit", required_argument, 0, 'l'}, {"wide", no_argument, 0, OPT_WIDE},
        {"json", no_argument, 0, OPT_JSON}, {"compact", no_argument, 0, OPT_COMPACT},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    clarity_peridot_options_default(&o->po);
    int c, n, v;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        if (common_option(&o->co, c, optarg)) continue;
        switch (c) {
        case 'r':
            if (o->nrefs == PERIDOT_MAX_REFS) return usage_err("too many --ref (at most 8)", NULL);
            o->refs[o->nrefs++] = optarg;
            break;
        case 'S':
            if ((n = parse_size_list(optarg, o->ref_size + o->nref_size, PERIDOT_MAX_REFS - o->nref_size, &o->units)) < 0)
                return usage_err("--ref-size needs positive sizes like 1G or 1,2, not", optarg);
            o->nref_size += n;
            break;
        case 'C':
            if ((n = parse_size_list(optarg, o->ref_cores + o->nref_cores, PERIDOT_MAX_REFS - o->nref_cores, NULL)) < 0)
                return usage_err("--ref-cores needs positive numbers, not", optarg);
            o->nref_cores += n;
            break;
        case 's':
            if ((n = parse_size_list(optarg, o->sizes + o->nsizes, MAXT - o->nsizes, &o->units)) < 0)
                return usage_err("--data-size needs positive sizes like 100G or 10G,50G, not", optarg);
            o->nsizes += n;
            break;
        case 'c':
            if ((n = parse_size_list(optarg, o->cores + o->ncores, MAXT - o->ncores, NULL)) < 0)
                return usage_err("--cores needs positive numbers, not", optarg);
            o->ncores += n;
            break;
        case 'a': o->actual = optarg; break;
        case 'f':
            if (!opt_choice(o->co.cmd, "fixed-groups", optarg, fixed, &v)) return EXIT_USAGE;
            o->po.fixed = v;
            break;
        case 'F': o->po.scale_fixed = true; break;
        case 'P': o->po.no_combine = true; break;
        case 'g':
            if (!opt_choice(o->co.cmd, "grouping", optarg, grouping, &v)) return EXIT_USAGE;
            o->po.grouping = v;
            break;
        case 'd': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 0) return usage_err("--delta needs milliseconds >= 0, not", optarg);
            o->po.delta_ms = v;
            break;
        }
        case 'D': o->detail = true; break;
        case 'l':
            if (!opt_count(o->co.cmd, "limit", optarg, &o->limit)) return EXIT_USAGE;
            break;
        case 'h': help(stdout); return -1;
        default: return bad_option("predict", argv, "o:qh");
        }
    }
    if (optind < argc) return usage_err("unexpected argument (name references with --ref):", argv[optind]);
    if (o->nrefs < 2) {
        fprintf(stderr, "clarity predict: PERIDOT needs at least two --ref runs; see clarity predict --help\n");
        return EXIT_USAGE;
    }
    if (o->nref_size && o->nref_size != o->nrefs) return usage_err("--ref-size needs one size per --ref", NULL);
    if (o->nref_cores > 1 && o->nref_cores != o->nrefs) return usage_err("--ref-cores needs one value, or one per --ref", NULL);
    if (o->actual && (o->nsizes > 1 || o->ncores > 1)) return usage_err("--actual compares one target: give at most one size and one core count", NULL);
    return EXIT_OK;
}

int cmd_predict(int argc, char **argv)
{
    struct popts o = {.co = {.cmd = "predict"}, .limit = 20};
    int rc = parse(argc, argv, &o);
    if (rc == -1) return EXIT_OK;
    if (rc != EXIT_OK) return rc;

    struct clarity_app_set sets[PERIDOT_MAX_REFS + 1] = {0};
    struct peridot_ref refs[PERIDOT_MAX_REFS] = {0};
    struct peridot_model model = {0};
    struct peridot_prediction preds[MAXT] = {0};
    size_t npreds = 0;
    struct clarity_error err = {0};
    char buf[1200];
    double actual_ms = 0;
    int nloaded = 0;
    rc = EXIT_OK;
    for (int i = 0; i < o.nrefs && rc == EXIT_OK; i++) {
        struct clarity_app *a = load_one(o.refs[i], o.co.quiet, &sets[i]);
        nloaded = i + 1;
        if (!a) { rc = EXIT_INPUT; break; }
        if (clarity_peridot_ref_from_app(a, &refs[i], &err) != CLARITY_OK) {
            fprintf(stderr, "clarity predict: %s\n", clarity_error_format(&err, buf, sizeof buf));
            rc = EXIT_INPUT;
            break;
        }
        refs[i].label = o.refs[i];
        if (o.nref_size) { refs[i].data_size = o.ref_size[i]; refs[i].size_from = PERIDOT_FROM_USER; }
        if (o.nref_cores) { refs[i].cores = o.ref_cores[o.nref_cores > 1 ? i : 0]; refs[i].cores_from = PERIDOT_FROM_USER; }
    }
    if (rc == EXIT_OK && clarity_peridot_fit(refs, (size_t)o.nrefs, &o.po, &model, &err) != CLARITY_OK) {
        fprintf(stderr, "clarity predict: %s\n", clarity_error_format(&err, buf, sizeof buf));
        rc = err.code == CLARITY_EUSAGE ? EXIT_USAGE : exit_for_error(err.code);
    }
    if (rc == EXIT_OK && o.actual) {
        struct clarity_app *a = load_one(o.actual, o.co.quiet, &sets[PERIDOT_MAX_REFS]);
        struct peridot_ref act = {0};
        if (!a || clarity_peridot_ref_from_app(a, &act, &err) != CLARITY_OK) {
            if (a) fprintf(stderr, "clarity predict: %s\n", clarity_error_format(&err, buf, sizeof buf));
            rc = a ? exit_for_error(err.code) : EXIT_INPUT;
        } else {
            actual_ms = (double)act.total_ms;
            if (!o.nsizes) {
                if (act.size_from != PERIDOT_FROM_LOG || o.nref_size)
                    rc = usage_err("--actual: give its --data-size (its log has no input bytes, or the reference sizes were given)", NULL);
                else o.sizes[o.nsizes++] = act.data_size;
            }
            /* without executors in its log, the run is taken at the references' cores (below) */
            if (!o.ncores && act.cores_from == PERIDOT_FROM_LOG && !o.nref_cores) o.cores[o.ncores++] = act.cores;
        }
        clarity_peridot_ref_free(&act);
    }
    if (rc == EXIT_OK) {
        if (!o.nsizes) {
            double mx = 0;
            for (size_t r = 0; r < model.nrefs; r++) mx = fmax(mx, model.data[r]);
            o.sizes[o.nsizes++] = mx;
        }
        if (!o.ncores) {
            bool same = true;
            for (size_t r = 1; r < model.nrefs; r++) same &= model.cores[r] == model.cores[0];
            if (!same) rc = usage_err("the references have different core counts: give --cores", NULL);
            else o.cores[o.ncores++] = model.cores[0];
        }
    }
    for (int s = 0; rc == EXIT_OK && s < o.nsizes; s++)
        for (int c = 0; c < o.ncores && npreds < MAXT; c++)
            if (clarity_peridot_predict(&model, o.sizes[s], o.cores[c], &preds[npreds++], &err)) {
                fprintf(stderr, "clarity predict: %s\n", err.msg);
                rc = exit_for_error(err.code);
            }
    if (rc == EXIT_OK) {
        bool bytes = o.units;
        for (int i = 0; i < o.nrefs; i++) bytes |= refs[i].size_from == PERIDOT_FROM_LOG;
        struct predict_report rep = {.refs = refs, .nrefs = (size_t)o.nrefs, .opt = &o.po, .model = &model,
                                     .preds = preds, .npreds = npreds, .sizes_in_bytes = bytes, .detail = o.detail,
                                     .limit = o.limit, .width = out_width(&o.co),
                                     .actual_source = o.actual, .actual_ms = actual_ms};
        FILE *out = open_output("predict", o.co.outpath);
        if (!out) rc = EXIT_USAGE;
        else {
            int wrc;
            if (o.co.json) {
                struct jsonw w;
                clarity_jsonw_init(&w, out, !o.co.compact);
                wrc = clarity_report_predict_json(&w, &rep, &err);
                clarity_jsonw_end(&w);
            } else wrc = clarity_report_predict_text(out, &rep, &err);
            if (close_output(out, "predict", o.co.outpath, wrc == 0) != EXIT_OK) rc = EXIT_INPUT;
            if (wrc) {
                fprintf(stderr, "clarity predict: %s\n", err.msg);
                rc = exit_for_error(err.code);
            }
        }
    }
    for (size_t k = 0; k < npreds; k++) clarity_peridot_prediction_free(&preds[k]);
    clarity_peridot_model_free(&model);
    for (int i = 0; i < nloaded; i++) clarity_peridot_ref_free(&refs[i]);
    for (int i = 0; i <= PERIDOT_MAX_REFS; i++) clarity_app_set_free(&sets[i]);
    return rc;
}
