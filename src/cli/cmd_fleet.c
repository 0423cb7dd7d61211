/* `clarity fleet`: index a directory of logs into a store incrementally, query the store,
 * merge shards indexed elsewhere. The work is in src/fleet/ and src/store/. */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli/commands.h"
#include "clarity/fleet.h"
#include "clarity/report.h"
#include "clarity/store.h"
#include "util/jsonw.h"

static void help(FILE *o)
{
    fprintf(o,
            "usage: clarity fleet index DIR --store FILE [options]\n"
            "       clarity fleet query FILE [options]\n"
            "       clarity fleet merge FILE SHARD...\n\n"
            "A fleet of event logs kept in one SQLite store (schema clarity.store/1, docs/store.md):\n"
            "`index` walks DIR (files, rolling and Databricks directories, up to 4 levels deep) and\n"
            "reads only the new, grown (an appended .inprogress or rolling log) and changed entries;\n"
            "entries that disappeared are marked deleted (their rows stay for history). A completed\n"
            "log already read under the same name is trusted without a stat (Spark writes it once and\n"
            "renames it from .inprogress); new names, .inprogress files, application directories and\n"
            "unreadable entries are stat'ed, their first 4 KiB hashed when size or time moved.\n"
            "--verify stats every entry: what notices a completed log rewritten in place.\n"
            "Per application attempt it stores the summary row (core-hours, idle core-hours, GC share,\n"
            "tasks, integrity flags), the ranked findings of `clarity findings` and the History\n"
            "Server's listing JSON. A grown log is read again whole (the model replays from the start).\n"
            "`query` answers from the store alone: the worst attempts by a figure, totals per user,\n"
            "queue, platform or name, and recurring applications with their trend and the runs that\n"
            "regressed against the runs before them. `merge` folds shard stores (written by\n"
            "`index --only` on other machines, e.g. by scripts/fleet_dask.py) into FILE. docs/fleet.md.\n\n"
            "index options:\n"
            "  --store FILE        the store (created when absent; one store indexes one DIR)\n"
            "  --no-findings       skip the findings analysis (faster; rows get no findings)\n"
            "  --verify            stat every entry, also completed logs known by name (a full check;\n"
            "                      e.g. nightly beside hourly runs without it)\n"
            "  --workers N         logs read at once (default: one per core)\n"
            "  --plan FILE         list, classify and mark deleted only: write the entries that need\n"
            "                      a read to FILE, one relative path a line (for a coordinator)\n"
            "  --only FILE         read exactly the entries listed in FILE (relative to DIR), no\n"
            "                      listing or deletion marks: a shard worker's job, into its own store\n"
            "  --dask ADDRESS      spread the reading over a Dask cluster (tcp://host:8786, or 'local'\n"
            "                      for a LocalCluster): runs scripts/fleet_dask.py with Debian's python3\n"
            "  --dask-workers N    with --dask local: worker processes (default 2)\n"
            "  --stats             the run's counters on stderr, one line (text output prints them too)\n\n"
            "query options:\n"
            "  --since AGE|DATE    attempts started in the last AGE (30m, 24h, 7d, 2w) or since DATE\n"
            "                      (YYYY-MM-DD, UTC)\n"
            "  --sort KEY          core-hours (default), idle, gc, saving, duration, start or shs (the\n"
            "                      History Server's listing order)\n"
            "  --limit N           rows (names with --recurring, keys with --by); default 20, 0 = all\n"
            "  --by KEY            totals per user, queue, platform or name\n"
            "  --recurring         names that ran at least --min-runs times (default 3): mean duration,\n"
            "                      trend (least-squares slope, %% of the mean per run) and the runs that\n"
            "                      regressed: %.2fx the mean duration of up to --window (5) runs before\n"
            "                      them and 60 s longer, or %.2fx their core-hours and 0.1 more\n"
            "  --name NAME         only attempts of this application name\n"
            "  --regress-ratio X   the regression ratio (default 1.25)\n"
            "  --include-deleted   also attempts whose log was deleted\n"
            "  --csv               CSV (one header line; columns in docs/fleet.md)\n\n"
            "common options:\n"
            "  --json              machine-readable output (schema clarity.fleet/1, docs/fleet.md)\n"
            "  --compact           with --json: one line, no indentation\n"
            "  --wide              text tables as wide as their values (default: they fit COLUMNS,\n"
            "                      the terminal, or 100 columns)\n"
            "  -o FILE             write to FILE instead of standard output\n"
            "  -q, --quiet         no progress line on stderr\n"
            "  -h, --help          this help\n\n"
            "exit codes: 0 ok, 2 usage, 3 DIR or the store unreadable (or a store of another version),\n"
            "4 some logs could not be read (stored as unreadable, the others indexed), 5 out of memory\n",
            1.25, 1.25);
}

