#include <getopt.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "clarity/report.h"
#include "util/jsonw.h"

static void help(FILE *o)
{
    fprintf(o,
            "usage: clarity contention [options] <log|dir>...\n\n"
            "iQCAR (Kalmegh, Babu, Roy 2018): which concurrent queries slowed a query, on which\n"
            "resource and host, and by how much. Each task's wait per unit of data (RATP) for\n"
            "scheduler slots, CPU, memory, network and IO is compared with that of every task running\n"
            "beside it on the same host (blame); the iQC-Graph turns blame into a degree of\n"
            "responsibility (DOR) per resource, host, source stage and source query. Several logs\n"
            "are analysed together: applications whose executors share hosts interfere too.\n\n"
            "options:\n"
            "  --unit KIND       sql (default when SQL executions exist), job, group, pool or app\n"
            "  --target NAME     explain this query (repeatable; default: the top victims)\n"
            "  --all             explain every query that received contention\n"
            "  --top K           k of every top-k list (default 3); --limit K is the same, as in the\n"
            "                    other commands\n"
            "  --rules FILE      write the scheduler rules (AGG and DYNP) as JSON to FILE\n"
            "  --graph FILE      write the iQC-Graph of the targets as Graphviz DOT to FILE\n"
            "  --graph-full      with --graph: also nodes with DOR 0\n"
            "  --self MODE       blame from the query's own tasks: node (default), unknown or drop\n"
            "  --ie-normalize=median  divide each resource's RATP by its workload median\n"
            "  --vc-time-weighted     VC = sum of task time x RATP instead of sum of RATP\n"
            "  --slot-blame=wait  slot blame divided by the source task's own slot wait (the\n"
            "                    paper taken literally); default held: every task holding a slot alike\n"
            "  --aggressive-rank=replay|time|dor  what ranks the aggressive queries (and the rules).\n"
            "                    replay (default): the runtime the other queries save when the query\n"
            "                    is left out of a replay of the application's stages on its slots\n"
            "                    (the counterfactual, re-simulated; falls back to time when the replay\n"
            "                    cannot run); time: the runtime of their victims attributed to them\n"
            "                    (DOR x victim runtime, summed); dor: the paper's total DOR toward\n"
            "                    other queries. Every figure is shown, labelled (docs/contention.md)\n"
            "  --replay-candidates K  the replay leaves out each of the K queries with the most task\n"
            "                    time and the K with the most victim time (default 16; fewer on logs\n"
            "                    of millions of tasks, said in the output); 0: no replay\n"
            "  --successful-only  target tasks: successful attempts only\n"
            "  --rank-by=dor     slow hosts ranked by DOR sum instead of IF sum\n"
            "  --dynp-boost=k-rank+1  DYNP target boost largest for the most affected\n"
            "  --priority P      original priority for DYNP rules (default 1)\n"
            "  --acc KEY=NAME    accumulable name of an instrumented metric; KEY one of cpu.blocked,\n"
            "                    cpu.waited, mem.storageWait, mem.storageAsked, mem.executionWait,\n"
            "                    mem.executionAsked, sched.slotsOffered (defaults iqcar.<KEY-ish>)\n"
            "  --metrics-csv FILE  instrumented metrics measured outside the log: lines\n"
            "                    task_id,attempt,KEY,value (or app_id,task_id,attempt,KEY,value), KEY as\n"
            "                    for --acc, ms and bytes; they replace the accumulables and the proxies\n"
            "                    for those tasks. Bad lines are reported as FILE:LINE and counted\n"
            "  --critical-path   level 1 = each query's critical-path stages only (the leaf-to-root\n"
            "                    path with the largest summed stage runtime, 6.18); default all stages\n"
            "  --json            machine-readable output (schema clarity.contention/1, docs/contention.md)\n"
            "  --compact         with --json: one line\n"
            "  --wide            text as wide as its names (default: it fits COLUMNS, the terminal,\n"
            "                    or 100 columns; names are cut in the middle)\n"
            "  -o FILE           write to FILE instead of standard output\n"
            "  -q, --quiet       no notes about skipped files on stderr\n"
            "  -h, --help        this help\n\n"
            "exit codes: 0 ok, 2 usage, 3 no readable event log, 4 some applications could not be\n"
            "read (the others were analysed), 5 out of memory\n");
}

