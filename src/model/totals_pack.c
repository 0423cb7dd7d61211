/* Packed totals (totals_pack.h says why). A record is a varint mask of the nonzero fields
 * (bit 0: cpu_logged; bit k + 1: field k of the table below, the often-set ones first so a
 * small stage's mask takes 2 bytes), then each nonzero field as a zigzag varint in table
 * order. */
#include "model/totals_pack.h"
#include "util/hugepage.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

static const size_t fields[] = {
    offsetof(struct clarity_totals, tasks), offsetof(struct clarity_totals, succeeded),
    offsetof(struct clarity_totals, failed), offsetof(struct clarity_totals, killed),
    offsetof(struct clarity_totals, running), offsetof(struct clarity_totals, speculative),
    offsetof(struct clarity_totals, task_ms), offsetof(struct clarity_totals, run_ms),
    offsetof(struct clarity_totals, cpu_ns), offsetof(struct clarity_totals, gc_ms),
    offsetof(struct clarity_totals, deser_ms), offsetof(struct clarity_totals, input_bytes),
    offsetof(struct clarity_totals, output_bytes), offsetof(struct clarity_totals, shuffle_read_bytes),
    offsetof(struct clarity_totals, shuffle_remote_bytes), offsetof(struct clarity_totals, shuffle_write_bytes),
    offsetof(struct clarity_totals, fetch_wait_ms), offsetof(struct clarity_totals, shuffle_write_ns),
    offsetof(struct clarity_totals, mem_spilled), offsetof(struct clarity_totals, disk_spilled),
};
#define NFIELDS (sizeof fields / sizeof *fields)
#define CPU_LOGGED_BIT 1u
#define FIELD_BIT(k) (2u << (k))
/* the mask's varint (3 bytes) and every field's (10 bytes each) at most */
#define MAX_RECORD (3 + 10 * NFIELDS)
_Static_assert(NFIELDS == 20, "every int64_t figure of struct clarity_totals is packed");

static int64_t field(const struct clarity_totals *t, size_t k)
{
    return *(const int64_t *)(const void *)((const char *)t + fields[k]);
}

static uint8_t *put_varint(uint8_t *o, uint64_t v)
{
    while (v >= 0x80) {
        *o++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *o++ = (uint8_t)v;
    return o;
}

static const uint8_t *get_varint(const uint8_t *i, uint64_t *v)
{
    uint64_t r = 0;
    for (unsigned s = 0;; s += 7) {
        uint8_t b = *i++;
        r |= (uint64_t)(b & 0x7f) << s;
        if (!(b & 0x80)) break;
    }
    *v = r;
    return i;
}

static int reserve(struct totals_pack *p)
{
    if (p->len + MAX_RECORD > p->cap) {
        size_t nc = p->cap * 2;
        while (nc < p->len + MAX_RECORD) nc *= 2;
        uint8_t *b = realloc(p->buf, nc);
        if (!b) return -1;
        p->buf = b;
        p->cap = nc;
    }
    return 0;
}

int clarity__totals_pack_init(struct totals_pack *p, size_t n)
{
    *p = (struct totals_pack){0};
    p->n = n;
    p->cap = n * 32 + MAX_RECORD;   /* a small job's stage takes ~20 bytes */
    p->at = malloc((n ? n : 1) * sizeof *p->at);
    p->buf = malloc(p->cap);
    clarity_hugepage_advise(p->buf, p->cap);   /* written once, front to back */
    if (!p->at || !p->buf) {
        clarity__totals_pack_free(p);
        return -1;
    }
    return 0;
}

int clarity__totals_pack_put(struct totals_pack *p, size_t i, const struct clarity_totals *t)
{
    if (reserve(p) != 0) return -1;
    uint32_t mask = t->cpu_logged ? CPU_LOGGED_BIT : 0;
    for (size_t k = 0; k < NFIELDS; k++)
        if (field(t, k)) mask |= FIELD_BIT(k);
    p->at[i] = p->len;
    uint8_t *o = put_varint(p->buf + p->len, mask);
    for (size_t k = 0; k < NFIELDS; k++)
        if (mask & FIELD_BIT(k)) {
            uint64_t v = (uint64_t)field(t, k);
            o = put_varint(o, (v << 1) ^ (uint64_t)(field(t, k) >> 63));   /* zigzag: small negatives stay short */
        }
    p->len = (size_t)(o - p->buf);
    return 0;
}

void clarity__totals_pack_get(const struct totals_pack *p, size_t i, struct clarity_totals *out)
{
    *out = (struct clarity_totals){0};
    const uint8_t *in = p->buf + p->at[i];
    uint64_t mask, v;
    in = get_varint(in, &mask);
    out->cpu_logged = (mask & CPU_LOGGED_BIT) != 0;
    /* the set bits only: a stage is unpacked three times (its row, its job's and its query's
     * sums), and most of its 20 figures are zero */
    for (uint32_t bits = (uint32_t)(mask >> 1) & ((1u << NFIELDS) - 1); bits; bits &= bits - 1) {
        unsigned k = (unsigned)__builtin_ctz(bits);
        in = get_varint(in, &v);
        *(int64_t *)(void *)((char *)out + fields[k]) = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
    }
}

void clarity__totals_pack_free(struct totals_pack *p)
{
    free(p->buf);
    free(p->at);
    *p = (struct totals_pack){0};
}
