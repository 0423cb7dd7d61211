/* The log4j and GC log parsers: the input as one executor log file (log4j lines of every
 * layout, Spark 4 JSON lines, GC records of JDK 8 and unified logging, YARN headers), read
 * as `clarity anomalies --logs` reads it; then each of its lines through the line parsers
 * one by one, and the whole input as one JDK 8 record. */
#include "clarity/logs.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_file(0, ".log", data, size);
    if (!path) return 0;
    struct clarity_error err = {0};
    struct clarity_logs l;
    clarity_logs_init(&l);
    clarity_logs_read_file(&l, path, size & 1 ? "3" : NULL, NULL, &err);
    clarity_logs_finish(&l);
    clarity_logs_free(&l);

    /* lines in buffers of their own size, so that a read past the end is seen */
    struct clarity_gc_parser *gp = malloc(sizeof *gp);
    if (!gp) return 0;
    clarity_gc_parser_init(gp);
    struct clarity_gc_rec rec;
    for (size_t i = 0; i < size;) {
        const uint8_t *nl = memchr(data + i, '\n', size - i);
        size_t len = nl ? (size_t)(nl - (data + i)) : size - i;
        char *line = malloc(len ? len : 1);
        if (!line) break;
        memcpy(line, data + i, len);
        struct clarity_l4j_line l4j;
        clarity_l4j_parse(line, len, &l4j);
        int64_t ms;
        bool has_ms;
        clarity_l4j_timestamp(line, len, &ms, &has_ms);
        clarity_gc_feed(gp, line, len, &rec);
        free(line);
        i += len + 1;
    }
    clarity_gc_finish(gp, &rec);
    free(gp);
    char *whole = malloc(size ? size : 1);
    if (whole) {
        memcpy(whole, data, size);
        clarity_gc_parse_jdk8(whole, size, &rec);
        free(whole);
    }
    return 0;
}
