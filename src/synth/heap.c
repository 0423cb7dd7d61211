#include "synth/heap.h"
#include <stdlib.h>
#include "util/heap.h"
#include "util/vec.h"

int clarity_theap_init(struct theap *h)
{
    *h = (struct theap){0};
    return 0;
}

void clarity_theap_free(struct theap *h)
{
    free(h->timers);
    free(h->free_ids);
    free(h->heap);
    *h = (struct theap){0};
}

#define TIMER_BEFORE(h, a, b)                                                                    \
    ((h)->timers[a].t < (h)->timers[b].t ||                                                      \
     ((h)->timers[a].t == (h)->timers[b].t && (h)->timers[a].seq < (h)->timers[b].seq))
#define TIMER_MOVED(h, arr, i) ((h)->timers[(arr)[i]].pos = (int32_t)(i))
CLARITY_HEAP_DEFINE(tq, int32_t, struct theap *, TIMER_BEFORE, TIMER_MOVED)

int32_t clarity_timer_new(struct theap *h, int kind, int32_t ref)
{
    int32_t id;
    if (h->nfree) {
        id = h->free_ids[--h->nfree];
    } else {
        if (h->ntimers >= INT32_MAX || CLARITY_VEC_RESERVE(h->timers, h->cap_timers, h->ntimers + 1)) return -1;
        id = (int32_t)h->ntimers++;
    }
    h->timers[id] = (struct timer){.t = 0, .seq = 0, .pos = -1, .ref = ref, .kind = (uint8_t)kind};
    return id;
}

void clarity_timer_cancel(struct theap *h, int32_t id)
{
    int32_t i = h->timers[id].pos;
    if (i < 0) return;
    h->timers[id].pos = -1;
    tq_remove(h, h->heap, &h->n, (size_t)i);
}

void clarity_timer_release(struct theap *h, int32_t id)
{
    clarity_timer_cancel(h, id);
    if (CLARITY_VEC_RESERVE(h->free_ids, h->cap_free, h->nfree + 1)) return;   /* the id is simply not recycled */
    h->free_ids[h->nfree++] = id;
}

int clarity_timer_set(struct theap *h, int32_t id, double t)
{
    struct timer *tm = &h->timers[id];
    tm->t = t;
    tm->seq = ++h->seq;
    if (tm->pos >= 0) {
        tq_update(h, h->heap, h->n, (size_t)tm->pos);
        return 0;
    }
    if (CLARITY_VEC_RESERVE(h->heap, h->cap, h->n + 1)) return -1;
    tq_push(h, h->heap, &h->n, id);
    return 0;
}

int32_t clarity_theap_pop(struct theap *h)
{
    int32_t id = h->heap[0];
    clarity_timer_cancel(h, id);
    return id;
}
