/* decode_many: tests/tools/decode over many files in one process. Reads lines "IN OUT" on
 * stdin; for each, writes IN's decoded bytes to OUT, the decoder's status line (decode's
 * format, on its own line) to OUT.err and decode's exit code (0 clean, 4 truncated or corrupt,
 * 3 unreadable) to OUT.rc. Exit 0 once every line is done, 2 on a malformed line.
 *
 * Why: tests/codec decodes about 420 cut files under ASan+UBSan, and a sanitizer program's
 * start and exit (shadow memory, leak scan) cost more CPU than decoding a cut file; one
 * process decodes them all. The sanitizers check each decode as they would alone; when this
 * process fails, the suite decodes each file alone with decode so the failure names it.
 * The hint is always "unknown", as decode gives a file without an extension (the cut files
 * have none): the codec is sniffed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/codec.h"

static int decode_one(const char *in, const char *out, char *buf, size_t cap)
{
    char path[4200], msg[1200];
    struct clarity_error err = {0};
    snprintf(path, sizeof path, "%s.err", out);
    FILE *ferr = fopen(path, "w");
    FILE *fout = fopen(out, "w");
    if (!ferr || !fout) {
        if (ferr) fclose(ferr);
        if (fout) fclose(fout);
        return 3;
    }
    int rc = 0;
    struct clarity_decoder *d = clarity_decoder_open(in, CLARITY_CODEC_UNKNOWN, &err);
    if (!d) {
        fprintf(ferr, "decode: %s (%s)\n", clarity_error_format(&err, msg, sizeof msg),
                clarity_status_name(err.code));
        rc = 3;
    } else {
        long n;
        while ((n = clarity_decoder_read(d, buf, cap, &err)) > 0)
            if (fwrite(buf, 1, (size_t)n, fout) != (size_t)n) {
                fprintf(ferr, "decode: %s: write failed\n", out);
                rc = 3;
                break;
            }
        if (n < 0) {
            fprintf(ferr, "decode: %s\n", clarity_error_format(&err, msg, sizeof msg));
            rc = 3;
        }
        struct clarity_decoder_status st;
        clarity_decoder_status(d, &st);
        fprintf(ferr,
                "codec=%s hint=%s truncated=%d corrupt=%d damage_offset=%llu bytes_in=%llu "
                "bytes_out=%llu",
                clarity_codec_name(st.codec), clarity_codec_name(st.hint), st.truncated,
                st.corrupt, (unsigned long long)st.damage_offset,
                (unsigned long long)st.bytes_in, (unsigned long long)st.bytes_out);
        if (st.why[0]) fprintf(ferr, " why=%s", st.why);
        fputc('\n', ferr);
        if (rc == 0 && (st.truncated || st.corrupt)) rc = 4;
        clarity_decoder_close(d);
    }
    fclose(fout);
    fclose(ferr);
    snprintf(path, sizeof path, "%s.rc", out);
    FILE *frc = fopen(path, "w");
    if (!frc) return 3;
    fprintf(frc, "%d\n", rc);
    fclose(frc);
    return rc;
}

int main(void)
{
    size_t cap = (size_t)1 << 20;
    char *buf = malloc(cap);
    char line[8400], in[4096], out[4096];
    if (!buf) return 3;
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "%4095s %4095s", in, out) != 2) {
            fprintf(stderr, "decode_many: malformed line: %s", line);
            free(buf);
            return 2;
        }
        decode_one(in, out, buf, cap);
    }
    free(buf);
    return 0;
}
