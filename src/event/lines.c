#include "event/lines.h"
#include <stdlib.h>
#include <string.h>
#include "event/json.h"

#define READ_CHUNK (1u << 20)

int clarity_line_reader_init(struct line_reader *r, struct clarity_decoder *dec, size_t max_line)
{
    memset(r, 0, sizeof *r);
    r->dec = dec;
    r->max_line = max_line;
    r->cap = 4u << 20;
    r->buf = malloc(r->cap + CJ_PADDING);
    return r->buf ? 0 : -1;
}

void clarity_line_reader_free(struct line_reader *r)
{
    free(r->buf);
    r->buf = NULL;
}

/* Moves the unread tail to the front and reads more; grows the buffer only while a single
 * line is longer than it (up to max_line). Returns bytes read, 0 at EOF, -1 on error. */
static long refill(struct line_reader *r, struct clarity_error *err)
{
    if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->consumed += r->start;
        r->end -= r->start;
        r->start = 0;
    }
    if (r->cap - r->end < READ_CHUNK / 4) {
        size_t ncap = r->cap * 2;
        char *nb = realloc(r->buf, ncap + CJ_PADDING);
        if (!nb) return -1;
        r->buf = nb;
        r->cap = ncap;
    }
    long n = clarity_decoder_read(r->dec, r->buf + r->end, r->cap - r->end, err);
    if (n > 0) r->end += (size_t)n;
    return n;
}

enum line_status clarity_line_reader_next(struct line_reader *r, char **line, size_t *len,
                                  struct clarity_error *err)
{
    size_t scanned = r->start;
    for (;;) {
        char *nl = memchr(r->buf + scanned, '\n', r->end - scanned);
        if (nl) {
            size_t ls = r->start, le = (size_t)(nl - r->buf);
            r->start = le + 1;
            r->line_no++;
            r->offset = r->consumed + ls;
            if (le - ls > r->max_line) return LINE_TOO_LONG;
            if (le > ls && r->buf[le - 1] == '\r') le--;
            *line = r->buf + ls;
            *len = le - ls;
            memset(r->buf + le, ' ', 1);  /* simdjson may read past the end; keep it harmless */
            return LINE_OK;
        }
        scanned = r->end;
        if (r->end - r->start > r->max_line) {
            /* drop the over-long line's head and keep skipping until its newline */
            r->consumed += r->end - r->start;
            r->start = r->end = scanned = 0;
            for (;;) {
                long n = refill(r, err);
                if (n < 0) return LINE_IO_ERROR;
                if (n == 0) {
                    r->eof = true;
                    r->line_no++;
                    return LINE_TOO_LONG;
                }
                char *p = memchr(r->buf, '\n', r->end);
                if (p) {
                    r->start = (size_t)(p - r->buf) + 1;
                    r->line_no++;
                    r->offset = r->consumed;
                    return LINE_TOO_LONG;
                }
                r->consumed += r->end;
                r->end = 0;
            }
        }
        if (r->eof) break;
        size_t before = r->start;
        long n = refill(r, err);
        scanned -= before;
        if (n < 0) return LINE_IO_ERROR;
        if (n == 0) r->eof = true;
    }
    if (r->start == r->end) return LINE_EOF;
    /* the stream ended inside a line */
    r->line_no++;
    r->offset = r->consumed + r->start;
    *line = r->buf + r->start;
    *len = r->end - r->start;
    memset(r->buf + r->end, ' ', CJ_PADDING);
    r->start = r->end;
    return LINE_CUT;
}
