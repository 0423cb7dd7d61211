/* Streaming ZIP writer: see zipw.h. Fields little-endian, as the format fixes them. */
#include "util/zipw.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

struct zipw_entry {
    char *name;
    uint32_t crc;
    uint64_t csize, usize, offset;
    uint16_t method, dtime, ddate;
};

#define SAT32 0xFFFFFFFFu
#define FLAG_DESCRIPTOR 0x0008u   /* sizes and CRC follow the data */
#define FLAG_UTF8 0x0800u         /* names are UTF-8 (ZipOutputStream's default) */

/* A little-endian record being assembled. */
struct rec { unsigned char b[128]; size_t n; };
static void p16(struct rec *r, uint32_t v) { r->b[r->n++] = (unsigned char)v; r->b[r->n++] = (unsigned char)(v >> 8); }
static void p32(struct rec *r, uint32_t v) { p16(r, v & 0xFFFF); p16(r, v >> 16); }
static void p64(struct rec *r, uint64_t v) { p32(r, (uint32_t)v); p32(r, (uint32_t)(v >> 32)); }

/* Every byte goes through here, to the stream the caller gave clarity_zipw_init. */
static int emit_to(FILE *out, struct zipw *z, const void *p, size_t n)
{
    if (z->failed) return z->failed;
    if (n && fwrite(p, 1, n, out) != n) return z->failed = ZIPW_EIO;
    z->offset += n;
    return ZIPW_OK;
}

static int emit(struct zipw *z, const void *p, size_t n) { return emit_to(z->out, z, p, n); }

void clarity_zipw_init(struct zipw *z, FILE *out)
{
    memset(z, 0, sizeof *z);
    z->out = out;
}

/* DOS date and time (2-second resolution, from 1980) of a Unix time, in UTC so the same file
 * zips to the same bytes wherever it is served. */
static void dos_time(int64_t t, uint16_t *dtime, uint16_t *ddate)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (t < 315532800 || !gmtime_r(&tt, &tm)) {   /* before 1980: the format's first day */
        *dtime = 0;
        *ddate = (1 << 5) | 1;
        return;
    }
    *dtime = (uint16_t)((tm.tm_hour << 11) | (tm.tm_min << 5) | (tm.tm_sec / 2));
    *ddate = (uint16_t)(((tm.tm_year - 80) << 9) | ((tm.tm_mon + 1) << 5) | tm.tm_mday);
}

static struct zipw_entry *add_entry(struct zipw *z, const char *name, uint16_t method, int64_t mtime_s)
{
    if (z->failed) return NULL;
    if (z->n == z->cap) {
        size_t cap = z->cap ? z->cap * 2 : 8;
        struct zipw_entry *p = realloc(z->ents, cap * sizeof *p);
        if (!p) return z->failed = ZIPW_ENOMEM, NULL;
        z->ents = p;
        z->cap = cap;
    }
    struct zipw_entry *e = &z->ents[z->n];
    memset(e, 0, sizeof *e);
    if (!(e->name = strdup(name))) return z->failed = ZIPW_ENOMEM, NULL;
    z->n++;
    e->method = method;
    e->offset = z->offset;
    dos_time(mtime_s, &e->dtime, &e->ddate);
    return e;
}

static int local_header(struct zipw *z, const struct zipw_entry *e, bool descriptor)
{
    struct rec r = {.n = 0};
    size_t nlen = strlen(e->name);
    p32(&r, 0x04034b50);
    p16(&r, 20);
    p16(&r, FLAG_UTF8 | (descriptor ? FLAG_DESCRIPTOR : 0));
    p16(&r, e->method);
    p16(&r, e->dtime);
    p16(&r, e->ddate);
    p32(&r, 0);   /* CRC and sizes: 0 here, in the descriptor (or truly 0 for a directory) */
    p32(&r, 0);
    p32(&r, 0);
    p16(&r, (uint32_t)nlen);
    p16(&r, 0);
    if (emit(z, r.b, r.n)) return z->failed;
    return emit(z, e->name, nlen);
}

int clarity_zipw_dir(struct zipw *z, const char *name, int64_t mtime_s)
{
    struct zipw_entry *e = add_entry(z, name, 0, mtime_s);
    if (!e) return z->failed;
    e->crc = (uint32_t)crc32(0L, Z_NULL, 0);
    return local_header(z, e, false);
}

