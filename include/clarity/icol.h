/* An integer column that stores each value in the fewest bytes the column has needed so far
 * (0 = every value is zero and nothing is allocated, then 1, 2, 4 or 8 bytes). Tasks are kept
 * as many such columns, which is how the model stays under 100 bytes per task attempt. */
#ifndef CLARITY_ICOL_H
#define CLARITY_ICOL_H
#include <stddef.h>
#include <stdint.h>

struct clarity_icol {
    void *data;
    uint8_t width;   /* bytes per value: 0, 1, 2, 4 or 8 */
};

/* Value at row i (rows past what was ever set read as 0 when width is 0). */
static inline int64_t clarity_icol_get(const struct clarity_icol *c, size_t i)
{
    switch (c->width) {
    case 1: return ((const int8_t *)c->data)[i];
    case 2: return ((const int16_t *)c->data)[i];
    case 4: return ((const int32_t *)c->data)[i];
    case 8: return ((const int64_t *)c->data)[i];
    default: return 0;
    }
}
/* Sets row i (< cap, the owning table's capacity); widens the column if needed.
 * Returns 0, or -1 when out of memory. */
int clarity_icol_set(struct clarity_icol *c, size_t i, int64_t v, size_t cap);
/* Grows storage from old_cap to new_cap rows (new rows read 0). */
int clarity_icol_reserve(struct clarity_icol *c, size_t old_cap, size_t new_cap);
void clarity_icol_free(struct clarity_icol *c);
size_t clarity_icol_bytes(const struct clarity_icol *c, size_t cap);

#endif
