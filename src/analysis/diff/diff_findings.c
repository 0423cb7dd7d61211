/* Findings that appeared, went away or stayed: `clarity findings` on both runs, each finding
 * keyed by its kind and where it is. A stage, SQL query or job is the diff's own matched item
 * (found by id through a hash map per side, so ids never have to agree); a host by name; an
 * executor by id (executor ids are reused from run to run on most cluster managers); else
 * the application. Both key lists are sorted and merged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/findings.h"
#include "analysis/diff/diff_internal.h"

struct fkey {
    char key[200];
    const struct diff_finding *f;
    size_t item;
};

static int by_key(const void *p, const void *q)
{
    const struct fkey *x = p, *y = q;
    int c = strcmp(x->key, y->key);
    if (c) return c;
    return (x->f->saving_ms < y->f->saving_ms) - (x->f->saving_ms > y->f->saving_ms);
}

/* stage/sql/job id -> item index, for one side */
struct idx3 {
    struct clarity_idmap m[3];
};

static int index_items(const struct clarity_diff_result *r, bool side_b, struct idx3 *ix)
{
    memset(ix, 0, sizeof *ix);
    for (size_t i = 0; i < r->nitems; i++) {
        const struct clarity_diff_item *it = &r->items[i];
        int64_t id = side_b ? it->b_id : it->a_id;
        if ((side_b ? it->in_b : it->in_a) && clarity_idmap_put(&ix->m[it->kind], id, (uint32_t)i)) return CLARITY_ENOMEM;
    }
    return 0;
}

static void keys(const struct clarity_diff_app *s, const struct idx3 *ix, struct fkey *k)
{
    for (size_t i = 0; i < s->nfindings; i++) {
        const struct diff_finding *f = &s->findings[i];
        const char *kind = clarity_finding_kind_name(f->kind);
        uint32_t it;
        k[i] = (struct fkey){.f = f, .item = SIZE_MAX};
        if ((f->where & CLARITY_FW_STAGE) && clarity_idmap_get(&ix->m[CLARITY_DK_STAGE], f->stage, &it)) k[i].item = it;
        else if ((f->where & CLARITY_FW_SQL) && clarity_idmap_get(&ix->m[CLARITY_DK_SQL], f->sql, &it)) k[i].item = it;
        else if ((f->where & CLARITY_FW_JOB) && clarity_idmap_get(&ix->m[CLARITY_DK_JOB], f->job, &it)) k[i].item = it;
        if (k[i].item != SIZE_MAX) snprintf(k[i].key, sizeof k[i].key, "%s|item|%zu", kind, k[i].item);
        else if (f->where & CLARITY_FW_HOST) snprintf(k[i].key, sizeof k[i].key, "%s|host|%s", kind, f->host);
        else if (f->where & CLARITY_FW_EXECUTOR) snprintf(k[i].key, sizeof k[i].key, "%s|exec|%s", kind, f->executor);
        else snprintf(k[i].key, sizeof k[i].key, "%s|app", kind);
    }
}

static int by_change(const void *p, const void *q)
{
    const struct clarity_diff_finding *x = p, *y = q;
    if (x->change != y->change) return x->change < y->change ? -1 : 1;
    int64_t sx = x->b_saving_ms > x->a_saving_ms ? x->b_saving_ms : x->a_saving_ms;
    int64_t sy = y->b_saving_ms > y->a_saving_ms ? y->b_saving_ms : y->a_saving_ms;
    if (sx != sy) return sx > sy ? -1 : 1;
    return strcmp(x->title, y->title);
}

int clarity__diff_findings_run(const struct clarity_app *a, int threads, struct clarity_diff_app *s,
                               struct clarity_error *err)
{
    struct clarity_findings fa = {0};
    struct clarity_findings_options fo = {.threads = threads};
    int rc = clarity_findings_analyze(a, &fo, &fa, err);
    if (!rc) {
        s->findings = clarity_arena_alloc(&s->arena, (fa.n + 1) * sizeof *s->findings);
        if (!s->findings) rc = CLARITY_ENOMEM;
    }
    for (size_t i = 0; !rc && i < fa.n; i++) {
        const struct clarity_finding *f = &fa.f[i];
        struct diff_finding *d = &s->findings[s->nfindings++];
        *d = (struct diff_finding){.kind = (int)f->kind, .where = f->where, .job = f->job, .sql = f->sql, .stage = f->stage,
                                   .saving_ms = f->saving_ms, .title = clarity_arena_strdup(&s->arena, f->title),
                                   .host = clarity_arena_strdup(&s->arena, f->host),
                                   .executor = clarity_arena_strdup(&s->arena, f->executor)};
        if (!d->title || !d->host || !d->executor) rc = CLARITY_ENOMEM;
    }
    if (rc == CLARITY_ENOMEM) clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory comparing findings");
    clarity_findings_free(&fa);
    s->findings_run = !rc;
    return rc;
}

int clarity__diff_findings(const struct clarity_diff_app *sa, const struct clarity_diff_app *sb,
                           struct clarity_diff_result *r, struct clarity_error *err)
{
    struct idx3 ia = {0}, ib = {0};
    struct fkey *ka = NULL, *kb = NULL;
    size_t na = sa->nfindings, nb = sb->nfindings;
    int rc = 0;
    if (index_items(r, false, &ia) || index_items(r, true, &ib))
        rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory comparing findings");
    if (!rc) {
        ka = malloc((na + 1) * sizeof *ka);
        kb = malloc((nb + 1) * sizeof *kb);
        r->findings = clarity_arena_alloc(&r->arena, (na + nb + 1) * sizeof *r->findings);
        if (!ka || !kb || !r->findings) rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory comparing findings");
    }
    if (!rc) {
        keys(sa, &ia, ka);
        keys(sb, &ib, kb);
        qsort(ka, na, sizeof *ka, by_key);
        qsort(kb, nb, sizeof *kb, by_key);
        size_t i = 0, j = 0;
        while (!rc && (i < na || j < nb)) {
            int c = i == na ? 1 : j == nb ? -1 : strcmp(ka[i].key, kb[j].key);
            struct clarity_diff_finding d = {.a_saving_ms = -1, .b_saving_ms = -1};
            const struct fkey *x = c <= 0 ? &ka[i] : NULL, *y = c >= 0 ? &kb[j] : NULL;
            d.change = x && y ? CLARITY_FIND_BOTH : x ? CLARITY_FIND_GONE : CLARITY_FIND_APPEARED;
            const struct diff_finding *f = y ? y->f : x->f;
            d.kind = clarity_finding_kind_name(f->kind);
            d.item = y ? y->item : x->item;
            if (x) d.a_saving_ms = x->f->saving_ms, i++;
            if (y) d.b_saving_ms = y->f->saving_ms, j++;
            /* two findings of one kind at one place on a side (a key seen twice) pair in
             * order of saving, as the sort left them */
            d.title = clarity_arena_strdup(&r->arena, f->title);
            if (!d.title) rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory comparing findings");
            else r->findings[r->nfindings++] = d;
        }
        qsort(r->findings, r->nfindings, sizeof *r->findings, by_change);
    }
    for (int k = 0; k < 3; k++) {
        clarity_idmap_free(&ia.m[k]);
        clarity_idmap_free(&ib.m[k]);
    }
    free(ka);
    free(kb);
    return rc;
}
