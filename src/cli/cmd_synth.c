#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "clarity/synth.h"
#include "report/table.h"

static void help(FILE *o)
{
    size_t n;
    const struct synth_scenario_info *sc = clarity_synth_scenarios(&n);
    fprintf(o,
            "usage: clarity synth SCENARIO [options] -o DIR\n"
            "       clarity synth --scenario FILE.ini [options] -o DIR\n"
            "       clarity synth --list\n\n"
            "Simulates a Spark 3.5 application on a modelled cluster (processor sharing of each host's\n"
            "CPU, disks and NIC; FIFO/FAIR scheduling, locality wait, dynamic allocation, speculation,\n"
            "failures; JVM heap and GC; injected faults) and writes what a real cluster writes:\n"
            "DIR/eventlogs/<app-id>[.zstd|.lz4], DIR/executor-logs/<host>/<executor>/stderr,\n"
            "DIR/driver.log, DIR/gc/<host>-<executor>.log, plus the ground truth: DIR/truth.json and\n"
            "DIR/truth-tasks.jsonl (docs/synth.md). The same options and seed give identical files.\n\n"
            "scenarios:\n");
    for (size_t i = 0; i < n; i++) fprintf(o, "  %-10s %s\n", sc[i].name, sc[i].what);
    fprintf(o,
            "\noptions (sizes: k, M, G, T = 10^3..10^12 or Ki, Mi, Gi, Ti = 2^10..2^40, e.g. 100G or\n"
            "64Gi; rates: SIZE/s, e.g. 1.25G/s; times: ms, s, m, h, e.g. 1.5h):\n"
            "  -o, --out DIR            output directory (required)\n"
            "  --scenario FILE          INI file: 'scenario = NAME' then any option below as key = value\n"
            "  --seed N                 random seed (default 1)\n"
            "  --hosts N --cores N --disks N --host-memory SIZE --disk-bw SIZE/s --nic-bw SIZE/s\n"
            "  --executors-per-host N --executor-cores N --executor-memory SIZE\n"
            "  --data SIZE --split SIZE --partitions N --queries N --iterations N --skew SIGMA\n"
            "  --arrival TIME           mean time between query arrivals (tpcds-mix)\n"
            "  --cpu-scale X            multiply every task's CPU work\n"
            "  --pool fifo|fair         scheduler mode; fair spreads queries over pools etl and bi\n"
            "  --locality-wait TIME     spark.locality.wait (default 3s)\n"
            "  --dynamic-allocation [--min-executors N --max-executors N]\n"
            "  --speculation [--speculation-multiplier X --speculation-quantile Q]\n"
            "  --failure-rate P         probability that a task attempt fails (retried)\n"
            "  --fault KIND@hostN[:START-END][:INTENSITY]   repeatable; KIND cpu-hog, memory-hog,\n"
            "                           disk-hog, network; e.g. cpu-hog@host3:60s-180s:0.8\n"
            "injected problems (each recorded in truth.json \"findings\" in the kind names of clarity findings):\n"
            "  --skew-key F             one partition of the heaviest shuffle stage gets F (0-0.95) of its data\n"
            "  --driver-gap TIME        driver-side time (no task running) before each job\n"
            "  --gc-pressure X          every task allocates X times as much per CPU-second (GC pressure)\n"
            "  --idle-executors N       N more hosts (and executors) than --hosts: over-provisioning\n"
            "  --kill-executor ID@TIME  executor ID dies at TIME (OOM kill; repeatable, at most 4)\n"
            "  (also: --executor-memory small: spill; --partitions below the slots: too few partitions,\n"
            "  far above: tiny tasks; --failure-rate: task failures; --fault cpu-hog: a slow host)\n"
            "  --codec none|zstd|lz4    event log compression (Spark's framings)\n"
            "  --gc-log jdk8|unified    ParallelGC PrintGCDetails (default) or -Xlog:gc* (G1)\n"
            "  --instrument             add iqcar.* task accumulables (true CPU and memory waits)\n"
            "  --keyed-draws            draw each stage's partitions and each task's work from streams\n"
            "                           keyed by what they are: a re-run without a fault keeps the data\n"
            "  --no-logs                event log and truth only (fastest)\n"
            "  --no-truth-tasks         no truth-tasks.jsonl\n"
            "  --truth-bucket TIME      time resolution of the contention truth (default 10s)\n"
            "  --name NAME --start-ms EPOCH_MS\n"
            "  --list                   list the scenarios\n"
            "  -q, --quiet              print nothing on success\n"
            "  --wide                   lines as long as their paths (default: wrapped between paths\n"
            "                           to COLUMNS, the terminal, or 100 columns; paths are never cut)\n"
            "  -h, --help               this help\n\n"
            "exit codes: 0 ok, 2 usage, 3 cannot write the output\n");
}

struct kv { const char *k, *v; };

