/* Bump allocator: everything an application model holds lives in its arena and is freed at
 * once with it. Also a string interner (ids are stable, 0 is the empty string) and an
 * int64 -> uint32 hash map, both owned by their parent object. */
#ifndef CLARITY_ARENA_H
#define CLARITY_ARENA_H
#include <stddef.h>
#include <stdint.h>

struct clarity_arena_chunk;
struct clarity_arena {
    struct clarity_arena_chunk *head;
    size_t used_bytes;   /* bytes handed out, for the memory report */
};
void *clarity_arena_alloc(struct clarity_arena *a, size_t n);      /* zeroed, 16-aligned */
char *clarity_arena_strndup(struct clarity_arena *a, const char *s, size_t n);
/* A copy of the C string s in the arena; NULL for a NULL s (or out of memory: a caller that
 * passes NULL tells the two apart by s). */
char *clarity_arena_strdup(struct clarity_arena *a, const char *s);
void clarity_arena_free(struct clarity_arena *a);

struct clarity_strtab {
    struct clarity_arena arena;
    const char **strs;   /* id -> string */
    uint32_t *lens;
    uint32_t n, cap;
    uint32_t *slots;     /* open addressing, id+1 (0 = empty) */
    uint32_t nslots;
};
/* Returns the id of s (adding it if new); UINT32_MAX when out of memory. */
uint32_t clarity_strtab_intern(struct clarity_strtab *t, const char *s, size_t len);
static inline const char *clarity_strtab_get(const struct clarity_strtab *t, uint32_t id)
{
    return id < t->n ? t->strs[id] : "";
}
void clarity_strtab_free(struct clarity_strtab *t);

/* Ids (jobs, SQL executions, RDDs) are mostly small and dense, so keys in [0, ndense) live in a
 * plain array indexed by the key (val + 1; 0 = absent): a lookup is one load, and ids met in
 * order touch memory in order instead of at random hash slots, which is what costs on a log of
 * 10^5-10^6 jobs. Other keys go to an open-addressing table whose slots hold key, value and
 * occupancy together (one cache line per probe instead of three arrays). */
struct clarity_idmap_slot { int64_t key; uint32_t val, used; };
struct clarity_idmap {
    struct clarity_idmap_slot *slots;
    size_t n, cap;       /* hashed entries; cap is a power of two; 0 = no table */
    uint32_t *dense;     /* val + 1 by key for keys in [0, ndense) */
    size_t ndense, ndense_used;
};
/* Returns 1 and fills *val when key is present, else 0. */
int clarity_idmap_get(const struct clarity_idmap *m, int64_t key, uint32_t *val);
int clarity_idmap_put(struct clarity_idmap *m, int64_t key, uint32_t val); /* 0 ok, -1 oom */
void clarity_idmap_free(struct clarity_idmap *m);

#endif
