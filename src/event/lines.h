/* Splits a decoded stream into whole lines. Lines are handed out in place (no copy) with
 * CJ_PADDING readable bytes after each, as simdjson needs. */
#ifndef CLARITY_EVENT_LINES_H
#define CLARITY_EVENT_LINES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/codec.h"

struct line_reader {
    struct clarity_decoder *dec;
    char *buf;
    size_t cap, start, end;      /* unread bytes are buf[start, end) */
    size_t max_line;             /* longer lines are skipped and reported */
    bool eof;
    uint64_t line_no;            /* of the last line returned */
    uint64_t offset;             /* decoded byte offset of the last line returned */
    uint64_t consumed;           /* decoded bytes before buf[start] */
};

enum line_status { LINE_OK, LINE_EOF, LINE_TOO_LONG, LINE_CUT, LINE_IO_ERROR };

int clarity_line_reader_init(struct line_reader *r, struct clarity_decoder *dec, size_t max_line);
/* Next line without its '\n' (and '\r'). LINE_CUT: the stream ended inside a line (returned
 * in *line so the caller can count it). LINE_TOO_LONG: the line was skipped. */
enum line_status clarity_line_reader_next(struct line_reader *r, char **line, size_t *len,
                                  struct clarity_error *err);
void clarity_line_reader_free(struct line_reader *r);

#endif
