/* The growable array, the string buffer and the heap. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include "clarity/arena.h"
#include "util/heap.h"
#include "util/hugepage.h"
#include "util/strbuf.h"
#include "util/vec.h"

Test(vec, push_grows_and_zeroes)
{
    struct pt { int x, y; } *p = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 1000; i++) {
        struct pt *e = CLARITY_VEC_PUSH(p, n, cap);
        cr_assert_not_null(e);
        cr_assert(e->x == 0 && e->y == 0);
        e->x = i;
    }
    cr_assert_eq(n, 1000);
    cr_assert_geq(cap, 1000);
    cr_assert_eq(p[999].x, 999);
    cr_assert_eq(CLARITY_VEC_RESERVE(p, cap, 5000), 0);
    cr_assert_geq(cap, 5000);
    cr_assert_eq(p[500].x, 500, "growing keeps the elements");
    size_t big = SIZE_MAX / 2;
    cr_assert_eq(CLARITY_VEC_RESERVE(p, cap, big), -1, "an impossible size fails");
    cr_assert_geq(cap, 5000);
    free(p);
}

Test(vec, arena_lists_start_at_two_and_keep_their_elements)
{
    struct clarity_arena ar = {0};
    int64_t *p = NULL;
    size_t n = 0, cap = 0;
    int64_t *e = CLARITY_VEC_PUSH_ARENA(&ar, p, n, cap);
    cr_assert_not_null(e);
    cr_assert_eq(*e, 0);
    *e = 41;
    cr_assert_eq(cap, 2, "a list starts at two slots");
    cr_assert_eq(ar.used_bytes, 16, "two int64 in one 16-byte arena block, no malloc header");
    for (int64_t i = 1; i < 100; i++) *CLARITY_VEC_PUSH_ARENA(&ar, p, n, cap) = 41 + i;
    cr_assert_eq(n, 100);
    cr_assert_eq(cap, 128, "doubled: 2, 4, ..., 128");
    for (int64_t i = 0; i < 100; i++) cr_assert_eq(p[i], 41 + i, "growing copies the elements");
    /* 16 + 32 + ... + 1024 bytes: the old blocks stay until the arena goes */
    cr_assert_eq(ar.used_bytes, 2032);
    size_t big = SIZE_MAX / 2;
    cr_assert_eq(clarity_vec_grow_arena(&ar, (void **)&p, &cap, big, sizeof *p, 2), -1, "an impossible size fails");
    cr_assert_eq(cap, 128);
    cr_assert_eq(p[99], 140);
    clarity_arena_free(&ar);
}

Test(vec, hugepage_advice_changes_no_byte)
{
    /* a hint only: on a block big enough to be advised, and on small or odd ones, the bytes
     * stay as written */
    size_t n = (size_t)9 << 20;
    unsigned char *p = malloc(n);
    cr_assert_not_null(p);
    for (size_t i = 0; i < n; i += 4093) p[i] = (unsigned char)(i * 7);
    clarity_hugepage_advise(p, n);
    clarity_hugepage_advise(p + 1, 100);
    clarity_hugepage_advise(NULL, n);
    for (size_t i = 0; i < n; i += 4093) cr_assert_eq(p[i], (unsigned char)(i * 7));
    free(p);
}

Test(strbuf, numbers_escapes_and_printf)
{
    struct clarity_strbuf b = {0};
    clarity_sb_int(&b, -9223372036854775807LL - 1);
    clarity_sb_ch(&b, ' ');
    clarity_sb_int(&b, 0);
    clarity_sb_ch(&b, ' ');
    clarity_sb_fixed(&b, 12.3456, 3);
    clarity_sb_ch(&b, ' ');
    clarity_sb_fixed(&b, -0.5, 0);
    clarity_sb_ch(&b, ' ');
    clarity_sb_jstr(&b, "a\"b\\c\nd\x01");
    clarity_sb_kint(&b, ",\"k\":", 42);
    clarity_sb_printf(&b, " %s=%.2f", "pi", 3.14159);
    cr_assert_str_eq(b.p, "-9223372036854775808 0 12.346 -1 \"a\\\"b\\\\c\\nd\\u0001\",\"k\":42 pi=3.14");
    cr_assert_eq(b.n, strlen(b.p));
    cr_assert_not(b.oom);
    for (int i = 0; i < 10000; i++) clarity_sb_str(&b, "0123456789");
    cr_assert_eq(b.n, strlen(b.p), "still NUL-terminated after growing");
    clarity_sb_free(&b);
    cr_assert_null(b.p);
    clarity_sb_mem(&b, "", 0);
    cr_assert_str_eq(b.p, "", "an empty append still makes a string");
    clarity_sb_free(&b);
    char *s = clarity_str_printf("%s/%d", "dir", 7);
    cr_assert_str_eq(s, "dir/7");
    free(s);
}

struct item { double t; int seq; int pos; };
#define ITEM_LESS(items, a, b) ((items)[a].t < (items)[b].t || ((items)[a].t == (items)[b].t && (items)[a].seq < (items)[b].seq))
#define ITEM_MOVED(items, h, i) ((items)[(h)[i]].pos = (int)(i))
CLARITY_HEAP_DEFINE(iq, int, struct item *, ITEM_LESS, ITEM_MOVED)
#define DLESS(ctx, a, b) ((a) < (b))
CLARITY_HEAP_DEFINE(dq, double, void *, DLESS, CLARITY_HEAP_NOT_INDEXED)

Test(heap, doubles_come_out_in_order)
{
    double h[64];
    size_t n = 0;
    const double in[] = {5, 3, 8, 1, 9, 2, 7, 3};
    for (size_t i = 0; i < 8; i++) dq_push(NULL, h, &n, in[i]);
    dq_replace_top(NULL, h, n, 6);   /* 1 leaves, 6 comes in */
    const double want[] = {2, 3, 3, 5, 6, 7, 8, 9};
    for (size_t i = 0; i < 8; i++) cr_assert_eq(dq_pop(NULL, h, &n), want[i]);
    cr_assert_eq(n, 0);
}

Test(heap, indexed_ties_by_sequence_update_and_remove)
{
    struct item it[6] = {{5, 0, -1}, {1, 1, -1}, {5, 2, -1}, {3, 3, -1}, {5, 4, -1}, {0, 5, -1}};
    int h[6];
    size_t n = 0;
    for (int i = 0; i < 6; i++) iq_push(it, h, &n, i);
    for (size_t i = 0; i < n; i++) cr_assert_eq(it[h[i]].pos, (int)i, "positions are tracked");
    it[1].t = 9;                        /* item 1 moves to the back */
    iq_update(it, h, n, (size_t)it[1].pos);
    iq_remove(it, h, &n, (size_t)it[3].pos);   /* item 3 is cancelled */
    const int want[] = {5, 0, 2, 4, 1};   /* equal times leave in sequence order */
    for (int i = 0; i < 5; i++) cr_assert_eq(iq_pop(it, h, &n), want[i], "pop %d", i);
    cr_assert_eq(n, 0);
}
