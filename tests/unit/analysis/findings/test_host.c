/* slow_host's replay rate (src/analysis/findings/fnd_host.c, clarity_fnd_host_near): a slow
 * host's task is replayed at the median time per byte of the 5 other hosts' tasks nearest to
 * it in input bytes. Worked on a stage whose time per byte falls with size, as a fixed part
 * per task makes it: host 2's ten tasks read 10, 20, ..., 100 MB in 200 + 10 ms a MB, so their
 * rates are 20 / i + 10 ms a MB for i = 1..10: 30, 20, 16.67, 15, 14, 13.33, 12.86, 12.5,
 * 12.22, 12. */
#include <criterion/criterion.h>
#include <string.h>
#include "analysis/findings/fnd_internal.h"

#define MB 1000000LL

static void mk(struct clarity_task_comp *c, uint32_t host, int64_t bytes, double run)
{
    memset(c, 0, sizeof *c);
    c->host = host;
    c->runtime_ms = run;
    c->shuffle_read_bytes = bytes;
}

/* host 2's ten tasks, then host 1's: 100 MB, 35 MB and one that read nothing */
static size_t stage(struct clarity_task_comp *c)
{
    size_t n = 0;
    for (int i = 1; i <= 10; i++) mk(&c[n++], 2, 10 * i * MB, 200 + 100.0 * i);
    mk(&c[n++], 1, 100 * MB, 4000);
    mk(&c[n++], 1, 35 * MB, 2000);
    mk(&c[n++], 1, 0, 500);
    return n;
}

/* 100 MB: the nearest five are 100, 90, 80, 70 and 60 MB, rates 12, 12.22, 12.5, 12.86 and
   13.33: median 12.5 ms a MB, 1250 ms (the median over all ten, (14 + 13.33) / 2 = 13.67,
   would give 1366.7 ms). 35 MB: 40 (x1.14), 30 (x1.17), 50 (x1.43), 60 (x1.71), 20 (x1.75),
   rates 15, 16.67, 14, 13.33, 20: median 15 ms a MB, 525 ms. The task with no input and the
   other host's tasks get 0. */
Test(host_near, nearest_in_size_worked)
{
    struct clarity_task_comp c[13];
    size_t m = stage(c);
    double out[13];
    cr_assert_eq(clarity_fnd_host_near(c, m, 1, out), 0);
    cr_assert_float_eq(out[10] * MB, 12.5, 1e-9);
    cr_assert_float_eq(clarity_dolly_runtime(&c[10], out[10]), 1250.0, 1e-6);
    cr_assert_float_eq(out[11] * MB, 15.0, 1e-9);
    cr_assert_float_eq(clarity_dolly_runtime(&c[11], out[11]), 525.0, 1e-6);
    cr_assert_eq(out[12], 0.0);
    for (size_t i = 0; i < 10; i++) cr_assert_eq(out[i], 0.0);
}

/* Fewer than five tasks elsewhere: all of them, so the rate is their plain median (host 2's
   20, 40 and 60 MB tasks at 20, 15 and 13.33 ms a MB: 15) */
Test(host_near, fewer_others_take_all)
{
    struct clarity_task_comp c[4];
    mk(&c[0], 2, 20 * MB, 400);
    mk(&c[1], 2, 40 * MB, 600);
    mk(&c[2], 2, 60 * MB, 800);
    mk(&c[3], 1, 100 * MB, 5000);
    double out[4];
    cr_assert_eq(clarity_fnd_host_near(c, 4, 1, out), 0);
    cr_assert_float_eq(out[3] * MB, 15.0, 1e-9);
    cr_assert_float_eq(clarity_dolly_runtime(&c[3], out[3]), 1500.0, 1e-6);
}

/* A task already faster than its neighbours keeps its own time (Dolly's rule only slows
   nothing down): host 1's 100 MB task in 1000 ms, 10 ms a MB, under the 12.5 */
Test(host_near, faster_task_kept)
{
    struct clarity_task_comp c[13];
    size_t m = stage(c);
    c[10].runtime_ms = 1000;
    double out[13];
    cr_assert_eq(clarity_fnd_host_near(c, m, 1, out), 0);
    cr_assert_float_eq(clarity_dolly_runtime(&c[10], out[10]), 1000.0, 1e-9);
}
