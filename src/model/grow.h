/* How the model's big tables grow while a log is read: to the size the rest of the log
 * projects, not by doubling alone. */
#ifndef CLARITY_MODEL_GROW_H
#define CLARITY_MODEL_GROW_H
#include <stddef.h>
#include <string.h>

struct apply_ctx;

/* The capacity a table of cap rows grows to when it needs need rows: at least what doubling
 * gives (from first when it had none), and, once the table holds 4,096 rows and the bytes read
 * so far are a known share of a plain log, the rows that share projects for the whole log plus
 * an eighth (at most 64 times cap). Why: on a log of 10^5-10^6 small jobs the stage, job,
 * query and task tables reach 10-400 MB, and every doubling copied the whole table into fresh
 * pages and freed the old ones (the copies and their page faults were ~15% of `summary`'s
 * CPU); growing once to the projected size copies a table of a few thousand rows instead. A
 * projection that falls short only leaves the doubling to finish the job, one that overshoots
 * costs address space that is never touched (rows are written, and pages faulted in, as they
 * come). 0 when the count would overflow. */
size_t clarity__model_grow_cap(const struct apply_ctx *c, size_t cap, size_t need, size_t first, size_t elem);

/* The projection alone: the rows the log projects for a table of cap rows that needs need
 * (the rule above), or 0 when there is none to make. */
size_t clarity__model_projected(const struct apply_ctx *c, size_t cap, size_t need);

/* Grows *p (elem-byte rows, capacity *cap) to hold need rows at the capacity above, falling
 * back to plain doubling when the projected block cannot be had. 0, or -1 when out of memory
 * (*p, *cap unchanged). */
int clarity__model_grow(struct apply_ctx *c, void **p, size_t *cap, size_t need, size_t elem, size_t first);

/* Appends one zeroed row to a model table (ptr, n, cap): a pointer to it, or NULL when out of
 * memory. The model's form of CLARITY_VEC_PUSH (first capacity 8, as there). */
#define CLARITY_MODEL_PUSH(c, ptr, n, cap)                                                          \
    (((size_t)(n) + 1 <= (cap) || clarity__model_grow((c), (void **)&(ptr), &(cap), (size_t)(n) + 1, sizeof *(ptr), 8) == 0) \
         ? (memset(&(ptr)[(n)], 0, sizeof *(ptr)), &(ptr)[(n)++])                                   \
         : NULL)

#endif
