/* Directories of executor, driver and GC logs, joined to executors: a file's
 * executor comes from its path (<host>/<exec>/stderr, work/<app>/<exec>/stdout,
 * gc/<host>-<exec>.log) or from its "Starting executor ID" line; YARN-aggregated files carry
 * several containers, each announced by a header. Lines nobody understood are counted by a
 * pattern (digits folded) so the user sees what was skipped. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "clarity/logs.h"
#include "util/checked.h"

void clarity_logs_init(struct clarity_logs *l) { memset(l, 0, sizeof *l); }

void clarity_logs_free(struct clarity_logs *l)
{
    for (size_t i = 0; i < l->nexecs; i++) free(l->execs[i].gc);
    free(l->execs), free(l->tasks), free(l->unknown);
    memset(l, 0, sizeof *l);
}

int clarity_logs_exec(struct clarity_logs *l, const char *id, bool create, struct clarity_log_exec **out,
                      struct clarity_error *err)
{
    *out = NULL;
    for (size_t i = 0; i < l->nexecs; i++)
        if (!strcmp(l->execs[i].id, id)) {
            *out = &l->execs[i];
            return 0;
        }
    if (!create) return clarity_error_set(err, CLARITY_ENOTFOUND, NULL, 0, 0, "no executor '%s' in the logs", id);
    if (l->nexecs == l->capexecs) {
        size_t nc = l->capexecs ? l->capexecs * 2 : 16;
        void *p = realloc(l->execs, nc * sizeof *l->execs);
        if (!p) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
        l->execs = p, l->capexecs = nc;
    }
    struct clarity_log_exec *e = &l->execs[l->nexecs++];
    memset(e, 0, sizeof *e);
    snprintf(e->id, sizeof e->id, "%s", id);
    *out = e;
    return 0;
}

/* -1 when out of memory */
static int count_unknown(struct clarity_logs *l, const char *prefix, const char *s, size_t len)
{
    char key[64];
    size_t k = (size_t)snprintf(key, sizeof key, "%s", prefix);
    /* Fold digits so "Started 5 remote fetches in 2 ms" is one pattern. */
    for (size_t i = 0; i < len && k + 1 < sizeof key && k < 48; i++) {
        char c = s[i];
        if (isdigit((unsigned char)c)) {
            if (k && key[k - 1] == '#') continue;
            c = '#';
        }
        key[k++] = c;
    }
    key[k] = 0;
    for (size_t i = 0; i < l->nunknown; i++)
        if (!strcmp(l->unknown[i].key, key)) {
            l->unknown[i].count++;
            return 0;
        }
    if (l->nunknown >= 256) key[0] = 0, snprintf(key, sizeof key, "(other patterns)");
    for (size_t i = 0; i < l->nunknown; i++)
        if (!strcmp(l->unknown[i].key, key)) {
            l->unknown[i].count++;
            return 0;
        }
    if (l->nunknown == l->capunknown) {
        size_t nc = l->capunknown ? l->capunknown * 2 : 32;
        void *p = realloc(l->unknown, nc * sizeof *l->unknown);
        if (!p) return -1;
        l->unknown = p, l->capunknown = nc;
    }
    snprintf(l->unknown[l->nunknown].key, sizeof l->unknown[0].key, "%s", key);
    l->unknown[l->nunknown++].count = 1;
    return 0;
}

static int add_gc(struct clarity_log_exec *e, const struct clarity_gc_rec *r)
{
    if (e->ngc == e->capgc) {
        size_t nc = e->capgc ? e->capgc * 2 : 64;
        void *p = realloc(e->gc, nc * sizeof *e->gc);
        if (!p) return -1;
        e->gc = p, e->capgc = nc;
    }
    e->gc[e->ngc++] = *r;
    return 0;
}

