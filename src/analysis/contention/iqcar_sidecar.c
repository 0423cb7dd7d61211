/* The sidecar CSV of instrumented task metrics: for a Spark that
 * measured iQCAR's waits (CPU blocked/waited, memory acquire waits, slots offered) but could
 * not put them in the event log as accumulables. One value per line:
 *   task_id,attempt,metric,value            or   app_id,task_id,attempt,metric,value
 * metric is one of the --acc keys (cpu.blocked, ...), so the two inputs share one vocabulary;
 * times in ms, sizes in bytes, as the accumulables. Several lines for one (task, attempt,
 * metric) add up.
 * Rejected lines are kept with their line number and reason (the caller reports them as
 * file:line) and counted: a silently shorter file would make the analysis quietly fall back to
 * the proxies for those tasks. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/contention.h"

static const char *const keys[IQ_NACC] = {"cpu.blocked", "cpu.waited", "mem.storageWait", "mem.storageAsked",
                                          "mem.executionWait", "mem.executionAsked", "sched.slotsOffered"};

int clarity_iqcar_acc_key(const char *s, size_t len)
{
    for (int i = 0; i < IQ_NACC; i++)
        if (strlen(keys[i]) == len && !strncmp(s, keys[i], len)) return i;
    return -1;
}

const char *clarity_iqcar_acc_key_name(int k) { return k >= 0 && k < IQ_NACC ? keys[k] : "?"; }

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n')) *--e = '\0';
    return s;
}

static int parse_i64(const char *s, long long lo, long long *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end || errno || x < lo) return -1;
    *out = x;
    return 0;
}

/* A rejected line: its reason in err */
static int bad(struct clarity_error *err, const char *why)
{
    return clarity_error_set(err, CLARITY_EFORMAT, NULL, 0, 0, "%s", why);
}

int clarity_iqcar_sidecar_parse_line(char *line, struct iqcar_sidecar_row *row, char **app, bool *data,
                             struct clarity_error *err)
{
    *data = false;
    char *f[6];
    int n = 0;
    line = trim(line);
    if (!*line || *line == '#') return 0;
    for (char *p = line; n < 6;) {
        char *c = strchr(p, ',');
        f[n++] = p;
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }
    for (int i = 0; i < n; i++) f[i] = trim(f[i]);
    if (n != 4 && n != 5) return bad(err, "want 4 fields (task_id,attempt,metric,value) or 5 (app_id first)");
    int o = n - 4;
    if (!strcmp(f[o], "task_id")) return 0;   /* the header */
    long long tid, att;
    if (parse_i64(f[o], 0, &tid)) return bad(err, "task_id is not a non-negative integer");
    if (parse_i64(f[o + 1], 0, &att) || att > INT32_MAX) return bad(err, "attempt is not a non-negative integer");
    int k = clarity_iqcar_acc_key(f[o + 2], strlen(f[o + 2]));
    if (k < 0)
        return bad(err, "unknown metric (cpu.blocked, cpu.waited, mem.storageWait, mem.storageAsked, "
                        "mem.executionWait, mem.executionAsked, sched.slotsOffered)");
    char *end;
    errno = 0;
    double v = strtod(f[o + 3], &end);
    if (end == f[o + 3] || *end || errno || !isfinite(v) || v < 0) return bad(err, "value is not a finite number >= 0");
    if (o && !*f[0]) return bad(err, "empty app_id");
    *row = (struct iqcar_sidecar_row){.task_id = tid, .attempt = (int32_t)att, .app = -1, .metric = k, .value = v};
    *app = o ? f[0] : NULL;
    *data = true;
    return 0;
}

static long app_index(struct iqcar_sidecar *sc, const char *id)
{
    for (size_t i = 0; i < sc->napps; i++)
        if (!strcmp(sc->apps[i], id)) return (long)i;
    char **p = realloc(sc->apps, (sc->napps + 1) * sizeof *p);
    if (!p) return -1;
    sc->apps = p;
    if (!(sc->apps[sc->napps] = strdup(id))) return -1;
    return (long)sc->napps++;
}

/* By task id, then attempt: the lookup key of a task row. */
static int cmp_row(const void *x, const void *y)
{
    const struct iqcar_sidecar_row *a = x, *b = y;
    if (a->task_id != b->task_id) return a->task_id < b->task_id ? -1 : 1;
    return (a->attempt > b->attempt) - (a->attempt < b->attempt);
}

static int add_reject(struct iqcar_sidecar *sc, size_t *cap, unsigned long ln, const char *why)
{
    if (sc->bad == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        void *p = realloc(sc->rejects, c * sizeof *sc->rejects);
        if (!p) return -1;
        sc->rejects = p, *cap = c;
    }
    char *w = strdup(why);
    if (!w) return -1;
    sc->rejects[sc->bad++] = (struct iqcar_sidecar_reject){ln, w};
    return 0;
}

