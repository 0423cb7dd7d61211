/* Per-task time components from standard metrics, as the thesis' analysis scripts derive them:
 * scheduler delay = max(0, runtime - run - deserialize - result serialization - getting result),
 * fetch wait in ms, shuffle write ns -> ms, GC as logged (an executor-wide delta). Input read,
 * output write and local shuffle read times are not in standard logs and count as 0. */
#include <stdlib.h>
#include <string.h>
#include "clarity/sim.h"
#include "util/checked.h"

static double clamp0(double v) { return v > 0 ? v : 0; }

void clarity_task_comp_from_row(const struct clarity_app *a, size_t row, struct clarity_task_comp *c)
{
    memset(c, 0, sizeof *c);
    c->row = row;
    c->stage = (uint32_t)clarity_icol_get(&a->tasks.stage, row);
    c->host = (uint32_t)clarity_icol_get(&a->tasks.host, row);
    c->executor = (uint32_t)clarity_icol_get(&a->tasks.executor, row);
    c->launch_ms = clarity_task_launch_ms(a, row);
    int64_t dur = clarity_icol_get(&a->tasks.duration, row);
    if (dur < 0) { c->clamped = true; dur = 0; }   /* clock skew: the integrity report counts it */
    /* a launch and a duration near the int64 limits (a damaged log: the integrity report flags
     * them as out of range) saturate instead of wrapping */
    c->finish_ms = clarity_sat_add(c->launch_ms, dur);
    c->runtime_ms = (double)dur;
    int64_t gr = clarity_icol_get(&a->tasks.getting_result, row);
    c->getting_result_ms = gr > 0 && gr <= dur ? (double)(dur - gr) : 0;
    c->run_ms = clamp0((double)clarity_task_metric(a, row, CLARITY_TM_RUN_MS));
    c->deser_ms = clamp0((double)clarity_task_metric(a, row, CLARITY_TM_DESER_MS));
    c->result_ser_ms = clamp0((double)clarity_task_metric(a, row, CLARITY_TM_RESULT_SER_MS));
    c->fetch_wait_ms = clamp0((double)clarity_task_metric(a, row, CLARITY_TM_SR_FETCH_WAIT_MS));
    c->shuffle_write_ms = clamp0((double)clarity_task_metric(a, row, CLARITY_TM_SW_TIME_NS) / 1e6);
    c->gc_ms = clamp0((double)clarity_task_metric(a, row, CLARITY_TM_GC_MS));
    int64_t cpu = clarity_task_metric(a, row, CLARITY_TM_CPU_NS);
    c->cpu_logged = cpu > 0;
    c->cpu_ms = clamp0((double)cpu / 1e6);
    c->deser_cpu_ms = clamp0((double)clarity_task_metric(a, row, CLARITY_TM_DESER_CPU_NS) / 1e6);
    c->sched_delay_ms = clamp0(c->runtime_ms - c->run_ms - c->deser_ms - c->result_ser_ms - c->getting_result_ms);
    if (c->cpu_logged)
        c->unattributed_ms = clamp0(c->run_ms - c->cpu_ms - c->gc_ms - c->fetch_wait_ms - c->shuffle_write_ms);
    c->input_bytes = clarity_task_metric(a, row, CLARITY_TM_INPUT_BYTES);
    c->input_records = clarity_task_metric(a, row, CLARITY_TM_INPUT_RECORDS);
    c->shuffle_read_bytes = clarity_sat_add(clarity_task_metric(a, row, CLARITY_TM_SR_REMOTE_BYTES),
                                            clarity_task_metric(a, row, CLARITY_TM_SR_LOCAL_BYTES));
    c->shuffle_read_records = clarity_task_metric(a, row, CLARITY_TM_SR_RECORDS);
    c->output_bytes = clarity_task_metric(a, row, CLARITY_TM_OUTPUT_BYTES);
    c->shuffle_write_bytes = clarity_task_metric(a, row, CLARITY_TM_SW_BYTES);
    c->has_fetch = c->shuffle_read_bytes > 0 || c->fetch_wait_ms > 0 ||
                   clarity_task_metric(a, row, CLARITY_TM_SR_REMOTE_BLOCKS) > 0 ||
                   clarity_task_metric(a, row, CLARITY_TM_SR_LOCAL_BLOCKS) > 0;
    int loc = (int)clarity_icol_get(&a->tasks.locality, row);
    c->data_local = loc == CLARITY_LOC_PROCESS_LOCAL || loc == CLARITY_LOC_NODE_LOCAL;
    /* Metrics inside the run time that together exceed it: a reporting bug or unit mix-up. */
    if (c->fetch_wait_ms + c->shuffle_write_ms > c->runtime_ms || c->gc_ms > c->runtime_ms ||
        c->cpu_ms > c->runtime_ms + 1)
        c->clamped = true;
}

double clarity_task_compute_ms(const struct clarity_task_comp *c)
{
    double v = c->runtime_ms - c->sched_delay_ms - c->shuffle_write_ms - c->input_read_ms - c->output_write_ms -
               (c->has_fetch ? c->fetch_wait_ms + c->local_read_ms : 0);
    return clamp0(v);
}

static const char *const res_names[CLARITY_RES_COUNT] = {
    "network", "disk", "shuffle_read", "shuffle_write", "gc", "scheduler_delay", "non_cpu", "stragglers",
};

const char *clarity_resource_name(enum clarity_resource r)
{
    return (unsigned)r < CLARITY_RES_COUNT ? res_names[r] : "?";
}

double clarity_task_without(const struct clarity_task_comp *c, enum clarity_resource r)
{
    double fetch = c->has_fetch ? c->fetch_wait_ms : 0, v = c->runtime_ms;
    switch (r) {
    case CLARITY_RES_NETWORK:
        v -= c->output_write_ms + (!c->data_local ? c->input_read_ms : 0) + fetch;
        break;
    case CLARITY_RES_DISK:
        v -= c->output_write_ms + c->shuffle_write_ms + c->input_read_ms + (c->has_fetch ? c->local_read_ms : 0) + fetch;
        break;
    case CLARITY_RES_SHUFFLE_READ: v -= fetch + c->local_read_ms; break;
    case CLARITY_RES_SHUFFLE_WRITE: v -= c->shuffle_write_ms; break;
    case CLARITY_RES_GC: v -= c->gc_ms; break;
    case CLARITY_RES_SCHED_DELAY: v -= c->sched_delay_ms; break;
    case CLARITY_RES_NON_CPU:
        if (c->cpu_logged) v = c->cpu_ms + c->deser_cpu_ms;
        break;
    default: break;
    }
    if (v > c->runtime_ms) v = c->runtime_ms;
    return clamp0(v);
}
