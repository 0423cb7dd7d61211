/* `clarity findings --deep` across applications: the applications seen, grouped by overlap and
 * read again in bounded windows (findings_cross.h; docs/findings.md "Across applications"). */
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/common/load.h"
#include "cli/findings_cross.h"

static void app_id_label(const struct clarity_app *a, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s%s", clarity_app_str(a, a->app_id), a->attempt_id ? "/" : "", clarity_app_str(a, a->attempt_id));
}

void findings_remember(struct findings_ctx *fc, const struct clarity_app *a, const struct clarity_findings *r)
{
    if (!fc->cross || fc->oom) return;
    if (fc->nseen == fc->cap_seen) {
        size_t c = fc->cap_seen ? 2 * fc->cap_seen : 16;
        void *p = realloc(fc->seen, c * sizeof *fc->seen);
        if (!p) { fc->oom = 1; return; }
        fc->seen = p, fc->cap_seen = c;
    }
    char id[300];
    app_id_label(a, id, sizeof id);
    struct seen_app *x = &fc->seen[fc->nseen];
    x->path = strdup(a->source_path ? a->source_path : "");
    x->id = strdup(id);
    if (!x->path || !x->id) {
        free(x->path);
        free(x->id);
        fc->oom = 1;
        return;
    }
    /* an application without a start time ran at no known time: it overlaps nothing */
    x->start = a->start_ms > 0 ? a->start_ms : 0;
    x->end = a->start_ms > 0 ? a->start_ms + r->duration_ms : 0;
    fc->nseen++;
}

/* One block of a group's applications read again (block j of clarity_findings_cross_windows):
   apps[k] are its members' models, matched by id and path. */
struct block { struct clarity_app_set set; const struct clarity_app **apps; size_t *mem, na; bool loaded; };

/* paths by name, then by position: the first of equal paths comes first */
static int cmp_path(const void *x, const void *y, void *ctx)
{
    const char *const *p = ctx;
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    int c = strcmp(p[i], p[j]);
    return c ? c : (i > j) - (i < j);
}

/* a member by application id, then path (the key of the lookup below) */
static int cmp_member(const void *x, const void *y, void *ctx)
{
    const struct seen_app *s = ctx, *a = &s[*(const size_t *)x], *b = &s[*(const size_t *)y];
    int c = strcmp(a->id, b->id);
    return c ? c : strcmp(a->path, b->path);
}

static void block_free(struct block *b)
{
    if (b->loaded) clarity_app_set_free(&b->set);
    free(b->apps);
    free(b->mem);
    *b = (struct block){0};
}

/* Loads the n members' logs (a path of several attempts once) and keeps the models of the
   members: sorted paths and a binary search by (id, path), so a block of many applications
   costs n log n, not n x n. A block that cannot be read is empty (its applications were
   already reported by the per-application pass). *held gets the models loaded. */
static int block_load(struct findings_ctx *fc, const size_t *members, size_t n, struct block *b, size_t *held)
{
    *b = (struct block){0};
    *held = 0;
    if (!n) return 0;
    const char **paths = malloc(n * sizeof *paths);
    size_t *by_id = malloc(n * sizeof *by_id), *ord = malloc(n * sizeof *ord);
    b->apps = malloc(n * sizeof *b->apps);
    b->mem = malloc(n * sizeof *b->mem);
    if (!paths || !by_id || !ord || !b->apps || !b->mem) {
        free(paths);
        free(by_id);
        free(ord);
        return -1;
    }
    for (size_t i = 0; i < n; i++) paths[i] = fc->seen[members[i]].path, by_id[i] = members[i], ord[i] = i;
    /* the paths in the members' order (the order the models are given to iQCAR), each once:
       a later copy of an equal path, found by sorting, is dropped */
    qsort_r(ord, n, sizeof *ord, cmp_path, paths);
    for (size_t k = 1; k < n; k++)
        if (paths[ord[k]] && !strcmp(paths[ord[k - 1]], paths[ord[k]])) by_id[ord[k]] = SIZE_MAX;
    size_t np = 0;
    for (size_t i = 0; i < n; i++)
        if (by_id[i] != SIZE_MAX) paths[np++] = paths[i];
    for (size_t i = 0; i < n; i++) by_id[i] = members[i];
    free(ord);
    qsort_r(by_id, n, sizeof *by_id, cmp_member, fc->seen);
    if (load_set("findings", paths, np, true, fc->lo, &b->set) == EXIT_OK) {
        b->loaded = true;
        *held = b->set.n;
        for (size_t k = 0; k < b->set.n; k++) {
            const struct clarity_app *a = b->set.apps[k].app;
            if (!a || !a->source_path) continue;
            char id[300];
            app_id_label(a, id, sizeof id);
            size_t lo = 0, hi = n;   /* the first member not below (id, path) */
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                const struct seen_app *m = &fc->seen[by_id[mid]];
                int c = strcmp(m->id, id);
                if (!c) c = strcmp(m->path, a->source_path);
                if (c < 0) lo = mid + 1;
                else hi = mid;
            }
            if (lo < n && !strcmp(fc->seen[by_id[lo]].id, id) && !strcmp(fc->seen[by_id[lo]].path, a->source_path))
                b->mem[b->na] = by_id[lo], b->apps[b->na++] = a;
        }
    }
    free(paths);
    free(by_id);
    return 0;
}

