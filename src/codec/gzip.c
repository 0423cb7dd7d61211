/* gzip (Databricks rolled segments), possibly several members back to back as `cat a.gz
 * b.gz` produces. */
#include "codec/codec_internal.h"
#include <stdlib.h>
#include <zlib.h>

#define OUT_CAP ((size_t)256 << 10)

struct gz {
    z_stream z;
    uint64_t member_start;
    bool in_member;  /* bytes of the current member have been consumed */
};

static int gz_init(struct clarity_decoder *d, void **state, struct clarity_error *err)
{
    struct gz *s = calloc(1, sizeof *s);
    if (!s) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, clarity_cdec_offset(d), "out of memory");
    /* 16+MAX_WBITS: gzip wrapper only; a zlib or raw stream is not what the magic promised. */
    if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) {
        free(s);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, clarity_cdec_offset(d), "zlib init failed");
    }
    s->member_start = clarity_cdec_offset(d);
    *state = s;
    return CLARITY_OK;
}

static void gz_fini(void *state)
{
    struct gz *s = state;
    if (!s) return;
    inflateEnd(&s->z);
    free(s);
}

static int gz_fill(struct clarity_decoder *d, void *state, struct clarity_error *err)
{
    struct gz *s = state;
    uint8_t *o = clarity_cdec_outbuf(d, OUT_CAP);
    if (!o) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, clarity_cdec_offset(d), "out of memory"), -1;
    for (;;) {
        if (clarity_cdec_avail(d) == 0) {
            ssize_t n = clarity_cdec_need(d, 1, err);
            if (n < 0) return -1;
            if (n == 0) {
                if (s->in_member)
                    clarity_cdec_damage(d, true, s->member_start,
                                "gzip member at byte %llu cut: %llu bytes present, member not finished",
                                (unsigned long long)s->member_start,
                                (unsigned long long)(clarity_cdec_offset(d) - s->member_start));
                return 0;
            }
        }
        s->z.next_in = (Bytef *)clarity_cdec_in(d);
        s->z.avail_in = (uInt)(clarity_cdec_avail(d) > UINT32_MAX ? UINT32_MAX : clarity_cdec_avail(d));
        s->z.next_out = o;
        s->z.avail_out = (uInt)OUT_CAP;
        int r = inflate(&s->z, Z_NO_FLUSH);
        size_t used = (size_t)(s->z.next_in - clarity_cdec_in(d));
        size_t made = OUT_CAP - s->z.avail_out;
        clarity_cdec_consume(d, used);
        if (used) s->in_member = true;
        bool stop = false;
        if (r == Z_STREAM_END) {
            inflateReset(&s->z);
            s->in_member = false;
            s->member_start = clarity_cdec_offset(d);
            /* Anything after a member must be another member; zeros or junk are damage. */
            ssize_t n = clarity_cdec_need(d, 2, err);
            if (n < 0) return -1;
            if (n == 1 && clarity_cdec_in(d)[0] == 0x1F) {
                clarity_cdec_damage(d, true, s->member_start, "gzip member at byte %llu cut in its header",
                            (unsigned long long)s->member_start);
                stop = true;
            } else if (n > 0 && (n < 2 || clarity_cdec_in(d)[0] != 0x1F || clarity_cdec_in(d)[1] != 0x8B)) {
                clarity_cdec_damage(d, false, s->member_start, "gzip: trailing bytes that are not a gzip member at byte %llu",
                            (unsigned long long)s->member_start);
                stop = true;
            }
        } else if (r != Z_OK) {
            /* Z_BUF_ERROR cannot mean "need input" here (avail_in > 0), so it is damage too. */
            clarity_cdec_damage(d, false, s->member_start, "gzip member at byte %llu does not decode: %s",
                        (unsigned long long)s->member_start, s->z.msg ? s->z.msg : zError(r));
            stop = true;
        }
        if (made) {
            clarity_cdec_emit(d, o, made);
            return 1;
        }
        if (stop) return 0;
    }
}

const struct cdec_ops clarity_cdec_gzip_ops = {CLARITY_CODEC_GZIP, gz_init, gz_fill, gz_fini};
