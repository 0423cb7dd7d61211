/* snappy-java SnappyOutputStream framing; an input without its magic is decoded as the
 * headerless stream of very old snappy-java (tried when the name says snappy). */
#include "codec.h"
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_codec(data, size, "", 0, CLARITY_CODEC_SNAPPY, ".snappy");
}
