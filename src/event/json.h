/* A small C view of simdjson's DOM (the only C++ in clarity is behind this header).
 * Values are cheap copies that stay valid until the next cj_parse on the same parser. */
#ifndef CLARITY_EVENT_JSON_H
#define CLARITY_EVENT_JSON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CJ_PADDING 64   /* bytes that must be readable after any buffer handed to cj_parse */

typedef struct cj_parser cj_parser;
typedef struct { uint64_t w[2]; } cj_val;
typedef struct { uint64_t w[4]; } cj_iter;

enum clarity_cj_type { CJ_NONE, CJ_NULL, CJ_BOOL, CJ_INT, CJ_UINT, CJ_DOUBLE, CJ_STRING, CJ_ARRAY, CJ_OBJECT };

cj_parser *clarity_cj_parser_new(size_t max_bytes);
void clarity_cj_parser_free(cj_parser *p);
/* Parses len bytes at buf (buf[len .. len+CJ_PADDING) must be readable). Returns 0, or -1
 * with *why set to a static description. */
int clarity_cj_parse(cj_parser *p, const char *buf, size_t len, cj_val *root, const char **why);

enum clarity_cj_type clarity_cj_type(cj_val v);
bool clarity_cj_get(cj_val obj, const char *key, cj_val *out);      /* false if absent or not an object */
bool clarity_cj_int(cj_val v, int64_t *out);                          /* ints, uints that fit, doubles (truncated) */
bool clarity_cj_uint(cj_val v, uint64_t *out);
bool clarity_cj_double(cj_val v, double *out);
bool clarity_cj_bool(cj_val v, bool *out);
bool clarity_cj_str(cj_val v, const char **s, size_t *len);
/* Serializes any value back to minified JSON into a malloc'd string (caller frees). */
char *clarity_cj_to_json(cj_val v, size_t *len);

bool clarity_cj_array_begin(cj_val arr, cj_iter *it);
bool clarity_cj_array_next(cj_iter *it, cj_val *out);
bool clarity_cj_object_begin(cj_val obj, cj_iter *it);
bool clarity_cj_object_next(cj_iter *it, const char **key, size_t *klen, cj_val *out);

/* All members of an object at once (one call instead of one per member, which matters on the
 * hot task-event path). Returns the member count (which may exceed cap: then only cap were
 * filled); 0 for non-objects. */
typedef struct { const char *key; size_t klen; cj_val val; } cj_member;
size_t clarity_cj_object_members(cj_val obj, cj_member *out, size_t cap);

/* The values of several keys of one object in a single pass over its members, instead of one
 * lookup by name per key (each of which walks the members again): on logs of many small jobs
 * the events are small and these lookups cost as much as parsing. keys[i] is found when bit i
 * of the result is set, and then vals[i] holds its value; the first member with a key wins, as
 * clarity_cj_get does, so the two give the same values. The keys must be distinct (a
 * member fills one key); nkeys <= 64; 0 for non-objects. */
typedef struct { const char *s; size_t len; } cj_key;
#define CJ_KEY(lit) { (lit), sizeof(lit) - 1 }
uint64_t clarity_cj_pick(cj_val obj, const cj_key *keys, size_t nkeys, cj_val *vals);

/* Convenience getters on an object: false when the key is absent or of another type. */
bool clarity_cj_get_int(cj_val obj, const char *key, int64_t *out);
bool clarity_cj_get_str(cj_val obj, const char *key, const char **s, size_t *len);
bool clarity_cj_get_bool(cj_val obj, const char *key, bool *out);

#endif
