/* Model tables grown to the size the log projects (grow.h says why). */
#include "model/grow.h"
#include "model/build.h"
#include "util/hugepage.h"
#include <stdbool.h>
#include <stdint.h>

/* A table is projected once it holds this many rows: fewer say too little about the rate at
 * which the log adds them, and copying them is cheap anyway. */
#define PROJECT_FROM_ROWS 4096

size_t clarity__model_projected(const struct apply_ctx *c, size_t cap, size_t need)
{
    uint64_t done = c->proj_done + c->offset;
    if (!c->proj_total || need < PROJECT_FROM_ROWS || done == 0 || done >= c->proj_total) return 0;
    /* rows per byte so far, times the whole log's bytes, and an eighth for the rate's drift */
    double want = (double)need * (double)c->proj_total / (double)done * 1.125;
    double most = (double)(cap ? cap : need) * 64.0;
    if (want > most) want = most;
    return want < (double)(SIZE_MAX / 2) ? (size_t)want : 0;
}

static size_t grow_cap(const struct apply_ctx *c, bool project, size_t cap, size_t need, size_t first, size_t elem)
{
    size_t nc = cap ? cap : need < first ? first : need;
    while (nc < need) {
        if (nc > SIZE_MAX / 2) return 0;
        nc *= 2;
    }
    size_t pc = project ? clarity__model_projected(c, cap, need) : 0;
    if (pc > nc) nc = pc;
    if (elem && nc > SIZE_MAX / elem) return 0;
    return nc;
}

size_t clarity__model_grow_cap(const struct apply_ctx *c, size_t cap, size_t need, size_t first, size_t elem)
{
    return grow_cap(c, true, cap, need, first, elem);
}

int clarity__model_grow(struct apply_ctx *c, void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap) return 0;
    size_t nc = clarity__model_grow_cap(c, *cap, need, first, elem);
    if (!nc) return -1;
    void *q = clarity_hugepage_realloc(*p, *cap * elem, nc * elem);
    if (!q) {
        /* a projection beyond the memory there is: what doubling asks for may still fit */
        size_t dc = grow_cap(c, false, *cap, need, first, elem);
        if (!dc || dc >= nc || !(q = clarity_hugepage_realloc(*p, *cap * elem, dc * elem))) return -1;
        nc = dc;
    }
    *p = q;
    *cap = nc;
    return 0;
}
