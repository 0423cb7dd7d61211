#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/common/per_app.h"
#include "clarity/report.h"
#include "report/table.h"
#include "analysis/whatif/whatif_run.h"

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
            "  speeds may carry units: --disk-mbps 1.5GB/s or 150MiB/s (bytes), --network 10Gbps (bits)\n"
            "  or 1.25GB/s (bytes); prefixes k, M, G, T are decimal, Ki, Mi, Gi, Ti binary\n"
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
            "  --detail              one full report per application even when there are several (a\n"
            "                        directory or several logs get one row per application)\n"
            "  --wide                text tables as wide as their values (default: they fit COLUMNS,\n"
            "                        the terminal, or 100 columns)\n"
            "  --threads N           threads reading the log and analysing it (default: one per core;\n"
            "                        the output is the same for any N)\n"
            "  --json                machine-readable output (schema clarity.whatif/1, docs/whatif.md)\n"
            "  --compact             with --json: one line\n"
            "  -o FILE               write to FILE instead of standard output\n"
            "  -q, --quiet           no notes about skipped files on stderr\n"
            "  -h, --help            this help\n\n"
            "exit codes: 0 ok, 2 usage, 3 no readable event log, 4 some applications could not be\n"
            "read (the others were analysed), 5 out of memory\n");
}

#define MAX_POINTS 64

struct whatif_opts {
    struct clarity_whatif_ask ask;
    struct clarity_curve_ask points[MAX_POINTS];
    size_t limit, width;
};

