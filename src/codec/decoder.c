/* Opening, sniffing and the pull loop shared by every framing. The per-framing files only
 * parse their own block structure; buffering, offsets and damage bookkeeping live here. */
#include "codec/codec_internal.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <snappy-c.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Large enough that read(2) overhead vanishes next to decoding, small enough to stay in L2/L3. */
#define IN_CHUNK ((size_t)512 << 10)
/* How much the sniffer gets to see; the pre-1.3 header's lines are at most 4 KiB each. */
#define SNIFF_BYTES ((size_t)64 << 10)
#define HEADER_END "=== LOG_HEADER_END ==="

struct clarity_decoder {
    int fd;
    char *path;
    const struct cdec_ops *ops;
    void *state;

    uint8_t *in;
    size_t in_cap, in_pos, in_len;
    uint64_t in_base;   /* file offset of in[0] */
    bool eof;

    const uint8_t *op, *oe;  /* decoded bytes not yet handed to the caller */
    uint8_t *out;
    size_t out_cap;

    bool done;               /* fill returned 0 or damage was recorded */
    bool io_failed;          /* read error seen while the caller still had bytes coming */
    struct clarity_error io_err;
    struct clarity_decoder_status st;
};

const char *clarity_codec_name(enum clarity_codec c)
{
    switch (c) {
    case CLARITY_CODEC_PLAIN: return "plain";
    case CLARITY_CODEC_LZ4: return "lz4";
    case CLARITY_CODEC_LZF: return "lzf";
    case CLARITY_CODEC_SNAPPY: return "snappy";
    case CLARITY_CODEC_ZSTD: return "zstd";
    case CLARITY_CODEC_GZIP: return "gzip";
    case CLARITY_CODEC_UNKNOWN: break;
    }
    return "unknown";
}

enum clarity_codec clarity_codec_from_extension(const char *ext)
{
    if (!ext) return CLARITY_CODEC_UNKNOWN;
    if (*ext == '.') ext++;
    /* Spark writes these lower-case; case-insensitivity only helps hand-renamed copies. */
    static const struct { const char *name; enum clarity_codec c; } names[] = {
        {"lz4", CLARITY_CODEC_LZ4},       {"lzf", CLARITY_CODEC_LZF},
        {"snappy", CLARITY_CODEC_SNAPPY}, {"zstd", CLARITY_CODEC_ZSTD},
        {"gz", CLARITY_CODEC_GZIP},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(ext, names[i].name) == 0) return names[i].c;
    return CLARITY_CODEC_UNKNOWN;
}

/* A file shorter than a magic but equal to its start is a log cut inside its first header;
 * calling it that codec lets the decoder report truncation instead of "not an event log".
 * Two bytes minimum so a lone stray byte does not claim a codec. */
static bool magic_at(const uint8_t *p, size_t n, const void *magic, size_t mlen)
{
    if (n >= mlen) return memcmp(p, magic, mlen) == 0;
    return n >= 2 && memcmp(p, magic, n) == 0;
}

static bool is_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* The pre-release 1.3 header: "key=value" lines, then HEADER_END. Only printable text may
 * precede the marker, so binary data that happens to contain it is not taken for one. */
static const uint8_t *find_log_header_end(const uint8_t *p, size_t n)
{
    size_t lim = n < 16384 ? n : 16384;
    const uint8_t *m = memmem(p, lim, HEADER_END, sizeof HEADER_END - 1);
    if (!m) return NULL;
    for (const uint8_t *q = p; q < m; q++)
        if (*q != '\n' && *q != '\r' && *q != '\t' && (*q < 0x20 || *q > 0x7e)) return NULL;
    return m;
}

