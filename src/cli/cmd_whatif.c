#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/per_app.h"
#include "clarity/whatif_report.h"

static void help(FILE *o)
{
    fprintf(o,
            "usage: clarity whatif [options] <log|dir>...\n\n"
            "What if the application had other hardware or another number of cores?\n"
            "  - hardware: the monotask-style resource model of Ousterhout's thesis (5.6): per stage the\n"
            "    time CPU, disk and network would need if perfectly used; the stage takes the max, a job\n"
            "    the sum; predicted = actual x new model / observed model. Also the best case with each\n"
            "    resource infinitely fast. On Spark the thesis measured 20-30%% typical error.\n"
            "  - core counts: the tasks replayed on more or fewer slots, respecting stage dependencies;\n"
            "    predicted wall time, core-hours, efficiency, the critical path and the knee.\n"
            "Without hardware or curve options both are shown (curve 0.5x,1x,2x,4x).\n\n"
            "hardware (a number, or a factor: x2, 0.5x):\n"
            "  --hosts N             machines                 --cores-per-host N   cores per machine\n"
            "  --disks N             disks per machine        --disk-mbps N        MB/s per disk\n"
            "  --network N           Gbps per machine (10Gbps, 100Mbps, x10)\n"
            "  --input-on-disk yes|no   whether input is read from disk (default: yes when tasks read input)\n"
            "  --replication N       copies of output written to disk (default dfs.replication, else 1)\n"
            "  --hw FILE             INI profile: [cluster] = the hardware the log ran on, [whatif] = the\n"
            "                        hardware to predict for (docs/whatif.md); flags override it\n"
            "core-count curve:\n"
            "  --executors LIST      executor counts: 0.5x,1x,2x,4x or 10,20,40\n"
            "  --cores LIST          core counts, the same way\n"
            "  --slots MODE          1x = observed slots (default) or configured (executor cores)\n"
            "output:\n"
            "  --limit N             stage and job rows in text (default 20, 0 = all)\n"
            "  --json                machine-readable output (schema clarity.whatif/1, docs/whatif.md)\n"
            "  --compact             with --json: one line\n"
            "  -o FILE               write to FILE instead of standard output\n"
            "  -q, --quiet           no notes about skipped files on stderr\n"
            "  -h, --help            this help\n\n"
            "exit codes: 0 ok, 2 usage, 3 no readable event log\n");
}

#define MAX_POINTS 64

struct whatif_opts {
    struct clarity_hw_change flags, ini_cluster, ini_whatif;
    struct clarity_curve_ask ask[MAX_POINTS];
    int nask;                    /* -1: no curve asked */
    enum clarity_curve_unit unit;
    enum clarity_slot_mode mode;
    size_t limit;
};

static int set_flag(struct whatif_opts *w, enum clarity_hw_field f, const char *v)
{
    char err[200];
    if (clarity_hw_parse_value(f, v, &w->flags.f[f], err, sizeof err)) {
        fprintf(stderr, "clarity whatif: %s\n", err);
        return -1;
    }
    return 0;
}

static void label(const struct clarity_hw_change *c, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (int f = 0; f < CLARITY_HW_NFIELDS && n < cap; f++) {
        const struct clarity_hw_value *v = &c->f[f];
        if (!v->set) continue;
        if (f == CLARITY_HW_INPUT_ON_DISK)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s %s", n ? ", " : "", clarity_hw_field_name(f), v->v > 0 ? "yes" : "no");
        else
            n += (size_t)snprintf(buf + n, cap - n, "%s%s %s%g", n ? ", " : "", clarity_hw_field_name(f), v->relative ? "x" : "", v->v);
    }
}

/* later wins: INI then flags */
static void merge(struct clarity_hw_change *into, const struct clarity_hw_change *from)
{
    for (int f = 0; f < CLARITY_HW_NFIELDS; f++) if (from->f[f].set) into->f[f] = from->f[f];
}

static int analyze_one(FILE *o, struct jsonw *w, bool json, const struct clarity_app *a, const struct whatif_opts *op,
                       struct clarity_error *err)
{
    struct clarity_hw base, scen;
    clarity_hw_from_log(a, &base);
    struct clarity_hw tmp = base;
    clarity_hw_apply(&tmp, &op->ini_cluster, CLARITY_HWS_INI, &base);
    struct clarity_hw_change change = op->ini_whatif;
    merge(&change, &op->flags);
    bool whatif = clarity_hw_change_any(&change);
    clarity_hw_apply(&base, &change, CLARITY_HWS_FLAG, &scen);
    for (int f = 0; f < CLARITY_HW_NFIELDS; f++)   /* say which of the two gave it */
        if (change.f[f].set && !op->flags.f[f].set) scen.src[f] = CLARITY_HWS_INI;

    bool want_res = whatif || op->nask < 0;
    struct clarity_curve_ask dflt[] = {{0.5, true}, {1, true}, {2, true}, {4, true}};
    const struct clarity_curve_ask *ask = op->nask > 0 ? op->ask : dflt;
    size_t nask = op->nask > 0 ? (size_t)op->nask : 4;
    bool want_curve = op->nask > 0 || !whatif;

