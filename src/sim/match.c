/* Matching items of two runs by what they are (name, plan shape, position among same-named
 * items), never by id: sort both sides by key, then merge. A plan shape is a hash of the
 * operator names of a physical plan, so a query whose literals, expression ids, paths or sizes
 * differ still matches, and one whose plan changed (a broadcast join instead of a sort-merge
 * join) matches by description alone and is flagged. */
#include <stdlib.h>
#include <string.h>
#include "clarity/sim.h"

struct mrow {
    const struct clarity_match_key *k;
    size_t idx;
    uint32_t pos;                /* position among the rows of its group (same name [and shape]) */
};

static int cmp_name(const struct mrow *x, const struct mrow *y)
{
    return strcmp(x->k->name ? x->k->name : "", y->k->name ? y->k->name : "");
}
static int cmp_id(const struct mrow *x, const struct mrow *y)
{
    if (x->k->id != y->k->id) return x->k->id < y->k->id ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}
static int by_name_id(const void *p, const void *q)
{
    int c = cmp_name(p, q);
    return c ? c : cmp_id(p, q);
}
static int by_name_shape_id(const void *p, const void *q)
{
    const struct mrow *x = p, *y = q;
    int c = cmp_name(x, y);
    if (c) return c;
    if (x->k->shape != y->k->shape) return x->k->shape < y->k->shape ? -1 : 1;
    return cmp_id(x, y);
}

/* Sorts r[0..n) and numbers each row within its group. */
static void number(struct mrow *r, size_t n, bool shape)
{
    qsort(r, n, sizeof *r, shape ? by_name_shape_id : by_name_id);
    for (size_t i = 0; i < n; i++) {
        bool same = i > 0 && !cmp_name(&r[i - 1], &r[i]) && (!shape || r[i - 1].k->shape == r[i].k->shape);
        r[i].pos = same ? r[i - 1].pos + 1 : 0;
    }
}

static int group_cmp(const struct mrow *x, const struct mrow *y, bool shape)
{
    int c = cmp_name(x, y);
    if (c) return c;
    if (shape && x->k->shape != y->k->shape) return x->k->shape < y->k->shape ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* One pass over the rows of a and b not matched yet. */
static int pass(const struct clarity_match_key *a, size_t na, const struct clarity_match_key *b, size_t nb, bool shape,
                long *a_to_b, long *b_to_a, struct mrow *ra, struct mrow *rb)
{
    size_t ma = 0, mb = 0;
    for (size_t i = 0; i < na; i++)
        if (a_to_b[i] < 0) ra[ma++] = (struct mrow){.k = &a[i], .idx = i};
    for (size_t i = 0; i < nb; i++)
        if (b_to_a[i] < 0) rb[mb++] = (struct mrow){.k = &b[i], .idx = i};
    number(ra, ma, shape);
    number(rb, mb, shape);
    for (size_t i = 0, j = 0; i < ma && j < mb;) {
        int c = group_cmp(&ra[i], &rb[j], shape);
        if (c < 0) i++;
        else if (c > 0) j++;
        else {
            a_to_b[ra[i].idx] = (long)rb[j].idx;
            b_to_a[rb[j].idx] = (long)ra[i].idx;
            i++, j++;
        }
    }
    return 0;
}

int clarity_match_items(const struct clarity_match_key *a, size_t na, const struct clarity_match_key *b, size_t nb,
                       bool use_shape, long *a_to_b, long *b_to_a, uint32_t *ord_a, uint32_t *ord_b)
{
    struct mrow *ra = malloc((na ? na : 1) * sizeof *ra), *rb = malloc((nb ? nb : 1) * sizeof *rb);
    if (!ra || !rb) {
        free(ra);
        free(rb);
        return CLARITY_ENOMEM;
    }
    for (size_t i = 0; i < na; i++) a_to_b[i] = -1;
    for (size_t i = 0; i < nb; i++) b_to_a[i] = -1;
    /* the position of each item among all the same-named items of its side */
    for (size_t i = 0; i < na; i++) ra[i] = (struct mrow){.k = &a[i], .idx = i};
    number(ra, na, false);
    for (size_t i = 0; i < na; i++) ord_a[ra[i].idx] = ra[i].pos;
    for (size_t i = 0; i < nb; i++) rb[i] = (struct mrow){.k = &b[i], .idx = i};
    number(rb, nb, false);
    for (size_t i = 0; i < nb; i++) ord_b[rb[i].idx] = rb[i].pos;
    if (use_shape) pass(a, na, b, nb, true, a_to_b, b_to_a, ra, rb);
    pass(a, na, b, nb, false, a_to_b, b_to_a, ra, rb);
    free(ra);
    free(rb);
    return 0;
}

/* FNV-1a over the operator names. A node line of Spark's plan tree starts with spaces, the
 * tree's ":- ", "+- " and "|" marks, whole-stage-codegen's "*(3) " and then the operator
 * ("Exchange hashpartitioning(...)"): its first word is the operator. The tree ends at the
 * first blank line (after it come the per-node details of the formatted explain mode). */
uint64_t clarity_diff_plan_shape(const char *plan)
{
    if (!plan || !*plan) return 0;
    const char *p = strstr(plan, "== Physical Plan ==");
    p = p ? p + strlen("== Physical Plan ==") : plan;
    while (*p == '\n' || *p == '\r') p++;
    uint64_t h = 1469598103934665603ull;
    bool any = false;
    while (*p && *p != '\n') {
        const char *e = strchr(p, '\n');
        if (!e) e = p + strlen(p);
        const char *q = p;
        while (q < e && strchr(" \t:+-|*", *q)) {
            q++;
            if (q < e && q[-1] == '*' && *q == '(') {   /* "*(3)" */
                while (q < e && *q != ')') q++;
                if (q < e) q++;
            }
        }
        /* "(12) Exchange": the formatted mode numbers nodes */
        if (q < e && *q == '(') {
            while (q < e && *q != ')') q++;
            if (q < e) q++;
            while (q < e && *q == ' ') q++;
        }
        const char *w = q;
        while (q < e && ((*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_'))
            q++;
        if (q > w) {
            for (const char *c = w; c < q; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
            h = (h ^ '/') * 1099511628211ull;
            any = true;
        }
        p = *e ? e + 1 : e;
        if (*p == '\n' || (*p == '\r' && p[1] == '\n')) break;
    }
    return any ? (h ? h : 1) : 0;
}
