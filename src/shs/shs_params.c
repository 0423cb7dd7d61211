/* The one place query parameters are read: percent-decoded, checked against what SHS accepts,
 * and turned into typed values for the routes that read them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "shs/shs_internal.h"
#include "util/stats.h"

#define MAX_PARAMS 32

struct query {
    size_t n;
    const char *key[MAX_PARAMS], *val[MAX_PARAMS];   /* into the decoded copy */
};

static int hexval(int ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

void clarity__shs_url_decode(char *s, bool plus_space)
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

static void query_split(struct query *q, char *qs)
{
    for (char *save = NULL, *t = strtok_r(qs, "&", &save); t && q->n < MAX_PARAMS; t = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(t, '=');
        if (eq) *eq++ = 0;
        clarity__shs_url_decode(t, true);
        if (eq) clarity__shs_url_decode(eq, true);
        q->key[q->n] = t;
        q->val[q->n++] = eq ? eq : "";
    }
}

/* The first value given for key (JAX-RS binds the first of repeated single parameters). */
static const char *get(const struct query *q, const char *key)
{
    for (size_t i = 0; i < q->n; i++)
        if (!strcmp(q->key[i], key)) return q->val[i];
    return NULL;
}

/* Every value of key, each also split on commas (JAX-RS list parameters), copied to scratch. */
static size_t get_list(const struct query *q, const char *key, const char **out, char *scratch, size_t scratch_len)
{
    size_t n = 0, used = 0;
    for (size_t i = 0; i < q->n; i++) {
        if (strcmp(q->key[i], key)) continue;
        size_t len = strlen(q->val[i]);
        if (used + len + 1 > scratch_len) break;
        char *copy = scratch + used;
        memcpy(copy, q->val[i], len + 1);
        used += len + 1;
        for (char *save = NULL, *t = strtok_r(copy, ",", &save); t && n < SHS_MAX_LIST; t = strtok_r(NULL, ",", &save))
            out[n++] = t;
    }
    return n;
}

static bool get_bool(const struct query *q, const char *key, bool dflt, bool *bad)
{
    const char *v = get(q, key);
    if (!v) return dflt;
    if (!strcasecmp(v, "true")) return true;
    if (!strcasecmp(v, "false")) return false;
    *bad = true;
    return dflt;
}

static bool parse_int(const char *s, int64_t *out)
{
    char *end;
    if (!*s) return false;
    long long v = strtoll(s, &end, 10);
    if (*end) return false;
    *out = v;
    return true;
}

/* A quantile outside [0, 1] is refused like SHS refuses it (400): the summaries index a sorted
 * column with q * count, so 2 would read past it and 1e18 overflows the cast to an index. */
int clarity__shs_parse_quantiles(const char *s, double *qs, size_t max, size_t *nq, const char **bad, size_t *bad_len)
{
    *nq = 0;
    *bad = NULL;
    *bad_len = 0;
    while (s && *s) {
        char *end;
        double v = strtod(s, &end);
        if (end == s || (*end && *end != ',') || !isfinite(v) || *nq == max) return SHS_QUANTILES_SYNTAX;
        if (v < 0.0 || v > 1.0) {
            *bad = s;
            *bad_len = (size_t)(end - s);
            return SHS_QUANTILES_RANGE;
        }
        qs[(*nq)++] = v;
        s = *end ? end + 1 : end;
    }
    qsort(qs, *nq, sizeof *qs, clarity_cmp_double);
    return *nq > 0 ? SHS_QUANTILES_OK : SHS_QUANTILES_SYNTAX;
}

bool clarity__shs_status_wanted(const char *text, const char *const *want, size_t nwant)
{
    if (!nwant) return true;
    for (size_t i = 0; i < nwant; i++)
        if (!strcasecmp(want[i], text)) return true;
    return false;
}

/* The status vocabulary of a route (its enum in SHS: ApplicationStatus, JobExecutionStatus,
 * v1.StageStatus, v1.TaskStatus), and how a bad value is named. */
static const char *const app_statuses[] = {"running", "completed", NULL};
static const char *const job_statuses[] = {"RUNNING", "SUCCEEDED", "FAILED", "UNKNOWN", NULL};
static const char *const stage_statuses[] = {"ACTIVE", "COMPLETE", "FAILED", "PENDING", "SKIPPED", NULL};
static const char *const task_statuses[] = {"RUNNING", "KILLED", "FAILED", "SUCCESS", "UNKNOWN", NULL};

static int check_status(struct shs_req *r, unsigned which, const struct shs_params *p)
{
    const char *const *ok = NULL;
    const char *what = NULL;
    if (which & SHS_Q_APP_STATUS) ok = app_statuses, what = "application";
    else if (which & SHS_Q_JOB_STATUS) ok = job_statuses, what = "job";
    else if (which & SHS_Q_STAGE_STATUS) ok = stage_statuses, what = "stage";
    else if (which & SHS_Q_TASK_STATUS) ok = task_statuses, what = "task";
    for (size_t i = 0; ok && i < p->nstatus; i++) {
        bool found = false;
        for (size_t k = 0; ok[k] && !found; k++) found = !strcasecmp(ok[k], p->status[i]);
        if (!found) return clarity__shs_fail(r, SHS_BAD_PARAM, "bad %s status '%s'", what, p->status[i]);
    }
    return CLARITY_OK;
}

/* Checked in the order the resources always checked them, so the first bad one is named. */
static int read_params(struct shs_req *r, const struct query *q, unsigned which, struct shs_params *p)
{
    const char *v;
    if (which & (SHS_Q_DETAILS | SHS_Q_DETAILS_ON | SHS_Q_SUMMARIES)) {
        bool bad = false;
        p->details = get_bool(q, "details", (which & SHS_Q_DETAILS_ON) != 0, &bad);
        p->with_summaries = get_bool(q, "withSummaries", false, &bad);
        if (bad) return clarity__shs_fail(r, SHS_BAD_PARAM, "bad boolean parameter");
    }
    if (which & SHS_Q_SQL) {
        bool bad = false;
        p->details = get_bool(q, "details", true, &bad);
        p->plan_description = get_bool(q, "planDescription", true, &bad);
        if (bad) return clarity__shs_fail(r, SHS_BAD_PARAM, "bad boolean parameter");
    }
    if (which & (SHS_Q_SUMMARIES | SHS_Q_SUMMARY_QUANTILES)) {
        v = get(q, "quantiles");
        const char *dflt = which & SHS_Q_SUMMARY_QUANTILES ? "0.05,0.25,0.5,0.75,0.95" : "0.0,0.25,0.5,0.75,1.0";
        const char *bad;
        size_t bad_len;
        int qrc = clarity__shs_parse_quantiles(v ? v : dflt, p->quantiles, SHS_MAX_QUANTILES, &p->nquantiles, &bad, &bad_len);
        if (qrc == SHS_QUANTILES_RANGE)
            return clarity__shs_fail(r, SHS_BAD_PARAM, "Bad value for parameter \"quantiles\".  Expected a double between 0 and 1, got \"%.*s\"",
                                     (int)bad_len, bad);
        if (qrc != SHS_QUANTILES_OK)
            return clarity__shs_fail(r, SHS_BAD_PARAM, "bad quantiles '%s'", v ? v : "");
    }
    if (which & (SHS_Q_DETAILS | SHS_Q_DETAILS_ON))
        p->ntask_status = get_list(q, "taskStatus", p->task_status, p->scratch[1], sizeof p->scratch[1]);
    if (which & SHS_Q_PAGE) {
        if ((v = get(q, "offset")) && !parse_int(v, &p->offset))
            return clarity__shs_fail(r, SHS_BAD_PARAM, "bad offset '%s'", v);
        if ((v = get(q, "length")) && !parse_int(v, &p->length))
            return clarity__shs_fail(r, SHS_BAD_PARAM, "bad length '%s'", v);
    }
    if ((which & SHS_Q_SORT_BY) && (v = get(q, "sortBy"))) {
        if (!strcasecmp(v, "ID")) p->sort = 0;
        else if (!strcasecmp(v, "increasingRuntime") || !strcasecmp(v, "runtime") || !strcasecmp(v, "INCREASING_RUNTIME"))
            p->sort = 1;
        else if (!strcasecmp(v, "decreasingRuntime") || !strcasecmp(v, "-runtime") || !strcasecmp(v, "DECREASING_RUNTIME"))
            p->sort = -1;
        else return clarity__shs_fail(r, SHS_BAD_PARAM, "bad sortBy '%s'", v);
    }
    if (which & (SHS_Q_APP_STATUS | SHS_Q_JOB_STATUS | SHS_Q_STAGE_STATUS | SHS_Q_TASK_STATUS)) {
        p->nstatus = get_list(q, "status", p->status, p->scratch[0], sizeof p->scratch[0]);
        int rc = check_status(r, which, p);
        if (rc) return rc;
    }
    if (which & SHS_Q_APP_DATES) {
        /* SimpleDateParam's own refusal: 400 naming the text */
        static const char *const keys[] = {"minDate", "maxDate", "minEndDate", "maxEndDate"};
        int64_t *dst[] = {&p->min_start, &p->max_start, &p->min_end, &p->max_end};
        for (size_t i = 0; i < 4; i++)
            if ((v = get(q, keys[i])) && !clarity__shs_parse_date(v, dst[i]))
                return clarity__shs_fail(r, SHS_BAD_PARAM, "Couldn't parse date: %s", v);
    }
    if ((which & SHS_Q_LIMIT) && (v = get(q, "limit")) && !parse_int(v, &p->limit))
        return clarity__shs_fail(r, SHS_BAD_PARAM, "bad limit '%s'", v);
    return CLARITY_OK;
}

int clarity__shs_params_parse(struct shs_req *r, const char *query, unsigned which, struct shs_params *p)
{
    memset(p, 0, sizeof *p);
    p->length = 20;
    p->limit = INT64_MAX;
    /* ApplicationListResource's defaults: 2010-01-01 and 3000-01-01, GMT days */
    p->min_start = p->min_end = 1262304000000LL;
    p->max_start = p->max_end = 32503680000000LL;
    char *copy = strdup(query ? query : "");
    if (!copy) return clarity__shs_oom(r);
    struct query q = {0};
    query_split(&q, copy);
    int rc = read_params(r, &q, which, p);
    free(copy);
    return rc;
}
