/* Plain JSON lines: the input buffer is the output, so bytes are handed over without a copy
 * into scratch. */
#include "codec/codec_internal.h"
#include <string.h>

static int plain_init(struct clarity_decoder *d, void **state, struct clarity_error *err)
{
    (void)err;
    *state = NULL;
    /* A UTF-8 BOM is an encoding marker, not event text, and would break the first JSON line. */
    if (clarity_cdec_avail(d) >= 3 && memcmp(clarity_cdec_in(d), "\xEF\xBB\xBF", 3) == 0) clarity_cdec_consume(d, 3);
    return CLARITY_OK;
}

static int plain_fill(struct clarity_decoder *d, void *state, struct clarity_error *err)
{
    (void)state;
    ssize_t n = clarity_cdec_need(d, 1, err);
    if (n <= 0) return (int)n;
    clarity_cdec_emit(d, clarity_cdec_in(d), (size_t)n);
    clarity_cdec_consume(d, (size_t)n);
    return 1;
}

const struct cdec_ops clarity_cdec_plain_ops = {CLARITY_CODEC_PLAIN, plain_init, plain_fill, NULL};
