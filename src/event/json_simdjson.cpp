// The one C++ file: wraps simdjson's DOM behind the C API in json.h.
#include <simdjson.h>
#include <cstdlib>
#include <cstring>
#include <string>
extern "C" {
#include "event/json.h"
}

using simdjson::dom::element;
using simdjson::dom::element_type;

static_assert(sizeof(element) <= sizeof(cj_val), "dom::element must fit in cj_val");
static_assert(sizeof(simdjson::dom::array::iterator) * 2 <= sizeof(cj_iter), "iterators must fit");
static_assert(sizeof(simdjson::dom::object::iterator) * 2 <= sizeof(cj_iter), "iterators must fit");

struct cj_parser { simdjson::dom::parser p; explicit cj_parser(size_t m) : p(m) {} };

static inline element el(cj_val v) { element e; std::memcpy((void *)&e, &v, sizeof e); return e; }
static inline cj_val wrap(element e) { cj_val v{}; std::memcpy(&v, (const void *)&e, sizeof e); return v; }

extern "C" cj_parser *clarity_cj_parser_new(size_t max_bytes)
{
    // simdjson rounds the capacity it needs up (to whole 64-byte blocks), so a maximum sized
    // to the document itself refused every document of 30 bytes or less ("can't support a
    // document that big"). The maximum only caps what parse() may allocate, so a floor costs
    // nothing until a document needs it.
    const size_t floor_bytes = 4096;
    try { return new cj_parser(max_bytes < floor_bytes ? floor_bytes : max_bytes); } catch (...) { return nullptr; }
}
extern "C" void clarity_cj_parser_free(cj_parser *p) { delete p; }

extern "C" int clarity_cj_parse(cj_parser *p, const char *buf, size_t len, cj_val *root, const char **why)
{
    element e;
    auto err = p->p.parse(buf, len, false).get(e);
    if (err) { if (why) *why = simdjson::error_message(err); return -1; }
    *root = wrap(e);
    return 0;
}

extern "C" enum clarity_cj_type clarity_cj_type(cj_val v)
{
    element e = el(v);
    switch (e.type()) {
    case element_type::NULL_VALUE: return CJ_NULL;
    case element_type::BOOL: return CJ_BOOL;
    case element_type::INT64: return CJ_INT;
    case element_type::UINT64: return CJ_UINT;
    case element_type::DOUBLE: return CJ_DOUBLE;
    case element_type::STRING: return CJ_STRING;
    case element_type::ARRAY: return CJ_ARRAY;
    case element_type::OBJECT: return CJ_OBJECT;
    }
    return CJ_NONE;
}

extern "C" bool clarity_cj_get(cj_val obj, const char *key, cj_val *out)
{
    simdjson::dom::object o;
    if (el(obj).get_object().get(o)) return false;
    element e;
    if (o.at_key(key).get(e)) return false;
    *out = wrap(e);
    return true;
}

extern "C" bool clarity_cj_int(cj_val v, int64_t *out)
{
    element e = el(v);
    switch (e.type()) {
    case element_type::INT64: *out = int64_t(e); return true;
    case element_type::UINT64: { uint64_t u = uint64_t(e); if (u > (uint64_t)INT64_MAX) return false; *out = (int64_t)u; return true; }
    case element_type::DOUBLE: { double d = double(e); if (!(d > -9.2e18 && d < 9.2e18)) return false; *out = (int64_t)d; return true; }
    default: return false;
    }
}
extern "C" bool clarity_cj_uint(cj_val v, uint64_t *out)
{
    element e = el(v);
    if (e.type() == element_type::UINT64) { *out = uint64_t(e); return true; }
    int64_t i;
    if (clarity_cj_int(v, &i) && i >= 0) { *out = (uint64_t)i; return true; }
    return false;
}
extern "C" bool clarity_cj_double(cj_val v, double *out)
{
    element e = el(v);
    switch (e.type()) {
    case element_type::INT64: *out = (double)int64_t(e); return true;
    case element_type::UINT64: *out = (double)uint64_t(e); return true;
    case element_type::DOUBLE: *out = double(e); return true;
    default: return false;
    }
}
extern "C" bool clarity_cj_bool(cj_val v, bool *out)
{
    element e = el(v);
    if (e.type() != element_type::BOOL) return false;
    *out = bool(e);
    return true;
}
extern "C" bool clarity_cj_str(cj_val v, const char **s, size_t *len)
{
    std::string_view sv;
    if (el(v).get_string().get(sv)) return false;
    *s = sv.data();
    *len = sv.size();
    return true;
}
extern "C" char *clarity_cj_to_json(cj_val v, size_t *len)
{
    try {
        std::string s = simdjson::minify(el(v));
        char *out = (char *)std::malloc(s.size() + 1);
        if (!out) return nullptr;
        std::memcpy(out, s.data(), s.size() + 1);
        if (len) *len = s.size();
        return out;
    } catch (...) { return nullptr; }
}

