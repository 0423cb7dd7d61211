#include <errno.h>
#include <getopt.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/common/options.h"

bool common_option(struct common_opts *co, int c, const char *arg)
{
    switch (c) {
    case OPT_JSON: co->json = true; return true;
    case OPT_COMPACT: co->compact = true; return true;
    case 'q': co->quiet = true; return true;
    case 'o': co->outpath = arg; return true;
    case OPT_WIDE: co->wide = true; return true;
    default: return false;
    }
}

size_t out_width(const struct common_opts *co)
{
    if (co->wide) return 0;
    const char *env = getenv("COLUMNS");
    long v = env ? strtol(env, NULL, 10) : 0;
    if (v >= 40 && v <= 100000) return (size_t)v;
    struct winsize ws;
    if ((!co->outpath || !strcmp(co->outpath, "-")) && isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
        ws.ws_col >= 40)
        return ws.ws_col;
    return 100;
}

bool opt_choice(const char *cmd, const char *opt, const char *s, const struct opt_choice *choices, int *out)
{
    for (const struct opt_choice *c = choices; c->name; c++)
        if (!strcmp(s, c->name)) {
            *out = c->value;
            return true;
        }
    size_t offered = 0, k = 0;
    for (const struct opt_choice *c = choices; c->name; c++) offered += !c->hidden;
    fprintf(stderr, "clarity %s: --%s takes ", cmd, opt);
    for (const struct opt_choice *c = choices; c->name; c++) {
        if (c->hidden) continue;
        k++;
        fprintf(stderr, "%s%s", k == 1 ? "" : k == offered ? " or " : ", ", c->name);
    }
    fprintf(stderr, ", not '%s'\n", s);
    return false;
}

bool opt_slots(const char *cmd, const char *s, enum clarity_slot_mode *out)
{
    static const struct opt_choice modes[] = {
        {"observed", CLARITY_SLOTS_OBSERVED, false}, {"configured", CLARITY_SLOTS_CONFIGURED, false}, {0}};
    int v;
    if (!opt_choice(cmd, "slots", s, modes, &v)) return false;
    *out = (enum clarity_slot_mode)v;
    return true;
}

/* A whole decimal number, nothing before or after it. */
static bool whole(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno) return false;
    *out = v;
    return true;
}

bool opt_count(const char *cmd, const char *opt, const char *s, size_t *out)
{
    long long v;
    if (!whole(s, &v) || v < 0) {
        fprintf(stderr, "clarity %s: --%s needs a whole number >= 0, not '%s'\n", cmd, opt, s);
        return false;
    }
    *out = (size_t)v;
    return true;
}

bool opt_int_range(const char *cmd, const char *opt, const char *s, long long lo, long long hi, long long *out)
{
    long long v;
    if (!whole(s, &v) || v < lo || v > hi) {
        fprintf(stderr, "clarity %s: --%s needs a whole number from %lld to %lld, not '%s'\n", cmd, opt, lo, hi, s);
        return false;
    }
    *out = v;
    return true;
}

bool no_logs_given(const char *cmd, int optind, int argc, void (*help)(FILE *))
{
    if (optind < argc) return false;
    fprintf(stderr, "clarity %s: no event log given\n\n", cmd);
    help(stderr);
    return true;
}

FILE *open_output(const char *cmd, const char *path)
{
    if (!path || strcmp(path, "-") == 0) return stdout;
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "clarity %s: %s: cannot write: %s\n", cmd, path, strerror(errno));
    return f;
}

int bad_option(const char *cmd, char *const *argv, const char *shortopts)
{
    /* getopt leaves optind past the offending word. For a long option, optopt is its value
     * when only its argument is missing and 0 when it is unknown; for a short one, its letter
     * either way, so the option string tells which */
    char shortname[3] = {'-', (char)optopt, '\0'};
    const char *word = optind > 0 && argv[optind - 1] ? argv[optind - 1] : "?";
    bool missing = optopt != 0;
    if (strncmp(word, "--", 2) != 0 && optopt > 0 && optopt < 0x80) {
        const char *p = strchr(shortopts, optopt);
        missing = p && p[1] == ':';
        word = shortname;
    }
    if (missing) fprintf(stderr, "clarity %s: option '%s' needs a value; see clarity %s --help\n", cmd, word, cmd);
    else fprintf(stderr, "clarity %s: unknown option '%s'; see clarity %s --help\n", cmd, word, cmd);
    return EXIT_USAGE;
}

int close_output(FILE *f, const char *cmd, const char *path, bool report)
{
    /* stdio keeps small output in its buffer: a full disk or a closed pipe shows only here */
    bool failed = !f || ferror(f);
    if (f && f != stdout) failed |= fclose(f) != 0;
    else failed |= fflush(stdout) != 0;
    if (!failed) return EXIT_OK;
    if (report)
        fprintf(stderr, "clarity %s: cannot write %s: %s\n", cmd, path && strcmp(path, "-") ? path : "standard output",
                errno ? strerror(errno) : "write error");
    return EXIT_INPUT;
}
