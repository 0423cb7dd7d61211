/* The one route table of the REST layer (ApiRootResource, OneApplicationResource and
 * OneApplicationAttemptResource), the matching of a path against it, and the resolution of
 * what a route needs (application, attempt, job, stage, aggregates) before its handler runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shs/shs_internal.h"
#include "util/jsonw.h"

/* What a route needs resolved before its handler runs. */
enum {
    SHS_NEED_APP = 1 << 0,             /* {appId}: an application */
    SHS_NEED_ATTEMPT = 1 << 1,         /* one attempt of it (named, or the only unnamed one) */
    SHS_NEED_AGG = 1 << 2,             /* the stage / executor aggregates */
    SHS_NEED_JOB = 1 << 3,             /* {jobId} */
    SHS_NEED_STAGE = 1 << 4,           /* {stageId} with at least one attempt SHS shows */
    SHS_NEED_STAGE_ATTEMPT = 1 << 5,   /* {stageAttemptId} of it */
    SHS_NEED_RDD_ID = 1 << 6,          /* {rddId} */
};

struct clarity__shs_route {
    /* segments; {x} matches any one. "@/" stands for applications/{appId}[/{attemptId}]: the
     * attempt segment is there unless the segment after {appId} is a literal of some "@/"
     * route (JAX-RS prefers literals to templates, step by step). */
    const char *pattern;
    unsigned needs;                    /* SHS_NEED_* */
    unsigned params;                   /* SHS_Q_*: the query parameters it reads */
    int (*handler)(struct shs_req *r); /* NULL: a route SHS has that logs cannot answer */
};

#define APP (SHS_NEED_APP | SHS_NEED_ATTEMPT)
static const struct clarity__shs_route routes[] = {
    {"applications", 0, SHS_Q_APP_STATUS | SHS_Q_LIMIT, clarity__shs_app_list},
    {"applications/{appId}", SHS_NEED_APP, 0, clarity__shs_app_one},
    {"applications/{appId}/{attemptId}", APP, 0, clarity__shs_attempt_one},
    {"@/jobs", APP | SHS_NEED_AGG, SHS_Q_JOB_STATUS, clarity__shs_job_list},
    {"@/jobs/{jobId}", APP | SHS_NEED_JOB | SHS_NEED_AGG, 0, clarity__shs_job_one},
    {"@/stages", APP | SHS_NEED_AGG, SHS_Q_DETAILS | SHS_Q_SUMMARIES | SHS_Q_STAGE_STATUS, clarity__shs_stage_list},
    {"@/stages/{stageId}", APP | SHS_NEED_STAGE | SHS_NEED_AGG, SHS_Q_DETAILS_ON | SHS_Q_SUMMARIES,
     clarity__shs_stage_attempts},
    {"@/stages/{stageId}/{stageAttemptId}", APP | SHS_NEED_STAGE | SHS_NEED_STAGE_ATTEMPT | SHS_NEED_AGG,
     SHS_Q_DETAILS_ON | SHS_Q_SUMMARIES, clarity__shs_stage_one},
    {"@/stages/{stageId}/{stageAttemptId}/taskSummary", APP | SHS_NEED_STAGE | SHS_NEED_STAGE_ATTEMPT,
     SHS_Q_SUMMARY_QUANTILES, clarity__shs_task_summary},
    {"@/stages/{stageId}/{stageAttemptId}/taskList", APP | SHS_NEED_STAGE | SHS_NEED_STAGE_ATTEMPT | SHS_NEED_AGG,
     SHS_Q_PAGE | SHS_Q_SORT_BY | SHS_Q_TASK_STATUS, clarity__shs_task_list},
    {"@/executors", APP | SHS_NEED_AGG, 0, clarity__shs_executors},
    {"@/allexecutors", APP | SHS_NEED_AGG, 0, clarity__shs_all_executors},
    {"@/environment", APP, 0, clarity__shs_environment},
    {"@/storage/rdd", APP, 0, clarity__shs_rdd_list},
    {"@/storage/rdd/{rddId}", APP | SHS_NEED_RDD_ID, 0, clarity__shs_rdd_one},
    {"@/allmiscellaneousprocess", APP, 0, clarity__shs_misc},
    /* SHS answers these from its store or the log files themselves (log download, SQL and
     * streaming listeners' data, executor metrics over time): not from the model */
    {"@/logs", APP, 0, NULL},
    {"@/sql", APP, 0, NULL},
    {"@/streaming", APP, 0, NULL},
    {"@/executorMetrics", APP, 0, NULL},
};
#undef APP