static int add_task(struct clarity_logs *l, const struct clarity_l4j_line *x, size_t exec)
{
    if (l->ntasks == l->captasks) {
        size_t nc = l->captasks ? l->captasks * 2 : 256;
        void *p = realloc(l->tasks, nc * sizeof *l->tasks);
        if (!p) return -1;
        l->tasks = p, l->captasks = nc;
    }
    l->tasks[l->ntasks++] = (struct clarity_log_task){.tid = x->tid, .stage = x->stage, .stage_attempt = x->stage_attempt,
                                                      .ts_ms = x->ts_ms, .duration_ms = x->duration_ms,
                                                      .executor = (uint32_t)exec};
    return 0;
}

/* YARN `yarn logs` output: "Container: container_..._000002 on host_8041", "LogType:stderr",
 * "LogLength:N", "Log Contents:", "End of LogType:stderr", and rows of '*'. */
static bool yarn_header(const char *s, size_t len, char *host, size_t hcap)
{
    if (len >= 11 && !strncmp(s, "Container: ", 11)) {
        const char *on = memmem(s, len, " on ", 4);
        if (on) {
            size_t n = len - (size_t)(on + 4 - s);
            const char *us = memchr(on + 4, '_', n);   /* host_port */
            if (us) n = (size_t)(us - (on + 4));
            if (n >= hcap) n = hcap - 1;
            memcpy(host, on + 4, n);
            host[n] = 0;
        }
        return true;
    }
    return (len >= 8 && !strncmp(s, "LogType:", 8)) || (len >= 10 && !strncmp(s, "LogLength:", 10)) ||
           (len >= 13 && !strncmp(s, "Log Contents:", 13)) || (len >= 15 && !strncmp(s, "End of LogType:", 15)) ||
           (len >= 14 && !strncmp(s, "LogLastModifiedTime:", 14)) || (len > 10 && s[0] == '*' && s[len - 1] == '*');
}

