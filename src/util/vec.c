#include "util/vec.h"
#include "clarity/arena.h"
#include "util/hugepage.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The capacity a vector of cap elements grows to for need (first when it had none, then
   doubling), in *nc; -1 when it or its bytes would overflow. */
static int next_cap(size_t cap, size_t need, size_t elem, size_t first, size_t *nc)
{
    size_t c = cap ? cap : need < first ? first : need;
    while (c < need) {
        if (c > SIZE_MAX / 2) return -1;
        c *= 2;
    }
    if (elem && c > SIZE_MAX / elem) return -1;
    *nc = c;
    return 0;
}

int clarity_vec_grow_from(void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap) return 0;
    size_t nc;
    if (next_cap(*cap, need, elem, first, &nc)) return -1;
    void *q = clarity_hugepage_realloc(*p, *cap * elem, nc * elem);
    if (!q) return -1;
    *p = q;
    *cap = nc;
    return 0;
}

int clarity_vec_grow_zeroed(void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
    size_t old = *cap;
    if (clarity_vec_grow_from(p, cap, need, elem, first) != 0) return -1;
    if (*cap > old) memset((char *)*p + old * elem, 0, (*cap - old) * elem);
    return 0;
}

int clarity_vec_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap : 8;
    while (nc < need) {
        if (nc > SIZE_MAX / 2) return -1;
        nc *= 2;
    }
    return clarity_vec_grow_from(p, cap, nc, elem, nc);
}

int clarity_vec_grow_arena(struct clarity_arena *ar, void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap) return 0;
    size_t nc;
    if (next_cap(*cap, need, elem, first, &nc)) return -1;
    void *q = clarity_arena_alloc(ar, nc * elem);
    if (!q) return -1;
    if (*cap && *p) memcpy(q, *p, *cap * elem);
    *p = q;
    *cap = nc;
    return 0;
}
