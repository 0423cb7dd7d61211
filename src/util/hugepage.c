#include "util/hugepage.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void clarity_hugepage_advise(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (!p || n < ((size_t)4 << 20)) return;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + n) & ~(huge - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);   /* a hint: failure changes nothing */
#else
    (void)p, (void)n;
#endif
}

void *clarity_hugepage_realloc(void *p, size_t old_bytes, size_t new_bytes)
{
    if (new_bytes < ((size_t)4 << 20) || old_bytes > new_bytes) return realloc(p, new_bytes);
    if (old_bytes >= ((size_t)32 << 20)) {
        /* glibc maps blocks this big on their own (its mmap threshold never exceeds 32 MiB on
         * 64 bits) and grows them with mremap, which moves the pages without copying: keep
         * that (the task table grows by a million rows at a time), advising the new tail */
        void *q = realloc(p, new_bytes);
        if (q) clarity_hugepage_advise(q, new_bytes);
        return q;
    }
    void *q = malloc(new_bytes);
    if (!q) return NULL;
    clarity_hugepage_advise(q, new_bytes);
    if (p && old_bytes) memcpy(q, p, old_bytes);
    free(p);
    return q;
}

void *clarity_hugepage_realloc_zeroed(void *p, size_t old_bytes, size_t new_bytes)
{
    if (new_bytes < ((size_t)4 << 20) || old_bytes > new_bytes || old_bytes >= ((size_t)32 << 20)) {
        char *q = clarity_hugepage_realloc(p, old_bytes, new_bytes);
        if (q && new_bytes > old_bytes) memset(q + old_bytes, 0, new_bytes - old_bytes);
        return q;
    }
    /* calloc hands a fresh mapping over unwritten (it reads zero already), so the tail's pages
     * are faulted in by the rows that use them, not all at once by a memset */
    void *q = calloc(1, new_bytes);
    if (!q) return NULL;
    clarity_hugepage_advise(q, new_bytes);
    if (p && old_bytes) memcpy(q, p, old_bytes);
    free(p);
    return q;
}
