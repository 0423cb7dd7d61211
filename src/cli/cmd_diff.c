#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "clarity/diff.h"
#include "clarity/report.h"
#include "report/table.h"
#include "util/jsonw.h"

static void help(FILE *o)
{
    fprintf(o,
            "usage: clarity diff [options] A B\n"
            "       clarity diff [options] -A PATH [-A PATH]... -B PATH [-B PATH]...\n\n"
            "What changed between run A (the reference) and run B: how much slower or faster B is and\n"
            "where, the likely causes ranked (changed Spark settings, executors and cores, input and\n"
            "shuffle sizes, disk spill, a host that slowed, task counts, the task-time component that\n"
            "moved), the application's figures side by side, the stages and SQL queries that changed\n"
            "most with the component that moved (CPU, GC, fetch wait, shuffle write, scheduler delay,\n"
            "other run time) and their data sizes, and the Spark properties added, removed or changed.\n\n"
            "Stages, SQL queries and jobs are matched by what they are, never by id: a stage by its name\n"
            "(call site) and position among the stages of that name, a SQL query by its description, the\n"
            "shape of its physical plan and its position (then by description alone, flagged [plan\n"
            "changed]), a job by its name and position. A and B are each an event log or a directory;\n"
            "with several applications on a side (a directory, or -A/-B given more than once), they are\n"
            "paired by application name (and start order among equal names); with one on each side they\n"
            "are paired whatever their names. Properties that differ between any two runs (ids, times,\n"
            "host names, ports, paths embedding the application id) are ignored (docs/diff.md).\n"
            "Findings (`clarity findings` on both runs) that appeared, went away or stayed are keyed by\n"
            "kind and place: the stage, query or job as matched above, a host by name, an executor by id.\n\n"
            "options:\n"
            "  -A PATH             a log or directory of run A (repeatable; instead of the first operand)\n"
            "  -B PATH             a log or directory of run B (repeatable; instead of the second operand)\n"
            "  --fail-if-slower PCT  exit 1 when B's wall time is more than PCT %% above A's (any pair;\n"
            "                      '10' or '10%%')\n"
            "  --noise PCT         changes below PCT %% are noise (default 5)\n"
            "  --no-findings       do not compare findings (faster: no replay per finding)\n"
            "  --limit N           stage, SQL and finding rows in text output (default 10, 0 = all)\n"
            "  --wide              text tables as wide as their values (default: they fit COLUMNS,\n"
            "                      the terminal, or 100 columns)\n"
            "  --json              machine-readable output (schema clarity.diff/1, docs/diff.md)\n"
            "  --compact           with --json: one line, no indentation\n"
            "  -o FILE             write to FILE instead of standard output\n"
            "  -q, --quiet         no notes about skipped files on stderr\n"
            "  -h, --help          this help\n\n"
            "exit codes: 0 ok, 1 B slower than --fail-if-slower allows, 2 usage, 3 a side has no\n"
            "readable event log, 4 some applications could not be read or had no partner (the others\n"
            "were compared), 5 out of memory\n");
}

/* "10", "10%", "2.5": a percentage >= 0 */
static bool parse_pct(const char *s, double *out)
{
    char *e;
    double v = strtod(s, &e);
    if (e == s || v < 0 || !isfinite(v) || (*e && strcmp(e, "%"))) {
        fprintf(stderr, "clarity diff: a percentage needs a number >= 0 (10 or 10%%), not '%s'\n", s);
        return false;
    }
    *out = v;
    return true;
}

struct paths {
    const char **p;
    size_t n;
};
static bool add_path(struct paths *ps, const char *s)
{
    const char **n = realloc(ps->p, (ps->n + 1) * sizeof *n);
    if (!n) return false;
    n[ps->n++] = s;
    ps->p = n;
    return true;
}

struct pairing {
    long *a2b, *b2a;
    size_t *ia, *ib;             /* loaded applications of each side: index in the set */
    size_t na, nb;
};

