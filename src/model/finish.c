/* After the last event: derive statuses Spark only implies (skipped stages) and count what
 * is missing, so analyses can say how far to trust the log. */
#include "model/build.h"

/* A load to be continued notes the status a stage had before it was called skipped (a later
 * event may run it); out of memory marks the load failed, and the continuation then reads
 * the log whole instead. */
static void remember_skipped(struct apply_ctx *c, size_t row, int status)
{
    if (c->nskipped == c->capskipped) {
        size_t cap = c->capskipped ? c->capskipped * 2 : 16;
        struct skipped_undo *p = realloc(c->skipped, cap * sizeof *p);
        if (!p) {
            c->failed = 1;
            return;
        }
        c->skipped = p;
        c->capskipped = cap;
    }
    c->skipped[c->nskipped++] = (struct skipped_undo){(uint32_t)row, status};
}

static void finish_stages(struct apply_ctx *c)
{
    struct clarity_app *a = c->app;
    struct clarity_integrity *in = &a->integrity;
    size_t *succeeded = calloc(a->nstages ? a->nstages : 1, sizeof *succeeded);
    if (!succeeded) return;
    for (size_t i = 0; i < a->tasks.n; i++) {
        int64_t f = clarity_icol_get(&a->tasks.flags, i);
        if (!(f & CLARITY_TF_ENDED)) {
            in->task_start_without_end++;
            continue;
        }
        if (clarity_icol_get(&a->tasks.end, i) == CLARITY_END_SUCCESS && !(f & (CLARITY_TF_FAILED | CLARITY_TF_KILLED)))
            succeeded[clarity_icol_get(&a->tasks.stage, i)]++;
    }
    for (size_t i = 0; i < a->nstages; i++) {
        struct clarity_stage *s = &a->stages[i];
        if (!s->seen_submitted && !s->seen_completed) {
            /* declared by a JobStart but never run: Spark reused its output */
            bool job_ended = false;
            for (size_t k = 0; k < s->njob_ids; k++) {
                struct clarity_job *j = clarity_app_job(a, s->job_ids[k]);
                if (j && j->status != CLARITY_JOB_RUNNING) job_ended = true;
            }
            if (job_ended && c->record_skipped) remember_skipped(c, i, s->status);
            if (job_ended) s->status = CLARITY_STAGE_SKIPPED;
            if (s->task_ends == 0) continue;
        }
        if (s->seen_submitted && !s->seen_completed) in->stages_without_end++;
        if (a->tasks.n == 0) {
            if (s->status == CLARITY_STAGE_COMPLETE && s->num_tasks > 0) in->no_task_events = true;
            continue;
        }
        if (s->status == CLARITY_STAGE_COMPLETE && s->num_tasks > 0 && (int64_t)succeeded[i] < s->num_tasks) {
            in->dropped_task_ends += (uint64_t)(s->num_tasks - (int64_t)succeeded[i]);
            in->stages_missing_task_ends++;
        }
    }
    free(succeeded);
}

/* Loading needs spare capacity and an id map; the finished model needs neither, so the task
 * table shrinks to its rows and lookups by task id become a binary search (Spark hands out task
 * ids in launch order, which is row order; a log that breaks this falls back to a scan). */
static void compact_tasks(struct clarity_app *a)
{
    struct clarity_tasks *t = &a->tasks;
    struct clarity_icol *cols[] = {&t->task_id, &t->stage, &t->index, &t->attempt, &t->partition,
                                   &t->launch_rel, &t->duration, &t->getting_result, &t->executor,
                                   &t->host, &t->locality, &t->end, &t->flags};
    size_t n = t->n ? t->n : 1;
    for (size_t i = 0; i < sizeof cols / sizeof *cols + CLARITY_TM_COUNT; i++) {
        struct clarity_icol *c = i < sizeof cols / sizeof *cols ? cols[i] : &t->m[i - sizeof cols / sizeof *cols];
        if (!c->width) continue;
        void *p = realloc(c->data, n * c->width);
        if (p) c->data = p;
    }
    if (t->n) t->cap = t->n;
    clarity_idmap_free(&a->task_by_id);
    free(a->task_dense);
    a->task_dense = NULL;
    a->task_dense_cap = 0;
    a->tasks_sorted_by_id = true;
    for (size_t i = 1; i < t->n; i++)
        if (clarity_icol_get(&t->task_id, i) <= clarity_icol_get(&t->task_id, i - 1)) {
            a->tasks_sorted_by_id = false;
            break;
        }
}

void clarity_model_finish(struct apply_ctx *c)
{
    struct clarity_app *a = c->app;
    struct clarity_integrity *in = &a->integrity;
    c->line = c->offset = 0;
    if (!a->end_ms) in->no_app_end = true;
    for (size_t i = 0; i < a->njobs; i++)
        if (a->jobs[i].status == CLARITY_JOB_RUNNING) in->jobs_without_end++;
    for (size_t i = 0; i < a->nsqls; i++)
        if (a->sqls[i].start_ms && !a->sqls[i].end_ms) in->sql_without_end++;
    finish_stages(c);
    clarity__model_storage_finish(a);
    compact_tasks(a);
    clarity__model_task_end_reasons_sort(a);
    clarity_platform_detect(a, &a->platform);
}
