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

static void newline_indent(struct jsonw *w, int levels)
{
    fputc('\n', w->out);
    for (int i = 0; i < levels; i++) fputs("  ", w->out);
}

/* Separator before a value or key at the current depth. */
static void before_value(struct jsonw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth == 0) return;
    bool first = w->first[w->depth];
    w->first[w->depth] = false;
    if (!w->pretty) {
        if (!first) fputc(',', w->out);
        return;
    }
    if (w->is_array[w->depth]) fputs(first ? " " : ", ", w->out);
    else {
        if (!first) fputc(',', w->out);
        newline_indent(w, w->obj_depth);
    }
}

static void open(struct jsonw *w, char c)
{
    before_value(w);
    fputc(c, w->out);
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
        if (c == ']' || empty) fputc(' ', w->out);
        else newline_indent(w, w->obj_depth);
    }
    fputc(c, w->out);
}

void clarity_jsonw_obj_begin(struct jsonw *w) { open(w, '{'); }
void clarity_jsonw_obj_end(struct jsonw *w) { close_(w, '}'); }
void clarity_jsonw_arr_begin(struct jsonw *w) { open(w, '['); }
void clarity_jsonw_arr_end(struct jsonw *w) { close_(w, ']'); }

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

void clarity_jsonw_key(struct jsonw *w, const char *k)
{
    before_value(w);
    put_escaped(w->out, k, strlen(k));
    fputs(w->pretty ? " : " : ":", w->out);
    w->after_key = true;
}

void clarity_jsonw_strn(struct jsonw *w, const char *s, size_t n)
{
    before_value(w);
    put_escaped(w->out, s, n);
}
void clarity_jsonw_str(struct jsonw *w, const char *s) { clarity_jsonw_strn(w, s ? s : "", s ? strlen(s) : 0); }

void clarity_jsonw_int(struct jsonw *w, int64_t v)
{
    before_value(w);
    fprintf(w->out, "%lld", (long long)v);
}

/* Doubles as Java's Double.toString writes them (Jackson uses it): the shortest digits that
 * read back the same, plain with at least one decimal in [1e-3, 1e7), else "1.5E7". */
void clarity_jsonw_double(struct jsonw *w, double v)
{
    before_value(w);
    if (!isfinite(v)) {
        fputs("null", w->out);
        return;
    }
    char buf[64];
    double m = fabs(v);
    if (v == 0 || (m >= 1e-3 && m < 1e7)) {
        for (int d = 1; d <= 17; d++) {
            snprintf(buf, sizeof buf, "%.*f", d, v);
            if (strtod(buf, NULL) == v) break;
        }
        fputs(buf, w->out);
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
    fprintf(w->out, "%s%sE%d", buf, strchr(buf, '.') ? "" : ".0", exp);
}

void clarity_jsonw_bool(struct jsonw *w, bool v)
{
    before_value(w);
    fputs(v ? "true" : "false", w->out);
}

void clarity_jsonw_null(struct jsonw *w)
{
    before_value(w);
    fputs("null", w->out);
}

void clarity_jsonw_raw(struct jsonw *w, const char *json)
{
    before_value(w);
    fputs(json, w->out);
}

void clarity_jsonw_kstr(struct jsonw *w, const char *k, const char *s) { clarity_jsonw_key(w, k); clarity_jsonw_str(w, s); }
void clarity_jsonw_kint(struct jsonw *w, const char *k, int64_t v) { clarity_jsonw_key(w, k); clarity_jsonw_int(w, v); }
void clarity_jsonw_kdouble(struct jsonw *w, const char *k, double v) { clarity_jsonw_key(w, k); clarity_jsonw_double(w, v); }
void clarity_jsonw_kbool(struct jsonw *w, const char *k, bool v) { clarity_jsonw_key(w, k); clarity_jsonw_bool(w, v); }
void clarity_jsonw_end(struct jsonw *w) { fputc('\n', w->out); }
