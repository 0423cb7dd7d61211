#include "util/units.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A finite number >= 0 at the start of s; *end after it. */
static int number(const char *s, char **end, double *v, const char *what, struct clarity_error *err)
{
    errno = 0;
    *v = strtod(s, end);
    if (*end == s) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "not a number");
    if (!isfinite(*v) || errno == ERANGE)
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "out of range");
    if (*v < 0)
        return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "a %s cannot be negative", what);
    return 0;
}

double clarity_unit_prefix(const char *s, const char **rest)
{
    static const char prefixes[] = "kmgtp";
    char c = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;
    double m = 1;
    *rest = s;
    for (int i = 0; c && prefixes[i]; i++)
        if (c == prefixes[i]) {
            bool binary = s[1] == 'i' || s[1] == 'I';
            for (int k = 0; k <= i; k++) m *= binary ? 1024.0 : 1000.0;
            *rest = s + 1 + binary;
            break;
        }
    return m;
}

int clarity_scan_size(const char *s, const char **rest, double *bytes, bool *had_unit, struct clarity_error *err)
{
    char *e;
    double v;
    int rc = number(s, &e, &v, "size", err);
    if (rc) return rc;
    const char *p;
    double m = clarity_unit_prefix(e, &p);
    bool unit = p != e;
    if (*p == 'B' || *p == 'b') {
        unit = true;
        p++;
    }
    if (!isfinite(v * m)) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "too large a size");
    *bytes = v * m;
    if (had_unit) *had_unit = unit;
    if (rest) *rest = p;
    return 0;
}

static int unknown(const char *unit, const char *what, const char *units, struct clarity_error *err)
{
    return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "unknown unit '%s' (%s take %s)", unit, what, units);
}

/* the text after the number, for "unknown unit" messages */
static const char *unit_text(const char *s)
{
    char *e;
    strtod(s, &e);
    return e;
}

int clarity_parse_size(const char *s, double *bytes, struct clarity_error *err)
{
    const char *rest;
    double v;
    int rc = clarity_scan_size(s, &rest, &v, NULL, err);
    if (rc) return rc;
    if (*rest) return unknown(unit_text(s), "sizes", CLARITY_SIZE_UNITS, err);
    *bytes = v;
    return 0;
}

int clarity_parse_rate(const char *s, double *bytes_per_s, struct clarity_error *err)
{
    const char *rest;
    double v;
    int rc = clarity_scan_size(s, &rest, &v, NULL, err);
    if (rc) return rc;
    if (*rest && strcmp(rest, "/s"))
        return unknown(unit_text(s), "rates", "SIZE/s, e.g. 125M/s or 150MiB/s, with sizes in " CLARITY_SIZE_UNITS, err);
    *bytes_per_s = v;
    return 0;
}

int clarity_scan_duration(const char *s, const char **rest, double *seconds, struct clarity_error *err)
{
    char *p;
    double v;
    int rc = number(s, &p, &v, "duration", err);
    if (rc) return rc;
    double m = 1;
    if (p[0] == 'm' && p[1] == 's') m = 1e-3, p += 2;
    else if (p[0] == 'm' && p[1] == 'i' && p[2] == 'n') m = 60, p += 3;
    else if (p[0] == 'm') m = 60, p++;
    else if (p[0] == 'h') m = 3600, p++;
    else if (p[0] == 's') p++;
    /* ms divide by 1000, as synth always did: 0.001 is not exact in binary, so multiplying by it
     * could move a value by one ulp */
    double sec = m < 1 ? v / 1000 : v * m;
    if (!isfinite(sec)) return clarity_error_set(err, CLARITY_EUSAGE, NULL, 0, 0, "too long a duration");
    *seconds = sec;
    if (rest) *rest = p;
    return 0;
}

int clarity_parse_duration(const char *s, double *seconds, struct clarity_error *err)
{
    const char *rest;
    double v;
    int rc = clarity_scan_duration(s, &rest, &v, err);
    if (rc) return rc;
    if (*rest) return unknown(unit_text(s), "durations", CLARITY_DURATION_UNITS, err);
    *seconds = v;
    return 0;
}
