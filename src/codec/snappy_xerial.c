/* xerial snappy-java SnappyOutputStream framing (not the Snappy framing format): a 16-byte
 * header (magic, BE version, BE min-compatible version), then [BE int32 length][raw Snappy
 * block] repeated. No end mark exists, so EOF on a block boundary is a clean end. */
#include "codec/codec_internal.h"
#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "\x82SNAPPY\0"
#define HDR 16

/* Parses a stream header at the current position: the first one, or a later one where
 * snappy-java output was concatenated (newer readers accept that, so do we). */
static int header(struct clarity_decoder *d, struct clarity_error *err)
{
    uint64_t at = clarity_cdec_offset(d);
    ssize_t n = clarity_cdec_need(d, HDR, err);
    if (n < 0) return -1;
    if (n < HDR) {
        clarity_cdec_damage(d, true, at, "snappy stream header at byte %llu cut: 16 bytes needed, %zd present",
                    (unsigned long long)at, n);
        return 0;
    }
    if (memcmp(clarity_cdec_in(d), MAGIC, 8) != 0) {
        clarity_cdec_damage(d, false, at, "snappy bad header magic at byte %llu", (unsigned long long)at);
        return 0;
    }
    clarity_cdec_consume(d, HDR);
    return 1;
}

static int snappy_fill(struct clarity_decoder *d, void *state, struct clarity_error *err)
{
    (void)state;
    for (;;) {
        uint64_t at = clarity_cdec_offset(d);
        ssize_t n = clarity_cdec_need(d, 4, err);
        if (n < 0) return -1;
        if (n == 0) return 0;
        /* As a length, the magic's first word would exceed 2^31, so it cannot be a block. */
        if (memcmp(clarity_cdec_in(d), MAGIC, (size_t)n < 4 ? (size_t)n : 4) == 0) {
            int r = header(d, err);
            if (r <= 0) return r;
            continue;
        }
        if (n < 4) {
            clarity_cdec_damage(d, true, at, "snappy block length at byte %llu cut: 4 bytes needed, %zd present",
                        (unsigned long long)at, n);
            return 0;
        }
        uint32_t clen = cdec_be32(clarity_cdec_in(d));
        if (clen == 0) {  /* an empty block carries nothing; skip it like snappy-java does */
            clarity_cdec_consume(d, 4);
            continue;
        }
        if (clen > snappy_max_compressed_length(CDEC_MAX_BLOCK)) {
            clarity_cdec_damage(d, false, at, "snappy block at byte %llu has impossible length %u",
                        (unsigned long long)at, clen);
            return 0;
        }
        n = clarity_cdec_need(d, 4 + (size_t)clen, err);
        if (n < 0) return -1;
        if ((size_t)n < 4 + (size_t)clen) {
            clarity_cdec_damage(d, true, at, "snappy block at byte %llu cut: header says %u bytes, %zd present",
                        (unsigned long long)at, clen, n - 4);
            return 0;
        }
        const char *src = (const char *)clarity_cdec_in(d) + 4;
        size_t olen;
        if (snappy_uncompressed_length(src, clen, &olen) != SNAPPY_OK || olen > CDEC_MAX_BLOCK) {
            clarity_cdec_damage(d, false, at, "snappy block at byte %llu has a bad or oversized length prefix",
                        (unsigned long long)at);
            return 0;
        }
        uint8_t *o = clarity_cdec_outbuf(d, olen ? olen : 1);
        if (!o) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, at, "out of memory"), -1;
        size_t got = olen;
        if (snappy_uncompress(src, clen, (char *)o, &got) != SNAPPY_OK || got != olen) {
            clarity_cdec_damage(d, false, at, "snappy block at byte %llu does not decode", (unsigned long long)at);
            return 0;
        }
        clarity_cdec_consume(d, 4 + (size_t)clen);
        if (olen == 0) continue;
        clarity_cdec_emit(d, o, olen);
        return 1;
    }
}

const struct cdec_ops clarity_cdec_snappy_ops = {CLARITY_CODEC_SNAPPY, NULL, snappy_fill, NULL};

/* Headerless legacy: decoder.c has already buffered and validated the whole bounded file. */
static int legacy_fill(struct clarity_decoder *d, void *state, struct clarity_error *err)
{
    (void)state;
    uint64_t at = clarity_cdec_offset(d);
    size_t n = clarity_cdec_avail(d);
    if (n == 0) return 0;
    const char *src = (const char *)clarity_cdec_in(d);
    size_t olen;
    if (snappy_uncompressed_length(src, n, &olen) != SNAPPY_OK || olen > CDEC_MAX_BLOCK) {
        clarity_cdec_damage(d, false, at, "headerless snappy data has a bad length prefix");
        return 0;
    }
    uint8_t *o = clarity_cdec_outbuf(d, olen ? olen : 1);
    if (!o) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, at, "out of memory"), -1;
    if (snappy_uncompress(src, n, (char *)o, &olen) != SNAPPY_OK) {
        clarity_cdec_damage(d, false, at, "headerless snappy data does not decode");
        return 0;
    }
    clarity_cdec_consume(d, n);
    if (olen == 0) return 0;
    clarity_cdec_emit(d, o, olen);
    return 1;
}

const struct cdec_ops clarity_cdec_snappy_legacy_ops = {CLARITY_CODEC_SNAPPY, NULL, legacy_fill, NULL};
