/* What a file name says about its contents (EventLogFileWriter.codecName and friends).
 * The extension tables are private on purpose: resolving must not depend on the decoders
 * being linked, and Spark's naming rules are a property of the layout, not of the framing. */
#include "source/internal.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
    const char *ext;
    enum clarity_codec codec;
} ext_table[] = {
    {"lz4", CLARITY_CODEC_LZ4},
    {"lzf", CLARITY_CODEC_LZF},
    {"snappy", CLARITY_CODEC_SNAPPY},
    {"zstd", CLARITY_CODEC_ZSTD},
    {"gz", CLARITY_CODEC_GZIP},
};

enum clarity_codec clarity_src_codec_from_ext(const char *ext)
{
    for (size_t i = 0; i < sizeof ext_table / sizeof ext_table[0]; i++)
        if (strcmp(ext, ext_table[i].ext) == 0) return ext_table[i].codec;
    return CLARITY_CODEC_UNKNOWN;
}

static const struct {
    const char *cls;
    enum clarity_codec codec;
} class_table[] = {
    {"org.apache.spark.io.LZ4CompressionCodec", CLARITY_CODEC_LZ4},
    {"org.apache.spark.io.LZFCompressionCodec", CLARITY_CODEC_LZF},
    {"org.apache.spark.io.SnappyCompressionCodec", CLARITY_CODEC_SNAPPY},
    {"org.apache.spark.io.ZStdCompressionCodec", CLARITY_CODEC_ZSTD},
};

enum clarity_codec clarity_src_codec_from_class(const char *cls)
{
    for (size_t i = 0; i < sizeof class_table / sizeof class_table[0]; i++)
        if (strcmp(cls, class_table[i].cls) == 0) return class_table[i].codec;
    /* Spark lower-cases short names before looking them up, so "LZ4" is as good as "lz4";
     * "gz" is not a Spark codec and must not match here. */
    static const char *const shorts[] = {"lz4", "lzf", "snappy", "zstd"};
    for (size_t i = 0; i < sizeof shorts / sizeof shorts[0]; i++)
        if (strcasecmp(cls, shorts[i]) == 0) return clarity_src_codec_from_ext(shorts[i]);
    return CLARITY_CODEC_UNKNOWN;
}

int clarity_src_parse_name(const char *name, struct src_name *out)
{
    memset(out, 0, sizeof *out);
    size_t n = strlen(name);
    static const char inprog[] = ".inprogress", compact[] = ".compact";
    if (n > sizeof inprog - 1 && strcmp(name + n - (sizeof inprog - 1), inprog) == 0) {
        out->in_progress = true;
        n -= sizeof inprog - 1;
    }
    if (n > sizeof compact - 1 && strncmp(name + n - (sizeof compact - 1), compact, sizeof compact - 1) == 0) {
        out->compact = true;
        n -= sizeof compact - 1;
    }
    /* App ids are sanitized to contain no dots, so only a known codec after the last dot is
     * an extension; "app.json" keeps its whole name as the base. */
    const char *dot = NULL;
    for (size_t i = n; i > 0; i--)
        if (name[i - 1] == '.') { dot = name + i - 1; break; }
    if (dot && dot != name) {
        char ext[16];
        size_t el = n - (size_t)(dot + 1 - name);
        if (el < sizeof ext) {
            memcpy(ext, dot + 1, el);
            ext[el] = '\0';
            out->codec = clarity_src_codec_from_ext(ext);
            if (out->codec != CLARITY_CODEC_UNKNOWN) n = (size_t)(dot - name);
        }
    }
    out->base = strndup(name, n);
    return out->base ? CLARITY_OK : CLARITY_ENOMEM;
}
