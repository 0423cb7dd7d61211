/* Loading for a command: the library's clarity_load_set, plus what only a terminal program
 * does with it: a progress line on stderr and every problem printed. */
#ifndef CLARITY_CLI_LOAD_H
#define CLARITY_CLI_LOAD_H
#include <stdbool.h>
#include "clarity/model.h"

/* Options for commands that read only task metrics and times: no task accumulables, no
 * per-task executor metrics (a third of a log's bytes, skipped before parsing). */
static inline struct clarity_load_options lean_load_options(bool quiet)
{
    return (struct clarity_load_options){.keep_task_accumulables = false, .skip_task_executor_metrics = true,
                                         .quiet = quiet};
}

/* Resolves and loads every application under paths (opt NULL: everything kept; opt->threads
 * also caps how many applications are read at once). On a terminal, unless quiet, a progress
 * line on stderr once loading has taken a second, erased when done. Then prints each problem
 * on stderr as "clarity CMD: file: line N: byte N: message" (and, unless quiet, each path
 * skipped): one line per problem, all with the command's prefix.
 * Returns EXIT_OK if at least one application loaded, EXIT_INPUT otherwise; free *out with
 * clarity_app_set_free in both cases. */
int load_set(const char *cmd, const char *const *paths, size_t npaths, bool quiet, const struct clarity_load_options *opt,
             struct clarity_app_set *out);
/* load_set, streaming: each application (loaded or not) is handed to `each` in source
 * order as soon as it is done, and its model freed after the call (clarity_load_set's
 * `each`); the problems are printed once all are done. */
int load_set_each(const char *cmd, const char *const *paths, size_t npaths, bool quiet, const struct clarity_load_options *opt,
                  struct clarity_app_set *out, void (*each)(void *ctx, const struct clarity_app_set *set, size_t i),
                  void *each_ctx);
/* The problems a set holds, as load_set prints them (skipped paths only when !quiet). */
void print_set_problems(const char *cmd, const struct clarity_app_set *s, bool quiet);
/* How many applications of the set could not be read. */
size_t set_failed_count(const struct clarity_app_set *s);
/* rc, or EXIT_PARTIAL when rc is EXIT_OK but some applications could not be read (the
 * others were analysed): scripts can tell a partial run from a complete one. */
int set_exit_code(const struct clarity_app_set *s, int rc);

#endif
