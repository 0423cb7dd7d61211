/* Is a file found on disk an event log? Decided from its name and its first bytes, so that
 * MANIFEST.tsv or a README in a log directory becomes a note instead of a failed app.
 * The magic table (LZ4Block, \x82SNAPPY\0, ZV, zstd 28 B5 2F FD, gzip 1F 8B, '{') mirrors
 * clarity_codec_sniff so that listing a directory does not depend on the decoders being
 * linked. */
#include "source/internal.h"
#include "util/headread.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

/* Enough for every magic and for the pre-release 1.3 text header, which is a few short
 * lines ending "=== LOG_HEADER_END ===". */
#define SNIFF_BYTES 1024

static const struct {
    const char *magic;
    size_t len;
} magics[] = {
    {"LZ4Block", 8},
    {"\x82SNAPPY\0", 8},
    /* LZF and gzip magics are short; the byte after them (chunk type, deflate method) keeps
     * a text file that happens to start "ZV" from passing as a log. */
    {"ZV\0", 3},
    {"ZV\1", 3},
    {"\x28\xb5\x2f\xfd", 4},
    {"\x1f\x8b\x08", 3},
};

static bool looks_like_log(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++)
        if (n >= magics[i].len && memcmp(p, magics[i].magic, magics[i].len) == 0) return true;
    size_t i = 0;
    if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) i = 3;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n')) i++;
    if (i < n && p[i] == '{') return true;
    return memmem(p, n, "=== LOG_HEADER_END ===", 22) != NULL;
}

/* Printable rendering of the first bytes for the note, so a user sees what the file is. */
static void describe(const unsigned char *p, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n && i < 12 && o + 5 < cap; i++) {
        unsigned char c = p[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') out[o++] = (char)c;
        else o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
    }
    out[o < cap ? o : cap - 1] = '\0';
}

enum src_verdict clarity_src_sniff_file(const char *path, const char *name, uint64_t size,
                                char *why, size_t cap)
{
    why[0] = '\0';
    if (name[0] == '.') {
        /* Spark's history server skips these too (.crc sidecars, editor files, .sources). */
        snprintf(why, cap, "not an event log: hidden name (dotfile)");
        return SRC_NOT_LOG;
    }
    /* Kept so the loader reports "empty file": an application that has just started has an
     * empty log, and dropping it here would hide it. */
    if (size == 0) return SRC_LOG;
    unsigned char buf[SNIFF_BYTES];
    size_t n;
    bool opened;
    int e = clarity_read_head(path, buf, sizeof buf, &n, &opened);
    if (e) {
        snprintf(why, cap, "cannot read: %s", strerror(e));
        return SRC_NOT_LOG;
    }
    if (looks_like_log(buf, n)) return SRC_LOG;
    /* A name that says "log" wins over damaged first bytes: the decoder then reports the
     * damage with an offset, which is more useful than a note. */
    struct src_name nm;
    if (clarity_src_parse_name(name, &nm) == CLARITY_OK) {
        bool named = nm.codec != CLARITY_CODEC_UNKNOWN || nm.in_progress || nm.compact;
        free(nm.base);
        if (named) return SRC_LOG;
    }
    char shown[64];
    describe(buf, n, shown, sizeof shown);
    snprintf(why, cap, "not an event log: first bytes \"%s\"", shown);
    return SRC_NOT_LOG;
}
