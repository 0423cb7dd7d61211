/* lz4-java LZ4BlockOutputStream framing (Spark's lz4 codec). */
#include "codec.h"
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_codec(data, size, "LZ4Block", 8, CLARITY_CODEC_LZ4, ".lz4");
}
