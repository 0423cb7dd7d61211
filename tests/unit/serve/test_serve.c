/* The server's parts that a curl test cannot see: the answer sink holding a small answer
 * whole, streaming a large one through a bounded buffer, and refusing or cutting past its
 * maximum, and the model cache's bounds (least recently used
 * evicted first, a model in use never freed, a new generation of a log loaded again). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <microhttpd.h>
#include <pthread.h>
#include "serve/serve_internal.h"

/* a writer thread's answer: 100,000 bytes (0-9 repeated), in writes of 1,000 */
static void *write_big(void *arg)
{
    struct serve_sink *k = arg;
    char piece[1000];
    for (int i = 0; i < 1000; i++) piece[i] = (char)('0' + i % 10);
    bool ok = true;
    for (int i = 0; i < 100 && ok; i++) ok = fwrite(piece, 1, sizeof piece, k->f) == sizeof piece;
    clarity__serve_sink_finish(k, ok);
    return NULL;
}

Test(serve_sink, whole_then_streamed_then_refused)
{
    /* at most the threshold: held whole, told complete (sent with a Content-Length) */
    struct serve_sink k;
    cr_assert_eq(clarity__serve_sink_open(&k, 64, 1000), 0);
    fputs("0123456789012345678901234567890123456789", k.f);   /* 40 bytes */
    clarity__serve_sink_finish(&k, true);
    cr_assert_not(clarity__serve_sink_wait(&k), "a small answer is not streamed");
    cr_assert_not(k.failed);
    cr_assert_eq(k.len, 40);
    cr_assert_eq(memcmp(k.mem, "0123456789", 10), 0);
    clarity__serve_sink_free(&k);

    /* past the threshold: streamed through a bounded buffer while the writer writes; every
     * byte arrives in order, then the end of the stream */
    cr_assert_eq(clarity__serve_sink_open(&k, 64, 0), 0);
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, write_big, &k), 0);
    cr_assert(clarity__serve_sink_wait(&k), "a large answer is streamed");
    size_t got = 0;
    bool in_order = true;
    char buf[4096];
    ssize_t n;
    while ((n = clarity__serve_sink_read(&k, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < n; i++) in_order &= buf[i] == (char)('0' + (got + (size_t)i) % 10);
        got += (size_t)n;
        cr_assert_leq(k.cap, (size_t)64 * 1024, "the buffer stays bounded");
    }
    pthread_join(t, NULL);
    cr_assert_eq(n, MHD_CONTENT_READER_END_OF_STREAM);
    cr_assert_eq(got, 100000);
    cr_assert(in_order);
    clarity__serve_sink_free(&k);

    /* past --max-response while held whole: the write fails (a 500) */
    cr_assert_eq(clarity__serve_sink_open(&k, 1000, 100), 0);
    for (int i = 0; i < 20; i++) fputs("0123456789", k.f);   /* 200 > max 100 */
    clarity__serve_sink_finish(&k, true);
    cr_assert_not(clarity__serve_sink_wait(&k));
    cr_assert(k.failed, "a write past the maximum fails");
    cr_assert(k.too_big);
    clarity__serve_sink_free(&k);

    /* past --max-response once streamed: the stream ends with an error (cut) */
    cr_assert_eq(clarity__serve_sink_open(&k, 64, 50000), 0);
    cr_assert_eq(pthread_create(&t, NULL, write_big, &k), 0);
    cr_assert(clarity__serve_sink_wait(&k));
    got = 0;
    while ((n = clarity__serve_sink_read(&k, buf, sizeof buf)) > 0) got += (size_t)n;
    pthread_join(t, NULL);
    cr_assert_eq(n, MHD_CONTENT_READER_END_WITH_ERROR);
    cr_assert_leq(got, 50000);
    cr_assert(k.too_big);
    clarity__serve_sink_free(&k);
}

static struct serve_entry entry(const char *rel)
{
    const char *root = getenv("CLARITY_ROOT");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root ? root : ".", rel);
    return (struct serve_entry){.path = strdup(path), .size = 1, .mtime_ns = 1, .ok = true};
}

Test(serve_cache, lru_bounds_in_use_and_generations)
{
    struct serve_cache c;
    clarity__serve_cache_init(&c, NULL, 1, (size_t)1 << 30);
    struct serve_entry a = entry("tests/data/mini-3x.json"), b = entry("tests/data/spark-1.2-local-1422981780767.json");
    struct clarity_load_options lo = {.threads = 1, .quiet = true};
    struct clarity_error err;
    struct serve_model *ma = clarity__serve_cache_get(&c, &a, &lo, &err);
    cr_assert_not_null(ma, "%s", err.msg);
    cr_assert_gt(ma->bytes, 1000, "a model's bytes are counted");
    /* in use: a second model does not evict it, the cache goes over its count for a while */
    struct serve_model *mb = clarity__serve_cache_get(&c, &b, &lo, &err);
    cr_assert_not_null(mb, "%s", err.msg);
    cr_assert_eq(c.n, 2);
    cr_assert_eq(c.evictions, 0);
    clarity__serve_cache_release(&c, ma);   /* a is now unused and the oldest: evicted */
    cr_assert_eq(c.n, 1);
    cr_assert_eq(c.evictions, 1);
    /* b again: a hit, no load */
    struct serve_model *mb2 = clarity__serve_cache_get(&c, &b, &lo, &err);
    cr_assert_eq(mb2, mb);
    cr_assert_eq(c.loads, 2);
    cr_assert_eq(c.hits, 1);
    clarity__serve_cache_release(&c, mb2);
    /* a new generation of b (the log grew): loaded again; the old one, in use, is freed when
     * its last request ends */
    b.size = 2;
    struct serve_model *mb3 = clarity__serve_cache_get(&c, &b, &lo, &err);
    cr_assert_not_null(mb3);
    cr_assert_neq(mb3, mb);
    cr_assert_eq(c.loads, 3);
    clarity__serve_cache_release(&c, mb);
    clarity__serve_cache_release(&c, mb3);
    cr_assert_eq(c.n, 1);
    /* a log that cannot be read: NULL with the reason, remembered for its generation */
    struct serve_entry bad = entry("tests/data/no-such-log.json");
    cr_assert_null(clarity__serve_cache_get(&c, &bad, &lo, &err));
    cr_assert_neq(err.code, CLARITY_OK);
    clarity__serve_cache_free(&c);
    free(a.path);
    free(b.path);
    free(bad.path);
}
