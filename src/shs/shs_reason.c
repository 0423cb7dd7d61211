/* Texts SHS derives from a task's end reason: errorMessage is TaskEndReason.toErrorString
 * (TaskKilled gives its kill reason), and killedTasksSummary is keyed by the kill reason or
 * the TaskCommitDenied text. The reasons come decoded from the model. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shs/shs_internal.h"
#include "util/strbuf.h"

/* StackTraceElement.toString per frame: "cls.method(File.java:12)", one per line. */
static void stack_trace(struct clarity_strbuf *b, const struct clarity_app *a, const struct clarity_task_end_reason *r)
{
    for (uint32_t i = 0; i < r->u.exception.nframes; i++) {
        const struct clarity_stack_frame *f = &r->u.exception.frames[i];
        if (i) clarity_sb_str(b, "\n");
        clarity_sb_str(b, "        ");
        clarity_sb_str(b, clarity_app_str(a, f->declaring_class));
        clarity_sb_str(b, ".");
        clarity_sb_str(b, clarity_app_str(a, f->method));
        if (f->has_file) {
            clarity_sb_str(b, "(");
            clarity_sb_str(b, clarity_app_str(a, f->file));
            if (f->line >= 0) clarity_sb_printf(b, ":%d", f->line);
            clarity_sb_str(b, ")");
        } else {
            clarity_sb_str(b, f->line == -2 ? "(Native Method)" : "(Unknown Source)");
        }
    }
}

static void describe(struct clarity_strbuf *b, const struct clarity_app *a, const struct clarity_task_end_reason *r)
{
#define S(id) clarity_app_str(a, (id))
    switch (r->kind) {
    case CLARITY_END_EXCEPTION:
        if (r->u.exception.full_trace) {
            clarity_sb_str(b, S(r->u.exception.full_trace));
            return;
        }
        clarity_sb_str(b, S(r->u.exception.class_name));
        clarity_sb_str(b, ": ");
        clarity_sb_str(b, S(r->u.exception.description));
        clarity_sb_str(b, "\n");
        stack_trace(b, a, r);
        break;
    case CLARITY_END_FETCH_FAILED:
        clarity_sb_str(b, "FetchFailed(");
        if (r->logged & CLARITY_TER_BLOCK_MANAGER)
            clarity_sb_printf(b, "BlockManagerId(%s, %s, %lld, None)", S(r->u.fetch.executor), S(r->u.fetch.host),
                    (long long)r->u.fetch.port);
        else clarity_sb_str(b, "null");
        clarity_sb_printf(b, ", shuffleId=%lld, mapIndex=%lld, mapId=%lld, reduceId=%lld, message=\n",
                (long long)r->u.fetch.shuffle_id, (long long)r->u.fetch.map_index, (long long)r->u.fetch.map_id,
                (long long)r->u.fetch.reduce_id);
        clarity_sb_str(b, S(r->u.fetch.message));
        clarity_sb_str(b, "\n)");
        break;
    case CLARITY_END_KILLED:
        clarity_sb_str(b, r->logged & CLARITY_TER_KILL_REASON ? S(r->u.killed.reason) : "unknown reason");
        break;
    case CLARITY_END_COMMIT_DENIED:
        clarity_sb_printf(b, "TaskCommitDenied (Driver denied task commit) for job: %lld, partition: %lld, attemptNumber: %lld",
                (long long)r->u.commit_denied.job_id, (long long)r->u.commit_denied.partition,
                (long long)r->u.commit_denied.attempt);
        break;
    case CLARITY_END_EXECUTOR_LOST:
        clarity_sb_str(b, "ExecutorLostFailure (executor ");
        clarity_sb_str(b, r->logged & CLARITY_TER_EXECUTOR ? S(r->u.executor_lost.executor) : "Unknown");
        clarity_sb_str(b, r->u.executor_lost.exit_caused_by_app ? " exited caused by one of the running tasks)"
                                                       : " exited unrelated to the running tasks)");
        if (r->logged & CLARITY_TER_LOSS_REASON) {
            clarity_sb_str(b, " Reason: ");
            clarity_sb_str(b, S(r->u.executor_lost.loss_reason));
        }
        break;
    case CLARITY_END_TASK_RESULT_LOST:
        clarity_sb_str(b, "TaskResultLost (result lost from block manager)");
        break;
    case CLARITY_END_RESUBMITTED:
        clarity_sb_str(b, "Resubmitted (resubmitted due to lost executor)");
        break;
    default:
        clarity_sb_str(b, "UnknownReason");
        break;
    }
#undef S
}

static char *reason_text(const struct clarity_app *a, size_t row, bool killed_key, bool *oom)
{
    const struct clarity_task_end_reason *r = clarity_task_end_reason(a, row);
    if (!r) return NULL;
    if (killed_key && r->kind != CLARITY_END_KILLED && r->kind != CLARITY_END_COMMIT_DENIED) return NULL;
    struct clarity_strbuf b = {0};
    describe(&b, a, r);
    if (b.oom) {
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
