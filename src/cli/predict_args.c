#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/predict_args.h"

bool parse_size(const char *s, double *out, bool *had_unit)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v <= 0) return false;
    double mult = 1;
    bool unit = false;
    switch (*end) {
    case 'k': case 'K': mult = 1e3; unit = true; end++; break;
    case 'M': mult = 1e6; unit = true; end++; break;
    case 'G': mult = 1e9; unit = true; end++; break;
    case 'T': mult = 1e12; unit = true; end++; break;
    case 'P': mult = 1e15; unit = true; end++; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b') { unit = true; end++; }
    if (*end) return false;
    *out = v * mult;
    if (had_unit && unit) *had_unit = true;
    return true;
}

bool parse_duration_s(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v <= 0) return false;
    double mult = 1;
    if (!strcmp(end, "ms")) mult = 1e-3;
    else if (!strcmp(end, "m") || !strcmp(end, "min")) mult = 60;
    else if (!strcmp(end, "h")) mult = 3600;
    else if (*end && strcmp(end, "s")) return false;
    *out = v * mult;
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
