/* A set of task ids: bits below 2^31, a map for the rest (idset.h says why). */
#include "util/idset.h"
#include "util/vec.h"
#include <stdlib.h>
#include <string.h>

static bool dense(int64_t id) { return id >= 0 && id < INT32_MAX; }

bool clarity_idset_has(const struct clarity_idset *s, int64_t id)
{
    uint32_t v;
    if (dense(id)) return (size_t)id / 64 < s->words && (s->bits[id / 64] >> (id % 64) & 1);
    return clarity_idmap_get(&s->other, id, &v);
}

int clarity_idset_add(struct clarity_idset *s, int64_t id)
{
    if (!dense(id)) return clarity_idmap_put(&s->other, id, 1);
    size_t w = (size_t)id / 64;
    if (clarity_vec_grow_zeroed((void **)&s->bits, &s->words, w + 1, sizeof *s->bits, 1024) != 0) return -1;
    s->bits[w] |= (uint64_t)1 << (id % 64);
    return 0;
}

void clarity_idset_free(struct clarity_idset *s)
{
    free(s->bits);
    clarity_idmap_free(&s->other);
    memset(s, 0, sizeof *s);
}
