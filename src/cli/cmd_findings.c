#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/common/ladra_inputs.h"
#include "cli/common/load.h"
#include "cli/common/per_app.h"
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

/* An application seen in the per-application pass, for the cross-application finding
 * (--deep): where to read it again and when it ran. */
struct seen_app { char *path, *id; int64_t start, end; };

struct findings_ctx {
    struct clarity_findings_options fo;
    struct findings_report_options ro;
    /* --deep: the applications seen, then reloaded a group of overlapping ones at a time
       (the per-application pass holds one model at a time, so a directory never holds all) */
    bool cross, quiet;
    struct seen_app *seen; size_t nseen, cap_seen;
    const struct clarity_load_options *lo;
    int oom;
};

static void app_id_label(const struct clarity_app *a, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s%s", clarity_app_str(a, a->app_id), a->attempt_id ? "/" : "", clarity_app_str(a, a->attempt_id));
}

static void remember(struct findings_ctx *fc, const struct clarity_app *a, const struct clarity_findings *r)
{
    if (!fc->cross || fc->oom) return;
    if (fc->nseen == fc->cap_seen) {
        size_t c = fc->cap_seen ? 2 * fc->cap_seen : 16;
        void *p = realloc(fc->seen, c * sizeof *fc->seen);
        if (!p) { fc->oom = 1; return; }
        fc->seen = p, fc->cap_seen = c;
    }
    char id[300];
    app_id_label(a, id, sizeof id);
    struct seen_app *x = &fc->seen[fc->nseen];
    x->path = strdup(a->source_path ? a->source_path : "");
    x->id = strdup(id);
    if (!x->path || !x->id) {
        free(x->path);
        free(x->id);
        fc->oom = 1;
        return;
    }
    /* an application without a start time ran at no known time: it overlaps nothing */
    x->start = a->start_ms > 0 ? a->start_ms : 0;
    x->end = a->start_ms > 0 ? a->start_ms + r->duration_ms : 0;
    fc->nseen++;
}

