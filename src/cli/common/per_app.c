#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/common/load.h"
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
 * error) with the application's path, and the command then exits 5 (out of memory) or 3. */
static int one(const struct per_app_cmd *c, const struct clarity_app_set *set, size_t i, FILE *o, struct jsonw *w)
{
    struct clarity_error err = {0};
    if (c->one(c->ctx, set->apps[i].app, o, w, &err) == 0) return EXIT_OK;
    fprintf(stderr, "clarity %s: %s: %s\n", c->out->cmd, set->apps[i].src->path, err.msg);
    return exit_for_error(err.code);
}

static void problems_json(struct jsonw *w, const struct clarity_app_set *set)
{
    char buf[1200];
    clarity_jsonw_key(w, "failed");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < set->n; i++)
        if (!set->apps[i].app && !set->apps[i].released) {
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

/* One run over a set, fed an application at a time (load_set_each). The output is opened
 * when the first application has loaded: when none can be read nothing is written, as
 * before any output existed. */
struct run {
    const struct per_app_cmd *c;
    FILE *o;
    bool open_failed, first;
    struct jsonw w;
    /* JSON goes through the writer's buffer, a block at a time: a summary of 10^6 jobs is
     * gigabytes written in pieces of a few bytes, where stdio's cost per call dominated. */
    char wbuf[1 << 16];
    int rc;                      /* the first failed analysis or report's exit code */
};

static bool ensure_open(struct run *r)
{
    if (r->o || r->open_failed) return r->o != NULL;
    r->o = open_output(r->c->out->cmd, r->c->out->outpath);
    if (!r->o) {
        r->open_failed = true;
        return false;
    }
    if (r->c->out->json) {
        /* The one JSON envelope of every per-application command. */
        clarity_jsonw_init(&r->w, r->o, !r->c->out->compact);
        clarity_jsonw_buffer(&r->w, r->wbuf, sizeof r->wbuf);
        clarity_jsonw_obj_begin(&r->w);
        clarity_jsonw_kstr(&r->w, "schema", r->c->schema);
        clarity_jsonw_key(&r->w, "applications");
        clarity_jsonw_arr_begin(&r->w);
    }
    return true;
}

/* The text of application i in the table shape (struct per_app_rows). */
static int rows_each(const struct per_app_cmd *c, const struct clarity_app_set *set, size_t i, FILE *o,
                     struct clarity_error *err)
{
    struct per_app_rows *pr = c->rows;
    const struct clarity_app *a = set->apps[i].app;
    if (set->n == 1 || pr->detail) {
        if (!a || !app_filter_keep(&c->filter, a)) return 0;
        if (i) fputc('\n', o);
        return c->one(c->ctx, a, o, NULL, err);
    }
    if (!a) {
        pr->failed++;
        return 0;
    }
    return pr->row(c->ctx, a, &pr->table, err);
}

/* A paragraph laid out for 100 columns (lines ending in a newline): as laid out when every
 * line fits the width, else its lines joined and wrapped to the width, so that a narrower
 * terminal gets whole lines rather than ragged halves. */
static void wrap_lines(FILE *o, size_t width, const char *text)
{
    bool fits = true;
    for (const char *p = text; *p && fits; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n'))
        fits = !width || strcspn(p, "\n") <= width;
    char *joined = fits ? NULL : strdup(text);
    if (!joined) {                /* fits, or out of memory: as laid out */
        fputs(text, o);
        return;
    }
    size_t n = strlen(joined);
    for (size_t i = 0; i < n; i++)
        if (joined[i] == '\n') joined[i] = ' ';
    while (n && joined[n - 1] == ' ') joined[--n] = '\0';
    clarity_fit_wrap(o, width, "", joined);
    free(joined);
}

static int rows_end(const struct per_app_cmd *c, const struct clarity_app_set *set, FILE *o, struct clarity_error *err)
{
    struct per_app_rows *pr = c->rows;
    if (set->n == 1 || pr->detail || !o) return 0;
    wrap_lines(o, pr->width, pr->title);
    if (clarity_table_write(o, &pr->table, 0, pr->width))
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the table");
    /* the count and the command's note, gathered first, then each of their lines wrapped to
     * the table's width like the table above them */
    char *note = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&note, &len);
    if (!m) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the table");
    fprintf(m, "%zu application(s), %zu could not be read. ", pr->table.nrows, pr->failed);
    pr->note(m);
    if (fclose(m) || !note) {
        free(note);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the table");
    }
    fputc('\n', o);
    wrap_lines(o, pr->width, note);
    free(note);
    return 0;
}

static void each_app(void *ctx, const struct clarity_app_set *set, size_t i)
{
    struct run *r = ctx;
    const struct per_app_cmd *c = r->c;
    const struct clarity_app *a = set->apps[i].app;
    if (a && !ensure_open(r)) return;
    if (!c->out->json && (c->text_each || c->rows)) {
        struct clarity_error err = {0};
        int trc = c->text_each ? c->text_each(c->ctx, set, i, &c->filter, r->o, &err) : rows_each(c, set, i, r->o, &err);
        if (trc != 0 && r->rc == EXIT_OK) {
            fprintf(stderr, "clarity %s: %s\n", c->out->cmd, err.msg);
            r->rc = exit_for_error(err.code);
        }
        return;
    }
    if (!a || !app_filter_keep(&c->filter, a)) return;
    if (!c->out->json) {
        if (!r->first) fputc('\n', r->o);
        r->first = false;
    }
    int orc = one(c, set, i, r->o, c->out->json ? &r->w : NULL);
    if (c->out->json) clarity_jsonw_flush(&r->w);
    if (orc != EXIT_OK && r->rc == EXIT_OK) r->rc = orc;
}

int run_per_app(const struct per_app_cmd *c, char *const *paths, size_t npaths)
{
    struct clarity_app_set set;
    struct clarity_load_options lean = lean_load_options(c->out->quiet);
    struct run r = {.c = c, .first = true, .rc = EXIT_OK};
    int rc = load_set_each(c->out->cmd, (const char *const *)paths, npaths, c->out->quiet, c->load ? c->load : &lean, &set,
                           each_app, &r);
    if (rc != EXIT_OK || r.open_failed) {
        if (r.o) clarity_jsonw_flush(&r.w);
        if (r.o) close_output(r.o, c->out->cmd, c->out->outpath, false);
        clarity_app_set_free(&set);
        return rc != EXIT_OK ? rc : EXIT_USAGE;
    }
    rc = r.rc;
    struct clarity_error eerr = {0};
    int erc = 0;
    if (c->out->json) {
        clarity_jsonw_arr_end(&r.w);
        if (c->list_problems) problems_json(&r.w, &set);
        if (c->end && r.o) erc = c->end(c->ctx, &set, NULL, &r.w, &eerr);
        clarity_jsonw_obj_end(&r.w);
        clarity_jsonw_end(&r.w);
        clarity_jsonw_flush(&r.w);
    } else if (c->text_end || c->rows) {
        struct clarity_error err = {0};
        int trc = c->text_end ? c->text_end(c->ctx, &set, r.o, &err) : rows_end(c, &set, r.o, &err);
        if (trc != 0 && rc == EXIT_OK) {
            fprintf(stderr, "clarity %s: %s\n", c->out->cmd, err.msg);
            rc = exit_for_error(err.code);
        }
    }
    if (c->end && r.o && !c->out->json) erc = c->end(c->ctx, &set, r.o, NULL, &eerr);
    if (erc != 0 && rc == EXIT_OK) {
        fprintf(stderr, "clarity %s: %s\n", c->out->cmd, eerr.msg);
        rc = exit_for_error(eerr.code);
    }
    int crc = close_output(r.o, c->out->cmd, c->out->outpath, rc == EXIT_OK);
    if (rc == EXIT_OK) rc = crc;
    rc = set_exit_code(&set, rc);
    clarity_app_set_free(&set);
    return rc;
}
