#include "util/ini.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
    return s;
}

/* One line: 0 or an error (without its location, which the caller adds). */
static int one_line(char *l, unsigned flags, char **section, clarity_ini_fn fn, void *ctx, struct clarity_error *err)
{
    if (flags & CLARITY_INI_INLINE_COMMENTS) {
        char *c = strpbrk(l, "#;");
        if (c) *c = '\0';
    }
    l = trim(l);
    if (!*l || *l == '#' || *l == ';') return 0;
    if (*l == '[') {
        char *e = strchr(l, ']');
        if (!e) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "unterminated section");
        *e = '\0';
        char *name = strdup(trim(l + 1));
        if (!name) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
        free(*section);
        *section = name;
        return fn(ctx, name, NULL, NULL, err);
    }
    char *eq = strchr(l, '=');
    if (!eq) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "expected key = value");
    *eq = '\0';
    return fn(ctx, *section ? *section : "", trim(l), trim(eq + 1), err);
}

int clarity_ini_read(const char *path, unsigned flags, clarity_ini_fn fn, void *ctx, struct clarity_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f) return clarity_error_set(err, CLARITY_EIO, path, 0, 0, "cannot open: %s", strerror(errno));
    char *line = NULL, *section = NULL;
    size_t cap = 0;
    uint64_t ln = 0;
    int rc = 0;
    while (!rc && getline(&line, &cap, f) >= 0) {
        ln++;
        rc = one_line(line, flags, &section, fn, ctx, err);
        if (rc && err) {
            err->line = ln;
            snprintf(err->file, sizeof err->file, "%s", path);
        }
    }
    if (!rc && ferror(f)) rc = clarity_error_set(err, CLARITY_EIO, path, ln, 0, "read error: %s", strerror(errno));
    free(line);
    free(section);
    fclose(f);
    return rc;
}
