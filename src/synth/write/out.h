/* An event-log output stream in the framing Spark writes: plain, zstd (a frame closed on
 * every flush, as Spark 3.0+ sets setCloseFrameOnFlush) or lz4-java blocks (32 KiB blocks,
 * XXH32 seed 0x9747B28C masked to 28 bits, flush does not cut a block: syncFlush=false). */
#ifndef CLARITY_SYNTH_OUT_H
#define CLARITY_SYNTH_OUT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct out_stream;
struct out_stream *clarity_out_open(const char *path, int codec);   /* enum synth_codec; NULL + errno */
int clarity_out_write(struct out_stream *o, const void *p, size_t n);
int clarity_out_flush(struct out_stream *o);                         /* Spark's flushLogger */
int clarity_out_close(struct out_stream *o, uint64_t *bytes_on_disk); /* 0 ok, -1 I/O error */
#endif
