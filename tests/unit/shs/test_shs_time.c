/* SHS date text: SimpleDateFormat "yyyy-MM-dd'T'HH:mm:ss.SSS'GMT'" in UTC, Java Date(-1) too. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <time.h>
#include "clarity/shs.h"

static void expect_date(int64_t ms, const char *want)
{
    char buf[32];
    clarity_shs_date(ms, buf);
    cr_assert_str_eq(buf, want, "ms %lld", (long long)ms);
}

Test(shs_time, app_start_from_spark_suite) { expect_date(1422981779720, "2015-02-03T16:42:59.720GMT"); }
Test(shs_time, epoch) { expect_date(0, "1970-01-01T00:00:00.000GMT"); }
/* an unfinished attempt's endTime is new Date(-1) */
Test(shs_time, minus_one_floors) { expect_date(-1, "1969-12-31T23:59:59.999GMT"); }
Test(shs_time, leap_day_millis) { expect_date(1709251199999, "2024-02-29T23:59:59.999GMT"); }

/* The digits are written by hand; every date must read as the printf formatting reads it,
 * from year 0 to 9999 and beyond it (INT64 extremes, which take the printf path). */
Test(shs_time, hand_digits_match_printf)
{
    uint64_t state = 11;
    for (int i = 0; i < 200000; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        int64_t ms;
        switch (i % 4) {
        case 0: ms = (int64_t)(state >> 20) % 253402300800000ll; break;   /* years 1970..9999 */
        case 1: ms = -(int64_t)((state >> 20) % 62167219200000ll); break; /* back to year 0 */
        case 2: ms = (int64_t)(state >> 1) - (int64_t)(state >> 2); break; /* anywhere */
        default: ms = (int64_t)(state >> 40) - (1ll << 23); break;         /* around the epoch */
        }
        const int64_t extremes[] = {INT64_MAX, INT64_MIN, -1, 0, 253402300799999ll, 253402300800000ll, -62167219200001ll};
        if (i < 7) ms = extremes[i];
        char buf[32], want[96];
        clarity_shs_date(ms, buf);
        int64_t s = ms / 1000, r = ms % 1000;
        if (r < 0) r += 1000, s -= 1;
        time_t t = (time_t)s;
        struct tm tm;
        if (!gmtime_r(&t, &tm)) {
            cr_assert_str_eq(buf, "");
            continue;
        }
        snprintf(want, sizeof want, "%04d-%02d-%02dT%02d:%02d:%02d.%03dGMT", tm.tm_year + 1900, tm.tm_mon + 1,
                 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)r);
        want[31] = 0;
        cr_assert_str_eq(buf, want, "ms %lld", (long long)ms);
    }
}
