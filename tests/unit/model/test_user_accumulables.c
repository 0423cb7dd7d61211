/* Keeping only the task accumulables the History Server shows (user_task_accumulables_only):
 * the text check that lets a TaskEnd skip its accumulables must agree with a real parse, and
 * a load so must keep exactly the shown ones of a full load, with the same tasks. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/model.h"
#include "event/json.h"
#include "model/decode/blank.h"

static uint64_t rnd_state;
static uint32_t rnd(uint32_t n)
{
    rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
    return n ? (uint32_t)((rnd_state >> 33) % n) : 0;
}

struct text { char *p; size_t n, cap; };
static void put(struct text *t, const char *s)
{
    size_t k = strlen(s);
    if (t->n + k + 1 > t->cap) {
        t->cap = (t->n + k + 1) * 2;
        t->p = realloc(t->p, t->cap);
    }
    memcpy(t->p + t->n, s, k + 1);
    t->n += k;
}

/* A JSON string whose text has brackets, escapes and the markers themselves in it. */
static void rnd_string(struct text *t)
{
    static const char *parts[] = {"a", "{", "}", "[", "]", ",", ":", "\\\"", "\\\\", "\\\"Internal\\\":true",
                                  "\\\"Metadata\\\":\\\"sql\\\"", "internal.metrics.x"};
    put(t, "\"");
    for (uint32_t i = 0, n = rnd(5); i < n; i++) put(t, parts[rnd(sizeof parts / sizeof *parts)]);
    put(t, "\"");
}

/* A value: number, string, or a nested object or array holding the markers as keys. */
static void rnd_value(struct text *t)
{
    switch (rnd(5)) {
    case 0: put(t, "12"); break;
    case 1: rnd_string(t); break;
    case 2: put(t, "{\"Internal\":true,\"Metadata\":\"sql\",\"x\":[1,{\"a\":\"}\"}]}"); break;
    case 3: put(t, "[{\"Internal\":true},\"]\"]"); break;
    default: put(t, "-3"); break;
    }
}

/* One accumulable as Spark writes it, members in any order, some left out. */
static void rnd_element(struct text *t)
{
    if (rnd(25) == 0) {   /* not an object at all */
        put(t, rnd(2) ? "7" : "\"x\"");
        return;
    }
    char members[8][160];
    size_t n = 0;
    snprintf(members[n++], sizeof members[0], "\"ID\":%u", rnd(100));
    struct text v = {0};
    put(&v, "");
    rnd_string(&v);
    snprintf(members[n++], sizeof members[0], "\"Name\":%s", v.p);
    v.n = 0;
    rnd_value(&v);
    snprintf(members[n++], sizeof members[0], "\"Update\":%s", v.p);
    v.n = 0;
    rnd_value(&v);
    snprintf(members[n++], sizeof members[0], "\"Value\":%s", v.p);
    free(v.p);
    uint32_t internal = rnd(3);
    if (internal < 2) snprintf(members[n++], sizeof members[0], "\"Internal\":%s", internal ? "true" : "false");
    snprintf(members[n++], sizeof members[0], "\"Count Failed Values\":true");
    uint32_t meta = rnd(4);
    if (meta == 1) snprintf(members[n++], sizeof members[0], "\"Metadata\":\"sql\"");
    if (meta == 2) snprintf(members[n++], sizeof members[0], "\"Metadata\":\"sqlx\"");
    for (size_t i = n; i > 1; i--) {   /* shuffle */
        size_t k = rnd((uint32_t)i);
        char tmp[160];
        memcpy(tmp, members[i - 1], sizeof tmp);
        memcpy(members[i - 1], members[k], sizeof tmp);
        memcpy(members[k], tmp, sizeof tmp);
    }
    put(t, "{");
    for (size_t i = 0; i < n; i++) {
        if (i) put(t, ",");
        put(t, members[i]);
    }
    put(t, "}");
}

/* The reference: parse the array and read each element as the loader does. */
static bool parsed_hidden(cj_parser *p, const char *text, size_t len)
{
    char *buf = calloc(len + CJ_PADDING, 1);
    memcpy(buf, text, len);
    cj_val root, e;
    const char *why;
    cr_assert_eq(clarity_cj_parse(p, buf, len, &root, &why), 0, "%s: %s", text, why);
    cj_iter it;
    bool all = true;
    clarity_cj_array_begin(root, &it);
    while (clarity_cj_array_next(&it, &e)) {
        bool internal = false;
        const char *m;
        size_t ml;
        if (clarity_cj_type(e) == CJ_OBJECT) clarity_cj_get_bool(e, "Internal", &internal);
        bool sql = clarity_cj_type(e) == CJ_OBJECT && clarity_cj_get_str(e, "Metadata", &m, &ml) && ml == 3 && !memcmp(m, "sql", 3);
        all &= clarity_cj_type(e) == CJ_OBJECT && (internal || sql);
    }
    free(buf);
    return all;
}

