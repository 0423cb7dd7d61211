/* SHS date text: SimpleDateFormat "yyyy-MM-dd'T'HH:mm:ss.SSS'GMT'" in UTC, Java Date(-1) too. */
#include <criterion/criterion.h>
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
