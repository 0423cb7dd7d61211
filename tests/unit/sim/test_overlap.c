#include <criterion/criterion.h>
#include "clarity/sim.h"

/* Host 7: A over [0, 10), B over [5, 15), C over [10, 20) (C starts as A ends: no overlap).
 * A: alone 5 ms, with B 5 ms -> 15 ms x tasks. B: with A 5, with C 5 -> 20. C: with B 5, alone
 * 5 -> 15. Host 2: D over [0, 10) alone -> 10, E with no duration -> 0, F ending before it
 * starts counts as its start -> 0. */
Test(sim_overlap, worked_two_hosts)
{
    struct clarity_sim_span s[] = {
        {0, 10, 7}, {5, 15, 7}, {10, 20, 7}, {0, 10, 2}, {4, 4, 2}, {9, 3, 2},
    };
    double out[6];
    size_t hosts = 0;
    cr_assert_eq(clarity_sim_host_overlap(s, 6, out, &hosts), 0);
    cr_assert_eq(hosts, 2);
    cr_assert_float_eq(out[0], 15.0, 1e-12);
    cr_assert_float_eq(out[1], 20.0, 1e-12);
    cr_assert_float_eq(out[2], 15.0, 1e-12);
    cr_assert_float_eq(out[3], 10.0, 1e-12);
    cr_assert_float_eq(out[4], 0.0, 1e-12);
    cr_assert_float_eq(out[5], 0.0, 1e-12);
}

Test(sim_overlap, empty)
{
    size_t hosts = 9;
    cr_assert_eq(clarity_sim_host_overlap(NULL, 0, NULL, &hosts), 0);
    cr_assert_eq(hosts, 0);
}