/* The words of the options that choose among a few modes. */
static const struct opt_choice units[] = {
    {"auto", IQ_UNIT_AUTO, true}, {"sql", IQ_UNIT_SQL, false}, {"job", IQ_UNIT_JOB, false},
    {"group", IQ_UNIT_GROUP, false}, {"pool", IQ_UNIT_POOL, false}, {"app", IQ_UNIT_APP, false}, {0}};
static const struct opt_choice self_modes[] = {
    {"node", IQ_SELF_NODE, false}, {"unknown", IQ_SELF_UNKNOWN, false}, {"drop", IQ_SELF_DROP, false}, {0}};
static const struct opt_choice ie_normalize[] = {{"median", true, false}, {"none", false, false}, {0}};
static const struct opt_choice rank_by[] = {{"if", false, false}, {"dor", true, false}, {0}};
static const struct opt_choice dynp_boost[] = {{"rank", false, false}, {"k-rank+1", true, false}, {0}};
static const struct opt_choice slot_blame[] = {{"held", false, false}, {"wait", true, false}, {0}};
static const struct opt_choice aggressive_rank[] = {
    {"replay", IQ_AGG_REPLAY, false}, {"time", IQ_AGG_TIME, false}, {"dor", IQ_AGG_DOR, false}, {0}};

/* A yes/no option given as one of two words. */
static bool choose_flag(const char *opt, const char *s, const struct opt_choice *words, bool *out)
{
    int v;
    if (!opt_choice("contention", opt, s, words, &v)) return false;
    *out = v;
    return true;
}

static int set_acc(struct iqcar_options *o, const char *kv)
{
    const char *eq = strchr(kv, '=');
    int k = eq ? clarity_iqcar_acc_key(kv, (size_t)(eq - kv)) : -1;   /* the sidecar's metric names too */
    if (k < 0) return -1;
    o->acc_names[k] = eq + 1;
    return 0;
}

struct copts {
    struct common_opts co;
    bool all, graph_full;
    const char *rules, *graph, *metrics_csv;
    const char **targets; size_t ntargets;
};

