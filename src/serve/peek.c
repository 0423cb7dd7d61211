/* The listing's cheap reads of a log, which never build a model:
 *  - the suffix of a grown plain log (an .inprogress file being appended to), read from where
 *    the last read stopped: of what the listing shows, only the application's end can arrive
 *    in appended events (its ids, name, user, start and Spark version come with the first
 *    events), so the suffix is scanned for SparkListenerApplicationEnd, and any event that
 *    would change the other fields sends the entry to a full read instead;
 *  - the head of a log, for the view ACLs of its environment (SparkListenerEnvironmentUpdate,
 *    among the first events), when the entry came from the store.
 * Spark writes "Event" as every line's first key (SHS's listing reads event-name prefixes the
 * same way), so a line is told by its first bytes without being parsed. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "event/json.h"
#include "event/lines.h"
#include "serve/serve_internal.h"

#define PREFIX 160                /* bytes of a line that name its event */
#define MAX_END_LINE (64u << 10)  /* an ApplicationEnd line is ~80 bytes; longer: not one */
/* Spark posts the environment before the application start, among the first events; the
 * search goes on past the start (a writer that orders them otherwise) up to this many lines,
 * so a restart finds what a whole read finds */
#define HEAD_LINES 400
#define END_NAME "SparkListenerApplicationEnd"
#define END_LEN (sizeof END_NAME - 1)

/* Whether the line's first bytes name the event: "Name" as JsonProtocol writes it, or
 * ".Name" ending a Jackson class name ("org.apache.spark.scheduler.Name"), which the loader
 * takes as the same event. */
static bool names(const char *p, size_t n, const char *event)
{
    char pat[64];
    int k = snprintf(pat, sizeof pat, "%s\"", event);
    if (k <= 0) return false;
    for (const char *q = p, *end = p + n; (q = memmem(q, (size_t)(end - q), pat, (size_t)k)); q++)
        if (q > p && (q[-1] == '"' || q[-1] == '.')) return true;
    return false;
}

/* Task lines appended, for the entry's task count (the larger of starts and ends). */
struct suffix_tasks { uint64_t starts, ends; };

/* What one complete (or final, unterminated) suffix line means for the listing row. */
static int suffix_line(const char *line, size_t len, size_t full_len, struct serve_entry *e, struct suffix_tasks *t)
{
    size_t n = len < PREFIX ? len : PREFIX;
    if (names(line, n, "SparkListenerTaskStart")) {
        t->starts++;
        return 0;
    }
    if (names(line, n, "SparkListenerTaskEnd")) {
        t->ends++;
        return 0;
    }
    if (names(line, n, "SparkListenerApplicationStart") || names(line, n, "SparkListenerLogStart") ||
        names(line, n, "SparkListenerEnvironmentUpdate"))
        return 1;   /* a field beyond the end moved: read the whole log */
    if (!names(line, n, "SparkListenerApplicationEnd")) return 0;
    if (full_len != len) return 1;   /* too long to be the event it says it is */
    char *buf = malloc(len + CJ_PADDING);
    cj_parser *p = clarity_cj_parser_new(len + CJ_PADDING);
    int rc = 1;
    if (buf && p) {
        memcpy(buf, line, len);
        memset(buf + len, ' ', CJ_PADDING);
        cj_val root;
        const char *why;
        int64_t ts;
        const char *ev;
        size_t evn;
        if (clarity_cj_parse(p, buf, len, &root, &why) != 0) rc = 0;   /* malformed: the loader skips it too */
        else if (!clarity_cj_get_str(root, "Event", &ev, &evn) || evn < END_LEN ||
                 memcmp(ev + evn - END_LEN, END_NAME, END_LEN) || (evn > END_LEN && ev[evn - END_LEN - 1] != '.'))
            rc = 0;   /* the name was in another field: not this event */
        else {
            /* as the loader: a Timestamp sets the end, an event without one changes nothing */
            if (clarity_cj_get_int(root, "Timestamp", &ts)) e->info.end_ms = ts;
            rc = 0;
        }
    }
    clarity_cj_parser_free(p);
    free(buf);
    return rc;
}

