/* Ernest's training points from a model file and from event logs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/predict/ernest_points.h"
#include "clarity/predict.h"
#include "event/json.h"

#define SCHEMA "clarity.ernest/1"

bool clarity_ernest_is_model_file(const char *path)
{
    size_t a = strlen(path), b = strlen(".json");
    if (a < b || strcmp(path + a - b, ".json")) return false;
    FILE *f = fopen(path, "r");
    char head[256] = {0};
    if (f) {
        size_t k = fread(head, 1, sizeof head - 1, f);
        head[k] = 0;
        fclose(f);
    }
    return strstr(head, SCHEMA) != NULL;
}

/* "terms": ["1", "s/m", ...] in the model's order; names this build does not know are left out. */
static void read_terms(cj_val root, struct ernest_terms *terms)
{
    cj_val x, t;
    cj_iter it;
    const char *s;
    size_t sl;
    clarity_ernest_terms_default(terms);
    terms->n = 0;
    if (clarity_cj_get(root, "terms", &x) && clarity_cj_array_begin(x, &it))
        while (clarity_cj_array_next(&it, &t))
            if (clarity_cj_str(t, &s, &sl) && sl < 32) {
                char name[32];
                memcpy(name, s, sl);
                name[sl] = 0;
                int k = clarity_ernest_term_parse(name);
                if (k >= 0 && terms->n < ERNEST_MAX_TERMS) terms->t[terms->n++] = (enum ernest_term)k;
            }
    if (clarity_cj_get(root, "rows", &x)) clarity_cj_double(x, &terms->rows);
}

/* "training_points": [{"machines": m, "scale": s, "seconds": t, ...}]; incomplete points are skipped. */
static void read_points(cj_val arr, struct ernest_point **pts, size_t *np)
{
    size_t cap = 0;
    cj_iter it;
    cj_val pt, v;
    if (!clarity_cj_array_begin(arr, &it)) return;
    while (clarity_cj_array_next(&it, &pt)) {
        struct ernest_point e = {0};
        if (!clarity_cj_get(pt, "machines", &v) || !clarity_cj_double(v, &e.machines)) continue;
        if (!clarity_cj_get(pt, "scale", &v) || !clarity_cj_double(v, &e.scale)) continue;
        if (!clarity_cj_get(pt, "seconds", &v) || !clarity_cj_double(v, &e.seconds)) continue;
        if (*np == cap) {
            cap = cap ? 2 * cap : 16;
            void *q = realloc(*pts, cap * sizeof **pts);
            if (!q) break;
            *pts = q;
        }
        (*pts)[(*np)++] = e;
    }
}

int clarity_ernest_model_read(const char *path, struct ernest_point **pts, size_t *np, struct ernest_terms *terms,
                              char *unit, size_t unitcap, struct clarity_error *err)
{
    *pts = NULL;
    *np = 0;
    if (unitcap) unit[0] = 0;
    clarity_ernest_terms_default(terms);
    FILE *f = fopen(path, "rb");
    if (!f) return clarity_error_set(err, CLARITY_EIO, path, 0, 0, "cannot open");
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = len > 0 && len < (64 << 20) ? calloc((size_t)len + CJ_PADDING + 1, 1) : NULL;
    bool read = buf && fread(buf, 1, (size_t)len, f) == (size_t)len;
    fclose(f);
    if (!read) {
        free(buf);
        return clarity_error_set(err, CLARITY_EIO, path, 0, 0, "cannot read");
    }
    cj_parser *p = clarity_cj_parser_new((size_t)len + 1);
    cj_val root, arr;
    const char *why = NULL, *s;
    size_t sl;
    if (p && clarity_cj_parse(p, buf, (size_t)len, &root, &why) == 0 && clarity_cj_get_str(root, "schema", &s, &sl) &&
        sl == strlen(SCHEMA) && !strncmp(s, SCHEMA, sl) && clarity_cj_get(root, "training_points", &arr)) {
        read_terms(root, terms);
        if (clarity_cj_get_str(root, "scale_unit", &s, &sl) && sl + 1 < unitcap) {
            memcpy(unit, s, sl);
            unit[sl] = 0;
        }
        read_points(arr, pts, np);
    }
    int rc = CLARITY_OK;
    if (!*np || !terms->n)
        rc = clarity_error_set(err, CLARITY_EFORMAT, path, 0, 0, "not a " SCHEMA " model with training points%s%s",
                               why ? ": " : "", why ? why : "");
    clarity_cj_parser_free(p);
    free(buf);
    return rc;
}

/* Executor hosts, each once; the driver's apart. One pass through a hash of host ids. */
static int distinct_hosts(const struct clarity_app *a)
{
    struct clarity_idmap seen = {0};
    int hosts = 0;
    for (size_t e = 0; e < a->nexecs; e++) {
        uint32_t one;
        if (a->execs[e].is_driver || clarity_idmap_get(&seen, a->execs[e].host, &one)) continue;
        if (clarity_idmap_put(&seen, a->execs[e].host, 1)) break;   /* out of memory: the hosts counted so far */
        hosts++;
    }
    clarity_idmap_free(&seen);
    return hosts;
}

int clarity_ernest_point_from_app(const struct clarity_app *a, double full_size, int machines,
                                  struct ernest_point *out, int *missing, struct clarity_error *err)
{
    *missing = 0;
    struct peridot_ref ref;
    int rc = clarity_peridot_ref_from_app(a, &ref, err);
    if (rc != CLARITY_OK) return rc;
    int hosts = machines > 0 ? machines : distinct_hosts(a);
    if (!ref.input_bytes) *missing |= CLARITY_ERNEST_NO_INPUT;
    if (!hosts) *missing |= CLARITY_ERNEST_NO_HOSTS;
    if (*missing)
        rc = clarity_error_set(err, CLARITY_ENOTFOUND, a->source_path, 0, 0, "%s",
                               !ref.input_bytes ? "no input bytes in the log (no task metrics)" : "no executors in the log");
    else
        *out = (struct ernest_point){.machines = hosts, .scale = (double)ref.input_bytes / full_size,
                                     .seconds = (double)ref.total_ms / 1000};
    clarity_peridot_ref_free(&ref);
    return rc;
}
