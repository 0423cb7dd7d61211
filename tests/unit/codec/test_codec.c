/* Codec decoders against hand-built streams: each framing is assembled here with the same C
 * libraries the encoders wrap, so block boundaries (and thus what a cut must still yield)
 * are known exactly. Genuine Java-encoder output is covered by tests/codec/run.sh. */
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <liblzf/lzf.h>
#include <lz4.h>
#include <snappy-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>
#include <zlib.h>
#include <zstd.h>
#include "clarity/codec.h"

#define MAXU 256

/* A compressed stream plus, per unit (block/frame/chunk/member), where it ends in the
 * compressed bytes and in the decoded text, and whether EOF there is a clean end. */
struct stream {
    uint8_t *z;
    size_t zlen, zcap;
    uint8_t *orig;
    size_t olen, ocap;
    size_t nu;
    size_t cend[MAXU], dend[MAXU];
    bool clean[MAXU];
};

static void grow(uint8_t **p, size_t *cap, size_t need)
{
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 4096;
    while (c < need) c *= 2;
    *p = realloc(*p, c);
    cr_assert_not_null(*p);
    *cap = c;
}
static void put(struct stream *s, const void *p, size_t n)
{
    grow(&s->z, &s->zcap, s->zlen + n);
    memcpy(s->z + s->zlen, p, n);
    s->zlen += n;
}
static void orig_add(struct stream *s, const void *p, size_t n)
{
    grow(&s->orig, &s->ocap, s->olen + n);
    memcpy(s->orig + s->olen, p, n);
    s->olen += n;
}
static void unit_end(struct stream *s, bool clean)
{
    cr_assert_lt(s->nu, MAXU);
    s->cend[s->nu] = s->zlen;
    s->dend[s->nu] = s->olen;
    s->clean[s->nu] = clean;
    s->nu++;
}
static void stream_free(struct stream *s)
{
    free(s->z);
    free(s->orig);
    memset(s, 0, sizeof *s);
}

/* Event-log-like lines with varying numbers so the compressors have real work. */
static size_t make_text(uint8_t *out, size_t n, unsigned seed)
{
    size_t k = 0;
    unsigned x = seed * 2654435761u + 1;
    while (k + 120 < n) {
        x = x * 1103515245u + 12345u;
        k += (size_t)snprintf((char *)out + k, n - k,
                              "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":%u,\"Task ID\":%u,"
                              "\"Duration\":%u}\n",
                              x % 7, x % 100003, (x >> 7) % 9999);
    }
    return k;
}
/* Bytes no compressor can shrink, to force stored/RAW paths. */
static void make_noise(uint8_t *out, size_t n, unsigned seed)
{
    unsigned x = seed | 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        out[i] = (uint8_t)x;
    }
}

/* ---- temp files ---- */

struct tmp {
    char dir[64];
    char path[128];
};
static void tmp_open(struct tmp *t, const char *name)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/clarity-codec-XXXXXX");
    cr_assert_not_null(mkdtemp(t->dir));
    snprintf(t->path, sizeof t->path, "%s/%s", t->dir, name);
}
static void tmp_write(struct tmp *t, const void *p, size_t n)
{
    FILE *f = fopen(t->path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(p, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
}
static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(p);
}
static void tmp_close(struct tmp *t) { nftw(t->dir, rm_one, 8, FTW_DEPTH | FTW_PHYS); }

struct result {
    bool opened;
    struct clarity_error err;
    struct clarity_decoder_status st;
    uint8_t *out;
    size_t n;
};

/* Decodes t->path completely, reading `chunk` bytes at a time. */
static struct result decode_file(const char *path, enum clarity_codec hint, size_t chunk)
{
    struct result r = {0};
    struct clarity_decoder *d = clarity_decoder_open(path, hint, &r.err);
    if (!d) return r;
    r.opened = true;
    size_t cap = 0;
    for (;;) {
        grow(&r.out, &cap, r.n + chunk + 1);
        long k = clarity_decoder_read(d, r.out + r.n, chunk, &r.err);
        cr_assert_geq(k, 0, "read error: %s", r.err.msg);
        if (k == 0) break;
        r.n += (size_t)k;
    }
    /* Reading again after the end must stay at the end. */
    uint8_t extra[8];
    cr_assert_eq(clarity_decoder_read(d, extra, sizeof extra, &r.err), 0);
    clarity_decoder_status(d, &r.st);
    clarity_decoder_close(d);
    return r;
}

static struct result decode_bytes(const void *p, size_t n, const char *name, enum clarity_codec hint)
{
    struct tmp t;
    tmp_open(&t, name);
    tmp_write(&t, p, n);
    struct result r = decode_file(t.path, hint, 65536);
    tmp_close(&t);
    return r;
}

static void assert_clean_roundtrip(const struct stream *s, enum clarity_codec codec)
{
    struct tmp t;
    tmp_open(&t, "log");
    tmp_write(&t, s->z, s->zlen);
    /* Odd read sizes cross every internal buffer boundary. */
    size_t chunks[] = {1, 7, 4096, 1 << 20};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        struct result r = decode_file(t.path, CLARITY_CODEC_UNKNOWN, chunks[i]);
        cr_assert(r.opened, "open failed: %s", r.err.msg);
        cr_assert_eq(r.st.codec, codec);
        cr_assert_not(r.st.truncated || r.st.corrupt, "damage reported: %s", r.st.why);
        cr_assert_str_empty(r.st.why);
        cr_assert_eq(r.n, s->olen, "decoded %zu of %zu bytes (chunk %zu)", r.n, s->olen, chunks[i]);
        cr_assert_eq(memcmp(r.out, s->orig, s->olen), 0);
        cr_assert_eq(r.st.bytes_out, s->olen);
        cr_assert_eq(r.st.bytes_in, s->zlen);
        free(r.out);
    }
    tmp_close(&t);
}

