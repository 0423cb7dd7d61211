/* One decoder on arbitrary bytes: the input, behind the codec's magic unless it starts with
 * it, is decoded to the end in reads of an input-chosen size. Whatever the bytes, the decoder
 * must end cleanly (data, then 0 with damage described) and count what it returned. */
#ifndef CLARITY_FUZZ_CODEC_H
#define CLARITY_FUZZ_CODEC_H
#include "clarity/codec.h"
#include "fuzz.h"

static int fuzz_codec(const uint8_t *data, size_t size, const char *magic, size_t mlen, enum clarity_codec hint,
                      const char *suffix)
{
    uint8_t *buf = malloc(size + mlen + 1);
    if (!buf) return 0;
    size_t n = 0;
    if (mlen && (size < mlen || memcmp(data, magic, mlen) != 0)) {
        memcpy(buf, magic, mlen);
        n = mlen;
    }
    if (size) memcpy(buf + n, data, size);
    n += size;
    const char *path = fuzz_write_file(0, suffix, buf, n);
    free(buf);
    if (!path) return 0;

    struct clarity_error err = {0};
    struct clarity_decoder *d = clarity_decoder_open(path, hint, &err);
    if (!d) return 0;
    /* read sizes from 1 byte up, so that every split of the output is tried; past the first
     * MiB of output, reads of a MiB: a few hundred bytes of input can decode to tens of MB (runs
     * of one byte), and reading those a byte at a time made the harness itself the slow unit
     * (16 MB from 828 bytes of zstd took 1.7 s, 15 s under load), not the decoder */
    size_t cap = size ? 1 + (size_t)data[size - 1] * 61 : 4096, big = (size_t)1 << 20;
    uint8_t *out = malloc(big);
    if (!out) abort();
    uint64_t total = 0;
    long r;
    while ((r = clarity_decoder_read(d, out, total < big ? cap : big, &err)) > 0) total += (uint64_t)r;
    struct clarity_decoder_status st;
    clarity_decoder_status(d, &st);
    if (r == 0 && st.bytes_out != total) {
        fprintf(stderr, "decoder says %llu bytes out, returned %llu\n", (unsigned long long)st.bytes_out,
                (unsigned long long)total);
        abort();
    }
    clarity_decoder_close(d);
    free(out);
    return 0;
}

#endif
