/* Sizes, durations and rates as every command takes them, one rule for all:
 *   size      a number and an optional unit: k, M, G, T, P are decimal (10^3 .. 10^15, as disk
 *             and network vendors and Spark's UI count), Ki, Mi, Gi, Ti, Pi are binary (2^10 ..
 *             2^50, as the JVM counts heap); either may be followed by B. "10G" = 10^10 bytes,
 *             "10Gi" = 10 x 2^30. The letter's case does not matter ("512m" = 512M).
 *   duration  a number and an optional unit: ms, s, m or min, h; no unit = seconds. "1.5h" = 5400 s.
 *   rate      a size per second: "125M/s", "1.25GB/s", "150MiB/s"; a bare size is per second too.
 * Values are doubles (sizes reach past 2^53 only in fractions nobody writes). Negative numbers,
 * NaN and infinities are refused; callers check their own ranges. Each parser returns 0 or
 * CLARITY_EUSAGE with err->msg saying what was wrong (without the value, which the caller
 * names), and writes its output only on success. */
#ifndef CLARITY_UTIL_UNITS_H
#define CLARITY_UTIL_UNITS_H
#include <stdbool.h>
#include "clarity/error.h"

int clarity_parse_size(const char *s, double *bytes, struct clarity_error *err);
int clarity_parse_duration(const char *s, double *seconds, struct clarity_error *err);
int clarity_parse_rate(const char *s, double *bytes_per_s, struct clarity_error *err);

/* The same on a value that starts s and may be followed by more text: *rest is where the
 * value ends. *had_unit (may be NULL) says whether a unit was written. */
int clarity_scan_size(const char *s, const char **rest, double *bytes, bool *had_unit, struct clarity_error *err);
int clarity_scan_duration(const char *s, const char **rest, double *seconds, struct clarity_error *err);

/* The decimal or binary prefix starting s ("k", "M", "Gi", ...; any case): its factor, with
 * *rest after it; 1 and *rest = s when s starts with none. For units the parsers above do not
 * cover, such as bits per second. */
double clarity_unit_prefix(const char *s, const char **rest);

/* What --help and error messages say about the units. */
#define CLARITY_SIZE_UNITS "k, M, G, T (10^3..10^12) or Ki, Mi, Gi, Ti (2^10..2^40), optionally followed by B"
#define CLARITY_DURATION_UNITS "ms, s, m, h (no unit: seconds)"

#endif