/* Cuts the stream at every offset. A cut must never crash or invent bytes: the output is a
 * prefix of the original holding at least every unit that ended before the cut, and the cut
 * is reported as truncation unless it falls on a clean end. */
static void assert_every_cut(const struct stream *s, enum clarity_codec codec)
{
    struct tmp t;
    tmp_open(&t, "cut");
    for (size_t cut = 0; cut < s->zlen; cut++) {
        tmp_write(&t, s->z, cut);
        struct result r = decode_file(t.path, CLARITY_CODEC_UNKNOWN, 65536);
        if (!r.opened) {
            /* Too short to name a codec: one byte, or nothing. */
            cr_assert_leq(cut, 1, "cut %zu: open failed: %s", cut, r.err.msg);
            cr_assert_eq(r.err.code, CLARITY_EFORMAT);
            continue;
        }
        cr_assert_eq(r.st.codec, codec, "cut %zu", cut);
        size_t must = 0, last_end = 0;
        bool clean = false;
        for (size_t u = 0; u < s->nu; u++) {
            if (s->cend[u] <= cut) must = s->dend[u], last_end = s->cend[u];
            if (s->cend[u] == cut && s->clean[u]) clean = true;
        }
        cr_assert_leq(r.n, s->olen, "cut %zu", cut);
        cr_assert_eq(memcmp(r.out, s->orig, r.n), 0, "cut %zu: output is not a prefix", cut);
        cr_assert_geq(r.n, must, "cut %zu: decoded %zu, but %zu bytes were in whole units", cut, r.n, must);
        cr_assert_not(r.st.corrupt, "cut %zu reported corrupt: %s", cut, r.st.why);
        if (clean) {
            cr_assert_not(r.st.truncated, "cut %zu on a clean boundary reported: %s", cut, r.st.why);
            cr_assert_eq(r.n, must, "cut %zu", cut);
        } else {
            cr_assert(r.st.truncated, "cut %zu not reported as truncated", cut);
            cr_assert_str_not_empty(r.st.why);
            cr_assert_leq(r.st.damage_offset, cut, "cut %zu", cut);
            /* The damage lies in the unit the cut went through, not in an earlier one. */
            cr_assert_geq(r.st.damage_offset, last_end, "cut %zu: damage at %llu", cut,
                          (unsigned long long)r.st.damage_offset);
        }
        free(r.out);
    }
    tmp_close(&t);
}

/* ---- builders for each framing ---- */

enum { RAW = 0x10, LZ4 = 0x20 };

