#include "synth/heap.h"
#include <stdlib.h>

int theap_init(struct theap *h)
{
    *h = (struct theap){0};
    return 0;
}

void theap_free(struct theap *h)
{
    free(h->timers);
    free(h->free_ids);
    free(h->heap);
    *h = (struct theap){0};
}

static bool before(const struct theap *h, int32_t a, int32_t b)
{
    const struct timer *x = &h->timers[a], *y = &h->timers[b];
    return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

static void place(struct theap *h, int32_t i, int32_t id)
{
    h->heap[i] = id;
    h->timers[id].pos = i;
}

static void sift_up(struct theap *h, int32_t i)
{
    int32_t id = h->heap[i];
    while (i > 0) {
        int32_t p = (i - 1) / 2;
        if (!before(h, id, h->heap[p])) break;
        place(h, i, h->heap[p]);
        i = p;
    }
    place(h, i, id);
}

static void sift_down(struct theap *h, int32_t i)
{
    int32_t id = h->heap[i];
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && before(h, h->heap[c + 1], h->heap[c])) c++;
        if (!before(h, h->heap[c], id)) break;
        place(h, i, h->heap[c]);
        i = c;
    }
    place(h, i, id);
}

int32_t timer_new(struct theap *h, int kind, int32_t ref)
{
    int32_t id;
    if (h->nfree) {
        id = h->free_ids[--h->nfree];
    } else {
        if (h->ntimers == h->cap_timers) {
            int32_t nc = h->cap_timers ? h->cap_timers * 2 : 1024;
            struct timer *t = realloc(h->timers, (size_t)nc * sizeof *t);
            if (!t) return -1;
            h->timers = t;
            h->cap_timers = nc;
        }
        id = h->ntimers++;
    }
    h->timers[id] = (struct timer){.t = 0, .seq = 0, .pos = -1, .ref = ref, .kind = (uint8_t)kind};
    return id;
}

void timer_cancel(struct theap *h, int32_t id)
{
    int32_t i = h->timers[id].pos;
    if (i < 0) return;
    h->timers[id].pos = -1;
    int32_t last = h->heap[--h->n];
    if (i == h->n) return;
    place(h, i, last);
    sift_up(h, i);
    sift_down(h, h->timers[last].pos);
}

void timer_release(struct theap *h, int32_t id)
{
    timer_cancel(h, id);
    if (h->nfree == h->cap_free) {
        int32_t nc = h->cap_free ? h->cap_free * 2 : 256;
        int32_t *f = realloc(h->free_ids, (size_t)nc * sizeof *f);
        if (!f) return;   /* the id is simply not recycled */
        h->free_ids = f;
        h->cap_free = nc;
    }
    h->free_ids[h->nfree++] = id;
}

int timer_set(struct theap *h, int32_t id, double t)
{
    struct timer *tm = &h->timers[id];
    tm->t = t;
    tm->seq = ++h->seq;
    if (tm->pos >= 0) {
        sift_up(h, tm->pos);
        sift_down(h, h->timers[id].pos);
        return 0;
    }
    if (h->n == h->cap) {
        int32_t nc = h->cap ? h->cap * 2 : 1024;
        int32_t *p = realloc(h->heap, (size_t)nc * sizeof *p);
        if (!p) return -1;
        h->heap = p;
        h->cap = nc;
    }
    place(h, h->n++, id);
    sift_up(h, h->n - 1);
    return 0;
}

int32_t theap_pop(struct theap *h)
{
    int32_t id = h->heap[0];
    timer_cancel(h, id);
    return id;
}