static int run(struct copts *c, struct iqcar_options *opt, struct clarity_app_set *set)
{
#ifdef __GLIBC__
    /* The analysis grows vectors of tens to hundreds of MB by realloc (graph nodes and edges,
     * the walk's tables). glibc raises its mmap threshold to the largest block freed so far (up
     * to 32 MiB), after which such blocks come from the heap: a realloc copies them and the old
     * copy stays resident. Fixed at glibc's default, every block over 128 KiB is mapped, grows
     * by remapping and is given back when freed (on its own: 395 -> 349 MiB peak at 10^5
     * one-job queries, outputs unchanged). */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
    const struct clarity_app **apps = malloc((set->n ? set->n : 1) * sizeof *apps);
    size_t napps = 0;
    if (!apps) {
        fprintf(stderr, "clarity contention: out of memory\n");
        return EXIT_NOMEM;
    }
    for (size_t i = 0; i < set->n; i++)
        if (set->apps[i].app) apps[napps++] = set->apps[i].app;
    struct clarity_error err = {0};
    size_t ex = 0, nun = 0;
    if (opt->sidecar && clarity_iqcar_sidecar_unmatched(opt->sidecar, apps, napps, &nun, &ex, &err)) {
        fprintf(stderr, "clarity contention: %s\n", err.msg);
        free(apps);
        return exit_for_error(err.code);
    }
    if (nun)
        fprintf(stderr, "clarity contention: %s: %zu value(s) name task attempts the logs do not have (first: task %lld attempt %d)\n",
                c->metrics_csv, nun, (long long)opt->sidecar->rows[ex].task_id, (int)opt->sidecar->rows[ex].attempt);
    struct iqcar_result r;
    int rc = EXIT_OK;
    long *tg = NULL;
    /* the models are ours: given back as soon as the analysis stops reading them, the jobs,
     * SQL executions and accumulables once it has collected, the rest once the graph is built
     * and the replay's workload read (at 10^6 one-job queries the model is ~1 GB) */
    int arc = clarity_iqcar_prepare(apps, napps, opt, &r, &err);
    for (size_t i = 0; i < set->n && !arc; i++)
        if (set->apps[i].app) clarity_app_release(set->apps[i].app, CLARITY_IQCAR_RELEASABLE);
    if (!arc) arc = clarity_iqcar_build(&r, &err);
    if (!arc) arc = clarity_iqcar_detach(&r, &err);
    for (size_t i = 0; i < set->n && !arc; i++)
        if (set->apps[i].app) {
            clarity_app_free(set->apps[i].app);
            set->apps[i].app = NULL, set->apps[i].released = true;   /* as a streamed load leaves it */
        }
    if (!arc) arc = clarity_iqcar_answers(&r, &err);
    if (arc) {
        fprintf(stderr, "clarity contention: %s\n", err.msg);
        rc = exit_for_error(err.code);
        goto out;
    }
    size_t nt = 0;
    if (c->ntargets || c->all) {
        tg = malloc((c->ntargets + r.nunits + 1) * sizeof *tg);
        if (!tg) {
            fprintf(stderr, "clarity contention: out of memory\n");
            rc = EXIT_NOMEM;
            goto out;
        }
        for (size_t i = 0; i < c->ntargets; i++) {
            long u = clarity_iqcar_unit_find(&r, c->targets[i]);
            if (u < 0) {
                fprintf(stderr, "clarity contention: no %s unit named '%s'; units:", clarity_iqcar_unit_name(r.unit_kind), c->targets[i]);
                for (size_t k = 0; k < r.nunits && k < 20; k++) fprintf(stderr, "%s '%s'", k ? "," : "", r.units[k].name);
                fprintf(stderr, "%s\n", r.nunits > 20 ? ", ..." : "");
                rc = EXIT_USAGE;
                goto out;
            }
            tg[nt++] = u;
        }
        if (c->all)
            for (size_t i = 0; i < r.nvictims; i++) tg[nt++] = (long)r.victims[i].node;
        if (clarity_iqcar_explain(&r, tg, nt, &err)) {   /* the named queries that are no victims */
            fprintf(stderr, "clarity contention: %s\n", err.msg);
            rc = exit_for_error(err.code);
            goto out;
        }
    }
    FILE *o = open_output(c->co.cmd, c->co.outpath);
    if (!o) { rc = EXIT_USAGE; goto out; }
    if (c->co.json) {
        struct jsonw w;
        clarity_jsonw_init(&w, o, !c->co.compact);
        if (clarity_report_contention_json(&w, &r, tg, nt, &err)) rc = exit_for_error(err.code);
        clarity_jsonw_end(&w);
    } else if (clarity_report_contention_text(o, &r, tg, nt, out_width(&c->co), &err)) rc = exit_for_error(err.code);
    int crc = close_output(o, "contention", c->co.outpath, rc == EXIT_OK);
    if (rc) {
        fprintf(stderr, "clarity contention: %s\n", err.msg);
        goto out;
    }
    if (crc) { rc = crc; goto out; }
    if (c->rules) {
        FILE *f = fopen(c->rules, "w");
        if (!f) { fprintf(stderr, "clarity contention: cannot write %s\n", c->rules); rc = EXIT_USAGE; goto out; }
        if (clarity_report_contention_rules(f, &r, &err)) {
            fprintf(stderr, "clarity contention: %s: %s\n", c->rules, err.msg);
            rc = exit_for_error(err.code);
        }
        fclose(f);
    }
    if (c->graph) {
        FILE *f = fopen(c->graph, "w");
        if (!f) { fprintf(stderr, "clarity contention: cannot write %s\n", c->graph); rc = EXIT_USAGE; goto out; }
        if (clarity_report_contention_dot(f, &r, tg, nt, c->graph_full, &err)) {
            fprintf(stderr, "clarity contention: %s: %s\n", c->graph, err.msg);
            rc = exit_for_error(err.code);
        }
        fclose(f);
    }
out:
    free(tg);
    clarity_iqcar_result_free(&r);
    free(apps);
    return rc;
}

