/* clarity ernest design|fit|predict|choose: Ernest (NSDI'16) on event logs or a CSV. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/common/predict_args.h"
#include "clarity/model.h"
#include "analysis/predict/ernest_csv.h"
#include "analysis/predict/ernest_points.h"
#include "clarity/report.h"
#include "util/jsonw.h"

#define MAXT 256

static void help(FILE *o)
{
    fprintf(o,
            "usage: clarity ernest design [options]\n"
            "       clarity ernest fit LOG...|FILE.csv [options]\n"
            "       clarity ernest predict MODEL --machines LIST --scale LIST [--actual LOG]\n"
            "       clarity ernest choose MODEL --scale S --deadline T [--price-per-machine-hour P]\n\n"
            "Ernest (Venkataraman et al., NSDI'16): time(s, m) = t0 + t1 s/m + t2 log m + t3 m, t >= 0,\n"
            "fitted by non-negative least squares to a few small runs (s = data scale, m = machines).\n"
            "Every fit reports its training points and leave-one-out cross-validation error.\n"
            "MODEL is a model.json written by `fit -o`, a CSV, or event logs.\n\n"
            "design (which small runs to make; defaults as Ernest's reference code):\n"
            "  --machines A-B         machine counts to consider (default 1-16)\n"
            "  --scale A-B            data scales to consider, e.g. 0.01-0.1 (fractions of the input)\n"
            "  --parts A-B --total-parts N   scales as partition counts A..B of N, keeping only runs\n"
            "                         with at least one partition per core\n"
            "  --cores-per-machine C  for that filter (default 2)\n"
            "  --points N             scales between the ends (default 20)\n"
            "  --budget B             total cost, 1 = the smallest run on one machine (default 20)\n"
            "  --threshold L          run the candidates with weight > L (default 0.3)\n"
            "  --powers-of-two        machine counts 1, 2, 4, ... only\n"
            "  --no-normalize         do not divide features by the candidates' means\n"
            "fit:\n"
            "  CSV lines machines,scale,seconds ('#' comments and a header are skipped); or event logs:\n"
            "  machines = executor hosts (or --machines-per-log N), seconds = application time,\n"
            "  scale = the largest stage input / --full-size (default 1G: scale in GB)\n"
            "  --terms LIST           extra terms: sqrt(m), s^2/m, n*log(n)^2/m (with --rows N), s\n"
            "  --max-loo-error PCT    flag a poor fit above this median left-out error (default 10)\n"
            "predict:\n"
            "  --machines LIST --scale LIST   every pair is predicted\n"
            "  --actual LOG           compare with a real run (its machines and scale from the log\n"
            "                         unless one --machines and --scale are given)\n"
            "choose:\n"
            "  --scale S --deadline T (e.g. 30m, 1.5h, 90s; units ms, s, m, h)   fewest machines\n"
            "                         meeting the deadline\n"
            "  --price-per-machine-hour P   the cheapest instead; --hourly bills whole hours\n"
            "  --machines A-B         candidates (default 1-64)\n"
            "  --margin X             required headroom, e.g. 0.15 (default: the max LOOCV error)\n"
            "common:\n"
            "  --json                 clarity.ernest/1 (docs/ernest-json.md); --compact one line\n"
            "  -o FILE                write to FILE (fit -o model.json --json saves a model)\n"
            "  --limit N              training points listed in text (default 30, in input order; the\n"
            "                         fit and its LOOCV use them all; 0 = all)\n"
            "  --wide                 text as wide as its values (default: it fits COLUMNS, the\n"
            "                         terminal, or 100 columns)\n"
            "  -q, --quiet; -h, --help\n\n"
            "exit codes: 0 ok, 2 usage, 3 unreadable input or no usable training points, 5 out of memory\n");
}

#define ERNEST_MAX_MACHINES 1e6
#define ERNEST_MAX_SCALE 1e12

struct eopts {
    const char *sub;
    struct common_opts co;
    size_t limit;
    const char *actual;
    bool hourly, pow2, no_norm;
    const char *terms_list;
    double rows, full_size, loo_threshold, budget, threshold, total_parts, deadline, price, margin;
    int points, cores_per_machine, mlo, mhi, machines_per_log;
    bool have_mrange, have_srange, have_parts;
    double slo, shi, plo, phi;
    double mlist[MAXT]; int nm;
    double slist[MAXT]; int ns;
};

static int usage_err(const char *msg, const char *arg)
{
    fprintf(stderr, "clarity ernest: %s%s%s%s\n", msg, arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
    return EXIT_USAGE;
}

static int parse(int argc, char **argv, struct eopts *o)
{
    static const struct option opts[] = {
        {"machines", required_argument, 0, 'm'}, {"scale", required_argument, 0, 's'},
        {"parts", required_argument, 0, 'P'}, {"total-parts", required_argument, 0, 'T'},
        {"cores-per-machine", required_argument, 0, 'C'}, {"points", required_argument, 0, 'n'},
        {"budget", required_argument, 0, 'b'}, {"threshold", required_argument, 0, 't'},
        {"powers-of-two", no_argument, 0, '2'}, {"no-normalize", no_argument, 0, 'N'},
        {"terms", required_argument, 0, 'x'}, {"rows", required_argument, 0, 'R'},
        {"full-size", required_argument, 0, 'F'}, {"machines-per-log", required_argument, 0, 'M'},
        {"max-loo-error", required_argument, 0, 'L'}, {"actual", required_argument, 0, 'a'},
        {"deadline", required_argument, 0, 'd'}, {"price-per-machine-hour", required_argument, 0, 'p'},
        {"hourly", no_argument, 0, 'H'}, {"margin", required_argument, 0, 'g'},
        {"json", no_argument, 0, OPT_JSON}, {"compact", no_argument, 0, OPT_COMPACT}, {"quiet", no_argument, 0, 'q'},
        {"limit", required_argument, 0, 'l'}, {"wide", no_argument, 0, OPT_WIDE}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    o->full_size = 1e9;
    o->limit = 30;
    o->loo_threshold = 10;
    o->budget = 20;
    o->threshold = 0.3;
    o->points = 20;
    o->cores_per_machine = 2;
    o->margin = -1;
    int c, n;
    double v;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        if (common_option(&o->co, c, optarg)) continue;
        switch (c) {
        case 'm':
            if (parse_int_range(optarg, &o->mlo, &o->mhi) && !strchr(optarg, ',')) o->have_mrange = true;
            if ((n = parse_size_list(optarg, o->mlist, MAXT, NULL)) > 0) o->nm = n;
            else if (!o->have_mrange) return usage_err("--machines needs a range like 1-64 or a list like 8,16,32, not", optarg);
            /* Past these the model's terms overflow or lose every digit (1e308 scale printed
             * "xinf"); no cluster or input is that large, so such a value is a typo. */
            if (o->have_mrange && o->mhi > ERNEST_MAX_MACHINES)
                return usage_err("--machines: at most 1000000 machines, not", optarg);
            for (int k = 0; k < o->nm; k++)
                if (!(o->mlist[k] <= ERNEST_MAX_MACHINES))
                    return usage_err("--machines: at most 1000000 machines, not", optarg);
            break;
        case 's':
            if (parse_real_range(optarg, &o->slo, &o->shi) && !strchr(optarg, ',')) o->have_srange = true;
            if ((n = parse_size_list(optarg, o->slist, MAXT, NULL)) > 0) o->ns = n;
            else if (!o->have_srange) return usage_err("--scale needs a range like 0.01-0.1 or a list like 0.5,1, not", optarg);
            for (int k = 0; k < o->ns; k++)
                if (!(o->slist[k] <= ERNEST_MAX_SCALE)) return usage_err("--scale: at most 1e12, not", optarg);
            if (o->have_srange && !(o->shi <= ERNEST_MAX_SCALE)) return usage_err("--scale: at most 1e12, not", optarg);
            break;
        case 'P':
            if (!parse_real_range(optarg, &o->plo, &o->phi)) return usage_err("--parts needs a range like 4-32, not", optarg);
            o->have_parts = true;
            break;
        case 'T': if (!parse_size(optarg, &o->total_parts, NULL)) return usage_err("--total-parts needs a positive number, not", optarg); break;
        case 'C': if (!parse_size(optarg, &v, NULL)) return usage_err("--cores-per-machine needs a positive number, not", optarg);
            o->cores_per_machine = (int)v; break;
        case 'n': if (!parse_size(optarg, &v, NULL) || v > 10000) return usage_err("--points needs a positive number, not", optarg);
            o->points = (int)v; break;
        case 'b': if (!parse_size(optarg, &o->budget, NULL)) return usage_err("--budget needs a positive number, not", optarg); break;
        case 't': {
            char *end;
            o->threshold = strtod(optarg, &end);
            if (*end || o->threshold < 0 || o->threshold >= 1) return usage_err("--threshold needs a number in [0, 1), not", optarg);
            break;
        }
        case '2': o->pow2 = true; break;
        case 'N': o->no_norm = true; break;
        case 'x': o->terms_list = optarg; break;
        case 'R': if (!parse_size(optarg, &o->rows, NULL)) return usage_err("--rows needs a positive number, not", optarg); break;
        case 'F': if (!parse_size(optarg, &o->full_size, NULL)) return usage_err("--full-size needs a size like 100G, not", optarg); break;
        case 'M': if (!parse_size(optarg, &v, NULL)) return usage_err("--machines-per-log needs a positive number, not", optarg);
            o->machines_per_log = (int)v; break;
        case 'L': if (!parse_size(optarg, &o->loo_threshold, NULL)) return usage_err("--max-loo-error needs a percentage, not", optarg); break;
        case 'a': o->actual = optarg; break;
        case 'l':
            if (!opt_count(o->co.cmd, "limit", optarg, &o->limit)) return EXIT_USAGE;
            break;
        case 'd': if (!parse_duration_s(optarg, &o->deadline)) return usage_err("--deadline needs a duration like 30m, 2h, 90s, not", optarg); break;
        case 'p': if (!parse_size(optarg, &o->price, NULL)) return usage_err("--price-per-machine-hour needs a positive number, not", optarg); break;
        case 'H': o->hourly = true; break;
        case 'g': {
            char *end;
            o->margin = strtod(optarg, &end);
            if (*end || o->margin < 0) return usage_err("--margin needs a number >= 0 (0.15 = 15%), not", optarg);
            break;
        }
        case 'h': help(stdout); return -1;
        default: return bad_option("ernest", argv, "o:qh");
        }
    }
    return EXIT_OK;
}

