/* clarity_cj_pick (one pass over an object's members) must find exactly what clarity_cj_get
 * (one lookup by name per key) finds: the same members, the first of duplicated keys, nothing
 * for absent keys or non-objects. Checked on hand-written objects and on every object of every
 * event of the project's fixtures. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "event/json.h"

struct doc { cj_parser *p; char *buf; cj_val root; };

static void doc_parse(struct doc *d, const char *text, size_t len)
{
    d->p = clarity_cj_parser_new(len + 1);
    d->buf = calloc(1, len + CJ_PADDING);
    cr_assert(d->p && d->buf);
    memcpy(d->buf, text, len);
    const char *why = NULL;
    cr_assert_eq(clarity_cj_parse(d->p, d->buf, len, &d->root, &why), 0, "%s: %s", text, why);
}
static void doc_free(struct doc *d) { clarity_cj_parser_free(d->p); free(d->buf); }

static char *json_of(cj_val v)
{
    char *s = clarity_cj_to_json(v, NULL);
    cr_assert_not_null(s);
    return s;
}

/* pick and get agree on every key of keys[0, n) */
static void agree(cj_val obj, const cj_key *keys, size_t n)
{
    cj_val vals[64];
    uint64_t f = clarity_cj_pick(obj, keys, n, vals);
    for (size_t i = 0; i < n; i++) {
        char k[256];
        cr_assert_lt(keys[i].len, sizeof k);
        memcpy(k, keys[i].s, keys[i].len);
        k[keys[i].len] = '\0';
        cj_val g;
        bool by_get = clarity_cj_get(obj, k, &g);
        cr_assert_eq(!!(f >> i & 1), by_get, "key \"%s\": pick %d, get %d", k, (int)(f >> i & 1), by_get);
        if (by_get) cr_assert_eq(memcmp(&g, &vals[i], sizeof g), 0, "key \"%s\": another member", k);
    }
}

Test(json_pick, members_out_of_order_duplicated_missing_null_and_mistyped)
{
    static const char text[] =
        "{\"Completion Time\":\"soon\",\"Stage ID\":7,\"Name\":null,\"Stage ID\":8,\"Stage Name\":\"a\","
        "\"Details\":{\"x\":[1,2]},\"Stage Name\":\"b\",\"Number of Tasks\":2.5,\"\":1,\"Stage\\u0020Attempt ID\":3}";
    struct doc d;
    doc_parse(&d, text, sizeof text - 1);
    static const cj_key keys[] = {CJ_KEY("Stage ID"), CJ_KEY("Stage Attempt ID"), CJ_KEY("Stage Name"),
                                  CJ_KEY("Details"), CJ_KEY("Number of Tasks"), CJ_KEY("Completion Time"),
                                  CJ_KEY("Name"), CJ_KEY("Submission Time"), CJ_KEY(""), CJ_KEY("Stage I"),
                                  CJ_KEY("Stage IDs")};
    const size_t n = sizeof keys / sizeof *keys;
    cj_val v[16];
    uint64_t f = clarity_cj_pick(d.root, keys, n, v);
    /* found: everything but "Submission Time", "Stage I" and "Stage IDs" */
    cr_assert_eq(f, 0x1ffu & ~(1u << 7));
    int64_t x;
    cr_assert(clarity_cj_int(v[0], &x));
    cr_assert_eq(x, 7, "the first of duplicated keys wins, as with a lookup");
    cr_assert(clarity_cj_int(v[1], &x));
    cr_assert_eq(x, 3, "escaped key text is compared unescaped");
    const char *s;
    size_t len;
    cr_assert(clarity_cj_str(v[2], &s, &len));
    cr_assert_eq(len, 1);
    cr_assert_eq(s[0], 'a');
    char *j = json_of(v[3]);
    cr_assert_str_eq(j, "{\"x\":[1,2]}");
    free(j);
    cr_assert_eq(clarity_cj_type(v[4]), CJ_DOUBLE);
    cr_assert_eq(clarity_cj_type(v[5]), CJ_STRING, "a mistyped value is found as it is");
    cr_assert_not(clarity_cj_int(v[5], &x));
    cr_assert_eq(clarity_cj_type(v[6]), CJ_NULL);
    agree(d.root, keys, n);
    doc_free(&d);
}

