/* Lines of one decoded stream, read ahead on a second thread: decompression and line
 * splitting run while the caller parses the previous batch. Without a thread it is the plain
 * line reader (no copy). */
#ifndef CLARITY_EVENT_LINE_PIPE_H
#define CLARITY_EVENT_LINE_PIPE_H
#include <stdbool.h>
#include "event/lines.h"

struct line_pipe;

/* Takes over nothing: the decoder stays the caller's, and must outlive the pipe. */
int clarity_line_pipe_start(struct line_pipe **out, struct clarity_decoder *d, size_t max_line, bool threaded);

/* With a thread, lines may also be turned into records of rec_size bytes by nworkers worker
 * threads, a batch of lines each: hook returns true when it filled rec from the line (it may
 * modify the line), false to leave the line to the caller; hook_ctx[i] is worker i's own.
 * scan, if given, sees every line first, in order, on the reader thread (for facts a later
 * line's hook needs, such as the Spark version). */
typedef bool (*line_hook_fn)(void *ctx, char *line, size_t len, void *rec);
typedef void (*line_scan_fn)(void *ctx, const char *line, size_t len);
int clarity_line_pipe_start_hooked(struct line_pipe **out, struct clarity_decoder *d, size_t max_line, bool threaded,
                           line_scan_fn scan, void *scan_ctx, size_t nworkers, line_hook_fn hook,
                           void *const *hook_ctx, size_t rec_size);
/* Worker threads worth starting on this machine (one per core, at most 8). */
size_t clarity_line_pipe_default_workers(void);
/* The record the hook made from the line line_pipe_next last returned, or NULL. */
const void *clarity_line_pipe_record(const struct line_pipe *p);
/* As line_reader_next, plus the line's number and decoded byte offset. Lines may be modified
 * in place and stay valid until the next call. */
enum line_status clarity_line_pipe_next(struct line_pipe *p, char **line, size_t *len, uint64_t *line_no,
                                uint64_t *offset, struct clarity_error *err);
/* Decoded bytes handed out so far (all of them once LINE_EOF was returned). */
uint64_t clarity_line_pipe_bytes(const struct line_pipe *p);
/* Stops the reader (also midway) and frees everything. */
void clarity_line_pipe_free(struct line_pipe *p);

#endif