#define NROUTES (sizeof routes / sizeof *routes)
#define MAX_SEG 16

/* Splits a pattern (after "@/" when app-scoped) into segments; returns how many. */
static size_t pattern_segments(const char *pat, char out[][32], size_t max)
{
    size_t n = 0;
    while (*pat && n < max) {
        size_t len = strcspn(pat, "/");
        snprintf(out[n++], 32, "%.*s", (int)len, pat);
        pat += len + (pat[len] == '/');
    }
    return n;
}

static bool app_scoped(const struct clarity__shs_route *rt) { return !strncmp(rt->pattern, "@/", 2); }

/* The template segments a route matched: {appId} and {attemptId} by name, the others in
 * pattern order. */
struct route_vars {
    const char *app, *attempt;
    char *v[MAX_SEG];
};

static bool match(const struct clarity__shs_route *rt, char **seg, size_t nseg, struct route_vars *rv)
{
    char ps[MAX_SEG][32];
    size_t np = pattern_segments(app_scoped(rt) ? rt->pattern + 2 : rt->pattern, ps, MAX_SEG);
    if (np != nseg) return false;
    size_t nv = 0;
    for (size_t i = 0; i < np; i++) {
        if (ps[i][0] != '{') {
            if (strcmp(ps[i], seg[i])) return false;
        } else if (!strcmp(ps[i], "{appId}")) {
            rv->app = seg[i];
        } else if (!strcmp(ps[i], "{attemptId}")) {
            rv->attempt = seg[i];
        } else {
            rv->v[nv++] = seg[i];
        }
    }
    return true;
}

/* Whether s is the first segment of some app-scoped route (then it is not an attempt id). */
static bool app_literal(const char *s)
{
    for (size_t i = 0; i < NROUTES; i++) {
        if (!app_scoped(&routes[i])) continue;
        const char *p = routes[i].pattern + 2;
        size_t len = strcspn(p, "/");
        if (strlen(s) == len && !strncmp(p, s, len)) return true;
    }
    return false;
}

/* Finds the route of a path and its template segments. */
static const struct clarity__shs_route *find_route(struct shs_req *r, char **seg, size_t nseg, struct route_vars *rv)
{
    if (nseg == 0 || strcmp(seg[0], "applications")) {
        clarity__shs_fail(r, SHS_NO_ROUTE, "no such path: expected /applications[/...]");
        return NULL;
    }
    size_t rest = nseg > 2 && !app_literal(seg[2]) ? 3 : 2;
    for (size_t i = 0; i < NROUTES; i++) {
        const struct clarity__shs_route *rt = &routes[i];
        memset(rv, 0, sizeof *rv);
        if (!app_scoped(rt)) {
            /* applications/{appId}/{attemptId} only when no "@/" route claims the segment */
            if (match(rt, seg, nseg, rv) && (!rv->attempt || rest == 3)) return rt;
        } else if (nseg > rest && match(rt, seg + rest, nseg - rest, rv)) {
            rv->app = seg[1];
            rv->attempt = rest == 3 ? seg[2] : NULL;
            return rt;
        }
    }
    char path[512] = "";
    for (size_t i = rest, used = 0; i < nseg && used < sizeof path; i++)
        used += (size_t)snprintf(path + used, sizeof path - used, "%s%s", i > rest ? "/" : "", seg[i]);
    clarity__shs_fail(r, SHS_NO_ROUTE, "no such resource: %s", path);
    return NULL;
}

/* ---- what routes need ---- */

static int cmp_start_desc(const void *x, const void *y)
{
    const struct clarity_app *a = *(const struct clarity_app *const *)x, *b = *(const struct clarity_app *const *)y;
    return (a->start_ms < b->start_ms) - (a->start_ms > b->start_ms);
}

static const char *app_id(const struct clarity_app *a) { return a->app_id ? clarity_app_str(a, a->app_id) : ""; }

