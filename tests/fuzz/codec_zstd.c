/* zstd frames (Spark's zstd codec), several in a row and skippable ones. */
#include "codec.h"
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_codec(data, size, "\x28\xB5\x2F\xFD", 4, CLARITY_CODEC_ZSTD, ".zstd");
}
