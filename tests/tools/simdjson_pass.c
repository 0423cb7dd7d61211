/* simdjson_pass FILE: the floor for any event-log reader built on simdjson's DOM. It does the
 * least such a reader must do (read, split lines, parse each line, look at "Event") and
 * nothing else, so bench/parse.sh can tell parsing cost apart from clarity's own model work.
 * Prints "lines=N bytes=N events=N errors=N". */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "event/json.h"

#define CHUNK ((size_t)16 << 20)        /* big reads keep syscall cost out of the measurement */
#define MAX_DOC ((size_t)128 << 20)     /* same ceiling as clarity's loader */

struct counts { uint64_t lines, bytes, events, errors; };

/* Parses one line; line[len .. len+CJ_PADDING) must be readable. */
static void parse_line(cj_parser *p, const char *line, size_t len, struct counts *c)
{
    if (len && line[len - 1] == '\r') len--;
    if (len == 0) return;
    c->lines++;
    cj_val root;
    const char *why, *ev;
    size_t evlen;
    if (clarity_cj_parse(p, line, len, &root, &why) != 0) { c->errors++; return; }
    if (clarity_cj_get_str(root, "Event", &ev, &evlen) && evlen) c->events++;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: simdjson_pass FILE\n"); return 2; }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) { fprintf(stderr, "simdjson_pass: %s: %s\n", argv[1], strerror(errno)); return 1; }
    cj_parser *p = clarity_cj_parser_new(MAX_DOC);
    size_t cap = CHUNK;
    /* The padding lets the last line of any read be parsed in place, without a copy. */
    char *buf = malloc(cap + CJ_PADDING);
    if (!p || !buf) { fprintf(stderr, "simdjson_pass: out of memory\n"); return 1; }

    struct counts c = {0};
    size_t have = 0;   /* bytes in buf[0, have), none of them a complete line */
    int rc = 0;
    for (;;) {
        if (have == cap) {   /* one line longer than the buffer: grow rather than split it */
            char *nb = realloc(buf, cap * 2 + CJ_PADDING);
            if (!nb) { fprintf(stderr, "simdjson_pass: out of memory\n"); rc = 1; break; }
            buf = nb;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + have, cap - have);
        if (n < 0) {
            if (errno == EINTR) continue;
            fprintf(stderr, "simdjson_pass: %s: %s\n", argv[1], strerror(errno));
            rc = 1;
            break;
        }
        if (n == 0) {
            if (have) {   /* last line without a trailing newline */
                memset(buf + have, 0, CJ_PADDING);
                parse_line(p, buf, have, &c);
            }
            break;
        }
        c.bytes += (uint64_t)n;
        have += (size_t)n;
        /* simdjson reads past the line end, into the next line or the padding; both are
         * readable, which is all it needs. */
        memset(buf + have, 0, CJ_PADDING);
        char *s = buf, *end = buf + have, *nl;
        while ((nl = memchr(s, '\n', (size_t)(end - s))) != NULL) {
            parse_line(p, s, (size_t)(nl - s), &c);
            s = nl + 1;
        }
        have = (size_t)(end - s);
        memmove(buf, s, have);
    }
    close(fd);
    free(buf);
    clarity_cj_parser_free(p);
    printf("lines=%" PRIu64 " bytes=%" PRIu64 " events=%" PRIu64 " errors=%" PRIu64 "\n",
           c.lines, c.bytes, c.events, c.errors);
    return rc ? rc : (c.errors ? 3 : 0);
}
