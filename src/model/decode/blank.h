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

/* Whether every element of the accumulables array at line[open..close] is internal or a SQL
 * metric (an object with "Internal":true or "Metadata":"sql" among its own members, written
 * as Spark writes them). False when unsure: then the array is parsed and read. */
bool clarity_blank_accumulables_hidden(const char *line, size_t open, size_t close);

/* Accumulable names to look for in TaskEnd lines, measured once. plain is false when one of
 * them cannot be found as raw text (empty, or with a character JSON escapes) or there are more
 * than BLANK_NAMES_MAX: no line is then proven free of them. */
enum { BLANK_NAMES_MAX = 16 };
struct blank_names { const char *s[BLANK_NAMES_MAX]; size_t len[BLANK_NAMES_MAX]; size_t n; bool plain; };
void clarity_blank_names_init(struct blank_names *b, const char *const *names, size_t n);
/* True when the line is no TaskEnd or b has no names, or when the line provably names none of
 * them: every "Name" in it (accumulables have them) is a plain string that is none of them.
 * Anything it cannot tell (an escape, another layout) gives false, so a caller that drops the
 * accumulables only on true loses nothing. */
bool clarity_blank_names_absent(const char *line, size_t len, const struct blank_names *b);

/* Blanks the parts asked for, keeping what it overwrote so a line that then fails to parse
 * can be restored and parsed whole. With hidden_only, the accumulables are blanked only when
 * clarity_blank_accumulables_hidden says none of them is shown. */
struct blank_undo { size_t open[2], close[2]; char *saved[2]; };
void clarity_blank_lean(char *line, size_t len, bool accumulables, bool hidden_only, bool executor_metrics,
                        struct blank_undo *u);
/* Puts the blanked bytes back; false when nothing was blanked. */
bool clarity_blank_restore(char *line, struct blank_undo *u);
void clarity_blank_undo_free(struct blank_undo *u);

#endif
