#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "clarity/report.h"

const char *clarity_fmt_ms(char *buf, size_t cap, int64_t ms)
{
    if (ms < 0) snprintf(buf, cap, "-");
    else if (ms < 1000) snprintf(buf, cap, "%lld ms", (long long)ms);
    else if (ms < 120000) snprintf(buf, cap, "%.1f s", ms / 1e3);
    else if (ms < 7200000) snprintf(buf, cap, "%.1f min", ms / 6e4);
    else snprintf(buf, cap, "%.1f h", ms / 3.6e6);
    return buf;
}

const char *clarity_fmt_bytes(char *buf, size_t cap, int64_t b)
{
    static const char *units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    if (b == 0) {
        snprintf(buf, cap, "0");
        return buf;
    }
    double v = (double)b;
    int u = 0;
    while ((v >= 1000 || v <= -1000) && u < 5) {
        v /= 1000;
        u++;
    }
    if (u == 0) snprintf(buf, cap, "%lld B", (long long)b);
    else snprintf(buf, cap, "%.1f %s", v, units[u]);
    return buf;
}

const char *clarity_fmt_time(char *buf, size_t cap, int64_t ms)
{
    if (ms <= 0) {
        snprintf(buf, cap, "-");
        return buf;
    }
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    char d[32];
    strftime(d, sizeof d, "%Y-%m-%d %H:%M:%S", &tm);
    snprintf(buf, cap, "%s.%03d", d, (int)(ms % 1000));
    return buf;
}

int clarity_report_status(FILE *o, struct clarity_error *err)
{
    if (!ferror(o)) return 0;
    int e = errno ? errno : EIO;
    return clarity_error_set(err, CLARITY_EIO, NULL, 0, 0, "cannot write the report: %s", strerror(e));
}
