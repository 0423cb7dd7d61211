/* decode [-n] FILE: writes FILE's decoded bytes to stdout (-n: discards them and reports
 * throughput) and its decoder status to stderr. Exit 0 clean, 4 truncated/corrupt,
 * 3 unreadable or not an event log, 2 usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "clarity/codec.h"

/* Spark's rule: drop .inprogress and .compact, then the codec is the text after the last dot. */
static enum clarity_codec hint_from_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char name[1024];
    snprintf(name, sizeof name, "%s", base);
    for (int again = 1; again;) {
        again = 0;
        static const char *const sfx[] = {".inprogress", ".compact"};
        for (int i = 0; i < 2; i++) {
            size_t n = strlen(name), k = strlen(sfx[i]);
            if (n > k && strcmp(name + n - k, sfx[i]) == 0) {
                name[n - k] = '\0';
                again = 1;
            }
        }
    }
    const char *dot = strrchr(name, '.');
    return dot ? clarity_codec_from_extension(dot + 1) : CLARITY_CODEC_UNKNOWN;
}

int main(int argc, char **argv)
{
    int discard = argc == 3 && strcmp(argv[1], "-n") == 0;
    if (argc != 2 + discard) {
        fprintf(stderr, "usage: decode [-n] FILE\n");
        return 2;
    }
    const char *path = argv[1 + discard];
    struct clarity_error err = {0};
    char msg[1200];
    struct clarity_decoder *d = clarity_decoder_open(path, hint_from_name(path), &err);
    if (!d) {
        fprintf(stderr, "decode: %s (%s)\n", clarity_error_format(&err, msg, sizeof msg),
                clarity_status_name(err.code));
        return 3;
    }
    size_t cap = (size_t)1 << 20;
    char *buf = malloc(cap);
    if (!buf) {
        clarity_decoder_close(d);
        return 3;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long n;
    int rc = 0;
    while ((n = clarity_decoder_read(d, buf, cap, &err)) > 0) {
        if (!discard && fwrite(buf, 1, (size_t)n, stdout) != (size_t)n) {
            perror("decode: stdout");
            rc = 3;
            break;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (n < 0) {
        fprintf(stderr, "decode: %s\n", clarity_error_format(&err, msg, sizeof msg));
        rc = 3;
    }
    struct clarity_decoder_status st;
    clarity_decoder_status(d, &st);
    fprintf(stderr, "codec=%s hint=%s truncated=%d corrupt=%d damage_offset=%llu bytes_in=%llu bytes_out=%llu",
            clarity_codec_name(st.codec), clarity_codec_name(st.hint), st.truncated, st.corrupt,
            (unsigned long long)st.damage_offset, (unsigned long long)st.bytes_in,
            (unsigned long long)st.bytes_out);
    if (st.why[0]) fprintf(stderr, " why=%s", st.why);
    fputc('\n', stderr);
    if (discard) {
        double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        fprintf(stderr, "decoded %.1f MB in %.3f s: %.0f MB/s\n", (double)st.bytes_out / 1e6, s,
                s > 0 ? (double)st.bytes_out / 1e6 / s : 0.0);
    }
    if (rc == 0 && (st.truncated || st.corrupt)) rc = 4;
    free(buf);
    clarity_decoder_close(d);
    return rc;
}