int clarity__serve_peek_suffix(const char *path, uint64_t from, struct serve_entry *e, uint64_t *next_offset)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t cap = 1u << 20;
    char *chunk = malloc(cap);
    char *line = malloc(MAX_END_LINE);
    if (!chunk || !line) {
        free(chunk);
        free(line);
        close(fd);
        return -1;
    }
    struct suffix_tasks tasks = {0};
    uint64_t pos = from, line_start = from;
    size_t llen = 0, lfull = 0;   /* bytes kept of the current line, and its length so far */
    int rc = 0;
    for (;;) {
        ssize_t r = pread(fd, chunk, cap, (off_t)pos);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            rc = -1;
            break;
        }
        if (r == 0) break;
        for (ssize_t i = 0; i < r && rc == 0; i++) {
            if (chunk[i] == '\n') {
                size_t kept = llen;
                while (kept && line[kept - 1] == '\r') kept--;
                rc = suffix_line(line, kept, lfull - (llen - kept), e, &tasks);
                line_start = pos + (uint64_t)i + 1;
                llen = lfull = 0;
                continue;
            }
            if (llen < MAX_END_LINE) line[llen++] = chunk[i];
            lfull++;
        }
        if (rc) break;
        pos += (uint64_t)r;
    }
    /* the last line without its newline: the loader reads it too (and counts it cut when it
     * does not parse); the next read starts at it again */
    if (rc == 0 && lfull) rc = suffix_line(line, llen, lfull, e, &tasks);
    e->tasks += tasks.starts > tasks.ends ? tasks.starts : tasks.ends;
    *next_offset = line_start;
    free(chunk);
    free(line);
    close(fd);
    return rc;
}

/* ---- the head: view ACLs of the environment ---- */

static char *prop(cj_val props, const char *key)
{
    const char *s;
    size_t n;
    cj_val v;
    if (clarity_cj_get(props, key, &v) && clarity_cj_str(v, &s, &n)) return strndup(s, n);
    return NULL;
}

int clarity__serve_peek_acls(const struct clarity_app_source *src, struct serve_acl_props *out)
{
    memset(out, 0, sizeof *out);
    if (!src->nfiles) return -1;
    struct clarity_error err = {0};
    struct clarity_decoder *d = clarity_decoder_open(src->files[0].path, src->files[0].codec, &err);
    if (!d) return -1;
    struct line_reader r;
    cj_parser *p = clarity_cj_parser_new(128u << 20);
    int rc = -1;
    if (p && clarity_line_reader_init(&r, d, 128u << 20) == 0) {
        char *ln;
        size_t len;
        rc = 0;   /* no environment in the head: no ACL lists beyond the owner and admins */
        for (int i = 0; i < HEAD_LINES; i++) {
            enum line_status st = clarity_line_reader_next(&r, &ln, &len, &err);
            if (st == LINE_EOF || st == LINE_IO_ERROR) break;
            if (st != LINE_OK && st != LINE_CUT) continue;
            size_t n = len < PREFIX ? len : PREFIX;
            if (!names(ln, n, "SparkListenerEnvironmentUpdate")) continue;
            cj_val root, props;
            const char *why;
            if (clarity_cj_parse(p, ln, len, &root, &why) == 0 && clarity_cj_get(root, "Spark Properties", &props)) {
                out->view = prop(props, "spark.ui.view.acls");
                out->view_groups = prop(props, "spark.ui.view.acls.groups");
                out->admin = prop(props, "spark.admin.acls");
                out->admin_groups = prop(props, "spark.admin.acls.groups");
            }
            break;
        }
        clarity_line_reader_free(&r);
    }
    clarity_cj_parser_free(p);
    clarity_decoder_close(d);
    return rc;
}
