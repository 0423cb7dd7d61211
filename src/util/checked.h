/* Saturating int64 arithmetic for sums and differences of logged values: a log can hold any
 * int64 (corrupt or hostile values at INT64_MIN/MAX), and a wrapped sum is undefined behaviour
 * and a wrong figure, while a saturated one is visibly extreme (and the integrity report
 * already flags such values as out of range). */
#ifndef CLARITY_UTIL_CHECKED_H
#define CLARITY_UTIL_CHECKED_H
#include <stdint.h>

static inline int64_t clarity_sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return b < 0 ? INT64_MIN : INT64_MAX;
    return r;
}

static inline int64_t clarity_sat_mul(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
    return r;
}

static inline int64_t clarity_sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) return b > 0 ? INT64_MIN : INT64_MAX;
    return r;
}

/* Wrapping int64 arithmetic, for the History Server's REST figures only: Spark computes them
 * in JVM longs, which wrap silently, and the REST layer answers exactly what the History
 * Server would. Done in uint64_t, where wrapping is defined; the conversion back is the
 * two's-complement one every compiler clarity supports (gcc, clang) documents. */
static inline int64_t clarity_wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t clarity_wrap_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
#endif
