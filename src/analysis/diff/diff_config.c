/* The environment diff: Spark properties added, removed and changed between A and B. Some
 * properties differ between any two runs and say nothing about the configuration (the
 * application id, start times, the driver's host and port, UI proxy addresses): they are
 * ignored, by name, and so is a change that disappears once each side's own application id,
 * attempt id and driver host are masked in its value (an event-log or staging path that
 * embeds the application id). Both lists are sorted by key and merged. */
#include <stdlib.h>
#include <string.h>
#include "clarity/diff.h"
#include "analysis/diff/diff_internal.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !memcmp(s + n - m, suffix, m);
}

bool clarity_diff_config_ignored(const char *key)
{
    /* names of values that identify a run rather than configure it */
    static const char *const suffixes[] = {
        ".id", "appId", "attemptId", "clusterId", ".host", ".hostname", ".port", "startTime", "submitTime", "address", "Address", "proxyBase",
        "log.dir", ".initial.jar.urls", ".initial.file.urls", "class.uri", "class.outputDir",
    };
    static const char *const parts[] = {"PROXY_URI_BASES", "PROXY_HOSTS", "amfilter"};
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++)
        if (ends_with(key, suffixes[i])) return true;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (strstr(key, parts[i])) return true;
    return false;
}

static int by_key(const void *p, const void *q)
{
    return strcmp(((const struct diff_prop *)p)->k, ((const struct diff_prop *)q)->k);
}

static const char *prop_get(const struct diff_prop *p, size_t n, const char *k)
{
    for (size_t lo = 0, hi = n; lo < hi;) {
        size_t m = lo + (hi - lo) / 2;
        int c = strcmp(p[m].k, k);
        if (!c) return p[m].v;
        if (c < 0) lo = m + 1;
        else hi = m;
    }
    return NULL;
}

/* v with every occurrence of the run's own identities replaced by one placeholder; the
 * caller frees. */
static char *masked(const char *v, const char *const *ids, size_t nids)
{
    size_t n = strlen(v);
    char *o = malloc(n + 1), *w = o;
    if (!o) return NULL;
    for (const char *p = v; *p;) {
        size_t hit = 0;
        for (size_t i = 0; i < nids && !hit; i++)
            if (ids[i] && strlen(ids[i]) >= 4 && !strncmp(p, ids[i], strlen(ids[i]))) hit = strlen(ids[i]);
        if (hit) {
            *w++ = '\x01';
            p += hit;
        } else *w++ = *p++;
    }
    *w = 0;
    return o;
}

static bool same_but_identity(const char *va, const char *vb, const char *const *ida, const char *const *idb, size_t n)
{
    char *ma = masked(va, ida, n), *mb = masked(vb, idb, n);
    bool same = ma && mb && !strcmp(ma, mb);
    free(ma);
    free(mb);
    return same;
}

int clarity__diff_props(const struct clarity_app *a, struct diff_strs *t, struct clarity_diff_app *s)
{
    size_t n = a->spark_props.n;
    struct diff_prop *p = clarity_arena_alloc(&s->arena, (n ? n : 1) * sizeof *p);
    if (!p) return CLARITY_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        p[i] = (struct diff_prop){clarity__diff_str(t, a->spark_props.p[i].k), clarity__diff_str(t, a->spark_props.p[i].v)};
        if (!p[i].k || !p[i].v) return CLARITY_ENOMEM;
    }
    qsort(p, n, sizeof *p, by_key);
    s->props = p;
    s->nprops = n;
    s->self[0] = clarity__diff_str(t, a->app_id);
    s->self[1] = clarity__diff_str(t, a->attempt_id);
    s->self[2] = prop_get(p, n, "spark.driver.host");
    return s->self[0] && s->self[1] ? 0 : CLARITY_ENOMEM;
}

int clarity__diff_config(const struct clarity_diff_app *a, const struct clarity_diff_app *b, struct clarity_diff_result *r)
{
    size_t na = a->nprops, nb = b->nprops;
    const struct diff_prop *pa = a->props, *pb = b->props;
    const char *const *ida = a->self, *const *idb = b->self;
    r->config = clarity_arena_alloc(&r->arena, (na + nb + 1) * sizeof *r->config);
    if (!r->config) return CLARITY_ENOMEM;
    size_t i = 0, j = 0;
    while (i < na || j < nb) {
        int c = i == na ? 1 : j == nb ? -1 : strcmp(pa[i].k, pb[j].k);
        struct clarity_diff_config d = {0};
        if (c < 0) d = (struct clarity_diff_config){pa[i].k, pa[i].v, NULL, CLARITY_CFG_REMOVED}, i++;
        else if (c > 0) d = (struct clarity_diff_config){pb[j].k, NULL, pb[j].v, CLARITY_CFG_ADDED}, j++;
        else {
            bool same = !strcmp(pa[i].v, pb[j].v);
            d = (struct clarity_diff_config){pa[i].k, pa[i].v, pb[j].v, CLARITY_CFG_CHANGED};
            i++, j++;
            if (same) continue;
            if (same_but_identity(d.a, d.b, ida, idb, 3)) {
                r->nconfig_ignored++;
                continue;
            }
        }
        if (clarity_diff_config_ignored(d.key)) {
            r->nconfig_ignored++;
            continue;
        }
        /* the sides' strings live as long as the sides; the result is documented to stand
         * alone: copy */
        d.key = clarity_arena_strdup(&r->arena, d.key);
        d.a = clarity_arena_strdup(&r->arena, d.a);
        d.b = clarity_arena_strdup(&r->arena, d.b);
        if (!d.key || (d.a == NULL && d.change != CLARITY_CFG_ADDED) || (d.b == NULL && d.change != CLARITY_CFG_REMOVED))
            return CLARITY_ENOMEM;
        r->config[r->nconfig++] = d;
    }
    return 0;
}