static bool ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

/* One training point per application of each log (loaded one path after another). */
static int points_from_logs(char **paths, int n, const struct eopts *o, struct ernest_point **pts, size_t *np)
{
    *pts = calloc((size_t)n, sizeof **pts);
    *np = 0;
    if (!*pts) return EXIT_INPUT;
    for (int i = 0; i < n; i++) {
        struct clarity_app_set set;
        const char *p[1] = {paths[i]};
        int rc = load_set("ernest", p, 1, o->co.quiet, NULL, &set);
        for (size_t k = 0; rc == EXIT_OK && k < set.n; k++) {
            struct clarity_app *a = set.apps[k].app;
            if (!a) continue;
            struct ernest_point pt;
            struct clarity_error err = {0};
            int missing;
            int prc = clarity_ernest_point_from_app(a, o->full_size, o->machines_per_log, &pt, &missing, &err);
            if (prc == CLARITY_ENOTFOUND)
                fprintf(stderr, "clarity ernest: %s: %s; use a CSV of machines,scale,seconds%s\n", a->source_path, err.msg,
                        missing & CLARITY_ERNEST_NO_HOSTS ? " or --machines-per-log" : "");
            if (prc != CLARITY_OK) continue;
            if (*np == (size_t)n) { void *q = realloc(*pts, (*np + 16) * sizeof **pts); if (!q) break; *pts = q; }
            (*pts)[(*np)++] = pt;
        }
        clarity_app_set_free(&set);
    }
    return *np ? EXIT_OK : EXIT_INPUT;
}

