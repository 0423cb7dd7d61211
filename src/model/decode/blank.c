/* Parts of TaskEnd lines that lean loads blank out before parsing (see load.c). */
#include "model/decode/blank.h"
#include <stdlib.h>
#include <string.h>

/* When task accumulables are not wanted, their array (about a third of a TaskEnd line) is
 * blanked before parsing, so simdjson does not build it. Only for Spark 3.0+ logs: earlier
 * ones keep the peak execution memory only there. */
bool clarity_blank_spark3(const char *v)
{
    return v[0] >= '3' && v[0] <= '9' && v[1] == '.';
}

/* The first occurrence of needle in hay (as the C library's memmem finds it), found by
 * jumping with memchr between occurrences of needle[1] (the key's first letter, after its
 * quote), which are few in a line: the library's two-way search walked every byte of every
 * TaskEnd line, about a tenth of a load's instructions on logs of small tasks. */
static const char *find_marker(const char *hay, size_t len, const char *needle, size_t nlen)
{
    if (nlen < 2 || len < nlen) return NULL;
    const char *end = hay + len;
    for (const char *p = hay + 1; p < end && (p = memchr(p, needle[1], (size_t)(end - p))); p++) {
        if ((size_t)(end - (p - 1)) < nlen) return NULL;
        if (p[-1] == needle[0] && memcmp(p - 1, needle, nlen) == 0) return p - 1;
    }
    return NULL;
}

/* "Accumulables" is the last key of Task Info, so its array ends where Task Info ends and the
 * next TaskEnd key begins. Returns the array's [open, close] bytes, or false. The marker cannot
 * occur inside a string (its quote would be escaped); should a future writer put it elsewhere,
 * the blanked line would not parse and the caller restores it. */
bool clarity_blank_find_accumulables(const char *line, size_t len, size_t *open, size_t *close)
{
    static const char ev[] = "{\"Event\":\"SparkListenerTaskEnd\"";
    static const char key[] = "\"Accumulables\":[";
    static const char end[] = "]},\"Task ";
    if (len < sizeof ev || memcmp(line, ev, sizeof ev - 1) != 0) return false;
    const char *k = find_marker(line, len, key, sizeof key - 1);
    if (!k) return false;
    *open = (size_t)(k - line) + sizeof key - 2;
    const char *e = find_marker(line + *open, len - *open, end, sizeof end - 1);
    if (!e) return false;
    *close = (size_t)(e - line);
    return *close > *open + 1;
}

static bool plain_name(const char *s)
{
    if (!*s) return false;   /* also what a missing or non-string Name reads as */
    for (; *s; s++)
        if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20) return false;
    return true;
}

void clarity_blank_names_init(struct blank_names *b, const char *const *names, size_t n)
{
    memset(b, 0, sizeof *b);
    b->plain = n <= BLANK_NAMES_MAX;
    for (size_t k = 0; k < n && b->plain; k++) {
        b->plain = plain_name(names[k]);
        b->s[k] = names[k];
        b->len[k] = strlen(names[k]);
    }
    b->n = n;
}

bool clarity_blank_names_absent(const char *line, size_t len, const struct blank_names *b)
{
    static const char ev[] = "{\"Event\":\"SparkListenerTaskEnd\"";
    static const char key[] = "Name\":";   /* after its opening quote */
    if (!b->n || len < sizeof ev || memcmp(line, ev, sizeof ev - 1) != 0) return true;   /* no task accumulables */
    if (!b->plain) return false;
    /* the whole line: only accumulables have "Name" keys, and a look at every one is cheaper
     * than finding where the accumulables are */
    const char *p = line, *end = line + len;
    if (memchr(p, '\\', len)) return false;
    /* every "Name" key: found by its N (rare elsewhere), then checked */
    for (p++; p < end && (p = memchr(p, 'N', (size_t)(end - p))); p++) {
        if (p[-1] != '"' || (size_t)(end - p) < sizeof key - 1 + 1 || memcmp(p, key, sizeof key - 1) != 0) {
            if ((size_t)(end - p) >= 5 && !memcmp(p, "Name\"", 5) && p[-1] == '"') return false;   /* "Name" not as a key */
            continue;
        }
        p += sizeof key - 1;
        if (*p != '"') return false;   /* a Name that is no plain string */
        const char *s = p + 1, *q = memchr(s, '"', (size_t)(end - s));
        if (!q) return false;
        size_t l = (size_t)(q - s);
        for (size_t k = 0; k < b->n; k++)
            if (b->len[k] == l && !memcmp(b->s[k], s, l)) return false;
        p = q;
    }
    return true;
}

