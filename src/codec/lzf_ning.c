/* ning compress-lzf chunks: "ZV", type 0 (stored: BE16 length) or type 1 (compressed: BE16
 * compressed length, BE16 original length), then the data. No end mark: EOF on a chunk
 * boundary is a clean end. */
#include "codec/codec_internal.h"
#include <liblzf/lzf.h>
#include <string.h>

static int lzf_fill(struct clarity_decoder *d, void *state, struct clarity_error *err)
{
    (void)state;
    for (;;) {
        uint64_t at = clarity_cdec_offset(d);
        ssize_t n = clarity_cdec_need(d, 7, err);
        if (n < 0) return -1;
        if (n == 0) return 0;
        const uint8_t *h = clarity_cdec_in(d);
        if (h[0] != 'Z' || (n >= 2 && h[1] != 'V') || (n >= 3 && h[2] > 1)) {
            clarity_cdec_damage(d, false, at, "lzf bad chunk header at byte %llu", (unsigned long long)at);
            return 0;
        }
        size_t hlen = (n >= 3 && h[2] == 1) ? 7 : 5;
        if ((size_t)n < hlen) {
            clarity_cdec_damage(d, true, at, "lzf chunk header at byte %llu cut: %zu bytes needed, %zd present",
                        (unsigned long long)at, hlen, n);
            return 0;
        }
        size_t clen = cdec_be16(h + 3);
        size_t olen = hlen == 7 ? cdec_be16(h + 5) : clen;
        n = clarity_cdec_need(d, hlen + clen, err);
        if (n < 0) return -1;
        if ((size_t)n < hlen + clen) {
            clarity_cdec_damage(d, true, at, "lzf chunk at byte %llu cut: header says %zu bytes, %zd present",
                        (unsigned long long)at, clen, n - (ssize_t)hlen);
            return 0;
        }
        const uint8_t *src = clarity_cdec_in(d) + hlen;
        if (clen == 0) {  /* zero-length stored chunk: legal, carries nothing */
            clarity_cdec_consume(d, hlen);
            continue;
        }
        if (hlen == 5) {
            clarity_cdec_consume(d, hlen + clen);
            clarity_cdec_emit(d, src, clen);  /* stored: no copy into scratch */
            return 1;
        }
        uint8_t *o = clarity_cdec_outbuf(d, 0x10000);
        if (!o) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, at, "out of memory"), -1;
        unsigned got = olen ? lzf_decompress(src, (unsigned)clen, o, (unsigned)olen) : 0;
        if (got != olen || olen == 0) {
            clarity_cdec_damage(d, false, at, "lzf chunk at byte %llu does not decode to its %zu bytes",
                        (unsigned long long)at, olen);
            return 0;
        }
        clarity_cdec_consume(d, hlen + clen);
        clarity_cdec_emit(d, o, olen);
        return 1;
    }
}

const struct cdec_ops clarity_cdec_lzf_ops = {CLARITY_CODEC_LZF, NULL, lzf_fill, NULL};