static void lz4_header(struct stream *s, unsigned token, uint32_t clen, uint32_t olen, uint32_t check)
{
    uint8_t h[21];
    memcpy(h, "LZ4Block", 8);
    h[8] = (uint8_t)token;
    uint32_t v[3] = {clen, olen, check};
    for (int i = 0; i < 3; i++)
        for (int b = 0; b < 4; b++) h[9 + 4 * i + b] = (uint8_t)(v[i] >> (8 * b));
    put(s, h, sizeof h);
}
/* One block exactly as LZ4BlockOutputStream writes it at Spark's 32 KiB (level 5). */
static void lz4_block(struct stream *s, const uint8_t *p, size_t n, int method)
{
    uint32_t check = XXH32(p, n, 0x9747B28C) & 0x0FFFFFFF;
    if (method == LZ4) {
        int bound = LZ4_compressBound((int)n);
        char *c = malloc((size_t)bound);
        int cl = LZ4_compress_default((const char *)p, c, (int)n, bound);
        cr_assert_gt(cl, 0);
        lz4_header(s, LZ4 | 5, (uint32_t)cl, (uint32_t)n, check);
        put(s, c, (size_t)cl);
        free(c);
    } else {
        lz4_header(s, RAW | 5, (uint32_t)n, (uint32_t)n, check);
        put(s, p, n);
    }
    orig_add(s, p, n);
    /* Without an end mark the writer never closed, so this is not a clean end. */
    unit_end(s, false);
}
static void lz4_end(struct stream *s)
{
    lz4_header(s, RAW | 5, 0, 0, 0);
    unit_end(s, true);
}

static void build_lz4(struct stream *s)
{
    uint8_t text[8192], noise[700];
    size_t tn = make_text(text, sizeof text, 1);
    make_noise(noise, sizeof noise, 2);
    lz4_block(s, text, 2000, LZ4);
    lz4_block(s, noise, sizeof noise, RAW);
    lz4_block(s, text + 2000, tn - 2000, LZ4);
    lz4_end(s);
    /* A second stream appended, as Spark's concatenation-tolerant reader allows. */
    lz4_block(s, text, 1500, LZ4);
    lz4_end(s);
}

static void build_zstd(struct stream *s, int frames)
{
    uint8_t text[4096];
    size_t tn = make_text(text, sizeof text, 3);
    size_t per = tn / (size_t)frames;
    for (int f = 0; f < frames; f++) {
        size_t len = f == frames - 1 ? tn - per * (size_t)f : per;
        size_t bound = ZSTD_compressBound(len);
        uint8_t *c = malloc(bound);
        size_t cl = ZSTD_compress(c, bound, text + per * (size_t)f, len, 1);
        cr_assert_not(ZSTD_isError(cl));
        put(s, c, cl);
        orig_add(s, text + per * (size_t)f, len);
        unit_end(s, true);
        free(c);
    }
}

static void gzip_member(struct stream *s, const uint8_t *p, size_t n)
{
    z_stream z = {0};
    cr_assert_eq(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    uLong bound = deflateBound(&z, (uLong)n);
    uint8_t *c = malloc(bound);
    z.next_in = (Bytef *)p;
    z.avail_in = (uInt)n;
    z.next_out = c;
    z.avail_out = (uInt)bound;
    cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    put(s, c, bound - z.avail_out);
    deflateEnd(&z);
    free(c);
    orig_add(s, p, n);
    unit_end(s, true);
}
static void build_gzip(struct stream *s)
{
    uint8_t text[4096];
    size_t tn = make_text(text, sizeof text, 4);
    gzip_member(s, text, 1000);
    gzip_member(s, text + 1000, tn - 1000);
}

static void snappy_header(struct stream *s)
{
    put(s, "\x82SNAPPY\0\0\0\0\x01\0\0\0\x01", 16);
    unit_end(s, true);
}
static void snappy_block(struct stream *s, const uint8_t *p, size_t n)
{
    size_t cl = snappy_max_compressed_length(n);
    char *c = malloc(cl);
    cr_assert_eq(snappy_compress((const char *)p, n, c, &cl), SNAPPY_OK);
    uint8_t len[4] = {(uint8_t)(cl >> 24), (uint8_t)(cl >> 16), (uint8_t)(cl >> 8), (uint8_t)cl};
    put(s, len, 4);
    put(s, c, cl);
    free(c);
    orig_add(s, p, n);
    unit_end(s, true);
}
static void build_snappy(struct stream *s)
{
    uint8_t text[4096];
    size_t tn = make_text(text, sizeof text, 5);
    snappy_header(s);
    snappy_block(s, text, 900);
    snappy_block(s, text + 900, 1100);
    snappy_header(s);  /* a concatenated second stream */
    snappy_block(s, text + 2000, tn - 2000);
}

static void lzf_chunk(struct stream *s, const uint8_t *p, size_t n, bool compress)
{
    uint8_t c[0x10000 + 16];
    unsigned cl = compress ? lzf_compress(p, (unsigned)n, c, (unsigned)n - 1) : 0;
    if (cl) {
        uint8_t h[7] = {'Z', 'V', 1, (uint8_t)(cl >> 8), (uint8_t)cl, (uint8_t)(n >> 8), (uint8_t)n};
        put(s, h, 7);
        put(s, c, cl);
    } else {
        uint8_t h[5] = {'Z', 'V', 0, (uint8_t)(n >> 8), (uint8_t)n};
        put(s, h, 5);
        put(s, p, n);
    }
    orig_add(s, p, n);
    unit_end(s, true);
}
static void build_lzf(struct stream *s)
{
    uint8_t text[4096], noise[300];
    size_t tn = make_text(text, sizeof text, 6);
    make_noise(noise, sizeof noise, 7);
    lzf_chunk(s, text, 1200, true);
    lzf_chunk(s, noise, sizeof noise, false);
    lzf_chunk(s, text + 1200, tn - 1200, true);
}

/* ---- sniffing and names ---- */

Test(codec_sniff, magics)
{
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"LZ4Block\x25", 9), CLARITY_CODEC_LZ4);
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"\x82SNAPPY\0\0\0\0\1", 12), CLARITY_CODEC_SNAPPY);
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"ZV\1\0\4", 5), CLARITY_CODEC_LZF);
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"ZV\0\0\4", 5), CLARITY_CODEC_LZF);
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"\x28\xB5\x2F\xFD\0", 5), CLARITY_CODEC_ZSTD);
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"\x1F\x8B\x08", 3), CLARITY_CODEC_GZIP);
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"{\"Event\"", 8), CLARITY_CODEC_PLAIN);
}