    struct clarity_resource_result res;
    struct clarity_curve_result cur, slot;
    bool have_res = false, have_cur = false, have_slot = false;
    int rc = 0;
    if (want_res) {
        rc = clarity_resources_analyze(a, &base, whatif ? &scen : NULL, &res, err);
        have_res = !rc;
    }
    if (!rc && want_curve) {
        rc = clarity_curve_analyze(a, &base, op->mode, op->unit, ask, nask, &cur, err);
        have_cur = !rc;
    }
    /* a what-if that changes the cores also gets the plain slot replay at its core count */
    if (!rc && whatif && fabs(clarity_hw_cores(&scen) - clarity_hw_cores(&base)) > 1e-9) {
        struct clarity_curve_ask one = {clarity_hw_cores(&scen), false};
        rc = clarity_curve_analyze(a, &base, op->mode, CLARITY_CURVE_CORES, &one, 1, &slot, err);
        have_slot = !rc;
    }
    char lbl[512];
    label(&change, lbl, sizeof lbl);
    if (!rc) {
        struct whatif_report r = {&base, have_res ? &res : NULL, whatif ? lbl : NULL, have_cur ? &cur : NULL,
                                  have_slot ? &slot : NULL, op->limit};
        rc = json ? report_whatif_json(w, a, &r, err) : report_whatif_text(o, a, &r, err);
    }
    if (have_res) clarity_resources_free(&res);
    if (have_cur) clarity_curve_free(&cur);
    if (have_slot) clarity_curve_free(&slot);
    return rc;
}

static int whatif_one(void *ctx, const struct clarity_app *a, FILE *text, struct jsonw *json,
                      struct clarity_error *err)
{
    return analyze_one(text, json, json != NULL, a, ctx, err);
}

int cmd_whatif(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, 0, 'j'}, {"compact", no_argument, 0, 'c'}, {"hw", required_argument, 0, 'H'},
        {"hosts", required_argument, 0, 1}, {"cores-per-host", required_argument, 0, 2},
        {"disks", required_argument, 0, 3}, {"disk-mbps", required_argument, 0, 4},
        {"network", required_argument, 0, 5}, {"input-on-disk", required_argument, 0, 6},
        {"replication", required_argument, 0, 7}, {"executors", required_argument, 0, 'E'},
        {"cores", required_argument, 0, 'C'}, {"slots", required_argument, 0, 's'},
        {"limit", required_argument, 0, 'l'}, {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    static const enum clarity_hw_field fields[] = {0, CLARITY_HW_HOSTS, CLARITY_HW_CORES_PER_HOST,
                                                   CLARITY_HW_DISKS_PER_HOST, CLARITY_HW_DISK_MB_S, CLARITY_HW_NET_GBPS,
                                                   CLARITY_HW_INPUT_ON_DISK, CLARITY_HW_REPLICATION};
    struct whatif_opts op;
    memset(&op, 0, sizeof op);
    op.nask = -1;
    op.limit = 20;
    bool json = false, compact = false, quiet = false;
    const char *outpath = NULL, *ini = NULL;
    char err[512];
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'c': compact = true; break;
        case 'q': quiet = true; break;
        case 'o': outpath = optarg; break;
        case 'H': ini = optarg; break;
        case 1: case 2: case 3: case 4: case 5: case 6: case 7:
            if (set_flag(&op, fields[c], optarg)) return EXIT_USAGE;
            break;
        case 'E': case 'C':
            if (op.nask > 0) {
                fprintf(stderr, "clarity whatif: give one of --executors and --cores\n");
                return EXIT_USAGE;
            }
            op.unit = c == 'E' ? CLARITY_CURVE_EXECUTORS : CLARITY_CURVE_CORES;
            op.nask = clarity_curve_parse(optarg, op.ask, MAX_POINTS, err, sizeof err);
            if (op.nask < 0) {
                fprintf(stderr, "clarity whatif: --%s: %s\n", c == 'E' ? "executors" : "cores", err);
                return EXIT_USAGE;
            }
            break;
        case 's':
            if (!strcmp(optarg, "observed")) op.mode = CLARITY_SLOTS_OBSERVED;
            else if (!strcmp(optarg, "configured")) op.mode = CLARITY_SLOTS_CONFIGURED;
            else {
                fprintf(stderr, "clarity whatif: --slots takes observed or configured, not '%s'\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'l': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 0) {
                fprintf(stderr, "clarity whatif: --limit takes a count, not '%s'\n", optarg);
                return EXIT_USAGE;
            }
            op.limit = (size_t)v;
            break;
        }
        case 'h': help(stdout); return EXIT_OK;
        default: help(stderr); return EXIT_USAGE;
        }
    }
    if (ini && clarity_hw_ini_load(ini, &op.ini_cluster, &op.ini_whatif, err, sizeof err)) {
        fprintf(stderr, "clarity whatif: %s\n", err);
        return EXIT_USAGE;
    }
    if (optind >= argc) {
        fprintf(stderr, "clarity whatif: no event log given\n\n");
        help(stderr);
        return EXIT_USAGE;
    }
    struct per_app_cmd pc = {.name = "whatif", .schema = "clarity.whatif/1", .json = json, .compact = compact,
                             .quiet = quiet, .outpath = outpath, .one = whatif_one, .ctx = &op};
    return run_per_app(&pc, argv + optind, (size_t)(argc - optind));
}