#include "clarity/icol.h"
#include "util/hugepage.h"
#include <stdlib.h>
#include <string.h>

static uint8_t width_for(int64_t v)
{
    if (v == 0) return 0;
    if (v >= INT8_MIN && v <= INT8_MAX) return 1;
    if (v >= INT16_MIN && v <= INT16_MAX) return 2;
    if (v >= INT32_MIN && v <= INT32_MAX) return 4;
    return 8;
}

static void put(void *data, uint8_t w, size_t i, int64_t v)
{
    switch (w) {
    case 1: ((int8_t *)data)[i] = (int8_t)v; break;
    case 2: ((int16_t *)data)[i] = (int16_t)v; break;
    case 4: ((int32_t *)data)[i] = (int32_t)v; break;
    case 8: ((int64_t *)data)[i] = v; break;
    default: break;
    }
}

/* Re-encodes every row at a larger width; rare (at most four times per column). */
static int widen(struct clarity_icol *c, uint8_t w, size_t cap)
{
    void *nd = calloc(cap ? cap : 1, w);
    if (!nd) return -1;
    clarity_hugepage_advise(nd, (cap ? cap : 1) * w);
    for (size_t i = 0; c->width && i < cap; i++) put(nd, w, i, clarity_icol_get(c, i));
    free(c->data);
    c->data = nd;
    c->width = w;
    return 0;
}

int clarity_icol_set(struct clarity_icol *c, size_t i, int64_t v, size_t cap)
{
    uint8_t w = width_for(v);
    if (w > c->width && widen(c, w, cap) != 0) return -1;
    put(c->data, c->width, i, v);
    return 0;
}

int clarity_icol_reserve(struct clarity_icol *c, size_t old_cap, size_t new_cap)
{
    if (!c->width || new_cap <= old_cap) return 0;
    void *nd = clarity_hugepage_realloc_zeroed(c->data, old_cap * c->width, new_cap * c->width);
    if (!nd) return -1;
    c->data = nd;
    return 0;
}

void clarity_icol_free(struct clarity_icol *c)
{
    free(c->data);
    c->data = NULL;
    c->width = 0;
}

size_t clarity_icol_bytes(const struct clarity_icol *c, size_t cap) { return c->width * cap; }