enum clarity_codec clarity_codec_sniff(const uint8_t *p, size_t n)
{
    if (!p || n == 0) return CLARITY_CODEC_UNKNOWN;
    if (magic_at(p, n, "LZ4Block", 8)) return CLARITY_CODEC_LZ4;
    if (magic_at(p, n, "\x82SNAPPY\0", 8)) return CLARITY_CODEC_SNAPPY;
    if (magic_at(p, n, "\x28\xB5\x2F\xFD", 4)) return CLARITY_CODEC_ZSTD;
    /* zstd skippable frame: 0x184D2A50..5F little-endian. */
    if (n >= 4 && (p[0] & 0xF0) == 0x50 && p[1] == 0x2A && p[2] == 0x4D && p[3] == 0x18)
        return CLARITY_CODEC_ZSTD;
    if (n >= 2 && p[0] == 0x1F && p[1] == 0x8B) return CLARITY_CODEC_GZIP;
    /* "ZV" is plain ASCII, so also insist on a valid chunk type when it is there. */
    if (n >= 2 && p[0] == 'Z' && p[1] == 'V' && (n == 2 || p[2] == 0 || p[2] == 1))
        return CLARITY_CODEC_LZF;
    size_t i = 0;
    if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) i = 3;
    while (i < n && is_space(p[i])) i++;
    if (i < n && p[i] == '{') return CLARITY_CODEC_PLAIN;
    if (find_log_header_end(p, n)) return CLARITY_CODEC_PLAIN;
    return CLARITY_CODEC_UNKNOWN;
}

static const struct cdec_ops *ops_for(enum clarity_codec c)
{
    switch (c) {
    case CLARITY_CODEC_PLAIN: return &clarity_cdec_plain_ops;
    case CLARITY_CODEC_LZ4: return &clarity_cdec_lz4block_ops;
    case CLARITY_CODEC_LZF: return &clarity_cdec_lzf_ops;
    case CLARITY_CODEC_SNAPPY: return &clarity_cdec_snappy_ops;
    case CLARITY_CODEC_ZSTD: return &clarity_cdec_zstd_ops;
    case CLARITY_CODEC_GZIP: return &clarity_cdec_gzip_ops;
    case CLARITY_CODEC_UNKNOWN: break;
    }
    return NULL;
}

/* ---- input buffer ---- */

ssize_t clarity_cdec_need(struct clarity_decoder *d, size_t n, struct clarity_error *err)
{
    size_t have = d->in_len - d->in_pos;
    if (have >= n || d->eof) return (ssize_t)have;
    if (d->in_pos + n > d->in_cap && d->in_pos > 0) {
        memmove(d->in, d->in + d->in_pos, have);
        d->in_base += d->in_pos;
        d->in_pos = 0;
        d->in_len = have;
    }
    while (d->in_len - d->in_pos < n && !d->eof) {
        if (d->in_len == d->in_cap) {
            /* Grow only once the file has filled what we have: a hostile length in a short
             * file then hits EOF first instead of costing a large allocation. Callers bound
             * n, so growth is bounded too. */
            size_t cap = d->in_cap * 2 < d->in_pos + n ? d->in_cap * 2 : d->in_pos + n;
            uint8_t *p = realloc(d->in, cap);
            if (!p) {
                clarity_error_set(err, CLARITY_ENOMEM, d->path, 0, clarity_cdec_offset(d),
                                  "out of memory growing input buffer to %zu bytes", cap);
                return -1;
            }
            d->in = p;
            d->in_cap = cap;
        }
        ssize_t r = read(d->fd, d->in + d->in_len, d->in_cap - d->in_len);
        if (r < 0) {
            if (errno == EINTR) continue;
            clarity_error_set(err, CLARITY_EIO, d->path, 0, d->in_base + d->in_len,
                              "read failed: %s", strerror(errno));
            return -1;
        }
        if (r == 0) d->eof = true;
        d->in_len += (size_t)r;
    }
    return (ssize_t)(d->in_len - d->in_pos);
}

const uint8_t *clarity_cdec_in(const struct clarity_decoder *d) { return d->in + d->in_pos; }
size_t clarity_cdec_avail(const struct clarity_decoder *d) { return d->in_len - d->in_pos; }
void clarity_cdec_consume(struct clarity_decoder *d, size_t n) { d->in_pos += n; }
uint64_t clarity_cdec_offset(const struct clarity_decoder *d) { return d->in_base + d->in_pos; }

