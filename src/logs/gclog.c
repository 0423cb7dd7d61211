/* JVM GC logs (LADRA's Fig. 3 and later layouts): JDK 8 -XX:+PrintGCDetails for ParallelGC (young and
 * Full records, `user=0.03 sys=0.01,` with or without the comma, records wrapped over lines),
 * G1 (detail blocks with `[Eden: ... Heap: A(C)->B(C)]`), date and/or uptime stamps; and JDK 9+
 * unified logging (-Xlog:gc*: a pause line and a gc,cpu line per collection). Absolute date
 * stamps are preferred; uptime-only records are placed later, from the executor's first log4j
 * time (logdir.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/logs.h"

void clarity_gc_parser_init(struct clarity_gc_parser *p)
{
    memset(p, 0, sizeof *p);
    p->pend_id = -1;
}

/* A JVM uptime stamp in seconds, or -1: a value that no JVM can have run for (negative, not a
 * number, or over a century) is not an uptime but a damaged or hostile line, and kept as one
 * it would later overflow the conversion to an absolute time in milliseconds. */
static double uptime_or_absent(double s)
{
    return s >= 0 && s <= 3.2e9 ? s : -1;
}

static void rec_init(struct clarity_gc_rec *r)
{
    memset(r, 0, sizeof *r);
    r->ts_ms = -1, r->uptime_s = -1;
    r->young_before_kb = r->young_after_kb = r->young_cap_kb = -1;
    r->heap_before_kb = r->heap_after_kb = r->heap_cap_kb = -1;
    r->pause_s = r->user_s = r->sys_s = r->real_s = -1;
}

/* A size such as 95744K, 24.0M, 0.0B, 5521M; returns chars used (0 if none), value in KB. */
static size_t size_kb(const char *s, double *kb)
{
    char *e;
    double v = strtod(s, &e);
    if (e == s || !isdigit((unsigned char)*s)) return 0;
    double mul = 1;
    switch (*e) {
    case 'B': mul = 1.0 / 1024; e++; break;
    case 'K': e++; break;
    case 'M': mul = 1024; e++; break;
    case 'G': mul = 1024 * 1024; e++; break;
    default: break;
    }
    *kb = v * mul;
    return (size_t)(e - s);
}

/* A->B(C) or A(Ca)->B(Cb); capacity is the one after the collection. */
static size_t transition(const char *s, double *before, double *after, double *cap)
{
    const char *p = s;
    double ca;
    size_t n = size_kb(p, before);
    if (!n) return 0;
    p += n;
    if (*p == '(') {
        if (!(n = size_kb(p + 1, &ca)) || p[1 + n] != ')') return 0;
        p += n + 2;
    }
    if (p[0] != '-' || p[1] != '>' || !(n = size_kb(p + 2, after))) return 0;
    p += 2 + n;
    if (*p != '(' || !(n = size_kb(p + 1, cap)) || p[1 + n] != ')') return 0;
    return (size_t)(p + n + 2 - s);
}

/* ISO date stamp "2024-03-01T09:00:06.647+0000" -> epoch ms (UTC); returns chars used. */
static size_t iso_stamp(const char *s, size_t len, int64_t *ms)
{
    bool has;
    size_t n = clarity_l4j_timestamp(s, len, ms, &has);
    if (!n || n >= len) return n;
    if ((s[n] == '+' || s[n] == '-') && n + 5 <= len && isdigit((unsigned char)s[n + 1])) {
        int hh = (s[n + 1] - '0') * 10 + (s[n + 2] - '0'), mm = (s[n + 3] - '0') * 10 + (s[n + 4] - '0');
        int64_t off = (hh * 60 + mm) * 60000LL;
        *ms -= s[n] == '+' ? off : -off;
        n += 5;
    } else if (s[n] == 'Z') n++;
    return n;
}

