/* Attempts grouped into applications by sorting ids (a History Server directory may hold
 * thousands of logs): /applications must list what grouping by a scan gives, on random sets
 * of attempts with few or many distinct ids. */
#include "shs_helpers.h"

static uint64_t rnd_state;
static uint32_t rnd(uint32_t n)
{
    rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
    return n ? (uint32_t)((rnd_state >> 33) % n) : 0;
}

#define MAXA 60

struct expect_app { int id; int att[MAXA]; size_t natt; int64_t end_key; };

static int cmp_expect(const void *x, const void *y)
{
    const struct expect_app *a = x, *b = y;
    if (a->end_key != b->end_key) return a->end_key < b->end_key ? 1 : -1;
    char ia[32], ib[32];
    snprintf(ia, sizeof ia, "app-%d", a->id);
    snprintf(ib, sizeof ib, "app-%d", b->id);
    return -strcmp(ia, ib);
}

Test(shs_group, applications_match_grouping_by_scan)
{
    rnd_state = 14;
    for (int round = 0; round < 40; round++) {
        size_t n = 1 + rnd(MAXA), nids = 1 + rnd(round % 2 ? 4 : (uint32_t)n);
        struct clarity_app *apps[MAXA];
        int id_of[MAXA];
        for (size_t i = 0; i < n; i++) {
            struct clarity_app *a = calloc(1, sizeof *a);
            char s[32];
            id_of[i] = (int)rnd((uint32_t)nids);
            snprintf(s, sizeof s, "app-%d", id_of[i]);
            a->app_id = clarity_strtab_intern(&a->strs, s, strlen(s));
            snprintf(s, sizeof s, "%zu", i);
            a->attempt_id = clarity_strtab_intern(&a->strs, s, strlen(s));
            /* distinct, and after SHS's default minDate (2010-01-01), which the listing applies */
            a->start_ms = 1600000000000LL + 1000 + (int64_t)i * 7919 % 1000;
            a->end_ms = rnd(4) ? a->start_ms + rnd(50) : 0;
            apps[i] = a;
        }
        /* the reference: a scan per attempt for the others of its id */
        struct expect_app want[MAXA];
        size_t nw = 0;
        bool done[MAXA] = {0};
        for (size_t i = 0; i < n; i++) {
            if (done[i]) continue;
            struct expect_app *e = &want[nw++];
            e->id = id_of[i];
            e->natt = 0;
            for (size_t k = i; k < n; k++)
                if (!done[k] && id_of[k] == id_of[i]) done[k] = true, e->att[e->natt++] = (int)k;
            for (size_t a = 1; a < e->natt; a++)   /* newest start first */
                for (size_t b = a; b > 0 && apps[e->att[b]]->start_ms > apps[e->att[b - 1]]->start_ms; b--) {
                    int t = e->att[b];
                    e->att[b] = e->att[b - 1];
                    e->att[b - 1] = t;
                }
            e->end_key = apps[e->att[0]]->end_ms ? apps[e->att[0]]->end_ms : -1;
        }
        qsort(want, nw, sizeof *want, cmp_expect);
        struct shs_answer x;
        memset(&x, 0, sizeof x);
        x.rc = clarity_shs_answer(apps, n, "/applications?limit=1000", false, &x.res, &x.err);
        cr_assert_eq(x.rc, CLARITY_OK, "%s", x.err.msg);
        x.copy = calloc(x.res.len + CJ_PADDING + 1, 1);
        memcpy(x.copy, x.res.body, x.res.len);
        x.parser = clarity_cj_parser_new(x.res.len + 4096);
        const char *why;
        cr_assert_eq(clarity_cj_parse(x.parser, x.copy, x.res.len, &x.root, &why), 0);
        cr_assert_eq(shs_len(x.root, ""), nw, "round %d: %zu applications, want %zu", round, shs_len(x.root, ""), nw);
        for (size_t k = 0; k < nw; k++) {
            char path[64], idtext[32];
            snprintf(path, sizeof path, "%zu.id", k);
            snprintf(idtext, sizeof idtext, "app-%d", want[k].id);
            cr_assert_str_eq(shs_str(x.root, path), idtext, "round %d, application %zu", round, k);
            snprintf(path, sizeof path, "%zu.attempts", k);
            cr_assert_eq(shs_len(x.root, path), want[k].natt);
            for (size_t a = 0; a < want[k].natt; a++) {
                char att[32];
                snprintf(path, sizeof path, "%zu.attempts.%zu.attemptId", k, a);
                snprintf(att, sizeof att, "%d", want[k].att[a]);
                cr_assert_str_eq(shs_str(x.root, path), att, "round %d, %s", round, path);
            }
        }
        shs_answer_free(&x);
        for (size_t i = 0; i < n; i++) {
            clarity_strtab_free(&apps[i]->strs);
            free(apps[i]);
        }
    }
}
