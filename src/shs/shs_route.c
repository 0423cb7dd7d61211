/* Path parsing and dispatch: the routes of ApiRootResource / OneApplicationResource. Literal
 * sub-resources win over {attemptId}, as in JAX-RS matching. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "shs/shs_internal.h"

#define MAX_SEG 16

static int hexval(int ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    ch = tolower(ch);
    return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

static void url_decode(char *s, bool plus_space)
{
    char *o = s;
    for (char *p = s; *p; p++) {
        int h, l;
        if (*p == '%' && (h = hexval(p[1])) >= 0 && (l = hexval(p[2])) >= 0) {
            *o++ = (char)(h * 16 + l);
            p += 2;
        } else {
            *o++ = plus_space && *p == '+' ? ' ' : *p;
        }
    }
    *o = 0;
}

static void query_parse(struct shs_query *q, char *qs)
{
    for (char *save = NULL, *t = strtok_r(qs, "&", &save); t && q->n < SHS_MAX_PARAMS; t = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(t, '=');
        if (eq) *eq = 0;
        q->key[q->n] = strdup(t);
        q->val[q->n] = strdup(eq ? eq + 1 : "");
        if (!q->key[q->n] || !q->val[q->n]) {
            free(q->key[q->n]);
            free(q->val[q->n]);
            return;
        }
        url_decode(q->key[q->n], true);
        url_decode(q->val[q->n], true);
        q->n++;
    }
}

static void query_free(struct shs_query *q)
{
    for (size_t i = 0; i < q->n; i++) {
        free(q->key[i]);
        free(q->val[i]);
    }
}

static int cmp_start_desc(const void *x, const void *y)
{
    const struct clarity_app *a = *(struct clarity_app *const *)x, *b = *(struct clarity_app *const *)y;
    return (a->start_ms < b->start_ms) - (a->start_ms > b->start_ms);
}

/* Groups attempts by application id; returns the number of applications. */
static size_t group_apps(struct clarity_app *const *apps, size_t napps, struct shs_app_entry *out, struct clarity_app **pool)
{
    size_t n = 0, used = 0;
    bool *done = calloc(napps ? napps : 1, sizeof *done);
    if (!done) return 0;
    for (size_t i = 0; i < napps; i++) {
        if (done[i] || !apps[i]) continue;
        const char *id = apps[i]->app_id ? clarity_app_str(apps[i], apps[i]->app_id) : "";
        struct shs_app_entry *e = &out[n++];
        e->id = id;
        e->att = pool + used;
        e->natt = 0;
        for (size_t k = i; k < napps; k++) {
            if (done[k] || !apps[k]) continue;
            const char *kid = apps[k]->app_id ? clarity_app_str(apps[k], apps[k]->app_id) : "";
            if (strcmp(kid, id)) continue;
            done[k] = true;
            e->att[e->natt++] = apps[k];
        }
        used += e->natt;
        qsort(e->att, e->natt, sizeof *e->att, cmp_start_desc);
    }
    free(done);
    return n;
}

static bool is_resource(const char *s)
{
    static const char *r[] = {"jobs", "stages", "executors", "allexecutors", "environment", "storage",
                              "allmiscellaneousprocess", "logs", "sql", "streaming", "executorMetrics"};
    for (size_t i = 0; i < sizeof r / sizeof *r; i++)
        if (!strcmp(s, r[i])) return true;
    return false;
}

static enum shs_status app_resource(struct shs_ctx *c, struct clarity_app *a, char **seg, size_t nseg)
{
    const char *r = seg[0];
    struct shs_agg g;
    if (!strcmp(r, "environment") && nseg == 1) return shs_environment(c, a);
    if (!strcmp(r, "allmiscellaneousprocess") && nseg == 1) return shs_misc(c, a);
    if (!strcmp(r, "storage") && nseg >= 2 && nseg <= 3 && !strcmp(seg[1], "rdd"))
        return shs_storage(c, a, nseg == 3 ? seg[2] : NULL);
    bool jobs = !strcmp(r, "jobs") && nseg <= 2, stages = !strcmp(r, "stages") && nseg <= 4;
    bool execs = (!strcmp(r, "executors") || !strcmp(r, "allexecutors")) && nseg == 1;
    if (!jobs && !stages && !execs) return shs_fail(c, SHS_BAD_PATH, "no such resource: %s", r);
    if (shs_agg_build(&g, a) != 0) return shs_fail(c, SHS_NOT_FOUND, "out of memory");
    enum shs_status rc;
    if (jobs) rc = shs_jobs(c, &g, nseg == 2 ? seg[1] : NULL);
    else if (stages) rc = shs_stages(c, &g, seg + 1, nseg - 1);
    else rc = shs_executors(c, &g, r[0] == 'a');
    shs_agg_free(&g);
    return rc;
}