int clarity_gc_parse_jdk8(const char *s, size_t len, struct clarity_gc_rec *r)
{
    rec_init(r);
    char buf[4096];
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, s, len);
    buf[len] = 0;
    char *gc = strstr(buf, "[Full GC");
    char *g2 = strstr(buf, "[GC");
    if (!gc || (g2 && g2 < gc)) gc = g2;
    if (!gc) return -1;
    r->full = !strncmp(gc, "[Full GC", 8);
    /* stamps before the record: date, then uptime */
    char *p = buf;
    while (p < gc && *p == ' ') p++;
    size_t n = iso_stamp(p, (size_t)(gc - p), &r->ts_ms);
    if (n) {
        p += n;
        if (*p == ':') p++;
        while (*p == ' ') p++;
    }
    char *e;
    double up = strtod(p, &e);
    if (e != p && e < gc && *e == ':') r->uptime_s = uptime_or_absent(up);
    /* cause: first parenthesised text after the header */
    char *c = strchr(gc, '(');
    if (c && c < gc + 24) {
        char *ce = strchr(c, ')');
        if (ce) {
            size_t cl = (size_t)(ce - c - 1) < sizeof r->cause - 1 ? (size_t)(ce - c - 1) : sizeof r->cause - 1;
            memcpy(r->cause, c + 1, cl);
            r->cause[cl] = 0;
        }
    }
    static const char *const young[] = {"[PSYoungGen: ", "[ParNew: ", "[DefNew: "};
    for (int i = 0; i < 3; i++) {
        char *y = strstr(gc, young[i]);
        if (y) transition(y + strlen(young[i]), &r->young_before_kb, &r->young_after_kb, &r->young_cap_kb);
    }
    char *h = strstr(gc, "Heap: ");
    if (h) {
        transition(h + 6, &r->heap_before_kb, &r->heap_after_kb, &r->heap_cap_kb);
        /* G1 young: Eden before, survivors after */
    } else {
        /* the first transition at depth 1, outside generation brackets */
        int depth = 0;
        for (char *q = gc; *q; q++) {
            if (*q == '[') depth++;
            else if (*q == ']') {
                if (--depth <= 0) break;
            } else if (depth == 1 && isdigit((unsigned char)*q) && (q[-1] == ' ' || q[-1] == ']') &&
                       transition(q, &r->heap_before_kb, &r->heap_after_kb, &r->heap_cap_kb))
                break;
        }
    }
    char *t = strstr(gc, "[Times:");
    if (t) {
        char *u = strstr(t, "user="), *sy = strstr(t, "sys="), *re = strstr(t, "real=");
        if (u) r->user_s = strtod(u + 5, NULL);
        if (sy) r->sys_s = strtod(sy + 4, NULL);
        if (re) r->real_s = strtod(re + 5, NULL);
        *t = 0;
    }
    /* pause: the last "N secs]" before [Times */
    char *last = NULL;
    for (char *q = strstr(gc, " secs]"); q; q = strstr(q + 1, " secs]")) last = q;
    if (last) {
        char *b = last;
        while (b > gc && (isdigit((unsigned char)b[-1]) || b[-1] == '.')) b--;
        r->pause_s = strtod(b, NULL);
    }
    return r->heap_after_kb >= 0 || r->pause_s >= 0 ? 0 : -1;
}

/* Unified decorations "[2024-..][5.603s][info][gc,start ] " -> time, uptime; returns the
 * offset of the message (0 when the line has no decorations). */
static size_t unified_decor(const char *s, size_t len, struct clarity_gc_rec *r, bool *is_gc)
{
    size_t p = 0;
    *is_gc = false;
    while (p < len && s[p] == '[') {
        const char *e = memchr(s + p, ']', len - p);
        if (!e) return 0;
        size_t tl = (size_t)(e - (s + p)) - 1;
        const char *tk = s + p + 1;
        int64_t ms;
        char *end;
        if (tl >= 19 && iso_stamp(tk, tl, &ms)) r->ts_ms = ms;
        else if (tl && isdigit((unsigned char)tk[0]) && tk[tl - 1] == 's') {
            double v = strtod(tk, &end);
            if (end == tk + tl - 1) r->uptime_s = uptime_or_absent(v);
            else if (end == tk + tl - 2 && tk[tl - 2] == 'm') r->uptime_s = uptime_or_absent(v / 1000);
        } else if (tl >= 2 && !strncmp(tk, "gc", 2)) *is_gc = true;
        p = (size_t)(e - s) + 1;
    }
    while (p < len && s[p] == ' ') p++;
    return p;
}

