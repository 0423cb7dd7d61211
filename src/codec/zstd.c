/* RFC 8878 zstd frames. Spark 3.0+ closes a frame on every flush, so an event log is many
 * small frames; the last may still be open in an in-progress log, which is truncation. */
#include "codec/codec_internal.h"
#include <stdlib.h>
#include <zstd.h>

struct zs {
    ZSTD_DStream *ds;
    uint64_t frame_start;  /* compressed offset where the current frame began */
    bool flush_pending;    /* last call filled the output; zstd may hold more */
};

static int zs_init(struct clarity_decoder *d, void **state, struct clarity_error *err)
{
    struct zs *s = calloc(1, sizeof *s);
    if (s) s->ds = ZSTD_createDStream();
    if (!s || !s->ds) {
        free(s);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, clarity_cdec_offset(d), "out of memory");
    }
    /* The default window limit (128 MiB) already refuses hostile window sizes. */
    ZSTD_initDStream(s->ds);
    s->frame_start = clarity_cdec_offset(d);
    *state = s;
    return CLARITY_OK;
}

static void zs_fini(void *state)
{
    struct zs *s = state;
    if (!s) return;
    ZSTD_freeDStream(s->ds);
    free(s);
}

static int zs_fill(struct clarity_decoder *d, void *state, struct clarity_error *err)
{
    struct zs *s = state;
    size_t cap = ZSTD_DStreamOutSize();
    uint8_t *o = clarity_cdec_outbuf(d, cap);
    if (!o) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, clarity_cdec_offset(d), "out of memory"), -1;
    for (;;) {
        if (clarity_cdec_avail(d) == 0 && !s->flush_pending) {
            ssize_t n = clarity_cdec_need(d, 1, err);
            if (n < 0) return -1;
            if (n == 0) {
                uint64_t end = clarity_cdec_offset(d);
                if (end > s->frame_start)
                    clarity_cdec_damage(d, true, s->frame_start,
                                "zstd frame at byte %llu cut: %llu bytes present, frame not finished",
                                (unsigned long long)s->frame_start,
                                (unsigned long long)(end - s->frame_start));
                return 0;
            }
        }
        ZSTD_inBuffer in = {clarity_cdec_in(d), clarity_cdec_avail(d), 0};
        ZSTD_outBuffer out = {o, cap, 0};
        size_t r = ZSTD_decompressStream(s->ds, &out, &in);
        clarity_cdec_consume(d, in.pos);
        if (ZSTD_isError(r)) {
            clarity_cdec_damage(d, false, s->frame_start, "zstd frame at byte %llu does not decode: %s",
                        (unsigned long long)s->frame_start, ZSTD_getErrorName(r));
            if (out.pos) clarity_cdec_emit(d, o, out.pos);
            return out.pos ? 1 : 0;
        }
        s->flush_pending = out.pos == out.size;
        /* zstd stops at each frame end, so the input position here is the next frame start. */
        if (r == 0) s->frame_start = clarity_cdec_offset(d);
        if (out.pos) {
            clarity_cdec_emit(d, o, out.pos);
            return 1;
        }
    }
}

const struct cdec_ops clarity_cdec_zstd_ops = {CLARITY_CODEC_ZSTD, zs_init, zs_fill, zs_fini};
