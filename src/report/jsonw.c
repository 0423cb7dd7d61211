#include "clarity/jsonw.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void jsonw_init(struct jsonw *w, FILE *out, bool pretty)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->pretty = pretty;
    w->first[0] = true;
}

static void indent(struct jsonw *w)
{
    if (!w->pretty) return;
    fputc('\n', w->out);
    for (int i = 0; i < w->depth; i++) fputs("  ", w->out);
}

/* Separator before a value or key at the current depth. */
static void before_value(struct jsonw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth == 0) return;
    if (!w->first[w->depth]) fputc(',', w->out);
    w->first[w->depth] = false;
    indent(w);
}

static void open(struct jsonw *w, char c)
{
    before_value(w);
    fputc(c, w->out);
    if (w->depth < 63) w->depth++;
    w->first[w->depth] = true;
}

static void close_(struct jsonw *w, char c)
{
    bool empty = w->first[w->depth];
    if (w->depth > 0) w->depth--;
    if (!empty) indent(w);
    else if (w->pretty) fputc(' ', w->out);
    fputc(c, w->out);
}

void jsonw_obj_begin(struct jsonw *w) { open(w, '{'); }
void jsonw_obj_end(struct jsonw *w) { close_(w, '}'); }
void jsonw_arr_begin(struct jsonw *w) { open(w, '['); }
void jsonw_arr_end(struct jsonw *w) { close_(w, ']'); }

static void put_escaped(FILE *o, const char *s, size_t n)
{
    fputc('"', o);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': fputs("\\\"", o); break;
        case '\\': fputs("\\\\", o); break;
        case '\n': fputs("\\n", o); break;
        case '\r': fputs("\\r", o); break;
        case '\t': fputs("\\t", o); break;
        case '\b': fputs("\\b", o); break;
        case '\f': fputs("\\f", o); break;
        default:
            if (c < 0x20) fprintf(o, "\\u%04x", c);
            else fputc(c, o);
        }
    }
    fputc('"', o);
}

void jsonw_key(struct jsonw *w, const char *k)
{
    before_value(w);
    put_escaped(w->out, k, strlen(k));
    fputs(w->pretty ? " : " : ":", w->out);
    w->after_key = true;
}

void jsonw_strn(struct jsonw *w, const char *s, size_t n)
{
    before_value(w);
    put_escaped(w->out, s, n);
}
void jsonw_str(struct jsonw *w, const char *s) { jsonw_strn(w, s ? s : "", s ? strlen(s) : 0); }

void jsonw_int(struct jsonw *w, int64_t v)
{
    before_value(w);
    fprintf(w->out, "%lld", (long long)v);
}

void jsonw_double(struct jsonw *w, double v)
{
    before_value(w);
    if (!isfinite(v)) {
        fputs("null", w->out);
        return;
    }
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    /* keep a decimal point so readers see a floating value, as Jackson prints 23.0 */
    if (!strpbrk(buf, ".eEn")) strcat(buf, ".0");
    fputs(buf, w->out);
}

void jsonw_bool(struct jsonw *w, bool v)
{
    before_value(w);
    fputs(v ? "true" : "false", w->out);
}

void jsonw_null(struct jsonw *w)
{
    before_value(w);
    fputs("null", w->out);
}

void jsonw_raw(struct jsonw *w, const char *json)
{
    before_value(w);
    fputs(json, w->out);
}

void jsonw_kstr(struct jsonw *w, const char *k, const char *s) { jsonw_key(w, k); jsonw_str(w, s); }
void jsonw_kint(struct jsonw *w, const char *k, int64_t v) { jsonw_key(w, k); jsonw_int(w, v); }
void jsonw_kdouble(struct jsonw *w, const char *k, double v) { jsonw_key(w, k); jsonw_double(w, v); }
void jsonw_kbool(struct jsonw *w, const char *k, bool v) { jsonw_key(w, k); jsonw_bool(w, v); }
void jsonw_end(struct jsonw *w) { fputc('\n', w->out); }
