/* Sizes, rates and durations: G is 10^9 and Gi 2^30 for every command. */
#include <criterion/criterion.h>
#include "util/units.h"

static double size(const char *s)
{
    double v = -1;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_parse_size(s, &v, &err), 0, "%s: %s", s, err.msg);
    return v;
}

Test(units, decimal_and_binary_sizes)
{
    cr_assert_eq(size("10G"), 10e9);
    cr_assert_eq(size("10Gi"), 10.0 * 1073741824);
    cr_assert_eq(size("10GiB"), 10737418240.0);
    cr_assert_eq(size("10GB"), 1e10);
    cr_assert_eq(size("1.5k"), 1500);
    cr_assert_eq(size("1.5K"), 1500, "the prefix's case does not matter");
    cr_assert_eq(size("512Mi"), 536870912);
    cr_assert_eq(size("512m"), 512e6);
    cr_assert_eq(size("128Ki"), 131072);
    cr_assert_eq(size("2T"), 2e12);
    cr_assert_eq(size("1Ti"), 1099511627776.0);
    cr_assert_eq(size("3P"), 3e15);
    cr_assert_eq(size("4096"), 4096);
    cr_assert_eq(size("1e6"), 1e6);
    cr_assert_eq(size("0"), 0);
}

Test(units, bad_sizes_say_why)
{
    double v = 7;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_parse_size("10X", &v, &err), CLARITY_EUSAGE);
    cr_assert_str_eq(err.msg, "unknown unit 'X' (sizes take k, M, G, T (10^3..10^12) or Ki, Mi, Gi, Ti (2^10..2^40), "
                              "optionally followed by B)");
    cr_assert_eq(clarity_parse_size("10Gx", &v, &err), CLARITY_EUSAGE);
    cr_assert_str_eq(err.msg, "unknown unit 'Gx' (sizes take " CLARITY_SIZE_UNITS ")");
    cr_assert_eq(clarity_parse_size("G", &v, &err), CLARITY_EUSAGE);
    cr_assert_str_eq(err.msg, "not a number");
    cr_assert_eq(clarity_parse_size("-1G", &v, &err), CLARITY_EUSAGE);
    cr_assert_str_eq(err.msg, "a size cannot be negative");
    cr_assert_eq(clarity_parse_size("inf", &v, &err), CLARITY_EUSAGE);
    cr_assert_eq(clarity_parse_size("", &v, &err), CLARITY_EUSAGE);
    cr_assert_eq(clarity_parse_size("10 G", &v, &err), CLARITY_EUSAGE);
    cr_assert_eq(v, 7, "a refused value leaves the output alone");
}

Test(units, rates)
{
    double v;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_parse_rate("125M/s", &v, &err), 0);
    cr_assert_eq(v, 125e6);
    cr_assert_eq(clarity_parse_rate("1.25GB/s", &v, &err), 0);
    cr_assert_eq(v, 1.25e9);
    cr_assert_eq(clarity_parse_rate("150MiB/s", &v, &err), 0);
    cr_assert_eq(v, 150.0 * 1048576);
    cr_assert_eq(clarity_parse_rate("1250M", &v, &err), 0, "a bare size is per second");
    cr_assert_eq(v, 1.25e9);
    cr_assert_eq(clarity_parse_rate("10G/h", &v, &err), CLARITY_EUSAGE);
    cr_assert(strstr(err.msg, "unknown unit 'G/h'") == err.msg, "%s", err.msg);
}

Test(units, durations)
{
    double v;
    struct clarity_error err = {0};
    cr_assert_eq(clarity_parse_duration("1.5h", &v, &err), 0);
    cr_assert_eq(v, 5400);
    cr_assert_eq(clarity_parse_duration("2m", &v, &err), 0);
    cr_assert_eq(v, 120);
    cr_assert_eq(clarity_parse_duration("2min", &v, &err), 0);
    cr_assert_eq(v, 120);
    cr_assert_eq(clarity_parse_duration("90", &v, &err), 0);
    cr_assert_eq(v, 90);
    cr_assert_eq(clarity_parse_duration("90s", &v, &err), 0);
    cr_assert_eq(v, 90);
    cr_assert_eq(clarity_parse_duration("250ms", &v, &err), 0);
    cr_assert_eq(v, 0.25);
    cr_assert_eq(clarity_parse_duration("3d", &v, &err), CLARITY_EUSAGE);
    cr_assert_str_eq(err.msg, "unknown unit 'd' (durations take ms, s, m, h (no unit: seconds))");
    cr_assert_eq(clarity_parse_duration("-5s", &v, &err), CLARITY_EUSAGE);
    cr_assert_str_eq(err.msg, "a duration cannot be negative");
}

Test(units, scanning_a_window)
{
    /* synth's fault windows: "60s-3m" is two durations around a dash */
    const char *s = "60s-3m:0.8", *rest;
    double a, b;
    cr_assert_eq(clarity_scan_duration(s, &rest, &a, NULL), 0);
    cr_assert_eq(a, 60);
    cr_assert_eq(*rest, '-');
    cr_assert_eq(clarity_scan_duration(rest + 1, &rest, &b, NULL), 0);
    cr_assert_eq(b, 180);
    cr_assert_str_eq(rest, ":0.8");
    bool unit = true;
    cr_assert_eq(clarity_scan_size("2.5,4G", &rest, &a, &unit, NULL), 0);
    cr_assert(a == 2.5 && !unit && *rest == ',');
    cr_assert_eq(clarity_scan_size("4G,1", &rest, &a, &unit, NULL), 0);
    cr_assert(a == 4e9 && unit && *rest == ',');
    cr_assert_eq(clarity_unit_prefix("Gbps", &rest), 1e9);
    cr_assert_str_eq(rest, "bps");
    cr_assert_eq(clarity_unit_prefix("Mibps", &rest), 1048576);
    cr_assert_eq(clarity_unit_prefix("bps", &rest), 1);
    cr_assert_str_eq(rest, "bps");
}
