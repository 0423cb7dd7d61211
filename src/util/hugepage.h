/* Huge pages for the model's big tables. */
#ifndef CLARITY_UTIL_HUGEPAGE_H
#define CLARITY_UTIL_HUGEPAGE_H
#include <stddef.h>

/* Asks the kernel to back the 2 MiB-aligned interior of [p, p + n) with transparent huge
 * pages, when n is at least 4 MiB (smaller blocks are left alone). Why: a model of 10^6 small
 * jobs writes ~2 GB of tables once, front to back (stages, jobs, queries, task columns, the
 * summary's totals); with 4 KiB pages that is half a million page faults, and on a virtual
 * machine each fault costs far more than the writes it serves (a fifth of `summary`'s CPU on
 * 10^5 jobs). With huge pages one fault serves 2 MiB. Only a hint: where the kernel's
 * transparent huge pages are off ("never") or the call fails, nothing changes. */
void clarity_hugepage_advise(void *p, size_t n);

/* realloc(p, new_bytes) for a growing table whose first old_bytes are in use: from 4 MiB on,
 * a fresh block is advised before the old bytes are copied into it (realloc would copy them,
 * faulting every 4 KiB page, before the advice could be given), then the old one is freed;
 * from 32 MiB of old bytes on, realloc itself (it moves such blocks without copying).
 * NULL when out of memory, p untouched. */
void *clarity_hugepage_realloc(void *p, size_t old_bytes, size_t new_bytes);

/* The same, with the bytes past old_bytes zeroed. Between 4 and 32 MiB the fresh block comes
 * from calloc, which leaves a new mapping unwritten: a table grown to the log's projected size
 * (the task columns: ~28 MB at 10^5 small jobs) then touches only the pages its rows fill,
 * instead of a memset faulting in the whole capacity, an eighth of it never used. */
void *clarity_hugepage_realloc_zeroed(void *p, size_t old_bytes, size_t new_bytes);

#endif
