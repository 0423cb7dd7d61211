#include "util/jsonw.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void clarity_jsonw_init(struct jsonw *w, FILE *out, bool pretty)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->pretty = pretty;
    w->first[0] = true;
}

void clarity_jsonw_buffer(struct jsonw *w, char *buf, size_t cap)
{
    clarity_jsonw_flush(w);
    w->buf = buf;
    w->cap = buf ? cap : 0;
}

void clarity_jsonw_flush(struct jsonw *w)
{
    if (w->len) fwrite_unlocked(w->buf, 1, w->len, w->out);
    w->len = 0;
}

/* Most pieces are a few bytes (a separator, a key, a number): two overlapping word copies
 * instead of a call to memcpy. */
static inline void copy_bytes(char *d, const char *s, size_t n)
{
    if (n >= 8 && n <= 16) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n < 4) {
        for (size_t i = 0; i < n; i++) d[i] = s[i];
    } else {
        memcpy(d, s, n);
    }
}

/* Every byte goes through these: into the writer's buffer when it has one, else to out
 * without stdio's per-call locking (one writer per FILE). */
static inline void put(struct jsonw *w, const char *s, size_t n)
{
    if (!w->buf) {
        fwrite_unlocked(s, 1, n, w->out);
        return;
    }
    if (n > w->cap - w->len) {
        clarity_jsonw_flush(w);
        if (n > w->cap) {
            fwrite_unlocked(s, 1, n, w->out);
            return;
        }
    }
    copy_bytes(w->buf + w->len, s, n);
    w->len += n;
}
static inline void putch(struct jsonw *w, char c)
{
    if (!w->buf) {
        putc_unlocked(c, w->out);
        return;
    }
    if (w->len == w->cap) clarity_jsonw_flush(w);
    w->buf[w->len++] = c;
}
static inline void puts_(struct jsonw *w, const char *s) { put(w, s, strlen(s)); }

static const char comma_indent[] = ",\n                                                                ";

/* A newline and two spaces per level, after a comma when `comma`: one copy. */
static void newline_indent_after(struct jsonw *w, int levels, bool comma)
{
    size_t n = 1 + 2 * (size_t)(levels > 0 ? levels : 0);
    if (n + 1 <= sizeof comma_indent - 1) {
        put(w, comma_indent + !comma, n + comma);
        return;
    }
    if (comma) putch(w, ',');
    putch(w, '\n');
    for (int i = 0; i < levels; i++) put(w, "  ", 2);
}

static void newline_indent(struct jsonw *w, int levels) { newline_indent_after(w, levels, false); }

/* Separator before a value or key at the current depth. */
static inline void before_value(struct jsonw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth == 0) return;
    bool first = w->first[w->depth];
    w->first[w->depth] = false;
    if (!w->pretty) {
        if (!first) putch(w, ',');
        return;
    }
    if (w->is_array[w->depth]) {
        if (first) putch(w, ' ');
        else put(w, ", ", 2);
    } else {
        newline_indent_after(w, w->obj_depth, !first);
    }
}

static void open(struct jsonw *w, char c)
{
    before_value(w);
    putch(w, c);
    if (w->depth < 63) w->depth++;
    w->first[w->depth] = true;
    w->is_array[w->depth] = c == '[';
    if (c == '{') w->obj_depth++;
}

static void close_(struct jsonw *w, char c)
{
    bool empty = w->first[w->depth];
    if (c == '}') w->obj_depth--;
    if (w->depth > 0) w->depth--;
    if (w->pretty) {
        if (c == ']' || empty) putch(w, ' ');
        else newline_indent(w, w->obj_depth);
    }
    putch(w, c);
}

void clarity_jsonw_obj_begin(struct jsonw *w) { open(w, '{'); }
void clarity_jsonw_obj_end(struct jsonw *w) { close_(w, '}'); }
void clarity_jsonw_arr_begin(struct jsonw *w) { open(w, '['); }
void clarity_jsonw_arr_end(struct jsonw *w) { close_(w, ']'); }