enum { O_STORE = 0x2000, O_NOFIND, O_WORKERS, O_PLAN, O_ONLY, O_DASK, O_DASKW, O_STATS, O_SINCE, O_SORT, O_LIMIT,
       O_BY, O_RECUR, O_NAME, O_RATIO, O_DELETED, O_CSV, O_MINRUNS, O_WINDOW, O_VERIFY };

static const struct option LONG[] = {
    {"store", required_argument, 0, O_STORE},     {"no-findings", no_argument, 0, O_NOFIND},
    {"workers", required_argument, 0, O_WORKERS}, {"plan", required_argument, 0, O_PLAN},
    {"only", required_argument, 0, O_ONLY},       {"dask", required_argument, 0, O_DASK},
    {"dask-workers", required_argument, 0, O_DASKW}, {"stats", no_argument, 0, O_STATS},
    {"since", required_argument, 0, O_SINCE},     {"sort", required_argument, 0, O_SORT},
    {"limit", required_argument, 0, O_LIMIT},     {"by", required_argument, 0, O_BY},
    {"recurring", no_argument, 0, O_RECUR},       {"name", required_argument, 0, O_NAME},
    {"regress-ratio", required_argument, 0, O_RATIO}, {"include-deleted", no_argument, 0, O_DELETED},
    {"csv", no_argument, 0, O_CSV},               {"min-runs", required_argument, 0, O_MINRUNS},
    {"window", required_argument, 0, O_WINDOW},   {"json", no_argument, 0, OPT_JSON},
    {"compact", no_argument, 0, OPT_COMPACT},     {"wide", no_argument, 0, OPT_WIDE},
    {"verify", no_argument, 0, O_VERIFY},
    {"quiet", no_argument, 0, 'q'},               {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

struct fleet_opts {
    struct common_opts co;
    const char *store, *plan, *only, *dask, *since;
    bool no_findings, stats, csv, verify;
    long long workers, dask_workers;
    struct clarity_fleet_query q;
    size_t limit;
    bool has_by;
};

/* "7d", "24h", "30m", "2w", "90s" before now, or "YYYY-MM-DD" (UTC): Unix ms. */
static bool parse_since(const char *s, int64_t *out)
{
    struct tm tm = {0};
    const char *end = strptime(s, "%Y-%m-%d", &tm);
    if (end && !*end) {
        *out = (int64_t)timegm(&tm) * 1000;
        return true;
    }
    char *e;
    double v = strtod(s, &e);
    double unit = !strcmp(e, "s") ? 1 : !strcmp(e, "m") ? 60 : !strcmp(e, "h") ? 3600 : !strcmp(e, "d") ? 86400
                : !strcmp(e, "w") ? 7 * 86400 : 0;
    if (e == s || unit == 0 || !(v >= 0) || !isfinite(v)) {
        fprintf(stderr, "clarity fleet: --since takes an age (30m, 24h, 7d, 2w) or a date (YYYY-MM-DD), not '%s'\n", s);
        return false;
    }
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    *out = (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000 - (int64_t)(v * unit * 1000);
    return true;
}

static int parse(int argc, char **argv, struct fleet_opts *f)
{
    static const struct opt_choice sorts[] = {
        {"core-hours", CLARITY_STORE_SORT_CORE_HOURS, false}, {"idle", CLARITY_STORE_SORT_IDLE, false},
        {"gc", CLARITY_STORE_SORT_GC, false}, {"saving", CLARITY_STORE_SORT_SAVING, false},
        {"duration", CLARITY_STORE_SORT_DURATION, false}, {"start", CLARITY_STORE_SORT_START, false},
        {"shs", CLARITY_STORE_SORT_SHS, false}, {NULL, 0, false}};
    static const struct opt_choice bys[] = {{"user", CLARITY_STORE_BY_USER, false}, {"queue", CLARITY_STORE_BY_QUEUE, false},
                                            {"platform", CLARITY_STORE_BY_PLATFORM, false}, {"name", CLARITY_STORE_BY_NAME, false},
                                            {NULL, 0, false}};
    f->co.cmd = "fleet";
    f->limit = 20;
    f->q.filter.sort = CLARITY_STORE_SORT_CORE_HOURS;
    int c, v;
    opterr = 0;
    optind = 2;   /* argv[1] is the subcommand */
    while ((c = getopt_long(argc, argv, "o:qh", LONG, NULL)) != -1) {
        if (common_option(&f->co, c, optarg)) continue;
        switch (c) {
        case O_STORE: f->store = optarg; break;
        case O_NOFIND: f->no_findings = true; break;
        case O_VERIFY: f->verify = true; break;
        case O_WORKERS:
            if (!opt_int_range("fleet", "workers", optarg, 1, 1024, &f->workers)) return EXIT_USAGE;
            break;
        case O_PLAN: f->plan = optarg; break;
        case O_ONLY: f->only = optarg; break;
        case O_DASK: f->dask = optarg; break;
        case O_DASKW:
            if (!opt_int_range("fleet", "dask-workers", optarg, 1, 256, &f->dask_workers)) return EXIT_USAGE;
            break;
        case O_STATS: f->stats = true; break;
        case O_SINCE:
            if (!parse_since(optarg, &f->q.filter.min_start_ms)) return EXIT_USAGE;
            f->q.filter.has_min_start = true;
            break;
        case O_SORT:
            if (!opt_choice("fleet", "sort", optarg, sorts, &v)) return EXIT_USAGE;
            f->q.filter.sort = (enum clarity_store_sort)v;
            break;
        case O_LIMIT:
            if (!opt_count("fleet", "limit", optarg, &f->limit)) return EXIT_USAGE;
            break;
        case O_BY:
            if (!opt_choice("fleet", "by", optarg, bys, &v)) return EXIT_USAGE;
            f->q.by = (enum clarity_store_group)v;
            f->q.view = CLARITY_FLEET_TOTALS;
            break;
        case O_RECUR: f->q.view = CLARITY_FLEET_RECURRING; break;
        case O_NAME: f->q.filter.name = optarg; break;
        case O_RATIO: {
            char *e;
            f->q.regress_ratio = strtod(optarg, &e);
            if (e == optarg || *e || !(f->q.regress_ratio > 1) || !isfinite(f->q.regress_ratio)) {
                fprintf(stderr, "clarity fleet: --regress-ratio needs a number above 1, not '%s'\n", optarg);
                return EXIT_USAGE;
            }
            break;
        }
        case O_MINRUNS: {
            long long n;
            if (!opt_int_range("fleet", "min-runs", optarg, 2, 1000000, &n)) return EXIT_USAGE;
            f->q.min_runs = (int)n;
            break;
        }
        case O_WINDOW: {
            long long n;
            if (!opt_int_range("fleet", "window", optarg, 2, 1000, &n)) return EXIT_USAGE;
            f->q.window = (int)n;
            break;
        }
        case O_DELETED: f->q.filter.include_deleted = true; break;
        case O_CSV: f->csv = true; break;
        case 'h': help(stdout); return -1;
        default: return bad_option("fleet", argv, "o:qh");
        }
    }
    f->q.filter.limit = (int64_t)f->limit;
    if (f->csv && f->co.json) {
        fprintf(stderr, "clarity fleet: --csv and --json exclude each other\n");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

static int fail(const char *what, const struct clarity_error *err)
{
    char buf[1200];
    fprintf(stderr, "clarity fleet: %s%s\n", what, clarity_error_format(err, buf, sizeof buf));
    if (err->code == CLARITY_ENOMEM) return EXIT_NOMEM;
    return err->code == CLARITY_EUSAGE ? EXIT_USAGE : EXIT_INPUT;
}

struct prog { bool on; bool shown; };

static void progress(void *ctx, const struct clarity_fleet_stats *st, size_t to_read)
{
    struct prog *p = ctx;
    if (!p->on) return;
    fprintf(stderr, "\rclarity fleet: read %zu of %zu logs (%zu unchanged)\033[K", st->read, to_read, st->unchanged);
    p->shown = true;
}

/* One line a list file, empty lines skipped. */
static char **read_list(const char *path, size_t *n)
{
    FILE *f = fopen(path, "r");
    *n = 0;
    if (!f) {
        fprintf(stderr, "clarity fleet: %s: cannot read\n", path);
        return NULL;
    }
    char **v = NULL, *line = NULL;
    size_t cap = 0, lcap = 0;
    ssize_t len;
    while ((len = getline(&line, &lcap, f)) >= 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if (!len) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            char **nv = realloc(v, cap * sizeof *nv);
            if (!nv) break;
            v = nv;
        }
        if (!(v[*n] = strdup(line))) break;
        (*n)++;
    }
    free(line);
    fclose(f);
    if (!v) v = calloc(1, sizeof *v);
    return v;
}

static const char *dask_script(char *buf, size_t cap)
{
    const char *env = getenv("CLARITY_FLEET_DASK");
    if (env && *env) return env;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        /* build/clarity in a checkout, then an installed PREFIX/bin/clarity */
        snprintf(buf, cap, "%s/../scripts/fleet_dask.py", exe);
        if (access(buf, R_OK) == 0) return buf;
        snprintf(buf, cap, "%s/../share/clarity/fleet_dask.py", exe);
        if (access(buf, R_OK) == 0) return buf;
    }
    return NULL;
}

static int run_dask(const char *dir, const struct fleet_opts *f)
{
    char buf[PATH_MAX + 64], exe[PATH_MAX], workers[32];
    const char *script = dask_script(buf, sizeof buf);
    if (!script) {
        fprintf(stderr, "clarity fleet: --dask: scripts/fleet_dask.py not found (set CLARITY_FLEET_DASK)\n");
        return EXIT_USAGE;
    }
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    snprintf(workers, sizeof workers, "%lld", f->dask_workers ? f->dask_workers : 2);
    const char *py = getenv("CLARITY_PYTHON");
    if (!py || !*py) py = "/usr/bin/python3";   /* Debian's, which has python3-distributed */
    const char *args[16];
    size_t k = 0;
    args[k++] = py;
    args[k++] = script;
    args[k++] = "--scheduler";
    args[k++] = f->dask;
    args[k++] = "--workers";
    args[k++] = workers;
    args[k++] = "--clarity";
    args[k++] = exe;
    args[k++] = "--store";
    args[k++] = f->store;
    if (f->no_findings) args[k++] = "--no-findings";
    if (f->verify) args[k++] = "--verify";
    if (f->co.json) args[k++] = "--json";
    args[k++] = dir;
    args[k] = NULL;
    fflush(stdout);
    execv(py, (char *const *)args);
    fprintf(stderr, "clarity fleet: --dask: cannot run %s\n", py);
    return EXIT_INPUT;
}

static void stats_text(FILE *o, const struct clarity_fleet_stats *st, double secs)
{
    char b1[32], b2[32];
    fprintf(o, "%zu log entries: %zu new, %zu grown, %zu changed, %zu unchanged; %zu marked deleted\n"
               "read %zu (%s, %s of it new), %zu unreadable; wrote %zu attempt(s), %zu finding(s) in %.2f s\n",
            st->entries, st->fresh, st->grown, st->changed, st->unchanged, st->deleted, st->read,
            clarity_fmt_bytes(b1, sizeof b1, (int64_t)st->bytes_read), clarity_fmt_bytes(b2, sizeof b2, (int64_t)st->bytes_new),
            st->unreadable, st->apps, st->findings, secs);
}

static int do_index(int argc, char **argv, struct fleet_opts *f)
{
    if (optind != argc - 1 || !f->store) {
        fprintf(stderr, "clarity fleet: index takes one DIR and --store FILE; see clarity fleet --help\n");
        return EXIT_USAGE;
    }
    const char *dir = argv[optind];
    if (f->dask) return run_dask(dir, f);
    struct clarity_fleet_index_options io = {.no_findings = f->no_findings, .workers = (int)f->workers,
                                             .plan = f->plan != NULL, .verify = f->verify};
    char **only = NULL;
    size_t nonly = 0;
    if (f->only && !(only = read_list(f->only, &nonly))) return EXIT_INPUT;
    io.only = (const char *const *)only;
    io.nonly = nonly;
    struct prog p = {.on = !f->co.quiet && isatty(2)};
    io.progress = progress;
    io.progress_ctx = &p;
    struct clarity_store *s;
    struct clarity_error err = {0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = clarity_store_open(f->store, CLARITY_STORE_CREATE, &s, &err);
    if (rc) rc = fail("", &err);
    struct clarity_fleet_index_result res = {0};
    if (!rc && clarity_fleet_index(s, dir, &io, &res, &err)) rc = fail("", &err);
    if (p.shown) fprintf(stderr, "\r\033[K");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (!rc && f->plan) {
        FILE *pf = fopen(f->plan, "w");
        if (!pf) {
            fprintf(stderr, "clarity fleet: %s: cannot write\n", f->plan);
            rc = EXIT_INPUT;
        } else {
            for (size_t i = 0; i < res.nplan; i++) fprintf(pf, "%s\n", res.plan[i]);
            rc = close_output(pf, "fleet", f->plan, true);
        }
    }
    if (!rc) {
        FILE *o = open_output("fleet", f->co.outpath);
        if (!o) rc = EXIT_INPUT;
        else {
            if (f->co.json) {
                struct jsonw w;
                clarity_jsonw_init(&w, o, !f->co.compact);
                clarity_jsonw_obj_begin(&w);
                clarity_jsonw_kstr(&w, "schema", "clarity.fleet/1");
                clarity_fleet_stats_json(&w, &res.st);
                clarity_jsonw_kint(&w, "planned", (int64_t)res.nplan);
                clarity_jsonw_kdouble(&w, "seconds", secs);
                clarity_jsonw_obj_end(&w);
                clarity_jsonw_end(&w);
            } else {
                stats_text(o, &res.st, secs);
            }
            rc = close_output(o, "fleet", f->co.outpath, true);
        }
        if (f->stats) stats_text(stderr, &res.st, secs);
        if (!rc && res.st.unreadable) rc = EXIT_PARTIAL;
    }
    clarity_fleet_index_result_free(&res);
    clarity_store_close(s);
    for (size_t i = 0; i < nonly; i++) free(only[i]);
    free(only);
    return rc;
}

static int do_query(int argc, char **argv, struct fleet_opts *f)
{
    if (optind != argc - 1) {
        fprintf(stderr, "clarity fleet: query takes one store FILE; see clarity fleet --help\n");
        return EXIT_USAGE;
    }
    struct clarity_store *s;
    struct clarity_error err = {0};
    if (clarity_store_open(argv[optind], CLARITY_STORE_READONLY, &s, &err)) return fail("", &err);
    f->q.width = out_width(&f->co);
    FILE *o = open_output("fleet", f->co.outpath);
    int rc = o ? EXIT_OK : EXIT_INPUT;
    if (o) {
        int qrc;
        if (f->co.json) {
            struct jsonw w;
            char wbuf[1 << 16];
            clarity_jsonw_init(&w, o, !f->co.compact);
            clarity_jsonw_buffer(&w, wbuf, sizeof wbuf);
            clarity_jsonw_obj_begin(&w);
            clarity_jsonw_kstr(&w, "schema", "clarity.fleet/1");
            qrc = clarity_fleet_query_json(&w, s, &f->q, &err);
            clarity_jsonw_obj_end(&w);
            clarity_jsonw_end(&w);
            clarity_jsonw_flush(&w);
        } else {
            qrc = clarity_fleet_query_write(o, s, &f->q, f->csv ? CLARITY_FLEET_CSV : CLARITY_FLEET_TEXT, &err);
        }
        if (qrc) rc = fail("", &err);
        int crc = close_output(o, "fleet", f->co.outpath, !rc);
        if (!rc) rc = crc;
    }
    clarity_store_close(s);
    return rc;
}

static int do_merge(int argc, char **argv, struct fleet_opts *f)
{
    (void)f;
    if (optind > argc - 2) {
        fprintf(stderr, "clarity fleet: merge takes a store FILE and at least one SHARD; see clarity fleet --help\n");
        return EXIT_USAGE;
    }
    struct clarity_store *s;
    struct clarity_error err = {0};
    if (clarity_store_open(argv[optind], CLARITY_STORE_CREATE, &s, &err)) return fail("", &err);
    int rc = EXIT_OK;
    int64_t total = 0;
    for (int i = optind + 1; i < argc && !rc; i++) {
        int64_t n;
        if (clarity_store_merge(s, argv[i], &n, &err)) rc = fail("", &err);
        total += n;
    }
    clarity_store_close(s);
    if (!rc && !f->co.quiet) fprintf(stderr, "clarity fleet: merged %lld log row(s) from %d shard(s)\n",
                                     (long long)total, argc - optind - 1);
    return rc;
}

int cmd_fleet(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        help(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    struct fleet_opts f = {0};
    int rc = parse(argc, argv, &f);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    if (!strcmp(argv[1], "index")) return do_index(argc, argv, &f);
    if (!strcmp(argv[1], "query")) return do_query(argc, argv, &f);
    if (!strcmp(argv[1], "merge")) return do_merge(argc, argv, &f);
    fprintf(stderr, "clarity fleet: unknown subcommand '%s' (index, query or merge); see clarity fleet --help\n", argv[1]);
    return EXIT_USAGE;
}