/* A window's finding stands only when the window held every application that overlapped its
   culprit and its listed victims (fc->deg, over the whole directory): iQCAR shares a victim's
   wait among the applications running beside it, so one left outside the window would have
   its share given to those inside (on the crossapp split without the aggressive knob, windows
   of 4-8 of the 10 applications named q98 and q67; the whole group names nothing). 1 closed,
   0 not, -1 out of memory. */
static int closed(const struct findings_ctx *fc, const size_t *mem, size_t na, const struct clarity_cross_finding *x)
{
    int64_t *st = malloc(na * sizeof *st), *en = malloc(na * sizeof *en);
    size_t *deg = malloc(na * sizeof *deg);
    int ok = -1;
    if (st && en && deg) {
        for (size_t k = 0; k < na; k++) st[k] = fc->seen[mem[k]].start, en[k] = fc->seen[mem[k]].end;
        if (!clarity_findings_overlap_counts(st, en, na, deg)) {
            ok = x->culprit < na && deg[x->culprit] == fc->deg[mem[x->culprit]];
            for (size_t v = 0; v < x->nvictims && ok; v++)
                ok = x->victims[v].index < na && deg[x->victims[v].index] == fc->deg[mem[x->victims[v].index]];
        }
    }
    free(st);
    free(en);
    free(deg);
    return ok;
}

/* a group's members in start order (then as seen): its windows are neighbours in time */
static int cmp_start(const void *x, const void *y, void *ctx)
{
    const struct seen_app *s = ctx;
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    if (s[i].start != s[j].start) return s[i].start < s[j].start ? -1 : 1;
    return (i > j) - (i < j);
}

/* The windows of one group (clarity_findings_cross_windows): block j + 1 stays loaded for
   window j + 1, block j is freed first, so at most window applications' models are held.
   A group that is one window keeps its members in the order seen (its output is the one it
   had before windows). The findings go to out[*nx...] (room for one per window). */
static int cross_group(struct findings_ctx *fc, size_t *members, size_t n, struct clarity_cross_finding *out,
                       size_t *nx, struct clarity_error *err)
{
    size_t blk, nw = clarity_findings_cross_windows(n, fc->window, &blk);
    if (nw > 1) qsort_r(members, n, sizeof *members, cmp_start, fc->seen);
    struct block b[2];
    memset(b, 0, sizeof b);
    size_t held[2] = {0, 0};
    int rc = 0;
    fc->windows += nw;
    for (size_t j = 0; j < nw && !rc; j++) {
        struct block *cur = &b[j % 2], *next = &b[(j + 1) % 2];
        if (j == 0 && block_load(fc, members, blk < n ? blk : n, cur, &held[0])) goto oom;
        size_t from = (j + 1) * blk, len = from < n ? (n - from < blk ? n - from : blk) : 0;
        if (nw == 1) len = 0;   /* the whole group is block 0 */
        if (block_load(fc, members + from, len, next, &held[(j + 1) % 2])) goto oom;
        if (held[0] + held[1] > fc->max_held) fc->max_held = held[0] + held[1];
        size_t cap = cur->na + next->na + 1, na = 0;
        const struct clarity_app **apps = malloc(cap * sizeof *apps);
        size_t *mem = malloc(cap * sizeof *mem);
        if (!apps || !mem) {
            free(apps);
            free(mem);
            goto oom;
        }
        for (size_t k = 0; k < cur->na; k++) mem[na] = cur->mem[k], apps[na++] = cur->apps[k];
        for (size_t k = 0; k < next->na; k++) mem[na] = next->mem[k], apps[na++] = next->apps[k];
        bool found = false;
        if (na >= 2) rc = clarity_findings_cross(apps, na, fc->fo.contention, &out[*nx], &found, err);
        if (!rc && found && nw > 1) {
            int c = closed(fc, mem, na, &out[*nx]);
            if (c < 0) rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
            else if (!c) found = false, fc->unconfirmed++;
        }
        free(apps);
        free(mem);
        if (!rc && found) (*nx)++;
        block_free(cur);
        held[j % 2] = 0;
    }
    block_free(&b[0]);
    block_free(&b[1]);
    return rc;
oom:
    block_free(&b[0]);
    block_free(&b[1]);
    return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
}

static int cmp_cross(const void *x, const void *y)
{
    const struct clarity_cross_finding *a = x, *b = y;
    if (a->f.saving_ms != b->f.saving_ms) return a->f.saving_ms > b->f.saving_ms ? -1 : 1;
    return strcmp(a->app_id, b->app_id);
}

