/* Task end reasons decoded into typed records at load time, so nothing above the model reads
 * raw event JSON or knows Spark's field spellings. Only attempts that did not succeed have a
 * reason record (a few in most logs), kept in a sparse table apart from the task columns so
 * the per-task footprint does not grow. Fields a log omits read as the History Server's text
 * would need them: see clarity_task_end_reason in model.h. */
#include "model/build.h"

static uint32_t str_or_zero(struct apply_ctx *c, cj_val obj, const char *key, bool *logged)
{
    const char *s;
    size_t n;
    bool have = clarity_cj_get_str(obj, key, &s, &n);
    if (logged) *logged = have;
    return have ? clarity_intern(c, s, n) : 0;
}

static int64_t int_or(cj_val obj, const char *key, int64_t dflt)
{
    int64_t v;
    return clarity_cj_get_int(obj, key, &v) ? v : dflt;
}

/* "Stack Trace": one StackTraceElement per array element (anything else reads as empty). */
static void read_frames(struct apply_ctx *c, cj_val arr, struct clarity_task_end_reason *r)
{
    cj_iter it;
    cj_val e;
    size_t n = 0;
    if (!clarity_cj_array_begin(arr, &it)) return;
    while (clarity_cj_array_next(&it, &e)) n++;
    if (!n) return;
    struct clarity_stack_frame *f = clarity_arena_alloc(&c->app->arena, n * sizeof *f);
    if (!f) {
        c->failed = 1;
        return;
    }
    clarity_cj_array_begin(arr, &it);
    for (size_t i = 0; i < n && clarity_cj_array_next(&it, &e); i++) {
        f[i].declaring_class = str_or_zero(c, e, "Declaring Class", NULL);
        f[i].method = str_or_zero(c, e, "Method Name", NULL);
        f[i].file = str_or_zero(c, e, "File Name", &f[i].has_file);
        f[i].line = (int32_t)int_or(e, "Line Number", -1);
    }
    r->u.exception.frames = f;
    r->u.exception.nframes = (uint32_t)n;
}

static void decode(struct apply_ctx *c, cj_val j, struct clarity_task_end_reason *r)
{
    bool have;
    cj_val v;
    switch (r->kind) {
    case CLARITY_END_EXCEPTION:
        r->u.exception.class_name = str_or_zero(c, j, "Class Name", NULL);
        r->u.exception.description = str_or_zero(c, j, "Description", NULL);
        r->u.exception.full_trace = str_or_zero(c, j, "Full Stack Trace", NULL);
        if (clarity_cj_get(j, "Stack Trace", &v)) read_frames(c, v, r);
        break;
    case CLARITY_END_FETCH_FAILED:
        if (clarity_cj_get(j, "Block Manager Address", &v) && clarity_cj_type(v) == CJ_OBJECT) {
            r->logged |= CLARITY_TER_BLOCK_MANAGER;
            r->u.fetch.executor = str_or_zero(c, v, "Executor ID", NULL);
            r->u.fetch.host = str_or_zero(c, v, "Host", NULL);
            r->u.fetch.port = int_or(v, "Port", 0);
        }
        r->u.fetch.shuffle_id = int_or(j, "Shuffle ID", 0);
        r->u.fetch.map_index = int_or(j, "Map Index", -1);
        r->u.fetch.map_id = int_or(j, "Map ID", 0);
        r->u.fetch.reduce_id = int_or(j, "Reduce ID", 0);
        r->u.fetch.message = str_or_zero(c, j, "Message", NULL);
        break;
    case CLARITY_END_KILLED:
        r->u.killed.reason = str_or_zero(c, j, "Kill Reason", &have);
        if (have) r->logged |= CLARITY_TER_KILL_REASON;
        break;
    case CLARITY_END_COMMIT_DENIED:
        r->u.commit_denied.job_id = int_or(j, "Job ID", -1);
        r->u.commit_denied.partition = int_or(j, "Partition ID", -1);
        r->u.commit_denied.attempt = int_or(j, "Attempt Number", -1);
        break;
    case CLARITY_END_EXECUTOR_LOST:
        r->u.executor_lost.executor = str_or_zero(c, j, "Executor ID", &have);
        if (have) r->logged |= CLARITY_TER_EXECUTOR;
        r->u.executor_lost.loss_reason = str_or_zero(c, j, "Loss Reason", &have);
        if (have) r->logged |= CLARITY_TER_LOSS_REASON;
        r->u.executor_lost.exit_caused_by_app = true;
        clarity_cj_get_bool(j, "Exit Caused By App", &r->u.executor_lost.exit_caused_by_app);
        break;
    default:   /* Resubmitted, TaskResultLost, UnknownReason and unknown names carry nothing */
        break;
    }
}

void clarity__model_task_end_reason_read(struct apply_ctx *c, cj_val reason, uint32_t row, int end)
{
    struct clarity_app *a = c->app;
    struct clarity_task_end_reason *r = CLARITY_MODEL_PUSH(c, a->task_reasons, a->ntask_reasons, a->cap_task_reasons);
    if (!r) {
        c->failed = 1;
        return;
    }
    r->row = row;
    r->kind = (uint8_t)end;
    decode(c, reason, r);
}

static int cmp_row(const void *x, const void *y)
{
    const struct clarity_task_end_reason *a = x, *b = y;
    return (a->row > b->row) - (a->row < b->row);
}

/* TaskEnds arrive in finish order, rows are in start order: sorted once, looked up by row. */
void clarity__model_task_end_reasons_sort(struct clarity_app *a)
{
    if (a->ntask_reasons > 1) qsort(a->task_reasons, a->ntask_reasons, sizeof *a->task_reasons, cmp_row);
}

const struct clarity_task_end_reason *clarity_task_end_reason(const struct clarity_app *a, size_t row)
{
    size_t lo = 0, hi = a->ntask_reasons;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->task_reasons[mid].row < row) lo = mid + 1;
        else hi = mid;
    }
    return lo < a->ntask_reasons && a->task_reasons[lo].row == row ? &a->task_reasons[lo] : NULL;
}
