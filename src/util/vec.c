#include "util/vec.h"
#include <stdint.h>
#include <stdlib.h>

int clarity_vec_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    /* A first allocation holds what is asked for (at least 2), not 8: most vectors in the model
     * are per-object lists of one to three ids (a stage's jobs, a query's jobs and plan
     * metrics), and on a log of 10^6 small jobs eight slots each cost ~150 bytes per job. */
    size_t nc = *cap ? *cap : need < 2 ? 2 : need;
    while (nc < need) {
        if (nc > SIZE_MAX / 2) return -1;
        nc *= 2;
    }
    if (elem && nc > SIZE_MAX / elem) return -1;
    void *q = realloc(*p, nc * elem);
    if (!q) return -1;
    *p = q;
    *cap = nc;
    return 0;
}
