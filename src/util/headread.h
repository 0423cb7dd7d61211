/* The first bytes of a file, read whole: the source sniffer decides from them whether a file
 * is an event log, the store fingerprints a log entry by them. */
#ifndef CLARITY_UTIL_HEADREAD_H
#define CLARITY_UTIL_HEADREAD_H
#include <stdbool.h>
#include <stddef.h>

/* Reads up to cap bytes from the start of path into buf, retrying interrupted reads; *n gets
 * how many (fewer only at the end of the file). Returns 0, or the errno of the failure, with
 * *opened telling whether it was the open (false) or a read (true). */
int clarity_read_head(const char *path, void *buf, size_t cap, size_t *n, bool *opened);

#endif
