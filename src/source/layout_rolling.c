/* Rolling event logs (Spark 3.0+, SPARK-28869): eventlog_v2_<base>/ holding
 * events_<N>_<base>[.<codec>][.compact] and appstatus_<base>[.inprogress]. Mirrors
 * RollingEventLogFilesFileReader: sort by N, drop everything before the last .compact. */
#include "source/internal.h"
#include <stdlib.h>
#include <string.h>

#define ROLLING_PREFIX "eventlog_v2_"

struct rolled {
    uint64_t index;
    bool compact;
    enum clarity_codec codec;
    const char *name;            /* borrowed from the listing */
};

/* events_<N>_<rest>: fills index and points rest past the second underscore. */
static bool events_name(const char *name, uint64_t *index, const char **rest)
{
    if (!clarity_src_has_prefix(name, "events_")) return false;
    const char *num = name + 7, *us = strchr(num, '_');
    if (!us || !clarity_src_parse_index(num, (size_t)(us - num), index)) return false;
    *rest = us + 1;
    return true;
}

bool clarity_src_rolling_match(const char *dirname, const struct src_dir *d)
{
    if (clarity_src_has_prefix(dirname, ROLLING_PREFIX)) return true;
    /* A renamed or copied rolling directory still holds its characteristic files. */
    for (size_t i = 0; i < d->n; i++) {
        uint64_t idx;
        const char *rest;
        if (d->e[i].kind != SRC_REG) continue;
        if (events_name(d->e[i].name, &idx, &rest) || clarity_src_has_prefix(d->e[i].name, "appstatus_"))
            return true;
    }
    return false;
}

static int cmp_rolled(const void *a, const void *b)
{
    const struct rolled *x = a, *y = b;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    /* While the history server compacts, events_N and events_N.compact can coexist; the
     * compact one must sort last so the plain one is dropped with the rest. */
    return (int)x->compact - (int)y->compact;
}

static int base_from_events(const struct rolled *r, size_t n, char **base)
{
    *base = NULL;
    if (n == 0) return CLARITY_OK;
    uint64_t idx;
    const char *rest;
    events_name(r[0].name, &idx, &rest);
    struct src_name nm;
    if (clarity_src_parse_name(rest, &nm) != CLARITY_OK) return CLARITY_ENOMEM;
    *base = nm.base;
    return CLARITY_OK;
}

/* Spark's reader refuses a rolling log whose indexes are not consecutive ("Found missing
 * event log file"); here it is read anyway, but the gap is counted so the integrity report
 * says that a part of the application (its jobs, stages, executors) is absent. The writer
 * numbers files from 1, so a list that does not start at a .compact must start at 1. */
static void count_missing(const struct rolled *r, size_t n, struct clarity_app_source *app)
{
    uint64_t want = (n == 0 || r[0].compact || r[0].index == 0) ? (n ? r[0].index : 0) : 1;
    for (size_t i = 0; i < n; i++) {
        if (r[i].index > want) {
            if (app->missing_parts == 0) app->first_missing_part = want;
            app->missing_parts += r[i].index - want;
        }
        if (r[i].index == UINT64_MAX) break;
        if (r[i].index >= want) want = r[i].index + 1;
    }
}

int clarity_src_rolling_add(const char *path, const char *dirname, const struct src_dir *d,
                    struct clarity_source_list *out)
{
    struct rolled *r = calloc(d->n ? d->n : 1, sizeof *r);
    if (!r) return CLARITY_ENOMEM;
    size_t nr = 0;
    bool status_inprogress = false, status_complete = false;
    int rc = CLARITY_OK;
    for (size_t i = 0; i < d->n && rc == CLARITY_OK; i++) {
        const struct src_entry *e = &d->e[i];
        char *child = clarity_src_join(path, e->name);
        if (!child) { rc = CLARITY_ENOMEM; break; }
        uint64_t idx;
        const char *rest;
        if (e->name[0] == '.') {
            rc = clarity_src_add_note(out, child, "not an event log: hidden name (dotfile)");
        } else if (e->kind == SRC_REG && events_name(e->name, &idx, &rest)) {
            struct src_name nm;
            rc = clarity_src_parse_name(rest, &nm);
            if (rc == CLARITY_OK) {
                r[nr++] = (struct rolled){.index = idx, .compact = nm.compact, .codec = nm.codec, .name = e->name};
                free(nm.base);
            }
        } else if (e->kind == SRC_REG && clarity_src_has_prefix(e->name, "appstatus_")) {
            if (clarity_src_has_suffix(e->name, ".inprogress")) status_inprogress = true;
            else status_complete = true;
        } else {
            rc = clarity_src_add_note(out, child, "not part of the rolling event log in %s", path);
        }
        free(child);
    }
    if (rc == CLARITY_OK && nr == 0)
        rc = clarity_src_add_note(out, path, "rolling event log directory without events_<N>_ files");
    if (rc != CLARITY_OK || nr == 0) {
        free(r);
        return rc;
    }
    qsort(r, nr, sizeof *r, cmp_rolled);
    size_t first = 0;
    for (size_t i = 0; i < nr; i++)
        if (r[i].compact) first = i;

    struct clarity_app_source app = {.layout = CLARITY_LAYOUT_ROLLING_DIR};
    app.path = strdup(path);
    if (clarity_src_has_prefix(dirname, ROLLING_PREFIX))
        app.base = strdup(dirname + strlen(ROLLING_PREFIX));
    else
        rc = base_from_events(r, nr, &app.base);
    if (!app.path || !app.base) rc = CLARITY_ENOMEM;
    /* appstatus_*.inprogress is renamed only when the application ends, so without a
     * completed status file nothing says the log is whole. */
    app.in_progress = status_inprogress || !status_complete;
    app.dropped_before_compact = first;
    count_missing(r + first, nr - first, &app);
    for (size_t i = first; i < nr && rc == CLARITY_OK; i++)
        rc = clarity_src_app_add_file(&app, clarity_src_join(path, r[i].name), r[i].codec, r[i].compact);
    free(r);
    if (rc != CLARITY_OK) {
        clarity_src_app_free(&app);
        return rc;
    }
    return clarity_src_add_app(out, &app);
}
