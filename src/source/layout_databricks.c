/* Databricks cluster log directories: the live `eventlog` plus rolled
 * `eventlog-YYYY-MM-DD--HH-MM[.gz]` segments (NVIDIA EventLogPathProcessor.scala). Read the
 * rolled ones oldest first, then the live file, which holds the newest events. */
#include "source/internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIVE "eventlog"

bool clarity_src_databricks_rolled_name(const char *name, uint64_t *stamp, bool *gz)
{
    /* eventlog-YYYY-MM-DD--HH-MM: fixed width, so position decides which part is which. */
    static const char shape[] = "eventlog-dddd-dd-dd--dd-dd";
    size_t len = sizeof shape - 1, n = strlen(name);
    if (n != len && !(n == len + 3 && strcmp(name + len, ".gz") == 0)) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (shape[i] == 'd') {
            if (name[i] < '0' || name[i] > '9') return false;
            v = v * 10 + (uint64_t)(name[i] - '0');
        } else if (name[i] != shape[i]) {
            return false;
        }
    }
    *stamp = v;
    *gz = n != len;
    return true;
}

static bool is_db_name(const char *name)
{
    uint64_t s;
    bool gz;
    return strcmp(name, LIVE) == 0 || clarity_src_databricks_rolled_name(name, &s, &gz);
}

bool clarity_src_databricks_match(const char *path, const struct src_dir *d)
{
    bool any = false;
    for (size_t i = 0; i < d->n; i++) {
        const struct src_entry *e = &d->e[i];
        if (e->name[0] == '.') continue;
        if (e->kind == SRC_REG && is_db_name(e->name)) {
            any = true;
            continue;
        }
        /* A directory of many applications may hold one file called `eventlog`; if anything
         * else here is a log or a directory, this is such a container, not one app. */
        if (e->kind == SRC_DIR) return false;
        if (e->kind == SRC_REG) {
            char why[160];
            char *child = clarity_src_join(path, e->name);
            if (!child) return false;
            enum src_verdict v = clarity_src_sniff_file(child, e->name, e->size, why, sizeof why);
            free(child);
            if (v == SRC_LOG) return false;
        }
    }
    return any;
}

struct segment {
    uint64_t stamp;
    bool gz;
    const char *name;
};

static int cmp_segment(const void *a, const void *b)
{
    const struct segment *x = a, *y = b;
    if (x->stamp != y->stamp) return x->stamp < y->stamp ? -1 : 1;
    return strcmp(x->name, y->name);
}

int clarity_src_databricks_add(const char *path, const struct src_dir *d,
                       struct clarity_source_list *out)
{
    struct segment *seg = calloc(d->n ? d->n : 1, sizeof *seg);
    if (!seg) return CLARITY_ENOMEM;
    size_t ns = 0;
    bool live = false;
    int rc = CLARITY_OK;
    for (size_t i = 0; i < d->n && rc == CLARITY_OK; i++) {
        const struct src_entry *e = &d->e[i];
        uint64_t stamp;
        bool gz;
        if (e->kind == SRC_REG && strcmp(e->name, LIVE) == 0) {
            live = true;
        } else if (e->kind == SRC_REG && clarity_src_databricks_rolled_name(e->name, &stamp, &gz)) {
            seg[ns++] = (struct segment){.stamp = stamp, .gz = gz, .name = e->name};
        } else {
            char *child = clarity_src_join(path, e->name);
            if (!child) { rc = CLARITY_ENOMEM; break; }
            char why[160];
            if (e->kind != SRC_REG || clarity_src_sniff_file(child, e->name, e->size, why, sizeof why) == SRC_LOG)
                snprintf(why, sizeof why, "not part of the Databricks event log in %s", path);
            rc = clarity_src_add_note(out, child, "%s", why);
            free(child);
        }
    }
    if (rc != CLARITY_OK) {
        free(seg);
        return rc;
    }
    qsort(seg, ns, sizeof *seg, cmp_segment);
    struct clarity_app_source app = {.layout = CLARITY_LAYOUT_DATABRICKS};
    /* The app id is only inside the events (the directory is named after the cluster), and
     * the names say nothing about completion, so base stays NULL and in_progress false:
     * the loader learns both from the events. */
    app.path = strdup(path);
    if (!app.path) rc = CLARITY_ENOMEM;
    for (size_t i = 0; i < ns && rc == CLARITY_OK; i++)
        rc = clarity_src_app_add_file(&app, clarity_src_join(path, seg[i].name),
                              seg[i].gz ? CLARITY_CODEC_GZIP : CLARITY_CODEC_UNKNOWN, false);
    if (rc == CLARITY_OK && live)
        rc = clarity_src_app_add_file(&app, clarity_src_join(path, LIVE), CLARITY_CODEC_UNKNOWN, false);
    free(seg);
    if (rc != CLARITY_OK) {
        clarity_src_app_free(&app);
        return rc;
    }
    return clarity_src_add_app(out, &app);
}
