/* Spark 4 structured logging (spark.log.structuredLogging.enabled): one JSON object a line,
 * {"ts":"2024-06-01T10:00:00.123Z","level":"INFO","msg":"...","context":{...},"logger":"..."}.
 * The message is the same text as the plain layout, so the plain templates apply to it. */
#include <stdlib.h>
#include <string.h>
#include "clarity/logs.h"
#include "event/json.h"

int clarity_l4j_parse_message(const char *msg, struct clarity_l4j_line *o);

static void copy(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap) n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = 0;
}

int clarity_l4j_parse_json(const char *line, size_t len, struct clarity_l4j_line *o)
{
    cj_parser *p = clarity_cj_parser_new(len + 1);
    char *buf = malloc(len + CJ_PADDING);
    int kind = CLARITY_L4J_NONE;
    if (!p || !buf) goto out;
    memcpy(buf, line, len);
    memset(buf + len, 0, CJ_PADDING);
    cj_val root;
    const char *why, *s;
    size_t n;
    if (clarity_cj_parse(p, buf, len, &root, &why) || clarity_cj_type(root) != CJ_OBJECT) goto out;
    if (!clarity_cj_get_str(root, "ts", &s, &n) || !clarity_l4j_timestamp(s, n, &o->ts_ms, &o->ts_has_ms)) goto out;
    o->json = true;
    if (clarity_cj_get_str(root, "level", &s, &n)) copy(o->level, sizeof o->level, s, n);
    if (clarity_cj_get_str(root, "logger", &s, &n)) {
        const char *dot = memrchr(s, '.', n);   /* %c{1}: the short class name */
        if (dot) n -= (size_t)(dot + 1 - s), s = dot + 1;
        copy(o->logger, sizeof o->logger, s, n);
    }
    kind = CLARITY_L4J_OTHER;
    if (clarity_cj_get_str(root, "msg", &s, &n)) {
        char *m = malloc(n + 1);
        if (!m) goto out;
        memcpy(m, s, n);
        m[n] = 0;
        kind = clarity_l4j_parse_message(m, o);
        free(m);
    }
    cj_val ctx;
    if (clarity_cj_get(root, "context", &ctx) && clarity_cj_get_str(ctx, "executor_id", &s, &n) && !o->executor[0])
        copy(o->executor, sizeof o->executor, s, n);
out:
    free(buf);
    if (p) clarity_cj_parser_free(p);
    return o->kind = kind;
}
