/* Spark 1.0-1.2 log directories: EVENT_LOG_<n> (events), an empty SPARK_VERSION_<v>,
 * COMPRESSION_CODEC_<class> when compressed, APPLICATION_COMPLETE when done. The state lives
 * in file names, so this layout is decided entirely from the listing. */
#include "source/internal.h"
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "EVENT_LOG_"
#define VERSION_PREFIX "SPARK_VERSION_"
#define CODEC_PREFIX "COMPRESSION_CODEC_"
#define COMPLETE "APPLICATION_COMPLETE"

bool clarity_src_legacy_match(const struct src_dir *d)
{
    /* Any marker counts, so that a directory holding only SPARK_VERSION_1.2.0 becomes one
     * note rather than an app per empty marker file. */
    for (size_t i = 0; i < d->n; i++) {
        const char *n = d->e[i].name;
        if (clarity_src_has_prefix(n, LOG_PREFIX) || clarity_src_has_prefix(n, VERSION_PREFIX) ||
            clarity_src_has_prefix(n, CODEC_PREFIX) || strcmp(n, COMPLETE) == 0)
            return true;
    }
    return false;
}

struct part {
    uint64_t index;
    const char *name;
};

static int cmp_part(const void *a, const void *b)
{
    const struct part *x = a, *y = b;
    return x->index < y->index ? -1 : x->index > y->index;
}

int clarity_src_legacy_add(const char *path, const char *dirname, const struct src_dir *d,
                   struct clarity_source_list *out)
{
    struct part *parts = calloc(d->n ? d->n : 1, sizeof *parts);
    if (!parts) return CLARITY_ENOMEM;
    size_t np = 0;
    struct clarity_app_source app = {.layout = CLARITY_LAYOUT_LEGACY_DIR, .in_progress = true};
    /* No COMPRESSION_CODEC_ marker means Spark wrote the log uncompressed. */
    enum clarity_codec codec = CLARITY_CODEC_PLAIN;
    int rc = CLARITY_OK;
    for (size_t i = 0; i < d->n && rc == CLARITY_OK; i++) {
        const struct src_entry *e = &d->e[i];
        const char *n = e->name;
        uint64_t idx;
        if (e->kind == SRC_REG && clarity_src_has_prefix(n, LOG_PREFIX) &&
            clarity_src_parse_index(n + strlen(LOG_PREFIX), strlen(n + strlen(LOG_PREFIX)), &idx)) {
            parts[np++] = (struct part){.index = idx, .name = n};
        } else if (clarity_src_has_prefix(n, VERSION_PREFIX) && !app.version_hint) {
            app.version_hint = strdup(n + strlen(VERSION_PREFIX));
            if (!app.version_hint) rc = CLARITY_ENOMEM;
        } else if (clarity_src_has_prefix(n, CODEC_PREFIX)) {
            codec = clarity_src_codec_from_class(n + strlen(CODEC_PREFIX));
        } else if (strcmp(n, COMPLETE) == 0) {
            app.in_progress = false;
        } else {
            char *child = clarity_src_join(path, n);
            if (!child) { rc = CLARITY_ENOMEM; break; }
            rc = n[0] == '.' ? clarity_src_add_note(out, child, "not an event log: hidden name (dotfile)")
                             : clarity_src_add_note(out, child, "not part of the legacy event log in %s", path);
            free(child);
        }
    }
    if (rc == CLARITY_OK && np == 0)
        rc = clarity_src_add_note(out, path, "legacy (Spark 1.x) log directory without an EVENT_LOG_1 file");
    if (rc != CLARITY_OK || np == 0) {
        free(parts);
        clarity_src_app_free(&app);
        return rc;
    }
    /* Spark 1.0's FileLogger could roll EVENT_LOG_1, EVENT_LOG_2, ...; numeric order keeps
     * EVENT_LOG_10 after EVENT_LOG_9. */
    qsort(parts, np, sizeof *parts, cmp_part);
    app.path = strdup(path);
    app.base = strdup(dirname);
    if (!app.path || !app.base) rc = CLARITY_ENOMEM;
    for (size_t i = 0; i < np && rc == CLARITY_OK; i++)
        rc = clarity_src_app_add_file(&app, clarity_src_join(path, parts[i].name), codec, false);
    free(parts);
    if (rc != CLARITY_OK) {
        clarity_src_app_free(&app);
        return rc;
    }
    return clarity_src_add_app(out, &app);
}