static int load_points(char **paths, int n, const struct eopts *o, struct ernest_point **pts, size_t *np,
                       struct ernest_terms *terms, const char **unit, char *unitbuf, size_t unitcap)
{
    clarity_ernest_terms_default(terms);
    *pts = NULL;
    *np = 0;
    struct clarity_error err = {0};
    if (n == 1 && clarity_ernest_is_model_file(paths[0])) {
        if (clarity_ernest_model_read(paths[0], pts, np, terms, unitbuf, unitcap, &err) != CLARITY_OK) {
            fprintf(stderr, "clarity ernest: %s: %s\n", paths[0], err.msg);
            return EXIT_INPUT;
        }
        if (unitbuf[0]) *unit = unitbuf;
        return EXIT_OK;
    }
    if (n == 1 && ends_with(paths[0], ".csv")) {
        char buf[1200];
        if (clarity_ernest_csv_read(paths[0], pts, np, &err) != CLARITY_OK) {
            fprintf(stderr, "clarity ernest: %s\n", clarity_error_format(&err, buf, sizeof buf));
            return EXIT_INPUT;
        }
        *unit = "as in the CSV";
        return EXIT_OK;
    }
    snprintf(unitbuf, unitcap, o->full_size == 1e9 ? "GB of input (largest stage input / 1e9)" : "fraction of --full-size %.6g bytes",
             o->full_size);
    *unit = unitbuf;
    return points_from_logs(paths, n, o, pts, np);
}

