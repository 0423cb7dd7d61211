/* The task concurrency LADRA's index computes once (host_slowdown) and hands to the victim's
 * components above 4 hosts, instead of a second sweep of every host (scl28): its values on a
 * worked example, that it is kept only where the components run, and that the components read
 * from it are the ones of their own sweep, bit for bit, on random applications with ties, tasks
 * of no duration and tasks that end before they start. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include "analysis/anomalies/ladra_index.h"

/* Host 0: tasks [0, 2000) and [1000, 3000): each ran half its time alone and half beside the
 * other, (1000 x 1 + 1000 x 2) / 2000 = 1.5 at once. Host 1: one task alone (1), one of no
 * duration (1 by definition). Hosts 2-4 one task each (1). Five hosts: over the bound of 4. */
Test(ladra_conc, worked_example_and_kept_above_four_hosts)
{
    struct ladra_task t[7] = {
        {.row = 0, .stage = 0, .host = 0, .start_ms = 0, .end_ms = 2000},
        {.row = 1, .stage = 0, .host = 0, .start_ms = 1000, .end_ms = 3000},
        {.row = 2, .stage = 0, .host = 1, .start_ms = 0, .end_ms = 1000},
        {.row = 3, .stage = 0, .host = 1, .start_ms = 5000, .end_ms = 5000},
        {.row = 4, .stage = 0, .host = 2, .start_ms = 0, .end_ms = 1000},
        {.row = 5, .stage = 0, .host = 3, .start_ms = 0, .end_ms = 1000},
        {.row = 6, .stage = 0, .host = 4, .start_ms = 0, .end_ms = 1000},
    };
    struct ladra_input in = {.tasks = t, .ntasks = 7, .nhosts = 5, .nstages = 1};
    struct ladra_index x = {0};
    struct clarity_error err = {0};
    cr_assert_eq(clarity__ladra_index_build(&x, &in, &err), 0);
    cr_assert_not_null(x.conc);
    const double want[7] = {1.5, 1.5, 1, 1, 1, 1, 1};
    for (size_t i = 0; i < 7; i++) cr_assert_float_eq(x.conc[i], want[i], 1e-12, "task %zu", i);
    clarity__ladra_index_free(&x);
    /* four hosts: the victim is chosen by excess time, the components do not run, nothing kept */
    in.ntasks = 6, in.nhosts = 4;
    cr_assert_eq(clarity__ladra_index_build(&x, &in, &err), 0);
    cr_assert_null(x.conc);
    clarity__ladra_index_free(&x);
}

static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static int64_t rint_(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }

Test(ladra_conc, components_from_the_index_equal_their_own_sweep)
{
    static struct ladra_task t[400];
    static struct ladra_metrics m[400];
    rng_state = 28;
    size_t compared = 0, nonzero = 0;
    for (int rep = 0; rep < 300; rep++) {
        size_t nh = (size_t)rint_(5, 12), ns = (size_t)rint_(1, 6), n = (size_t)rint_(1, 400);
        memset(t, 0, sizeof t), memset(m, 0, sizeof m);
        for (size_t i = 0; i < n; i++) {
            t[i] = (struct ladra_task){.row = (uint32_t)i, .stage = (int32_t)rint_(0, (int64_t)ns - 1),
                                       .host = (int32_t)rint_(0, (int64_t)nh - 1)};
            t[i].exec = t[i].host;
            t[i].start_ms = rint_(0, 20) * 500;   /* starts and ends repeat: ties in every order */
            t[i].end_ms = t[i].start_ms + rint_(0, 6) * 1000;
            if (rnd() % 40 == 0) t[i].end_ms = t[i].start_ms - rint_(1, 3) * 100;
            bool has = rnd() % 8 != 0;
            m[i] = (struct ladra_metrics){.tid = (int64_t)i, .run_ms = has ? rint_(1, 5000) : -1,
                                          .cpu_ms = has ? rint_(1, 4000) : -1, .gc_ms = has ? rint_(0, 300) : -1,
                                          .fetch_wait_ms = has ? rint_(0, 800) : -1,
                                          .sw_ns = has ? rint_(0, 3) * 1000000 : 0, .sw_bytes = has ? rint_(0, 3) * 4096 : 0,
                                          .remote_bytes = has && rnd() % 2 ? rint_(1, 4) * 1048576 : 0,
                                          .disk_bytes = has ? rint_(0, 5) * 65536 : 0};
        }
        struct ladra_input in = {.tasks = t, .ntasks = n, .metrics = m, .nhosts = nh, .nstages = ns};
        struct ladra_index x = {0};
        struct clarity_error err = {0};
        cr_assert_eq(clarity__ladra_index_build(&x, &in, &err), 0);
        cr_assert_not_null(x.conc);
        int32_t victim = clarity__ladra_run_victim(&x);
        double a[LADRA_NCOMP], b[LADRA_NCOMP];
        cr_assert_eq(clarity__ladra_components_conc(&in, victim, x.conc, a, &err), 0);
        cr_assert_eq(clarity__ladra_components(&in, victim, b, &err), 0);
        clarity__ladra_index_free(&x);
        for (int c = 0; c < LADRA_NCOMP; c++) {
            cr_assert(memcmp(&a[c], &b[c], sizeof a[c]) == 0, "rep %d component %d: %.17g vs %.17g", rep, c, a[c], b[c]);
            compared++, nonzero += a[c] != 0;
        }
    }
    /* the comparison saw real figures, not only zeros */
    cr_assert_gt(nonzero, compared / 4);
}
