/* A growable byte buffer with fast appenders for JSON lines: the event log is most of the
 * bytes a run writes, so numbers and strings are formatted by hand, not by printf. */
#ifndef CLARITY_SYNTH_SBUF_H
#define CLARITY_SYNTH_SBUF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct sbuf { char *p; size_t n, cap; bool oom; };

void sb_free(struct sbuf *b);
bool sb_grow(struct sbuf *b, size_t need);
static inline void sb_mem(struct sbuf *b, const void *s, size_t n)
{
    if (b->n + n > b->cap && !sb_grow(b, n)) return;
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
static inline void sb_raw(struct sbuf *b, const char *s) { sb_mem(b, s, strlen(s)); }
static inline void sb_ch(struct sbuf *b, char c)
{
    if (b->n + 1 > b->cap && !sb_grow(b, 1)) return;
    b->p[b->n++] = c;
}
void sb_int(struct sbuf *b, int64_t v);
void sb_fixed(struct sbuf *b, double v, int decimals);   /* 12.345 */
void sb_jstr(struct sbuf *b, const char *s);               /* "escaped" */
void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* ,"key":value shorthands; the caller writes the first key of an object itself */
static inline void sb_kint(struct sbuf *b, const char *k, int64_t v) { sb_raw(b, k); sb_int(b, v); }
#endif
