/* How many slots a stage had: observed (the [R] rule of the thesis' scripts) or configured
 * (executor cores / spark.task.cpus). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/sim.h"

struct edge { double t; int delta; };

static int edge_cmp(const void *pa, const void *pb)
{
    const struct edge *a = pa, *b = pb;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    return a->delta - b->delta;   /* ends (-1) before starts (+1) at the same instant */
}

int clarity_sim_peak_slots(const struct clarity_sim_task *t, size_t n)
{
    if (n == 0) return 0;
    struct edge *e = malloc(2 * n * sizeof *e);
    if (!e) return 1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        double s = (double)t[i].launch_ms, f = (double)t[i].finish_ms - (t[i].trim_ms > 0 ? t[i].trim_ms : 0);
        if (!(f > s)) continue;   /* an empty occupancy never overlaps anything */
        e[m++] = (struct edge){s, +1};
        e[m++] = (struct edge){f, -1};
    }
    qsort(e, m, sizeof *e, edge_cmp);
    int cur = 0, peak = 1;
    for (size_t i = 0; i < m; i++) {
        cur += e[i].delta;
        if (cur > peak) peak = cur;
    }
    free(e);
    return peak;
}

int clarity_sim_average_slots(const struct clarity_sim_task *t, size_t n)
{
    if (n == 0) return 0;
    /* 128-bit: times anywhere in int64 (corrupt logs) must not overflow the spans or their sum */
    int64_t lo = t[0].launch_ms, hi = t[0].finish_ms;
    __int128 sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i].launch_ms < lo) lo = t[i].launch_ms;
        if (t[i].finish_ms > hi) hi = t[i].finish_ms;
        if (t[i].finish_ms > t[i].launch_ms) sum += (__int128)t[i].finish_ms - t[i].launch_ms;
    }
    __int128 span = (__int128)hi - lo;
    if (span <= 0 || sum <= 0) return 1;
    __int128 k = (sum + span - 1) / span;
    return k < 1 ? 1 : k > INT32_MAX ? INT32_MAX : (int)k;
}

int clarity_sim_observed_slots(const struct clarity_sim_task *t, size_t n)
{
    int peak = clarity_sim_peak_slots(t, n);
    if (n <= CLARITY_SIM_PEAK_MAX_TASKS || (size_t)peak * 2 > n) return peak;
    return clarity_sim_average_slots(t, n);
}

int clarity_sim_task_cpus(const struct clarity_app *a)
{
    for (size_t i = 0; i < a->spark_props.n; i++)
        if (!strcmp(clarity_app_str(a, a->spark_props.p[i].k), "spark.task.cpus")) {
            long v = strtol(clarity_app_str(a, a->spark_props.p[i].v), NULL, 10);
            return v >= 1 && v < 1 << 20 ? (int)v : 1;
        }
    return 1;
}

struct core_edge { int64_t t; int64_t delta; };

static int core_edge_cmp(const void *pa, const void *pb)
{
    const struct core_edge *a = pa, *b = pb;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    return (a->delta > b->delta) - (a->delta < b->delta);   /* removals first */
}

/* Most cores alive at any instant of [from, to], over the driver or over the executors. */
static int64_t peak_cores(const struct clarity_app *a, int64_t from, int64_t to, bool drivers)
{
    struct core_edge *e = malloc((2 * a->nexecs + 1) * sizeof *e);
    if (!e) return 0;
    size_t m = 0;
    int64_t alive = 0;
    for (size_t i = 0; i < a->nexecs; i++) {
        const struct clarity_executor *x = &a->execs[i];
        if (x->is_driver != drivers || x->total_cores <= 0) continue;
        if (x->remove_ms && x->remove_ms <= from) continue;   /* gone before the interval */
        if (x->add_ms > to) continue;                          /* came after it */
        if (x->add_ms <= from) alive += x->total_cores;
        else e[m++] = (struct core_edge){x->add_ms, x->total_cores};
        if (x->remove_ms && x->remove_ms <= to) e[m++] = (struct core_edge){x->remove_ms, -x->total_cores};
    }
    qsort(e, m, sizeof *e, core_edge_cmp);
    int64_t peak = alive;
    for (size_t i = 0; i < m; i++) {
        alive += e[i].delta;
        if (alive > peak) peak = alive;
    }
    free(e);
    return peak;
}

int clarity_sim_configured_slots(const struct clarity_app *a, int64_t from_ms, int64_t to_ms)
{
    int64_t cores = peak_cores(a, from_ms, to_ms, false);
    if (cores <= 0) cores = peak_cores(a, from_ms, to_ms, true);   /* local mode */
    int64_t slots = cores / clarity_sim_task_cpus(a);
    return slots > INT32_MAX ? INT32_MAX : (int)slots;
}
