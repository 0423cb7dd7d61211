/* An SQL metric's value as the History Server prints it (SQLMetrics.stringValue of Spark 3.5):
 * - sum: the total with US grouping ("1,234");
 * - size, timing, nsTiming: one valid value alone in its unit, else
 *   "total (min, med, max (stageId: taskId))\n<sum> (<min>, <med>, <max> (stage S.A: task T))";
 * - average (tenths): "(min, med, max (stageId: taskId)):\n(<min>, <med>, <max> (stage ...))";
 * - a connector's custom metric: "N/A" (a History Server cannot load the connector's class).
 * The unit texts are Utils.bytesToString (binary units, one decimal, half up on the exact
 * quotient) and Utils.msDurationToString ("%.1f s" of a float quotient, as Java's Formatter
 * rounds it: half up on the shortest decimal text of the value). nsTiming is first truncated
 * to ms. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shs/shs_internal.h"

/* res (n characters) into out, cut to what out holds: the callers build a figure in a local
 * buffer first, as its length is known only at the end */
static void copy_cut(char *out, size_t cap, const char *res, size_t n)
{
    size_t keep = n < cap - 1 ? n : cap - 1;
    memcpy(out, res, keep);
    out[keep] = 0;
}

/* Java's "%.Nf" of a double: the shortest digits that read back as d, rounded half up. */
static void java_fixed(double d, int decimals, char *out, size_t cap)
{
    char e[40];
    int p;
    for (p = 1; p <= 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, d);
        if (strtod(e, NULL) == d) break;
    }
    if (p > 17) p = 17, snprintf(e, sizeof e, "%.16e", d);
    bool neg = e[0] == '-';
    const char *m = e + neg;
    char digits[24];
    size_t nd = 0;
    for (; *m && *m != 'e'; m++)
        if (*m >= '0' && *m <= '9') digits[nd++] = *m;
    int exp10 = *m == 'e' ? atoi(m + 1) : 0;
    /* value = 0.d1d2... x 10^(exp10 + 1): digit i has weight 10^(exp10 - i) */
    int ipart = exp10 + 1;                       /* digits before the point */
    char buf[64];
    size_t n = 0;
    /* integer digits */
    if (ipart <= 0) buf[n++] = '0';
    for (int i = 0; i < ipart && n < 40; i++) buf[n++] = i < (int)nd ? digits[i] : '0';
    size_t point = n;
    for (int f = 0; f < decimals + 1 && n < 60; f++) {   /* one guard digit */
        int i = ipart + f;
        buf[n++] = i >= 0 && i < (int)nd ? digits[i] : '0';
    }
    bool up = buf[n - 1] >= '5';
    n--;
    for (size_t i = n; up && i-- > 0;) {
        if (buf[i] == '9') buf[i] = '0';
        else {
            buf[i]++;
            up = false;
        }
    }
    char res[72];
    size_t r = 0;
    if (neg) res[r++] = '-';
    if (up) res[r++] = '1';
    for (size_t i = 0; i < n; i++) {
        if (i == point) res[r++] = '.';
        res[r++] = buf[i];
    }
    res[r] = 0;
    copy_cut(out, cap, res, r);
}

/* Utils.msDurationToString */
static void ms_text(int64_t ms, char *out, size_t cap)
{
    char num[80];
    if (ms < 1000) {
        snprintf(out, cap, "%" PRId64 " ms", ms);
        return;
    }
    /* Java divides floats here: t.toFloat / second */
    volatile float f;
    const char *unit;
    int dec = 1;
    if (ms < 60000) f = (float)ms / 1000.0f, unit = "s";
    else if (ms < 3600000) f = (float)ms / 60000.0f, unit = "m";
    else f = (float)ms / 3600000.0f, unit = "h", dec = 2;
    java_fixed((double)f, dec, num, sizeof num);
    snprintf(out, cap, "%s %s", num, unit);
}