static enum shs_status route(struct shs_ctx *c, struct clarity_app *const *apps, size_t napps, char **seg, size_t nseg)
{
    if (nseg == 0 || strcmp(seg[0], "applications"))
        return shs_fail(c, SHS_BAD_PATH, "no such path: expected /applications[/...]");
    struct shs_app_entry *entries = calloc(napps ? napps : 1, sizeof *entries);
    struct clarity_app **pool = calloc(napps ? napps : 1, sizeof *pool);
    enum shs_status rc = SHS_OK;
    if (!entries || !pool) {
        rc = shs_fail(c, SHS_NOT_FOUND, "out of memory");
        goto out;
    }
    size_t n = group_apps(apps, napps, entries, pool);
    if (nseg == 1) {
        rc = shs_app_list(c, entries, n);
        goto out;
    }
    const struct shs_app_entry *e = NULL;
    for (size_t i = 0; i < n && !e; i++)
        if (!strcmp(entries[i].id, seg[1])) e = &entries[i];
    if (!e) {
        rc = shs_fail(c, SHS_NOT_FOUND, "no such app: %s", seg[1]);
        goto out;
    }
    if (nseg == 2) {
        shs_app_write(c, e);
        goto out;
    }
    const char *attempt = NULL;
    size_t rest = 2;
    if (!is_resource(seg[2])) {
        attempt = seg[2];
        rest = 3;
    }
    struct clarity_app *a = NULL;
    for (size_t i = 0; i < e->natt && !a; i++) {
        const char *id = e->att[i]->attempt_id ? clarity_app_str(e->att[i], e->att[i]->attempt_id) : NULL;
        if ((!attempt && !id) || (attempt && id && !strcmp(attempt, id))) a = e->att[i];
    }
    if (!a) {
        rc = attempt ? shs_fail(c, SHS_NOT_FOUND, "unknown app attempt: %s/%s", seg[1], attempt)
                     : shs_fail(c, SHS_NOT_FOUND, "no such app: %s (it has attempts; name one: /applications/%s/<attemptId>/...)", seg[1], seg[1]);
        goto out;
    }
    if (rest == nseg) shs_attempt_write(c, a);
    else if (!is_resource(seg[rest])) rc = shs_fail(c, SHS_BAD_PATH, "no such resource: %s", seg[rest]);
    else rc = app_resource(c, a, seg + rest, nseg - rest);
out:
    free(entries);
    free(pool);
    return rc;
}

enum shs_status shs_serve(struct clarity_app *const *apps, size_t napps, const char *rest_path, FILE *out, bool pretty,
                          char *err, size_t errlen)
{
    char *path = strdup(rest_path ? rest_path : "");
    struct shs_query q = {0};
    if (!path) {
        snprintf(err, errlen, "out of memory");
        return SHS_NOT_FOUND;
    }
    char *qm = strchr(path, '?');
    if (qm) {
        *qm = 0;
        query_parse(&q, qm + 1);
    }
    char *p = path;
    while (*p == '/') p++;
    if (!strncmp(p, "api/v1", 6) && (p[6] == '/' || !p[6])) p += 6;
    char *seg[MAX_SEG];
    size_t nseg = 0;
    enum shs_status rc;
    for (char *save = NULL, *t = strtok_r(p, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (nseg == MAX_SEG) {
            snprintf(err, errlen, "path too long: %s", rest_path);
            rc = SHS_BAD_PATH;
            goto done;
        }
        url_decode(t, false);
        seg[nseg++] = t;
    }
    /* Render into memory first so an error leaves the output empty. */
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem) {
        snprintf(err, errlen, "out of memory");
        rc = SHS_NOT_FOUND;
        goto done;
    }
    struct jsonw w;
    jsonw_init(&w, mem, pretty);
    struct shs_ctx c = {.w = &w, .q = &q, .err = err, .errlen = errlen};
    rc = route(&c, apps, napps, seg, nseg);
    if (rc == SHS_OK) jsonw_end(&w);
    fclose(mem);
    if (rc == SHS_OK) fwrite(buf, 1, len, out);
    free(buf);
done:
    query_free(&q);
    free(path);
    return rc;
}
