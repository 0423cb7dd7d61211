/* Temporary directory trees for the source tests. Every test builds its own tree under
 * mkdtemp so tests can run in parallel and leave nothing behind. */
#ifndef CLARITY_TEST_SOURCE_TREE_H
#define CLARITY_TEST_SOURCE_TREE_H
#include <stddef.h>
#include "clarity/source.h"

#define SRCT_JSON "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.5.0\"}\n"
#define SRCT_ZSTD "\x28\xb5\x2f\xfd\x00\x58\x00\x00" /* zstd frame magic, header start */

/* Creates a fresh directory; the returned path is malloc'd. */
char *srct_mktree(void);
/* Writes root/rel (creating parent directories) with the given bytes. */
void srct_write(const char *root, const char *rel, const void *bytes, size_t n);
/* Writes a small JSON event line, or an empty file for markers. */
void srct_log(const char *root, const char *rel);
void srct_empty(const char *root, const char *rel);
void srct_mkdir(const char *root, const char *rel);
void srct_rmtree(const char *root);
/* root/rel, malloc'd. */
char *srct_path(const char *root, const char *rel);
/* Resolves one path; returns the status. */
int srct_resolve1(const char *path, struct clarity_source_list *out, struct clarity_error *err);
/* The app whose path is root/rel, or NULL. */
const struct clarity_app_source *srct_app(const struct clarity_source_list *l, const char *root,
                                          const char *rel);
/* The note whose path is root/rel, or NULL. */
const struct clarity_source_note *srct_note(const struct clarity_source_list *l, const char *root,
                                            const char *rel);
/* Basename of the i-th file of app. */
const char *srct_file(const struct clarity_app_source *a, size_t i);

#endif
