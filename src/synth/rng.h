/* Seeded xoshiro256** streams: every random draw of a run comes from the run's own streams,
 * so runs are reproducible and independent (no global state). */
#ifndef CLARITY_SYNTH_RNG_H
#define CLARITY_SYNTH_RNG_H
#include <math.h>
#include <stdint.h>

struct rng { uint64_t s[4]; };

static inline uint64_t rng_splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0xD1B54A32D192ED03ull);
    for (int i = 0; i < 4; i++) r->s[i] = rng_splitmix(&x);
}
static inline uint64_t rng_next(struct rng *r)
{
    uint64_t *s = r->s, t = s[1] << 17, v = s[1] * 5;
    uint64_t res = ((v << 7) | (v >> 57)) * 9;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return res;
}
/* A stream of its own for one thing of the run (a stage's partitions, a task's work), keyed by
 * what it is (a, b) rather than by when it is drawn: the same thing gets the same draws whatever
 * ran before it (--keyed-draws). The key constants differ from rng_seed's stream multiplier, so
 * keyed streams do not meet the run's four shared ones. */
static inline void rng_keyed(struct rng *r, uint64_t seed, uint64_t a, uint64_t b)
{
    uint64_t x = seed ^ ((a + 1) * 0x9E6C63D0676A9A99ull) ^ ((b + 1) * 0xC2B2AE3D27D4EB4Full);
    for (int i = 0; i < 4; i++) r->s[i] = rng_splitmix(&x);
}
/* uniform in [0, 1) */
static inline double rng_unit(struct rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }
static inline double rng_range(struct rng *r, double lo, double hi) { return lo + (hi - lo) * rng_unit(r); }
static inline int rng_int(struct rng *r, int n) { return (int)(rng_unit(r) * n); }
static inline double rng_exp(struct rng *r, double mean) { return -mean * log(1.0 - rng_unit(r)); }
static inline double rng_normal(struct rng *r)
{
    double u = rng_unit(r), v = rng_unit(r);
    return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}
/* median 1: sizes of partitions and durations are skewed, never negative */
static inline double rng_lognormal(struct rng *r, double sigma)
{
    return sigma > 0 ? exp(sigma * rng_normal(r)) : 1.0;
}
#endif
