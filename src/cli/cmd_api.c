#include "cli/commands.h"
/* Placeholder until the SHS REST layer lands: says so instead of pretending. */
int cmd_api(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "clarity api: not implemented yet\n");
    return EXIT_USAGE;
}
