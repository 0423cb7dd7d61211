#include <stdio.h>
#include <string.h>
#include "cli/commands.h"

#define CLARITY_VERSION "0.1.0"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *what;
} commands[] = {
    /* one line each within 80 columns with the two-space indent and the name column, so that
     * `clarity --help` fits the narrowest usual terminal */
    {"summary", cmd_summary, "jobs, stages, executors, SQL queries and an integrity report"},
    {"findings", cmd_findings, "what to fix first: ranked findings, time each saves, the setting"},
    {"report", cmd_report, "one self-contained HTML page per application (or directory)"},
    {"api", cmd_api, "Spark History Server REST v1 JSON for a path, from the logs alone"},
    {"serve", cmd_serve, "a Spark History Server (REST v1 over HTTP) for a log directory"},
    {"synth", cmd_synth, "simulate a Spark cluster: event, executor and GC logs, ground truth"},
    {"blocked", cmd_blocked, "what each resource (network, disk, GC, stragglers...) cost"},
    {"stragglers", cmd_stragglers, "stragglers per stage and their causes, slow hosts, data skew"},
    {"predict", cmd_predict, "time at a new data size and core count from small runs (PERIDOT)"},
    {"ernest", cmd_ernest, "Ernest: small runs to make, fit, predict, machines for a deadline"},
    {"anomalies", cmd_anomalies, "abnormal tasks: where, when and why (cpu, memory, disk...): LADRA"},
    {"contention", cmd_contention, "which concurrent queries slowed a query, where and how (iQCAR)"},
    {"whatif", cmd_whatif, "other hardware or core counts: resource model, DAG replay"},
    {"diff", cmd_diff, "what changed between two runs: where B got slower or faster, why"},
    {"fleet", cmd_fleet, "many logs in one store, read incrementally: worst apps, regressions"},
};

static void usage(FILE *o)
{
    fprintf(o, "usage: clarity <command> [options] <logs...>\n\n"
               "Explains the performance of Apache Spark applications from their event logs\n"
               "(Spark 1.x-4.x; plain, lz4, lzf, snappy, zstd, gz; files, rolling and legacy\n"
               "directories, directories of many applications).\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(o, "  %-10s %s\n", commands[i].name, commands[i].what);
    fprintf(o, "\nStart with `clarity findings LOG`. `clarity <command> --help` describes each\n"
               "command; `clarity --version` prints the version.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("clarity %s\n", CLARITY_VERSION);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "clarity: unknown command '%s'; see clarity --help\n", argv[1]);
    return EXIT_USAGE;
}
