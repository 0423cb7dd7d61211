/* The read-ahead thread's half of reading a log: it parses task events (nearly every line)
 * into records, so the applying thread only has to apply them. Only for lean loads, where a
 * task record needs nothing that lives in the parsed document afterwards. */
#ifndef CLARITY_MODEL_PREPARSE_H
#define CLARITY_MODEL_PREPARSE_H
#include <stdbool.h>
#include <stddef.h>
#include "event/json.h"

struct preparse {
    cj_parser *parser;      /* the reader thread's own */
    bool skip_executor_metrics;
    bool spark3;            /* from the SparkListenerLogStart line the reader saw */
};

/* A line_hook_fn: fills rec (a struct task_rec) from a task event line; false leaves the line
 * to the applying thread (other events, parse errors, failed tasks, unknown keys). */
bool preparse_line(void *ctx, char *line, size_t len, void *rec);

#endif