Test(codec_sniff, plain_variants)
{
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"\xEF\xBB\xBF{\"a\":1}", 10), CLARITY_CODEC_PLAIN);
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)" \r\n\t{", 5), CLARITY_CODEC_PLAIN);
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"\xEF\xBB\xBF  {", 6), CLARITY_CODEC_PLAIN);
    const char *hdr = "version=1.3.0\n=== LOG_HEADER_END ===\n{\"Event\":1}\n";
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)hdr, strlen(hdr)), CLARITY_CODEC_PLAIN);
}

Test(codec_sniff, rejects)
{
    cr_assert_eq(clarity_codec_sniff(NULL, 0), CLARITY_CODEC_UNKNOWN);
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"hello", 5), CLARITY_CODEC_UNKNOWN);
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"   ", 3), CLARITY_CODEC_UNKNOWN);
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"[1,2]", 5), CLARITY_CODEC_UNKNOWN);
    /* "ZV" followed by an impossible chunk type is text, not lzf. */
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"ZVx", 3), CLARITY_CODEC_UNKNOWN);
    /* Binary before the marker is not a header. */
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"\x01\x02=== LOG_HEADER_END ===", 24),
                 CLARITY_CODEC_UNKNOWN);
    /* A single byte is too little to name a codec. */
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"L", 1), CLARITY_CODEC_UNKNOWN);
}

Test(codec_sniff, short_file_prefix_of_magic)
{
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"LZ4Bl", 5), CLARITY_CODEC_LZ4);
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"\x82SN", 3), CLARITY_CODEC_SNAPPY);
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"\x28\xB5", 2), CLARITY_CODEC_ZSTD);
    /* Only when the data is shorter than the magic: a full-length mismatch is no codec. */
    cr_assert_eq(clarity_codec_sniff((const uint8_t *)"LZ4BlocX", 8), CLARITY_CODEC_UNKNOWN);
}

Test(codec_names, extensions_and_names)
{
    cr_assert_eq(clarity_codec_from_extension("lz4"), CLARITY_CODEC_LZ4);
    cr_assert_eq(clarity_codec_from_extension("lzf"), CLARITY_CODEC_LZF);
    cr_assert_eq(clarity_codec_from_extension("snappy"), CLARITY_CODEC_SNAPPY);
    cr_assert_eq(clarity_codec_from_extension("zstd"), CLARITY_CODEC_ZSTD);
    cr_assert_eq(clarity_codec_from_extension("gz"), CLARITY_CODEC_GZIP);
    cr_assert_eq(clarity_codec_from_extension(".zstd"), CLARITY_CODEC_ZSTD);
    cr_assert_eq(clarity_codec_from_extension("json"), CLARITY_CODEC_UNKNOWN);
    cr_assert_eq(clarity_codec_from_extension("inprogress"), CLARITY_CODEC_UNKNOWN);
    cr_assert_eq(clarity_codec_from_extension(""), CLARITY_CODEC_UNKNOWN);
    cr_assert_eq(clarity_codec_from_extension(NULL), CLARITY_CODEC_UNKNOWN);
    cr_assert_str_eq(clarity_codec_name(CLARITY_CODEC_PLAIN), "plain");
    cr_assert_str_eq(clarity_codec_name(CLARITY_CODEC_LZ4), "lz4");
    cr_assert_str_eq(clarity_codec_name(CLARITY_CODEC_LZF), "lzf");
    cr_assert_str_eq(clarity_codec_name(CLARITY_CODEC_SNAPPY), "snappy");
    cr_assert_str_eq(clarity_codec_name(CLARITY_CODEC_ZSTD), "zstd");
    cr_assert_str_eq(clarity_codec_name(CLARITY_CODEC_GZIP), "gzip");
    cr_assert_str_eq(clarity_codec_name(CLARITY_CODEC_UNKNOWN), "unknown");
}