static int findings_one(void *ctx, const struct clarity_app *a, FILE *text, struct jsonw *json,
                        struct clarity_error *err)
{
    struct findings_ctx *fc = ctx;
    struct clarity_findings r;
    int rc = clarity_findings_analyze(a, &fc->fo, &r, err);
    if (rc) return rc;
    remember(fc, a, &r);
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
    remember(fc, a, &r);
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

/* One group of overlapping applications, read again and analysed together; *found when
   the rule fires. */
static int cross_group(struct findings_ctx *fc, const size_t *members, size_t n, struct clarity_cross_finding *out,
                       bool *found, struct clarity_error *err)
{
    *found = false;
    const char **paths = malloc(n * sizeof *paths);
    const struct clarity_app **apps = malloc(n * sizeof *apps);
    size_t np = 0, na = 0;
    int rc = 0;
    if (!paths || !apps) {
        rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {   /* a path of several attempts is read once */
        bool dup = false;
        for (size_t k = 0; k < np && !dup; k++) dup = !strcmp(paths[k], fc->seen[members[i]].path);
        if (!dup) paths[np++] = fc->seen[members[i]].path;
    }
    struct clarity_app_set set;
    if (load_set("findings", paths, np, true, fc->lo, &set) == EXIT_OK) {
        for (size_t k = 0; k < set.n; k++) {
            const struct clarity_app *a = set.apps[k].app;
            if (!a) continue;
            char id[300];
            app_id_label(a, id, sizeof id);
            for (size_t i = 0; i < n; i++)
                if (!strcmp(id, fc->seen[members[i]].id) && a->source_path &&
                    !strcmp(a->source_path, fc->seen[members[i]].path)) {
                    apps[na++] = a;
                    break;
                }
        }
        if (na >= 2) rc = clarity_findings_cross(apps, na, fc->fo.contention, out, found, err);
    }
    clarity_app_set_free(&set);
out:
    free(paths);
    free(apps);
    return rc;
}

static int cmp_cross(const void *x, const void *y)
{
    const struct clarity_cross_finding *a = x, *b = y;
    if (a->f.saving_ms != b->f.saving_ms) return a->f.saving_ms > b->f.saving_ms ? -1 : 1;
    return strcmp(a->app_id, b->app_id);
}

/* Orders the seen applications by id, start and end, then by when they were seen, so equal
   runs are adjacent and the first seen comes first. */
static int cmp_seen(const void *x, const void *y, void *ctx)
{
    const struct seen_app *s = ctx, *a = &s[*(const size_t *)x], *b = &s[*(const size_t *)y];
    int c = strcmp(a->id, b->id);
    if (c) return c;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->end != b->end) return a->end < b->end ? -1 : 1;
    return (a > b) - (a < b);
}

static bool same_run(const struct seen_app *a, const struct seen_app *b)
{
    return !strcmp(a->id, b->id) && a->start == b->start && a->end == b->end;
}

/* --deep over several applications: contention across them ("Across applications"). */
static int findings_end(void *ctx, const struct clarity_app_set *set, FILE *text, struct jsonw *json,
                        struct clarity_error *err)
{
    (void)set;
    struct findings_ctx *fc = ctx;
    if (fc->oom) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    if (fc->nseen < 2) return 0;
    size_t n = fc->nseen, ng, nx = 0;
    int64_t *st = malloc(n * sizeof *st), *en = malloc(n * sizeof *en);
    size_t *grp = malloc(n * sizeof *grp), *members = malloc(n * sizeof *members), *first = NULL;
    struct clarity_cross_finding *x = NULL;
    int rc = 0;
    if (!st || !en || !grp || !members) goto oom;
    /* one run's log in two formats (a legacy directory and its file: spark-events has
       several) is one application, not two that shared the cluster: every copy after the
       first (same id, start and end) counts as not having run. Sorted, not compared pairwise,
       so a directory of 10^5 applications stays linear-logarithmic. */
    for (size_t i = 0; i < n; i++) st[i] = fc->seen[i].start, en[i] = fc->seen[i].end, members[i] = i;
    qsort_r(members, n, sizeof *members, cmp_seen, fc->seen);
    for (size_t k = 1; k < n; k++)
        if (same_run(&fc->seen[members[k - 1]], &fc->seen[members[k]]))
            st[members[k]] = en[members[k]] = 0;
    ng = clarity_findings_overlap_groups(st, en, n, grp);
    if (ng == SIZE_MAX) goto oom;
    x = calloc(ng ? ng : 1, sizeof *x);
    first = calloc(ng + 1, sizeof *first);
    if (!x || !first) goto oom;
    /* the members of every group in one counting sort (in the order seen), not a scan of
       every application per group */
    for (size_t i = 0; i < n; i++)
        if (grp[i] != SIZE_MAX) first[grp[i] + 1]++;
    for (size_t g = 0; g < ng; g++) first[g + 1] += first[g];
    {
        size_t *fill = calloc(ng ? ng : 1, sizeof *fill);
        if (!fill) goto oom;
        for (size_t i = 0; i < n; i++)
            if (grp[i] != SIZE_MAX) members[first[grp[i]] + fill[grp[i]]++] = i;
        free(fill);
    }
    for (size_t g = 0; g < ng && !rc; g++) {
        bool found;
        rc = cross_group(fc, members + first[g], first[g + 1] - first[g], &x[nx], &found, err);
        if (!rc && found) nx++;
    }
    if (!rc) {
        qsort(x, nx, sizeof *x, cmp_cross);
        struct findings_cross_report c = {.x = x, .n = nx, .napps = n, .groups = ng};
        rc = json ? clarity_report_findings_cross_json(json, &c, err)
                  : clarity_report_findings_cross_text(text, &c, fc->ro.width, fc->ro.why, err);
    }
    goto out;
oom:
    rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
out:
    free(st);
    free(en);
    free(grp);
    free(members);
    free(first);
    free(x);
    return rc;
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
        {"wide", no_argument, 0, OPT_WIDE}, {"deep", no_argument, 0, 'D'},
        {"executor-logs", required_argument, 0, 'E'}, {"gc-logs", required_argument, 0, 'G'}, {0, 0, 0, 0}};
    struct common_opts co = {.cmd = "findings"};
    struct findings_ctx fc = {.ro = {.limit = 10}};
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
        pc.end = findings_end;
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
