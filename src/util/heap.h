/* A binary min-heap over an array the caller owns and sizes, written once for every element
 * type: CLARITY_HEAP_DEFINE(name, T, CTX, LESS, MOVED) defines static inline functions
 * name_push, name_pop, name_remove, name_update and name_replace_top on T h[] with n elements.
 *   LESS(ctx, a, b)   true when a must come out before b; a strict order, so ties are broken
 *                     by the caller's key (e.g. a sequence number) and runs stay deterministic
 *   MOVED(ctx, h, i)  called whenever h[i] receives an element: an indexed heap records the
 *                     position there so it can move or remove that element later;
 *                     CLARITY_HEAP_NOT_INDEXED otherwise
 * A macro rather than callbacks through void *: the replay and synth loops sift millions of
 * times per run, and the comparison must inline. */
#ifndef CLARITY_UTIL_HEAP_H
#define CLARITY_UTIL_HEAP_H
#include <stddef.h>

#define CLARITY_HEAP_NOT_INDEXED(ctx, h, i) ((void)0)

#define CLARITY_HEAP_DEFINE(name, T, CTX, LESS, MOVED)                                                 \
    /* moves h[i] towards the root while it is less than its parent; returns where it lands */   \
    static inline size_t name##_sift_up(CTX ctx, T *h, size_t i)                                 \
    {                                                                                            \
        (void)ctx;                                                                               \
        T x = h[i];                                                                              \
        while (i > 0) {                                                                          \
            size_t p = (i - 1) / 2;                                                              \
            if (!(LESS(ctx, x, h[p]))) break;                                                    \
            h[i] = h[p];                                                                         \
            MOVED(ctx, h, i);                                                                    \
            i = p;                                                                               \
        }                                                                                        \
        h[i] = x;                                                                                \
        MOVED(ctx, h, i);                                                                        \
        return i;                                                                                \
    }                                                                                            \
    /* moves h[i] down while a child is less (the left child on ties); returns where it lands */ \
    static inline size_t name##_sift_down(CTX ctx, T *h, size_t n, size_t i)                     \
    {                                                                                            \
        (void)ctx;                                                                               \
        T x = h[i];                                                                              \
        for (;;) {                                                                               \
            size_t c = 2 * i + 1;                                                                \
            if (c >= n) break;                                                                   \
            if (c + 1 < n && (LESS(ctx, h[c + 1], h[c]))) c++;                                   \
            if (!(LESS(ctx, h[c], x))) break;                                                    \
            h[i] = h[c];                                                                         \
            MOVED(ctx, h, i);                                                                    \
            i = c;                                                                               \
        }                                                                                        \
        h[i] = x;                                                                                \
        MOVED(ctx, h, i);                                                                        \
        return i;                                                                                \
    }                                                                                            \
    /* h must have room for *n + 1 elements */                                                   \
    static inline void name##_push(CTX ctx, T *h, size_t *n, T x)                                \
    {                                                                                            \
        h[*n] = x;                                                                               \
        name##_sift_up(ctx, h, (*n)++);                                                          \
    }                                                                                            \
    /* the element at i changed its key: restore the order */                                    \
    static inline void name##_update(CTX ctx, T *h, size_t n, size_t i)                          \
    {                                                                                            \
        name##_sift_down(ctx, h, n, name##_sift_up(ctx, h, i));                                  \
    }                                                                                            \
    /* takes out the element at i (the last one fills its place) */                             \
    static inline void name##_remove(CTX ctx, T *h, size_t *n, size_t i)                         \
    {                                                                                            \
        size_t last = --*n;                                                                      \
        if (i == last) return;                                                                   \
        h[i] = h[last];                                                                          \
        name##_update(ctx, h, *n, i);                                                            \
    }                                                                                            \
    /* the least element, taken out; *n must be > 0 */                                           \
    static inline T name##_pop(CTX ctx, T *h, size_t *n)                                         \
    {                                                                                            \
        T top = h[0];                                                                            \
        name##_remove(ctx, h, n, 0);                                                             \
        return top;                                                                              \
    }                                                                                            \
    /* pop then push in one sift: the top is replaced by x */                                    \
    static inline void name##_replace_top(CTX ctx, T *h, size_t n, T x)                          \
    {                                                                                            \
        h[0] = x;                                                                                \
        name##_sift_down(ctx, h, n, 0);                                                          \
    }

#endif