/* "Task Executor Metrics" is a flat object of numbers: its end is the next '}'. */
/* Spark writes "Task Executor Metrics" after Task Info, so a search may start at `from`. */
static bool find_executor_metrics_from(const char *line, size_t len, size_t from, size_t *open, size_t *close)
{
    static const char ev[] = "{\"Event\":\"SparkListenerTaskEnd\"";
    static const char key[] = "\"Task Executor Metrics\":{";
    if (len < sizeof ev || memcmp(line, ev, sizeof ev - 1) != 0 || from > len) return false;
    const char *k = find_marker(line + from, len - from, key, sizeof key - 1);
    if (!k) return false;
    *open = (size_t)(k - line) + sizeof key - 2;
    const char *e = memchr(line + *open, '}', len - *open);
    if (!e) return false;
    *close = (size_t)(e - line);
    return *close > *open + 1;
}


bool clarity_blank_find_executor_metrics(const char *line, size_t len, size_t *open, size_t *close)
{
    return find_executor_metrics_from(line, len, 0, open, close);
}

static void blank_range(char *line, size_t open, size_t close, struct blank_undo *u, int k)
{
    u->open[k] = open;
    u->close[k] = close;
    u->saved[k] = malloc(close - open - 1);
    if (!u->saved[k]) return;   /* no copy, no blanking: the line is parsed whole */
    memcpy(u->saved[k], line + open + 1, close - open - 1);
    memset(line + open + 1, ' ', close - open - 1);
}

/* The closing quote of the string opening at line[i], or close when there is none before it. */
static size_t string_end(const char *line, size_t i, size_t close)
{
    for (size_t from = i + 1;;) {
        const char *q = memchr(line + from, '"', close - from);
        if (!q) return close;
        size_t e = (size_t)(q - line), bs = 0;
        while (e - bs > i + 1 && line[e - bs - 1] == '\\') bs++;
        if (bs % 2 == 0) return e;   /* not escaped */
        from = e + 1;
    }
}

/* A scan of the array's text that follows strings (escapes included) and nesting, and looks
 * for the two markers only among an element's own members, so a marker inside a string or
 * a nested value never counts. Anything but an object element is shown. It runs on nearly
 * every TaskEnd, so it jumps from one bracket or quote to the next. */
bool clarity_blank_accumulables_hidden(const char *line, size_t open, size_t close)
{
    static const char internal[] = "\"Internal\":true", sql[] = "\"Metadata\":\"sql\"";
    static const bool special[256] = {['"'] = true, ['{'] = true, ['}'] = true, ['['] = true, [']'] = true};
    size_t i = open + 1;
    for (;;) {
        while (i < close && (line[i] == ',' || line[i] == ' ')) i++;
        if (i == close) return true;
        if (line[i] != '{') return false;   /* a string, number or array element */
        bool hidden = false;
        for (int depth = 1; depth > 0;) {
            for (i++; i < close && !special[(unsigned char)line[i]]; i++) {}
            if (i >= close) return false;
            char ch = line[i];
            if (ch == '"') {
                if (depth == 1 && !hidden &&
                    ((close - i > sizeof internal - 1 && !memcmp(line + i, internal, sizeof internal - 1)) ||
                     (close - i > sizeof sql - 1 && !memcmp(line + i, sql, sizeof sql - 1))))
                    hidden = true;
                if ((i = string_end(line, i, close)) == close) return false;
            } else {
                depth += ch == '{' || ch == '[' ? 1 : -1;
            }
        }
        if (!hidden) return false;
        i++;
    }
}

void clarity_blank_lean(char *line, size_t len, bool accumulables, bool hidden_only, bool executor_metrics,
                        struct blank_undo *u)
{
    memset(u, 0, sizeof *u);
    size_t open, close, from = 0;
    if (accumulables && clarity_blank_find_accumulables(line, len, &open, &close) &&
        (!hidden_only || clarity_blank_accumulables_hidden(line, open, close))) {
        blank_range(line, open, close, u, 0);
        from = close;   /* the executor metrics come after Task Info */
    }
    if (executor_metrics && find_executor_metrics_from(line, len, from, &open, &close)) blank_range(line, open, close, u, 1);
}

bool clarity_blank_restore(char *line, struct blank_undo *u)
{
    bool any = false;
    for (int k = 0; k < 2; k++)
        if (u->saved[k]) {
            memcpy(line + u->open[k] + 1, u->saved[k], u->close[k] - u->open[k] - 1);
            any = true;
        }
    return any;
}

void clarity_blank_undo_free(struct blank_undo *u)
{
    free(u->saved[0]);
    free(u->saved[1]);
    u->saved[0] = u->saved[1] = NULL;
}
