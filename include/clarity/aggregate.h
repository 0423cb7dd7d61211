/* Per-stage, per-job, per-executor and per-SQL totals over task attempts: the figures the
 * summary shows. Every task attempt that ended counts (failed and killed ones too: their time
 * was spent), as Spark's UI sums them. */
#ifndef CLARITY_AGGREGATE_H
#define CLARITY_AGGREGATE_H
#include "clarity/model.h"

struct clarity_totals {
    int64_t tasks, succeeded, failed, killed, running, speculative;
    int64_t task_ms;                 /* sum of task durations (launch to finish) */
    int64_t run_ms, cpu_ns, gc_ms, deser_ms;
    int64_t input_bytes, output_bytes, shuffle_read_bytes, shuffle_remote_bytes, shuffle_write_bytes;
    int64_t fetch_wait_ms, shuffle_write_ns, mem_spilled, disk_spilled;
    bool cpu_logged;                 /* some task had a CPU time (Spark 2.1+) */
};

struct clarity_app_totals {
    struct clarity_totals app;
    struct clarity_totals *stage;    /* per row of app->stages */
    struct clarity_totals *job;      /* per row of app->jobs */
    struct clarity_totals *exec;     /* per row of app->execs */
    struct clarity_totals *sql;      /* per row of app->sqls */
};

int clarity_totals_compute(const struct clarity_app *a, struct clarity_app_totals *t);
void clarity_totals_free(struct clarity_app_totals *t);
void clarity_totals_add_task(struct clarity_totals *t, const struct clarity_app *a, size_t row);

/* Wall-clock span of a stage attempt / job / SQL execution in ms, -1 when unknown. */
int64_t clarity_stage_duration_ms(const struct clarity_app *a, const struct clarity_stage *s);
int64_t clarity_job_duration_ms(const struct clarity_app *a, const struct clarity_job *j);
int64_t clarity_app_duration_ms(const struct clarity_app *a);
/* Last event time seen, for logs without an end (in progress, truncated). */
int64_t clarity_app_last_time_ms(const struct clarity_app *a);

#endif
