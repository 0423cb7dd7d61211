/* lz4-java LZ4BlockOutputStream framing (not the LZ4 frame format): 21-byte headers
 * "LZ4Block" | token | compressedLen LE | decompressedLen LE | checksum LE, then the block. */
#include "codec/codec_internal.h"
#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define HDR 21
#define METHOD_RAW 0x10
#define METHOD_LZ4 0x20
#define SEED 0x9747B28Cu

struct lz4b {
    bool after_end_mark;  /* EOF here is a clean end; elsewhere the writer never closed */
};

static int lz4b_init(struct clarity_decoder *d, void **state, struct clarity_error *err)
{
    struct lz4b *s = calloc(1, sizeof *s);
    if (!s) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, clarity_cdec_offset(d), "out of memory");
    *state = s;
    return CLARITY_OK;
}

static void lz4b_fini(void *state) { free(state); }

static int lz4b_fill(struct clarity_decoder *d, void *state, struct clarity_error *err)
{
    struct lz4b *s = state;
    for (;;) {
        uint64_t at = clarity_cdec_offset(d);
        ssize_t n = clarity_cdec_need(d, HDR, err);
        if (n < 0) return -1;
        if (n == 0) {
            if (!s->after_end_mark)
                /* syncFlush=false: an unclosed writer leaves its last partial block unwritten. */
                clarity_cdec_damage(d, true, at,
                            "lz4 stream ends at byte %llu without its end mark (writer not "
                            "closed; its last partial block is not on disk)",
                            (unsigned long long)at);
            return 0;
        }
        if (n < HDR) {
            /* Bytes that are not even a magic prefix are corruption, not a cut header. */
            if (memcmp(clarity_cdec_in(d), "LZ4Block", (size_t)n < 8 ? (size_t)n : 8) != 0)
                clarity_cdec_damage(d, false, at, "lz4 bad block magic at byte %llu", (unsigned long long)at);
            else
                clarity_cdec_damage(d, true, at, "lz4 block header at byte %llu cut: 21 bytes needed, %zd present",
                            (unsigned long long)at, n);
            return 0;
        }
        const uint8_t *h = clarity_cdec_in(d);
        if (memcmp(h, "LZ4Block", 8) != 0) {
            clarity_cdec_damage(d, false, at, "lz4 bad block magic at byte %llu", (unsigned long long)at);
            return 0;
        }
        unsigned method = h[8] & 0xF0, level = h[8] & 0x0F;
        uint32_t clen = cdec_le32(h + 9), olen = cdec_le32(h + 13), check = cdec_le32(h + 17);
        if (method != METHOD_RAW && method != METHOD_LZ4) {
            clarity_cdec_damage(d, false, at, "lz4 block at byte %llu: unknown method 0x%02x",
                        (unsigned long long)at, method);
            return 0;
        }
        if (clen == 0 && olen == 0) {
            if (check != 0) {
                clarity_cdec_damage(d, false, at, "lz4 end mark at byte %llu has nonzero checksum",
                            (unsigned long long)at);
                return 0;
            }
            /* Concatenated streams: Spark reads past end marks, so do we. */
            clarity_cdec_consume(d, HDR);
            s->after_end_mark = true;
            continue;
        }
        /* Same sanity rules as LZ4BlockInputStream, plus a hard cap: the level bounds the
         * block to 2^(10+level) bytes, which tops out at CDEC_MAX_BLOCK. */
        size_t max_o = (size_t)1 << (10 + level);
        if (olen > max_o || olen > CDEC_MAX_BLOCK || clen == 0 || olen == 0 ||
            (method == METHOD_RAW && clen != olen) ||
            (method == METHOD_LZ4 && clen > (uint32_t)LZ4_compressBound((int)olen))) {
            clarity_cdec_damage(d, false, at,
                        "lz4 block at byte %llu has impossible lengths: compressed %u, "
                        "decompressed %u (level limit %zu)",
                        (unsigned long long)at, clen, olen, max_o);
            return 0;
        }
        n = clarity_cdec_need(d, HDR + (size_t)clen, err);
        if (n < 0) return -1;
        if ((size_t)n < HDR + (size_t)clen) {
            clarity_cdec_damage(d, true, at, "lz4 block at byte %llu cut: header says %u bytes, %zd present",
                        (unsigned long long)at, clen, n - HDR);
            return 0;
        }
        const uint8_t *src = clarity_cdec_in(d) + HDR;
        const uint8_t *out;
        if (method == METHOD_RAW) {
            out = src;  /* stored: hand the input bytes over directly */
        } else {
            uint8_t *o = clarity_cdec_outbuf(d, olen);
            if (!o)
                return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, at, "out of memory"), -1;
            int r = LZ4_decompress_safe((const char *)src, (char *)o, (int)clen, (int)olen);
            if (r != (int)olen) {
                clarity_cdec_damage(d, false, at,
                            "lz4 block at byte %llu does not decode (%d of %u bytes)",
                            (unsigned long long)at, r, olen);
                return 0;
            }
            out = o;
        }
        uint32_t got = XXH32(out, olen, SEED) & 0x0FFFFFFFu;
        if (got != check) {
            clarity_cdec_damage(d, false, at, "lz4 block at byte %llu checksum mismatch: header 0x%07x, data 0x%07x",
                        (unsigned long long)at, check, got);
            return 0;
        }
        clarity_cdec_consume(d, HDR + (size_t)clen);
        s->after_end_mark = false;
        clarity_cdec_emit(d, out, olen);
        return 1;
    }
}

const struct cdec_ops clarity_cdec_lz4block_ops = {CLARITY_CODEC_LZ4, lz4b_init, lz4b_fill, lz4b_fini};
