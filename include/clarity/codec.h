/* Pull decoders for the framings Spark writes event logs in. */
#ifndef CLARITY_CODEC_H
#define CLARITY_CODEC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/error.h"

enum clarity_codec {
    CLARITY_CODEC_UNKNOWN = 0,
    CLARITY_CODEC_PLAIN,
    CLARITY_CODEC_LZ4,     /* lz4-java LZ4BlockOutputStream */
    CLARITY_CODEC_LZF,     /* ning compress-lzf chunks */
    CLARITY_CODEC_SNAPPY,  /* xerial snappy-java SnappyOutputStream */
    CLARITY_CODEC_ZSTD,    /* RFC 8878 frames, possibly many */
    CLARITY_CODEC_GZIP,    /* Databricks rolled segments */
};

const char *clarity_codec_name(enum clarity_codec c);          /* "plain", "lz4", ... */
/* Spark's short names plus "gz"; UNKNOWN for anything else. */
enum clarity_codec clarity_codec_from_extension(const char *ext);
/* From the first bytes of a file; PLAIN when it starts with '{' (after optional BOM/space),
 * UNKNOWN when nothing matches. */
enum clarity_codec clarity_codec_sniff(const uint8_t *p, size_t n);

struct clarity_decoder;

/* Opens path and decodes it. The codec is taken from the magic bytes; `hint` (from the
 * extension, or UNKNOWN) is only used to report a mismatch, except that a file matching no
 * magic is tried as headerless (very old snappy-java) Snappy when the hint is SNAPPY.
 * Returns NULL with err filled when the file cannot be opened (CLARITY_EIO), is empty or its
 * first bytes match no framing (CLARITY_EFORMAT).
 * Plain logs are passed through unchanged except for a leading UTF-8 BOM, which is dropped.
 * A pre-1.3 "=== LOG_HEADER_END ===" header is passed through as text, unless it names a
 * compressionCodec and compressed data follows it: then the header is skipped and the data
 * after it decoded. */
struct clarity_decoder *clarity_decoder_open(const char *path, enum clarity_codec hint,
                                             struct clarity_error *err);

/* Reads up to cap decoded bytes into buf. Returns the count (>0), 0 at the end of the
 * stream, or -1 on an I/O error (err filled). Corrupt or truncated compressed data ends the
 * stream (returns 0) and is described by clarity_decoder_status; everything decoded before
 * the damage has been returned. */
long clarity_decoder_read(struct clarity_decoder *d, void *buf, size_t cap,
                          struct clarity_error *err);

struct clarity_decoder_status {
    enum clarity_codec codec;     /* what the bytes are */
    enum clarity_codec hint;      /* what the name said */
    bool truncated;               /* stream ended inside a block/frame/header */
    bool corrupt;                 /* bad magic, checksum mismatch, undecodable block */
    uint64_t damage_offset;       /* compressed byte offset where the problem starts */
    char why[256];                /* "" when clean */
    uint64_t bytes_in;            /* compressed bytes consumed */
    uint64_t bytes_out;           /* decoded bytes produced */
};
void clarity_decoder_status(const struct clarity_decoder *d, struct clarity_decoder_status *st);
void clarity_decoder_close(struct clarity_decoder *d);

/* A zstd stream decoded in pieces as its file grows (a zstd .inprogress log that a server
 * reads on): the decoder's state (the frame in progress, its window) is kept between calls,
 * so each call takes only the compressed bytes appended since, wherever the writer's flush
 * cut the stream (inside a frame, a block or a header). */
struct clarity_zstd_feed;
int clarity_zstd_feed_new(struct clarity_zstd_feed **out);   /* CLARITY_ENOMEM */
void clarity_zstd_feed_free(struct clarity_zstd_feed *z);
/* Decodes in[0, n), handing the decoded bytes to emit (nonzero from emit stops and is
 * returned); CLARITY_EFORMAT (err filled) when the bytes do not decode. */
int clarity_zstd_feed(struct clarity_zstd_feed *z, const void *in, size_t n,
                      int (*emit)(void *ctx, const void *p, size_t n), void *ctx, struct clarity_error *err);
/* Whether the bytes fed so far end inside a frame (a whole read would call the file cut). */
bool clarity_zstd_feed_mid_frame(const struct clarity_zstd_feed *z);

#endif