static int unified_line(struct clarity_gc_parser *P, const char *s, size_t len, struct clarity_gc_rec *out)
{
    struct clarity_gc_rec r;
    rec_init(&r);
    bool is_gc;
    size_t m = unified_decor(s, len, &r, &is_gc);
    if (!m || !is_gc) return -1;
    char msg[1024];
    size_t ml = len - m < sizeof msg - 1 ? len - m : sizeof msg - 1;
    memcpy(msg, s + m, ml);
    msg[ml] = 0;
    long id;
    int n = 0;
    if (sscanf(msg, "GC(%ld)%n", &id, &n) != 1) return 0;   /* gc,init and the like */
    const char *b = msg + n;
    while (*b == ' ') b++;
    int emitted = 0;
    if (!strncmp(b, "User=", 5)) {
        if (P->pend_id == id) {
            sscanf(b, "User=%lfs Sys=%lfs Real=%lfs", &P->pend.user_s, &P->pend.sys_s, &P->pend.real_s);
            *out = P->pend, P->pend_id = -1, emitted = 1;
        }
        return emitted;
    }
    if (strncmp(b, "Pause ", 6) && strncmp(b, "Concurrent ", 11)) return 0;
    if (!strncmp(b, "Concurrent ", 11)) return 0;
    /* a pause line ends with "A->B(C) 12.345ms"; the start line has no transition */
    const char *arrow = strstr(b, "->");
    if (!arrow) return 0;
    const char *q = arrow;
    while (q > b && q[-1] != ' ') q--;
    if (!transition(q, &r.heap_before_kb, &r.heap_after_kb, &r.heap_cap_kb)) return 0;
    const char *ps = strchr(arrow, ')');
    if (ps) r.pause_s = strtod(ps + 1, NULL) / 1000;
    r.full = strstr(b, "Pause Full") != NULL;
    const char *cs = NULL;   /* cause: the last "(...)" before the transition */
    for (const char *x = b; x < q; x++)
        if (*x == '(') cs = x;
    if (cs) {
        const char *ce = strchr(cs, ')');
        size_t cl = ce ? (size_t)(ce - cs - 1) : 0;
        if (cl >= sizeof r.cause) cl = sizeof r.cause - 1;
        memcpy(r.cause, cs + 1, cl);
        r.cause[cl] = 0;
    }
    if (P->pend_id >= 0) *out = P->pend, emitted = 1;   /* previous one never got its cpu line */
    P->pend = r, P->pend_id = id;
    return emitted;
}

int clarity_gc_finish(struct clarity_gc_parser *p, struct clarity_gc_rec *out)
{
    if (p->pend_id < 0) return 0;
    *out = p->pend;
    p->pend_id = -1;
    p->records++;
    return 1;
}

int clarity_gc_feed(struct clarity_gc_parser *p, const char *line, size_t len, struct clarity_gc_rec *out)
{
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
    p->lines++;
    if (len && line[0] == '[' && len > 1 && (isdigit((unsigned char)line[1]) || line[1] == 'g')) {
        int u = unified_line(p, line, len, out);
        if (u >= 0) {
            p->records += (uint64_t)u;
            return u;
        }
    }
    /* "[GC Worker Start" and friends inside a G1 detail block are not new records */
    bool starts = memmem(line, len, "[GC (", 5) || memmem(line, len, "[GC pause", 9) || memmem(line, len, "[GC [", 5) ||
                  memmem(line, len, "[GC remark", 10) || memmem(line, len, "[GC cleanup", 11) ||
                  memmem(line, len, "[Full GC", 8);
    if (!p->blen && !starts) {
        p->ignored++;
        return 0;
    }
    if (p->blen && starts && !memmem(line, len, "[Times", 6) && memmem(p->buf, p->blen, "secs]", 5) &&
        !memmem(p->buf, p->blen, "[Times", 6)) {
        /* a record without a Times block (no PrintGCDetails): emit it, start anew */
        int ok = clarity_gc_parse_jdk8(p->buf, p->blen, out) == 0;
        p->blen = 0;
        if (len < sizeof p->buf) memcpy(p->buf, line, len), p->blen = len;
        if (ok) p->records++;
        return ok;
    }
    if (p->blen + len + 1 < sizeof p->buf) {
        if (p->blen) p->buf[p->blen++] = ' ';
        memcpy(p->buf + p->blen, line, len);
        p->blen += len;
    }
    const char *t = memmem(p->buf, p->blen, "[Times:", 7);
    if (t && memmem(t, p->blen - (size_t)(t - p->buf), "secs]", 5)) {
        int ok = clarity_gc_parse_jdk8(p->buf, p->blen, out) == 0;
        p->blen = 0;
        if (ok) p->records++;
        else p->ignored++;
        return ok;
    }
    if (p->blen > sizeof p->buf / 2) p->blen = 0, p->ignored++;   /* runaway record: drop it */
    return 0;
}