// An iterator is stored as [current, end] copied bytewise into cj_iter.
template <class It> static void put_it(cj_iter *it, It cur, It end)
{
    std::memcpy(&it->w[0], (const void *)&cur, sizeof cur);
    std::memcpy(&it->w[2], (const void *)&end, sizeof end);
}
template <class It> static void get_it(const cj_iter *it, It *cur, It *end)
{
    std::memcpy((void *)cur, &it->w[0], sizeof *cur);
    std::memcpy((void *)end, &it->w[2], sizeof *end);
}

extern "C" bool clarity_cj_array_begin(cj_val arr, cj_iter *it)
{
    simdjson::dom::array a;
    if (el(arr).get_array().get(a)) return false;
    put_it(it, a.begin(), a.end());
    return true;
}
extern "C" bool clarity_cj_array_next(cj_iter *it, cj_val *out)
{
    simdjson::dom::array::iterator cur, end;
    get_it(it, &cur, &end);
    if (cur == end) return false;
    *out = wrap(*cur);
    ++cur;
    put_it(it, cur, end);
    return true;
}
extern "C" bool clarity_cj_object_begin(cj_val obj, cj_iter *it)
{
    simdjson::dom::object o;
    if (el(obj).get_object().get(o)) return false;
    put_it(it, o.begin(), o.end());
    return true;
}
extern "C" bool clarity_cj_object_next(cj_iter *it, const char **key, size_t *klen, cj_val *out)
{
    simdjson::dom::object::iterator cur, end;
    get_it(it, &cur, &end);
    if (cur == end) return false;
    std::string_view k = cur.key();
    *key = k.data();
    *klen = k.size();
    *out = wrap(cur.value());
    ++cur;
    put_it(it, cur, end);
    return true;
}

extern "C" bool clarity_cj_get_int(cj_val obj, const char *key, int64_t *out)
{
    cj_val v;
    return clarity_cj_get(obj, key, &v) && clarity_cj_int(v, out);
}
extern "C" bool clarity_cj_get_str(cj_val obj, const char *key, const char **s, size_t *len)
{
    cj_val v;
    return clarity_cj_get(obj, key, &v) && clarity_cj_str(v, s, len);
}
extern "C" bool clarity_cj_get_bool(cj_val obj, const char *key, bool *out)
{
    cj_val v;
    return clarity_cj_get(obj, key, &v) && clarity_cj_bool(v, out);
}

extern "C" size_t clarity_cj_object_members(cj_val obj, cj_member *out, size_t cap)
{
    simdjson::dom::object o;
    if (el(obj).get_object().get(o)) return 0;
    size_t n = 0;
    for (auto field : o) {
        if (n < cap) {
            out[n].key = field.key.data();
            out[n].klen = field.key.size();
            out[n].val = wrap(field.value);
        }
        n++;
    }
    return n;
}

extern "C" uint64_t clarity_cj_pick(cj_val obj, const cj_key *keys, size_t nkeys, cj_val *vals)
{
    simdjson::dom::object o;
    if (nkeys == 0 || nkeys > 64 || el(obj).get_object().get(o)) return 0;
    const uint64_t all = nkeys == 64 ? ~(uint64_t)0 : ((uint64_t)1 << nkeys) - 1;
    uint64_t found = 0;
    for (auto field : o) {
        const size_t klen = field.key.size();
        const char *k = field.key.data();
        for (size_t i = 0; i < nkeys; i++) {
            // the length and first byte reject almost every other key before a memcmp
            if (keys[i].len != klen || (found >> i & 1)) continue;
            if (klen && keys[i].s[0] != k[0]) continue;
            if (std::memcmp(keys[i].s, k, klen) != 0) continue;
            vals[i] = wrap(field.value);
            found |= (uint64_t)1 << i;
            break;   // keys are distinct (json.h)
        }
        if (found == all) break;   // later duplicates would not be taken anyway
    }
    return found;
}
