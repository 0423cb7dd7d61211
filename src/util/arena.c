#include "clarity/arena.h"
#include "util/hugepage.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

struct clarity_arena_chunk {
    struct clarity_arena_chunk *next;
    size_t cap, used;
    _Alignas(16) unsigned char data[];
};

void *clarity_arena_alloc(struct clarity_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    struct clarity_arena_chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        /* 64 KiB first, then each chunk twice the last up to 4 MiB: an arena that holds a
         * model of 10^5-10^6 small jobs (~200 bytes each: strings, id lists, plan nodes)
         * filled 64 KiB chunks from the heap a 4 KiB page fault at a time, ~5,000 faults at
         * 10^5 jobs; chunks of 4 MiB are advised to huge pages, one fault per 2 MiB. A chunk's
         * unused tail is never written, so it costs address space, not memory. */
        size_t cap = c && c->cap < ((size_t)4 << 20) / 2 ? c->cap * 2 : c ? ((size_t)4 << 20) : 64 * 1024 - sizeof *c;
        if (n > cap) cap = n;
        c = malloc(sizeof *c + cap);
        if (!c) return NULL;
        clarity_hugepage_advise(c, sizeof *c + cap);
        c->cap = cap;
        c->used = 0;
        c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += n;
    a->used_bytes += n;
    memset(p, 0, n);
    return p;
}