static bool element_hidden(cj_parser *p, const char *e)
{
    struct text t = {0};
    put(&t, "[");
    put(&t, e);
    put(&t, "]");
    bool h = parsed_hidden(p, t.p, t.n);
    free(t.p);
    return h;
}

Test(user_accumulables, text_check_agrees_with_a_parse)
{
    rnd_state = 5;
    cj_parser *p = clarity_cj_parser_new(1 << 16);
    size_t hidden = 0, shown = 0;
    for (int round = 0; round < 3000; round++) {
        struct text t = {0};
        put(&t, "[");
        /* mostly hidden elements, so arrays that are hidden as a whole come up often */
        for (uint32_t i = 0, n = 1 + rnd(4); i < n; i++) {
            if (i) put(&t, ",");
            struct text e = {0};
            for (int tries = rnd(3) ? 10 : 1; tries > 0; tries--) {
                e.n = 0;
                put(&e, "");
                rnd_element(&e);
                if (element_hidden(p, e.p)) break;
            }
            put(&t, e.p);
            free(e.p);
        }
        put(&t, "]");
        bool want = parsed_hidden(p, t.p, t.n);
        cr_assert_eq(clarity_blank_accumulables_hidden(t.p, 0, t.n - 1), want, "%s", t.p);
        hidden += want;
        shown += !want;
        free(t.p);
    }
    cr_assert_gt(hidden, 300, "hidden arrays drawn: %zu", hidden);
    cr_assert_gt(shown, 300, "shown arrays drawn: %zu", shown);
    clarity_cj_parser_free(p);
}

Test(user_accumulables, text_check_refuses_what_it_cannot_read)
{
    const char *cases[] = {
        "[{\"Internal\":true}]", "[{\"Internal\": true}]", "[{\"Internal\":true},{\"ID\":1}]",
        "[{\"ID\":1,\"Metadata\":\"sql\"},{\"Internal\":true,\"Value\":\"}\"}]", "[{\"Internal\":true,\"Value\":\"x\\\"}]",
        "[1]", "[{\"Internal\":true}",
    };
    const bool want[] = {true, false, false, true, false, false, false};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        cr_assert_eq(clarity_blank_accumulables_hidden(cases[i], 0, strlen(cases[i]) - 1), want[i], "%s", cases[i]);
}

/* ---- loading ---- */

static const char *log_text(const char *version)
{
    static char buf[8192];
    int n = snprintf(buf, sizeof buf,
                     "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"%s\"}\n"
                     "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"x\",\"Timestamp\":1000,\"User\":\"u\"}\n",
                     version);
    const char *accs[] = {
        "{\"ID\":1,\"Name\":\"internal.metrics.executorRunTime\",\"Update\":5,\"Value\":5,\"Internal\":true,\"Count Failed Values\":true}",
        "{\"ID\":2,\"Name\":\"rows\",\"Update\":\"3\",\"Value\":\"9\",\"Internal\":true,\"Count Failed Values\":true,\"Metadata\":\"sql\"}",
        "{\"ID\":3,\"Name\":\"mine\",\"Update\":4,\"Value\":40,\"Internal\":false,\"Count Failed Values\":false}",
        "{\"ID\":4,\"Name\":\"mine too\",\"Update\":\"a b\",\"Value\":\"c\",\"Internal\":false,\"Count Failed Values\":true}",
    };
    for (int t = 0; t < 6; t++) {
        char acc[1024] = "";
        /* task 0: internal only; 1: SQL and internal; 2: one shown; 3: two shown; 4: none; 5: all */
        const int pick[6][4] = {{0, -1}, {0, 1, -1}, {0, 2, -1}, {3, 1, 2, -1}, {-1}, {0, 1, 2, 3}};
        for (int k = 0; k < 4 && pick[t][k] >= 0; k++) {
            if (k) strcat(acc, ",");
            strcat(acc, accs[pick[t][k]]);
        }
        n += snprintf(buf + n, sizeof buf - (size_t)n,
                      "{\"Event\":\"SparkListenerTaskStart\",\"Stage ID\":0,\"Stage Attempt ID\":0,\"Task Info\":{\"Task ID\":%d,"
                      "\"Index\":%d,\"Attempt\":0,\"Launch Time\":1200,\"Executor ID\":\"1\",\"Host\":\"h\"}}\n"
                      "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Stage Attempt ID\":0,\"Task End Reason\":{\"Reason\":\"Success\"},"
                      "\"Task Info\":{\"Task ID\":%d,\"Index\":%d,\"Attempt\":0,\"Launch Time\":1200,\"Executor ID\":\"1\",\"Host\":\"h\","
                      "\"Finish Time\":%d,\"Accumulables\":[%s]},\"Task Executor Metrics\":{\"JVMHeapMemory\":%d,"
                      "\"MinorGCCount\":\"x\",\"%s\":%d},"
                      "\"Task Metrics\":{\"Executor Run Time\":%d}}\n",
                      t, t, t, t, 1300 + t, acc, 100 + t, t == 4 ? "NotSparksOwn" : "TotalGCTime", 50 - t, 70 + t);
    }
    return buf;
}