int clarity_zipw_file(struct zipw *z, const char *name, FILE *in, int64_t mtime_s)
{
    struct zipw_entry *e = add_entry(z, name, 8, mtime_s);
    if (!e || local_header(z, e, true)) return z->failed;
    z_stream s;
    memset(&s, 0, sizeof s);
    /* raw deflate (no zlib header), as ZIP stores it */
    if (deflateInit2(&s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return z->failed = ZIPW_ENOMEM;
    enum { CHUNK = 1 << 16 };
    unsigned char *ib = malloc(CHUNK), *ob = malloc(CHUNK);
    uLong crc = crc32(0L, Z_NULL, 0);
    int rc = ib && ob ? ZIPW_OK : ZIPW_ENOMEM;
    for (bool done = false; !rc && !done;) {
        size_t got = fread(ib, 1, CHUNK, in);
        if (got < CHUNK) {
            if (ferror(in)) rc = ZIPW_EIO;
            done = true;
        }
        crc = crc32(crc, ib, (uInt)got);
        e->usize += got;
        s.next_in = ib;
        s.avail_in = (uInt)got;
        do {
            s.next_out = ob;
            s.avail_out = CHUNK;
            deflate(&s, done ? Z_FINISH : Z_NO_FLUSH);
            size_t have = CHUNK - s.avail_out;
            e->csize += have;
            if (!rc && emit(z, ob, have)) rc = z->failed;
        } while (!rc && s.avail_out == 0);
    }
    deflateEnd(&s);
    free(ib);
    free(ob);
    if (rc) return z->failed = z->failed ? z->failed : rc;
    e->crc = (uint32_t)crc;
    struct rec r = {.n = 0};
    p32(&r, 0x08074b50);
    p32(&r, e->crc);
    if (e->csize >= SAT32 || e->usize >= SAT32) {
        p64(&r, e->csize);
        p64(&r, e->usize);
    } else {
        p32(&r, (uint32_t)e->csize);
        p32(&r, (uint32_t)e->usize);
    }
    return emit(z, r.b, r.n);
}

static int central_entry(struct zipw *z, const struct zipw_entry *e)
{
    bool big_u = e->usize >= SAT32, big_c = e->csize >= SAT32, big_o = e->offset >= SAT32;
    bool z64 = big_u || big_c || big_o;
    struct rec x = {.n = 0};   /* the ZIP64 extra field: only the saturated values, in this order */
    if (z64) {
        p16(&x, 0x0001);
        p16(&x, 8u * (big_u + big_c + big_o));
        if (big_u) p64(&x, e->usize);
        if (big_c) p64(&x, e->csize);
        if (big_o) p64(&x, e->offset);
    }
    size_t nlen = strlen(e->name);
    struct rec r = {.n = 0};
    p32(&r, 0x02014b50);
    p16(&r, z64 ? 45 : 20);
    p16(&r, z64 ? 45 : 20);
    p16(&r, FLAG_UTF8 | (e->method ? FLAG_DESCRIPTOR : 0));
    p16(&r, e->method);
    p16(&r, e->dtime);
    p16(&r, e->ddate);
    p32(&r, e->crc);
    p32(&r, big_c ? SAT32 : (uint32_t)e->csize);
    p32(&r, big_u ? SAT32 : (uint32_t)e->usize);
    p16(&r, (uint32_t)nlen);
    p16(&r, (uint32_t)x.n);
    p16(&r, 0);   /* comment */
    p16(&r, 0);   /* disk */
    p16(&r, 0);   /* internal attributes */
    p32(&r, 0);   /* external attributes */
    p32(&r, big_o ? SAT32 : (uint32_t)e->offset);
    if (emit(z, r.b, r.n) || emit(z, e->name, nlen)) return z->failed;
    return emit(z, x.b, x.n);
}

int clarity_zipw_close(struct zipw *z)
{
    uint64_t cd_start = z->offset;
    for (size_t i = 0; i < z->n && !z->failed; i++) central_entry(z, &z->ents[i]);
    uint64_t cd_size = z->offset - cd_start, n = z->n;
    if (!z->failed && (n >= 0xFFFF || cd_size >= SAT32 || cd_start >= SAT32)) {
        uint64_t z64_at = z->offset;
        struct rec r = {.n = 0};
        p32(&r, 0x06064b50);
        p64(&r, 44);   /* the record's size after this field */
        p16(&r, 45);
        p16(&r, 45);
        p32(&r, 0);
        p32(&r, 0);
        p64(&r, n);
        p64(&r, n);
        p64(&r, cd_size);
        p64(&r, cd_start);
        p32(&r, 0x07064b50);   /* the locator */
        p32(&r, 0);
        p64(&r, z64_at);
        p32(&r, 1);
        emit(z, r.b, r.n);
    }
    struct rec r = {.n = 0};
    p32(&r, 0x06054b50);
    p16(&r, 0);
    p16(&r, 0);
    p16(&r, n >= 0xFFFF ? 0xFFFF : (uint32_t)n);
    p16(&r, n >= 0xFFFF ? 0xFFFF : (uint32_t)n);
    p32(&r, cd_size >= SAT32 ? SAT32 : (uint32_t)cd_size);
    p32(&r, cd_start >= SAT32 ? SAT32 : (uint32_t)cd_start);
    p16(&r, 0);
    emit(z, r.b, r.n);
    for (size_t i = 0; i < z->n; i++) free(z->ents[i].name);
    free(z->ents);
    z->ents = NULL;
    z->n = z->cap = 0;
    return z->failed;
}