char *clarity_arena_strndup(struct clarity_arena *a, const char *s, size_t n)
{
    char *p = clarity_arena_alloc(a, n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *clarity_arena_strdup(struct clarity_arena *a, const char *s)
{
    return s ? clarity_arena_strndup(a, s, strlen(s)) : NULL;
}

void clarity_arena_free(struct clarity_arena *a)
{
    struct clarity_arena_chunk *c = a->head;
    while (c) {
        struct clarity_arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->head = NULL;
    a->used_bytes = 0;
}

/* XXH3: interning runs several times per task event, and some strings (plans, stack traces)
 * are long, so the hash must be fast on both. */
static uint32_t str_hash(const char *s, size_t n)
{
    return (uint32_t)XXH3_64bits(s, n);
}

static int strtab_rehash(struct clarity_strtab *t, uint32_t nslots)
{
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots) return -1;
    for (uint32_t id = 0; id < t->n; id++) {
        uint32_t h = str_hash(t->strs[id], t->lens[id]) & (nslots - 1);
        while (slots[h]) h = (h + 1) & (nslots - 1);
        slots[h] = id + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    return 0;
}

uint32_t clarity_strtab_intern(struct clarity_strtab *t, const char *s, size_t len)
{
    if (t->n == 0 && (s == NULL || len != 0)) {
        /* id 0 is always "", so a zeroed id field means "no string" */
        if (clarity_strtab_intern(t, "", 0) == UINT32_MAX) return UINT32_MAX;
    }
    if (!s) return 0;
    if (t->nslots == 0 && strtab_rehash(t, 64) != 0) return UINT32_MAX;
    uint32_t h = str_hash(s, len) & (t->nslots - 1);
    while (t->slots[h]) {
        uint32_t id = t->slots[h] - 1;
        if (t->lens[id] == len && memcmp(t->strs[id], s, len) == 0) return id;
        h = (h + 1) & (t->nslots - 1);
    }
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 64;
        const char **strs = realloc(t->strs, cap * sizeof *strs);
        if (!strs) return UINT32_MAX;
        t->strs = strs;
        uint32_t *lens = realloc(t->lens, cap * sizeof *lens);
        if (!lens) return UINT32_MAX;
        t->lens = lens;
        t->cap = cap;
    }
    char *copy = clarity_arena_strndup(&t->arena, s, len);
    if (!copy) return UINT32_MAX;
    uint32_t id = t->n++;
    t->strs[id] = copy;
    t->lens[id] = (uint32_t)len;
    t->slots[h] = id + 1;
    if ((uint64_t)t->n * 2 > t->nslots && strtab_rehash(t, t->nslots * 2) != 0) return UINT32_MAX;
    return id;
}

void clarity_strtab_free(struct clarity_strtab *t)
{
    clarity_arena_free(&t->arena);
    free(t->strs);
    free(t->lens);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static size_t id_hash(int64_t k, size_t mask)
{
    uint64_t x = (uint64_t)k * 0x9E3779B97F4A7C15ull;
    return (size_t)(x >> 32) & mask;
}

static int hash_get(const struct clarity_idmap *m, int64_t key, uint32_t *val)
{
    if (!m->cap) return 0;
    size_t mask = m->cap - 1, h = id_hash(key, mask);
    while (m->slots[h].used) {
        if (m->slots[h].key == key) {
            *val = m->slots[h].val;
            return 1;
        }
        h = (h + 1) & mask;
    }
    return 0;
}

int clarity_idmap_get(const struct clarity_idmap *m, int64_t key, uint32_t *val)
{
    if (key >= 0 && (uint64_t)key < m->ndense && m->dense[key]) {
        *val = m->dense[key] - 1;
        return 1;
    }
    /* a key below ndense may still be hashed: it was put before the dense range reached it */
    return hash_get(m, key, val);
}

static int hash_put(struct clarity_idmap *m, int64_t key, uint32_t val);

static int idmap_grow(struct clarity_idmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 256;
    struct clarity_idmap nm = {0};
    nm.slots = calloc(cap, sizeof *nm.slots);
    if (!nm.slots) return -1;
    /* filled at random places: with 4 KiB pages a big table faults on almost every put */
    clarity_hugepage_advise(nm.slots, cap * sizeof *nm.slots);
    nm.cap = cap;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].used) hash_put(&nm, m->slots[i].key, m->slots[i].val);
    free(m->slots);
    m->slots = nm.slots;
    m->cap = nm.cap;
    m->n = nm.n;
    return 0;
}

static int hash_put(struct clarity_idmap *m, int64_t key, uint32_t val)
{
    if ((m->n + 1) * 4 > m->cap * 3 && idmap_grow(m) != 0) return -1;
    size_t mask = m->cap - 1, h = id_hash(key, mask);
    while (m->slots[h].used) {
        if (m->slots[h].key == key) {
            m->slots[h].val = val;
            return 0;
        }
        h = (h + 1) & mask;
    }
    m->slots[h] = (struct clarity_idmap_slot){.key = key, .val = val, .used = 1};
    m->n++;
    return 0;
}

/* The dense range grows to take key when that keeps it at most about eight slots per entry it
 * would hold (ids from 0 in steps of a few stay dense; a hashed 64-bit key never does), so the
 * array costs at most 32 bytes per entry, up to twice that just after it doubles: about what
 * the hash table costs (16-byte slots kept between 3/8 and 3/4 full, 21 to 43 bytes an entry,
 * and its own doublings). Besides, keys that grow in log
 * order (job, query, stage and RDD ids) then land next to each other, where the hash scatters
 * them over the whole table: one cache and TLB miss per lookup once the table outgrows the
 * cache (query ids in steps of 8 went to the hash with a limit of four slots; its probes were
 * 3.4% of `summary`'s CPU at 10^5 queries). val must be below UINT32_MAX (rows are). */
static bool dense_take(struct clarity_idmap *m, int64_t key)
{
    if (key < 0) return false;
    if ((uint64_t)key < m->ndense) return true;
    uint64_t want = (uint64_t)key + 1;
    if (want > 8 * ((uint64_t)m->ndense_used + 1) + 1024) return false;
    size_t cap = m->ndense ? m->ndense : 1024;
    while (cap < want) cap *= 2;
    uint32_t *d = realloc(m->dense, cap * sizeof *d);
    if (!d) return false;    /* the table still works */
    memset(d + m->ndense, 0, (cap - m->ndense) * sizeof *d);
    m->dense = d;
    m->ndense = cap;
    return true;
}

int clarity_idmap_put(struct clarity_idmap *m, int64_t key, uint32_t val)
{
    uint32_t old;
    if (val != UINT32_MAX && dense_take(m, key)) {
        if (m->dense[key]) { m->dense[key] = val + 1; return 0; }
        if (!hash_get(m, key, &old)) {
            m->dense[key] = val + 1;
            m->ndense_used++;
            return 0;
        }
    }
    if (key >= 0 && (uint64_t)key < m->ndense && m->dense[key]) {   /* UINT32_MAX: move it to the table */
        m->dense[key] = 0;
        m->ndense_used--;
    }
    return hash_put(m, key, val);
}

void clarity_idmap_free(struct clarity_idmap *m)
{
    free(m->slots);
    free(m->dense);
    memset(m, 0, sizeof *m);
}
