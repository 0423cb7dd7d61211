/* ning compress-lzf chunks (Spark's lzf codec). */
#include "codec.h"
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_codec(data, size, "ZV", 2, CLARITY_CODEC_LZF, ".lzf");
}