void clarity_cdec_emit(struct clarity_decoder *d, const uint8_t *p, size_t n)
{
    d->op = p;
    d->oe = p + n;
}

uint8_t *clarity_cdec_outbuf(struct clarity_decoder *d, size_t n)
{
    if (n > d->out_cap) {
        /* free+malloc, not realloc: the old contents are never needed, so skip the copy. */
        free(d->out);
        d->out = malloc(n);
        d->out_cap = d->out ? n : 0;
    }
    return d->out;
}

void clarity_cdec_damage(struct clarity_decoder *d, bool truncated, uint64_t offset, const char *fmt, ...)
{
    if (d->st.truncated || d->st.corrupt) return;  /* the first problem is the one that matters */
    if (truncated) d->st.truncated = true;
    else d->st.corrupt = true;
    d->st.damage_offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->st.why, sizeof d->st.why, fmt, ap);
    va_end(ap);
    d->done = true;
}

/* ---- open / read / close ---- */

void clarity_decoder_close(struct clarity_decoder *d)
{
    if (!d) return;
    if (d->ops && d->ops->fini) d->ops->fini(d->state);
    if (d->fd >= 0) close(d->fd);
    free(d->in);
    free(d->out);
    free(d->path);
    free(d);
}

/* Very old snappy-java wrote one raw Snappy buffer with no header, so nothing can be sniffed;
 * accept it only when the name says snappy and the whole (bounded) file validates. */
static bool legacy_snappy(struct clarity_decoder *d, struct clarity_error *err, bool *io_fail)
{
    size_t limit = snappy_max_compressed_length(CDEC_MAX_BLOCK);
    ssize_t n = clarity_cdec_need(d, limit + 1, err);
    if (n < 0) {
        *io_fail = true;
        return false;
    }
    size_t ulen;
    if ((size_t)n > limit) return false;
    if (snappy_uncompressed_length((const char *)clarity_cdec_in(d), (size_t)n, &ulen) != SNAPPY_OK ||
        ulen > CDEC_MAX_BLOCK)
        return false;
    return snappy_validate_compressed_buffer((const char *)clarity_cdec_in(d), (size_t)n) == SNAPPY_OK;
}

