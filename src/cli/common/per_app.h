/* The shape every per-application command shares: load every application named, keep those
 * the filter lets through, and for each one print text (separated by blank lines) or one
 * element of the one JSON document {"schema": ..., "applications": [...]}. */
#ifndef CLARITY_CLI_PER_APP_H
#define CLARITY_CLI_PER_APP_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "cli/common/options.h"
#include "report/table.h"
#include "util/jsonw.h"
#include "clarity/model.h"

/* Which applications a command reports on (summary --since/--name); zero: all of them. */
struct app_filter {
    int64_t since_ms;            /* started at or after (epoch ms); 0: any time */
    const char *name;            /* name or id contains it; NULL: any */
};
bool app_filter_keep(const struct app_filter *f, const struct clarity_app *a);

/* The text shape of blocked, stragglers, whatif and findings over several applications: with
 * one application, or with --detail, `one` writes a full report each (separated by a blank
 * line); with several, `row` adds one table row per loaded application (one that could not be
 * read is counted), and after the last the table is written between `title` and the line
 * "N application(s), M could not be read. " that `note` completes. JSON always goes through
 * `one`. The command initialises `table` with its columns and frees it. */
struct per_app_rows {
    bool detail;                 /* --detail: a full report each even when there are several */
    size_t width;                /* the table's width (the command's --wide or terminal) */
    struct table table;          /* one row per application */
    size_t failed;               /* applications that could not be read */
    /* Analyzes a and adds its row to t; 0, or an error code with err filled. */
    int (*row)(void *ctx, const struct clarity_app *a, struct table *t, struct clarity_error *err);
    const char *title;           /* the line(s) above the table, each ending in a newline */
    void (*note)(FILE *o);       /* the rest of the line below the table, and what follows */
};

struct per_app_cmd {
    const char *schema;          /* "clarity.blocked/1" */
    const struct common_opts *out;
    const struct clarity_load_options *load;   /* NULL: lean (lean_load_options) */
    struct app_filter filter;
    /* JSON: after "applications", "failed" (the applications that could not be read) and
     * "skipped" (paths not taken as logs) */
    bool list_problems;
    /* Analyzes and prints one application to text (json NULL) or json; 0, or an error code
     * with err filled (out of memory, a write error): reported, and the command exits 3. */
    int (*one)(void *ctx, const struct clarity_app *a, FILE *text, struct jsonw *json, struct clarity_error *err);
    /* When set, the text output of the whole set instead of `one` per application (summary's
     * table of many applications): `text_each` sees every application in source order,
     * loaded or not (it applies the filter itself; o is NULL until an application has loaded),
     * and `text_end` writes what was gathered. 0, or an error as `one`. */
    int (*text_each)(void *ctx, const struct clarity_app_set *set, size_t i, const struct app_filter *f,
                     FILE *o, struct clarity_error *err);
    int (*text_end)(void *ctx, const struct clarity_app_set *set, FILE *o, struct clarity_error *err);
    /* When set (and text_each is not), the text output of several applications is a table of
     * one row each (see struct per_app_rows); its callbacks get ctx. */
    struct per_app_rows *rows;
    /* When set, called once after every application has been handed over, when output was
     * opened: text after the last application's (or the table), or in JSON inside the
     * document's object after "applications" (it writes a key and its value). For what spans
     * applications (findings --deep: contention across them). 0, or an error as `one`. */
    int (*end)(void *ctx, const struct clarity_app_set *set, FILE *text, struct jsonw *json, struct clarity_error *err);
    void *ctx;
};

/* Loads paths and prints as above, one application at a time: each is analysed and written
 * as soon as it is loaded, then freed, so a directory of many applications never holds them
 * all. Returns the command's exit code. */
int run_per_app(const struct per_app_cmd *c, char *const *paths, size_t npaths);

#endif
