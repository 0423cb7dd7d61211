/* The shape most analysis commands share: load every application named, then for each one
 * that loaded, analyze it and print text (separated by blank lines) or one JSON document
 * {"schema": ..., "applications": [...]}. */
#ifndef CLARITY_CLI_PER_APP_H
#define CLARITY_CLI_PER_APP_H
#include <stdbool.h>
#include <stdio.h>
#include "util/jsonw.h"
#include "clarity/model.h"

struct per_app_cmd {
    const char *name;            /* "blocked", for messages */
    const char *schema;          /* "clarity.blocked/1" */
    bool json, compact, quiet;
    const char *outpath;         /* NULL or "-": standard output */
    /* Analyzes and prints one application to text (json NULL) or json; 0, or an error code
     * with err filled (out of memory, a write error): reported, and the command exits 3. */
    int (*one)(void *ctx, const struct clarity_app *a, FILE *text, struct jsonw *json, struct clarity_error *err);
    void *ctx;
};

/* Loads paths lean (no task accumulables, no per-task executor metrics) and runs c->one on
 * each application. Returns the command's exit code. */
int run_per_app(const struct per_app_cmd *c, char *const *paths, size_t npaths);

#endif