Test(json_pick, non_objects_and_empty_key_sets_find_nothing)
{
    static const cj_key keys[] = {CJ_KEY("a")};
    cj_val v[1];
    const char *docs[] = {"[{\"a\":1}]", "\"a\"", "1", "null", "{}"};
    for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
        struct doc d;
        doc_parse(&d, docs[i], strlen(docs[i]));
        cr_assert_eq(clarity_cj_pick(d.root, keys, 1, v), 0, "%s", docs[i]);
        cr_assert_eq(clarity_cj_pick(d.root, keys, 0, v), 0);
        doc_free(&d);
    }
}

Test(json_pick, sixty_four_keys_and_an_early_stop)
{
    char text[4096], names[64][8];
    size_t n = 0;
    cj_key keys[64];
    n += (size_t)sprintf(text + n, "{");
    for (int i = 0; i < 64; i++) {
        snprintf(names[i], sizeof names[i], "k%d", i);
        keys[i] = (cj_key){names[i], strlen(names[i])};
        n += (size_t)sprintf(text + n, "%s\"k%d\":%d", i ? "," : "", 63 - i, i);
    }
    n += (size_t)sprintf(text + n, ",\"k5\":-1}");   /* after all 64 were found: ignored */
    struct doc d;
    doc_parse(&d, text, n);
    cj_val v[64];
    cr_assert_eq(clarity_cj_pick(d.root, keys, 64, v), ~(uint64_t)0);
    int64_t x;
    cr_assert(clarity_cj_int(v[5], &x));
    cr_assert_eq(x, 58);
    agree(d.root, keys, 64);
    doc_free(&d);
}

/* Every object of every line: its own keys (in order, then reversed), plus absent ones. */
static size_t objects_checked;
static void walk(cj_val v, int depth)
{
    cj_iter it;
    cj_val m;
    const char *k;
    size_t kl;
    if (depth > 64) return;
    if (clarity_cj_type(v) == CJ_ARRAY) {
        clarity_cj_array_begin(v, &it);
        while (clarity_cj_array_next(&it, &m)) walk(m, depth + 1);
        return;
    }
    if (clarity_cj_type(v) != CJ_OBJECT) return;
    objects_checked++;
    cj_key keys[64];
    size_t n = 0;
    clarity_cj_object_begin(v, &it);
    while (clarity_cj_object_next(&it, &k, &kl, &m)) {
        if (n < 60 && kl < 200) keys[n++] = (cj_key){k, kl};
        walk(m, depth + 1);
    }
    /* keys must be distinct: a duplicated member name is listed once */
    size_t own = n;
    for (size_t i = 0; i < own; i++)
        for (size_t j = i + 1; j < own; j++)
            if (keys[j].len == keys[i].len && !memcmp(keys[j].s, keys[i].s, keys[i].len)) keys[j--] = keys[--own];
    n = own;
    static const cj_key extra[] = {CJ_KEY("Stage ID"), CJ_KEY("no such key"), CJ_KEY("")};
    for (size_t e = 0; e < 3; e++) {
        bool dup = false;
        for (size_t i = 0; i < n && !dup; i++) dup = keys[i].len == extra[e].len && !memcmp(keys[i].s, extra[e].s, extra[e].len);
        if (!dup) keys[n++] = extra[e];
    }
    agree(v, keys, n);
    for (size_t i = 0; i < n / 2; i++) {
        cj_key t = keys[i];
        keys[i] = keys[n - 1 - i];
        keys[n - 1 - i] = t;
    }
    agree(v, keys, n);
}

Test(json_pick, agrees_with_lookups_on_every_fixture_object)
{
    const char *root = getenv("CLARITY_ROOT");
    const char *files[] = {"tests/data/mini-3x.json", "tests/data/spark-1.2-local-1422981780767.json",
                           "tests/data/spark-3.1-app-20200706201101-0003.json", "tests/unit/shs/data/app-shs-0001_2.json"};
    for (size_t fi = 0; fi < sizeof files / sizeof *files; fi++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", root ? root : ".", files[fi]);
        FILE *f = fopen(path, "r");
        cr_assert_not_null(f, "%s", path);
        char *line = NULL;
        size_t cap = 0;
        ssize_t len;
        while ((len = getline(&line, &cap, f)) > 0) {
            while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
            if (!len) continue;
            struct doc d;
            doc_parse(&d, line, (size_t)len);
            walk(d.root, 0);
            doc_free(&d);
        }
        free(line);
        fclose(f);
    }
    cr_assert_gt(objects_checked, 1000, "only %zu objects", objects_checked);
}
