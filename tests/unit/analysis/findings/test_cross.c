/* Contention across applications: which applications ran at the same time (the groups the
 * cross-application finding analyses together), on spans worked by hand. The rule itself runs
 * end to end in tests/crossapp/ (synth runs split into applications). */
#include <criterion/criterion.h>
#include <stdint.h>
#include "clarity/findings.h"

Test(findings_cross, groups_chain_and_leave_loners_out)
{
    /* a [0,10) overlaps b [5,20), b overlaps c [18,30): one group, though a and c never met;
       d [30,40) starts as c ends (no overlap), e [50,60) and f [55,56) form a second group,
       g has no known time (0,0) */
    int64_t s[] = {0, 5, 18, 30, 50, 55, 0}, e[] = {10, 20, 30, 40, 60, 56, 0};
    size_t g[7];
    cr_assert_eq(clarity_findings_overlap_groups(s, e, 7, g), 2);
    cr_assert_eq(g[0], 0);
    cr_assert_eq(g[1], 0);
    cr_assert_eq(g[2], 0);
    cr_assert_eq(g[3], SIZE_MAX);
    cr_assert_eq(g[4], 1);
    cr_assert_eq(g[5], 1);
    cr_assert_eq(g[6], SIZE_MAX);
}

Test(findings_cross, groups_numbered_by_first_start_whatever_the_input_order)
{
    int64_t s[] = {100, 0, 105, 3}, e[] = {110, 5, 120, 4};
    size_t g[4];
    cr_assert_eq(clarity_findings_overlap_groups(s, e, 4, g), 2);
    cr_assert_eq(g[1], 0);
    cr_assert_eq(g[3], 0);
    cr_assert_eq(g[0], 1);
    cr_assert_eq(g[2], 1);
}

Test(findings_cross, no_group_without_two_applications)
{
    int64_t s[] = {0}, e[] = {10};
    size_t g[1];
    cr_assert_eq(clarity_findings_overlap_groups(s, e, 1, g), 0);
    cr_assert_eq(g[0], SIZE_MAX);
    cr_assert_eq(clarity_findings_overlap_groups(s, e, 0, g), 0);
}

Test(findings_cross, one_application_gets_nothing)
{
    struct clarity_cross_finding x;
    bool found = true;
    struct clarity_error err = {0};
    struct iqcar_options o;
    clarity_iqcar_options_default(&o);
    cr_assert_eq(clarity_findings_cross(NULL, 1, &o, &x, &found, &err), 0);
    cr_assert(!found);
}
