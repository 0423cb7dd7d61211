/* The I/O sharing relation on tasks at once (src/analysis/findings/fnd_io.c,
 * clarity_fnd_io_fit_tasks and clarity_fnd_io_growth), which idle_executors uses to slow the
 * tasks that would run more at once on fewer hosts. Worked stages on one host: tasks of 1 MB
 * with no CPU time, so all of a task's run is I/O and its rate in ms per MB is its run time. */
#include <criterion/criterion.h>
#include <string.h>
#include "analysis/findings/fnd_internal.h"

#define MB 1000000LL

static void mk(struct clarity_task_comp *c, int64_t finish, double run)
{
    memset(c, 0, sizeof *c);
    c->host = 1;
    c->finish_ms = finish;
    c->launch_ms = finish - (int64_t)run;
    c->runtime_ms = c->run_ms = run;
    c->input_bytes = MB;
    c->cpu_logged = true;
}

/* 4 waves of 2 tasks at once at 5 ms a MB, then 3 waves of 8 at once at `wide` ms a MB; the
   waves 100 ms apart. Returns the task count (32). */
static size_t stage(struct clarity_task_comp *c, double wide)
{
    size_t n = 0;
    int64_t t = 1000;
    for (int g = 0; g < 4; g++, t += 100)
        for (int k = 0; k < 2; k++) mk(&c[n++], t + 5, 5);
    for (int g = 0; g < 3; g++, t += 100)
        for (int k = 0; k < 8; k++) mk(&c[n++], t + (int64_t)wide, wide);
    return n;
}

/* Two disks' worth: 2 at once at 5 ms a MB, 8 at once at 20 = 5 x 8 / 2. Every D in [1, 2]
   fits exactly (from 2 to 8 at once is 4x for all of them); the tie goes to the largest, D =
   2, t1 = 5. The 8 pair tasks are at full rate, the 24 others beyond it; they grew 20 / 5 = 4x
   at 8 / 2 = 4 shares. From 2 at once to 8 a task's I/O takes 4x as long; from 2 to 4, 2x;
   from 8 to 8 (or fewer), as long. */
Test(io_tasks, two_disks_worked)
{
    struct clarity_task_comp c[32];
    double at[32];
    size_t m = stage(c, 20);
    struct fnd_io_fit f;
    cr_assert_eq(clarity_fnd_io_fit_tasks(c, m, 2, 4, &f, at), 0);
    cr_assert(f.applies);
    cr_assert(f.by_tasks);
    cr_assert_float_eq(at[0], 2.0, 1e-9);
    cr_assert_float_eq(at[8], 8.0, 1e-9);
    cr_assert_float_eq(f.streams_full_rate, 2.0, 1e-9);
    cr_assert_float_eq(f.ms_per_mb_alone, 5.0, 1e-9);
    cr_assert_float_eq(f.ms_per_mb, (8 * 5.0 + 24 * 20.0) / 32, 1e-9);
    cr_assert_eq(f.tasks_shared, 24);
    cr_assert_float_eq(clarity_fnd_io_growth(&f, 2, 8), 4.0, 1e-9);
    cr_assert_float_eq(clarity_fnd_io_growth(&f, 2, 4), 2.0, 1e-9);
    cr_assert_float_eq(clarity_fnd_io_growth(&f, 8, 8), 1.0, 1e-9);
    cr_assert_float_eq(clarity_fnd_io_growth(&f, 8, 4), 1.0, 1e-9);
}

/* Four disks: 8 at once at 10 ms a MB = 5 x 8 / 4. The pairs are at full rate for every D
   from 2 up, and only D = 4 fits the wide waves: growth from 2 to 8 is 2x, from 2 to 16 4x. */
Test(io_tasks, four_disks_worked)
{
    struct clarity_task_comp c[32];
    double at[32];
    size_t m = stage(c, 10);
    struct fnd_io_fit f;
    cr_assert_eq(clarity_fnd_io_fit_tasks(c, m, 2, 4, &f, at), 0);
    cr_assert(f.applies);
    cr_assert_float_eq(f.streams_full_rate, 4.0, 1e-9);
    cr_assert_float_eq(f.ms_per_mb_alone, 5.0, 1e-9);
    cr_assert_float_eq(clarity_fnd_io_growth(&f, 2, 8), 2.0, 1e-9);
    cr_assert_float_eq(clarity_fnd_io_growth(&f, 2, 16), 4.0, 1e-9);
}

/* No slowing at 8 at once (5 ms a MB throughout): nothing grew, nothing is extrapolated. */
Test(io_tasks, no_growth_not_applied)
{
    struct clarity_task_comp c[32];
    double at[32];
    size_t m = stage(c, 5);
    struct fnd_io_fit f;
    cr_assert_eq(clarity_fnd_io_fit_tasks(c, m, 2, 4, &f, at), 0);
    cr_assert_not(f.applies);
    cr_assert_float_eq(clarity_fnd_io_growth(&f, 2, 8), 1.0, 1e-9);
}

/* 8 at once at 60 ms a MB, 12x the pairs' rate: more than 8 tasks sharing can cost (at most
   8x with D = 1): a per-request cost or another load, not a shared disk; not applied. */
Test(io_tasks, growth_beyond_sharing_not_applied)
{
    struct clarity_task_comp c[32];
    double at[32];
    size_t m = stage(c, 60);
    struct fnd_io_fit f;
    cr_assert_eq(clarity_fnd_io_fit_tasks(c, m, 2, 4, &f, at), 0);
    cr_assert_not(f.applies);
}

/* Too few tasks beyond D for the caller's minimum: not applied. */
Test(io_tasks, too_few_shared_not_applied)
{
    struct clarity_task_comp c[32];
    double at[32];
    size_t m = stage(c, 20);
    struct fnd_io_fit f;
    cr_assert_eq(clarity_fnd_io_fit_tasks(c, m, 2, 25, &f, at), 0);
    cr_assert_not(f.applies);
}
