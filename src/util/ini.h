/* INI files as synth scenarios and what-if hardware profiles use them: "[section]" lines,
 * "key = value" lines (both trimmed), blank lines, and lines starting with '#' or ';'. */
#ifndef CLARITY_UTIL_INI_H
#define CLARITY_UTIL_INI_H
#include "clarity/error.h"

/* '#' or ';' anywhere ends a line's text (a comment after a value). Without it, only whole
 * lines are comments and a value may hold those characters. */
#define CLARITY_INI_INLINE_COMMENTS 1u

/* Called for each "[section]" line with key and value NULL, and for each "key = value" line
 * with the section it is in ("" before the first). Returns 0 to go on; anything else stops
 * the reading and becomes its result, with err->msg as the callback set it. */
typedef int (*clarity_ini_fn)(void *ctx, const char *section, const char *key, const char *value,
                              struct clarity_error *err);

/* Reads path, calling fn in file order. Returns 0, CLARITY_EIO when the file cannot be read,
 * CLARITY_EUSAGE for a line that is neither of the above, or the callback's nonzero result;
 * every error but an unopenable file names path and the 1-based line in err. */
int clarity_ini_read(const char *path, unsigned flags, clarity_ini_fn fn, void *ctx, struct clarity_error *err);

#endif
