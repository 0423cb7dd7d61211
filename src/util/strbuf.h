/* A growable string: appends never fail loudly (out of memory sets oom and drops the rest, so
 * a writer checks once at the end), the text stays NUL-terminated once anything was appended,
 * and the number and JSON-string appenders are hand-written because they run for every field
 * of every event synth writes. */
#ifndef CLARITY_UTIL_STRBUF_H
#define CLARITY_UTIL_STRBUF_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct clarity_strbuf {
    char *p;        /* NULL until the first append (even an empty one), then NUL-terminated */
    size_t n, cap;  /* length without the NUL; bytes allocated */
    bool oom;
};

void clarity_sb_free(struct clarity_strbuf *b);
/* Room for extra more bytes and the NUL; false (and oom set) when out of memory. */
bool clarity_sb_reserve(struct clarity_strbuf *b, size_t extra);

static inline void clarity_sb_mem(struct clarity_strbuf *b, const void *s, size_t n)
{
    if (b->n + n >= b->cap && !clarity_sb_reserve(b, n)) return;
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}
static inline void clarity_sb_str(struct clarity_strbuf *b, const char *s) { clarity_sb_mem(b, s, strlen(s)); }
static inline void clarity_sb_ch(struct clarity_strbuf *b, char c)
{
    if (b->n + 1 >= b->cap && !clarity_sb_reserve(b, 1)) return;
    b->p[b->n++] = c;
    b->p[b->n] = '\0';
}
void clarity_sb_int(struct clarity_strbuf *b, int64_t v);
void clarity_sb_fixed(struct clarity_strbuf *b, double v, int decimals);   /* 12.345; 0-7 decimals */
void clarity_sb_jstr(struct clarity_strbuf *b, const char *s);               /* "JSON-escaped" */
void clarity_sb_printf(struct clarity_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void clarity_sb_vprintf(struct clarity_strbuf *b, const char *fmt, va_list ap);
/* s then the integer: `,"key":value` in a JSON writer that puts the punctuation in the key */
static inline void clarity_sb_kint(struct clarity_strbuf *b, const char *s, int64_t v)
{
    clarity_sb_str(b, s);
    clarity_sb_int(b, v);
}

/* A new malloc'd formatted string, NULL when out of memory. */
char *clarity_str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *clarity_str_vprintf(const char *fmt, va_list ap);

#endif