int clarity_iqcar_sidecar_load(const char *path, struct iqcar_sidecar *sc, struct clarity_error *err)
{
    memset(sc, 0, sizeof *sc);
    FILE *f = fopen(path, "r");
    if (!f) return clarity_error_set(err, CLARITY_EIO, path, 0, 0, "cannot read %s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0, rcap = 0, bcap = 0;
    unsigned long ln = 0;
    int rc = 0;
    while (getline(&line, &cap, f) >= 0) {
        ln++;
        struct iqcar_sidecar_row row;
        char *app;
        bool data;
        struct clarity_error why;
        int k = clarity_iqcar_sidecar_parse_line(line, &row, &app, &data, &why);
        if (!k && !data) continue;
        sc->lines++;
        if (k) {
            if (add_reject(sc, &bcap, ln, why.msg)) goto oom;
            continue;
        }
        if (app) {
            long a = app_index(sc, app);
            if (a < 0) goto oom;
            row.app = (int32_t)a;
        }
        if (sc->nrows == rcap) {
            size_t c = rcap ? rcap * 2 : 256;
            void *p = realloc(sc->rows, c * sizeof *sc->rows);
            if (!p) goto oom;
            sc->rows = p, rcap = c;
        }
        sc->rows[sc->nrows++] = row;
    }
    if (ferror(f)) {
        rc = clarity_error_set(err, CLARITY_EIO, path, 0, 0, "error reading %s", path);
        goto out;
    }
    /* qsort is not stable, but the values of one (task, attempt, metric) are summed, as
     * accumulable updates are, so their order does not matter (no rows: rows is NULL, which
     * qsort must not be given) */
    if (sc->nrows > 1) qsort(sc->rows, sc->nrows, sizeof *sc->rows, cmp_row);
    goto out;
oom:
    rc = clarity_error_set(err, CLARITY_ENOMEM, path, 0, 0, "out of memory reading %s", path);
out:
    free(line);
    fclose(f);
    if (rc) {   /* keep the rejected lines seen so far: the caller reports them before the error */
        struct iqcar_sidecar_reject *rej = sc->rejects;
        size_t lines = sc->lines, bad = sc->bad;
        sc->rejects = NULL;
        clarity_iqcar_sidecar_free(sc);
        sc->rejects = rej, sc->lines = lines, sc->bad = bad;
    }
    return rc;
}

size_t clarity_iqcar_sidecar_find(const struct iqcar_sidecar *sc, int64_t task_id, int32_t attempt, size_t *first)
{
    struct iqcar_sidecar_row key = {.task_id = task_id, .attempt = attempt};
    size_t lo = 0, hi = sc ? sc->nrows : 0;
    while (lo < hi) {   /* lower bound */
        size_t m = lo + (hi - lo) / 2;
        if (cmp_row(&sc->rows[m], &key) < 0) lo = m + 1;
        else hi = m;
    }
    size_t e = lo;
    while (e < (sc ? sc->nrows : 0) && !cmp_row(&sc->rows[e], &key)) e++;
    *first = lo;
    return e - lo;
}

bool clarity_iqcar_sidecar_row_for(const struct iqcar_sidecar *sc, const struct iqcar_sidecar_row *row, const char *app_id)
{
    return row->app < 0 || ((size_t)row->app < sc->napps && app_id && !strcmp(sc->apps[row->app], app_id));
}

int clarity_iqcar_sidecar_unmatched(const struct iqcar_sidecar *sc, const struct clarity_app *const *apps, size_t napps,
                            size_t *count, size_t *example, struct clarity_error *err)
{
    *count = 0;
    bool *hit = calloc(sc->nrows ? sc->nrows : 1, sizeof *hit);
    size_t n = 0;
    if (!hit) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory matching the metrics CSV");
    for (size_t k = 0; k < napps; k++) {
        const struct clarity_app *a = apps[k];
        const char *id = clarity_app_str(a, a->app_id);
        for (size_t i = 0; i < a->tasks.n; i++) {
            size_t f, m = clarity_iqcar_sidecar_find(sc, clarity_icol_get(&a->tasks.task_id, i),
                                             (int32_t)clarity_icol_get(&a->tasks.attempt, i), &f);
            for (size_t j = f; j < f + m; j++) hit[j] |= clarity_iqcar_sidecar_row_for(sc, &sc->rows[j], id);
        }
    }
    for (size_t j = 0; j < sc->nrows; j++)
        if (!hit[j] && n++ == 0) *example = j;
    free(hit);
    *count = n;
    return 0;
}

void clarity_iqcar_sidecar_free(struct iqcar_sidecar *sc)
{
    for (size_t i = 0; i < sc->napps; i++) free(sc->apps[i]);
    free(sc->apps);
    free(sc->rows);
    for (size_t i = 0; i < sc->bad && sc->rejects; i++) free(sc->rejects[i].why);
    free(sc->rejects);
    memset(sc, 0, sizeof *sc);
}
