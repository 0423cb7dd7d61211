/* AppStatusStore.taskSummary reads the sorted successful tasks at min(trunc(q*n), n-1). */
#include <criterion/criterion.h>
#include "clarity/shs.h"

Test(shs_quantile, default_quantiles_of_ten_tasks)
{
    const double qs[] = {0.05, 0.25, 0.5, 0.75, 0.95};
    const size_t want[] = {0, 2, 5, 7, 9};
    for (size_t i = 0; i < 5; i++) cr_assert_eq(clarity_shs_quantile_index(qs[i], 10), want[i], "q=%g", qs[i]);
}

Test(shs_quantile, twenty_tasks_truncates_not_rounds)
{
    /* 0.05 * 20 = 1.0000000000000002 and 0.95 * 20 = 19 */
    cr_assert_eq(clarity_shs_quantile_index(0.05, 20), 1);
    cr_assert_eq(clarity_shs_quantile_index(0.95, 20), 19);
    cr_assert_eq(clarity_shs_quantile_index(0.5, 20), 10);
    cr_assert_eq(clarity_shs_quantile_index(0.74, 20), 14);
}

Test(shs_quantile, ends_clamp)
{
    cr_assert_eq(clarity_shs_quantile_index(1.0, 7), 6);
    cr_assert_eq(clarity_shs_quantile_index(0.0, 7), 0);
    cr_assert_eq(clarity_shs_quantile_index(0.99, 1), 0);
}