struct clarity_decoder *clarity_decoder_open(const char *path, enum clarity_codec hint,
                                             struct clarity_error *err)
{
    struct clarity_decoder *d = calloc(1, sizeof *d);
    if (!d) {
        clarity_error_set(err, CLARITY_ENOMEM, path, 0, 0, "out of memory");
        return NULL;
    }
    d->fd = -1;
    d->path = strdup(path ? path : "");
    d->in_cap = IN_CHUNK;
    d->in = malloc(d->in_cap);
    if (!d->path || !d->in) {
        clarity_error_set(err, CLARITY_ENOMEM, path, 0, 0, "out of memory");
        goto fail;
    }
    d->fd = open(d->path, O_RDONLY | O_CLOEXEC);
    if (d->fd < 0) {
        clarity_error_set(err, CLARITY_EIO, d->path, 0, 0, "cannot open: %s", strerror(errno));
        goto fail;
    }
    ssize_t n = clarity_cdec_need(d, SNIFF_BYTES, err);
    if (n < 0) goto fail;
    if (n == 0) {
        clarity_error_set(err, CLARITY_EFORMAT, d->path, 0, 0, "empty file");
        goto fail;
    }
    enum clarity_codec codec = clarity_codec_sniff(clarity_cdec_in(d), (size_t)n);
    const struct cdec_ops *ops = ops_for(codec);
    size_t skip = 0;
    if (codec == CLARITY_CODEC_PLAIN) {
        /* The pre-1.3 header stayed uncompressed even when it named a codec for the rest,
         * so look past it for a magic before settling on plain. */
        const uint8_t *m = find_log_header_end(clarity_cdec_in(d), (size_t)n);
        if (m && memmem(clarity_cdec_in(d), (size_t)(m - clarity_cdec_in(d)), "ompressionCodec=", 16)) {
            const uint8_t *e = memchr(m, '\n', (size_t)(clarity_cdec_in(d) + n - m));
            if (e) {
                size_t at = (size_t)(e + 1 - clarity_cdec_in(d));
                enum clarity_codec c2 = clarity_codec_sniff(clarity_cdec_in(d) + at, (size_t)n - at);
                if (c2 != CLARITY_CODEC_UNKNOWN && c2 != CLARITY_CODEC_PLAIN) {
                    codec = c2;
                    ops = ops_for(c2);
                    skip = at;
                }
            }
        }
    }
    if (codec == CLARITY_CODEC_UNKNOWN && hint == CLARITY_CODEC_SNAPPY) {
        bool io_fail = false;
        if (legacy_snappy(d, err, &io_fail)) {
            codec = CLARITY_CODEC_SNAPPY;
            ops = &clarity_cdec_snappy_legacy_ops;
        } else if (io_fail) {
            goto fail;
        }
    }
    if (!ops) {
        clarity_error_set(err, CLARITY_EFORMAT, d->path, 0, 0,
                          "not an event log: first bytes match no known codec");
        goto fail;
    }
    d->ops = ops;
    d->st.codec = codec;
    d->st.hint = hint;
    clarity_cdec_consume(d, skip);
    if (ops->init && ops->init(d, &d->state, err) != CLARITY_OK) {
        d->ops = NULL;  /* init cleaned up after itself */
        goto fail;
    }
    return d;
fail:
    clarity_decoder_close(d);
    return NULL;
}

long clarity_decoder_read(struct clarity_decoder *d, void *buf, size_t cap,
                          struct clarity_error *err)
{
    if (d->io_failed) {
        if (err) *err = d->io_err;
        return -1;
    }
    /* Keep the count representable in the return type. */
    if (cap > (size_t)LONG_MAX) cap = (size_t)LONG_MAX;
    uint8_t *dst = buf;
    size_t got = 0;
    /* Plain text needs no decoding: once the buffered input is used up, read straight into the
     * caller's buffer and save a copy of every byte (a tenth of the time on plain logs). */
    if (d->ops == &clarity_cdec_plain_ops && d->op == d->oe && !d->done && d->in_pos == d->in_len && !d->eof) {
        for (;;) {
            ssize_t r = read(d->fd, dst, cap);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) {
                d->done = d->io_failed = true;
                clarity_error_set(&d->io_err, CLARITY_EIO, d->path, 0, d->in_base + d->in_len,
                                  "read failed: %s", strerror(errno));
                if (err) *err = d->io_err;
                return -1;
            }
            if (r == 0) {
                d->eof = d->done = true;
                return 0;
            }
            d->in_base += (uint64_t)r;
            d->st.bytes_out += (uint64_t)r;
            return (long)r;
        }
    }
    while (got < cap) {
        if (d->op == d->oe) {
            if (d->done) break;
            d->op = d->oe = NULL;
            int r = d->ops->fill(d, d->state, &d->io_err);
            if (r < 0) {
                d->done = true;
                d->io_failed = true;
                if (got) break;  /* hand over what we have; the error comes next call */
                if (err) *err = d->io_err;
                return -1;
            }
            if (r == 0) d->done = true;
            continue;
        }
        size_t k = (size_t)(d->oe - d->op);
        if (k > cap - got) k = cap - got;
        memcpy(dst + got, d->op, k);
        d->op += k;
        got += k;
    }
    d->st.bytes_out += got;
    return (long)got;
}

void clarity_decoder_status(const struct clarity_decoder *d, struct clarity_decoder_status *st)
{
    *st = d->st;
    st->bytes_in = clarity_cdec_offset(d);
}
