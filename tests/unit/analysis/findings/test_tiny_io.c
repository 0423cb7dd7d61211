/* tiny_tasks' I/O contention model (src/analysis/findings/fnd_io.c) on worked stages:
 * one host, tasks of 1 MB with no CPU time (all of their run is I/O, so the stage's I/O share
 * is 1 and a task's streams at once are the tasks running beside it, itself included). */
#include <criterion/criterion.h>
#include <string.h>
#include "analysis/findings/fnd_internal.h"

#define MB 1000000LL

/* task i: host 1, run [finish - run, finish], 1 MB of shuffle read, no CPU, no GC */
static void mk(struct clarity_task_comp *c, int64_t finish, double run)
{
    memset(c, 0, sizeof *c);
    c->host = 1;
    c->finish_ms = finish;
    c->launch_ms = finish - (int64_t)run;
    c->runtime_ms = c->run_ms = run;
    c->shuffle_read_bytes = MB;
    c->cpu_logged = true;
}

/* 60 tasks alone at 4 ms a MB (t1 = 4), then 15 groups of 4 tasks at once at `shared` ms a
   MB. Returns the task count (120). */
static size_t stage(struct clarity_task_comp *c, double shared)
{
    size_t n = 0;
    int64_t t = 1000;
    for (int i = 0; i < 60; i++, t += 10) mk(&c[n++], t + 4, 4);
    for (int g = 0; g < 15; g++, t += 100)
        for (int k = 0; k < 4; k++) mk(&c[n++], t + (int64_t)shared, shared);
    return n;
}

/* Four at once at 8 ms a MB: twice the alone rate with 4 streams, so D = 2 streams at full
   rate (the residual is 0 there). Coalesced into 8 tasks on 8 slots of the one host: 8 at
   once, each all I/O (k = 0), so t' = 4 x 8 / 2 = 16 ms a MB, against the stage's mean of
   (60 x 4 + 60 x 8) / 120 = 6: (16 - 6) x 120 MB = 1200 ms more I/O. */
Test(tiny_io, shared_disk_worked)
{
    struct clarity_task_comp c[120];
    size_t m = stage(c, 8);
    struct fnd_tiny_io io;
    cr_assert_eq(clarity_fnd_tiny_io(c, m, 8, 8, &io), 0);
    cr_assert_float_eq(io.ms_per_mb_alone, 4.0, 1e-9);
    cr_assert_float_eq(io.ms_per_mb, 6.0, 1e-9);
    cr_assert_float_eq(io.streams_full_rate, 2.0, 1e-9);
    cr_assert_float_eq(io.per_host, 8.0, 1e-9);
    cr_assert_float_eq(io.ms_per_mb_coalesced, 16.0, 1e-6);
    cr_assert_float_eq(io.extra_ms, 1200.0, 1e-3);
    cr_assert_eq(io.tasks_shared, 60);
}

/* Half the slots: 4 at once, t' = 4 x 4 / 2 = 8 ms a MB, (8 - 6) x 120 = 240 ms */
Test(tiny_io, fewer_at_once_worked)
{
    struct clarity_task_comp c[120];
    size_t m = stage(c, 8);
    struct fnd_tiny_io io;
    cr_assert_eq(clarity_fnd_tiny_io(c, m, 4, 8, &io), 0);
    cr_assert_float_eq(io.ms_per_mb_coalesced, 8.0, 1e-6);
    cr_assert_float_eq(io.extra_ms, 240.0, 1e-3);
}

/* Five times the alone rate with 4 streams: more than sharing a disk among 4 can cost (a
   per-request cost, synth pagerank's shape), so no correction */
Test(tiny_io, growth_beyond_sharing_not_extrapolated)
{
    struct clarity_task_comp c[120];
    size_t m = stage(c, 20);
    struct fnd_tiny_io io;
    cr_assert_eq(clarity_fnd_tiny_io(c, m, 8, 8, &io), 0);
    cr_assert_eq(io.extra_ms, 0);
}

/* No slowing with 4 at once: nothing to extrapolate */
Test(tiny_io, no_growth_no_correction)
{
    struct clarity_task_comp c[120];
    size_t m = stage(c, 4);
    struct fnd_tiny_io io;
    cr_assert_eq(clarity_fnd_tiny_io(c, m, 8, 8, &io), 0);
    cr_assert_eq(io.extra_ms, 0);
}

/* Without CPU time in the log there is no I/O time to read: no correction */
Test(tiny_io, no_cpu_time_no_correction)
{
    struct clarity_task_comp c[120];
    size_t m = stage(c, 8);
    for (size_t i = 0; i < m; i++) c[i].cpu_logged = false;
    struct fnd_tiny_io io;
    cr_assert_eq(clarity_fnd_tiny_io(c, m, 8, 8, &io), 0);
    cr_assert_eq(io.extra_ms, 0);
}
