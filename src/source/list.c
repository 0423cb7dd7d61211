/* The result list: growing it, sorting it for stable output, and freeing everything. */
#include "source/internal.h"
#include "util/strbuf.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void clarity_src_app_free(struct clarity_app_source *app)
{
    for (size_t i = 0; i < app->nfiles; i++) free(app->files[i].path);
    free(app->files);
    free(app->path);
    free(app->base);
    free(app->version_hint);
    memset(app, 0, sizeof *app);
}

int clarity_src_app_add_file(struct clarity_app_source *app, char *path, enum clarity_codec codec,
                     bool compact)
{
    if (!path) return CLARITY_ENOMEM;
    struct clarity_log_file *nf = realloc(app->files, (app->nfiles + 1) * sizeof *nf);
    if (!nf) {
        free(path);
        return CLARITY_ENOMEM;
    }
    app->files = nf;
    app->files[app->nfiles++] = (struct clarity_log_file){.path = path, .codec = codec, .compact = compact};
    return CLARITY_OK;
}

int clarity_src_add_app(struct clarity_source_list *out, struct clarity_app_source *app)
{
    struct clarity_app_source *na = realloc(out->apps, (out->napps + 1) * sizeof *na);
    if (!na) {
        clarity_src_app_free(app);
        return CLARITY_ENOMEM;
    }
    out->apps = na;
    out->apps[out->napps++] = *app;
    memset(app, 0, sizeof *app);
    return CLARITY_OK;
}

int clarity_src_add_note(struct clarity_source_list *out, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *why = clarity_str_vprintf(fmt, ap);
    va_end(ap);
    char *p = strdup(path);
    struct clarity_source_note *nn = why && p ? realloc(out->notes, (out->nnotes + 1) * sizeof *nn) : NULL;
    if (!nn) {
        free(why);
        free(p);
        return CLARITY_ENOMEM;
    }
    out->notes = nn;
    out->notes[out->nnotes++] = (struct clarity_source_note){.path = p, .why = why};
    return CLARITY_OK;
}

static int cmp_app(const void *a, const void *b)
{
    return strcmp(((const struct clarity_app_source *)a)->path,
                  ((const struct clarity_app_source *)b)->path);
}

static int cmp_note(const void *a, const void *b)
{
    const struct clarity_source_note *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    return c ? c : strcmp(x->why, y->why);
}

void clarity_src_list_finish(struct clarity_source_list *out)
{
    if (out->napps > 1) qsort(out->apps, out->napps, sizeof *out->apps, cmp_app);
    /* The same application named twice (or a directory and a file inside it) is one app;
     * reading it twice would double every count downstream. */
    size_t w = 0;
    for (size_t r = 0; r < out->napps; r++) {
        if (w > 0 && strcmp(out->apps[w - 1].path, out->apps[r].path) == 0) {
            clarity_src_app_free(&out->apps[r]);
            continue;
        }
        out->apps[w++] = out->apps[r];
    }
    out->napps = w;
    if (out->nnotes > 1) qsort(out->notes, out->nnotes, sizeof *out->notes, cmp_note);
    w = 0;
    for (size_t r = 0; r < out->nnotes; r++) {
        if (w > 0 && cmp_note(&out->notes[w - 1], &out->notes[r]) == 0) {
            free(out->notes[r].path);
            free(out->notes[r].why);
            continue;
        }
        out->notes[w++] = out->notes[r];
    }
    out->nnotes = w;
}

void clarity_source_list_free(struct clarity_source_list *list)
{
    if (!list) return;
    for (size_t i = 0; i < list->napps; i++) clarity_src_app_free(&list->apps[i]);
    free(list->apps);
    for (size_t i = 0; i < list->nnotes; i++) {
        free(list->notes[i].path);
        free(list->notes[i].why);
    }
    free(list->notes);
    memset(list, 0, sizeof *list);
}
