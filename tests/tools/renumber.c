/* renumber FILE N: writes the plain event log FILE N times to stdout as one application whose
 * jobs, stages, tasks and SQL executions all have distinct ids, so a benchmark log of any size
 * can be built from a real one without the model collapsing duplicates.
 *
 * It is a text pass, not a JSON round trip: a round trip would reformat numbers and key order,
 * and the point is to keep the bytes the parser sees as close to Spark's as possible. Copy k
 * adds k * (max id of that kind + 1) to every id, and k * (the source's time span + 1 s) to every
 * nonzero time, so the copies run one after another as in a long application (copies that all ran
 * at the same moment would give the analyses a shape no real log has: 22 copies of every stage
 * overlapping). Only the first copy keeps the log/application start and environment events,
 * only the last keeps the application end. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_JOB, K_STAGE, K_TASK, K_SQL, K_TIME, K_COUNT };

/* How an id appears after its key: a bare integer, an array of integers, or a quoted integer
 * (Spark stores job properties as strings). */
enum form { F_INT, F_ARRAY, F_QUOTED };

struct key { const char *text; size_t len; enum kind kind; enum form form; };

#define KEY(s, k, f) { s, sizeof s - 1, k, f }
static const struct key KEYS[] = {
    KEY("\"Job ID\":", K_JOB, F_INT),
    KEY("\"Stage ID\":", K_STAGE, F_INT),
    KEY("\"Stage IDs\":", K_STAGE, F_ARRAY),
    /* Also RDD parents, which are RDD ids; shifting them is harmless as nothing joins them
     * across copies. */
    KEY("\"Parent IDs\":", K_STAGE, F_ARRAY),
    KEY("\"Task ID\":", K_TASK, F_INT),
    KEY("\"executionId\":", K_SQL, F_INT),
    KEY("\"rootExecutionId\":", K_SQL, F_INT),
    KEY("\"spark.sql.execution.id\":", K_SQL, F_QUOTED),
    /* Times in ms since the epoch: events, stage and task times, SQL execution start/end. */
    KEY("\"Timestamp\":", K_TIME, F_INT),
    KEY("\"Submission Time\":", K_TIME, F_INT),
    KEY("\"Completion Time\":", K_TIME, F_INT),
    KEY("\"Launch Time\":", K_TIME, F_INT),
    KEY("\"Finish Time\":", K_TIME, F_INT),
    KEY("\"Getting Result Time\":", K_TIME, F_INT),
    KEY("\"time\":", K_TIME, F_INT),
};
#define NKEYS (sizeof KEYS / sizeof KEYS[0])

struct id { size_t start, end; enum kind kind; uint64_t value; };   /* digits at [start, end) */

struct ids { struct id *v; size_t n, cap; uint64_t max[K_COUNT], min_time; };

static int push(struct ids *ids, size_t start, size_t end, enum kind kind, uint64_t value)
{
    if (ids->n == ids->cap) {
        size_t cap = ids->cap ? ids->cap * 2 : 4096;
        struct id *v = realloc(ids->v, cap * sizeof *v);
        if (!v) return -1;
        ids->v = v;
        ids->cap = cap;
    }
    ids->v[ids->n++] = (struct id){ start, end, kind, value };
    if (value > ids->max[kind]) ids->max[kind] = value;
    if (kind == K_TIME && value && (!ids->min_time || value < ids->min_time)) ids->min_time = value;
    return 0;
}

/* Reads digits at buf[*i]; false (and *i unchanged) when there are none. */
static bool digits(const char *buf, size_t len, size_t *i, uint64_t *value)
{
    size_t j = *i;
    uint64_t v = 0;
    while (j < len && buf[j] >= '0' && buf[j] <= '9') v = v * 10 + (uint64_t)(buf[j++] - '0');
    if (j == *i) return false;
    *i = j;
    *value = v;
    return true;
}

/* Finds every id in the file once, so each copy is only a splice of shifted numbers. */
static int scan(const char *buf, size_t len, struct ids *ids)
{
    for (const char *q = memchr(buf, '"', len); q; ) {
        size_t at = (size_t)(q - buf), next = at + 1;
        /* An escaped quote is inside a string (a plan description, say), never a key. */
        for (size_t k = 0; k < NKEYS && !(at && buf[at - 1] == '\\'); k++) {
            const struct key *key = &KEYS[k];
            if (len - at < key->len || memcmp(buf + at, key->text, key->len) != 0) continue;
            size_t i = at + key->len;
            uint64_t v;
            if (key->form == F_INT) {
                size_t s = i;
                if (digits(buf, len, &i, &v) && push(ids, s, i, key->kind, v)) return -1;
            } else if (key->form == F_QUOTED) {
                if (i < len && buf[i] == '"') {
                    size_t s = ++i;
                    if (digits(buf, len, &i, &v) && i < len && buf[i] == '"' &&
                        push(ids, s, i, key->kind, v)) return -1;
                }
            } else if (i < len && buf[i] == '[') {
                i++;
                for (;;) {
                    while (i < len && (buf[i] == ' ' || buf[i] == ',')) i++;
                    size_t s = i;
                    if (!digits(buf, len, &i, &v)) break;
                    if (push(ids, s, i, key->kind, v)) return -1;
                }
            }
            next = i;
            break;
        }
        q = next < len ? memchr(buf + next, '"', len - next) : NULL;
    }
    return 0;
}

