/* Locating the parts of a TaskEnd line that lean loads blank before parsing: the task
 * accumulables (about a third of the line) and the per-task executor metrics (a fifth). */
#ifndef CLARITY_MODEL_BLANK_H
#define CLARITY_MODEL_BLANK_H
#include <stdbool.h>
#include <stddef.h>

/* True for a Spark version string of 3.0 or later (peak execution memory is then in Task
 * Metrics, so the accumulables are not needed). */
bool clarity_blank_spark3(const char *version);
/* The byte range [open, close] of the array / object, brackets included; false if absent. */
bool clarity_blank_find_accumulables(const char *line, size_t len, size_t *open, size_t *close);
bool clarity_blank_find_executor_metrics(const char *line, size_t len, size_t *open, size_t *close);

/* Blanks the parts asked for, keeping what it overwrote so a line that then fails to parse
 * can be restored and parsed whole. */
struct blank_undo { size_t open[2], close[2]; char *saved[2]; };
void clarity_blank_lean(char *line, size_t len, bool accumulables, bool executor_metrics, struct blank_undo *u);
/* Puts the blanked bytes back; false when nothing was blanked. */
bool clarity_blank_restore(char *line, struct blank_undo *u);
void clarity_blank_undo_free(struct blank_undo *u);

#endif
