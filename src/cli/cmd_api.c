/* clarity api LOGS... REST_PATH: the History Server REST v1 answer for a path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "clarity/shs.h"

static void api_usage(FILE *o)
{
    fprintf(o,
            "usage: clarity api [-o FILE] [--compact] LOGS... REST_PATH\n"
            "       clarity api [--compact] --batch LIST LOGS...\n\n"
            "Prints what the Spark History Server REST API (v1) answers for REST_PATH, computed\n"
            "from the event logs alone. LOGS are log files or directories (a History Server log\n"
            "directory lists every application; attempts of one application are grouped).\n"
            "REST_PATH may start with /api/v1 and may carry a query string, e.g.\n"
            "  /applications[?status=completed&minDate=&maxDate=&minEndDate=&maxEndDate=&limit=N]\n"
            "    (dates as 2015-02-03T16:42:40.000GMT or a GMT day 2015-02-10)\n"
            "  /applications/ID[/ATTEMPT]\n"
            "  .../jobs[?status=succeeded]  .../jobs/ID\n"
            "  .../stages[?status=&details=&withSummaries=&quantiles=]  .../stages/ID[/ATTEMPT]\n"
            "  .../stages/ID/ATTEMPT/taskSummary[?quantiles=0.05,0.5]\n"
            "  .../stages/ID/ATTEMPT/taskList[?offset=&length=&sortBy=&status=]\n"
            "  .../executors  .../allexecutors  .../environment  .../storage/rdd[/ID]\n"
            "  .../allmiscellaneousprocess\n"
            "  .../sql[?details=&planDescription=&offset=&length=]  .../sql/EXECUTION_ID\n"
            "  .../logs     the application's event log files as a ZIP (binary: use -o)\n"
            "  /version\n\n"
            "options:\n"
            "  -o FILE      write the answer (JSON, or the ZIP of .../logs) to FILE instead of stdout\n"
            "  --compact    one-line JSON instead of the History Server's pretty printing\n"
            "  --batch LIST answer every line of LIST, \"REST_PATH<TAB>FILE\": each answer is written\n"
            "               to its FILE as -o writes it, and standard output gets one line a path,\n"
            "               \"EXIT<TAB>REST_PATH\", in LIST's order, EXIT being what a run for that path\n"
            "               alone exits with. The logs are loaded once for each different way the\n"
            "               paths need them loaded, so each answer is the one a run alone gives.\n"
            "               Exits 0 when every line was answered (whatever each EXIT), 2 or 3 when\n"
            "               LIST is malformed or unreadable\n"
            "  --help       this text\n\n"
            "exit: 0 ok, 2 usage or a path the History Server would not route, 3 unreadable\n"
            "logs or an unknown application, job, stage or other id (HTTP 404).\n");
}

/* One path's answer from loaded applications, written to out_path (NULL: stdout): the exit
 * code a run for that path alone gives once its logs are loaded. */
static int answer_one(struct clarity_app_set *set, const char *rest, bool pretty, const char *out_path)
{
    struct clarity_app **apps = calloc(set->n ? set->n : 1, sizeof *apps);
    size_t n = 0;
    for (size_t i = 0; apps && i < set->n; i++)
        if (set->apps[i].app) apps[n++] = set->apps[i].app;
    FILE *out = apps ? open_output("api", out_path) : NULL;
    if (!out) {
        free(apps);
        return EXIT_INPUT;
    }
    struct clarity_error err = {0};
    int status;
    /* streamed: the answer to every task of every stage can outgrow memory */
    int st = clarity_shs_answer_to(apps, n, rest, pretty, out, &status, &err);
    int crc = close_output(out, "api", out_path, st == CLARITY_OK);
    if (st != CLARITY_OK) fprintf(stderr, "clarity api: %s\n", err.msg);
    free(apps);
    /* a path SHS would not route, or a parameter it would not take, is a usage error; an
     * unknown id (and, as always, running out of memory) an input error */
    return st == CLARITY_OK ? crc : st == CLARITY_EUSAGE ? EXIT_USAGE : EXIT_INPUT;
}

/* The load options a path asks for, comparable with memcmp: the struct is zeroed (padding
 * included) before clarity_shs_load_options sets its fields. */
static void path_load_options(const char *rest, struct clarity_load_options *lo)
{
    memset(lo, 0, sizeof *lo);
    clarity_shs_load_options(rest, lo);
}

struct batch_line {
    char *rest, *out;
    struct clarity_load_options lo;
    int rc;
    bool done;
};

