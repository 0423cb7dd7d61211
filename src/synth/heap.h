/* Timers in an indexed binary min-heap (util/heap.h) ordered by (time, sequence): rescheduling
 * a timer is O(log n), and equal times fire in the order they were set, which keeps runs
 * deterministic. Timer ids are recycled through a free list. */
#ifndef CLARITY_SYNTH_HEAP_H
#define CLARITY_SYNTH_HEAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct timer {
    double t;
    uint64_t seq;
    int32_t pos;     /* index in heap[], -1 when not scheduled */
    int32_t ref;     /* what it belongs to (attempt, executor, query, ...) */
    uint8_t kind;
};
struct theap {
    struct timer *timers; size_t ntimers, cap_timers;
    int32_t *free_ids; size_t nfree, cap_free;
    int32_t *heap; size_t n, cap;
    uint64_t seq;
};

int clarity_theap_init(struct theap *h);
void clarity_theap_free(struct theap *h);
/* A new unscheduled timer; -1 when out of memory. */
int32_t clarity_timer_new(struct theap *h, int kind, int32_t ref);
void clarity_timer_release(struct theap *h, int32_t id);   /* cancels and recycles */
int clarity_timer_set(struct theap *h, int32_t id, double t); /* schedule or move; -1 on ENOMEM */
void clarity_timer_cancel(struct theap *h, int32_t id);
static inline bool theap_empty(const struct theap *h) { return h->n == 0; }
static inline double theap_top_time(const struct theap *h) { return h->timers[h->heap[0]].t; }
int32_t clarity_theap_pop(struct theap *h);                 /* earliest timer id, unscheduled */
#endif
