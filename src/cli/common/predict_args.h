/* Option values shared by `predict` and `ernest`: number lists with units, ranges. */
#ifndef CLARITY_CLI_PREDICT_ARGS_H
#define CLARITY_CLI_PREDICT_ARGS_H
#include <stdbool.h>
#include <stddef.h>

/* A positive size in util/units.h's units: "100G" (10^11), "1.5e9", "512Mi" (2^29), "2TB".
 * *had_unit is set when a unit was given. Returns false on anything else. */
bool parse_size(const char *s, double *out, bool *had_unit);
/* A positive duration in util/units.h's units: "30m", "1.5h", "90s", "500ms", "45" (seconds) */
bool parse_duration_s(const char *s, double *out);
/* Comma-separated list of sizes; appends to out (cap entries). Returns count or -1. */
int parse_size_list(const char *s, double *out, int cap, bool *had_unit);
/* "1-64" or "8": inclusive integer range */
bool parse_int_range(const char *s, int *lo, int *hi);
/* "0.01-0.1" or "0.05" */
bool parse_real_range(const char *s, double *lo, double *hi);

#endif
