#include "cli/per_app.h"
#include "cli/commands.h"

int run_per_app(const struct per_app_cmd *c, char *const *paths, size_t npaths)
{
    struct loaded_set set;
    int rc = load_all_lean((const char *const *)paths, npaths, c->quiet, &set);
    if (rc != EXIT_OK) {
        loaded_set_free(&set);
        return rc;
    }
    FILE *o = open_output(c->outpath);
    if (!o) {
        loaded_set_free(&set);
        return EXIT_USAGE;
    }
    struct jsonw w;
    if (c->json) {
        jsonw_init(&w, o, !c->compact);
        jsonw_obj_begin(&w);
        jsonw_kstr(&w, "schema", c->schema);
        jsonw_key(&w, "applications");
        jsonw_arr_begin(&w);
    }
    bool first = true;
    for (size_t i = 0; i < set.n; i++) {
        const struct clarity_app *a = set.apps[i].app;
        if (!a) continue;
        if (!c->json && !first) fputc('\n', o);
        struct clarity_error err = {0};
        if (c->one(c->ctx, a, o, c->json ? &w : NULL, &err) != 0) {
            fprintf(stderr, "clarity %s: %s: %s\n", c->name, set.apps[i].src->path, err.msg);
            rc = EXIT_INPUT;
        }
        first = false;
    }
    if (c->json) {
        jsonw_arr_end(&w);
        jsonw_obj_end(&w);
        jsonw_end(&w);
    }
    close_output(o);
    loaded_set_free(&set);
    return rc;
}