int clarity_logs_read_file(struct clarity_logs *l, const char *path, const char *exec_hint, const char *host_hint,
                           struct clarity_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f) return clarity_error_set(err, CLARITY_EIO, path, 0, 0, "cannot read: %s", strerror(errno));
    l->files++;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    /* the executor the lines belong to: index into l->execs, or -1 until known */
    long cur = -1;
    struct clarity_gc_rec *orphan = NULL;   /* GC records before the executor is known */
    size_t norphan = 0;
    char host[CLARITY_L4J_NAME_LEN] = "";
    if (host_hint) snprintf(host, sizeof host, "%s", host_hint);
    if (exec_hint && *exec_hint) {
        struct clarity_log_exec *e;
        if (clarity_logs_exec(l, exec_hint, true, &e, NULL)) goto oom;
        cur = e - l->execs;
        if (host[0] && !e->host[0]) snprintf(e->host, sizeof e->host, "%s", host);
    }
    struct clarity_gc_parser gp;
    clarity_gc_parser_init(&gp);
    struct clarity_gc_rec rec;
    while ((n = getline(&line, &cap, f)) > 0) {
        size_t len = (size_t)n;
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
        l->lines++;
        if (!len) continue;
        if (yarn_header(line, len, host, sizeof host)) {
            l->yarn_headers++;
            if (!strncmp(line, "Container: ", 11)) cur = -1;   /* a new container: executor unknown again */
            continue;
        }
        struct clarity_l4j_line x;
        int k = clarity_l4j_parse(line, len, &x);
        if (k != CLARITY_L4J_NONE) {
            l->l4j_lines++;
            l->json_lines += x.json;
            l->l4j_kind_count[k]++;
            if (k == CLARITY_L4J_EXECUTOR_ID) {
                struct clarity_log_exec *e;
                if (clarity_logs_exec(l, x.executor, true, &e, NULL)) goto oom;
                cur = e - l->execs;
                if (x.host[0]) snprintf(e->host, sizeof e->host, "%s", x.host);
                else if (host[0] && !e->host[0]) snprintf(e->host, sizeof e->host, "%s", host);
                if (!e->first_log_ms || x.ts_ms < e->first_log_ms) e->first_log_ms = x.ts_ms;
                for (size_t i = 0; i < norphan; i++)
                    if (add_gc(e, &orphan[i])) goto oom;
                norphan = 0;
            }
            if (cur >= 0 && (!l->execs[cur].first_log_ms || x.ts_ms < l->execs[cur].first_log_ms))
                l->execs[cur].first_log_ms = x.ts_ms;
            if (k == CLARITY_L4J_OTHER) {
                if (count_unknown(l, "log4j ", x.logger, strlen(x.logger))) goto oom;
                continue;
            }
            l->l4j_used++;
            if (k == CLARITY_L4J_LAUNCH && x.executor[0] && x.host[0]) {
                /* driver log: the executor -> host map, from its "Launching task" lines */
                struct clarity_log_exec *e;
                if (clarity_logs_exec(l, x.executor, true, &e, NULL)) goto oom;
                if (!e->host[0]) snprintf(e->host, sizeof e->host, "%s", x.host);
            }
            if (k == CLARITY_L4J_FINISH || k == CLARITY_L4J_EXEC_FINISHED) {
                long ex = cur;
                if (x.executor[0]) {
                    struct clarity_log_exec *e;
                    if (clarity_logs_exec(l, x.executor, true, &e, NULL)) goto oom;
                    ex = e - l->execs;
                    if (x.host[0] && !e->host[0]) snprintf(e->host, sizeof e->host, "%s", x.host);
                }
                if (add_task(l, &x, ex >= 0 ? (size_t)ex : UINT32_MAX)) goto oom;
            }
            continue;
        }
        int got = clarity_gc_feed(&gp, line, len, &rec);
        if (got) {
            l->gc_records++;
            if (cur >= 0) {
                if (add_gc(&l->execs[cur], &rec)) goto oom;
            } else {
                void *p = realloc(orphan, (norphan + 1) * sizeof *orphan);
                if (!p) goto oom;
                orphan = p;
                orphan[norphan++] = rec;
            }
        } else if (!gp.blen && gp.pend_id < 0 && !(line[0] == '[' || line[0] == '\t' || line[0] == ' ')) {
            if (count_unknown(l, "text ", line, len)) goto oom;
        } else if (!gp.blen && gp.pend_id < 0 && line[0] == '\t') {
            if (count_unknown(l, "stack trace ", "", 0)) goto oom;
        }
    }
    if (clarity_gc_finish(&gp, &rec)) {
        l->gc_records++;
        if (cur >= 0 && add_gc(&l->execs[cur], &rec)) goto oom;
    }
    l->gc_lines_ignored += gp.ignored;
    if (norphan) {
        struct clarity_log_exec *e;   /* never joined: counted as unjoined */
        if (clarity_logs_exec(l, "", true, &e, NULL)) goto oom;
        for (size_t i = 0; i < norphan; i++)
            if (add_gc(e, &orphan[i])) goto oom;
    }
    free(orphan), free(line), fclose(f);
    return 0;
oom:
    free(orphan), free(line), fclose(f);
    return clarity_error_set(err, CLARITY_ENOMEM, path, 0, 0, "out of memory");
}

static void bounded(char *dst, size_t cap, const char *s)
{
    size_t n = strlen(s);
    if (n >= cap) n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = 0;
}

static bool all_digits(const char *s) { for (; *s; s++) if (!isdigit((unsigned char)*s)) return false; return true; }

/* The executor (and host) a path names, if any. */
static void path_hints(const char *path, bool gc_dir, char *exec, size_t ecap, char *host, size_t hcap)
{
    exec[0] = host[0] = 0;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    char *base = strrchr(tmp, '/');
    if (!base) return;
    *base++ = 0;
    char *parent = strrchr(tmp, '/');
    parent = parent ? parent + 1 : tmp;
    const char *dot = strrchr(base, '.');
    const char *dash = strrchr(base, '-');
    if (gc_dir && dash && dot && dash < dot) {
        /* synth and common launch scripts: <host>-<exec>.log */
        size_t n = (size_t)(dot - dash - 1);
        if (n && n < ecap) memcpy(exec, dash + 1, n), exec[n] = 0;
        if (!all_digits(exec) && strcmp(exec, "driver")) exec[0] = 0;
        size_t hn = (size_t)(dash - base);
        if (exec[0] && hn < hcap) memcpy(host, base, hn), host[hn] = 0;
        if (exec[0]) return;
    }
    if (all_digits(parent) || !strcmp(parent, "driver")) {
        /* <host>/<exec>/stderr or work/<app>/<exec>/stdout */
        bounded(exec, ecap, parent);
        if (parent > tmp) {
            parent[-1] = 0;
            char *h = strrchr(tmp, '/');
            h = h ? h + 1 : tmp;
            if (strncmp(h, "app-", 4) && strncmp(h, "application_", 12)) bounded(host, hcap, h);
        }
    }
}

