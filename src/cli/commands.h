/* One function per subcommand; each parses its own options and returns the exit code:
 * 0 ok, 1 problems found when asked to fail on them, 2 usage, 3 input unreadable. */
#ifndef CLARITY_CLI_COMMANDS_H
#define CLARITY_CLI_COMMANDS_H
#include <stdbool.h>
#include <stdio.h>
#include "clarity/model.h"
#include "clarity/source.h"

enum { EXIT_OK = 0, EXIT_PROBLEMS = 1, EXIT_USAGE = 2, EXIT_INPUT = 3 };

int cmd_summary(int argc, char **argv);
int cmd_api(int argc, char **argv);
int cmd_synth(int argc, char **argv);
int cmd_blocked(int argc, char **argv);
int cmd_stragglers(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_ernest(int argc, char **argv);
int cmd_anomalies(int argc, char **argv);
int cmd_contention(int argc, char **argv);
int cmd_whatif(int argc, char **argv);

/* Resolved and loaded applications, in source order; a failed load keeps its error. */
struct loaded_app {
    const struct clarity_app_source *src;
    struct clarity_app *app;     /* NULL when loading failed */
    struct clarity_error err;
};
struct loaded_set {
    struct clarity_source_list sources;
    struct loaded_app *apps;
    size_t n;
    size_t nfailed;
};
/* Resolves and loads every application under paths; prints each problem on stderr as
 * "clarity: file:line: byte N: message". Returns EXIT_OK if at least one app loaded,
 * EXIT_INPUT otherwise. */
int load_all(const char *const *paths, size_t npaths, bool quiet, struct loaded_set *out);
/* Options for commands that read only task metrics and times: no task accumulables, no
 * per-task executor metrics (a third of a log's bytes, skipped before parsing). */
static inline struct clarity_load_options lean_load_options(bool quiet)
{
    return (struct clarity_load_options){.keep_task_accumulables = false, .skip_task_executor_metrics = true,
                                         .quiet = quiet};
}
int load_all_lean(const char *const *paths, size_t npaths, bool quiet, struct loaded_set *out);
/* The same with load options (e.g. without task accumulables, which most commands never read). */
int load_all_opts(const char *const *paths, size_t npaths, bool quiet, const struct clarity_load_options *opt,
                  struct loaded_set *out);
void loaded_set_free(struct loaded_set *s);
/* A progress line on stderr while one log is read: only on a terminal, only after a second,
 * erased when done (see load_all). */
struct progress_line { double start; bool shown; };
void progress_print(void *ctx, const char *file, uint64_t bytes, uint64_t events, uint64_t file_bytes);
/* Opens -o FILE (or stdout for NULL/"-"); prints the error and returns NULL on failure. */
FILE *open_output(const char *path);
void close_output(FILE *f);

#endif