static bool has_event(const char *line, size_t len, const char *name)
{
    char pat[80];
    int n = snprintf(pat, sizeof pat, "\"Event\":\"%s\"", name);
    /* Spark writes "Event" first, so the start of the line is enough. */
    size_t lim = len < 200 ? len : 200;
    return n > 0 && memmem(line, lim, pat, (size_t)n) != NULL;
}

static int write_copy(const char *buf, size_t len, const struct ids *ids, const uint64_t shift[],
                      bool first, bool last, FILE *out)
{
    size_t t = 0;   /* next id to rewrite */
    for (size_t pos = 0; pos < len; ) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - buf) + 1 : len;
        const char *line = buf + pos;
        bool keep = true;
        if (!first && (has_event(line, end - pos, "SparkListenerLogStart") ||
                       has_event(line, end - pos, "SparkListenerApplicationStart") ||
                       has_event(line, end - pos, "SparkListenerEnvironmentUpdate") ||
                       has_event(line, end - pos, "SparkListenerResourceProfileAdded")))
            keep = false;
        if (!last && has_event(line, end - pos, "SparkListenerApplicationEnd")) keep = false;
        if (!keep) {
            while (t < ids->n && ids->v[t].start < end) t++;
        } else {
            size_t from = pos;
            for (; t < ids->n && ids->v[t].start < end; t++) {
                const struct id *id = &ids->v[t];
                fwrite(buf + from, 1, id->start - from, out);
                /* A zero time means "not set" (Getting Result Time of most tasks): keep it. */
                uint64_t add = id->kind == K_TIME && id->value == 0 ? 0 : shift[id->kind];
                fprintf(out, "%" PRIu64, id->value + add);
                from = id->end;
            }
            fwrite(buf + from, 1, end - from, out);
            /* A last line without newline would glue itself to the next copy. */
            if (!nl && end > pos) fputc('\n', out);
        }
        pos = end;
    }
    return ferror(out) ? -1 : 0;
}

int main(int argc, char **argv)
{
    char *stop = NULL;
    long copies = argc == 3 ? strtol(argv[2], &stop, 10) : 0;
    if (argc != 3 || *stop || copies < 1) {
        fprintf(stderr, "usage: renumber FILE N   (N >= 1 copies to stdout)\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    if (!in) { fprintf(stderr, "renumber: %s: %s\n", argv[1], strerror(errno)); return 1; }
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    for (size_t n; buf && (n = fread(buf + len, 1, cap - len, in)) > 0; ) {
        len += n;
        if (len == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) { free(buf); buf = NULL; }
            else buf = nb;
        }
    }
    bool read_err = ferror(in);
    fclose(in);
    if (!buf) { fprintf(stderr, "renumber: out of memory\n"); return 1; }
    if (read_err) { fprintf(stderr, "renumber: %s: read error\n", argv[1]); free(buf); return 1; }

    struct ids ids = {0};
    if (scan(buf, len, &ids) != 0) { fprintf(stderr, "renumber: out of memory\n"); return 1; }

    /* Big writes for a big output; stdio's default buffer makes this syscall-bound. */
    char *obuf = malloc(1 << 20);
    if (obuf) setvbuf(stdout, obuf, _IOFBF, 1 << 20);
    int rc = 0;
    for (long c = 0; c < copies && rc == 0; c++) {
        uint64_t shift[K_COUNT];
        for (int k = 0; k < K_COUNT; k++) shift[k] = (uint64_t)c * (ids.max[k] + 1);
        uint64_t span = ids.max[K_TIME] > ids.min_time ? ids.max[K_TIME] - ids.min_time : 0;
        shift[K_TIME] = (uint64_t)c * (span + 1000);
        rc = write_copy(buf, len, &ids, shift, c == 0, c == copies - 1, stdout);
    }
    if (fflush(stdout) != 0 || rc != 0) {
        fprintf(stderr, "renumber: write error: %s\n", strerror(errno));
        rc = 1;
    }
    fprintf(stderr, "renumber: %zu ids per copy (max job %" PRIu64 ", stage %" PRIu64
            ", task %" PRIu64 ", sql %" PRIu64 "), %ld copies\n",
            ids.n, ids.max[K_JOB], ids.max[K_STAGE], ids.max[K_TASK], ids.max[K_SQL], copies);
    free(ids.v);
    free(buf);
    setvbuf(stdout, NULL, _IONBF, 0);   /* stdio must not touch obuf after it is freed */
    free(obuf);
    return rc;
}
