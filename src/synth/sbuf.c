#include "synth/sbuf.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void sb_free(struct sbuf *b)
{
    free(b->p);
    *b = (struct sbuf){0};
}

bool sb_grow(struct sbuf *b, size_t need)
{
    if (b->oom) return false;
    size_t nc = b->cap ? b->cap : 4096;
    while (nc < b->n + need) nc *= 2;
    char *p = realloc(b->p, nc);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->p = p;
    b->cap = nc;
    return true;
}

void sb_int(struct sbuf *b, int64_t v)
{
    char tmp[24];
    int i = 24;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) tmp[--i] = '-';
    sb_mem(b, tmp + i, (size_t)(24 - i));
}

void sb_fixed(struct sbuf *b, double v, int decimals)
{
    static const int64_t p10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
    if (decimals < 0) decimals = 0;
    if (decimals > 7) decimals = 7;
    if (v < 0) {
        sb_ch(b, '-');
        v = -v;
    }
    int64_t scaled = llround(v * (double)p10[decimals]);
    sb_int(b, scaled / p10[decimals]);
    if (!decimals) return;
    sb_ch(b, '.');
    char tmp[8];
    int64_t frac = scaled % p10[decimals];
    for (int i = decimals - 1; i >= 0; i--) {
        tmp[i] = (char)('0' + frac % 10);
        frac /= 10;
    }
    sb_mem(b, tmp, (size_t)decimals);
}

void sb_jstr(struct sbuf *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    sb_ch(b, '"');
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        sb_mem(b, run, (size_t)(s - run));
        run = s + 1;
        switch (c) {
        case '"': sb_raw(b, "\\\""); break;
        case '\\': sb_raw(b, "\\\\"); break;
        case '\n': sb_raw(b, "\\n"); break;
        case '\t': sb_raw(b, "\\t"); break;
        case '\r': sb_raw(b, "\\r"); break;
        default: {
            char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            sb_mem(b, u, 6);
        }
        }
    }
    sb_mem(b, run, (size_t)(s - run));
    sb_ch(b, '"');
}

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (b->n + (size_t)n + 1 > b->cap && !sb_grow(b, (size_t)n + 1)) return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)n;
}