/* One side's applications, each reduced to its side of the comparison as soon as it is read
 * and its model freed (load_set_each): a run of the 10^6-job log holds one model at a time
 * instead of both to the end. */
struct sides {
    const struct clarity_diff_options *opt;
    struct clarity_diff_app **s; /* by index in the set; NULL when not loaded */
    size_t n;
    int rc;                      /* the first failure to build a side (reported then) */
};

static void build_side(void *ctx, const struct clarity_app_set *set, size_t i)
{
    struct sides *ss = ctx;
    const struct clarity_app *a = set->apps[i].app;
    if (!ss->s && !ss->rc) {
        ss->s = calloc(set->n + 1, sizeof *ss->s);
        ss->n = set->n;
        if (!ss->s) {
            ss->rc = CLARITY_ENOMEM;
            fprintf(stderr, "clarity diff: out of memory comparing two applications\n");
        }
    }
    if (!a || ss->rc) return;
    struct clarity_error err = {0};
    int rc = clarity_diff_app_build(a, ss->opt, &ss->s[i], &err);
    if (rc) {
        ss->rc = rc;
        fprintf(stderr, "clarity diff: %s: %s\n", a->source_path, err.msg);
    }
}

static void sides_free(struct sides *ss)
{
    for (size_t i = 0; ss->s && i < ss->n; i++) clarity_diff_app_free(ss->s[i]);
    free(ss->s);
}

/* Pairs the loaded applications of the two sides: by name and start order; with one on each
 * side, whatever their names. */
static int pair_apps(const struct sides *sa, const struct sides *sb, struct pairing *p)
{
    memset(p, 0, sizeof *p);
    p->ia = malloc((sa->n + 1) * sizeof *p->ia);
    p->ib = malloc((sb->n + 1) * sizeof *p->ib);
    p->a2b = malloc((sa->n + 1) * sizeof *p->a2b);
    p->b2a = malloc((sb->n + 1) * sizeof *p->b2a);
    struct clarity_match_key *ka = malloc((sa->n + 1) * sizeof *ka), *kb = malloc((sb->n + 1) * sizeof *kb);
    uint32_t *oa = malloc((sa->n + 1) * sizeof *oa), *ob = malloc((sb->n + 1) * sizeof *ob);
    int rc = p->ia && p->ib && p->a2b && p->b2a && ka && kb && oa && ob ? 0 : CLARITY_ENOMEM;
    for (size_t i = 0; !rc && i < sa->n; i++)
        if (sa->s[i]) {
            const struct clarity_diff_ident *a = clarity_diff_app_ident(sa->s[i]);
            ka[p->na] = (struct clarity_match_key){.name = a->name, .id = a->start_ms};
            p->ia[p->na++] = i;
        }
    for (size_t i = 0; !rc && i < sb->n; i++)
        if (sb->s[i]) {
            const struct clarity_diff_ident *b = clarity_diff_app_ident(sb->s[i]);
            kb[p->nb] = (struct clarity_match_key){.name = b->name, .id = b->start_ms};
            p->ib[p->nb++] = i;
        }
    if (!rc && p->na == 1 && p->nb == 1) p->a2b[0] = 0, p->b2a[0] = 0;
    else if (!rc) rc = clarity_match_items(ka, p->na, kb, p->nb, false, p->a2b, p->b2a, oa, ob);
    free(ka);
    free(kb);
    free(oa);
    free(ob);
    return rc;
}

static void pairing_free(struct pairing *p)
{
    free(p->a2b);
    free(p->b2a);
    free(p->ia);
    free(p->ib);
}

static void unmatched_json(struct jsonw *w, const char *side, const struct clarity_diff_app *s)
{
    const struct clarity_diff_ident *a = clarity_diff_app_ident(s);
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "side", side);
    clarity_jsonw_kstr(w, "app_id", a->app_id);
    clarity_jsonw_kstr(w, "name", a->name);
    clarity_jsonw_kstr(w, "source", a->source ? a->source : "");
    clarity_jsonw_obj_end(w);
}