/* Groups attempts by application id (out and pool have napps slots); returns how many. */
static size_t group_apps(struct clarity_app *const *apps, size_t napps, struct shs_app_entry *out,
                         const struct clarity_app **pool, bool *done)
{
    size_t n = 0, used = 0;
    for (size_t i = 0; i < napps; i++) {
        if (done[i] || !apps[i]) continue;
        struct shs_app_entry *e = &out[n++];
        e->id = app_id(apps[i]);
        e->att = pool + used;
        e->natt = 0;
        for (size_t k = i; k < napps; k++) {
            if (done[k] || !apps[k] || strcmp(app_id(apps[k]), e->id)) continue;
            done[k] = true;
            e->att[e->natt++] = apps[k];
        }
        used += e->natt;
        qsort(e->att, e->natt, sizeof *e->att, cmp_start_desc);
    }
    return n;
}

/* A path id: a whole decimal number; job and stage ids never took a sign, rdd ids did. */
static bool parse_id(const char *s, bool allow_sign, int64_t *out)
{
    char *end;
    if (!*s || (!allow_sign && (*s == '-' || *s == '+'))) return false;
    long long v = strtoll(s, &end, 10);
    if (*end) return false;
    *out = v;
    return true;
}

static int resolve_attempt(struct shs_req *r, const char *app, const char *attempt)
{
    const struct shs_app_entry *e = r->entry;
    for (size_t i = 0; i < e->natt; i++) {
        const struct clarity_app *a = e->att[i];
        const char *id = a->attempt_id ? clarity_app_str(a, a->attempt_id) : NULL;
        if ((!attempt && !id) || (attempt && id && !strcmp(attempt, id))) {
            r->app = a;
            return CLARITY_OK;
        }
    }
    if (attempt) return clarity__shs_fail(r, SHS_NOT_FOUND, "unknown app attempt: %s/%s", app, attempt);
    return clarity__shs_fail(r, SHS_NOT_FOUND, "no such app: %s (it has attempts; name one: /applications/%s/<attemptId>/...)",
                             app, app);
}

/* Resolves the route's needs in order: application, attempt, then the template segments in
 * the order every pattern has them ({jobId}, {stageId}, {stageAttemptId}, {rddId}). */
static int resolve(struct shs_req *r, unsigned needs, const struct route_vars *rv)
{
    size_t v = 0;
    int rc;
    if (needs & SHS_NEED_APP) {
        for (size_t i = 0; i < r->napps && !r->entry; i++)
            if (!strcmp(r->apps[i].id, rv->app)) r->entry = &r->apps[i];
        if (!r->entry) return clarity__shs_fail(r, SHS_NOT_FOUND, "no such app: %s", rv->app);
        if ((needs & SHS_NEED_ATTEMPT) && (rc = resolve_attempt(r, rv->app, rv->attempt))) return rc;
    }
    const struct clarity_app *a = r->app;
    if (needs & SHS_NEED_JOB) {
        const char *s = rv->v[v++];
        int64_t id;
        if (!parse_id(s, false, &id)) return clarity__shs_fail(r, SHS_NO_ROUTE, "bad job id '%s'", s);
        if (!(r->job = clarity_app_job(a, id))) return clarity__shs_fail(r, SHS_NOT_FOUND, "unknown job: %lld", (long long)id);
    }
    if (needs & SHS_NEED_STAGE) {
        const char *s = rv->v[v++];
        if (!parse_id(s, false, &r->stage_id)) return clarity__shs_fail(r, SHS_NO_ROUTE, "bad stage id '%s'", s);
        bool found = false;
        for (size_t i = 0; i < a->nstages && !found; i++)
            found = a->stages[i].stage_id == r->stage_id && clarity__shs_stage_visible(&a->stages[i]);
        if (!found) return clarity__shs_fail(r, SHS_NOT_FOUND, "unknown stage: %lld", (long long)r->stage_id);
    }
    if (needs & SHS_NEED_STAGE_ATTEMPT) {
        const char *s = rv->v[v++];
        int64_t att;
        if (!parse_id(s, false, &att)) return clarity__shs_fail(r, SHS_NO_ROUTE, "bad stage attempt id '%s'", s);
        r->stage = clarity_app_stage(a, r->stage_id, (int32_t)att);
        if (!r->stage || !clarity__shs_stage_visible(r->stage))
            return clarity__shs_fail(r, SHS_NOT_FOUND, "unknown attempt for stage %lld: %lld", (long long)r->stage_id,
                                     (long long)att);
    }
    if (needs & SHS_NEED_RDD_ID) {
        const char *s = rv->v[v++];
        if (!parse_id(s, true, &r->rdd_id)) return clarity__shs_fail(r, SHS_NO_ROUTE, "bad rdd id '%s'", s);
    }
    return CLARITY_OK;
}

