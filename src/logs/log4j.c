/* log4j lines of Spark's driver and executors (LADRA's Fig. 2 and every later wording): the timestamp
 * layouts Spark shipped (yy/MM/dd HH:mm:ss with and without .SSS, ISO with ,SSS), optional
 * [thread] before the level, and the task templates LADRA needs, in every wording Spark 1.6 to
 * 3.5 used. Spark 4 JSON structured lines are read by log4j_json.c. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/logs.h"
#include "clarity/model.h"

static const char *const kind_names[CLARITY_L4J_KINDS] = {"none", "other", "start", "launch", "finish",
                                                           "running", "exec-finished", "executor-id"};
const char *clarity_l4j_kind_name(int k) { return k >= 0 && k < CLARITY_L4J_KINDS ? kind_names[k] : "?"; }

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static bool digits(const char *s, size_t len, size_t at, size_t n, int *v)
{
    if (at + n > len) return false;
    int x = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[at + i])) return false;
        x = x * 10 + (s[at + i] - '0');
    }
    *v = x;
    return true;
}

/* The length is checked before every read: the caller's buffer need not be NUL-terminated, so
 * "24/03" or "2024-03" ending exactly at len must not read the byte after it. */
static bool char_at(const char *s, size_t len, size_t at, char ch) { return at < len && s[at] == ch; }

size_t clarity_l4j_timestamp(const char *s, size_t len, int64_t *ms, bool *has_ms)
{
    int Y, M, D, h, mi, se, f = 0;
    size_t p;
    if (digits(s, len, 0, 2, &Y) && char_at(s, len, 2, '/')) {           /* yy/MM/dd HH:mm:ss */
        if (!digits(s, len, 3, 2, &M) || !char_at(s, len, 5, '/') || !digits(s, len, 6, 2, &D) || len < 17 ||
            !char_at(s, len, 8, ' '))
            return 0;
        Y += 2000, p = 9;
    } else if (digits(s, len, 0, 4, &Y) && char_at(s, len, 4, '-')) {    /* yyyy-MM-dd HH:mm:ss or T */
        if (!digits(s, len, 5, 2, &M) || !char_at(s, len, 7, '-') || !digits(s, len, 8, 2, &D) || len < 19 ||
            (!char_at(s, len, 10, ' ') && !char_at(s, len, 10, 'T')))
            return 0;
        p = 11;
    } else return 0;
    if (!digits(s, len, p, 2, &h) || !char_at(s, len, p + 2, ':') || !digits(s, len, p + 3, 2, &mi) ||
        !char_at(s, len, p + 5, ':') || !digits(s, len, p + 6, 2, &se))
        return 0;
    p += 8;
    *has_ms = false;
    if ((char_at(s, len, p, '.') || char_at(s, len, p, ',')) && digits(s, len, p + 1, 3, &f)) p += 4, *has_ms = true;
    if (M < 1 || M > 12 || D < 1 || D > 31) return 0;
    *ms = ((days_from_civil(Y, (unsigned)M, (unsigned)D) * 24 + h) * 60 + mi) * 60000LL + se * 1000LL + f;
    return p;
}

static int locality_of(const char *s, size_t n)
{
    static const char *const names[] = {"PROCESS_LOCAL", "NODE_LOCAL", "NO_PREF", "RACK_LOCAL", "ANY"};
    for (int i = 0; i < 5; i++)
        if (strlen(names[i]) == n && !memcmp(s, names[i], n)) return i;
    return CLARITY_LOC_UNKNOWN;
}

/* Copies the token at *p up to one of the stop characters. */
static void token(const char **p, const char *stop, char *out, size_t cap)
{
    size_t k = 0;
    while (**p && !strchr(stop, **p)) {
        if (k + 1 < cap) out[k++] = **p;
        (*p)++;
    }
    out[k] = 0;
}

/* "i.a in stage s.a (TID t" common to START, FINISH, RUNNING, EXEC_FINISHED. */
static const char *task_head(const char *p, struct clarity_l4j_line *o)
{
    long long i, ta, s, sa, t;
    int n = 0;
    if (sscanf(p, "%lld.%lld in stage %lld.%lld (TID %lld%n", &i, &ta, &s, &sa, &t, &n) != 5 || !n) return NULL;
    o->task_index = i, o->task_attempt = ta, o->stage = s, o->stage_attempt = sa, o->tid = t;
    return p + n;
}

