/* A zstd stream decoded in pieces (include/clarity/codec.h: clarity_zstd_feed). The pull
 * decoder (zstd.c) reads a file to its end once; a server reading on a growing zstd log needs
 * the same state kept across reads instead, fed only the new bytes. */
#include <stdlib.h>
#include <zstd.h>
#include "clarity/codec.h"

struct clarity_zstd_feed {
    ZSTD_DStream *ds;
    void *out;
    size_t cap;
    bool mid_frame;                          /* bytes fed since the last frame end */
};

int clarity_zstd_feed_new(struct clarity_zstd_feed **out)
{
    struct clarity_zstd_feed *z = calloc(1, sizeof *z);
    if (z) {
        z->cap = ZSTD_DStreamOutSize();
        z->ds = ZSTD_createDStream();
        z->out = malloc(z->cap);
    }
    if (!z || !z->ds || !z->out) {
        clarity_zstd_feed_free(z);
        return CLARITY_ENOMEM;
    }
    ZSTD_initDStream(z->ds);
    *out = z;
    return CLARITY_OK;
}

void clarity_zstd_feed_free(struct clarity_zstd_feed *z)
{
    if (!z) return;
    ZSTD_freeDStream(z->ds);
    free(z->out);
    free(z);
}

int clarity_zstd_feed(struct clarity_zstd_feed *z, const void *in, size_t n,
                      int (*emit)(void *ctx, const void *p, size_t n), void *ctx, struct clarity_error *err)
{
    ZSTD_inBuffer ib = {in, n, 0};
    /* until every input byte is taken and the output buffer was not filled (zstd may hold
     * decoded bytes back while the output is full) */
    for (;;) {
        ZSTD_outBuffer ob = {z->out, z->cap, 0};
        size_t r = ZSTD_decompressStream(z->ds, &ob, &ib);
        if (ZSTD_isError(r))
            return clarity_error_set(err, CLARITY_EFORMAT, NULL, 0, 0, "zstd data does not decode: %s", ZSTD_getErrorName(r));
        if (ib.pos > 0 || ob.pos > 0) z->mid_frame = r != 0;
        if (ob.pos) {
            int rc = emit(ctx, z->out, ob.pos);
            if (rc) return rc;
        }
        if (ib.pos == ib.size && ob.pos < ob.size) return CLARITY_OK;
    }
}

bool clarity_zstd_feed_mid_frame(const struct clarity_zstd_feed *z) { return z->mid_frame; }