int cmd_synth(int argc, char **argv)
{
    enum { O_LIST = 1000, O_SCENARIO, O_FLAG, O_NOLOGS, O_NOTRUTH };
    static const char *const keys[] = {
        "seed", "hosts", "cores", "disks", "host-memory", "disk-bw", "nic-bw", "executors-per-host", "executor-cores",
        "executor-memory", "data", "split", "partitions", "queries", "iterations", "skew", "arrival", "cpu-scale", "pool",
        "locality-wait", "min-executors", "max-executors", "speculation-multiplier", "speculation-quantile",
        "failure-rate", "fault", "codec", "gc-log", "truth-bucket", "name", "start-ms", "skew-key", "driver-gap",
        "gc-pressure", "idle-executors", "kill-executor"};
    static const char *const flags[] = {"dynamic-allocation", "speculation", "instrument", "keyed-draws"};
    enum { NKEYS = sizeof keys / sizeof *keys, NFLAGS = sizeof flags / sizeof *flags };
    struct option opts[NKEYS + NFLAGS + 9];
    int no = 0;
    for (int i = 0; i < NKEYS; i++) opts[no++] = (struct option){keys[i], required_argument, 0, 2000 + i};
    for (int i = 0; i < NFLAGS; i++) opts[no++] = (struct option){flags[i], no_argument, 0, 3000 + i};
    opts[no++] = (struct option){"list", no_argument, 0, O_LIST};
    opts[no++] = (struct option){"scenario", required_argument, 0, O_SCENARIO};
    opts[no++] = (struct option){"no-logs", no_argument, 0, O_NOLOGS};
    opts[no++] = (struct option){"no-truth-tasks", no_argument, 0, O_NOTRUTH};
    opts[no++] = (struct option){"out", required_argument, 0, 'o'};
    opts[no++] = (struct option){"quiet", no_argument, 0, 'q'};
    opts[no++] = (struct option){"wide", no_argument, 0, OPT_WIDE};
    opts[no++] = (struct option){"help", no_argument, 0, 'h'};
    opts[no] = (struct option){0, 0, 0, 0};

    struct kv *set = calloc((size_t)argc + 1, sizeof *set);
    if (!set) return EXIT_INPUT;
    int nset = 0, c, rc = EXIT_OK;
    const char *outdir = NULL, *ini = NULL;
    bool quiet = false;
    struct common_opts co = {.cmd = "synth"};
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        if (c >= 2000 && c < 2000 + NKEYS) set[nset++] = (struct kv){keys[c - 2000], optarg};
        else if (c >= 3000 && c < 3000 + NFLAGS) set[nset++] = (struct kv){flags[c - 3000], "true"};
        else if (c == O_NOLOGS) set[nset++] = (struct kv){"logs", "false"};
        else if (c == O_NOTRUTH) set[nset++] = (struct kv){"truth-tasks", "false"};
        else if (c == O_SCENARIO) ini = optarg;
        else if (c == 'o') outdir = optarg;
        else if (c == 'q') quiet = true;
        else if (c == OPT_WIDE) co.wide = true;
        else if (c == 'h') {
            help(stdout);
            free(set);
            return EXIT_OK;
        } else if (c == O_LIST) {
            size_t n;
            const struct synth_scenario_info *sc = clarity_synth_scenarios(&n);
            for (size_t i = 0; i < n; i++) printf("%-10s %s\n", sc[i].name, sc[i].what);
            free(set);
            return EXIT_OK;
        } else {
            free(set);
            return bad_option("synth", argv, "o:qh");
        }
    }
    struct synth_config cfg;
    struct clarity_error err = {0};
    char buf[1200];
    const char *name = optind < argc ? argv[optind] : NULL;
    if (optind + 1 < argc || (!name && !ini) || (name && ini)) {
        fprintf(stderr, "clarity synth: give one scenario name or --scenario FILE (clarity synth --list)\n");
        free(set);
        return EXIT_USAGE;
    }
    if (!outdir) {
        fprintf(stderr, "clarity synth: -o DIR is required\n");
        free(set);
        return EXIT_USAGE;
    }
    int e = ini ? clarity_synth_config_load_ini(&cfg, ini, &err) : clarity_synth_config_init(&cfg, name, &err);
    for (int i = 0; !e && i < nset; i++) e = clarity_synth_config_set(&cfg, set[i].k, set[i].v, &err);
    free(set);
    if (e) {
        fprintf(stderr, "clarity synth: %s\n", clarity_error_format(&err, buf, sizeof buf));
        return err.code == CLARITY_EIO ? EXIT_INPUT : EXIT_USAGE;
    }
    if ((e = clarity_synth_config_check(&cfg, &err))) {
        fprintf(stderr, "clarity synth: %s\n", clarity_error_format(&err, buf, sizeof buf));
        return EXIT_USAGE;
    }
    struct synth_result res;
    if ((e = clarity_synth_run(&cfg, outdir, &res, &err))) {
        fprintf(stderr, "clarity synth: %s\n", clarity_error_format(&err, buf, sizeof buf));
        return err.code == CLARITY_EUSAGE ? EXIT_USAGE : EXIT_INPUT;
    }
    if (!quiet) {
        printf("application  %s  %s, seed %llu\n", res.app_id, cfg.scenario, (unsigned long long)cfg.seed);
        /* paths are never cut (they are to be used): lines wrap between them instead */
        size_t width = out_width(&co);
        clarity_fit_wrapf(stdout, width, "event log    ", "%s  (%llu events, %.1f MB)", res.eventlog,
                          (unsigned long long)res.events, res.eventlog_bytes / 1e6);
        printf("simulated    %.1f s: %llu queries, %llu jobs, %llu stages, %llu task attempts, %llu executors\n",
               res.runtime_ms / 1000.0, (unsigned long long)res.queries, (unsigned long long)res.jobs,
               (unsigned long long)res.stages, (unsigned long long)res.tasks, (unsigned long long)res.executors);
        clarity_fit_wrapf(stdout, width, "truth        ", "%s/truth.json%s  (%llu abnormal tasks, %d fault(s))", outdir,
               cfg.truth_tasks ? ", truth-tasks.jsonl" : "", (unsigned long long)res.abnormal_tasks, cfg.nfaults);
        if (cfg.logs)
            clarity_fit_wrapf(stdout, width, "logs         ", "%s/driver.log, %s/executor-logs/, %s/gc/", outdir, outdir, outdir);
    }
    return rc;
}
