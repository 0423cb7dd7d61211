/* The executor JVM: a young and an old generation filled by the running tasks' allocation,
 * stop-the-world collections whose pauses grow with live data, as ParallelGC behaves. A pause
 * stops every task of the executor, so JVM GC Time and the GC log tell the same story. */
#include <math.h>
#include "synth/internal.h"

void clarity_jvm_init(struct sim *s, struct sy_exec *e)
{
    e->young_cap = e->heap / 3;          /* NewRatio=2 */
    e->old_cap = e->heap - e->young_cap;
    e->young_used = e->young_cap * (0.1 + 0.2 * rng_unit(&s->rng_jvm));
    e->old_used = 60.0 * 1048576;        /* classes, broadcast, block manager */
    e->peak_heap = e->young_used + e->old_used;
}

void clarity_jvm_advance(struct sim *s, struct sy_exec *e, double dt)
{
    (void)s;
    if (!e->ready || e->paused_until > s->now - dt) return;
    e->young_used += e->alloc_rate * dt;
    if (e->young_used + e->old_used > e->peak_heap) e->peak_heap = e->young_used + e->old_used;
}

static double young_effective(const struct sim *s, const struct sy_exec *e)
{
    /* under a memory hog the adaptive size policy keeps the young generation small */
    return e->young_cap * (1.0 - 0.6 * s->hosts[e->host].mem_intensity);
}

void clarity_jvm_schedule(struct sim *s, struct sy_exec *e)
{
    if (!e->ready || !e->alive) return;
    if (e->paused_until > s->now) {
        clarity_timer_set(&s->heap, e->timer, e->paused_until);
        return;
    }
    if (e->alloc_rate <= 0) {
        clarity_timer_cancel(&s->heap, e->timer);
        return;
    }
    double room = young_effective(s, e) - e->young_used;
    clarity_timer_set(&s->heap, e->timer, s->now + (room > 0 ? room : 0) / e->alloc_rate);
}

void clarity_jvm_collect(struct sim *s, struct sy_exec *e)
{
    struct sy_host *h = &s->hosts[e->host];
    clarity_host_advance(s, h);
    if (e->paused_until > 0) {
        e->paused_until = 0;   /* pause over */
        clarity_host_reschedule(s, h);
        return;
    }
    double live = 0;
    for (int i = 0; i < h->natt; i++) {
        struct sy_attempt *a = &s->att[h->att[i]];
        if (a->exec == e->idx) live += fmin(a->mem_bytes, 0.5 * e->heap / e->cores);
    }
    double ybefore = e->young_used, obefore = e->old_used;
    double survivors = fmin(0.1 * e->young_cap, 0.08 * live + 0.01 * ybefore);
    double pause = 0.003 + survivors / 1.2e9 + 0.002 * rng_unit(&s->rng_jvm);
    double promoted = survivors * 0.35;
    e->old_used += promoted;
    bool full = e->old_used > 0.92 * e->old_cap;
    double oafter = e->old_used;
    if (full) {
        double old_live = 60.0 * 1048576 + e->cached_bytes + 0.4 * live;
        if (old_live > 0.85 * e->old_cap) old_live = 0.85 * e->old_cap;
        pause += 0.03 + e->old_used / 0.9e9;
        oafter = old_live;
    }
    double nominal = pause;
    /* The collector's threads (one per core) share the cores with a CPU hog: the same CPU work
     * takes longer on the wall clock, so the GC log's real grows against user + sys (LADRA's DCO). */
    double cpu_bound = pause * (1.0 + h->hog_threads / h->cores);
    /* a memory hog makes collections page: wall time, much of it spent in the kernel */
    pause = cpu_bound * (1.0 + 3.0 * h->mem_intensity);
    double user = nominal * (2.5 + (double)(e->gc_seq % 5) * 0.3);
    double sys = nominal * 0.1 + 0.4 * (pause - cpu_bound);
    double yafter = full ? 0 : survivors - promoted;
    clarity_log_gc(s, e, full, (struct gc_times){pause, user, sys}, ybefore, yafter, ybefore + obefore, yafter + oafter, obefore,
           oafter);
    if (full) {
        e->major_gc++;
        e->major_gc_s += pause;
    } else {
        e->minor_gc++;
        e->minor_gc_s += pause;
    }
    e->old_used = oafter;
    e->young_used = yafter;
    e->paused_until = s->now + pause;
    e->pause_len = pause;
    e->pause_nominal = nominal;
    for (int i = 0; i < h->natt; i++) {
        struct sy_attempt *a = &s->att[h->att[i]];
        if (a->exec == e->idx && a->phase != PH_LAUNCH && a->phase != PH_RESULT_SEND) a->gc_s += pause;
    }
    clarity_host_reschedule(s, h);
}
