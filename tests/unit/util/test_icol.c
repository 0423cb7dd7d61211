#include <criterion/criterion.h>
#include <stdio.h>
#include "clarity/arena.h"
#include "clarity/icol.h"

Test(icol, widens_and_keeps_values)
{
    struct clarity_icol c = {0};
    size_t cap = 16;
    cr_assert_eq(c.width, 0);
    cr_assert_eq(clarity_icol_set(&c, 3, 0, cap), 0);
    cr_assert_eq(c.width, 0, "zeros allocate nothing");
    clarity_icol_set(&c, 1, 100, cap);
    cr_assert_eq(c.width, 1);
    clarity_icol_set(&c, 2, -30000, cap);
    cr_assert_eq(c.width, 2);
    clarity_icol_set(&c, 5, 1LL << 40, cap);
    cr_assert_eq(c.width, 8);
    cr_assert_eq(clarity_icol_get(&c, 1), 100);
    cr_assert_eq(clarity_icol_get(&c, 2), -30000);
    cr_assert_eq(clarity_icol_get(&c, 5), 1LL << 40);
    cr_assert_eq(clarity_icol_reserve(&c, cap, 64), 0);
    cr_assert_eq(clarity_icol_get(&c, 63), 0);
    cr_assert_eq(clarity_icol_get(&c, 2), -30000);
    clarity_icol_free(&c);
}

Test(strtab, interns_once_and_zero_is_empty)
{
    struct clarity_strtab t = {0};
    uint32_t a = clarity_strtab_intern(&t, "host-a", 6);
    uint32_t b = clarity_strtab_intern(&t, "host-b", 6);
    cr_assert_neq(a, 0);
    cr_assert_neq(a, b);
    cr_assert_eq(clarity_strtab_intern(&t, "host-a", 6), a);
    cr_assert_str_eq(clarity_strtab_get(&t, 0), "");
    for (int i = 0; i < 5000; i++) {
        char buf[32];
        int n = snprintf(buf, sizeof buf, "k%d", i);
        clarity_strtab_intern(&t, buf, (size_t)n);
    }
    cr_assert_eq(clarity_strtab_intern(&t, "host-b", 6), b);
    cr_assert_str_eq(clarity_strtab_get(&t, a), "host-a");
    clarity_strtab_free(&t);
}

Test(idmap, put_get_overwrite_grow)
{
    struct clarity_idmap m = {0};
    uint32_t v;
    cr_assert_eq(clarity_idmap_get(&m, 5, &v), 0);
    for (int64_t k = -1000; k < 100000; k += 7) clarity_idmap_put(&m, k, (uint32_t)(k + 2000));
    cr_assert_eq(clarity_idmap_get(&m, -1000, &v), 1);
    cr_assert_eq(v, 1000);
    cr_assert_eq(clarity_idmap_get(&m, 6, &v), 0);
    clarity_idmap_put(&m, -1000, 7);
    clarity_idmap_get(&m, -1000, &v);
    cr_assert_eq(v, 7);
    clarity_idmap_free(&m);
}

/* Keys hashed while out of the dense range stay found (and overwritable) once the dense range
 * grows over them; dense and hashed keys mix; negative and huge keys stay hashed. */
Test(idmap, dense_range_and_table_agree)
{
    struct clarity_idmap m = {0};
    uint32_t v;
    cr_assert_eq(clarity_idmap_put(&m, 5000, 1), 0);          /* beyond the first dense range */
    cr_assert_eq(m.ndense, 0);
    for (int64_t k = 0; k < 20000; k++)
        if (k != 5000) cr_assert_eq(clarity_idmap_put(&m, k, (uint32_t)(k * 3)), 0);
    cr_assert_geq(m.ndense, 20000);                           /* ids from 0 went dense */
    cr_assert_eq(m.n, 1);                                     /* only 5000 is hashed */
    cr_assert_eq(clarity_idmap_get(&m, 5000, &v), 1);
    cr_assert_eq(v, 1);
    cr_assert_eq(clarity_idmap_put(&m, 5000, 9), 0);          /* overwrites the hashed entry */
    cr_assert_eq(m.n, 1);
    cr_assert_eq(clarity_idmap_get(&m, 5000, &v), 1);
    cr_assert_eq(v, 9);
    cr_assert_eq(clarity_idmap_get(&m, 19999, &v), 1);
    cr_assert_eq(v, 59997);
    cr_assert_eq(clarity_idmap_get(&m, 20000, &v), 0);
    cr_assert_eq(clarity_idmap_put(&m, INT64_MAX, 4), 0);
    cr_assert_eq(clarity_idmap_put(&m, -3, 0), 0);            /* value 0 is a value, not absence */
    cr_assert_eq(clarity_idmap_put(&m, 7, UINT32_MAX), 0);    /* cannot be stored as val + 1 */
    cr_assert_eq(clarity_idmap_get(&m, INT64_MAX, &v), 1);
    cr_assert_eq(v, 4);
    cr_assert_eq(clarity_idmap_get(&m, -3, &v), 1);
    cr_assert_eq(v, 0);
    cr_assert_eq(clarity_idmap_get(&m, 7, &v), 1);
    cr_assert_eq(v, UINT32_MAX);
    cr_assert_eq(clarity_idmap_get(&m, 0, &v), 1);
    cr_assert_eq(v, 0);
    clarity_idmap_free(&m);
    cr_assert_eq(clarity_idmap_get(&m, 0, &v), 0);
}

/* Keys in steps of 8 from 7 (query ids of a log renumbered copy by copy) stay in the dense
 * range: at most 8 slots (32 bytes) per entry, no more than the hash table's 21-43. Keys in
 * steps of 16 are taken while the range grown so far covers them (doubling to 4,096 slots at
 * the 129th key, 2,055: 2,056 slots for 129 entries, not above 8 x 129 + 1,024); the 257th,
 * 4,103, would need 4,104 slots for 257 entries, above 8 x 257 + 1,024 = 3,080: it and the
 * rest are hashed. */
Test(idmap, dense_up_to_eight_slots_per_entry)
{
    struct clarity_idmap a = {0}, b = {0};
    uint32_t v;
    for (int64_t i = 0; i < 100000; i++) cr_assert_eq(clarity_idmap_put(&a, 8 * i + 7, (uint32_t)i), 0);
    cr_assert_eq(a.n, 0);                                     /* none hashed */
    cr_assert_eq(a.ndense, 1048576);                          /* 800,000 rounded up to a power of two */
    cr_assert_eq(clarity_idmap_get(&a, 8 * 99999 + 7, &v), 1);
    cr_assert_eq(v, 99999);
    cr_assert_eq(clarity_idmap_get(&a, 8 * 500 + 6, &v), 0);
    for (int64_t i = 0; i < 1000; i++) cr_assert_eq(clarity_idmap_put(&b, 16 * i + 7, (uint32_t)i), 0);
    cr_assert_eq(b.ndense, 4096);
    cr_assert_eq(b.n, 1000 - 256);                            /* from the 257th key on */
    for (int64_t i = 0; i < 1000; i++) {
        cr_assert_eq(clarity_idmap_get(&b, 16 * i + 7, &v), 1);
        cr_assert_eq(v, (uint32_t)i);
    }
    clarity_idmap_free(&a);
    clarity_idmap_free(&b);
}
