/* List scheduling on N slots: the replay at the heart of blocked-time analysis. A min-heap
 * of the times slots become free; each task takes the slot that frees first. */
#include <stdlib.h>
#include "clarity/sim.h"
#include "util/heap.h"

#define SLOT_LESS(ctx, a, b) ((a) < (b))
CLARITY_HEAP_DEFINE(freeq, double, void *, SLOT_LESS, CLARITY_HEAP_NOT_INDEXED)

double clarity_sim_makespan(const double *runtimes, size_t n, int slots, double *scratch)
{
    if (n == 0) return 0;
    size_t cap = slots < 1 ? 1 : (size_t)slots;
    if (cap > n) cap = n;
    double *heap = scratch ? scratch : malloc(cap * sizeof *heap);
    if (!heap) return -1;
    size_t size = 0;
    double end = 0;
    for (size_t i = 0; i < n; i++) {
        double r = runtimes[i] > 0 ? runtimes[i] : 0;   /* also maps NaN to 0 */
        double finish;
        if (size < cap) {
            finish = r;
            freeq_push(NULL, heap, &size, finish);
        } else {
            /* replace the earliest-free slot in place: pop + push in one sift */
            finish = heap[0] + r;
            freeq_replace_top(NULL, heap, size, finish);
        }
        if (finish > end) end = finish;
    }
    if (!scratch) free(heap);
    return end;
}