/* Reads LIST into *lines; EXIT_OK, or the exit code after one line on stderr. */
static int batch_read(const char *list, struct batch_line **lines, size_t *nlines)
{
    FILE *f = fopen(list, "r");
    if (!f) {
        fprintf(stderr, "clarity api: %s: cannot read: %s\n", list, strerror(errno));
        return EXIT_INPUT;
    }
    char *buf = NULL;
    size_t cap = 0, n = 0, room = 0;
    ssize_t len;
    int rc = EXIT_OK;
    for (size_t lineno = 1; rc == EXIT_OK && (len = getline(&buf, &cap, f)) >= 0; lineno++) {
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) buf[--len] = '\0';
        if (len == 0) continue;
        char *tab = strchr(buf, '\t');
        if (!tab || tab == buf || !tab[1]) {
            fprintf(stderr, "clarity api: %s: line %zu: not \"REST_PATH<TAB>FILE\"\n", list, lineno);
            rc = EXIT_USAGE;
            break;
        }
        *tab = '\0';
        if (n == room) {
            struct batch_line *more = realloc(*lines, (room = room ? 2 * room : 16) * sizeof *more);
            if (!more) { rc = EXIT_NOMEM; break; }
            *lines = more;
        }
        struct batch_line *b = &(*lines)[n];
        *b = (struct batch_line){.rest = strdup(buf), .out = strdup(tab + 1)};
        n++;
        if (!b->rest || !b->out) { rc = EXIT_NOMEM; break; }
        path_load_options(b->rest, &b->lo);
    }
    if (rc == EXIT_OK && ferror(f)) {
        fprintf(stderr, "clarity api: %s: cannot read: %s\n", list, strerror(errno));
        rc = EXIT_INPUT;
    }
    if (rc == EXIT_NOMEM) fprintf(stderr, "clarity api: out of memory reading %s\n", list);
    free(buf);
    fclose(f);
    *nlines = n;
    return rc;
}

/* --batch: each group of paths that load the logs alike shares one load, so the answers and
 * the load paths they exercise are those of one run a path (a test suite asks a dozen paths
 * of every log: one process instead of a dozen). */
static int api_batch(const char *list, const char **logs, size_t nlogs, bool pretty)
{
    struct batch_line *lines = NULL;
    size_t n = 0;
    int rc = batch_read(list, &lines, &n);
    for (size_t i = 0; rc == EXIT_OK && i < n; i++) {
        if (lines[i].done) continue;
        struct clarity_app_set set;
        int lrc = load_set("api", logs, nlogs, false, &lines[i].lo, &set);
        for (size_t j = i; j < n; j++) {
            if (lines[j].done || memcmp(&lines[j].lo, &lines[i].lo, sizeof lines[i].lo)) continue;
            lines[j].rc = lrc == EXIT_OK ? answer_one(&set, lines[j].rest, pretty, lines[j].out) : lrc;
            lines[j].done = true;
        }
        clarity_app_set_free(&set);
    }
    if (rc == EXIT_OK) {
        for (size_t i = 0; i < n; i++) printf("%d\t%s\n", lines[i].rc, lines[i].rest);
        rc = close_output(stdout, "api", NULL, true);
    }
    for (size_t i = 0; i < n; i++) {
        free(lines[i].rest);
        free(lines[i].out);
    }
    free(lines);
    return rc;
}

int cmd_api(int argc, char **argv)
{
    const char *out_path = NULL, *batch = NULL;
    bool pretty = true;
    const char **pos = calloc((size_t)argc + 1, sizeof *pos);
    size_t npos = 0;
    if (!pos) return EXIT_INPUT;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            api_usage(stdout);
            free(pos);
            return EXIT_OK;
        } else if (!strcmp(argv[i], "--compact")) {
            pretty = false;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out_path = argv[++i];
        } else if (!strcmp(argv[i], "--batch") && i + 1 < argc) {
            batch = argv[++i];
        } else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--batch")) {
            /* the last word: named as the others' getopt names it, not as an unknown option */
            fprintf(stderr, "clarity api: option '%s' needs a value; see clarity api --help\n", argv[i]);
            free(pos);
            return EXIT_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1] && strcmp(argv[i], "--")) {
            fprintf(stderr, "clarity api: unknown option '%s'; see clarity api --help\n", argv[i]);
            free(pos);
            return EXIT_USAGE;
        } else if (strcmp(argv[i], "--")) {
            pos[npos++] = argv[i];
        }
    }
    if (batch && out_path) {
        fprintf(stderr, "clarity api: --batch names each answer's file: -o is not taken with it\n");
        free(pos);
        return EXIT_USAGE;
    }
    if (npos == 1 && !batch) {
        /* logs but no path (or a path but no logs): say which is missing in one line */
        fprintf(stderr, "clarity api: give the logs and then a REST_PATH (e.g. /applications); see clarity api --help\n");
        free(pos);
        return EXIT_USAGE;
    }
    if (npos < (batch ? 1u : 2u)) {
        api_usage(stderr);
        free(pos);
        return EXIT_USAGE;
    }
    if (batch) {
        int rc = api_batch(batch, pos, npos, pretty);
        free(pos);
        return rc;
    }
    const char *rest = pos[npos - 1];
    struct clarity_app_set set;
    struct clarity_load_options lo;
    path_load_options(rest, &lo);
    int rc = load_set("api", pos, npos - 1, false, &lo, &set);
    free(pos);
    if (rc == EXIT_OK) rc = answer_one(&set, rest, pretty, out_path);
    clarity_app_set_free(&set);
    return rc;
}
