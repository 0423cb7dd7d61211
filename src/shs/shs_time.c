/* SHS prints dates with SimpleDateFormat "yyyy-MM-dd'T'HH:mm:ss.SSS'GMT'" in UTC, and reads
 * the listing's date parameters with "yyyy-MM-dd'T'HH:mm:ss.SSSz", else "yyyy-MM-dd" in GMT. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "clarity/shs.h"
#include "shs/shs_internal.h"

/* Up to max digits at *s (at least one); advances *s. */
static bool digits(const char **s, int max, long *out)
{
    long v = 0;
    int n = 0;
    while (n < max && isdigit((unsigned char)**s)) v = v * 10 + (*(*s)++ - '0'), n++;
    *out = v;
    return n > 0;
}

static bool lit(const char **s, char c)
{
    if (**s != c) return false;
    (*s)++;
    return true;
}

/* yyyy-MM-dd at *s as days since the epoch; out-of-range months and days roll over as the
 * lenient SimpleDateFormat rolls them (timegm normalises the same way). */
static bool day(const char **s, int64_t *ms)
{
    long y, mo, d;
    if (!digits(s, 9, &y) || !lit(s, '-') || !digits(s, 4, &mo) || !lit(s, '-') || !digits(s, 4, &d)) return false;
    struct tm tm = {.tm_year = (int)(y - 1900), .tm_mon = (int)(mo - 1), .tm_mday = (int)d};
    *ms = (int64_t)timegm(&tm) * 1000;
    return true;
}

/* The zone of 'z' as SimpleDateFormat parses it: GMT/UTC with an optional +hh[:mm], or an RFC
 * 822 offset +hhmm. Other zone names (PST, ...) are not read: the text then falls back to its
 * day, which is the one place clarity's answer can differ from SHS's. */
static bool zone(const char *s, int64_t *off_ms)
{
    *off_ms = 0;
    if (!strncasecmp(s, "GMT", 3) || !strncasecmp(s, "UTC", 3)) {
        s += 3;
        if (!*s) return true;
    }
    if (*s != '+' && *s != '-') return false;
    int sign = *s++ == '-' ? -1 : 1;
    long h, m = 0;
    const char *start = s;
    if (!digits(&s, 2, &h)) return false;
    if (*s == ':') {
        s++;
        if (!digits(&s, 2, &m)) return false;
    } else if (*s) {
        if (s - start != 2 || !digits(&s, 2, &m)) return false;
    }
    if (*s) return false;
    *off_ms = sign * (h * 3600 + m * 60) * 1000;
    return true;
}

bool clarity__shs_parse_date(const char *text, int64_t *ms)
{
    const char *s = text;
    int64_t d, off;
    long h, mi, sec, frac;
    if (day(&s, &d) && lit(&s, 'T') && digits(&s, 4, &h) && lit(&s, ':') && digits(&s, 4, &mi) && lit(&s, ':') &&
        digits(&s, 4, &sec) && lit(&s, '.') && digits(&s, 9, &frac) && zone(s, &off)) {
        *ms = d + ((int64_t)h * 3600 + mi * 60 + sec) * 1000 + frac - off;
        return true;
    }
    /* DateFormat.parse reads a prefix: "2015-02-03T16:42:40.000" (no zone) is that GMT day */
    s = text;
    return day(&s, ms);
}

void clarity_shs_date(int64_t ms, char *buf)
{
    /* floor division: -1 ms is 1969-12-31T23:59:59.999, as Java's Date(-1) prints */
    int64_t s = ms / 1000, r = ms % 1000;
    if (r < 0) {
        r += 1000;
        s -= 1;
    }
    time_t t = (time_t)s;
    struct tm tm;
    if (!gmtime_r(&t, &tm)) {
        snprintf(buf, 32, "%s", "");
        return;
    }
    /* by hand: a task list writes two dates per task. Years outside 0..9999 (impossible
     * times) take the general path, which prints them as %04d does. */
    int year = tm.tm_year + 1900;
    if (year < 0 || year > 9999) {
        /* fields are range-checked by gmtime_r, but the compiler cannot know: format wide, copy 31 */
        char wide[96];
        snprintf(wide, sizeof wide, "%04d-%02d-%02dT%02d:%02d:%02d.%03dGMT", year, tm.tm_mon + 1, tm.tm_mday,
                 tm.tm_hour, tm.tm_min, tm.tm_sec, (int)r);
        snprintf(buf, 32, "%.31s", wide);
        return;
    }
    const int f[] = {year, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)r};
    static const char sep[] = "--T::.";
    static const int width[] = {4, 2, 2, 2, 2, 2, 3};
    char *p = buf;
    for (int i = 0; i < 7; i++) {
        for (int d = width[i] - 1, v = f[i]; d >= 0; d--, v /= 10) p[d] = (char)('0' + v % 10);
        p += width[i];
        if (i < 6) *p++ = sep[i];
    }
    memcpy(p, "GMT", 4);
}
