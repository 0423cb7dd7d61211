/* Where an answer is written before it is sent: memory while it is small, then an unlinked
 * temporary file, so a stage list with every task (larger than the log, at times) is streamed
 * by the kernel from disk instead of being held in the server's memory; past max bytes the
 * writes fail and the request answers 500. The REST layer writes to a FILE *, so the sink is
 * one (fopencookie). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "serve/serve_internal.h"

static int spill(struct serve_sink *k)
{
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/clarity-serve-XXXXXX", k->tmp_dir);
    int fd = mkstemp(tmpl);
    if (fd < 0) return -1;
    unlink(tmpl);
    size_t off = 0;
    while (off < k->len) {
        ssize_t w = write(fd, k->mem + off, k->len - off);
        if (w < 0) {
            if (errno == EINTR) continue;
            close(fd);
            return -1;
        }
        off += (size_t)w;
    }
    free(k->mem);
    k->mem = NULL;
    k->cap = 0;
    k->fd = fd;
    return 0;
}

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
    struct serve_sink *k = cookie;
    if (k->len + n > k->max) {
        k->too_big = true;
        errno = EFBIG;
        return -1;
    }
    if (k->fd < 0 && k->len + n > k->mem_limit && spill(k) != 0) return -1;
    if (k->fd >= 0) {
        size_t off = 0;
        while (off < n) {
            ssize_t w = write(k->fd, buf + off, n - off);
            if (w < 0) {
                if (errno == EINTR) continue;
                return -1;
            }
            off += (size_t)w;
        }
    } else {
        if (k->len + n > k->cap) {
            size_t cap = k->cap ? k->cap * 2 : 64 * 1024;
            while (cap < k->len + n) cap *= 2;
            char *m = realloc(k->mem, cap);
            if (!m) return -1;
            k->mem = m;
            k->cap = cap;
        }
        memcpy(k->mem + k->len, buf, n);
    }
    k->len += n;
    return (ssize_t)n;
}

int clarity__serve_sink_open(struct serve_sink *k, const char *tmp_dir, size_t mem_limit, size_t max)
{
    memset(k, 0, sizeof *k);
    k->fd = -1;
    k->tmp_dir = tmp_dir;
    k->mem_limit = mem_limit;
    k->max = max;
    cookie_io_functions_t io = {.write = sink_write};
    k->f = fopencookie(k, "w", io);
    return k->f ? 0 : -1;
}

int clarity__serve_sink_close(struct serve_sink *k)
{
    int rc = 0;
    if (k->f) {
        if (fclose(k->f) != 0) rc = -1;
        k->f = NULL;
    }
    return rc;
}

void clarity__serve_sink_free(struct serve_sink *k)
{
    clarity__serve_sink_close(k);
    free(k->mem);
    if (k->fd >= 0) close(k->fd);
    k->mem = NULL;
    k->fd = -1;
}
