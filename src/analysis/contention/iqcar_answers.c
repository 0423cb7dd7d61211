/* The questions iQCAR answers (paper sections 6-7) from the finished graph: top-k per level and
 * noisy queries per target, aggressive queries, victims, slow hosts, hot resources, impact
 * paths, scheduler rules, and the simple-overlap baseline beside them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/contention.h"


/* DOR descending, then name ascending: ties in a top-k list break the same way every run. */
static int cmp_ranked(const void *x, const void *y, void *ctx)
{
    const struct iqcar_ranked *a = x, *b = y;
    if (a->dor != b->dor) return a->dor > b->dor ? -1 : 1;
    const struct iqcar_result *r = ctx;
    char la[256], lb[256];
    if (r) {
        int c = strcmp(clarity_iqcar_node_label(r, a->node, la, sizeof la), clarity_iqcar_node_label(r, b->node, lb, sizeof lb));
        if (c) return c;
    }
    return (a->node > b->node) - (a->node < b->node);
}

/* Keeps the k best of v[0..n) in v[0..k); returns how many. */
static size_t top_k(struct iqcar_ranked *v, size_t n, size_t k, const struct iqcar_result *r)
{
    qsort_r(v, n, sizeof *v, cmp_ranked, (void *)r);
    return n < k ? n : k;
}

static struct iqcar_ranked *take(struct iqcar_ranked *v, size_t n)
{
    struct iqcar_ranked *p = malloc((n ? n : 1) * sizeof *p);
    if (p && n) memcpy(p, v, n * sizeof *p);
    return p;
}

static int cmp_unit_rank(const void *x, const void *y)
{
    const struct iqcar_ranked *a = x, *b = y;
    if (a->dor != b->dor) return a->dor > b->dor ? -1 : 1;
    return (a->node > b->node) - (a->node < b->node);
}

static int max_concurrency(const struct iqcar_result *r)
{
    int best = 0;
    for (size_t i = 0; i < r->nunits; i++) {   /* units are few: O(n^2) keeps it obvious */
        int c = 0;
        for (size_t j = 0; j < r->nunits; j++)
            if (r->units[j].start <= r->units[i].start && r->units[j].end > r->units[i].start) c++;
        if (c > best) best = c;
    }
    return best;
}

static int add_rule(struct iqcar_result *r, const char *type, size_t unit, const char *qtype, double v, int order)
{
    struct iqcar_rule *p = realloc(r->rules, (r->nrules + 1) * sizeof *p);
    if (!p) return -1;
    r->rules = p;
    r->rules[r->nrules] = (struct iqcar_rule){(int)r->nrules + 1, type, unit, qtype, v, order};
    r->nrules++;
    return 0;
}

static int rules(struct iqcar_result *r)
{
    size_t k = (size_t)r->opt.k;
    r->max_concurrency = max_concurrency(r);
    for (size_t i = 0; i < r->naggressive && i < k; i++)
        if (add_rule(r, "AGG", r->aggressive[i].node, "Source", r->max_concurrency ? 1.0 / r->max_concurrency : 1,
                     (int)i + 1))
            return -1;
    size_t nv = r->nvictims < k ? r->nvictims : k;
    for (size_t i = 0; i < nv; i++) {
        double rank = r->opt.dynp_reverse ? (double)(nv - i) : (double)(i + 1);
        if (add_rule(r, "DYNP", r->victims[i].node, "Target", r->opt.p_orig + rank, (int)i + 1)) return -1;
    }
    for (size_t i = 0; i < r->naggressive && i < k; i++) {
        double v = r->opt.p_orig - (double)(i + 1);
        if (add_rule(r, "DYNP", r->aggressive[i].node, "Source", v > 0 ? v : 0, (int)i + 1)) return -1;
    }
    return 0;
}

