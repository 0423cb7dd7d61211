#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/commands.h"
#include "cli/common/ladra_inputs.h"
#include "analysis/anomalies/ladra_train.h"

bool ladra_default_model(char *out, size_t cap)
{
    const char *env = getenv("CLARITY_LADRA_MODEL");
    if (env && *env) return snprintf(out, cap, "%s", env), true;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return false;
    exe[n] = 0;
    char *s = strrchr(exe, '/');
    if (!s) return false;
    *s = 0;
    static const char *const rel[] = {"/../models/ladra-default.model", "/../share/clarity/ladra-default.model",
                                      "/../../models/ladra-default.model"};
    for (int i = 0; i < 3; i++) {
        snprintf(out, cap, "%s%s", exe, rel[i]);
        if (!access(out, R_OK)) return true;
    }
    return false;
}

int ladra_read_logs(const char *cmd, struct clarity_logs *L, const char *ex, const char *gc, int64_t off, bool quiet)
{
    struct clarity_error err = {0};
    char eb[1200];
    if (clarity_ladra_logs_read(L, ex, gc, off, &err)) {
        fprintf(stderr, "clarity %s: %s\n", cmd, clarity_error_format(&err, eb, sizeof eb));
        return EXIT_INPUT;
    }
    if (!quiet && !L->gc_records && gc) fprintf(stderr, "clarity %s: no GC record found under %s\n", cmd, gc);
    return EXIT_OK;
}
