/* Parts of TaskEnd lines that lean loads blank out before parsing (see load.c). */
#include "model/decode/blank.h"
#include <stdlib.h>
#include <string.h>

/* When task accumulables are not wanted, their array (about a third of a TaskEnd line) is
 * blanked before parsing, so simdjson does not build it. Only for Spark 3.0+ logs: earlier
 * ones keep the peak execution memory only there. */
bool clarity_blank_spark3(const char *v)
{
    return v[0] >= '3' && v[0] <= '9' && v[1] == '.';
}

/* "Accumulables" is the last key of Task Info, so its array ends where Task Info ends and the
 * next TaskEnd key begins. Returns the array's [open, close] bytes, or false. The marker cannot
 * occur inside a string (its quote would be escaped); should a future writer put it elsewhere,
 * the blanked line would not parse and the caller restores it. */
bool clarity_blank_find_accumulables(const char *line, size_t len, size_t *open, size_t *close)
{
    static const char ev[] = "{\"Event\":\"SparkListenerTaskEnd\"";
    static const char key[] = "\"Accumulables\":[";
    static const char end[] = "]},\"Task ";
    if (len < sizeof ev || memcmp(line, ev, sizeof ev - 1) != 0) return false;
    const char *k = memmem(line, len, key, sizeof key - 1);
    if (!k) return false;
    *open = (size_t)(k - line) + sizeof key - 2;
    const char *e = memmem(line + *open, len - *open, end, sizeof end - 1);
    if (!e) return false;
    *close = (size_t)(e - line);
    return *close > *open + 1;
}

/* "Task Executor Metrics" is a flat object of numbers: its end is the next '}'. */
/* Spark writes "Task Executor Metrics" after Task Info, so a search may start at `from`. */
static bool find_executor_metrics_from(const char *line, size_t len, size_t from, size_t *open, size_t *close)
{
    static const char ev[] = "{\"Event\":\"SparkListenerTaskEnd\"";
    static const char key[] = "\"Task Executor Metrics\":{";
    if (len < sizeof ev || memcmp(line, ev, sizeof ev - 1) != 0 || from > len) return false;
    const char *k = memmem(line + from, len - from, key, sizeof key - 1);
    if (!k) return false;
    *open = (size_t)(k - line) + sizeof key - 2;
    const char *e = memchr(line + *open, '}', len - *open);
    if (!e) return false;
    *close = (size_t)(e - line);
    return *close > *open + 1;
}


bool clarity_blank_find_executor_metrics(const char *line, size_t len, size_t *open, size_t *close)
{
    return find_executor_metrics_from(line, len, 0, open, close);
}

static void blank_range(char *line, size_t open, size_t close, struct blank_undo *u, int k)
{
    u->open[k] = open;
    u->close[k] = close;
    u->saved[k] = malloc(close - open - 1);
    if (!u->saved[k]) return;   /* no copy, no blanking: the line is parsed whole */
    memcpy(u->saved[k], line + open + 1, close - open - 1);
    memset(line + open + 1, ' ', close - open - 1);
}

void clarity_blank_lean(char *line, size_t len, bool accumulables, bool executor_metrics, struct blank_undo *u)
{
    memset(u, 0, sizeof *u);
    size_t open, close, from = 0;
    if (accumulables && clarity_blank_find_accumulables(line, len, &open, &close)) {
        blank_range(line, open, close, u, 0);
        from = close;   /* the executor metrics come after Task Info */
    }
    if (executor_metrics && find_executor_metrics_from(line, len, from, &open, &close)) blank_range(line, open, close, u, 1);
}

bool clarity_blank_restore(char *line, struct blank_undo *u)
{
    bool any = false;
    for (int k = 0; k < 2; k++)
        if (u->saved[k]) {
            memcpy(line + u->open[k] + 1, u->saved[k], u->close[k] - u->open[k] - 1);
            any = true;
        }
    return any;
}

void clarity_blank_undo_free(struct blank_undo *u)
{
    free(u->saved[0]);
    free(u->saved[1]);
    u->saved[0] = u->saved[1] = NULL;
}
