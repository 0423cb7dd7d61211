#include "synth/write/out.h"
#include <errno.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>
#include "clarity/synth.h"

#define LZ4_BLOCK (32 * 1024)      /* spark.io.compression.lz4.blockSize */
#define LZ4_LEVEL 5                /* ceil(log2(32768)) - 10 */
#define PLAIN_BUF (1 << 20)

struct out_stream {
    FILE *f;
    int codec;
    int err;
    uint64_t bytes;
    /* plain and lz4: pending uncompressed bytes */
    unsigned char *buf; size_t n, cap;
    /* zstd */
    ZSTD_CCtx *z;
    unsigned char *zout; size_t zcap;
    int frame_open;
    /* lz4 */
    char *lz;
};

static void emit(struct out_stream *o, const void *p, size_t n)
{
    if (o->err || !n) return;
    if (fwrite(p, 1, n, o->f) != n) o->err = errno ? errno : EIO;
    o->bytes += n;
}

struct out_stream *clarity_out_open(const char *path, int codec)
{
    struct out_stream *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    o->codec = codec;
    o->f = fopen(path, "wb");
    if (!o->f) {
        free(o);
        return NULL;
    }
    setvbuf(o->f, NULL, _IOFBF, 1 << 20);
    o->cap = codec == SYNTH_CODEC_LZ4 ? LZ4_BLOCK : PLAIN_BUF;
    o->buf = malloc(o->cap);
    if (codec == SYNTH_CODEC_ZSTD) {
        o->z = ZSTD_createCCtx();
        o->zcap = ZSTD_CStreamOutSize();
        o->zout = malloc(o->zcap);
        if (o->z) ZSTD_CCtx_setParameter(o->z, ZSTD_c_compressionLevel, 1);
    }
    if (codec == SYNTH_CODEC_LZ4) o->lz = malloc((size_t)LZ4_compressBound(LZ4_BLOCK));
    if (!o->buf || (codec == SYNTH_CODEC_ZSTD && (!o->z || !o->zout)) || (codec == SYNTH_CODEC_LZ4 && !o->lz)) {
        fclose(o->f);
        free(o->buf); free(o->zout); free(o->lz);
        ZSTD_freeCCtx(o->z);
        free(o);
        errno = ENOMEM;
        return NULL;
    }
    return o;
}

static void put_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); p[2] = (unsigned char)(v >> 16); p[3] = (unsigned char)(v >> 24);
}

static void lz4_block(struct out_stream *o, const unsigned char *p, size_t n, int end_mark)
{
    unsigned char h[21];
    memcpy(h, "LZ4Block", 8);
    if (end_mark) {
        h[8] = 0x10 | LZ4_LEVEL;
        memset(h + 9, 0, 12);
        emit(o, h, 21);
        return;
    }
    int c = LZ4_compress_default((const char *)p, o->lz, (int)n, LZ4_compressBound(LZ4_BLOCK));
    uint32_t check = XXH32(p, n, 0x9747B28Cu) & 0x0FFFFFFFu;
    int raw = c <= 0 || (size_t)c >= n;
    h[8] = (unsigned char)((raw ? 0x10 : 0x20) | LZ4_LEVEL);
    put_le32(h + 9, raw ? (uint32_t)n : (uint32_t)c);
    put_le32(h + 13, (uint32_t)n);
    put_le32(h + 17, check);
    emit(o, h, 21);
    emit(o, raw ? (const void *)p : (const void *)o->lz, raw ? n : (size_t)c);
}

static void zstd_push(struct out_stream *o, const void *p, size_t n, ZSTD_EndDirective mode)
{
    ZSTD_inBuffer in = {p, n, 0};
    for (;;) {
        ZSTD_outBuffer out = {o->zout, o->zcap, 0};
        size_t r = ZSTD_compressStream2(o->z, &out, &in, mode);
        if (ZSTD_isError(r)) {
            o->err = EIO;
            return;
        }
        emit(o, o->zout, out.pos);
        if (mode == ZSTD_e_continue ? in.pos == in.size : r == 0) break;
    }
}

int clarity_out_write(struct out_stream *o, const void *p, size_t n)
{
    const unsigned char *s = p;
    switch (o->codec) {
    case SYNTH_CODEC_ZSTD:
        /* small writes are batched so zstd sees large inputs; a flush still ends the frame */
        if (o->n + n > o->cap) {
            zstd_push(o, o->buf, o->n, ZSTD_e_continue);
            o->n = 0;
            o->frame_open = 1;
        }
        if (n > o->cap) {
            zstd_push(o, s, n, ZSTD_e_continue);
            o->frame_open = 1;
        } else {
            memcpy(o->buf + o->n, s, n);
            o->n += n;
        }
        break;
    case SYNTH_CODEC_LZ4:
        while (n) {
            size_t k = o->cap - o->n < n ? o->cap - o->n : n;
            memcpy(o->buf + o->n, s, k);
            o->n += k; s += k; n -= k;
            if (o->n == o->cap) {
                lz4_block(o, o->buf, o->n, 0);
                o->n = 0;
            }
        }
        break;
    default:
        if (o->n + n > o->cap) {
            emit(o, o->buf, o->n);
            o->n = 0;
        }
        if (n > o->cap) emit(o, s, n);
        else {
            memcpy(o->buf + o->n, s, n);
            o->n += n;
        }
    }
    return o->err ? -1 : 0;
}

int clarity_out_flush(struct out_stream *o)
{
    if (o->codec == SYNTH_CODEC_ZSTD && (o->n || o->frame_open)) {
        zstd_push(o, o->buf, o->n, ZSTD_e_end);
        o->n = 0;
        o->frame_open = 0;
    }
    /* plain: kept in our buffer (a PrintWriter flush would reach the OS; nobody reads the file
     * while we write it); lz4: syncFlush=false, the partial block stays in memory */
    return o->err ? -1 : 0;
}

int clarity_out_close(struct out_stream *o, uint64_t *bytes_on_disk)
{
    if (o->codec == SYNTH_CODEC_ZSTD) clarity_out_flush(o);
    else if (o->codec == SYNTH_CODEC_LZ4) {
        if (o->n) lz4_block(o, o->buf, o->n, 0);
        lz4_block(o, NULL, 0, 1);
    } else emit(o, o->buf, o->n);
    if (fclose(o->f) && !o->err) o->err = errno ? errno : EIO;
    int rc = o->err ? -1 : 0;
    if (bytes_on_disk) *bytes_on_disk = o->bytes;
    free(o->buf); free(o->zout); free(o->lz);
    ZSTD_freeCCtx(o->z);
    free(o);
    return rc;
}