static int emit(const struct eopts *o, const struct ernest_report *rep)
{
    FILE *out = open_output("ernest", o->co.outpath);
    if (!out) return EXIT_USAGE;
    struct clarity_error err = {0};
    int rc;
    if (o->co.json) {
        struct jsonw w;
        clarity_jsonw_init(&w, out, !o->co.compact);
        rc = clarity_report_ernest_json(&w, rep, &err);
        clarity_jsonw_end(&w);
    } else {
        struct ernest_report fitted = *rep;
        fitted.limit = o->limit;
        fitted.width = out_width(&o->co);
        rc = clarity_report_ernest_text(out, &fitted, &err);
    }
    int crc = close_output(out, "ernest", o->co.outpath, rc == 0);
    if (rc) fprintf(stderr, "clarity ernest: %s\n", err.msg);
    return rc ? EXIT_INPUT : crc;
}

static int run_design(const struct eopts *o)
{
    struct ernest_design_options d;
    clarity_ernest_design_defaults(&d);
    if (o->have_parts) {
        if (!(o->total_parts > 0)) return usage_err("--parts needs --total-parts", NULL);
        d.scale_min = o->plo / o->total_parts;
        d.scale_max = o->phi / o->total_parts;
    } else if (o->have_srange) {
        d.scale_min = o->slo;
        d.scale_max = o->shi;
    } else return usage_err("design needs --scale A-B (or --parts A-B --total-parts N)", NULL);
    if (o->have_mrange) { d.machines_min = o->mlo; d.machines_max = o->mhi; }
    d.total_parts = o->total_parts;
    d.cores_per_machine = o->cores_per_machine;
    d.points = o->points;
    d.budget = o->budget;
    d.threshold = o->threshold;
    d.powers_of_two = o->pow2;
    d.no_normalize = o->no_norm;
    d.terms.rows = o->rows;
    struct clarity_error err = {0};
    if (o->terms_list && clarity_ernest_terms_add(&d.terms, o->terms_list, &err))
        return usage_err("unknown term in --terms:", o->terms_list + err.offset);
    struct ernest_design res;
    if (clarity_ernest_design_run(&d, &res, &err)) {
        fprintf(stderr, "clarity ernest design: %s\n", err.msg);
        return EXIT_USAGE;
    }
    struct ernest_report rep = {.command = "design", .design = &res, .design_opt = &d};
    int rc = emit(o, &rep);
    clarity_ernest_design_free(&res);
    return rc;
}

static int actual_point(const struct eopts *o, struct ernest_point *pt)
{
    char *p[1] = {(char *)o->actual};
    struct ernest_point *pts = NULL;
    size_t n = 0;
    int rc = EXIT_OK;
    if (o->nm == 1 && o->ns == 1) {
        /* the target is given; the log only gives the time */
        struct clarity_app_set set;
        const char *q[1] = {o->actual};
        rc = load_set("ernest", q, 1, o->co.quiet, NULL, &set);
        if (rc == EXIT_OK && set.n == 1 && set.apps[0].app) {
            int64_t ms = clarity_app_duration_ms(set.apps[0].app);
            *pt = (struct ernest_point){o->mlist[0], o->slist[0], (double)ms / 1000};
        } else rc = EXIT_INPUT;
        clarity_app_set_free(&set);
        return rc;
    }
    rc = points_from_logs(p, 1, o, &pts, &n);
    if (rc == EXIT_OK) *pt = pts[0];
    free(pts);
    return rc;
}