/* ---- open errors ---- */

Test(codec_open, missing_file)
{
    struct clarity_error err = {0};
    struct clarity_decoder *d = clarity_decoder_open("/nonexistent/clarity/x.lz4", CLARITY_CODEC_LZ4, &err);
    cr_assert_null(d);
    cr_assert_eq(err.code, CLARITY_EIO);
    cr_assert_not_null(strstr(err.msg, strerror(ENOENT)), "msg: %s", err.msg);
    cr_assert_str_eq(err.file, "/nonexistent/clarity/x.lz4");
}

Test(codec_open, empty_and_unknown)
{
    struct result r = decode_bytes("", 0, "e.lz4", CLARITY_CODEC_LZ4);
    cr_assert_not(r.opened);
    cr_assert_eq(r.err.code, CLARITY_EFORMAT);
    cr_assert_str_eq(r.err.msg, "empty file");
    r = decode_bytes("PK\3\4 zip file", 14, "x", CLARITY_CODEC_UNKNOWN);
    cr_assert_not(r.opened);
    cr_assert_eq(r.err.code, CLARITY_EFORMAT);
    cr_assert_str_eq(r.err.msg, "not an event log: first bytes match no known codec");
}

Test(codec_open, directory_is_unreadable)
{
    struct tmp t;
    tmp_open(&t, "x");
    struct clarity_error err = {0};
    struct clarity_decoder *d = clarity_decoder_open(t.dir, CLARITY_CODEC_UNKNOWN, &err);
    cr_assert_null(d);
    cr_assert_eq(err.code, CLARITY_EIO, "code %d: %s", err.code, err.msg);
    tmp_close(&t);
}

Test(codec_open, magic_beats_extension)
{
    struct stream s = {0};
    build_zstd(&s, 2);
    struct result r = decode_bytes(s.z, s.zlen, "app.lz4", CLARITY_CODEC_LZ4);
    cr_assert(r.opened);
    cr_assert_eq(r.st.codec, CLARITY_CODEC_ZSTD);
    cr_assert_eq(r.st.hint, CLARITY_CODEC_LZ4);
    cr_assert_eq(r.n, s.olen);
    cr_assert_eq(memcmp(r.out, s.orig, s.olen), 0);
    free(r.out);
    stream_free(&s);
}

/* ---- plain ---- */

Test(codec_plain, roundtrip_and_bom)
{
    struct stream s = {0};
    uint8_t text[3000];
    size_t n = make_text(text, sizeof text, 8);
    put(&s, text, n);
    orig_add(&s, text, n);
    assert_clean_roundtrip(&s, CLARITY_CODEC_PLAIN);

    uint8_t bom[3100] = "\xEF\xBB\xBF";
    memcpy(bom + 3, text, n);
    struct result r = decode_bytes(bom, n + 3, "b", CLARITY_CODEC_UNKNOWN);
    cr_assert(r.opened);
    cr_assert_eq(r.st.codec, CLARITY_CODEC_PLAIN);
    cr_assert_eq(r.n, n, "the BOM is dropped, nothing else");
    cr_assert_eq(memcmp(r.out, text, n), 0);
    free(r.out);
    stream_free(&s);
}

Test(codec_plain, pre13_header_passes_through)
{
    const char *log = "version=1.2.1\n=== LOG_HEADER_END ===\n{\"Event\":\"SparkListenerLogStart\"}\n";
    struct result r = decode_bytes(log, strlen(log), "h", CLARITY_CODEC_UNKNOWN);
    cr_assert(r.opened);
    cr_assert_eq(r.st.codec, CLARITY_CODEC_PLAIN);
    cr_assert_eq(r.n, strlen(log));
    cr_assert_eq(memcmp(r.out, log, r.n), 0);
    free(r.out);
}