static int target_answer(struct iqcar_result *r, size_t t, const double *dor, struct iqcar_ranked *buf)
{
    const struct iqcar_graph *g = &r->g;
    struct iqcar_target_answer *a = &r->targets[t];
    size_t k = (size_t)r->opt.k;
    a->unit = t;
    a->l0 = g->l0[t];
    for (int l = 2; l <= 6; l++) {
        size_t n = 0;
        for (size_t v = 0; v < g->nnodes; v++)
            if (g->nodes[v].level == l && dor[v] > 0) buf[n++] = (struct iqcar_ranked){(uint32_t)v, dor[v], 0};
        a->ntop[l] = top_k(buf, n, k, r);
        if (!(a->top[l] = take(buf, a->ntop[l]))) return -1;
        if (l == 6) {   /* noisy: the queries, not Unknown or Self */
            size_t m = 0;
            for (size_t i = 0; i < n; i++)
                if (g->nodes[buf[i].node].kind == IQ_K_NODE) buf[m++] = buf[i];
            a->dor_others = 0;
            for (size_t i = 0; i < m; i++) a->dor_others += buf[i].dor;
            a->nnoisy = m < k ? m : k;
            if (!(a->noisy = take(buf, a->nnoisy))) return -1;
        }
        if (l == 4) {   /* one impact path per BE node; its weight is the BE's DOR */
            size_t m = 0;
            for (size_t i = 0; i < n; i++)
                if (g->nodes[buf[i].node].kind == IQ_K_NODE) buf[m++] = buf[i];
            a->npaths = m < k ? m : k;
            if (!(a->paths = take(buf, a->npaths))) return -1;
        }
    }
    /* the simple-overlap baseline of the paper's section 7.4 (each source query's summed overlap
     * fraction with the target's tasks), normalised over source queries */
    double sum = 0;
    size_t n = 0;
    for (size_t s = 0; s < r->nunits; s++) sum += r->overlap_matrix[t * r->nunits + s];
    for (size_t s = 0; s < r->nunits; s++) {
        double v = r->overlap_matrix[t * r->nunits + s];
        if (v > 0) buf[n++] = (struct iqcar_ranked){(uint32_t)s, v / sum, v};
    }
    qsort(buf, n, sizeof *buf, cmp_unit_rank);
    a->noverlap = n < k ? n : k;
    if (!(a->overlap = take(buf, a->noverlap))) return -1;
    return 0;
}

int clarity_iqcar_answers(struct iqcar_result *r, struct clarity_error *err)
{
    const struct iqcar_graph *g = &r->g;
    size_t nq = r->nunits + 2;
    double *dor = malloc((g->nnodes ? g->nnodes : 1) * sizeof *dor);
    double *all = calloc(g->nnodes ? g->nnodes : 1, sizeof *all);
    struct iqcar_ranked *buf = malloc((g->nnodes + r->nunits + 1) * sizeof *buf);
    r->l6_dor = calloc(nq * (r->nunits ? r->nunits : 1), sizeof *r->l6_dor);
    r->targets = calloc(r->nunits ? r->nunits : 1, sizeof *r->targets);
    r->host_score = calloc(r->nhosts ? r->nhosts : 1, sizeof *r->host_score);
    int rc = -1;
    if (!dor || !all || !buf || !r->l6_dor || !r->targets || !r->host_score) goto out;
    r->ntargets = r->nunits;
    for (size_t t = 0; t < r->nunits; t++) {
        clarity_iqcar_graph_dor(g, t, dor);
        for (size_t v = 0; v < g->nnodes; v++) {
            all[v] += dor[v];
            if (g->nodes[v].level == 6) r->l6_dor[(size_t)g->nodes[v].a * r->nunits + t] += dor[v];
        }
        if (target_answer(r, t, dor, buf)) goto out;
    }
    /* aggressive: total DOR toward every other target; victims: DOR received from others */
    size_t n = 0;
    for (size_t s = 0; s < r->nunits; s++) {
        double tot = 0;
        for (size_t t = 0; t < r->nunits; t++) tot += r->l6_dor[s * r->nunits + t];
        if (tot > 0) buf[n++] = (struct iqcar_ranked){(uint32_t)s, tot, 0};
    }
    qsort(buf, n, sizeof *buf, cmp_unit_rank);
    r->naggressive = n;
    if (!(r->aggressive = take(buf, n))) goto out;
    n = 0;
    for (size_t t = 0; t < r->nunits; t++)
        if (r->targets[t].dor_others > 0) buf[n++] = (struct iqcar_ranked){(uint32_t)t, r->targets[t].dor_others, 0};
    qsort(buf, n, sizeof *buf, cmp_unit_rank);
    r->nvictims = n;
    if (!(r->victims = take(buf, n))) goto out;
    /* slow hosts and hot resources: the paper's IF sums (out-edge of each node) and DOR sums */
    for (size_t i = 0; i < g->nedges; i++) {
        const struct iqcar_edge *e = &g->edges[i];
        const struct iqcar_node *u = &g->nodes[e->from];
        if (u->level == 3 && u->c >= 0) {
            r->host_score[u->c].if_sum += e->imf;
            r->host_score[u->c].dor_sum += all[e->from];
        } else if (u->level == 2) {
            r->res_score[u->b].if_sum += e->imf;
            r->res_score[u->b].dor_sum += all[e->from];
        }
    }
    rc = rules(r);
out:
    free(dor);
    free(all);
    free(buf);
    /* every step above fails only when memory runs out */
    if (rc) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory ranking the iQC-Graph");
    return 0;
}

