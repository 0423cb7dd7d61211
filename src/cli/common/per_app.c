#include <string.h>
#include "cli/commands.h"
#include "cli/common/per_app.h"
#include "util/jsonw.h"

bool app_filter_keep(const struct app_filter *f, const struct clarity_app *a)
{
    if (f->since_ms && a->start_ms < f->since_ms) return false;
    if (f->name && !strstr(clarity_app_str(a, a->name), f->name) && !strstr(clarity_app_str(a, a->app_id), f->name))
        return false;
    return true;
}

/* Runs c->one on app i; reports an analysis or report that failed (out of memory, a write
 * error) with the application's path, and the command then exits 3. */
static int one(const struct per_app_cmd *c, const struct clarity_app_set *set, size_t i, FILE *o, struct jsonw *w)
{
    struct clarity_error err = {0};
    if (c->one(c->ctx, set->apps[i].app, o, w, &err) == 0) return EXIT_OK;
    fprintf(stderr, "clarity %s: %s: %s\n", c->out->cmd, set->apps[i].src->path, err.msg);
    return EXIT_INPUT;
}

static void problems_json(struct jsonw *w, const struct clarity_app_set *set)
{
    char buf[1200];
    clarity_jsonw_key(w, "failed");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < set->n; i++)
        if (!set->apps[i].app) {
            clarity_jsonw_obj_begin(w);
            clarity_jsonw_kstr(w, "source", set->apps[i].src->path);
            clarity_jsonw_kstr(w, "error", clarity_error_format(&set->apps[i].err, buf, sizeof buf));
            clarity_jsonw_kstr(w, "kind", clarity_status_name(set->apps[i].err.code));
            clarity_jsonw_obj_end(w);
        }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "skipped");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < set->sources.nnotes; i++) {
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "path", set->sources.notes[i].path);
        clarity_jsonw_kstr(w, "why", set->sources.notes[i].why);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
}

/* The one JSON envelope of every per-application command. */
static int write_json(const struct per_app_cmd *c, const struct clarity_app_set *set, FILE *o)
{
    int rc = EXIT_OK;
    struct jsonw w;
    clarity_jsonw_init(&w, o, !c->out->compact);
    clarity_jsonw_obj_begin(&w);
    clarity_jsonw_kstr(&w, "schema", c->schema);
    clarity_jsonw_key(&w, "applications");
    clarity_jsonw_arr_begin(&w);
    for (size_t i = 0; i < set->n; i++)
        if (set->apps[i].app && app_filter_keep(&c->filter, set->apps[i].app) && one(c, set, i, o, &w) != EXIT_OK)
            rc = EXIT_INPUT;
    clarity_jsonw_arr_end(&w);
    if (c->list_problems) problems_json(&w, set);
    clarity_jsonw_obj_end(&w);
    clarity_jsonw_end(&w);
    return rc;
}

static int write_text(const struct per_app_cmd *c, const struct clarity_app_set *set, FILE *o)
{
    if (c->text) {
        struct clarity_error err = {0};
        if (c->text(c->ctx, set, &c->filter, o, &err) == 0) return EXIT_OK;
        fprintf(stderr, "clarity %s: %s\n", c->out->cmd, err.msg);
        return EXIT_INPUT;
    }
    int rc = EXIT_OK;
    bool first = true;
    for (size_t i = 0; i < set->n; i++) {
        if (!set->apps[i].app || !app_filter_keep(&c->filter, set->apps[i].app)) continue;
        if (!first) fputc('\n', o);
        if (one(c, set, i, o, NULL) != EXIT_OK) rc = EXIT_INPUT;
        first = false;
    }
    return rc;
}

int run_per_app(const struct per_app_cmd *c, char *const *paths, size_t npaths)
{
    struct clarity_app_set set;
    struct clarity_load_options lean = lean_load_options(c->out->quiet);
    int rc = load_set((const char *const *)paths, npaths, c->out->quiet, c->load ? c->load : &lean, &set);
    if (rc != EXIT_OK) {
        clarity_app_set_free(&set);
        return rc;
    }
    FILE *o = open_output(c->out->outpath);
    if (!o) {
        clarity_app_set_free(&set);
        return EXIT_USAGE;
    }
    rc = c->out->json ? write_json(c, &set, o) : write_text(c, &set, o);
    int crc = close_output(o, c->out->cmd, c->out->outpath, rc == EXIT_OK);
    if (rc == EXIT_OK) rc = crc;
    rc = set_exit_code(&set, rc);
    clarity_app_set_free(&set);
    return rc;
}
