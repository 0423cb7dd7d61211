/* Resolves what the user named (files, directories) into applications, each an ordered list
 * of files to decode one after another. */
#ifndef CLARITY_SOURCE_H
#define CLARITY_SOURCE_H
#include <stdbool.h>
#include <stddef.h>
#include "clarity/codec.h"
#include "clarity/error.h"

enum clarity_layout {
    CLARITY_LAYOUT_SINGLE = 0,   /* <base>[.<codec>][.inprogress] */
    CLARITY_LAYOUT_LEGACY_DIR,   /* Spark 1.0-1.2: EVENT_LOG_1, SPARK_VERSION_*, ... */
    CLARITY_LAYOUT_ROLLING_DIR,  /* eventlog_v2_<base>/events_N_<base>[.codec][.compact] */
    CLARITY_LAYOUT_DATABRICKS,   /* eventlog + eventlog-YYYY-MM-DD--HH-MM.gz */
};

struct clarity_log_file {
    char *path;
    enum clarity_codec codec;    /* from the name; UNKNOWN if the name says nothing */
    bool compact;                /* a rolling .compact file (lossy, see integrity) */
};

struct clarity_app_source {
    char *path;                  /* the file or directory this application came from */
    char *base;                  /* appId[_attemptId] as in the name, NULL if unknown */
    enum clarity_layout layout;
    bool in_progress;            /* .inprogress, appstatus_*.inprogress, no APPLICATION_COMPLETE */
    char *version_hint;          /* legacy SPARK_VERSION_<v>, else NULL */
    struct clarity_log_file *files;
    size_t nfiles;
    size_t dropped_before_compact; /* rolling files before the last .compact, not read */
    /* Rolling events_<N> indexes absent between the first file read and the last (from 1 when
     * no .compact starts the list): each held events nothing else repeats. */
    uint64_t missing_parts;
    uint64_t first_missing_part;   /* the lowest absent index when missing_parts > 0 */
};

/* Something named or found that was not taken as a log, and why. */
struct clarity_source_note {
    char *path;
    char *why;
};

struct clarity_source_list {
    struct clarity_app_source *apps;
    size_t napps;
    struct clarity_source_note *notes;
    size_t nnotes;
};

/* Resolves each path: a log file, an application directory (legacy, rolling, Databricks) or
 * a directory of applications (searched up to 4 levels deep: each entry that is a log file or an application
 * directory; other entries become notes). Apps are sorted by path for stable output.
 * Returns CLARITY_OK if at least one app was found; CLARITY_EIO if a named path is
 * unreadable; CLARITY_ENOTFOUND if nothing usable was found (notes say why). On errors the
 * list still holds what was found. */
int clarity_source_resolve(const char *const *paths, size_t npaths,
                           struct clarity_source_list *out, struct clarity_error *err);
void clarity_source_list_free(struct clarity_source_list *list);

/* One directory, without walking below it: when its layout is one application's (rolling,
 * legacy, Databricks), *is_app is true and out holds that application (or a note when it
 * holds no events); otherwise *is_app is false and out is empty: a directory of
 * applications, for a caller that walks directories itself (the fleet index lists them with
 * readdir alone and looks only at entries it does not know). CLARITY_EIO when the directory
 * cannot be read. */
int clarity_source_resolve_app_dir(const char *path, struct clarity_source_list *out, bool *is_app,
                                   struct clarity_error *err);

#endif
