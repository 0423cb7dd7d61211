/* The read-ahead thread must hand out exactly the lines the plain reader does. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/codec.h"
#include "event/line_pipe.h"

struct got { char *text; size_t len; uint64_t no, off; enum line_status st; };

static size_t collect(const char *path, bool threaded, size_t max_line, struct got *out, size_t cap)
{
    struct clarity_error err = {0};
    struct clarity_decoder *d = clarity_decoder_open(path, CLARITY_CODEC_UNKNOWN, &err);
    cr_assert_not_null(d, "%s", err.msg);
    struct line_pipe *p;
    cr_assert_eq(clarity_line_pipe_start(&p, d, max_line, threaded), 0);
    size_t n = 0;
    for (;;) {
        char *line;
        size_t len;
        uint64_t no, off;
        enum line_status st = clarity_line_pipe_next(p, &line, &len, &no, &off, &err);
        if (st == LINE_EOF) break;
        cr_assert_lt(n, cap);
        out[n].text = (st == LINE_OK || st == LINE_CUT) ? strndup(line, len) : NULL;
        out[n].len = (st == LINE_OK || st == LINE_CUT) ? len : 0;
        out[n].no = no;
        out[n].off = off;
        out[n].st = st;
        n++;
    }
    cr_assert_eq(clarity_line_pipe_bytes(p) > 0, true);
    clarity_line_pipe_free(p);
    clarity_decoder_close(d);
    return n;
}

Test(line_pipe, same_lines_threaded_or_not)
{
    char path[] = "/tmp/clarity-pipe-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    /* 200k lines over several 4 MiB batches, CRLF, blank and over-long lines, a cut last line */
    for (int i = 0; i < 200000; i++) {
        if (i % 5000 == 1) fputs("\n", f);
        else if (i % 7777 == 3) {
            fputc('{', f);
            for (int k = 0; k < 3000; k++) fputc('x', f);
            fputs("}\n", f);
        } else fprintf(f, "{\"Event\":\"E\",\"i\":%d}%s\n", i, i % 3 ? "" : "\r");
    }
    fputs("{\"Event\":\"cut", f);
    fclose(f);
    size_t cap = 210000;
    struct got *a = calloc(cap, sizeof *a), *b = calloc(cap, sizeof *b);
    size_t na = collect(path, false, 2048, a, cap), nb = collect(path, true, 2048, b, cap);
    remove(path);
    cr_assert_eq(na, 200001);
    cr_assert_eq(na, nb);
    size_t too_long = 0;
    for (size_t i = 0; i < na; i++) {
        cr_assert_eq(a[i].st, b[i].st, "line %zu", i);
        cr_assert_eq(a[i].no, b[i].no);
        cr_assert_eq(a[i].off, b[i].off);
        cr_assert_eq(a[i].len, b[i].len);
        if (a[i].text) cr_assert_eq(memcmp(a[i].text, b[i].text, a[i].len), 0);
        if (a[i].st == LINE_TOO_LONG) too_long++;
        free(a[i].text);
        free(b[i].text);
    }
    cr_assert_eq(too_long, 26);
    cr_assert_eq(a[na - 1].st, LINE_CUT);
    free(a);
    free(b);
}