Test(codec_plain, pre13_header_before_compressed_body)
{
    /* The header stayed uncompressed while the events after it used the named codec. */
    const char *hdr = "version=1.3.0\ncompressionCodec=org.apache.spark.io.LZ4CompressionCodec\n"
                      "=== LOG_HEADER_END ===\n";
    struct stream s = {0};
    put(&s, hdr, strlen(hdr));
    uint8_t text[2000];
    size_t n = make_text(text, sizeof text, 9);
    lz4_block(&s, text, n, LZ4);
    lz4_end(&s);
    struct result r = decode_bytes(s.z, s.zlen, "h", CLARITY_CODEC_UNKNOWN);
    cr_assert(r.opened);
    cr_assert_eq(r.st.codec, CLARITY_CODEC_LZ4);
    cr_assert_not(r.st.truncated || r.st.corrupt, "%s", r.st.why);
    cr_assert_eq(r.n, n);
    cr_assert_eq(memcmp(r.out, text, n), 0);
    free(r.out);
    stream_free(&s);
}

/* ---- lz4 ---- */

Test(codec_lz4, raw_and_lz4_blocks_concatenated_streams)
{
    struct stream s = {0};
    build_lz4(&s);
    cr_assert_eq(s.z[8], 0x25, "first block is compressed");
    assert_clean_roundtrip(&s, CLARITY_CODEC_LZ4);
    stream_free(&s);
}

Test(codec_lz4, every_cut)
{
    struct stream s = {0};
    build_lz4(&s);
    assert_every_cut(&s, CLARITY_CODEC_LZ4);
    stream_free(&s);
}

Test(codec_lz4, checksum_mismatch_is_corrupt_after_good_blocks)
{
    struct stream s = {0};
    build_lz4(&s);
    size_t second = s.cend[0];               /* the RAW block */
    s.z[second + 17] ^= 0x01;                /* its checksum */
    struct result r = decode_bytes(s.z, s.zlen, "c.lz4", CLARITY_CODEC_LZ4);
    cr_assert(r.opened);
    cr_assert(r.st.corrupt);
    cr_assert_not(r.st.truncated);
    cr_assert_eq(r.st.damage_offset, second);
    cr_assert_not_null(strstr(r.st.why, "checksum"), "why: %s", r.st.why);
    cr_assert_eq(r.n, s.dend[0], "the first block still arrives");
    cr_assert_eq(memcmp(r.out, s.orig, r.n), 0);
    free(r.out);
    stream_free(&s);
}

Test(codec_lz4, flipped_data_byte_is_corrupt)
{
    struct stream s = {0};
    build_lz4(&s);
    s.z[s.cend[0] + 21 + 100] ^= 0x40;       /* inside the RAW block's stored bytes */
    struct result r = decode_bytes(s.z, s.zlen, "c.lz4", CLARITY_CODEC_LZ4);
    cr_assert(r.st.corrupt);
    cr_assert_eq(r.st.damage_offset, s.cend[0]);
    cr_assert_eq(r.n, s.dend[0]);
    free(r.out);
    stream_free(&s);
}

Test(codec_lz4, hostile_lengths)
{
    uint8_t small[64] = "x";
    struct {
        unsigned token;
        uint32_t clen, olen;
    } cases[] = {
        {0x2F, 100, 0x7FFFFFFF},          /* beyond the 32 MiB cap */
        {0x2F, 0xFFFFFFFF, 0xFFFFFFFF},   /* negative in Java */
        {0x25, 100, 40000},               /* beyond level 5's 32 KiB */
        {0x15, 10, 20},                   /* RAW with unequal lengths */
        {0x25, 5000, 100},                /* more compressed than LZ4 can produce */
        {0x25, 0, 100},                   /* data without bytes */
        {0x35, 10, 10},                   /* unknown method */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct stream s = {0};
        lz4_header(&s, cases[i].token, cases[i].clen, cases[i].olen, 0);
        put(&s, small, sizeof small);
        struct result r = decode_bytes(s.z, s.zlen, "h.lz4", CLARITY_CODEC_LZ4);
        cr_assert(r.opened);
        cr_assert(r.st.corrupt, "case %zu not corrupt (%s)", i, r.st.why);
        cr_assert_eq(r.st.damage_offset, 0);
        cr_assert_eq(r.n, 0);
        free(r.out);
        stream_free(&s);
    }
}

