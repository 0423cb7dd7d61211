/* Where an answer goes while it is written: the REST layer writes to a FILE * (fopencookie)
 * on the request's writer thread. The body is kept in memory while it is at most the stream
 * threshold, and sent with a Content-Length once complete, so small answers and every error
 * status are as before. Past the threshold the answer is streamed: the HTTP side is told
 * (clarity__serve_sink_wait returns true), sends the status and headers with a chunked body
 * read from this sink (clarity__serve_sink_read), and the writer blocks while the buffer is
 * full, so a 25 GB stage list with every task costs the server one buffer, not the answer.
 *
 * The decision is made on size alone, after the REST layer chose the status: an error found
 * before the threshold is still its own status; one found after the first byte was sent cannot
 * change the status, so the stream ends without its last chunk (the client sees a cut chunked
 * body, as a client of SHS does when Jetty aborts a committed response) and the server logs
 * it. --max-response, when set, cuts a streamed answer the same way. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>
#include "serve/serve_internal.h"

/* the smallest buffer a streamed answer goes through (a threshold below it still streams) */
#define MIN_RING ((size_t)64 * 1024)

static void wake_reader(struct serve_sink *k)
{
    /* a reader without a connection (clarity__serve_sink_read's unit-test form) waits on the
     * condition: without this broadcast a writer that filled the buffer and a reader that
     * waited for data before it came both slept for ever (seen as a hung unit test when the
     * suites ran one process each) */
    pthread_cond_broadcast(&k->cv);
    /* the HTTP side suspended its connection when the buffer was empty: data or the end is
     * there now */
    if (k->suspended && k->conn) {
        k->suspended = false;
        MHD_resume_connection(k->conn);
    }
}

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
    struct serve_sink *k = cookie;
    pthread_mutex_lock(&k->mu);
    /* fopencookie's contract: the bytes taken, fewer on error (never negative: glibc would
     * take -1 as a huge count) */
    size_t taken = 0;
    bool failed = false;
    if (k->gone) {
        errno = EPIPE;
        failed = true;
    } else if (k->max && k->total + n > k->max) {
        k->too_big = true;
        errno = EFBIG;
        failed = true;
    } else if (!k->streaming && k->len + n > k->threshold) {
        /* past the threshold: the answer is streamed from now on */
        k->streaming = true;
        pthread_cond_broadcast(&k->cv);
        if (k->cap < MIN_RING) {
            char *m = realloc(k->mem, MIN_RING);
            if (m) {
                k->mem = m;
                k->cap = MIN_RING;
            } else {
                failed = true;
            }
        }
    }
    while (!failed && n) {
        if (!k->streaming && k->len + n > k->cap) {
            size_t cap = k->cap ? k->cap * 2 : 64 * 1024;
            while (cap < k->len + n) cap *= 2;
            char *m = realloc(k->mem, cap);
            if (!m) {
                failed = true;
                break;
            }
            k->mem = m;
            k->cap = cap;
        }
        if (k->streaming && k->off && k->len + n > k->cap) {
            memmove(k->mem, k->mem + k->off, k->len - k->off);
            k->len -= k->off;
            k->off = 0;
        }
        size_t room = k->cap - k->len, c = n < room ? n : room;
        if (!c) {
            /* full: wait for the HTTP side to send some (or the client to go) */
            wake_reader(k);
            pthread_cond_wait(&k->cv, &k->mu);
            if (k->gone) {
                errno = EPIPE;
                failed = true;
            }
            continue;
        }
        memcpy(k->mem + k->len, buf, c);
        k->len += c;
        k->total += c;
        buf += c;
        n -= c;
        taken += c;
        if (k->streaming) wake_reader(k);
    }
    pthread_mutex_unlock(&k->mu);
    return (ssize_t)taken;
}

int clarity__serve_sink_open(struct serve_sink *k, size_t threshold, size_t max)
{
    memset(k, 0, sizeof *k);
    k->threshold = threshold;
    k->max = max;
    if (pthread_mutex_init(&k->mu, NULL) != 0) return -1;
    if (pthread_cond_init(&k->cv, NULL) != 0) {
        pthread_mutex_destroy(&k->mu);
        return -1;
    }
    cookie_io_functions_t io = {.write = sink_write};
    k->f = fopencookie(k, "w", io);
    if (!k->f) {
        pthread_cond_destroy(&k->cv);
        pthread_mutex_destroy(&k->mu);
        return -1;
    }
    return 0;
}

void clarity__serve_sink_finish(struct serve_sink *k, bool ok)
{
    /* the REST layer does not stop at a failed write: the stream's error flag tells */
    bool write_failed = ferror(k->f) != 0;
    write_failed |= fclose(k->f) != 0;
    pthread_mutex_lock(&k->mu);
    k->f = NULL;
    k->finished = true;
    k->failed = !ok || write_failed;
    pthread_cond_broadcast(&k->cv);
    wake_reader(k);
    pthread_mutex_unlock(&k->mu);
}

bool clarity__serve_sink_wait(struct serve_sink *k)
{
    pthread_mutex_lock(&k->mu);
    while (!k->streaming && !k->finished) pthread_cond_wait(&k->cv, &k->mu);
    bool streaming = k->streaming;
    pthread_mutex_unlock(&k->mu);
    return streaming;
}

ssize_t clarity__serve_sink_read(struct serve_sink *k, char *buf, size_t max)
{
    pthread_mutex_lock(&k->mu);
    /* without a connection to put to sleep (a unit test), wait here for data or the end */
    while (!k->conn && k->len == k->off && !k->finished && !k->cut) pthread_cond_wait(&k->cv, &k->mu);
    ssize_t n;
    size_t avail = k->len - k->off;
    if (k->cut && !k->finished) {
        n = MHD_CONTENT_READER_END_WITH_ERROR;
    } else if (avail) {
        n = (ssize_t)(avail < max ? avail : max);
        memcpy(buf, k->mem + k->off, (size_t)n);
        k->off += (size_t)n;
        if (k->off == k->len) k->off = k->len = 0;
        pthread_cond_broadcast(&k->cv);   /* room for the writer */
    } else if (k->finished || k->cut) {
        n = k->failed || !k->finished ? MHD_CONTENT_READER_END_WITH_ERROR : MHD_CONTENT_READER_END_OF_STREAM;
    } else {
        /* nothing yet: the connection sleeps until the writer adds some (returning 0 without
         * suspending would make libmicrohttpd call again at once, a busy loop) */
        k->suspended = true;
        MHD_suspend_connection(k->conn);
        n = 0;
    }
    pthread_mutex_unlock(&k->mu);
    return n;
}

void clarity__serve_sink_gone(struct serve_sink *k)
{
    pthread_mutex_lock(&k->mu);
    k->gone = true;
    k->conn = NULL;
    k->suspended = false;
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->mu);
}

void clarity__serve_sink_cut(struct serve_sink *k)
{
    pthread_mutex_lock(&k->mu);
    k->cut = true;
    wake_reader(k);
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->mu);
}

void clarity__serve_sink_free(struct serve_sink *k)
{
    if (k->f) fclose(k->f);
    free(k->mem);
    pthread_cond_destroy(&k->cv);
    pthread_mutex_destroy(&k->mu);
    memset(k, 0, sizeof *k);
}
