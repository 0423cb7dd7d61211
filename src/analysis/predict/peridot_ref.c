/* PERIDOT's view of one reference log: stage records (id, name, tasks, submission, last task
 * finish, completion; stages without tasks or submission left out), T, cores and
 * input bytes. Works on logs with only application, job and stage events: a stage's end is
 * then its completion time. */
#include <stdlib.h>
#include <string.h>
#include "clarity/model.h"
#include "clarity/predict.h"

static double task_cpus(const struct clarity_app *a)
{
    for (size_t i = 0; i < a->spark_props.n; i++)
        if (!strcmp(clarity_app_str(a, a->spark_props.p[i].k), "spark.task.cpus")) {
            double v = atof(clarity_app_str(a, a->spark_props.p[i].v));
            return v >= 1 ? v : 1;
        }
    return 1;
}

/* Task slots: executor cores alive while a stage ran (added before the stage ended, not removed
 * before it started), the largest over the stages, / spark.task.cpus (--ref-cores overrides
 * it). Not the cores at the first stage: on YARN the executors often register after the first
 * stage is submitted (the multiple_attempts logs: none at the first stage, 10 executors and 30
 * cores a few seconds later), and PERIDOT's waves are those of the stages that had executors.
 * cores_min is the smallest non-zero figure; a run whose stages saw different figures is flagged. */
static void infer_cores(const struct clarity_app *a, int64_t app_end, struct peridot_ref *r)
{
    double best = 0, least = 0;
    for (size_t k = 0; k < r->nstages; k++) {
        const struct peridot_stage *p = &r->stages[k];
        int64_t s0 = p->submit_ms, s1 = p->complete_ms > p->last_finish_ms ? p->complete_ms : p->last_finish_ms;
        if (!s1) s1 = app_end > s0 ? app_end : s0;   /* a stage that never completed ran to the end */
        double cores = 0;
        for (size_t i = 0; i < a->nexecs; i++) {
            const struct clarity_executor *e = &a->execs[i];
            if (e->is_driver || e->total_cores <= 0) continue;
            if ((!e->add_ms || e->add_ms <= s1) && (!e->remove_ms || e->remove_ms > s0)) cores += e->total_cores;
        }
        if (cores <= 0) continue;
        if (cores > best) best = cores;
        if (!least || cores < least) least = cores;
    }
    if (best > 0) {
        double tc = task_cpus(a);
        r->cores = best / tc;
        r->cores_min = least / tc;
        r->cores_changed = least != best;
        r->cores_from = PERIDOT_FROM_LOG;
    }
}

int clarity_peridot_ref_from_app(const struct clarity_app *a, struct peridot_ref *out, struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    out->label = a->source_path;
    out->size_from = out->cores_from = PERIDOT_UNKNOWN;
    if (!a->start_ms)
        return clarity_error_set(err, CLARITY_EFORMAT, a->source_path, 0, 0, "no ApplicationStart: the run's time is unknown");
    out->total_ms = clarity_app_duration_ms(a);
    out->time_from_last_event = !a->end_ms;
    out->stages = calloc(a->nstages ? a->nstages : 1, sizeof *out->stages);
    /* per stage attempt row: its record (attempts of one stage id share one), -1 none */
    long *rec = malloc((a->nstages ? a->nstages : 1) * sizeof *rec);
    struct clarity_idmap by_id = {0};
    if (!out->stages || !rec) {
        free(rec);
        clarity_peridot_ref_free(out);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    }
    for (size_t i = 0; i < a->nstages; i++) {
        const struct clarity_stage *s = &a->stages[i];
        rec[i] = -1;
        /* skipped stages (shuffle output reused) have no submission time or no tasks */
        if (s->status == CLARITY_STAGE_SKIPPED || !s->submit_ms || s->num_tasks <= 0) continue;
        uint32_t k;
        struct peridot_stage *p = clarity_idmap_get(&by_id, s->stage_id, &k) ? &out->stages[k] : NULL;
        if (!p) {
            if (clarity_idmap_put(&by_id, s->stage_id, (uint32_t)out->nstages)) {
                free(rec);
                clarity_idmap_free(&by_id);
                clarity_peridot_ref_free(out);
                return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
            }
            p = &out->stages[out->nstages++];
            p->stage_id = s->stage_id;
            p->name = clarity_app_str(a, s->name);
            p->submit_ms = s->submit_ms;
        }
        p->attempts++;
        if (s->submit_ms < p->submit_ms) p->submit_ms = s->submit_ms;
        if (s->complete_ms > p->complete_ms) p->complete_ms = s->complete_ms;
        /* A retry's Number of Tasks counts only the partitions it recomputed; the first
         * attempt's is the stage's partition count. */
        if (s->num_tasks > p->num_tasks) p->num_tasks = s->num_tasks;
        rec[i] = p - out->stages;
    }
    /* a stage attempt left out above still counts toward its stage id's record */
    for (size_t i = 0; i < a->nstages; i++) {
        uint32_t k;
        if (rec[i] < 0 && clarity_idmap_get(&by_id, a->stages[i].stage_id, &k)) rec[i] = (long)k;
    }
    clarity_idmap_free(&by_id);
    if (!out->nstages) {
        free(rec);
        clarity_peridot_ref_free(out);
        return clarity_error_set(err, CLARITY_EFORMAT, a->source_path, 0, 0, "no stage with tasks and a submission time");
    }
    for (size_t i = 0; i < out->nstages; i++)
        if (out->stages[i].attempts > 1) out->multi_attempt_stages++;
    /* last successful task finish per stage; failed, killed and running attempts do not count */
    out->no_task_events = a->tasks.n == 0;
    for (size_t t = 0; t < a->tasks.n; t++) {
        int64_t fl = clarity_task_flags(a, t);
        if (!(fl & CLARITY_TF_ENDED) || (fl & (CLARITY_TF_FAILED | CLARITY_TF_KILLED))) continue;
        int64_t row = clarity_task_get(a, &a->tasks.stage, t);
        if (row < 0 || (size_t)row >= a->nstages) continue;
        struct peridot_stage *p = rec[row] >= 0 ? &out->stages[rec[row]] : NULL;
        int64_t f = clarity_task_finish_ms(a, t);
        if (p && f > p->last_finish_ms) p->last_finish_ms = f;
    }
    free(rec);
    infer_cores(a, a->start_ms + out->total_ms, out);
    struct clarity_app_totals tot;
    if (a->tasks.n && clarity_totals_compute(a, &tot) == CLARITY_OK) {
        /* the largest single stage input: one full pass over the data, whatever the number
         * of passes (iterations re-read cached input) */
        for (size_t i = 0; i < a->nstages; i++)
            if (tot.stage[i].input_bytes > out->input_bytes) out->input_bytes = tot.stage[i].input_bytes;
        clarity_totals_free(&tot);
    }
    if (out->input_bytes > 0) {
        out->data_size = (double)out->input_bytes;
        out->size_from = PERIDOT_FROM_LOG;
    }
    return CLARITY_OK;
}

void clarity_peridot_ref_free(struct peridot_ref *r)
{
    free(r->stages);
    r->stages = NULL;
    r->nstages = 0;
}
