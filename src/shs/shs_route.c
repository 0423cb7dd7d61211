/* The one route table of the REST layer (ApiRootResource, OneApplicationResource and
 * OneApplicationAttemptResource), the matching of a path against it, and the resolution of
 * what a route needs (application, attempt, job, stage, aggregates) before its handler runs. */
#include <stdint.h>
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
    SHS_NEED_SQL = 1 << 7,             /* {executionId} (digits, as SHS's path pattern) */
};

/* What a resource shows that the loader may leave out otherwise (clarity_shs_load_options). */
enum {
    SHS_SHOWS_TASK_ACCUMS = 1 << 0,    /* tasks with their accumulables (always) */
    SHS_SHOWS_DETAILS = 1 << 1,        /* the same, when details is on */
    SHS_SHOWS_EXEC_PEAKS = 1 << 2,     /* executors' peak metrics, which TaskEnds also raise */
    SHS_SHOWS_FILES = 1 << 3,          /* the log files themselves: the handler writes a ZIP to
                                          r->out, not JSON */
    SHS_SHOWS_SQL = 1 << 4,            /* plan graphs and SQL metric values (sql_plan_graphs) */
};

struct clarity__shs_route {
    /* segments; {x} matches any one. "@/" stands for applications/{appId}[/{attemptId}]: the
     * attempt segment is there unless the segment after {appId} is a literal of some "@/"
     * route (JAX-RS prefers literals to templates, step by step). */
    const char *pattern;
    unsigned needs;                    /* SHS_NEED_* */
    unsigned index;                    /* SHS_IX_*: the indexes its resource reads */
    unsigned params;                   /* SHS_Q_*: the query parameters it reads */
    unsigned shows;                    /* SHS_SHOWS_* */
    int (*check)(struct shs_req *r);   /* what the log may lack (404) besides the ids; NULL none */
    int (*handler)(struct shs_req *r); /* NULL: a route SHS has that logs cannot answer */
};

