/* Texts SHS derives from a task's end reason: errorMessage is TaskEndReason.toErrorString
 * (TaskKilled gives its kill reason), and killedTasksSummary is keyed by the kill reason or
 * the TaskCommitDenied text. The reasons come decoded from the model. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shs/shs_internal.h"

/* A growing string; `failed` once an allocation failed (the text is then dropped). */
struct buf { char *p; size_t n, cap; bool failed; };

static void put(struct buf *b, const char *s, size_t n)
{
    if (b->failed) return;
    if (b->n + n + 1 > b->cap) {
        size_t ncap = (b->n + n + 1) * 2;
        char *np = realloc(b->p, ncap);
        if (!np) {
            b->failed = true;
            return;
        }
        b->p = np;
        b->cap = ncap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}
static void puts_(struct buf *b, const char *s) { put(b, s, strlen(s)); }
static void printf_(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void printf_(struct buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* StackTraceElement.toString per frame: "cls.method(File.java:12)", one per line. */
static void stack_trace(struct buf *b, const struct clarity_app *a, const struct clarity_task_end_reason *r)
{
    for (uint32_t i = 0; i < r->u.exception.nframes; i++) {
        const struct clarity_stack_frame *f = &r->u.exception.frames[i];
        if (i) puts_(b, "\n");
        puts_(b, "        ");
        puts_(b, clarity_app_str(a, f->declaring_class));
        puts_(b, ".");
        puts_(b, clarity_app_str(a, f->method));
        if (f->has_file) {
            puts_(b, "(");
            puts_(b, clarity_app_str(a, f->file));
            if (f->line >= 0) printf_(b, ":%d", f->line);
            puts_(b, ")");
        } else {
            puts_(b, f->line == -2 ? "(Native Method)" : "(Unknown Source)");
        }
    }
}

static void describe(struct buf *b, const struct clarity_app *a, const struct clarity_task_end_reason *r)
{
#define S(id) clarity_app_str(a, (id))
    switch (r->kind) {
    case CLARITY_END_EXCEPTION:
        if (r->u.exception.full_trace) {
            puts_(b, S(r->u.exception.full_trace));
            return;
        }
        puts_(b, S(r->u.exception.class_name));
        puts_(b, ": ");
        puts_(b, S(r->u.exception.description));
        puts_(b, "\n");
        stack_trace(b, a, r);
        break;
    case CLARITY_END_FETCH_FAILED:
        puts_(b, "FetchFailed(");
        if (r->logged & CLARITY_TER_BLOCK_MANAGER)
            printf_(b, "BlockManagerId(%s, %s, %lld, None)", S(r->u.fetch.executor), S(r->u.fetch.host),
                    (long long)r->u.fetch.port);
        else puts_(b, "null");
        printf_(b, ", shuffleId=%lld, mapIndex=%lld, mapId=%lld, reduceId=%lld, message=\n",
                (long long)r->u.fetch.shuffle_id, (long long)r->u.fetch.map_index, (long long)r->u.fetch.map_id,
                (long long)r->u.fetch.reduce_id);
        puts_(b, S(r->u.fetch.message));
        puts_(b, "\n)");
        break;
    case CLARITY_END_KILLED:
        puts_(b, r->logged & CLARITY_TER_KILL_REASON ? S(r->u.killed.reason) : "unknown reason");
        break;
    case CLARITY_END_COMMIT_DENIED:
        printf_(b, "TaskCommitDenied (Driver denied task commit) for job: %lld, partition: %lld, attemptNumber: %lld",
                (long long)r->u.commit_denied.job_id, (long long)r->u.commit_denied.partition,
                (long long)r->u.commit_denied.attempt);
        break;
    case CLARITY_END_EXECUTOR_LOST:
        puts_(b, "ExecutorLostFailure (executor ");
        puts_(b, r->logged & CLARITY_TER_EXECUTOR ? S(r->u.executor_lost.executor) : "Unknown");
        puts_(b, r->u.executor_lost.exit_caused_by_app ? " exited caused by one of the running tasks)"
                                                       : " exited unrelated to the running tasks)");
        if (r->logged & CLARITY_TER_LOSS_REASON) {
            puts_(b, " Reason: ");
            puts_(b, S(r->u.executor_lost.loss_reason));
        }
        break;
    case CLARITY_END_TASK_RESULT_LOST:
        puts_(b, "TaskResultLost (result lost from block manager)");
        break;
    case CLARITY_END_RESUBMITTED:
        puts_(b, "Resubmitted (resubmitted due to lost executor)");
        break;
    default:
        puts_(b, "UnknownReason");
        break;
    }
#undef S
}

static char *reason_text(const struct clarity_app *a, size_t row, bool killed_key, bool *oom)
{
    const struct clarity_task_end_reason *r = clarity_task_end_reason(a, row);
    if (!r) return NULL;
    if (killed_key && r->kind != CLARITY_END_KILLED && r->kind != CLARITY_END_COMMIT_DENIED) return NULL;
    struct buf b = {0};
    describe(&b, a, r);
    if (b.failed) {
        free(b.p);
        *oom = true;
        return NULL;
    }
    return b.p ? b.p : strdup("");
}

char *clarity__shs_error_message(const struct clarity_app *a, size_t row, bool *oom)
{
    return reason_text(a, row, false, oom);
}

char *clarity__shs_killed_key(const struct clarity_app *a, size_t row, bool *oom)
{
    return reason_text(a, row, true, oom);
}