/* Utils.bytesToString: the largest binary unit the value is at least twice of */
static void size_text(int64_t size, char *out, size_t cap)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int k = 0;
    for (int u = 6; u > 0; u--)
        if (size >= 2 * ((int64_t)1 << (10 * u))) {
            k = u;
            break;
        }
    bool neg = size < 0;
    unsigned __int128 n = (unsigned __int128)(neg ? -(__int128)size : (__int128)size) * 10;
    unsigned __int128 q = n >> (10 * k), rem = n - (q << (10 * k));
    if (k && rem * 2 >= ((unsigned __int128)1 << (10 * k))) q++;   /* HALF_UP on the exact quotient */
    snprintf(out, cap, "%s%" PRIu64 ".%u %s", neg ? "-" : "", (uint64_t)(q / 10), (unsigned)(q % 10), units[k]);
}

/* NumberFormat (Locale.US) of an integer: grouped by thousands */
static void grouped(int64_t v, char *out, size_t cap)
{
    char d[32];
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    int n = snprintf(d, sizeof d, "%" PRIu64, u);
    char res[48];
    size_t r = 0;
    if (v < 0) res[r++] = '-';
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0) res[r++] = ',';
        res[r++] = d[i];
    }
    res[r] = 0;
    copy_cut(out, cap, res, r);
}

/* toNumberFormat: an average metric holds tenths */
static void avg_text(int64_t v, char *out, size_t cap)
{
    char ip[64];
    grouped(v / 10, ip, sizeof ip);
    int64_t f = v % 10;
    if (f < 0) f = -f;
    if (f) snprintf(out, cap, "%s%s.%d", v < 0 && v / 10 == 0 ? "-" : "", ip, (int)f);
    else snprintf(out, cap, "%s", ip);
}

static void unit_text(uint8_t kind, int64_t v, char *out, size_t cap)
{
    switch (kind) {
    case CLARITY_SQLM_SIZE: size_text(v, out, cap); break;
    case CLARITY_SQLM_TIMING: ms_text(v, out, cap); break;
    case CLARITY_SQLM_NS_TIMING: ms_text(v / 1000000, out, cap); break;
    default: avg_text(v, out, cap); break;
    }
}

bool clarity__shs_sql_value_text(const struct clarity_sql_value *v, char *out, size_t cap)
{
    char info[96], a[128], b[128], c[128], d[128];
    switch (v->kind) {
    case CLARITY_SQLM_SUM:
        grouped(v->total, out, cap);
        return true;
    case CLARITY_SQLM_CUSTOM:
        snprintf(out, cap, "N/A");
        return true;
    case CLARITY_SQLM_SIZE: case CLARITY_SQLM_TIMING: case CLARITY_SQLM_NS_TIMING: case CLARITY_SQLM_AVERAGE:
        break;
    default:
        return false;   /* SHS fails on a type it does not know */
    }
    if (v->n <= 1) {
        unit_text(v->kind, v->n ? v->min : 0, out, cap);
        return true;
    }
    if (v->has_max)
        snprintf(info, sizeof info, "(stage %" PRId64 ".%" PRId64 ": task %" PRId64 ")", v->max_stage, v->max_attempt,
                 v->max_task);
    else snprintf(info, sizeof info, "(driver)");
    unit_text(v->kind, v->min, b, sizeof b);
    unit_text(v->kind, v->med, c, sizeof c);
    unit_text(v->kind, v->max, d, sizeof d);
    if (v->kind == CLARITY_SQLM_AVERAGE) {
        snprintf(out, cap, "(min, med, max (stageId: taskId)):\n(%s, %s, %s %s)", b, c, d, info);
        return true;
    }
    unit_text(v->kind, v->total, a, sizeof a);
    snprintf(out, cap, "total (min, med, max (stageId: taskId))\n%s (%s, %s, %s %s)", a, b, c, d, info);
    return true;
}