Test(codec_lz4, claimed_length_past_eof_is_truncation)
{
    /* A valid 32 MiB claim in a tiny file: report the cut without trusting the claim. */
    struct stream s = {0};
    lz4_header(&s, 0x2F, 20u << 20, 30u << 20, 0);
    put(&s, "abc", 3);
    struct result r = decode_bytes(s.z, s.zlen, "t.lz4", CLARITY_CODEC_LZ4);
    cr_assert(r.st.truncated);
    cr_assert_not_null(strstr(r.st.why, "20971520 bytes, 3 present"), "why: %s", r.st.why);
    free(r.out);
    stream_free(&s);
}

Test(codec_lz4, garbage_after_end_mark_is_corrupt)
{
    struct stream s = {0};
    build_lz4(&s);
    size_t end = s.zlen;
    put(&s, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 23);
    struct result r = decode_bytes(s.z, s.zlen, "g.lz4", CLARITY_CODEC_LZ4);
    cr_assert(r.st.corrupt);
    cr_assert_eq(r.st.damage_offset, end);
    cr_assert_eq(r.n, s.olen, "everything before the garbage is kept");
    free(r.out);
    stream_free(&s);
}

/* ---- zstd ---- */

Test(codec_zstd, many_frames)
{
    struct stream s = {0};
    build_zstd(&s, 40);
    assert_clean_roundtrip(&s, CLARITY_CODEC_ZSTD);
    stream_free(&s);
}

Test(codec_zstd, large_single_frame)
{
    /* Output larger than the decoder's scratch, so one frame spans many fills. */
    struct stream s = {0};
    size_t n = 3u << 20;
    uint8_t *text = malloc(n);
    size_t tn = make_text(text, n, 10);
    size_t bound = ZSTD_compressBound(tn);
    grow(&s.z, &s.zcap, bound);
    s.zlen = ZSTD_compress(s.z, bound, text, tn, 1);
    cr_assert_not(ZSTD_isError(s.zlen));
    orig_add(&s, text, tn);
    assert_clean_roundtrip(&s, CLARITY_CODEC_ZSTD);
    free(text);
    stream_free(&s);
}

Test(codec_zstd, every_cut)
{
    struct stream s = {0};
    build_zstd(&s, 6);
    assert_every_cut(&s, CLARITY_CODEC_ZSTD);
    stream_free(&s);
}

Test(codec_zstd, trailing_garbage_is_corrupt_at_its_offset)
{
    struct stream s = {0};
    build_zstd(&s, 3);
    size_t end = s.zlen;
    put(&s, "not zstd at all", 15);
    struct result r = decode_bytes(s.z, s.zlen, "g.zstd", CLARITY_CODEC_ZSTD);
    cr_assert(r.st.corrupt);
    cr_assert_not(r.st.truncated);
    cr_assert_eq(r.st.damage_offset, end);
    cr_assert_eq(r.n, s.olen);
    cr_assert_eq(memcmp(r.out, s.orig, s.olen), 0);
    free(r.out);
    stream_free(&s);
}

/* ---- gzip ---- */

Test(codec_gzip, multi_member)
{
    struct stream s = {0};
    build_gzip(&s);
    assert_clean_roundtrip(&s, CLARITY_CODEC_GZIP);
    stream_free(&s);
}

Test(codec_gzip, every_cut)
{
    struct stream s = {0};
    build_gzip(&s);
    assert_every_cut(&s, CLARITY_CODEC_GZIP);
    stream_free(&s);
}

Test(codec_gzip, trailing_garbage_is_corrupt)
{
    struct stream s = {0};
    build_gzip(&s);
    size_t end = s.zlen;
    put(&s, "\0\0\0\0", 4);
    struct result r = decode_bytes(s.z, s.zlen, "g.gz", CLARITY_CODEC_GZIP);
    cr_assert(r.st.corrupt);
    cr_assert_eq(r.st.damage_offset, end);
    cr_assert_eq(r.n, s.olen);
    free(r.out);
    stream_free(&s);
}

/* ---- snappy ---- */

Test(codec_snappy, blocks_and_midstream_header)
{
    struct stream s = {0};
    build_snappy(&s);
    assert_clean_roundtrip(&s, CLARITY_CODEC_SNAPPY);
    stream_free(&s);
}

Test(codec_snappy, every_cut)
{
    struct stream s = {0};
    build_snappy(&s);
    assert_every_cut(&s, CLARITY_CODEC_SNAPPY);
    stream_free(&s);
}