static int walk(struct clarity_logs *l, const char *dir, bool gc_dir, int depth, struct clarity_error *err)
{
    if (depth > 6) return 0;
    DIR *d = opendir(dir);
    if (!d) return clarity_error_set(err, CLARITY_EIO, dir, 0, 0, "cannot open directory: %s", strerror(errno));
    /* sorted, so the result does not depend on the file system's order */
    char **names = NULL;
    size_t nn = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char **p = realloc(names, (nn + 1) * sizeof *names);
        if (!p) break;
        names = p;
        names[nn++] = strdup(de->d_name);
    }
    closedir(d);
    for (size_t i = 0; i + 1 < nn; i++)
        for (size_t j = i + 1; j < nn; j++)
            if (names[i] && names[j] && strcmp(names[i], names[j]) > 0) {
                char *t = names[i];
                names[i] = names[j], names[j] = t;
            }
    int rc = 0;
    for (size_t i = 0; i < nn && !rc; i++) {
        if (!names[i]) continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(p, &st)) continue;
        if (S_ISDIR(st.st_mode)) rc = walk(l, p, gc_dir, depth + 1, err);
        else if (S_ISREG(st.st_mode)) {
            const char *dot = strrchr(names[i], '.');
            if (dot && (!strcmp(dot, ".gz") || !strcmp(dot, ".zst") || !strcmp(dot, ".lz4"))) continue;
            char ex[32], host[CLARITY_L4J_NAME_LEN];
            path_hints(p, gc_dir, ex, sizeof ex, host, sizeof host);
            rc = clarity_logs_read_file(l, p, ex[0] ? ex : NULL, host[0] ? host : NULL, err);
        }
    }
    for (size_t i = 0; i < nn; i++) free(names[i]);
    free(names);
    return rc;
}

int clarity_logs_read_dir(struct clarity_logs *l, const char *dir, bool gc_dir, struct clarity_error *err)
{
    struct stat st;
    if (stat(dir, &st)) return clarity_error_set(err, CLARITY_EIO, dir, 0, 0, "cannot read: %s", strerror(errno));
    if (S_ISREG(st.st_mode)) {
        char ex[32], host[CLARITY_L4J_NAME_LEN];
        path_hints(dir, gc_dir, ex, sizeof ex, host, sizeof host);
        return clarity_logs_read_file(l, dir, ex[0] ? ex : NULL, host[0] ? host : NULL, err);
    }
    return walk(l, dir, gc_dir, 0, err);
}

static int cmp_rec(const void *a, const void *b)
{
    const struct clarity_gc_rec *x = a, *y = b;
    return x->ts_ms < y->ts_ms ? -1 : x->ts_ms > y->ts_ms;
}

void clarity_logs_finish(struct clarity_logs *l)
{
    for (size_t i = 0; i < l->nexecs; i++) {
        struct clarity_log_exec *e = &l->execs[i];
        for (size_t g = 0; g < e->ngc; g++)
            if (e->gc[g].ts_ms < 0 && e->gc[g].uptime_s >= 0 && e->first_log_ms) {
                /* uptime-only GC stamps (no -XX:+PrintGCDateStamps): the JVM started about when its
                 * first log4j line was written; node clocks are assumed in sync (--clock-offset) */
                e->gc[g].ts_ms = clarity_sat_add(e->first_log_ms, (int64_t)(e->gc[g].uptime_s * 1000));
                e->gc_uptime_only = true;
            }
        if (e->ngc) qsort(e->gc, e->ngc, sizeof *e->gc, cmp_rec);
    }
}
