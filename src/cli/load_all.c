#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"

int load_all(const char *const *paths, size_t npaths, bool quiet, struct loaded_set *out)
{
    return load_all_opts(paths, npaths, quiet, NULL, out);
}

int load_all_opts(const char *const *paths, size_t npaths, bool quiet, const struct clarity_load_options *opt,
                  struct loaded_set *out)
{
    memset(out, 0, sizeof *out);
    struct clarity_error err = {0};
    char buf[1200];
    int rc = clarity_source_resolve(paths, npaths, &out->sources, &err);
    if (rc != CLARITY_OK && err.code) fprintf(stderr, "clarity: %s\n", clarity_error_format(&err, buf, sizeof buf));
    if (!quiet)
        for (size_t i = 0; i < out->sources.nnotes; i++)
            fprintf(stderr, "clarity: %s: skipped: %s\n", out->sources.notes[i].path, out->sources.notes[i].why);
    if (out->sources.napps == 0) return EXIT_INPUT;
    out->apps = calloc(out->sources.napps, sizeof *out->apps);
    if (!out->apps) return EXIT_INPUT;
    out->n = out->sources.napps;
    for (size_t i = 0; i < out->n; i++) {
        struct loaded_app *la = &out->apps[i];
        la->src = &out->sources.apps[i];
        if (clarity_app_load(la->src, opt, &la->app, &la->err) != CLARITY_OK) {
            out->nfailed++;
            fprintf(stderr, "clarity: %s\n", clarity_error_format(&la->err, buf, sizeof buf));
        }
    }
    return out->nfailed == out->n ? EXIT_INPUT : EXIT_OK;
}

void loaded_set_free(struct loaded_set *s)
{
    for (size_t i = 0; i < s->n; i++) clarity_app_free(s->apps[i].app);
    free(s->apps);
    clarity_source_list_free(&s->sources);
    memset(s, 0, sizeof *s);
}

FILE *open_output(const char *path)
{
    if (!path || strcmp(path, "-") == 0) return stdout;
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "clarity: %s: cannot write: %s\n", path, strerror(errno));
    return f;
}

void close_output(FILE *f)
{
    if (f && f != stdout) fclose(f);
    else fflush(stdout);
}