/* by culprit, then as cmp_cross ranks: the first of each culprit is its largest saving */
static int cmp_culprit(const void *x, const void *y)
{
    const struct clarity_cross_finding *a = x, *b = y;
    int c = strcmp(a->app_id, b->app_id);
    return c ? c : cmp_cross(x, y);
}

/* Orders the seen applications by id, start and end, then by when they were seen, so equal
   runs are adjacent and the first seen comes first. */
static int cmp_seen(const void *x, const void *y, void *ctx)
{
    const struct seen_app *s = ctx, *a = &s[*(const size_t *)x], *b = &s[*(const size_t *)y];
    int c = strcmp(a->id, b->id);
    if (c) return c;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->end != b->end) return a->end < b->end ? -1 : 1;
    return (a > b) - (a < b);
}

static bool same_run(const struct seen_app *a, const struct seen_app *b)
{
    return !strcmp(a->id, b->id) && a->start == b->start && a->end == b->end;
}

/* --deep over several applications: contention across them ("Across applications"). */
int findings_cross_end(void *ctx, const struct clarity_app_set *set, FILE *text, struct jsonw *json,
                        struct clarity_error *err)
{
    (void)set;
    struct findings_ctx *fc = ctx;
    if (fc->oom) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    if (fc->nseen < 2) return 0;
    size_t n = fc->nseen, ng, nx = 0;
    int64_t *st = malloc(n * sizeof *st), *en = malloc(n * sizeof *en);
    size_t *grp = malloc(n * sizeof *grp), *members = malloc(n * sizeof *members), *first = NULL;
    struct clarity_cross_finding *x = NULL;
    int rc = 0;
    if (!st || !en || !grp || !members) goto oom;
    /* one run's log in two formats (a legacy directory and its file: spark-events has
       several) is one application, not two that shared the cluster: every copy after the
       first (same id, start and end) counts as not having run. Sorted, not compared pairwise,
       so a directory of 10^5 applications stays linear-logarithmic. */
    for (size_t i = 0; i < n; i++) st[i] = fc->seen[i].start, en[i] = fc->seen[i].end, members[i] = i;
    qsort_r(members, n, sizeof *members, cmp_seen, fc->seen);
    for (size_t k = 1; k < n; k++)
        if (same_run(&fc->seen[members[k - 1]], &fc->seen[members[k]]))
            st[members[k]] = en[members[k]] = 0;
    ng = clarity_findings_overlap_groups(st, en, n, grp);
    if (ng == SIZE_MAX) goto oom;
    fc->deg = malloc(n * sizeof *fc->deg);
    if (!fc->deg || clarity_findings_overlap_counts(st, en, n, fc->deg)) goto oom;
    first = calloc(ng + 1, sizeof *first);
    if (!first) goto oom;
    /* the members of every group in one counting sort (in the order seen), not a scan of
       every application per group */
    for (size_t i = 0; i < n; i++)
        if (grp[i] != SIZE_MAX) first[grp[i] + 1]++;
    for (size_t g = 0; g < ng; g++) first[g + 1] += first[g];
    {
        size_t *fill = calloc(ng ? ng : 1, sizeof *fill);
        if (!fill) goto oom;
        for (size_t i = 0; i < n; i++)
            if (grp[i] != SIZE_MAX) members[first[grp[i]] + fill[grp[i]]++] = i;
        free(fill);
    }
    {   /* room for one finding per window */
        size_t room = 0, blk;
        for (size_t g = 0; g < ng; g++)
            room += clarity_findings_cross_windows(first[g + 1] - first[g], fc->window, &blk);
        x = calloc(room ? room : 1, sizeof *x);
        if (!x) goto oom;
    }
    for (size_t g = 0; g < ng && !rc; g++)
        rc = cross_group(fc, members + first[g], first[g + 1] - first[g], x, &nx, err);
    if (!rc) {
        /* an application named in two windows (neighbours share half their applications)
           is one finding: the one with the larger saving, which cmp_cross puts first */
        qsort(x, nx, sizeof *x, cmp_culprit);
        size_t u = 0;
        for (size_t k = 0; k < nx; k++)
            if (!u || strcmp(x[u - 1].app_id, x[k].app_id)) x[u++] = x[k];
        nx = u;
        qsort(x, nx, sizeof *x, cmp_cross);
        struct findings_cross_report c = {.x = x, .n = nx, .napps = n, .groups = ng, .windows = fc->windows,
                                          .window = fc->window, .max_held = fc->max_held,
                                          .unconfirmed = fc->unconfirmed};
        rc = json ? clarity_report_findings_cross_json(json, &c, err)
                  : clarity_report_findings_cross_text(text, &c, fc->ro.width, fc->ro.why, err);
    }
    goto out;
oom:
    rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
out:
    free(st);
    free(en);
    free(grp);
    free(members);
    free(first);
    free(x);
    free(fc->deg);
    fc->deg = NULL;
    return rc;
}
