/* Growable arrays: any `T *ptr; size_t n, cap;` triple. The capacity doubles, so n pushes
 * cost O(n) copies in all; the caller keeps the count and frees ptr. */
#ifndef CLARITY_UTIL_VEC_H
#define CLARITY_UTIL_VEC_H
#include <stddef.h>
#include <string.h>

/* Grows *p (elements of elem bytes, capacity *cap) to hold at least need elements: the
 * capacity doubles from 8 until it does. 0, or -1 when out of memory (*p, *cap unchanged). */
int clarity_vec_grow(void **p, size_t *cap, size_t need, size_t elem);
static inline int clarity_vec_reserve(void **p, size_t *cap, size_t need, size_t elem)
{
    return need <= *cap ? 0 : clarity_vec_grow(p, cap, need, elem);
}

/* The same, with a first capacity of max(need, first) instead of 8: for the model's per-object
 * lists (a stage's jobs, a query's jobs and plan metrics), which mostly hold one to three
 * entries; on a log of 10^6 small jobs eight slots each cost ~150 bytes per job. */
int clarity_vec_grow_from(void **p, size_t *cap, size_t need, size_t elem, size_t first);
/* clarity_vec_grow_from, the new elements zeroed: for tables indexed by an id (bit sets of task
 * ids or indices, id -> row arrays) whose unset entries must read 0. */
int clarity_vec_grow_zeroed(void **p, size_t *cap, size_t need, size_t elem, size_t first);
#define CLARITY_VEC_RESERVE_SMALL(ptr, cap, need) \
    ((need) <= (cap) ? 0 : clarity_vec_grow_from((void **)&(ptr), &(cap), (need), sizeof *(ptr), 2))
#define CLARITY_VEC_PUSH_SMALL(ptr, n, cap)                                                        \
    (CLARITY_VEC_RESERVE_SMALL(ptr, cap, (size_t)(n) + 1) == 0 ? (memset(&(ptr)[(n)], 0, sizeof *(ptr)), &(ptr)[(n)++]) \
                                                              : NULL)

/* The same again, in an arena (struct clarity_arena): for the model's many small per-object
 * lists (a stage's and a query's jobs, a query's plan nodes and metrics), which live as long
 * as the model. A grown list is copied to a block twice the size and the old block stays in
 * the arena until the model is freed (at most as many bytes again as the final list, as with
 * doubling), but no list costs a malloc header, a malloc call or a free at the end: on a log
 * of 10^6 small jobs these were five mallocs and 80 bytes of headers per job. A list starts
 * with the elements that fill the arena's 16-byte granule, at least one: two ids, but one plan
 * node (32 bytes) or metric (24): a small query's one-node plan took 112 bytes as two-slot
 * lists, 64 so. The caller never frees ptr. */
struct clarity_arena;
int clarity_vec_grow_arena(struct clarity_arena *ar, void **p, size_t *cap, size_t need, size_t elem, size_t first);
#define CLARITY__VEC_ARENA_FIRST(ptr) (sizeof *(ptr) < 16 ? 16 / sizeof *(ptr) : 1)
#define CLARITY_VEC_PUSH_ARENA(ar, ptr, n, cap)                                                    \
    (((size_t)(n) + 1 <= (cap) || clarity_vec_grow_arena((ar), (void **)&(ptr), &(cap), (size_t)(n) + 1, sizeof *(ptr), CLARITY__VEC_ARENA_FIRST(ptr)) == 0) \
         ? (memset(&(ptr)[(n)], 0, sizeof *(ptr)), &(ptr)[(n)++])                                 \
         : NULL)

/* The typed forms: ptr is the array lvalue, cap its size_t capacity. */
#define CLARITY_VEC_RESERVE(ptr, cap, need) clarity_vec_reserve((void **)&(ptr), &(cap), (need), sizeof *(ptr))
/* Appends one zeroed element: evaluates to a pointer to it (n grows by one), or NULL when
 * out of memory. */
#define CLARITY_VEC_PUSH(ptr, n, cap)                                                              \
    (CLARITY_VEC_RESERVE(ptr, cap, (size_t)(n) + 1) == 0 ? (memset(&(ptr)[(n)], 0, sizeof *(ptr)), &(ptr)[(n)++]) \
                                                        : NULL)

#endif
