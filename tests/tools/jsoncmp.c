/* jsoncmp EXPECTED ACTUAL [--ignore KEY]...: compares two JSON documents field by field
 * (object key order free, arrays in order, numbers equal within 1e-9 relative) and prints
 * the JSON path of every difference. Exit 0 same, 1 different, 2 unreadable. --ignore KEY
 * skips members named KEY (the History Server suite masks lastUpdated the same way). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "event/json.h"

struct cmp { const char **ignore; size_t nignore; size_t ndiff; };

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + CJ_PADDING);
    size_t r;
    while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            char *nb = realloc(b, cap * 2 + CJ_PADDING);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (b) memset(b + n, 0, CJ_PADDING);
    *len = n;
    return b;
}

static bool is_num(enum clarity_cj_type t) { return t == CJ_INT || t == CJ_UINT || t == CJ_DOUBLE; }

static void text(cj_val v, char *buf, size_t n)
{
    size_t len;
    char *s = clarity_cj_to_json(v, &len);
    snprintf(buf, n, "%s%s", s ? (len > 120 ? "" : s) : "?", s && len > 120 ? "(long value)" : "");
    free(s);
}

static void diff(struct cmp *c, const char *path, const char *fmt, cj_val e, cj_val a)
{
    char eb[160], ab[160];
    text(e, eb, sizeof eb);
    text(a, ab, sizeof ab);
    printf("%s: %s expected %s, got %s\n", path, fmt, eb, ab);
    c->ndiff++;
}

static bool ignored(const struct cmp *c, const char *k, size_t kl)
{
    for (size_t i = 0; i < c->nignore; i++)
        if (strlen(c->ignore[i]) == kl && !memcmp(c->ignore[i], k, kl)) return true;
    return false;
}

static void compare(struct cmp *c, const char *path, cj_val e, cj_val a)
{
    enum clarity_cj_type te = clarity_cj_type(e), ta = clarity_cj_type(a);
    if (is_num(te) && is_num(ta)) {
        double x, y;
        clarity_cj_double(e, &x);
        clarity_cj_double(a, &y);
        int64_t ix, iy;
        if (te != CJ_DOUBLE && ta != CJ_DOUBLE && clarity_cj_int(e, &ix) && clarity_cj_int(a, &iy)) {
            if (ix != iy) diff(c, path, "", e, a);
        } else if (!(x == y || fabs(x - y) <= 1e-9 * fmax(fabs(x), fabs(y)))) {
            diff(c, path, "", e, a);
        }
        return;
    }
    if (te != ta) {
        diff(c, path, "type differs:", e, a);
        return;
    }
    char sub[2048];
    cj_iter it;
    const char *k;
    size_t kl;
    cj_val ev, av;
    switch (te) {
    case CJ_OBJECT:
        clarity_cj_object_begin(e, &it);
        while (clarity_cj_object_next(&it, &k, &kl, &ev)) {
            if (ignored(c, k, kl)) continue;
            char key[512];
            snprintf(key, sizeof key, "%.*s", (int)kl, k);
            snprintf(sub, sizeof sub, "%s.%s", path, key);
            if (!clarity_cj_get(a, key, &av)) {
                printf("%s: missing (expected %s)\n", sub, "present");
                c->ndiff++;
            } else {
                compare(c, sub, ev, av);
            }
        }
        clarity_cj_object_begin(a, &it);
        while (clarity_cj_object_next(&it, &k, &kl, &av)) {
            if (ignored(c, k, kl)) continue;
            char key[512];
            snprintf(key, sizeof key, "%.*s", (int)kl, k);
            if (!clarity_cj_get(e, key, &ev)) {
                printf("%s.%s: extra key\n", path, key);
                c->ndiff++;
            }
        }
        break;
    case CJ_ARRAY: {
        cj_iter ia;
        size_t i = 0;
        bool he, ha;
        clarity_cj_array_begin(e, &it);
        clarity_cj_array_begin(a, &ia);
        for (;; i++) {
            he = clarity_cj_array_next(&it, &ev);
            ha = clarity_cj_array_next(&ia, &av);
            if (!he && !ha) break;
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            if (!ha) {
                printf("%s: missing array element\n", sub);
                c->ndiff++;
            } else if (!he) {
                printf("%s: extra array element\n", sub);
                c->ndiff++;
            } else {
                compare(c, sub, ev, av);
            }
        }
        break;
    }
    case CJ_STRING: {
        const char *x, *y;
        size_t xl, yl;
        clarity_cj_str(e, &x, &xl);
        clarity_cj_str(a, &y, &yl);
        if (xl != yl || memcmp(x, y, xl)) diff(c, path, "", e, a);
        break;
    }
    case CJ_BOOL: {
        bool x, y;
        clarity_cj_bool(e, &x);
        clarity_cj_bool(a, &y);
        if (x != y) diff(c, path, "", e, a);
        break;
    }
    default:
        break;
    }
}

int main(int argc, char **argv)
{
    struct cmp c = {0};
    const char *files[2];
    size_t nf = 0;
    const char **ign = calloc((size_t)argc, sizeof *ign);
    if (!ign) return 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ignore") && i + 1 < argc) ign[c.nignore++] = argv[++i];
        else if (nf < 2) files[nf++] = argv[i];
    }
    c.ignore = ign;
    if (nf != 2) {
        fprintf(stderr, "usage: jsoncmp EXPECTED ACTUAL [--ignore KEY]...\n");
        free(ign);
        return 2;
    }
    size_t len[2];
    char *buf[2] = {slurp(files[0], &len[0]), slurp(files[1], &len[1])};
    cj_parser *p[2] = {clarity_cj_parser_new(len[0] + 1), clarity_cj_parser_new(len[1] + 1)};
    cj_val root[2];
    int rc = 2;
    for (int i = 0; i < 2; i++) {
        const char *why = "unreadable";
        if (!buf[i] || !p[i] || clarity_cj_parse(p[i], buf[i], len[i], &root[i], &why) != 0) {
            fprintf(stderr, "jsoncmp: %s: %s\n", files[i], why);
            goto out;
        }
    }
    compare(&c, "$", root[0], root[1]);
    rc = c.ndiff ? 1 : 0;
out:
    for (int i = 0; i < 2; i++) {
        if (p[i]) clarity_cj_parser_free(p[i]);
        free(buf[i]);
    }
    free(ign);
    return rc;
}
