/* Loads the project's own logs and asks the REST layer, then reads the JSON answer back with
 * the event parser, so every route is tested without ../shared. The fixtures in
 * tests/unit/shs/data (written for these tests; kept out of tests/data so directory runs of
 * other suites do not pick them up):
 *   app-shs-0001_2.json   attempt "2": 3 jobs' worth of stages, one of each end reason, a
 *                         resource profile, executor resources, a miscellaneous process
 *   app-shs-0001_1.json   attempt "1" of the same application (one job, one task)
 *   app-shs-0002.inprogress.json   a running application (no ApplicationEnd) */
#ifndef TEST_SHS_HELPERS_H
#define TEST_SHS_HELPERS_H
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/model.h"
#include "clarity/shs.h"
#include "clarity/source.h"
#include "event/json.h"

struct shs_fixture {
    struct clarity_source_list sources;
    struct clarity_app *apps[8];
    size_t napps;
};

struct shs_answer {
    int rc, status;
    struct clarity_shs_response res;
    struct clarity_error err;
    char *copy;            /* padded copy of the body for the parser */
    cj_parser *parser;
    cj_val root;
};

static inline const char *shs_test_path(const char *rel, char *buf, size_t cap)
{
    const char *root = getenv("CLARITY_ROOT");
    snprintf(buf, cap, "%s/%s", root ? root : ".", rel);
    return buf;
}

/* Loads every application under rel (a file or directory, relative to the repository). */
static inline void shs_fixture_load(struct shs_fixture *f, const char *rel)
{
    char path[1024];
    const char *p[] = {shs_test_path(rel, path, sizeof path)};
    struct clarity_error err = {0};
    memset(f, 0, sizeof *f);
    cr_assert_eq(clarity_source_resolve(p, 1, &f->sources, &err), CLARITY_OK, "resolve %s: %s", p[0], err.msg);
    cr_assert_leq(f->sources.napps, 8);
    for (size_t i = 0; i < f->sources.napps; i++) {
        struct clarity_load_options o = {.keep_task_accumulables = true, .threads = 1};
        cr_assert_eq(clarity_app_load(&f->sources.apps[i], &o, &f->apps[f->napps], &err), CLARITY_OK, "load: %s", err.msg);
        f->napps++;
    }
}

static inline void shs_fixture_free(struct shs_fixture *f)
{
    for (size_t i = 0; i < f->napps; i++) clarity_app_free(f->apps[i]);
    clarity_source_list_free(&f->sources);
}

static inline void shs_answer_free(struct shs_answer *x)
{
    clarity_shs_response_free(&x->res);
    if (x->parser) clarity_cj_parser_free(x->parser);
    free(x->copy);
    memset(x, 0, sizeof *x);
}

/* Asks path; on 200 parses the body into x->root. */
static inline void shs_ask_opt(struct shs_answer *x, const struct shs_fixture *f, const char *path, bool pretty)
{
    memset(x, 0, sizeof *x);
    x->rc = clarity_shs_answer((struct clarity_app *const *)f->apps, f->napps, path, pretty, &x->res, &x->err);
    x->status = x->res.status;
    if (x->rc != CLARITY_OK) {
        cr_assert_null(x->res.body, "%s: no body on errors", path);
        return;
    }
    cr_assert_eq(x->status, 200);
    cr_assert_not_null(x->res.body);
    cr_assert_eq(strlen(x->res.body), x->res.len);
    cr_assert_eq(x->res.body[x->res.len - 1], '\n', "%s: body ends with a newline", path);
    x->copy = calloc(x->res.len + CJ_PADDING + 1, 1);
    memcpy(x->copy, x->res.body, x->res.len);
    x->parser = clarity_cj_parser_new(x->res.len + 4096);
    const char *why = "";
    cr_assert_eq(clarity_cj_parse(x->parser, x->copy, x->res.len, &x->root, &why), 0, "%s: answer is not JSON: %s", path, why);
}

static inline void shs_ask(struct shs_answer *x, const struct shs_fixture *f, const char *path)
{
    shs_ask_opt(x, f, path, true);
}

/* Expects a failure: the clarity code, the HTTP status and the message. */
static inline void shs_expect_error(const struct shs_fixture *f, const char *path, int code, int status, const char *msg)
{
    struct shs_answer x;
    shs_ask(&x, f, path);
    cr_assert_eq(x.rc, code, "%s: code %d, want %d (%s)", path, x.rc, code, x.err.msg);
    cr_assert_eq(x.status, status, "%s: status %d, want %d", path, x.status, status);
    if (msg) cr_assert_str_eq(x.err.msg, msg, "%s", path);
    shs_answer_free(&x);
}

/* Value at a dotted path: object keys, or array indexes ("0.attempts.1.attemptId"). A key
 * with dots in it is written between brackets: "tasks.[1].status" is not needed, so keys are
 * plain; "#" is the length of an array or the member count of an object. */
static inline cj_val shs_at(cj_val v, const char *path)
{
    char part[128];
    while (*path) {
        size_t len = strcspn(path, ".");
        cr_assert_lt(len, sizeof part);
        memcpy(part, path, len);
        part[len] = 0;
        path += len + (path[len] == '.');
        cj_val next;
        if (clarity_cj_type(v) == CJ_ARRAY) {
            char *end;
            long idx = strtol(part, &end, 10);
            cr_assert(!*end, "array index expected at '%s'", part);
            cj_iter it;
            clarity_cj_array_begin(v, &it);
            bool found = false;
            for (long i = 0; i <= idx && (found = clarity_cj_array_next(&it, &next)); i++) {}
            cr_assert(found, "no element %ld", idx);
        } else {
            cr_assert(clarity_cj_get(v, part, &next), "no key '%s'", part);
        }
        v = next;
    }
    return v;
}

static inline bool shs_has(cj_val v, const char *key) { cj_val x; return clarity_cj_get(v, key, &x); }

static inline int64_t shs_int(cj_val v, const char *path)
{
    int64_t x = 0;
    cr_assert(clarity_cj_int(shs_at(v, path), &x), "%s is not an integer", path);
    return x;
}

static inline double shs_dbl(cj_val v, const char *path)
{
    double x = 0;
    cr_assert(clarity_cj_double(shs_at(v, path), &x), "%s is not a number", path);
    return x;
}

static inline bool shs_bool(cj_val v, const char *path)
{
    bool x = false;
    cr_assert(clarity_cj_bool(shs_at(v, path), &x), "%s is not a boolean", path);
    return x;
}

/* The string at path, copied into a per-call rotating buffer. */
static inline const char *shs_str(cj_val v, const char *path)
{
    static _Thread_local char bufs[4][2048];
    static _Thread_local int next;
    const char *s;
    size_t n;
    cr_assert(clarity_cj_str(shs_at(v, path), &s, &n), "%s is not a string", path);
    char *b = bufs[next++ % 4];
    snprintf(b, sizeof bufs[0], "%.*s", (int)n, s);
    return b;
}

/* Elements of an array, or members of an object. */
static inline size_t shs_len(cj_val v, const char *path)
{
    cj_val x = shs_at(v, path);
    cj_iter it;
    cj_val e;
    size_t n = 0;
    if (clarity_cj_type(x) == CJ_ARRAY) {
        clarity_cj_array_begin(x, &it);
        while (clarity_cj_array_next(&it, &e)) n++;
        return n;
    }
    return clarity_cj_object_members(x, NULL, 0);
}

#endif
