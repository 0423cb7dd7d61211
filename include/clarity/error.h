/* Errors carry where they happened (file, line, byte offset) so every message can name them. */
#ifndef CLARITY_ERROR_H
#define CLARITY_ERROR_H
#include <stddef.h>
#include <stdint.h>

enum clarity_status {
    CLARITY_OK = 0,
    CLARITY_EIO,        /* cannot open or read */
    CLARITY_ECORRUPT,   /* bytes that cannot be decoded */
    CLARITY_ETRUNC,     /* stream ends early; data before the cut is usable */
    CLARITY_EFORMAT,    /* decodes, but is not an event log */
    CLARITY_ENOMEM,
    CLARITY_EUSAGE,
    CLARITY_ENOTFOUND,  /* nothing usable found (no logs, unknown id, ...) */
};

struct clarity_error {
    int code;               /* enum clarity_status */
    char file[512];         /* file the problem is in, "" if none */
    uint64_t line;          /* 1-based line in the decoded text, 0 if unknown */
    uint64_t offset;        /* byte offset (decoded text for lines, compressed file for codecs) */
    char msg[512];
};

/* Fills err (if not NULL) and returns code, so callers can `return clarity_error_set(...)`. */
int clarity_error_set(struct clarity_error *err, int code, const char *file, uint64_t line,
                      uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
void clarity_error_clear(struct clarity_error *err);
/* "file: line N: byte B: message" (parts omitted when unknown). */
const char *clarity_error_format(const struct clarity_error *err, char *buf, size_t cap);
const char *clarity_status_name(int code);

#endif
