/* The worker threads' half of reading a log: they parse task events (nearly every line) into
 * records, so the applying thread only has to apply them. Only for loads without task
 * accumulables, or with only those the History Server shows, where a task record needs
 * nothing that lives in the parsed document afterwards. */
#ifndef CLARITY_MODEL_PREPARSE_H
#define CLARITY_MODEL_PREPARSE_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include "event/json.h"
#include "model/decode/blank.h"

struct preparse_shared {
    bool skip_executor_metrics;
    /* the load keeps the accumulables the History Server shows: a TaskEnd that has any is
     * left to the applying thread, which reads them (the others are blanked) */
    bool hidden_accumulables_only;
    const struct blank_names *acc_names;   /* task accumulables kept by name (load options) */
    atomic_bool spark3;     /* from the SparkListenerLogStart line, set by the reader's scan */
};

struct preparse {
    cj_parser *parser;      /* each worker's own */
    struct preparse_shared *shared;
};

/* A line_scan_fn (ctx: struct preparse_shared): notes the Spark version. */
void clarity_preparse_scan(void *ctx, const char *line, size_t len);
/* A line_hook_fn (ctx: struct preparse): fills rec (a struct task_rec) from a task event line;
 * false leaves the line to the applying thread (other events, parse errors, failed tasks,
 * unknown keys, long names, accumulables that may be kept by name). */
bool clarity_preparse_line(void *ctx, char *line, size_t len, void *rec);

#endif
