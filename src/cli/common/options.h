/* Options every command shares (--json, --compact, -o, -q/--quiet) and parsers for option
 * values (counts, ranges, one word of a fixed set) that print the command's usage error, so
 * the same mistake gets the same message whatever the command. */
#ifndef CLARITY_CLI_OPTIONS_H
#define CLARITY_CLI_OPTIONS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "clarity/sim.h"

/* getopt_long codes of the shared long options without a short form (above any character, so
 * a command's own codes never collide with them). */
enum { OPT_JSON = 0x1000, OPT_COMPACT, OPT_WIDE };

struct common_opts {
    const char *cmd;             /* "blocked": names the command in messages */
    bool json, compact, quiet;
    bool wide;                   /* --wide: text tables are not fitted to the terminal */
    const char *outpath;         /* -o FILE; NULL or "-": standard output */
};
/* Takes getopt_long's result c when it is --json (OPT_JSON), --compact (OPT_COMPACT),
 * -o FILE ('o') or -q/--quiet ('q'); returns false for any other option. */
bool common_option(struct common_opts *co, int c, const char *arg);

/* The columns text output fits: none with --wide (0); else COLUMNS when set, else the
 * terminal's width when standard output is one, else 100 (a pipe or a file). Only the CLI
 * looks at the environment and the terminal; the reports are given the number. */
size_t out_width(const struct common_opts *co);

/* One word of a fixed set and the value it stands for; a list ends with a NULL name. Hidden
 * words are accepted but not offered in the message. */
struct opt_choice {
    const char *name;
    int value;
    bool hidden;
};
/* *out = the value of the word s. Otherwise prints
 *   clarity CMD: --OPT takes A, B or C, not 'S'
 * and returns false. */
bool opt_choice(const char *cmd, const char *opt, const char *s, const struct opt_choice *choices, int *out);
/* --slots observed|configured */
bool opt_slots(const char *cmd, const char *s, enum clarity_slot_mode *out);

/* A whole number >= 0 (--limit, --top): otherwise prints
 *   clarity CMD: --OPT needs a whole number >= 0, not 'S'
 * and returns false. */
bool opt_count(const char *cmd, const char *opt, const char *s, size_t *out);
/* A whole number from lo to hi: otherwise prints
 *   clarity CMD: --OPT needs a whole number from LO to HI, not 'S'
 * and returns false. */
bool opt_int_range(const char *cmd, const char *opt, const char *s, long long lo, long long hi, long long *out);

/* When no path is left after the options: prints "clarity CMD: no event log given", a blank
 * line and the help on stderr, and returns true. */
bool no_logs_given(const char *cmd, int optind, int argc, void (*help)(FILE *));

/* Opens -o FILE (or stdout for NULL/"-"); prints "clarity CMD: FILE: cannot write: why" and
 * returns NULL on failure. */
FILE *open_output(const char *cmd, const char *path);

/* getopt_long's '?' (run with opterr = 0, so getopt prints nothing): prints one line,
 *   clarity CMD: unknown option '--x'; see clarity CMD --help
 * or "clarity CMD: option '--x' needs a value; see ...", and returns EXIT_USAGE. The whole
 * help is not repeated: the mistake would scroll away above it. */
int bad_option(const char *cmd, char *const *argv, const char *shortopts);
/* Closes (or flushes standard output) and reports a write error that stdio held back: EXIT_OK,
 * or EXIT_INPUT after one line on stderr (when report; false when the caller already said
 * what went wrong). */
int close_output(FILE *f, const char *cmd, const char *path, bool report);

#endif
