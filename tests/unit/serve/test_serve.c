/* The server's parts that a curl test cannot see: the answer sink spilling to a file past its
 * memory limit and refusing past its maximum, and the model cache's bounds (least recently used
 * evicted first, a model in use never freed, a new generation of a log loaded again). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "serve/serve_internal.h"

Test(serve_sink, memory_then_file_then_refused)
{
    struct serve_sink k;
    cr_assert_eq(clarity__serve_sink_open(&k, "/tmp", 64, 1000), 0);
    fputs("0123456789012345678901234567890123456789", k.f);   /* 40 bytes: memory */
    fflush(k.f);
    cr_assert_eq(k.fd, -1);
    cr_assert_eq(k.len, 40);
    fputs("0123456789012345678901234567890123456789", k.f);   /* 80 > 64: spilled */
    cr_assert_eq(clarity__serve_sink_close(&k), 0);
    cr_assert_geq(k.fd, 0);
    cr_assert_eq(k.len, 80);
    char buf[128] = {0};
    cr_assert_eq(pread(k.fd, buf, sizeof buf, 0), 80);
    cr_assert_eq(memcmp(buf, "0123456789", 10), 0);
    cr_assert_eq(memcmp(buf + 70, "0123456789", 10), 0);
    clarity__serve_sink_free(&k);

    cr_assert_eq(clarity__serve_sink_open(&k, "/tmp", 64, 100), 0);
    for (int i = 0; i < 20; i++) fputs("0123456789", k.f);   /* 200 > max 100 */
    cr_assert_neq(clarity__serve_sink_close(&k), 0, "a write past the maximum fails");
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