int cmd_diff(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, 0, OPT_JSON},          {"compact", no_argument, 0, OPT_COMPACT},
        {"wide", no_argument, 0, OPT_WIDE},          {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},               {"limit", required_argument, 0, 'l'},
        {"noise", required_argument, 0, 'N'},        {"fail-if-slower", required_argument, 0, 'F'},
        {"no-findings", no_argument, 0, 'n'},
        {0, 0, 0, 0}};
    struct common_opts co = {.cmd = "diff"};
    struct diff_report_options ro = {.limit = 10};
    struct clarity_diff_options dopt = {0};
    double fail_pct = -1;
    struct paths pa = {0}, pb = {0};
    int c, rc = EXIT_OK;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:qhA:B:", opts, NULL)) != -1) {
        if (common_option(&co, c, optarg)) continue;
        switch (c) {
        case 'l':
            if (!opt_count(co.cmd, "limit", optarg, &ro.limit)) rc = EXIT_USAGE;
            break;
        case 'N':
            if (!parse_pct(optarg, &dopt.noise_pct)) rc = EXIT_USAGE;
            break;
        case 'F':
            if (!parse_pct(optarg, &fail_pct)) rc = EXIT_USAGE;
            break;
        case 'n': dopt.no_findings = true; break;
        case 'A':
            if (!add_path(&pa, optarg)) rc = EXIT_NOMEM;
            break;
        case 'B':
            if (!add_path(&pb, optarg)) rc = EXIT_NOMEM;
            break;
        case 'h':
            help(stdout);
            free(pa.p);
            free(pb.p);
            return EXIT_OK;
        default:
            free(pa.p);
            free(pb.p);
            return bad_option(co.cmd, argv, "o:qhA:B:");
        }
        if (rc != EXIT_OK) break;
    }
    int left = argc - optind;
    if (rc == EXIT_OK) {
        if (!pa.n && !pb.n && left == 2) {
            if (!add_path(&pa, argv[optind]) || !add_path(&pb, argv[optind + 1])) rc = EXIT_NOMEM;
        } else if (!pa.n || !pb.n || left != 0) {
            fprintf(stderr, "clarity diff: give two runs: A B, or -A PATH... -B PATH...; see clarity diff --help\n");
            rc = EXIT_USAGE;
        }
    }
    if (rc != EXIT_OK) {
        free(pa.p);
        free(pb.p);
        return rc;
    }
    ro.width = out_width(&co);
    struct clarity_load_options lo = lean_load_options(co.quiet);
    struct clarity_app_set sa, sb;
    struct sides ka = {.opt = &dopt}, kb = {.opt = &dopt};
    /* load_set prints each problem as one line naming the path, which tells the side; each
     * model is freed once its side is built, before the next is read */
    int ra = load_set_each(co.cmd, pa.p, pa.n, co.quiet, &lo, &sa, build_side, &ka);
    if (ra == EXIT_OK && ka.rc) ra = exit_for_error(ka.rc);
    int rb = ra == EXIT_OK ? load_set_each(co.cmd, pb.p, pb.n, co.quiet, &lo, &sb, build_side, &kb) : EXIT_INPUT;
    if (ra != EXIT_OK) memset(&sb, 0, sizeof sb);
    else if (rb == EXIT_OK && kb.rc) rb = exit_for_error(kb.rc);
    free(pa.p);
    free(pb.p);
    struct pairing p = {0};
    int rc0 = ra != EXIT_OK ? ra : rb;
    if (rc0 == EXIT_OK && pair_apps(&ka, &kb, &p)) {
        fprintf(stderr, "clarity diff: out of memory pairing applications\n");
        rc0 = EXIT_NOMEM;
    }
    FILE *o = rc0 == EXIT_OK ? open_output(co.cmd, co.outpath) : NULL;
    if (rc0 == EXIT_OK && !o) rc0 = EXIT_USAGE;
    if (rc0 != EXIT_OK) {
        pairing_free(&p);
        sides_free(&ka);
        sides_free(&kb);
        clarity_app_set_free(&sa);
        clarity_app_set_free(&sb);
        return rc0;
    }
    struct jsonw w;
    if (co.json) {
        clarity_jsonw_init(&w, o, !co.compact);
        clarity_jsonw_obj_begin(&w);
        clarity_jsonw_kstr(&w, "schema", "clarity.diff/1");
        clarity_jsonw_key(&w, "pairs");
        clarity_jsonw_arr_begin(&w);
    }
    bool slower = false, first = true;
    size_t unpaired = 0;
    for (size_t i = 0; i < p.na && rc == EXIT_OK; i++) {
        if (p.a2b[i] < 0) {
            unpaired++;
            continue;
        }
        const struct clarity_diff_app *a = ka.s[p.ia[i]], *b = kb.s[p.ib[p.a2b[i]]];
        struct clarity_diff_result r;
        struct clarity_error err = {0};
        int e = clarity_diff_compare(a, b, &dopt, &r, &err);
        if (!e) {
            if (!co.json && !first) fprintf(o, "\n");
            first = false;
            e = co.json ? clarity_report_diff_json(&w, &r, &err) : clarity_report_diff_text(o, &r, &ro, &err);
            if (fail_pct >= 0 && r.a.wall_ms > 0 && r.change_pct > fail_pct) slower = true;
            clarity_diff_free(&r);
        }
        if (e) {
            fprintf(stderr, "clarity diff: %s vs %s: %s\n", clarity_diff_app_ident(a)->source, clarity_diff_app_ident(b)->source, err.msg);
            rc = exit_for_error(e);
        }
    }
    for (size_t j = 0; j < p.nb; j++) unpaired += p.b2a[j] < 0;
    if (co.json) {
        clarity_jsonw_arr_end(&w);
        clarity_jsonw_key(&w, "unmatched");
        clarity_jsonw_arr_begin(&w);
        for (size_t i = 0; i < p.na; i++)
            if (p.a2b[i] < 0) unmatched_json(&w, "a", ka.s[p.ia[i]]);
        for (size_t j = 0; j < p.nb; j++)
            if (p.b2a[j] < 0) unmatched_json(&w, "b", kb.s[p.ib[j]]);
        clarity_jsonw_arr_end(&w);
        clarity_jsonw_obj_end(&w);
        clarity_jsonw_end(&w);
    } else if (unpaired) {
        fprintf(o, "\napplications without a partner (paired by name): %zu\n", unpaired);
        for (size_t i = 0; i < p.na; i++)
            if (p.a2b[i] < 0) {
                const struct clarity_diff_ident *a = clarity_diff_app_ident(ka.s[p.ia[i]]);
                clarity_fit_line(o, ro.width, "  only in A: %s \"%s\"  %s", a->app_id, a->name, a->source);
            }
        for (size_t j = 0; j < p.nb; j++)
            if (p.b2a[j] < 0) {
                const struct clarity_diff_ident *b = clarity_diff_app_ident(kb.s[p.ib[j]]);
                clarity_fit_line(o, ro.width, "  only in B: %s \"%s\"  %s", b->app_id, b->name, b->source);
            }
    }
    int crc = close_output(o, co.cmd, co.outpath, rc == EXIT_OK);
    if (rc == EXIT_OK) rc = crc;
    if (rc == EXIT_OK && slower) rc = EXIT_PROBLEMS;
    else if (rc == EXIT_OK && (unpaired || set_failed_count(&sa) || set_failed_count(&sb))) rc = EXIT_PARTIAL;
    pairing_free(&p);
    sides_free(&ka);
    sides_free(&kb);
    clarity_app_set_free(&sa);
    clarity_app_set_free(&sb);
    return rc;
}
