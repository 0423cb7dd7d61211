/* List scheduling on N slots: the replay at the heart of blocked-time analysis. A min-heap
 * of the times slots become free; each task takes the slot that frees first. */
#include <stdlib.h>
#include "clarity/sim.h"

static void sift_up(double *h, size_t i)
{
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (h[p] <= h[i]) break;
        double t = h[p]; h[p] = h[i]; h[i] = t;
        i = p;
    }
}

static void sift_down(double *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && h[l] < h[m]) m = l;
        if (r < n && h[r] < h[m]) m = r;
        if (m == i) return;
        double t = h[m]; h[m] = h[i]; h[i] = t;
        i = m;
    }
}

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
            heap[size] = finish;
            sift_up(heap, size++);
        } else {
            /* replace the earliest-free slot in place: pop + push in one sift */
            finish = heap[0] + r;
            heap[0] = finish;
            sift_down(heap, size, 0);
        }
        if (finish > end) end = finish;
    }
    if (!scratch) free(heap);
    return end;
}