int cmd_ernest(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        help(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    struct eopts o = {.sub = argv[1], .co = {.cmd = "ernest"}};
    int rc = parse(argc - 1, argv + 1, &o);
    if (rc == -1) return EXIT_OK;
    if (rc != EXIT_OK) return rc;
    char **rest = argv + 1 + optind;
    int nrest = argc - 1 - optind;
    if (!strcmp(o.sub, "design")) {
        if (nrest) return usage_err("design takes no files:", rest[0]);
        return run_design(&o);
    }
    bool fit = !strcmp(o.sub, "fit"), predict = !strcmp(o.sub, "predict"), choose = !strcmp(o.sub, "choose");
    if (!fit && !predict && !choose) {
        fprintf(stderr, "clarity ernest: unknown subcommand '%s' (design, fit, predict, choose); see clarity ernest --help\n",
                o.sub);
        return EXIT_USAGE;
    }
    if (!nrest) return usage_err(fit ? "fit needs event logs or a CSV" : "needs a model (model.json, a CSV or logs)", NULL);
    if (predict && !o.actual && (!o.nm || !o.ns)) return usage_err("predict needs --machines LIST and --scale LIST", NULL);
    if (choose && (o.ns != 1 || !(o.deadline > 0))) return usage_err("choose needs one --scale and --deadline", NULL);
    struct ernest_point *pts = NULL;
    size_t np = 0;
    struct ernest_terms terms;
    const char *unit = "fraction of the full input";
    char unitbuf[128];
    rc = load_points(rest, nrest, &o, &pts, &np, &terms, &unit, unitbuf, sizeof unitbuf);
    if (rc != EXIT_OK) {
        if (!np && rc == EXIT_INPUT) fprintf(stderr, "clarity ernest: no usable training points\n");
        free(pts);
        return rc;
    }
    terms.rows = o.rows > 0 ? o.rows : terms.rows;
    struct clarity_error err = {0};
    if (o.terms_list && clarity_ernest_terms_add(&terms, o.terms_list, &err)) {
        free(pts);
        return usage_err("unknown term in --terms:", o.terms_list + err.offset);
    }
    struct ernest_model m;
    if (clarity_ernest_fit(pts, np, &terms, &m, &err)) {
        free(pts);
        fprintf(stderr, "clarity ernest: fit failed\n");
        return EXIT_INPUT;
    }
    free(pts);
    struct ernest_target targets[MAXT];
    size_t nt = 0;
    struct ernest_report rep = {.command = o.sub, .model = &m, .scale_unit = unit, .loo_threshold_pct = o.loo_threshold};
    struct ernest_point act;
    if (predict && o.actual) {
        if (actual_point(&o, &act) != EXIT_OK) {
            clarity_ernest_model_free(&m);
            return EXIT_INPUT;
        }
        rep.actual_source = o.actual;
        rep.actual_s = act.seconds;
        targets[nt++] = (struct ernest_target){act.scale, act.machines, clarity_ernest_predict(&m, act.scale, act.machines),
                                               clarity_ernest_extrapolation(&m, act.scale, act.machines), 0, 0};
    } else if (predict) {
        for (int i = 0; i < o.ns; i++)
            for (int j = 0; j < o.nm && nt < MAXT; j++)
                targets[nt++] = (struct ernest_target){o.slist[i], o.mlist[j], clarity_ernest_predict(&m, o.slist[i], o.mlist[j]),
                                                       clarity_ernest_extrapolation(&m, o.slist[i], o.mlist[j]), 0, 0};
    }
    for (size_t i = 0; i < nt; i++)
        clarity_ernest_interval(&m, targets[i].scale, targets[i].machines, targets[i].predicted_s, &targets[i].low_s,
                                &targets[i].high_s);
    rep.targets = targets;
    rep.ntargets = nt;
    struct ernest_choose_options co = {.scale = o.ns ? o.slist[0] : 1, .deadline_s = o.deadline, .machines_min = 1,
                                       .machines_max = 64, .price_per_machine_hour = o.price, .hourly_billing = o.hourly,
                                       .margin = o.margin};
    struct ernest_choice ch;
    if (choose) {
        if (o.have_mrange) { co.machines_min = o.mlo; co.machines_max = o.mhi; }
        clarity_ernest_choose(&m, &co, &ch);
        rep.choice = &ch;
        rep.choose_opt = &co;
    }
    rc = emit(&o, &rep);
    clarity_ernest_model_free(&m);
    return rc;
}