int cmd_contention(int argc, char **argv)
{
    enum { O_UNIT = 256, O_TARGET, O_ALL, O_TOP, O_RULES, O_GRAPH, O_GRAPH_FULL, O_SELF, O_IEN,
           O_VCT, O_SUCC, O_RANK, O_DYNP, O_PRIO, O_ACC, O_CSV, O_CRIT, O_SLOT, O_AGGR, O_RCAND };
    static const struct option opts[] = {
        {"json", no_argument, 0, OPT_JSON}, {"compact", no_argument, 0, OPT_COMPACT}, {"wide", no_argument, 0, OPT_WIDE}, {"unit", required_argument, 0, O_UNIT},
        {"target", required_argument, 0, O_TARGET}, {"all", no_argument, 0, O_ALL}, {"top", required_argument, 0, O_TOP}, {"limit", required_argument, 0, O_TOP},
        {"rules", required_argument, 0, O_RULES}, {"graph", required_argument, 0, O_GRAPH},
        {"graph-full", no_argument, 0, O_GRAPH_FULL}, {"self", required_argument, 0, O_SELF},
        {"ie-normalize", required_argument, 0, O_IEN}, {"vc-time-weighted", no_argument, 0, O_VCT},
        {"successful-only", no_argument, 0, O_SUCC}, {"rank-by", required_argument, 0, O_RANK},
        {"dynp-boost", required_argument, 0, O_DYNP}, {"priority", required_argument, 0, O_PRIO},
        {"acc", required_argument, 0, O_ACC}, {"metrics-csv", required_argument, 0, O_CSV},
        {"critical-path", no_argument, 0, O_CRIT}, {"slot-blame", required_argument, 0, O_SLOT},
        {"aggressive-rank", required_argument, 0, O_AGGR}, {"replay-candidates", required_argument, 0, O_RCAND},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    struct copts c = {.co = {.cmd = "contention"}};
    struct iqcar_options opt;
    clarity_iqcar_options_default(&opt);
    const char **targets = calloc((size_t)argc + 1, sizeof *targets);
    int ch, rc;
    if (!targets) {
        fprintf(stderr, "clarity contention: out of memory\n");
        return EXIT_NOMEM;
    }
    c.targets = targets;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        char *end;
        long long v;
        if (common_option(&c.co, ch, optarg)) continue;
        switch (ch) {
        case O_UNIT:
            if (!opt_choice(c.co.cmd, "unit", optarg, units, &opt.unit)) goto usage;
            break;
        case O_TARGET: targets[c.ntargets++] = optarg; break;
        case O_ALL: c.all = true; break;
        case O_TOP:
            if (!opt_int_range(c.co.cmd, "top", optarg, 1, 1000, &v)) goto usage;
            opt.k = (int)v;
            break;
        case O_RULES: c.rules = optarg; break;
        case O_GRAPH: c.graph = optarg; break;
        case O_GRAPH_FULL: c.graph_full = true; break;
        case O_SELF:
            if (!opt_choice(c.co.cmd, "self", optarg, self_modes, &opt.self_mode)) goto usage;
            break;
        case O_IEN:
            if (!choose_flag("ie-normalize", optarg, ie_normalize, &opt.ie_normalize)) goto usage;
            break;
        case O_VCT: opt.vc_time_weighted = true; break;
        case O_SUCC: opt.successful_only = true; break;
        case O_RANK:
            if (!choose_flag("rank-by", optarg, rank_by, &opt.rank_by_dor)) goto usage;
            break;
        case O_DYNP:
            if (!choose_flag("dynp-boost", optarg, dynp_boost, &opt.dynp_reverse)) goto usage;
            break;
        case O_PRIO:
            opt.p_orig = strtod(optarg, &end);
            if (*end) { fprintf(stderr, "clarity contention: --priority takes a number\n"); goto usage; }
            break;
        case O_ACC:
            if (set_acc(&opt, optarg)) { fprintf(stderr, "clarity contention: --acc takes KEY=NAME (see --help), not '%s'\n", optarg); goto usage; }
            break;
        case O_CSV: c.metrics_csv = optarg; break;
        case O_CRIT: opt.critical_path = true; break;
        case O_SLOT:
            if (!choose_flag("slot-blame", optarg, slot_blame, &opt.slot_blame_wait)) goto usage;
            break;
        case O_AGGR: {
            int m;
            if (!opt_choice(c.co.cmd, "aggressive-rank", optarg, aggressive_rank, &m)) goto usage;
            opt.aggressive_by_dor = m == IQ_AGG_DOR;
            opt.aggressive_by_time = m == IQ_AGG_TIME;
            break;
        }
        case O_RCAND:
            if (!opt_int_range(c.co.cmd, "replay-candidates", optarg, 0, 100000, &v)) goto usage;
            opt.replay_candidates = (int)v;
            break;
        case 'h': help(stdout); free(targets); return EXIT_OK;
        default: free(targets); return bad_option(c.co.cmd, argv, "o:qh");
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "clarity contention: no event log given\n\n");
        help(stderr);
        goto usage;
    }
    struct iqcar_sidecar sc = {0};
    if (c.metrics_csv) {
        /* read before the logs: a missing file is a usage error worth seeing at once */
        struct clarity_error err = {0};
        int lrc = clarity_iqcar_sidecar_load(c.metrics_csv, &sc, &err);
        for (size_t i = 0; i < sc.bad; i++)
            fprintf(stderr, "clarity contention: %s: line %lu: %s; line skipped\n", c.metrics_csv, sc.rejects[i].line, sc.rejects[i].why);
        if (lrc) {
            fprintf(stderr, "clarity contention: %s\n", err.msg);
            clarity_iqcar_sidecar_free(&sc);
            free(targets);
            return lrc == CLARITY_ENOMEM ? EXIT_NOMEM : EXIT_USAGE;
        }
        if (sc.bad)
            fprintf(stderr, "clarity contention: %s: %zu of %zu line(s) rejected (listed above), %zu value(s) used\n",
                    c.metrics_csv, sc.bad, sc.lines, sc.nrows);
        opt.sidecar = &sc;
    }
    /* a lean load (no per-task executor metrics, no accumulables) but for the accumulables the
     * analysis reads: the full task accumulables take several times the model's memory, and a
     * lean load decodes task events on every core */
    const char *acc_names[IQ_ACC_NAMES_MAX];
    struct clarity_load_options lo = lean_load_options(c.co.quiet);
    lo.task_accumulable_names = acc_names;
    lo.ntask_accumulable_names = clarity_iqcar_accumulable_names(&opt, acc_names);
    struct clarity_app_set set;
    rc = load_set(c.co.cmd, (const char *const *)argv + optind, (size_t)(argc - optind), c.co.quiet, &lo, &set);
    if (rc == EXIT_OK) rc = set_exit_code(&set, run(&c, &opt, &set));
    clarity_app_set_free(&set);
    clarity_iqcar_sidecar_free(&sc);
    free(targets);
    return rc;
usage: /* the problem was said in one line; the help would bury it */
    free(targets);
    return EXIT_USAGE;
}
