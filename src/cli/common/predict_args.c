#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/common/predict_args.h"
#include "util/units.h"

bool parse_size(const char *s, double *out, bool *had_unit)
{
    const char *rest;
    double v;
    bool unit;
    if (clarity_scan_size(s, &rest, &v, &unit, NULL) || *rest || !(v > 0)) return false;
    *out = v;
    if (had_unit && unit) *had_unit = true;
    return true;
}

bool parse_duration_s(const char *s, double *out)
{
    double v;
    if (clarity_parse_duration(s, &v, NULL) || !(v > 0)) return false;
    *out = v;
    return true;
}

int parse_size_list(const char *s, double *out, int cap, bool *had_unit)
{
    int n = 0;
    char buf[64];
    while (*s) {
        size_t len = strcspn(s, ",");
        if (!len || len >= sizeof buf || n >= cap) return -1;
        memcpy(buf, s, len);
        buf[len] = 0;
        if (!parse_size(buf, &out[n++], had_unit)) return -1;
        s += len + (s[len] == ',');
    }
    return n;
}

bool parse_int_range(const char *s, int *lo, int *hi)
{
    char *end;
    long a = strtol(s, &end, 10), b = a;
    if (end == s) return false;
    if (*end == '-') {
        const char *q = end + 1;
        b = strtol(q, &end, 10);
        if (end == q) return false;
    }
    if (*end || a < 1 || b < a || b > 1000000) return false;
    *lo = (int)a;
    *hi = (int)b;
    return true;
}

bool parse_real_range(const char *s, double *lo, double *hi)
{
    char *end;
    double a = strtod(s, &end), b = a;
    if (end == s) return false;
    if (*end == '-') {
        const char *q = end + 1;
        b = strtod(q, &end);
        if (end == q) return false;
    }
    if (*end || !(a > 0) || b < a || !isfinite(b)) return false;
    *lo = a;
    *hi = b;
    return true;
}