static int parse_message(const char *m, struct clarity_l4j_line *o)
{
    const char *p;
    long long a, b, c;
    int n = 0;
    if (!strncmp(m, "Starting task ", 14) && (p = task_head(m + 14, o))) {
        /* 1.6-2.x: "(TID 58, host, executor 1, partition 12, ANY, 5900 bytes)";
         * 3.x:     "(TID 0) (host1, executor 0, partition 0, NODE_LOCAL, 7800 bytes)";
         * old:     "partition 12,ANY" with no space. */
        if (*p == ')') p++;
        while (*p == ',' || *p == ' ' || *p == '(') p++;
        token(&p, ", )", o->host, sizeof o->host);
        while (*p == ',' || *p == ' ') p++;
        if (!strncmp(p, "executor ", 9)) {
            p += 9;
            token(&p, ", )", o->executor, sizeof o->executor);
            while (*p == ',' || *p == ' ') p++;
        }
        if (sscanf(p, "partition %lld%n", &a, &n) == 1) {
            o->partition = a, p += n;
            while (*p == ',' || *p == ' ') p++;
            const char *l = p;
            while (*p && *p != ',' && *p != ')') p++;
            o->locality = locality_of(l, (size_t)(p - l));
            while (*p == ',' || *p == ' ') p++;
            if (sscanf(p, "%lld bytes", &b) == 1) o->bytes = b;
        }
        return CLARITY_L4J_START;
    }
    if (!strncmp(m, "Finished task ", 14) && (p = task_head(m + 14, o))) {
        if (*p == ')') p++;
        if (sscanf(p, " in %lld ms on %n", &a, &n) == 1 && n) {   /* TaskSetManager (driver) */
            o->duration_ms = a, p += n;
            token(&p, " ", o->host, sizeof o->host);
            while (*p == ' ') p++;
            if (!strncmp(p, "(executor ", 10)) {
                p += 10;
                token(&p, ")", o->executor, sizeof o->executor);
                if (*p == ')') p++;
                while (*p == ' ') p++;
            }
            if (sscanf(p, "(%lld/%lld)", &b, &c) == 2) o->done = b, o->total = c;
            return CLARITY_L4J_FINISH;
        }
        if (*p == '.' && sscanf(p, ". %lld bytes result sent", &a) == 1) o->bytes = a;
        return CLARITY_L4J_EXEC_FINISHED;
    }
    if (!strncmp(m, "Running task ", 13) && task_head(m + 13, o)) return CLARITY_L4J_RUNNING;
    if (!strncmp(m, "Launching task ", 15) && sscanf(m + 15, "%lld on executor id: %n", &a, &n) == 1 && n) {
        o->tid = a, p = m + 15 + n;
        token(&p, " ", o->executor, sizeof o->executor);
        while (*p == ' ') p++;
        if (!strncmp(p, "hostname: ", 10)) {
            p += 10;
            token(&p, " ", o->host, sizeof o->host);
            size_t hl = strlen(o->host);
            if (hl && o->host[hl - 1] == '.') o->host[hl - 1] = 0;   /* the sentence's full stop */
        }
        return CLARITY_L4J_LAUNCH;
    }
    if (!strncmp(m, "Starting executor ID ", 21)) {
        p = m + 21;
        token(&p, " ", o->executor, sizeof o->executor);
        if (!strncmp(p, " on host ", 9)) p += 9, token(&p, " ", o->host, sizeof o->host);
        return CLARITY_L4J_EXECUTOR_ID;
    }
    return CLARITY_L4J_OTHER;
}

int clarity_l4j_parse_json(const char *line, size_t len, struct clarity_l4j_line *out);

int clarity_l4j_parse(const char *line, size_t len, struct clarity_l4j_line *o)
{
    memset(o, 0, sizeof *o);
    o->locality = CLARITY_LOC_UNKNOWN;
    o->duration_ms = o->partition = o->bytes = o->done = o->total = -1;
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
    if (len && line[0] == '{') return clarity_l4j_parse_json(line, len, o);
    size_t p = clarity_l4j_timestamp(line, len, &o->ts_ms, &o->ts_has_ms);
    if (!p) return CLARITY_L4J_NONE;
    char buf[8192];
    if (len > sizeof buf - 1) len = sizeof buf - 1;
    memcpy(buf, line, len);
    buf[len] = 0;
    const char *s = buf + p;
    while (*s == ' ') s++;
    if (*s == '[') {                   /* custom layouts with %t: "[Executor task launch worker-0]" */
        const char *e = strchr(s, ']');
        if (!e) return CLARITY_L4J_NONE;
        s = e + 1;
        while (*s == ' ') s++;
    }
    token(&s, " ", o->level, sizeof o->level);
    if (strcmp(o->level, "INFO") && strcmp(o->level, "WARN") && strcmp(o->level, "ERROR") && strcmp(o->level, "DEBUG") &&
        strcmp(o->level, "TRACE") && strcmp(o->level, "FATAL"))
        return CLARITY_L4J_NONE;
    while (*s == ' ') s++;
    token(&s, ":", o->logger, sizeof o->logger);
    if (*s != ':') return CLARITY_L4J_NONE;
    s++;
    while (*s == ' ') s++;
    return o->kind = parse_message(s, o);
}

/* Exposed to the JSON reader, which finds the message and hands it over. */
int clarity_l4j_parse_message(const char *msg, struct clarity_l4j_line *o) { return o->kind = parse_message(msg, o); }