int clarity_iqcar_analyze(const struct clarity_app *const *apps, size_t napps, const struct iqcar_options *opt,
                  struct iqcar_result *r, struct clarity_error *err)
{
    memset(r, 0, sizeof *r);
    r->opt = *opt;
    if (r->opt.k <= 0) r->opt.k = 3;
    clarity_iqcar_graph_init(&r->g);
    int rc = clarity_iqcar_collect(apps, napps, r, err);
    if (!rc) rc = clarity_iqcar_build(r, err);
    if (!rc) rc = clarity_iqcar_answers(r, err);
    return rc;
}

void clarity_iqcar_result_free(struct iqcar_result *r)
{
    for (size_t i = 0; i < r->nunits; i++) free(r->units[i].name);
    for (size_t i = 0; i < r->nstages; i++) free(r->stages[i].name);
    for (size_t i = 0; i < r->nhosts; i++) free(r->hosts[i]);
    for (size_t i = 0; i < r->napps; i++) free(r->apps ? r->apps[i] : NULL);
    for (size_t t = 0; t < r->ntargets; t++) {
        struct iqcar_target_answer *a = &r->targets[t];
        for (int l = 0; l < 7; l++) free(a->top[l]);
        free(a->noisy);
        free(a->paths);
        free(a->overlap);
    }
    free(r->units);
    free(r->stages);
    free(r->hosts);
    free(r->apps);
    free(r->tasks);
    free(r->l6_dor);
    free(r->targets);
    free(r->aggressive);
    free(r->victims);
    free(r->host_score);
    free(r->rules);
    free(r->overlap_matrix);
    clarity_iqcar_graph_free(&r->g);
    memset(r, 0, sizeof *r);
}

static const char *unit_label(const struct iqcar_result *r, long q)
{
    if (q == (long)IQ_L6_UNKNOWN(r)) return "Unknown";
    if (q == (long)IQ_L6_SELF(r)) return "Self";
    return q >= 0 && (size_t)q < r->nunits ? r->units[q].name : "?";
}

static const char *stage_label(const struct iqcar_result *r, long s, char *buf, size_t cap)
{
    if (s < 0 || (size_t)s >= r->nstages) return "?";
    snprintf(buf, cap, "%s of %s", r->stages[s].name, r->units[r->stages[s].unit].name);
    return buf;
}

const char *clarity_iqcar_node_label(const struct iqcar_result *r, uint32_t node, char *buf, size_t cap)
{
    const struct iqcar_node *n = &r->g.nodes[node];
    char sb[200];
    switch (n->level) {
    case 0: snprintf(buf, cap, "%s", unit_label(r, n->a)); break;
    case 1: snprintf(buf, cap, "%s", stage_label(r, n->a, sb, sizeof sb)); break;
    case 2: snprintf(buf, cap, "%s wait of %s", clarity_iqcar_res_name(n->b), stage_label(r, n->a, sb, sizeof sb)); break;
    case 3:
        snprintf(buf, cap, "%s on %s, %s", clarity_iqcar_sub_name(n->b), n->c >= 0 ? r->hosts[n->c] : "?",
                 stage_label(r, n->a, sb, sizeof sb));
        break;
    case 4: {
        const struct iqcar_node *de = &r->g.nodes[n->b];
        char src[200];
        if (n->kind == IQ_K_UNKNOWN) snprintf(src, sizeof src, "Unknown");
        else if (n->kind == IQ_K_SELF) snprintf(src, sizeof src, "Self");
        else stage_label(r, n->a, src, sizeof src);
        snprintf(buf, cap, "%s -> %s on %s", src, clarity_iqcar_sub_name(de->b), de->c >= 0 ? r->hosts[de->c] : "?");
        break;
    }
    case 5:
        if (n->kind != IQ_K_NODE) snprintf(buf, cap, "%s", n->kind == IQ_K_SELF ? "Self" : "Unknown");
        else snprintf(buf, cap, "%s", stage_label(r, n->a, sb, sizeof sb));
        break;
    default: snprintf(buf, cap, "%s", unit_label(r, n->a));
    }
    return buf;
}

long clarity_iqcar_unit_find(const struct iqcar_result *r, const char *name)
{
    for (size_t i = 0; i < r->nunits; i++)
        if (!strcmp(r->units[i].name, name)) return (long)i;
    size_t ln = strlen(name);
    for (size_t i = 0; i < r->nunits; i++) {   /* "q39b" finds "TPC-DS q39b" */
        const char *u = r->units[i].name;
        size_t lu = strlen(u);
        if (lu > ln && !strcmp(u + lu - ln, name) && (u[lu - ln - 1] == ' ' || u[lu - ln - 1] == ':')) return (long)i;
    }
    return -1;
}
