/* What went wrong: failed task attempts grouped by reason (exception class and the first line
 * of its message, counted) and executors lost, grouped by the reason Spark logged. The text
 * summary shows the most frequent few; the JSON lists them all. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/report.h"
#include "util/jsonw.h"

#define S(id) clarity_app_str(a, (id))

struct reason_count {
    char *text;
    int64_t count;
};

struct reasons {
    struct reason_count *p;
    size_t n, cap;
    int64_t total;
};

/* The first line, without trailing spaces, at most 200 bytes: a stack trace's first line
 * names the problem, and the rest differs between attempts of the same failure. */
static char *first_line(const char *s)
{
    size_t n = strcspn(s, "\r\n");
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    if (n > 200) n = 200;
    return strndup(s, n);
}

/* The same failure on another container or host is the same reason: YARN's "Container
 * marked as failed: container_..._000002 on host: h2. Exit status: 56" differs per executor
 * only in those two words, so they become "*" and the exit status stays. */
static char *generalize(char *s)
{
    if (!s) return NULL;
    char *out = s, *p = s;
    bool after_host = false;
    while (*p) {
        if (*p == ' ') {
            *out++ = *p++;
            continue;
        }
        size_t w = strcspn(p, " ");
        bool host = after_host;
        after_host = w == 5 && !strncmp(p, "host:", 5);
        if (host || !strncmp(p, "container_", 10)) {
            bool dot = p[w - 1] == '.';
            *out++ = '*';
            if (dot) *out++ = '.';
            p += w;
        } else {
            memmove(out, p, w);
            out += w, p += w;
        }
    }
    *out = '\0';
    return s;
}

static int add(struct reasons *r, char *text)
{
    if (!text) return -1;
    r->total++;
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->p[i].text, text)) {
            r->p[i].count++;
            free(text);
            return 0;
        }
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 8;
        struct reason_count *p = realloc(r->p, cap * sizeof *p);
        if (!p) {
            free(text);
            return -1;
        }
        r->p = p, r->cap = cap;
    }
    r->p[r->n++] = (struct reason_count){text, 1};
    return 0;
}

static int by_count(const void *x, const void *y)
{
    const struct reason_count *a = x, *b = y;
    if (a->count != b->count) return a->count < b->count ? 1 : -1;
    return strcmp(a->text, b->text);
}

static void reasons_free(struct reasons *r)
{
    for (size_t i = 0; i < r->n; i++) free(r->p[i].text);
    free(r->p);
}

/* One failed attempt's reason as a short text: "class: first line" for an exception. */
static char *task_reason(const struct clarity_app *a, const struct clarity_task_end_reason *t)
{
    char buf[512];
    switch (t->kind) {
    case CLARITY_END_EXCEPTION: {
        char *msg = first_line(S(t->u.exception.description));
        if (!msg) return NULL;
        snprintf(buf, sizeof buf, "%s%s%s", S(t->u.exception.class_name), *msg ? ": " : "", msg);
        free(msg);
        break;
    }
    case CLARITY_END_FETCH_FAILED:
        snprintf(buf, sizeof buf, "FetchFailed from %s", t->u.fetch.host ? S(t->u.fetch.host) : "an unknown host");
        break;
    case CLARITY_END_EXECUTOR_LOST: {
        char *why = generalize(first_line(S(t->u.executor_lost.loss_reason)));
        if (!why) return NULL;
        snprintf(buf, sizeof buf, "ExecutorLostFailure%s%s", *why ? ": " : "", why);
        free(why);
        break;
    }
    case CLARITY_END_RESUBMITTED: snprintf(buf, sizeof buf, "Resubmitted (its executor was lost)"); break;
    case CLARITY_END_TASK_RESULT_LOST: snprintf(buf, sizeof buf, "TaskResultLost"); break;
    case CLARITY_END_COMMIT_DENIED: snprintf(buf, sizeof buf, "TaskCommitDenied"); break;
    default: snprintf(buf, sizeof buf, "reason not logged"); break;
    }
    return strdup(buf);
}

/* Failed attempts (killed ones are not failures: speculation and cancelled jobs kill tasks
 * on purpose), and executors removed with a reason. */
static int gather(const struct clarity_app *a, struct reasons *tasks, struct reasons *execs)
{
    for (size_t i = 0; i < a->ntask_reasons; i++) {
        const struct clarity_task_end_reason *t = &a->task_reasons[i];
        if (t->kind == CLARITY_END_KILLED) continue;
        if (add(tasks, task_reason(a, t))) return -1;
    }
    for (size_t i = 0; i < a->nexecs; i++)
        if (a->execs[i].remove_reason && *S(a->execs[i].remove_reason))
            if (add(execs, generalize(first_line(S(a->execs[i].remove_reason))))) return -1;
    /* qsort of an empty, never allocated array is undefined (a NULL base) */
    if (tasks->n) qsort(tasks->p, tasks->n, sizeof *tasks->p, by_count);
    if (execs->n) qsort(execs->p, execs->n, sizeof *execs->p, by_count);
    return 0;
}

enum { TOP_REASONS = 5, REASON_WIDTH = 87 };

static void list_text(FILE *o, const struct reasons *r, const char *what, const char *unit)
{
    if (!r->total) return;
    fprintf(o, "\n%s  %lld %s, %zu distinct reason(s)%s\n", what, (long long)r->total, unit, r->n,
            r->n > TOP_REASONS ? "; the most frequent:" : "");
    for (size_t i = 0; i < r->n && i < TOP_REASONS; i++)
        /* cut to the width of a terminal; --json has the whole line */
        fprintf(o, "  %6lld  %.*s%s\n", (long long)r->p[i].count, REASON_WIDTH, r->p[i].text,
                strlen(r->p[i].text) > REASON_WIDTH ? "..." : "");
    if (r->n > TOP_REASONS) fprintf(o, "  ... %zu more reason(s) (--json lists them all)\n", r->n - TOP_REASONS);
}

int clarity_report_failures_text(FILE *o, const struct clarity_app *a, struct clarity_error *err)
{
    struct reasons tasks = {0}, execs = {0};
    int rc = gather(a, &tasks, &execs);
    if (!rc) {
        list_text(o, &tasks, "failed tasks", "attempt(s) failed");
        list_text(o, &execs, "lost executors", "executor(s) removed with a reason");
    }
    reasons_free(&tasks);
    reasons_free(&execs);
    if (rc) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory grouping failure reasons");
    return clarity_report_status(o, err);
}

static void list_json(struct jsonw *w, const char *key, const struct reasons *r)
{
    clarity_jsonw_key(w, key);
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < r->n; i++) {
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "reason", r->p[i].text);
        clarity_jsonw_kint(w, "count", r->p[i].count);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
}

int clarity_report_failures_json(struct jsonw *w, const struct clarity_app *a, struct clarity_error *err)
{
    struct reasons tasks = {0}, execs = {0};
    int rc = gather(a, &tasks, &execs);
    if (!rc) {
        list_json(w, "task_failure_reasons", &tasks);
        list_json(w, "executor_loss_reasons", &execs);
    }
    reasons_free(&tasks);
    reasons_free(&execs);
    if (rc) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory grouping failure reasons");
    return 0;
}