/* ---- the request ---- */

struct answer {
    struct shs_app_entry *entries;
    const struct clarity_app **pool;
    bool *done;
    struct shs_agg agg;
    bool have_agg;
    struct shs_params params;
};

/* Routes seg[0..nseg) and runs the handler, writing JSON through r->w. */
static int dispatch(struct shs_req *r, struct answer *x, struct clarity_app *const *apps, size_t napps, char **seg,
                    size_t nseg, const char *query)
{
    struct route_vars rv;
    const struct clarity__shs_route *rt = find_route(r, seg, nseg, &rv);
    if (!rt) return r->err->code;
    size_t n = napps ? napps : 1;
    x->entries = calloc(n, sizeof *x->entries);
    x->pool = calloc(n, sizeof *x->pool);
    x->done = calloc(n, sizeof *x->done);
    if (!x->entries || !x->pool || !x->done) return clarity__shs_oom(r);
    r->apps = x->entries;
    r->napps = group_apps(apps, napps, x->entries, x->pool, x->done);
    int rc = resolve(r, rt->needs, &rv);
    if (rc) return rc;
    if (!rt->handler) return clarity__shs_fail(r, SHS_NO_ROUTE, "no such resource: %s", seg[rv.attempt ? 3 : 2]);
    if ((rc = clarity__shs_params_parse(r, query, rt->params, &x->params))) return rc;
    r->p = &x->params;
    if (rt->needs & SHS_NEED_AGG) {
        if (clarity__shs_agg_build(&x->agg, r->app) != 0) return clarity__shs_oom(r);
        x->have_agg = true;
        r->agg = &x->agg;
    }
    return rt->handler(r);
}

int clarity_shs_answer(struct clarity_app *const *apps, size_t napps, const char *path_and_query, bool pretty,
                       struct clarity_shs_response *res, struct clarity_error *err)
{
    struct clarity_error local;
    if (!err) err = &local;
    clarity_error_clear(err);
    memset(res, 0, sizeof *res);
    struct shs_req r = {.err = err};
    char *path = strdup(path_and_query ? path_and_query : "");
    if (!path) {
        res->status = 500;
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    }
    char *query = strchr(path, '?');
    if (query) *query++ = 0;
    char *p = path;
    while (*p == '/') p++;
    if (!strncmp(p, "api/v1", 6) && (p[6] == '/' || !p[6])) p += 6;
    char *seg[MAX_SEG];
    size_t nseg = 0;
    int rc = CLARITY_OK;
    for (char *save = NULL, *t = strtok_r(p, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (nseg == MAX_SEG) {
            rc = clarity__shs_fail(&r, SHS_NO_ROUTE, "path too long: %s", path_and_query);
            break;
        }
        clarity__shs_url_decode(t, false);
        seg[nseg++] = t;
    }
    /* rendered into memory, so a failure half-way leaves no partial body */
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = rc ? NULL : open_memstream(&buf, &len);
    struct answer x = {0};
    if (!rc && !mem) rc = clarity__shs_oom(&r);
    if (!rc) {
        struct jsonw w;
        clarity_jsonw_init(&w, mem, pretty);
        r.w = &w;
        rc = dispatch(&r, &x, apps, napps, seg, nseg, query);
        if (!rc) clarity_jsonw_end(&w);
        if (fclose(mem) != 0 && !rc) rc = clarity__shs_oom(&r);
    }
    if (x.have_agg) clarity__shs_agg_free(&x.agg);
    free(x.entries);
    free(x.pool);
    free(x.done);
    free(path);
    if (rc) {
        free(buf);
        res->status = r.http ? r.http : 500;
        return rc;
    }
    res->status = 200;
    res->body = buf;
    res->len = len;
    return CLARITY_OK;
}

void clarity_shs_response_free(struct clarity_shs_response *res)
{
    if (!res) return;
    free(res->body);
    res->body = NULL;
    res->len = 0;
}