static struct clarity_app *load(const char *text, const struct clarity_load_options *o)
{
    char path[] = "/tmp/clarity-useracc-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    struct clarity_log_file lf = {.path = path, .codec = CLARITY_CODEC_UNKNOWN};
    struct clarity_app_source src = {.path = path, .files = &lf, .nfiles = 1};
    struct clarity_app *a = NULL;
    struct clarity_error err;
    cr_assert_eq(clarity_app_load(&src, o, &a, &err), CLARITY_OK, "%s", err.msg);
    remove(path);
    return a;
}

static void same_shown(const struct clarity_app *full, const struct clarity_app *user)
{
    size_t k = 0;
    for (size_t i = 0; i < full->task_accums.n; i++) {
        const struct clarity_accum *x = &full->task_accums.p[i];
        if (x->internal || x->is_sql) continue;
        cr_assert_lt(k, user->task_accums.n);
        const struct clarity_accum *y = &user->task_accums.p[k++];
        char b1[32], b2[32];
        cr_assert_eq(x->owner, y->owner);
        cr_assert_eq(x->id, y->id);
        cr_assert_str_eq(clarity_app_str(full, x->name), clarity_app_str(user, y->name));
        cr_assert_str_eq(clarity_accum_text(full, x, true, b1, sizeof b1), clarity_accum_text(user, y, true, b2, sizeof b2));
        cr_assert_str_eq(clarity_accum_text(full, x, false, b1, sizeof b1), clarity_accum_text(user, y, false, b2, sizeof b2));
    }
    cr_assert_eq(k, user->task_accums.n, "only the shown ones are kept");
    cr_assert_eq(full->tasks.n, user->tasks.n);
    for (size_t i = 0; i < full->tasks.n; i++) {
        cr_assert_eq(clarity_task_metric(full, i, CLARITY_TM_RUN_MS), clarity_task_metric(user, i, CLARITY_TM_RUN_MS));
        cr_assert_eq(clarity_icol_get(&full->tasks.duration, i), clarity_icol_get(&user->tasks.duration, i));
        cr_assert_eq(clarity_task_flags(full, i), clarity_task_flags(user, i));
    }
    /* executor peaks: kept in both, whether read on the worker threads or not */
    const struct clarity_peaks *pf = &full->execs[0].peaks, *pu = &user->execs[0].peaks;
    cr_assert_eq(pf->n, 3, "JVMHeapMemory, TotalGCTime and the unknown name");
    cr_assert_eq(pf->n, pu->n);
    for (size_t i = 0; i < pf->n; i++) {
        cr_assert_str_eq(clarity_app_str(full, pf->p[i].name), clarity_app_str(user, pu->p[i].name));
        cr_assert_eq(pf->p[i].value, pu->p[i].value, "%s", clarity_app_str(full, pf->p[i].name));
    }
    cr_assert_eq(user->integrity.lines_malformed, 0);
}

Test(user_accumulables, load_keeps_exactly_the_shown_ones)
{
    const char *versions[] = {"3.5.0", "2.4.8"};
    for (size_t v = 0; v < 2; v++)
        for (int threads = 0; threads <= 1; threads++) {
            const char *text = log_text(versions[v]);
            struct clarity_load_options full = {.keep_task_accumulables = true, .threads = threads};
            struct clarity_load_options user = full;
            user.user_task_accumulables_only = true;
            struct clarity_app *a = load(text, &full), *b = load(text, &user);
            cr_assert_eq(a->task_accums.n, 12);
            cr_assert_eq(b->task_accums.n, 5, "Spark %s, threads %d: %zu kept", versions[v], threads, b->task_accums.n);
            same_shown(a, b);
            clarity_app_free(a);
            clarity_app_free(b);
        }
}
