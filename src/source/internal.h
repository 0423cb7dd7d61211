/* Private to src/source/: the pieces resolve.c assembles. Every function that allocates
 * returns CLARITY_OK or CLARITY_ENOMEM so the caller can stop early and still free. */
#ifndef CLARITY_SOURCE_INTERNAL_H
#define CLARITY_SOURCE_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/source.h"

/* ---- strings (strutil.c) ---- */
char *clarity_src_join(const char *dir, const char *name);
bool clarity_src_has_prefix(const char *s, const char *prefix);
bool clarity_src_has_suffix(const char *s, const char *suffix);
/* Parses s[0..n) as an unsigned decimal with no sign or spaces; false if empty/non-digit/overflow. */
bool clarity_src_parse_index(const char *s, size_t n, uint64_t *out);

/* ---- names and codecs (name.c) ---- */
/* What a file name alone says: `<base>[.<codec>][.compact][.inprogress]`. */
struct src_name {
    char *base;                  /* owned */
    enum clarity_codec codec;
    bool in_progress;
    bool compact;
};
int clarity_src_parse_name(const char *name, struct src_name *out);
/* Spark's short names plus "gz" (Databricks); UNKNOWN otherwise. */
enum clarity_codec clarity_src_codec_from_ext(const char *ext);
/* Legacy COMPRESSION_CODEC_<class>: a fully qualified codec class or a short name. */
enum clarity_codec clarity_src_codec_from_class(const char *cls);

/* ---- first bytes (sniff.c) ---- */
enum src_verdict {
    SRC_LOG,          /* take it: the loader decodes and reports anything wrong */
    SRC_NOT_LOG,      /* why says so */
};
/* Decides whether a regular file found on disk is an event log. Fills why (for notes) when
 * not, or when the file cannot be read. Never opens anything but regular files. */
enum src_verdict clarity_src_sniff_file(const char *path, const char *name, uint64_t size,
                                char *why, size_t cap);

/* ---- directory listing (dir.c) ---- */
enum src_kind { SRC_REG, SRC_DIR, SRC_OTHER, SRC_STAT_FAILED };
struct src_entry {
    char *name;
    enum src_kind kind;
    uint64_t size;
    int err;                     /* errno when kind == SRC_STAT_FAILED */
    uint64_t dev, ino;           /* identity of what the name leads to (links followed) */
};
struct src_dir {
    struct src_entry *e;         /* sorted by name (strcmp) so every walk is reproducible */
    size_t n;
};
/* Returns 0, or an errno value when the directory cannot be opened or read. */
int clarity_src_dir_read(const char *path, struct src_dir *d);
void clarity_src_dir_free(struct src_dir *d);
const struct src_entry *clarity_src_dir_find(const struct src_dir *d, const char *name);

/* ---- result list (list.c) ---- */
/* Takes ownership of *app's contents (also on failure, when they are freed). */
int clarity_src_add_app(struct clarity_source_list *out, struct clarity_app_source *app);
int clarity_src_add_note(struct clarity_source_list *out, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Appends one file to app->files; takes ownership of path (freed on failure). */
int clarity_src_app_add_file(struct clarity_app_source *app, char *path, enum clarity_codec codec,
                     bool compact);
void clarity_src_app_free(struct clarity_app_source *app);
/* Sorts apps and notes by path and drops apps named twice. */
void clarity_src_list_finish(struct clarity_source_list *out);

/* ---- application directories (layout_*.c) ---- */
/* Each `match` looks only at names (and, for Databricks, first bytes of the other files);
 * each `add` appends one app (or a note when the directory holds no events) plus notes for
 * entries that are not part of the layout. */
bool clarity_src_rolling_match(const char *dirname, const struct src_dir *d);
int clarity_src_rolling_add(const char *path, const char *dirname, const struct src_dir *d,
                    struct clarity_source_list *out);
bool clarity_src_legacy_match(const struct src_dir *d);
int clarity_src_legacy_add(const char *path, const char *dirname, const struct src_dir *d,
                   struct clarity_source_list *out);
bool clarity_src_databricks_match(const char *path, const struct src_dir *d);
int clarity_src_databricks_add(const char *path, const struct src_dir *d,
                       struct clarity_source_list *out);
/* Parses `eventlog-YYYY-MM-DD--HH-MM[.gz]`; fills the sortable stamp YYYYMMDDHHMM. */
bool clarity_src_databricks_rolled_name(const char *name, uint64_t *stamp, bool *gz);

#endif