#define APP (SHS_NEED_APP | SHS_NEED_ATTEMPT)
#define STAGE_IX (SHS_IX_TASKS | SHS_IX_ACCUMS)
#define JOB_IX (SHS_IX_LAUNCH | SHS_IX_STAGE_IDS)
static const struct clarity__shs_route routes[] = {
    {"version", 0, 0, 0, 0, NULL, clarity__shs_version},
    {"applications", 0, 0, SHS_Q_APP_STATUS | SHS_Q_APP_DATES | SHS_Q_LIMIT, 0, NULL, clarity__shs_app_list},
    {"applications/{appId}", SHS_NEED_APP, 0, 0, 0, NULL, clarity__shs_app_one},
    {"applications/{appId}/{attemptId}", APP, 0, 0, 0, NULL, clarity__shs_attempt_one},
    {"@/jobs", APP | SHS_NEED_AGG, JOB_IX, SHS_Q_JOB_STATUS, 0, NULL, clarity__shs_job_list},
    {"@/jobs/{jobId}", APP | SHS_NEED_JOB | SHS_NEED_AGG, JOB_IX, 0, 0, NULL, clarity__shs_job_one},
    {"@/stages", APP | SHS_NEED_AGG, STAGE_IX, SHS_Q_DETAILS | SHS_Q_SUMMARIES | SHS_Q_STAGE_STATUS, SHS_SHOWS_DETAILS,
     NULL, clarity__shs_stage_list},
    {"@/stages/{stageId}", APP | SHS_NEED_STAGE | SHS_NEED_AGG, STAGE_IX, SHS_Q_DETAILS_ON | SHS_Q_SUMMARIES,
     SHS_SHOWS_DETAILS, NULL, clarity__shs_stage_attempts},
    {"@/stages/{stageId}/{stageAttemptId}", APP | SHS_NEED_STAGE | SHS_NEED_STAGE_ATTEMPT | SHS_NEED_AGG, STAGE_IX,
     SHS_Q_DETAILS_ON | SHS_Q_SUMMARIES, SHS_SHOWS_DETAILS, NULL, clarity__shs_stage_one},
    {"@/stages/{stageId}/{stageAttemptId}/taskSummary", APP | SHS_NEED_STAGE | SHS_NEED_STAGE_ATTEMPT, SHS_IX_TASKS,
     SHS_Q_SUMMARY_QUANTILES, 0, clarity__shs_task_summary_check, clarity__shs_task_summary},
    /* no aggregates: a task list writes the stage's own task rows, and summing every
       executor's totals over all tasks would cost a pass over the whole application per page */
    {"@/stages/{stageId}/{stageAttemptId}/taskList", APP | SHS_NEED_STAGE | SHS_NEED_STAGE_ATTEMPT,
     SHS_IX_TASKS | SHS_IX_ACCUMS, SHS_Q_PAGE | SHS_Q_SORT_BY | SHS_Q_TASK_STATUS, SHS_SHOWS_TASK_ACCUMS, NULL,
     clarity__shs_task_list},
    {"@/executors", APP | SHS_NEED_AGG, SHS_IX_STAGE_IDS, 0, SHS_SHOWS_EXEC_PEAKS, NULL, clarity__shs_executors},
    {"@/allexecutors", APP | SHS_NEED_AGG, SHS_IX_STAGE_IDS, 0, SHS_SHOWS_EXEC_PEAKS, NULL, clarity__shs_all_executors},
    {"@/environment", APP, 0, 0, 0, clarity__shs_environment_check, clarity__shs_environment},
    {"@/storage/rdd", APP, 0, 0, 0, NULL, clarity__shs_rdd_list},
    {"@/storage/rdd/{rddId}", APP | SHS_NEED_RDD_ID, 0, 0, 0, clarity__shs_rdd_one_check, clarity__shs_rdd_one},
    {"@/allmiscellaneousprocess", APP, 0, 0, 0, NULL, clarity__shs_misc},
    /* every attempt's files when none is named, so the attempt is not resolved here */
    {"@/logs", SHS_NEED_APP, 0, 0, SHS_SHOWS_FILES, clarity__shs_logs_check, clarity__shs_logs},
    {"@/sql", APP, 0, SHS_Q_SQL | SHS_Q_PAGE, SHS_SHOWS_SQL, clarity__shs_sql_check, clarity__shs_sql_list},
    {"@/sql/{executionId}", APP | SHS_NEED_SQL, 0, SHS_Q_SQL, SHS_SHOWS_SQL, clarity__shs_sql_check,
     clarity__shs_sql_one},
    /* SHS answers these from its streaming listener's data and executor metrics over time:
     * not from the model */
    {"@/streaming", APP, 0, 0, 0, NULL, NULL},
    {"@/executorMetrics", APP, 0, 0, 0, NULL, NULL},
};
#undef APP
#undef STAGE_IX
#undef JOB_IX

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
    if (nseg == 1 && !strcmp(seg[0], "version")) {
        memset(rv, 0, sizeof *rv);
        return &routes[0];
    }
    if (nseg == 0 || strcmp(seg[0], "applications")) {
        clarity__shs_fail(r, SHS_NO_ROUTE, "no such path: expected /applications[/...] or /version");
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

struct app_pos { const char *id; size_t pos; };
struct app_group { size_t first, start, n; };   /* first position in apps; span in pool */

static int cmp_app_pos(const void *x, const void *y)
{
    const struct app_pos *a = x, *b = y;
    int d = strcmp(a->id, b->id);
    return d ? d : (a->pos > b->pos) - (a->pos < b->pos);
}

static int cmp_group_first(const void *x, const void *y)
{
    const struct app_group *a = x, *b = y;
    return (a->first > b->first) - (a->first < b->first);
}

/* Groups attempts by application id: the groups in the order their first attempt comes, the
 * attempts of one newest first. out, pool, keys and groups have napps slots; returns how
 * many groups. Sorting by id keeps a directory of many logs O(n log n). */
static size_t group_apps(struct clarity_app *const *apps, size_t napps, struct shs_app_entry *out,
                         const struct clarity_app **pool, struct app_pos *keys, struct app_group *groups)
{
    size_t n = 0, ng = 0;
    for (size_t i = 0; i < napps; i++)
        if (apps[i]) keys[n++] = (struct app_pos){app_id(apps[i]), i};
    qsort(keys, n, sizeof *keys, cmp_app_pos);
    for (size_t i = 0; i < n; i++) {
        pool[i] = apps[keys[i].pos];
        if (i == 0 || strcmp(keys[i].id, keys[i - 1].id)) groups[ng++] = (struct app_group){keys[i].pos, i, 0};
        groups[ng - 1].n++;
    }
    qsort(groups, ng, sizeof *groups, cmp_group_first);
    for (size_t k = 0; k < ng; k++) {
        struct shs_app_entry *e = &out[k];
        e->att = pool + groups[k].start;
        e->natt = groups[k].n;
        e->id = app_id(e->att[0]);
        qsort(e->att, e->natt, sizeof *e->att, cmp_start_desc);
    }
    return ng;
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

/* SHS's 404 texts: the application resources (OneApplicationResource, ...AttemptResource) say
 * "unknown app"; every resource under an application goes through withSparkUI, which says
 * "no such app: <appId>" whether the application or its attempt is missing. */
static int resolve_attempt(struct shs_req *r, bool scoped, const char *app, const char *attempt)
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
    if (!scoped) return clarity__shs_fail(r, SHS_NOT_FOUND, "unknown app %s, attempt %s", app, attempt ? attempt : "");
    return clarity__shs_fail(r, SHS_NOT_FOUND, "no such app: %s", app);
}

/* Resolves the route's needs in order: application, attempt, then the template segments in
 * the order every pattern has them ({jobId}, {stageId}, {stageAttemptId}, {rddId}). */
static int resolve(struct shs_req *r, const struct clarity__shs_route *rt, const struct route_vars *rv)
{
    unsigned needs = rt->needs;
    bool scoped = app_scoped(rt);
    size_t v = 0;
    int rc;
    if (needs & SHS_NEED_APP) {
        for (size_t i = 0; i < r->napps && !r->entry; i++)
            if (!strcmp(r->apps[i].id, rv->app)) r->entry = &r->apps[i];
        if (!r->entry && !scoped && rv->attempt)
            return clarity__shs_fail(r, SHS_NOT_FOUND, "unknown app %s, attempt %s", rv->app, rv->attempt);
        if (!r->entry) return clarity__shs_fail(r, SHS_NOT_FOUND, scoped ? "no such app: %s" : "unknown app: %s", rv->app);
        r->attempt = rv->attempt;
        if ((needs & SHS_NEED_ATTEMPT) && (rc = resolve_attempt(r, scoped, rv->app, rv->attempt))) return rc;
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
        if (!r->stage || !clarity__shs_stage_visible(r->stage)) {
            /* SHS names the attempts it has, in its store's order (by attempt id) */
            char found[256] = "";
            size_t used = 0;
            int32_t last = -1;
            for (;;) {   /* the next larger visible attempt id, so they print in order */
                int32_t next = INT32_MAX;
                for (size_t i = 0; i < a->nstages; i++) {
                    const struct clarity_stage *o = &a->stages[i];
                    if (o->stage_id == r->stage_id && o->attempt > last && o->attempt < next && clarity__shs_stage_visible(o))
                        next = o->attempt;
                }
                if (next == INT32_MAX || used + 16 > sizeof found) break;
                used += (size_t)snprintf(found + used, sizeof found - used, "%s%d", last >= 0 ? "," : "", (int)next);
                last = next;
            }
            return clarity__shs_fail(r, SHS_NOT_FOUND, "unknown attempt for stage %lld.  Found attempts: [%s]",
                                     (long long)r->stage_id, found);
        }
    }
    if (needs & SHS_NEED_RDD_ID) {
        const char *s = rv->v[v++];
        if (!parse_id(s, true, &r->rdd_id)) return clarity__shs_fail(r, SHS_NO_ROUTE, "bad rdd id '%s'", s);
    }
    if (needs & SHS_NEED_SQL) {
        const char *s = rv->v[v++];
        if (!parse_id(s, false, &r->sql_id)) return clarity__shs_fail(r, SHS_NO_ROUTE, "bad execution id '%s'", s);
        r->have_sql_id = true;
    }
    return CLARITY_OK;
}

/* ---- the request ---- */

/* A path split into decoded segments and its query, and the route it matched: parsed once
 * per request (clarity_shs_request_new), for the server's questions before it loads anything
 * and for the answer. */
struct clarity_shs_request {
    char *path;
    char *seg[MAX_SEG];
    size_t nseg;
    const char *query;
    const struct clarity__shs_route *rt;     /* NULL: not routed (why in err, http) */
    struct route_vars rv;
    struct clarity_error err;
    int http;
};

/* What one answer allocates. */
struct answer {
    struct shs_app_entry *entries;
    const struct clarity_app **pool;
    struct app_pos *keys;
    struct app_group *groups;
    struct shs_index ix;
    struct shs_agg agg;
    bool have_ix, have_agg;
    struct shs_params params;
};

static void answer_free(struct answer *x)
{
    if (x->have_agg) clarity__shs_agg_free(&x->agg);
    if (x->have_ix) clarity__shs_index_free(&x->ix);
    free(x->entries);
    free(x->pool);
    free(x->keys);
    free(x->groups);
}

/* Splits the path into decoded segments (after an optional /api/v1) and its query. */
static int split_path(struct shs_req *r, struct clarity_shs_request *x, const char *path_and_query)
{
    x->path = strdup(path_and_query ? path_and_query : "");
    if (!x->path) return clarity__shs_oom(r);
    char *query = strchr(x->path, '?');
    if (query) *query++ = 0;
    x->query = query;
    char *p = x->path;
    while (*p == '/') p++;
    if (!strncmp(p, "api/v1", 6) && (p[6] == '/' || !p[6])) p += 6;
    for (char *save = NULL, *t = strtok_r(p, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (x->nseg == MAX_SEG) return clarity__shs_fail(r, SHS_NO_ROUTE, "path too long: %s", path_and_query);
        clarity__shs_url_decode(t, false);
        x->seg[x->nseg++] = t;
    }
    return CLARITY_OK;
}

/* Everything that can turn the request down, and everything the answer needs allocated:
 * route, application, ids, query parameters, indexes, aggregates, then the resource's own
 * check. Nothing is written; on success the handler can stream the answer. */
static int prepare(struct shs_req *r, struct answer *x, struct clarity_app *const *apps, size_t napps,
                   const struct clarity_shs_request *q)
{
    if (!q->rt) {
        *r->err = q->err;
        r->http = q->http;
        return q->err.code;
    }
    const struct clarity__shs_route *rt = q->rt;
    struct route_vars rv = q->rv;
    int rc;
    size_t n = napps ? napps : 1;
    x->entries = calloc(n, sizeof *x->entries);
    x->pool = calloc(n, sizeof *x->pool);
    x->keys = calloc(n, sizeof *x->keys);
    x->groups = calloc(n, sizeof *x->groups);
    if (!x->entries || !x->pool || !x->keys || !x->groups) return clarity__shs_oom(r);
    r->apps = x->entries;
    r->napps = group_apps(apps, napps, x->entries, x->pool, x->keys, x->groups);
    if ((rc = resolve(r, rt, &rv))) return rc;
    if (!rt->handler) return clarity__shs_fail(r, SHS_NO_ROUTE, "no such resource: %s", q->seg[rv.attempt ? 3 : 2]);
    if ((rc = clarity__shs_params_parse(r, q->query, rt->params, &x->params))) return rc;
    r->p = &x->params;
    unsigned index = rt->index | ((rt->needs & SHS_NEED_AGG) ? SHS_IX_TASKS : 0);
    if (index) {
        if (clarity__shs_index_build(&x->ix, r->app, index) != 0) return clarity__shs_oom(r);
        x->have_ix = true;
        r->ix = &x->ix;
    }
    if (rt->needs & SHS_NEED_AGG) {
        if (clarity__shs_agg_build(&x->agg, r->app, &x->ix) != 0) return clarity__shs_oom(r);
        x->have_agg = true;
        r->agg = &x->agg;
    }
    if (rt->check && (rc = rt->check(r))) return rc;
    return CLARITY_OK;
}

#define CT_JSON "application/json"
#define CT_BINARY "application/octet-stream"

/* The answer, streamed to out; for a binary answer also its content type and the file name
 * SHS gives it (Content-Disposition: attachment; filename=eventLogs-<appId>[-<attemptId>].zip). */
static int answer(struct clarity_app *const *apps, size_t napps, const struct clarity_shs_request *q, bool pretty,
                  FILE *out, int *status, const char **ctype, char **filename, struct clarity_error *err)
{
    struct clarity_error local;
    if (!err) err = &local;
    clarity_error_clear(err);
    struct shs_req r = {.err = err, .out = out};
    struct answer x = {0};
    const struct clarity__shs_route *rt = q->rt;
    int rc = prepare(&r, &x, apps, napps, q);
    if (!rc && (rt->shows & SHS_SHOWS_FILES)) {
        if (ctype) *ctype = CT_BINARY;
        if (filename && asprintf(filename, "eventLogs-%s%s%s.zip", r.entry->id, r.attempt ? "-" : "",
                                 r.attempt ? r.attempt : "") < 0) {
            *filename = NULL;
            rc = clarity__shs_oom(&r);
        }
        if (!rc) rc = rt->handler(&r);
    } else if (!rc) {
        struct jsonw w;
        char buf[1 << 16];
        clarity_jsonw_init(&w, out, pretty);
        clarity_jsonw_buffer(&w, buf, sizeof buf);
        r.w = &w;
        rc = rt->handler(&r);
        if (!rc) clarity_jsonw_end(&w);
        clarity_jsonw_flush(&w);
    }
    answer_free(&x);
    *status = rc ? (r.http ? r.http : 500) : 200;
    return rc;
}

int clarity_shs_request_new(const char *path_and_query, struct clarity_shs_request **out)
{
    struct clarity_shs_request *q = calloc(1, sizeof *q);
    *out = q;
    if (!q) return CLARITY_ENOMEM;
    struct shs_req r = {.err = &q->err};
    if (split_path(&r, q, path_and_query) == CLARITY_OK) q->rt = find_route(&r, q->seg, q->nseg, &q->rv);
    q->http = r.http;
    return q->err.code == CLARITY_ENOMEM ? CLARITY_ENOMEM : CLARITY_OK;
}

void clarity_shs_request_free(struct clarity_shs_request *q)
{
    if (!q) return;
    free(q->path);
    free(q);
}

int clarity_shs_request_answer_to(const struct clarity_shs_request *q, struct clarity_app *const *apps, size_t napps,
                                  bool pretty, FILE *out, int *status, const char **content_type, char **filename,
                                  struct clarity_error *err)
{
    *content_type = CT_JSON;
    *filename = NULL;
    return answer(apps, napps, q, pretty, out, status, content_type, filename, err);
}

/* One call's answer over a request parsed for it. */
static int answer_path(struct clarity_app *const *apps, size_t napps, const char *path_and_query, bool pretty, FILE *out,
                       int *status, const char **ctype, char **filename, struct clarity_error *err)
{
    struct clarity_shs_request *q;
    if (clarity_shs_request_new(path_and_query, &q) != CLARITY_OK) {
        clarity_shs_request_free(q);
        *status = 500;
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    }
    int rc = answer(apps, napps, q, pretty, out, status, ctype, filename, err);
    clarity_shs_request_free(q);
    return rc;
}

int clarity_shs_answer_to(struct clarity_app *const *apps, size_t napps, const char *path_and_query, bool pretty,
                          FILE *out, int *status, struct clarity_error *err)
{
    return answer_path(apps, napps, path_and_query, pretty, out, status, NULL, NULL, err);
}

int clarity_shs_answer_to_typed(struct clarity_app *const *apps, size_t napps, const char *path_and_query, bool pretty,
                                FILE *out, int *status, const char **content_type, char **filename,
                                struct clarity_error *err)
{
    *content_type = CT_JSON;
    *filename = NULL;
    return answer_path(apps, napps, path_and_query, pretty, out, status, content_type, filename, err);
}

int clarity_shs_answer(struct clarity_app *const *apps, size_t napps, const char *path_and_query, bool pretty,
                       struct clarity_shs_response *res, struct clarity_error *err)
{
    struct clarity_error local;
    if (!err) err = &local;
    memset(res, 0, sizeof *res);
    res->content_type = CT_JSON;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem) {
        res->status = 500;
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    }
    int rc = answer_path(apps, napps, path_and_query, pretty, mem, &res->status, &res->content_type, &res->filename, err);
    if (fclose(mem) != 0 && !rc) {
        rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
        res->status = 500;
    }
    /* a failure half-way leaves no partial body */
    if (rc) {
        free(buf);
        free(res->filename);
        res->filename = NULL;
        res->content_type = CT_JSON;
        return rc;
    }
    res->body = buf;
    res->len = len;
    return CLARITY_OK;
}

const char *clarity_shs_content_type(const char *path_and_query)
{
    struct clarity_shs_request *q;
    clarity_shs_request_new(path_and_query, &q);
    const char *t = q && q->rt && (q->rt->shows & SHS_SHOWS_FILES) ? CT_BINARY : CT_JSON;
    clarity_shs_request_free(q);
    return t;
}

void clarity_shs_response_free(struct clarity_shs_response *res)
{
    if (!res) return;
    free(res->body);
    res->body = NULL;
    res->len = 0;
    free(res->filename);
    res->filename = NULL;
}

void clarity_shs_request_load_options(const struct clarity_shs_request *q, struct clarity_load_options *opt)
{
    unsigned shows = 0;
    if (q && q->rt) {
        shows = q->rt->shows;
        /* a query the answer will refuse needs nothing either */
        struct clarity_error err;
        struct shs_req r = {.err = &err};
        struct shs_params params = {0};
        if ((shows & SHS_SHOWS_DETAILS) && clarity__shs_params_parse(&r, q->query, q->rt->params, &params) == CLARITY_OK &&
            params.details)
            shows |= SHS_SHOWS_TASK_ACCUMS;
    }
    opt->keep_task_accumulables = (shows & SHS_SHOWS_TASK_ACCUMS) != 0;
    opt->user_task_accumulables_only = true;
    opt->skip_task_executor_metrics = !(shows & SHS_SHOWS_EXEC_PEAKS);
    opt->sql_plan_graphs = (shows & SHS_SHOWS_SQL) != 0;
}

void clarity_shs_load_options(const char *path_and_query, struct clarity_load_options *opt)
{
    struct clarity_shs_request *q;
    clarity_shs_request_new(path_and_query, &q);
    clarity_shs_request_load_options(q, opt);
    clarity_shs_request_free(q);
}

const char *clarity_shs_request_app(const struct clarity_shs_request *q)
{
    /* also for a path under an application that routes nowhere: a server checks who may see
     * the application before saying there is no such resource in it */
    return q && q->nseg >= 2 && !strcmp(q->seg[0], "applications") ? q->seg[1] : NULL;
}

bool clarity_shs_request_stage(const struct clarity_shs_request *q, int64_t *stage_id)
{
    /* every route that names a stage reads that stage's tasks and nothing of other stages'
     * (its aggregates, executor summary and task rows are the stage's own): a route added
     * with SHS_NEED_STAGE must keep to that, or a server's one-stage load answers it wrong */
    if (!q || !q->rt || !(q->rt->needs & SHS_NEED_STAGE)) return false;
    const char *s = q->rv.v[(q->rt->needs & SHS_NEED_JOB) ? 1 : 0];
    return s && parse_id(s, false, stage_id);
}

bool clarity_shs_request_reads_no_tasks(const struct clarity_shs_request *q)
{
    /* a route added that reads tasks through anything but its indexes and aggregates (a
     * handler scanning a->tasks itself) must be left out here by hand, or a server's
     * no-task load answers it wrong: tests/serve compares every such route on lean models */
    if (!q || !q->rt) return true;
    return !(q->rt->needs & SHS_NEED_AGG) && !(q->rt->index & (SHS_IX_TASKS | SHS_IX_LAUNCH | SHS_IX_ACCUMS)) && !(q->rt->shows & SHS_SHOWS_SQL);
}

bool clarity_shs_request_stage_rows(const struct clarity_shs_request *q)
{
    if (!q || !q->rt || q->rt->handler != clarity__shs_stage_list) return false;
    struct clarity_error err;
    struct shs_req r = {.err = &err};
    struct shs_params params = {0};
    if (clarity__shs_params_parse(&r, q->query, q->rt->params, &params) != CLARITY_OK) return false;   /* a 400 */
    return params.details || params.with_summaries;
}

bool clarity_shs_request_task_sums(const struct clarity_shs_request *q)
{
    /* the routes with aggregates that name no stage (a stage's own routes list its tasks and
     * have one-stage loads); details and withSummaries list tasks or take quantiles of them */
    if (!q || !q->rt || !(q->rt->needs & SHS_NEED_AGG) || (q->rt->needs & SHS_NEED_STAGE) || (q->rt->shows & SHS_SHOWS_SQL))
        return false;
    struct clarity_error err;
    struct shs_req r = {.err = &err};
    struct shs_params params = {0};
    if (clarity__shs_params_parse(&r, q->query, q->rt->params, &params) != CLARITY_OK) return true;   /* a 400 */
    return !params.details && !params.with_summaries;
}
