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

Test(findings_cross, windows_of_neighbouring_blocks)
{
    size_t b;
    /* a group that fits is one window, as it always was */
    cr_assert_eq(clarity_findings_cross_windows(10, 16, &b), 1);
    cr_assert_eq(b, 10);
    cr_assert_eq(clarity_findings_cross_windows(16, 16, &b), 1);
    /* 30 applications, 16 at a time: blocks of 8 (8, 8, 8, 6), windows (0,1), (1,2), (2,3) */
    cr_assert_eq(clarity_findings_cross_windows(30, 16, &b), 3);
    cr_assert_eq(b, 8);
    /* 17: blocks 8, 8, 1: two windows; an odd window counts as the even one below it, and
       anything under 4 as 4 (blocks of two) */
    cr_assert_eq(clarity_findings_cross_windows(17, 16, &b), 2);
    cr_assert_eq(clarity_findings_cross_windows(30, 5, &b), 14);
    cr_assert_eq(b, 2);
    cr_assert_eq(clarity_findings_cross_windows(5, 1, &b), 2);
    cr_assert_eq(b, 2);
    cr_assert_eq(clarity_findings_cross_windows(1, 16, &b), 0);
}

Test(findings_cross, overlap_counts_by_sorting)
{
    /* a [0,10) b [5,20) c [18,30) d [30,40) e [0,40) f empty: a meets b and e; b meets a, c, e;
       c meets b, e (d starts as c ends); d meets e; e meets a-d; f nothing and counts for none */
    int64_t s[] = {0, 5, 18, 30, 0, 7}, e[] = {10, 20, 30, 40, 40, 7};
    size_t c[6];
    cr_assert_eq(clarity_findings_overlap_counts(s, e, 6, c), 0);
    size_t want[] = {2, 3, 2, 1, 4, 0};
    for (int i = 0; i < 6; i++) cr_assert_eq(c[i], want[i], "span %d: %zu, expected %zu", i, c[i], want[i]);
}