Test(codec_snappy, headerless_legacy_needs_the_name)
{
    uint8_t text[3000];
    size_t n = make_text(text, sizeof text, 11);
    size_t cl = snappy_max_compressed_length(n);
    char *c = malloc(cl);
    cr_assert_eq(snappy_compress((const char *)text, n, c, &cl), SNAPPY_OK);
    struct result r = decode_bytes(c, cl, "old.snappy", CLARITY_CODEC_SNAPPY);
    cr_assert(r.opened, "%s", r.err.msg);
    cr_assert_eq(r.st.codec, CLARITY_CODEC_SNAPPY);
    cr_assert_eq(r.n, n);
    cr_assert_eq(memcmp(r.out, text, n), 0);
    free(r.out);
    /* Without the name there is nothing to go on. */
    r = decode_bytes(c, cl, "old", CLARITY_CODEC_UNKNOWN);
    cr_assert_not(r.opened);
    cr_assert_eq(r.err.code, CLARITY_EFORMAT);
    free(c);
}

Test(codec_snappy, hostile_lengths)
{
    struct stream s = {0};
    snappy_header(&s);
    put(&s, "\x7F\xFF\xFF\xFF" "abcdef", 10);  /* 2 GiB block */
    struct result r = decode_bytes(s.z, s.zlen, "h.snappy", CLARITY_CODEC_SNAPPY);
    cr_assert(r.st.corrupt, "%s", r.st.why);
    cr_assert_eq(r.st.damage_offset, 16);
    free(r.out);
    stream_free(&s);

    /* A block whose varint claims 1 GiB uncompressed: refused before allocating. */
    struct stream t = {0};
    snappy_header(&t);
    uint8_t blk[] = {0, 0, 0, 8, 0x80, 0x80, 0x80, 0x80, 0x04, 0, 'a', 'b'};
    put(&t, blk, sizeof blk);
    r = decode_bytes(t.z, t.zlen, "h.snappy", CLARITY_CODEC_SNAPPY);
    cr_assert(r.st.corrupt, "%s", r.st.why);
    cr_assert_eq(r.st.damage_offset, 16);
    cr_assert_eq(r.n, 0);
    free(r.out);
    stream_free(&t);
}

Test(codec_snappy, undecodable_block_keeps_earlier_blocks)
{
    struct stream s = {0};
    build_snappy(&s);
    size_t at = s.cend[1];                    /* the second block's length prefix */
    memset(s.z + at + 4 + 2, 0xFF, 6);
    struct result r = decode_bytes(s.z, s.zlen, "c.snappy", CLARITY_CODEC_SNAPPY);
    cr_assert(r.st.corrupt, "%s", r.st.why);
    cr_assert_eq(r.st.damage_offset, at);
    cr_assert_eq(r.n, s.dend[1]);
    free(r.out);
    stream_free(&s);
}

/* ---- lzf ---- */

Test(codec_lzf, stored_and_compressed_chunks)
{
    struct stream s = {0};
    build_lzf(&s);
    cr_assert_eq(s.z[2], 1, "first chunk is compressed");
    cr_assert_eq(s.z[s.cend[0] + 2], 0, "second chunk is stored");
    assert_clean_roundtrip(&s, CLARITY_CODEC_LZF);
    stream_free(&s);
}

Test(codec_lzf, every_cut)
{
    struct stream s = {0};
    build_lzf(&s);
    assert_every_cut(&s, CLARITY_CODEC_LZF);
    stream_free(&s);
}

Test(codec_lzf, bad_chunks_are_corrupt)
{
    struct stream s = {0};
    build_lzf(&s);
    s.z[s.cend[1] + 2] = 7;                   /* third chunk: unknown type */
    struct result r = decode_bytes(s.z, s.zlen, "c.lzf", CLARITY_CODEC_LZF);
    cr_assert(r.st.corrupt);
    cr_assert_eq(r.st.damage_offset, s.cend[1]);
    cr_assert_eq(r.n, s.dend[1]);
    free(r.out);
    stream_free(&s);

    struct stream t = {0};
    build_lzf(&t);
    t.z[6] ^= 0xFF;                           /* original length of a compressed chunk */
    r = decode_bytes(t.z, t.zlen, "c.lzf", CLARITY_CODEC_LZF);
    cr_assert(r.st.corrupt);
    cr_assert_eq(r.st.damage_offset, 0);
    cr_assert_eq(r.n, 0);
    free(r.out);
    stream_free(&t);
}
