/* Saturating arithmetic (analyses: an extreme value stays visibly extreme) and wrapping
 * arithmetic (the History Server's figures, computed in JVM longs). */
#include <criterion/criterion.h>
#include <stdint.h>
#include "util/checked.h"

Test(checked, saturating_add_and_sub_stop_at_the_limits)
{
    cr_assert_eq(clarity_sat_add(INT64_MAX, 1), INT64_MAX);
    cr_assert_eq(clarity_sat_add(INT64_MAX, INT64_MAX), INT64_MAX);
    cr_assert_eq(clarity_sat_add(INT64_MIN, -1), INT64_MIN);
    cr_assert_eq(clarity_sat_add(1700000000050, 900), 1700000000950);
    cr_assert_eq(clarity_sat_sub(INT64_MIN, 1), INT64_MIN);
    cr_assert_eq(clarity_sat_sub(1000, INT64_MIN), INT64_MAX);
    cr_assert_eq(clarity_sat_sub(5, 7), -2);
}

Test(checked, wrapping_add_and_sub_are_the_jvm_long_results)
{
    /* Java: Long.MAX_VALUE + 1 == Long.MIN_VALUE; 1000 - Long.MIN_VALUE == -9223372036854774808 */
    cr_assert_eq(clarity_wrap_add(INT64_MAX, 1), INT64_MIN);
    cr_assert_eq(clarity_wrap_add(INT64_MAX, INT64_MAX), -2);
    cr_assert_eq(clarity_wrap_sub(1000, INT64_MIN), INT64_MIN + 1000);
    cr_assert_eq(clarity_wrap_sub(-1700000000050, INT64_MAX), INT64_MAX - 1700000000050 + 2);
    cr_assert_eq(clarity_wrap_add(40, 2), 42);
}

Test(checked, saturating_mul_keeps_the_sign)
{
    cr_assert_eq(clarity_sat_mul(INT64_MAX, 2), INT64_MAX);
    cr_assert_eq(clarity_sat_mul(INT64_MIN, 2), INT64_MIN);
    cr_assert_eq(clarity_sat_mul(INT64_MAX - 5, -3), INT64_MIN);
    cr_assert_eq(clarity_sat_mul(-4, -INT64_MAX), INT64_MAX);
    cr_assert_eq(clarity_sat_mul(60000, 16), 960000);
}
