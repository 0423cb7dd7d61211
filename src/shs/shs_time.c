/* SHS prints dates with SimpleDateFormat "yyyy-MM-dd'T'HH:mm:ss.SSS'GMT'" in UTC. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "clarity/shs.h"

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
