#include "clarity/error.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int clarity_error_set(struct clarity_error *err, int code, const char *file, uint64_t line,
                      uint64_t offset, const char *fmt, ...)
{
    if (!err) return code;
    err->code = code;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->line = line;
    err->offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

void clarity_error_clear(struct clarity_error *err)
{
    if (err) memset(err, 0, sizeof *err);
}

const char *clarity_error_format(const struct clarity_error *err, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    /* "FILE: line N: byte B: message", the one form every command's errors take */
    if (err->file[0]) n += (size_t)snprintf(buf + n, cap - n, "%s: ", err->file);
    if (n < cap && err->line) n += (size_t)snprintf(buf + n, cap - n, "line %llu: ", (unsigned long long)err->line);
    /* a byte offset only where it says something: inside a line, or into the file; a problem
     * with the whole file (cannot open, empty) is "file: message" */
    if (n < cap && (err->line || err->offset))
        n += (size_t)snprintf(buf + n, cap - n, "byte %llu: ", (unsigned long long)err->offset);
    if (n < cap) snprintf(buf + n, cap - n, "%s", err->msg);
    return buf;
}

const char *clarity_status_name(int code)
{
    switch (code) {
    case CLARITY_OK: return "ok";
    case CLARITY_EIO: return "unreadable";
    case CLARITY_ECORRUPT: return "corrupt";
    case CLARITY_ETRUNC: return "truncated";
    case CLARITY_EFORMAT: return "not an event log";
    case CLARITY_ENOMEM: return "out of memory";
    case CLARITY_EUSAGE: return "usage";
    case CLARITY_ENOTFOUND: return "not found";
    }
    return "unknown";
}