/* Bytes a JSON string cannot hold as they are: control characters, the quote, the backslash. */
static const bool needs_escape[256] = {
    [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1, [0x07] = 1,
    [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1, [0x0e] = 1, [0x0f] = 1,
    [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1, [0x15] = 1, [0x16] = 1, [0x17] = 1,
    [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1, [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1,
    ['"'] = 1, ['\\'] = 1,
};

/* A word of 8 bytes holds one that needs escaping (or, rarely, a false alarm from a borrow,
 * which the byte loop then clears): bytes below 0x20, '"' and '\\' tested 8 at a time, since
 * most of a report's bytes are keys and names that need no escape. */
static inline bool word_may_need_escape(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
    return (((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((b - ones) & ~b)) & highs;
}

static void put_escaped_slow(struct jsonw *w, const char *s, size_t n)
{
    putch(w, '"');
    size_t from = 0;   /* start of the bytes not yet written */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!needs_escape[c]) continue;
        put(w, s + from, i - from);
        from = i + 1;
        switch (c) {
        case '"': put(w, "\\\"", 2); break;
        case '\\': put(w, "\\\\", 2); break;
        case '\n': put(w, "\\n", 2); break;
        case '\r': put(w, "\\r", 2); break;
        case '\t': put(w, "\\t", 2); break;
        case '\b': put(w, "\\b", 2); break;
        case '\f': put(w, "\\f", 2); break;
        default: {
            char u[8];
            snprintf(u, sizeof u, "\\u%04x", c);
            put(w, u, 6);
        }
        }
    }
    put(w, s + from, n - from);
    putch(w, '"');
}

/* The common case (a buffer with room, nothing to escape) copies while it checks, 8 bytes at a
 * time; anything else takes the byte-at-a-time path, which writes the same bytes. */
static void put_escaped(struct jsonw *w, const char *s, size_t n)
{
    if (!w->buf || w->cap - w->len < n + 2) {
        put_escaped_slow(w, s, n);
        return;
    }
    char *d = w->buf + w->len + 1;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x;
        memcpy(&x, s + i, 8);
        if (word_may_need_escape(x)) break;
        memcpy(d + i, &x, 8);
    }
    if (i < n && n >= 8 && i + 8 > n) {   /* the tail as the last 8 bytes, overlapping */
        uint64_t x;
        memcpy(&x, s + n - 8, 8);
        if (!word_may_need_escape(x)) {
            memcpy(d + n - 8, &x, 8);
            i = n;
        }
    }
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (needs_escape[c]) {
            put_escaped_slow(w, s, n);
            return;
        }
        d[i] = (char)c;
    }
    d[-1] = '"';
    d[n] = '"';
    w->len += n + 2;
}

void clarity_jsonw_key(struct jsonw *w, const char *k)
{
    before_value(w);
    put_escaped(w, k, strlen(k));
    if (w->pretty) put(w, " : ", 3);
    else putch(w, ':');
    w->after_key = true;
}

void clarity_jsonw_key_lit(struct jsonw *w, const char *k, size_t n)
{
    before_value(w);
    if (w->buf && w->cap - w->len >= n + 5) {
        char *d = w->buf + w->len;
        d[0] = '"';
        copy_bytes(d + 1, k, n);
        d[n + 1] = '"';
        if (w->pretty) {
            memcpy(d + n + 2, " : ", 3);
            w->len += n + 5;
        } else {
            d[n + 2] = ':';
            w->len += n + 3;
        }
    } else {
        put_escaped_slow(w, k, n);   /* writes the same bytes: nothing in k needs escaping */
        if (w->pretty) put(w, " : ", 3);
        else putch(w, ':');
    }
    w->after_key = true;
}

void clarity_jsonw_strn(struct jsonw *w, const char *s, size_t n)
{
    before_value(w);
    put_escaped(w, s, n);
}
void clarity_jsonw_str(struct jsonw *w, const char *s) { clarity_jsonw_strn(w, s ? s : "", s ? strlen(s) : 0); }

/* Writes v's decimal digits at d (at most 20 bytes); returns the end. Two digits per
 * division, written back to front into their final place. */
static inline char *write_int(char *d, int64_t v)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    /* the digit count from the bit length (x 1233 / 4096 is log10(2) within the range of
     * 64 bits) and one comparison, instead of a division per digit: a summary of 10^5 jobs
     * writes about 10^7 numbers, most of them 13-digit times */
    static const uint64_t pow10[20] = {1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u,
                                       100000000u, 1000000000u, 10000000000u, 100000000000u,
                                       1000000000000u, 10000000000000u, 100000000000000u,
                                       1000000000000000u, 10000000000000000u, 100000000000000000u,
                                       1000000000000000000u, 10000000000000000000u};
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    if (v < 0) *d++ = '-';
    unsigned lg = (unsigned)(64 - __builtin_clzll(u | 1)) * 1233u >> 12;
    size_t nd = lg + ((u | 1) >= pow10[lg]);
    char *p = d + nd;
    while (u >= 100) {
        unsigned r = (unsigned)(u % 100);
        u /= 100;
        p -= 2;
        memcpy(p, pairs + 2 * r, 2);
    }
    if (u >= 10) {
        p -= 2;
        memcpy(p, pairs + 2 * u, 2);
    } else {
        *--p = (char)('0' + u);
    }
    return d + nd;
}

void clarity_jsonw_int(struct jsonw *w, int64_t v)
{
    before_value(w);
    char buf[24];
    put(w, buf, (size_t)(write_int(buf, v) - buf));
}

/* A member `"k" : v` of an object, the commonest piece of a report, written with one bounds
 * check when the buffer has room; otherwise (or in an array, or right after a key) as
 * key_lit and int would write it. */
void clarity_jsonw_kint_lit(struct jsonw *w, const char *k, size_t n, int64_t v)
{
    int lv = w->obj_depth;
    if (w->buf && !w->after_key && w->depth > 0 && !w->is_array[w->depth] && lv >= 0 && lv <= 32 &&
        w->cap - w->len >= n + 2 * (size_t)lv + 32) {
        char *d = w->buf + w->len;
        if (!w->first[w->depth]) *d++ = ',';
        w->first[w->depth] = false;
        if (w->pretty) {
            copy_bytes(d, comma_indent + 1, 1 + 2 * (size_t)lv);
            d += 1 + 2 * (size_t)lv;
        }
        *d++ = '"';
        copy_bytes(d, k, n);
        d += n;
        if (w->pretty) {
            memcpy(d, "\" : ", 4);
            d += 4;
        } else {
            memcpy(d, "\":", 2);
            d += 2;
        }
        d = write_int(d, v);
        w->len = (size_t)(d - w->buf);
        return;
    }
    clarity_jsonw_key_lit(w, k, n);
    clarity_jsonw_int(w, v);
}

/* Does the decimal s (digits, one '.', d of them after it, sign already stripped) read back
 * as m? Exactly as strtod answers: a value of at most 2^53 over 10^d (d <= 22) is two exact
 * doubles and one correctly rounded division (Clinger's fast path); longer ones go to strtod. */
static bool reads_back(const char *s, int d, double m)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    uint64_t n = 0;
    int digits = 0;
    for (const char *c = s; *c; c++) {
        if (*c == '.') continue;
        if (++digits > 19) return strtod(s, NULL) == m;
        n = n * 10 + (uint64_t)(*c - '0');
    }
    if (n <= (UINT64_C(1) << 53) && d <= 22) return (double)n / p10[d] == m;
    return strtod(s, NULL) == m;
}

/* The shortest "%.*f" (1 to 17 decimals) of v, 1e-3 <= |v| < 1e7, that reads back as v, else
 * the 17-decimal one: what printing and re-reading each length gives, without a printf.
 * |v| is an integer mantissa over 2^k with 29 <= k <= 62, so its integer part is a shift and
 * its decimals come out exactly, ten times the remainder at a time; each length is rounded
 * from them, an exact tie (a 5 and nothing after) to even, as printf rounds it. Writes buf
 * (64 bytes), returns its length. */
static size_t fixed_shortest(double v, char *buf)
{
    double m = fabs(v);
    uint64_t bits;
    memcpy(&bits, &m, sizeof bits);
    int k = 1075 - (int)(bits >> 52);
    uint64_t mant = (bits & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
    uint64_t mask = (UINT64_C(1) << k) - 1, rem = mant & mask;
    char ip[24];
    size_t ni = (size_t)(write_int(ip, (int64_t)(mant >> k)) - ip);
    char f[18];
    bool more[18]; /* a nonzero digit after f[j] */
    for (int j = 0; j < 18; j++) {
        unsigned __int128 t = (unsigned __int128)rem * 10;
        f[j] = (char)('0' + (int)(t >> k));
        rem = (uint64_t)t & mask;
        more[j] = rem != 0;
    }
    char c[64];
    size_t len = 0;
    for (int d = 1; d <= 17; d++) {
        /* c = "0" (room for a carry) + integer digits + "." + d decimals */
        c[0] = '0';
        memcpy(c + 1, ip, ni);
        c[1 + ni] = '.';
        memcpy(c + 2 + ni, f, (size_t)d);
        len = 2 + ni + (size_t)d;
        c[len] = '\0';
        bool up = f[d] > '5' || (f[d] == '5' && (more[d] || (f[d - 1] - '0') % 2 == 1));
        for (size_t i = len - 1; up; i--) {
            if (c[i] == '.') continue;
            if (c[i] == '9') c[i] = '0';
            else { c[i]++; up = false; }
        }
        const char *s = c[0] == '0' ? c + 1 : c;
        if (reads_back(s, d, m) || d == 17) {
            char *o = buf;
            if (v < 0) *o++ = '-';
            size_t n = len - (size_t)(s - c);
            memcpy(o, s, n + 1);
            return (size_t)(o - buf) + n;
        }
    }
    return len;
}

/* Doubles as Java's Double.toString writes them (Jackson uses it): the shortest digits that
 * read back the same, plain with at least one decimal in [1e-3, 1e7), else "1.5E7". */
void clarity_jsonw_double(struct jsonw *w, double v)
{
    before_value(w);
    if (!isfinite(v)) {
        puts_(w, "null");
        return;
    }
    char buf[64];
    double m = fabs(v);
    if (v == 0) {
        snprintf(buf, sizeof buf, "%.1f", v);
        puts_(w, buf);
        return;
    }
    if (m >= 1e-3 && m < 1e7) {
        put(w, buf, fixed_shortest(v, buf));
        return;
    }
    int p = 1;
    for (; p < 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, v);
        if (strtod(buf, NULL) == v) break;
    }
    snprintf(buf, sizeof buf, "%.*e", p - 1, v);
    char *e = strchr(buf, 'e');
    int exp = atoi(e + 1);
    *e = '\0';
    char text[96];
    snprintf(text, sizeof text, "%s%sE%d", buf, strchr(buf, '.') ? "" : ".0", exp);
    puts_(w, text);
}

void clarity_jsonw_bool(struct jsonw *w, bool v)
{
    before_value(w);
    puts_(w, v ? "true" : "false");
}

void clarity_jsonw_null(struct jsonw *w)
{
    before_value(w);
    puts_(w, "null");
}

void clarity_jsonw_raw(struct jsonw *w, const char *json)
{
    before_value(w);
    puts_(w, json);
}

void clarity_jsonw_kstr(struct jsonw *w, const char *k, const char *s) { clarity_jsonw_key(w, k); clarity_jsonw_str(w, s); }
void clarity_jsonw_kint(struct jsonw *w, const char *k, int64_t v) { clarity_jsonw_key(w, k); clarity_jsonw_int(w, v); }
void clarity_jsonw_kdouble(struct jsonw *w, const char *k, double v) { clarity_jsonw_key(w, k); clarity_jsonw_double(w, v); }
void clarity_jsonw_kbool(struct jsonw *w, const char *k, bool v) { clarity_jsonw_key(w, k); clarity_jsonw_bool(w, v); }
void clarity_jsonw_end(struct jsonw *w) { putch(w, '\n'); }