static int set_flag(struct whatif_opts *w, enum clarity_hw_field f, const char *v)
{
    struct clarity_error err = {0};
    if (clarity_hw_parse_value(f, v, &w->ask.flags.f[f], &err)) {
        fprintf(stderr, "clarity whatif: %s\n", err.msg);
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

static int whatif_one(void *ctx, const struct clarity_app *a, FILE *text, struct jsonw *json,
                      struct clarity_error *err)
{
    const struct whatif_opts *op = ctx;
    struct clarity_whatif_result wr;
    int rc = clarity_whatif_run(a, &op->ask, &wr, err);
    if (rc) return rc;
    char lbl[512];
    label(&wr.change, lbl, sizeof lbl);
    struct whatif_report r = {&wr.base, wr.have_res ? &wr.res : NULL, wr.whatif ? lbl : NULL,
                              wr.have_curve ? &wr.curve : NULL, wr.have_slot ? &wr.slot : NULL, op->limit, op->width};
    rc = json ? clarity_report_whatif_json(json, a, &r, err) : clarity_report_whatif_text(text, a, &r, err);
    clarity_whatif_result_free(&wr);
    return rc;
}

/* the whatif column only when a what-if was asked: a column of "-" would cost the ids' room */
static const struct table_col app_cols[] = {{"application", TCOL_ID}, {"actual", TCOL_NUM},   {"driver", TCOL_NUM},
                                            {"bottleneck", TCOL_FIXED}, {"cpu inf", TCOL_NUM}, {"disk inf", TCOL_NUM},
                                            {"net inf", TCOL_NUM},      {"knee", TCOL_NUM},   {"whatif", TCOL_NUM}};

static const char *change(char *buf, size_t cap, const struct clarity_resource_result *r, int k)
{
    if (!r || !r->scen[k].present || r->actual_ms <= 0) snprintf(buf, cap, "-");
    else snprintf(buf, cap, "%+.1f%%", 100 * (r->scen[k].predicted_ms - (double)r->actual_ms) / (double)r->actual_ms);
    return buf;
}

/* Several applications: one row each. */
static int whatif_row(void *ctx, const struct clarity_app *a, struct table *t, struct clarity_error *err)
{
    const struct whatif_opts *op = ctx;
    struct clarity_whatif_result wr;
    int rc = clarity_whatif_run(a, &op->ask, &wr, err);
    if (rc) return rc;
    const struct clarity_resource_result *r = wr.have_res ? &wr.res : NULL;
    char id[160], act[32], drv[32], bn[48] = "-", c[4][16], knee[32] = "-";
    snprintf(id, sizeof id, "%s%s%s", clarity_app_str(a, a->app_id), a->attempt_id ? "/" : "", clarity_app_str(a, a->attempt_id));
    snprintf(act, sizeof act, "-");
    snprintf(drv, sizeof drv, "-");
    if (r) {
        clarity_fmt_ms(act, sizeof act, r->actual_ms);
        clarity_fmt_ms(drv, sizeof drv, r->driver_ms);
        const struct clarity_whatif_scenario *s = &r->scen[CLARITY_SCEN_BASE];
        snprintf(bn, sizeof bn, "%zu/%zu/%zu", s->bottleneck_stages[0], s->bottleneck_stages[1], s->bottleneck_stages[2]);
    }
    if (wr.have_curve && wr.curve.npoints) snprintf(knee, sizeof knee, "%g", wr.curve.points[wr.curve.knee].cores);
    const char *row[] = {id, act, drv, bn, change(c[0], 16, r, CLARITY_SCEN_INF_CPU), change(c[1], 16, r, CLARITY_SCEN_INF_DISK),
                         change(c[2], 16, r, CLARITY_SCEN_INF_NETWORK), knee, change(c[3], 16, r, CLARITY_SCEN_WHATIF)};
    clarity_table_row(t, row);
    clarity_whatif_result_free(&wr);
    return 0;
}

static void whatif_note(FILE *o)
{
    fprintf(o, "bottleneck: stages bound by cpu/disk/network;\n"
               "cpu/disk/net inf: predicted change with that resource infinitely fast; whatif: with the\n"
               "hardware asked; knee: the fewest cores within 10%% of the best predicted time.\n");
}

int cmd_whatif(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, 0, OPT_JSON}, {"compact", no_argument, 0, OPT_COMPACT}, {"hw", required_argument, 0, 'H'},
        {"hosts", required_argument, 0, 1}, {"cores-per-host", required_argument, 0, 2},
        {"disks", required_argument, 0, 3}, {"disk-mbps", required_argument, 0, 4},
        {"network", required_argument, 0, 5}, {"input-on-disk", required_argument, 0, 6},
        {"replication", required_argument, 0, 7}, {"executors", required_argument, 0, 'E'},
        {"cores", required_argument, 0, 'C'}, {"slots", required_argument, 0, 's'},
        {"limit", required_argument, 0, 'l'}, {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
        {"threads", required_argument, 0, 'T'}, {"detail", no_argument, 0, 'd'}, {"wide", no_argument, 0, OPT_WIDE},
        {0, 0, 0, 0}};
    static const enum clarity_hw_field fields[] = {0, CLARITY_HW_HOSTS, CLARITY_HW_CORES_PER_HOST,
                                                   CLARITY_HW_DISKS_PER_HOST, CLARITY_HW_DISK_MB_S, CLARITY_HW_NET_GBPS,
                                                   CLARITY_HW_INPUT_ON_DISK, CLARITY_HW_REPLICATION};
    struct whatif_opts op;
    memset(&op, 0, sizeof op);
    struct per_app_rows pr = {.row = whatif_row, .note = whatif_note,
                              .title = "resource model and core-count curve per application (--detail: a full report each)\n"};
    op.ask.curve = op.points;
    op.limit = 20;
    struct common_opts co = {.cmd = "whatif"};
    const char *ini = NULL;
    struct clarity_error err = {0};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        if (common_option(&co, c, optarg)) continue;
        switch (c) {
        case 'H': ini = optarg; break;
        case 1: case 2: case 3: case 4: case 5: case 6: case 7:
            if (set_flag(&op, fields[c], optarg)) return EXIT_USAGE;
            break;
        case 'E': case 'C': {
            if (op.ask.ncurve > 0) {
                fprintf(stderr, "clarity whatif: give one of --executors and --cores\n");
                return EXIT_USAGE;
            }
            op.ask.unit = c == 'E' ? CLARITY_CURVE_EXECUTORS : CLARITY_CURVE_CORES;
            size_t nask;
            if (clarity_curve_parse(optarg, op.points, MAX_POINTS, &nask, &err)) {
                fprintf(stderr, "clarity whatif: --%s: %s\n", c == 'E' ? "executors" : "cores", err.msg);
                return EXIT_USAGE;
            }
            op.ask.ncurve = nask;
            break;
        }
        case 's':
            if (!opt_slots(co.cmd, optarg, &op.ask.mode)) return EXIT_USAGE;
            break;
        case 'l':
            if (!opt_count(co.cmd, "limit", optarg, &op.limit)) return EXIT_USAGE;
            break;
        case 'T': {
            long long t;
            if (!opt_int_range(co.cmd, "threads", optarg, 1, 64, &t)) return EXIT_USAGE;
            op.ask.threads = (int)t;
            break;
        }
        case 'd': pr.detail = true; break;
        case 'h': help(stdout); return EXIT_OK;
        default: return bad_option(co.cmd, argv, "o:qh");
        }
    }
    if (ini && clarity_hw_ini_load(ini, &op.ask.cluster, &op.ask.ini, &err)) {
        if (err.line) fprintf(stderr, "clarity whatif: %s: line %llu: %s\n", err.file, (unsigned long long)err.line, err.msg);
        else fprintf(stderr, "clarity whatif: %s: %s\n", err.file, err.msg);
        return EXIT_USAGE;
    }
    if (no_logs_given(co.cmd, optind, argc, help)) return EXIT_USAGE;
    struct clarity_load_options lo = lean_load_options(co.quiet);
    lo.threads = op.ask.threads;
    op.width = pr.width = out_width(&co);
    bool asked = ini != NULL;
    for (int f = 0; f < CLARITY_HW_NFIELDS; f++) asked |= op.ask.flags.f[f].set;
    clarity_table_init(&pr.table, app_cols, sizeof app_cols / sizeof *app_cols - !asked);
    struct per_app_cmd pc = {.schema = "clarity.whatif/1", .out = &co, .load = &lo, .one = whatif_one, .rows = &pr, .ctx = &op};
    int rc = run_per_app(&pc, argv + optind, (size_t)(argc - optind));
    clarity_table_free(&pr.table);
    return rc;
}