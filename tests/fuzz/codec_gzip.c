/* gzip members, as Databricks rolls event log segments. */
#include "codec.h"
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_codec(data, size, "\x1F\x8B", 2, CLARITY_CODEC_GZIP, ".gz");
}
