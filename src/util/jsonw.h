/* A streaming JSON writer for reports: correct escaping, optional pretty printing in the
 * style of the History Server (Jackson's DefaultPrettyPrinter: `"key" : value`, objects
 * indented two spaces per level, arrays on one line as `[ 1, 2 ]` and `[ {` ... `} ]`). */
#ifndef CLARITY_JSONW_H
#define CLARITY_JSONW_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct jsonw {
    FILE *out;
    bool pretty;
    int depth;
    bool first[64];      /* per depth: no element written yet */
    bool is_array[64];   /* per depth: container kind */
    int obj_depth;       /* open objects: Jackson indents by objects only */
    bool after_key;
    char *buf;           /* clarity_jsonw_buffer: bytes held before they go to out */
    size_t len, cap;
};

void clarity_jsonw_init(struct jsonw *w, FILE *out, bool pretty);
/* Holds what is written in buf (cap bytes) and hands it to out a buffer at a time: for
 * answers of gigabytes written in small pieces, stdio's cost per call dominates. The caller
 * must clarity_jsonw_flush before it reads out, writes to it itself, or drops buf. */
void clarity_jsonw_buffer(struct jsonw *w, char *buf, size_t cap);
void clarity_jsonw_flush(struct jsonw *w);
void clarity_jsonw_obj_begin(struct jsonw *w);
void clarity_jsonw_obj_end(struct jsonw *w);
void clarity_jsonw_arr_begin(struct jsonw *w);
void clarity_jsonw_arr_end(struct jsonw *w);
void clarity_jsonw_key(struct jsonw *w, const char *k);
/* A key the caller knows needs no escaping (n bytes, no control character, quote or
 * backslash): written without the escape check or strlen. Reports with 10^6 jobs write
 * tens of millions of keys, nearly all of them literals; use it through JSONW_KEY_LIT, which
 * only takes a string literal. */
void clarity_jsonw_key_lit(struct jsonw *w, const char *k, size_t n);
#define JSONW_KEY_LIT(w, lit) clarity_jsonw_key_lit((w), "" lit, sizeof(lit) - 1)
/* key_lit + int in one call (the commonest member of a report) */
void clarity_jsonw_kint_lit(struct jsonw *w, const char *k, size_t n, int64_t v);
#define JSONW_KINT_LIT(w, lit, v) clarity_jsonw_kint_lit((w), "" lit, sizeof(lit) - 1, (v))
void clarity_jsonw_str(struct jsonw *w, const char *s);
void clarity_jsonw_strn(struct jsonw *w, const char *s, size_t n);
void clarity_jsonw_int(struct jsonw *w, int64_t v);
void clarity_jsonw_double(struct jsonw *w, double v);  /* shortest text that reads back the same; NaN/inf -> null */
void clarity_jsonw_bool(struct jsonw *w, bool v);
void clarity_jsonw_null(struct jsonw *w);
void clarity_jsonw_raw(struct jsonw *w, const char *json); /* already-valid JSON text */
/* key + value shorthands */
void clarity_jsonw_kstr(struct jsonw *w, const char *k, const char *s);
void clarity_jsonw_kint(struct jsonw *w, const char *k, int64_t v);
void clarity_jsonw_kdouble(struct jsonw *w, const char *k, double v);
void clarity_jsonw_kbool(struct jsonw *w, const char *k, bool v);
void clarity_jsonw_end(struct jsonw *w);   /* final newline */

#endif
