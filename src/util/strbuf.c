#include "util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void clarity_sb_free(struct clarity_strbuf *b)
{
    free(b->p);
    *b = (struct clarity_strbuf){0};
}

bool clarity_sb_reserve(struct clarity_strbuf *b, size_t extra)
{
    if (b->oom) return false;
    if (b->n + extra < b->cap) return true;
    size_t nc = b->cap ? b->cap : 64;
    while (nc <= b->n + extra) {
        if (nc > SIZE_MAX / 2) {
            b->oom = true;
            return false;
        }
        nc *= 2;
    }
    char *p = realloc(b->p, nc);
    if (!p) {
        b->oom = true;
        return false;
    }
    if (!b->p) p[0] = '\0';
    b->p = p;
    b->cap = nc;
    return true;
}

void clarity_sb_int(struct clarity_strbuf *b, int64_t v)
{
    char tmp[24];
    int i = 24;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) tmp[--i] = '-';
    clarity_sb_mem(b, tmp + i, (size_t)(24 - i));
}

void clarity_sb_fixed(struct clarity_strbuf *b, double v, int decimals)
{
    static const int64_t p10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
    if (decimals < 0) decimals = 0;
    if (decimals > 7) decimals = 7;
    if (v < 0) {
        clarity_sb_ch(b, '-');
        v = -v;
    }
    int64_t scaled = llround(v * (double)p10[decimals]);
    clarity_sb_int(b, scaled / p10[decimals]);
    if (!decimals) return;
    clarity_sb_ch(b, '.');
    char tmp[8];
    int64_t frac = scaled % p10[decimals];
    for (int i = decimals - 1; i >= 0; i--) {
        tmp[i] = (char)('0' + frac % 10);
        frac /= 10;
    }
    clarity_sb_mem(b, tmp, (size_t)decimals);
}

void clarity_sb_jstr(struct clarity_strbuf *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    clarity_sb_ch(b, '"');
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        clarity_sb_mem(b, run, (size_t)(s - run));
        run = s + 1;
        switch (c) {
        case '"': clarity_sb_str(b, "\\\""); break;
        case '\\': clarity_sb_str(b, "\\\\"); break;
        case '\n': clarity_sb_str(b, "\\n"); break;
        case '\t': clarity_sb_str(b, "\\t"); break;
        case '\r': clarity_sb_str(b, "\\r"); break;
        default: {
            char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            clarity_sb_mem(b, u, 6);
        }
        }
    }
    clarity_sb_mem(b, run, (size_t)(s - run));
    clarity_sb_ch(b, '"');
}

void clarity_sb_vprintf(struct clarity_strbuf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0 || !clarity_sb_reserve(b, (size_t)n)) return;
    vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
    b->n += (size_t)n;
}

void clarity_sb_printf(struct clarity_strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    clarity_sb_vprintf(b, fmt, ap);
    va_end(ap);
}

char *clarity_str_vprintf(const char *fmt, va_list ap)
{
    struct clarity_strbuf b = {0};
    clarity_sb_vprintf(&b, fmt, ap);
    if (b.oom || !b.p) {
        clarity_sb_free(&b);
        return NULL;
    }
    return b.p;
}

char *clarity_str_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = clarity_str_vprintf(fmt, ap);
    va_end(ap);
    return s;
}
