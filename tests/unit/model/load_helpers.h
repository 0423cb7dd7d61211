/* Loads a fixture from tests/data as one single-file application. */
#ifndef TEST_LOAD_HELPERS_H
#define TEST_LOAD_HELPERS_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/model.h"

static inline int load_fixture(const char *name, struct clarity_app **out, struct clarity_error *err)
{
    const char *root = getenv("CLARITY_ROOT");
    static _Thread_local char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/%s", root ? root : ".", name);
    struct clarity_log_file f = {.path = path, .codec = CLARITY_CODEC_UNKNOWN};
    struct clarity_app_source src = {.path = path, .files = &f, .nfiles = 1};
    return clarity_app_load(&src, NULL, out, err);
}

static inline int load_text(const char *text, struct clarity_app **out, struct clarity_error *err)
{
    char path[] = "/tmp/clarity-test-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    struct clarity_log_file lf = {.path = path, .codec = CLARITY_CODEC_UNKNOWN};
    struct clarity_app_source src = {.path = path, .files = &lf, .nfiles = 1};
    int rc = clarity_app_load(&src, NULL, out, err);
    remove(path);
    return rc;
}
#endif
