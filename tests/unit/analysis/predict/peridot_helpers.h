/* Builds PERIDOT references from stage tables written out by hand in the tests. */
#ifndef TEST_PERIDOT_HELPERS_H
#define TEST_PERIDOT_HELPERS_H
#include <stdlib.h>
#include <string.h>
#include "clarity/predict.h"

struct st { int64_t id; const char *name; int64_t tasks, submit, complete; };

static inline struct peridot_ref mkref(const struct st *s, size_t n, int64_t total_ms, double D, double E)
{
    struct peridot_ref r = {.label = "ref", .total_ms = total_ms, .data_size = D, .cores = E, .no_task_events = true};
    r.stages = calloc(n, sizeof *r.stages);
    r.nstages = n;
    for (size_t i = 0; i < n; i++)
        r.stages[i] = (struct peridot_stage){.stage_id = s[i].id, .name = s[i].name, .num_tasks = s[i].tasks,
                                             .submit_ms = s[i].submit, .complete_ms = s[i].complete, .attempts = 1};
    return r;
}
#endif
