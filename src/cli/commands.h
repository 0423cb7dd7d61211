/* One function per subcommand; each parses its own options and returns the exit code:
 * 0 ok, 1 problems found when asked to fail on them, 2 usage, 3 input unreadable, 4 some
 * applications could not be read (the others were analysed), 5 out of memory (the input may
 * be fine: a machine with more memory, or fewer applications at once, can read it). */
#ifndef CLARITY_CLI_COMMANDS_H
#define CLARITY_CLI_COMMANDS_H
#include <stdbool.h>
#include <stdio.h>
#include "cli/common/load.h"
#include "cli/common/options.h"
#include "clarity/error.h"
#include "clarity/model.h"
#include "clarity/source.h"

enum { EXIT_OK = 0, EXIT_PROBLEMS = 1, EXIT_USAGE = 2, EXIT_INPUT = 3, EXIT_PARTIAL = 4, EXIT_NOMEM = 5 };

/* The exit code for a failed analysis or report: out of memory has its own, so a script never
 * takes it for an unreadable log; everything else is 3. */
static inline int exit_for_error(int code)
{
    return code == CLARITY_ENOMEM ? EXIT_NOMEM : EXIT_INPUT;
}

int cmd_summary(int argc, char **argv);
int cmd_api(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_synth(int argc, char **argv);
int cmd_blocked(int argc, char **argv);
int cmd_stragglers(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_ernest(int argc, char **argv);
int cmd_anomalies(int argc, char **argv);
int cmd_contention(int argc, char **argv);
int cmd_whatif(int argc, char **argv);
int cmd_findings(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_fleet(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
