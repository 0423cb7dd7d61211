/* What `anomalies` and `findings --deep` share to run LADRA: the default GRNN model file and
 * the executor and GC logs of the log-based mode. */
#ifndef CLARITY_CLI_LADRA_INPUTS_H
#define CLARITY_CLI_LADRA_INPUTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/logs.h"

/* $CLARITY_LADRA_MODEL, else models/ladra-default.model beside the binary (build/ or bin/ one
 * level down): its path in out; false when there is none. */
bool ladra_default_model(char *out, size_t cap);
/* Executor logs (ex) and GC logs (gc) into L, times shifted by off ms; problems on stderr
 * under the command's name. Returns EXIT_OK or EXIT_INPUT. */
int ladra_read_logs(const char *cmd, struct clarity_logs *L, const char *ex, const char *gc, int64_t off, bool quiet);

#endif
