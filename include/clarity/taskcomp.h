/* Where one task attempt's time went, from standard event-log metrics (as the thesis' scripts
 * derive them; input read, output write and local shuffle read times are not logged),
 * and its runtime with one resource removed. Times in ms as doubles: Shuffle Write Time and
 * CPU time are logged in ns. Part of src/sim, the analyses' shared lower module: blocked
 * time, stragglers and the what-if models all start from these components. */
#ifndef CLARITY_TASKCOMP_H
#define CLARITY_TASKCOMP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/error.h"
#include "clarity/model.h"

struct clarity_task_comp {
    size_t row;                  /* task row in the model */
    uint32_t stage;              /* stage attempt row */
    uint32_t host, executor;     /* string ids */
    int64_t launch_ms, finish_ms;
    double runtime_ms;           /* finish - launch */
    double sched_delay_ms;       /* max(0, runtime - run - deser - result ser - getting result) */
    double deser_ms, result_ser_ms, getting_result_ms, run_ms;
    double fetch_wait_ms;        /* remote shuffle blocks only: network and remote disk */
    double shuffle_write_ms;     /* Shuffle Write Time ns / 1e6 */
    double gc_ms;                /* executor-wide JVM GC delta over the task's life */
    double cpu_ms;               /* Executor CPU Time ns / 1e6; valid when cpu_logged */
    double deser_cpu_ms;
    double unattributed_ms;      /* max(0, run - cpu - gc - fetch wait - shuffle write); cpu_logged */
    /* Not in standard logs (the thesis instrumented HDFS and Spark for them): always 0 here. */
    double input_read_ms, output_write_ms, local_read_ms;
    int64_t input_bytes, input_records, shuffle_read_bytes, shuffle_read_records;
    int64_t output_bytes, shuffle_write_bytes;
    bool has_fetch;              /* read shuffle data */
    bool data_local;             /* PROCESS_LOCAL or NODE_LOCAL */
    bool cpu_logged;             /* Spark 2.1+ */
    bool clamped;                /* a metric exceeded the runtime and was clamped */
};

/* Fills c from task row `row` of a (any attempt; callers pick the successful ones). */
void clarity_task_comp_from_row(const struct clarity_app *a, size_t row, struct clarity_task_comp *c);

/* Successful attempts of the application in row order (Task End Reason "Success"), with
 * counts of what was left out. Returns 0, or CLARITY_ENOMEM with err filled. */
struct clarity_task_comps {
    struct clarity_task_comp *t;
    size_t n;
    size_t failed, killed, without_end, other_end;   /* attempts excluded */
    size_t speculative;          /* successful speculative attempts (included) */
    size_t cpu_logged;           /* included tasks with a CPU time */
    size_t clamped;
};
int clarity_task_comps_collect(const struct clarity_app *a, struct clarity_task_comps *out, struct clarity_error *err);
void clarity_task_comps_free(struct clarity_task_comps *c);

/* Compute time: runtime - scheduler delay - shuffle write - input read - output write
 * - (fetch wait + local read if it read shuffle data). Includes GC ([R] compute). */
double clarity_task_compute_ms(const struct clarity_task_comp *c);

/* Resources a task can be relieved of. */
enum clarity_resource {
    CLARITY_RES_NETWORK,         /* fetch wait (+ output write, remote input read: not logged) */
    CLARITY_RES_DISK,            /* partial: shuffle write + fetch wait (input/output/local read not logged) */
    CLARITY_RES_SHUFFLE_READ,    /* fetch wait + local read (not logged) */
    CLARITY_RES_SHUFFLE_WRITE,
    CLARITY_RES_GC,
    CLARITY_RES_SCHED_DELAY,
    CLARITY_RES_NON_CPU,         /* only CPU left: executor + deserialize CPU time */
    CLARITY_RES_STRAGGLERS,      /* Dolly rule: per stage, not per task (see stragglers.h) */
    CLARITY_RES_COUNT
};
const char *clarity_resource_name(enum clarity_resource r);   /* JSON key: "network", ... */

/* Runtime without resource r, clamped to [0, runtime]. NON_CPU without a CPU time, and
 * STRAGGLERS, return the runtime unchanged. */
double clarity_task_without(const struct clarity_task_comp *c, enum clarity_resource r);

#endif
