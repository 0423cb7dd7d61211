/* framewalk CODEC FILE: test oracle for tests/codec/run.sh. Walks the framing of a complete
 * lz4/snappy/lzf/zstd event log independently of the library's decoders and prints one line
 * per unit (block, chunk, frame, header): "<compressed end> <decoded bytes so far> <clean>",
 * clean=1 when a stream may legitimately end there. A cut at offset c must then still yield
 * the decoded bytes of the last unit ending at or before c. Exit 1 on malformed input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_decompressBound */
#include <zstd.h>

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

static int walk(const char *codec, const uint8_t *p, size_t n)
{
    size_t off = 0;
    unsigned long long dec = 0;
    if (strcmp(codec, "lz4") == 0) {
        while (off < n) {
            if (n - off < 21 || memcmp(p + off, "LZ4Block", 8) != 0) return 1;
            uint32_t clen = le32(p + off + 9), olen = le32(p + off + 13);
            off += 21 + (size_t)clen;
            dec += olen;
            if (off > n) return 1;
            printf("%zu %llu %d\n", off, dec, clen == 0 && olen == 0);
        }
    } else if (strcmp(codec, "snappy") == 0) {
        while (off < n) {
            if (n - off >= 8 && memcmp(p + off, "\x82SNAPPY\0", 8) == 0) {
                off += 16;
            } else {
                if (n - off < 4) return 1;
                uint32_t clen = be32(p + off);
                off += 4;
                unsigned long long v = 0;  /* the raw block's varint uncompressed length */
                for (int s = 0; off + (size_t)s / 7 < n && s < 35; s += 7) {
                    uint8_t b = p[off + (size_t)s / 7];
                    v |= (unsigned long long)(b & 0x7F) << s;
                    if (!(b & 0x80)) break;
                }
                dec += v;
                off += clen;
            }
            if (off > n) return 1;
            printf("%zu %llu 1\n", off, dec);
        }
    } else if (strcmp(codec, "lzf") == 0) {
        while (off < n) {
            if (n - off < 5 || p[off] != 'Z' || p[off + 1] != 'V') return 1;
            size_t clen = (size_t)p[off + 3] << 8 | p[off + 4];
            if (p[off + 2] == 0) {
                off += 5 + clen;
                dec += clen;
            } else {
                if (n - off < 7) return 1;
                dec += (size_t)p[off + 5] << 8 | p[off + 6];
                off += 7 + clen;
            }
            if (off > n) return 1;
            printf("%zu %llu 1\n", off, dec);
        }
    } else if (strcmp(codec, "zstd") == 0) {
        /* Frames carry no content size when streamed, so decode each one by itself with the
         * one-shot API (not the streaming path the library uses). */
        ZSTD_DCtx *dc = ZSTD_createDCtx();
        int rc = 0;
        while (off < n && rc == 0) {
            size_t fl = ZSTD_findFrameCompressedSize(p + off, n - off);
            unsigned long long bound = ZSTD_decompressBound(p + off, fl);
            if (ZSTD_isError(fl) || bound == ZSTD_CONTENTSIZE_ERROR) {
                rc = 1;
                break;
            }
            void *dst = malloc(bound ? bound : 1);
            size_t got = dst ? ZSTD_decompressDCtx(dc, dst, bound, p + off, fl) : 0;
            if (!dst || ZSTD_isError(got)) rc = 1;
            free(dst);
            off += fl;
            dec += got;
            if (rc == 0) printf("%zu %llu 1\n", off, dec);
        }
        ZSTD_freeDCtx(dc);
        return rc;
    } else {
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: framewalk <lz4|snappy|lzf|zstd> FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[2], "rb");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *p = malloc(cap);
    for (size_t k; p && (k = fread(p + n, 1, cap - n, f)) > 0;) {
        n += k;
        if (n == cap) {
            uint8_t *q = realloc(p, cap *= 2);
            if (!q) free(p);
            p = q;
        }
    }
    fclose(f);
    if (!p) return 1;
    int rc = walk(argv[1], p, n);
    if (rc == 1) fprintf(stderr, "framewalk: %s: malformed %s framing\n", argv[2], argv[1]);
    free(p);
    return rc;
}
