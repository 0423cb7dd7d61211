/* Shared plumbing between decoder.c and the per-framing decoders. Not public API. */
#ifndef CLARITY_CODEC_INTERNAL_H
#define CLARITY_CODEC_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "clarity/codec.h"
#include "clarity/error.h"

/* The largest block any Spark framing may legitimately decode to: lz4-java's level field
 * tops out at 2^(10+15) = 32 MiB. Lengths beyond this are treated as corruption rather than
 * trusted, so a hostile header cannot make us allocate gigabytes. */
#define CDEC_MAX_BLOCK ((size_t)32 << 20)

struct clarity_decoder;

struct cdec_ops {
    enum clarity_codec codec;
    /* Allocates per-stream state into *state; returns CLARITY_OK or an error code. */
    int (*init)(struct clarity_decoder *d, void **state, struct clarity_error *err);
    /* Produces the next run of decoded bytes via cdec_emit(). Returns 1 when bytes were
     * emitted, 0 at the end of the stream (clean, or after cdec_damage()), -1 on an I/O
     * error with err filled. May emit and mark damage in the same call; the framework
     * stops calling fill once damage is recorded. */
    int (*fill)(struct clarity_decoder *d, void *state, struct clarity_error *err);
    void (*fini)(void *state);
};

extern const struct cdec_ops clarity_cdec_plain_ops, clarity_cdec_lz4block_ops, clarity_cdec_snappy_ops,
    clarity_cdec_snappy_legacy_ops, clarity_cdec_lzf_ops, clarity_cdec_zstd_ops, clarity_cdec_gzip_ops;

/* Buffered input. Makes at least n bytes available from the current position unless the
 * file ends first. Returns the number available (which may exceed n, or be less only at
 * EOF), or -1 on a read error (err filled). Invalidates pointers from cdec_in(). */
ssize_t clarity_cdec_need(struct clarity_decoder *d, size_t n, struct clarity_error *err);
const uint8_t *clarity_cdec_in(const struct clarity_decoder *d);  /* current input position */
size_t clarity_cdec_avail(const struct clarity_decoder *d);       /* bytes buffered from there */
void clarity_cdec_consume(struct clarity_decoder *d, size_t n);
uint64_t clarity_cdec_offset(const struct clarity_decoder *d);    /* compressed offset of cdec_in() */

/* Hands decoded bytes to the reader. p must stay valid until the next fill call (it may
 * point into the input buffer: cdec_need is not called again before then). */
void clarity_cdec_emit(struct clarity_decoder *d, const uint8_t *p, size_t n);
/* Output scratch of at least n bytes owned by the decoder, or NULL (ENOMEM). Contents are
 * not preserved across calls that grow it. */
uint8_t *clarity_cdec_outbuf(struct clarity_decoder *d, size_t n);

/* Records damage: the stream ends here; everything emitted so far stands. */
void clarity_cdec_damage(struct clarity_decoder *d, bool truncated, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static inline uint32_t cdec_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint32_t cdec_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}
static inline uint32_t cdec_be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }

#endif
