/* The result's lifetime and lookups: freeing, node and unit names, the sparse per-pair tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/contention/iqcar_internal.h"

void clarity_iqcar_result_free(struct iqcar_result *r)
{
    for (size_t i = 0; i < r->nunits; i++) free(r->units[i].name);
    for (size_t i = 0; i < r->nstages; i++) free(r->stages[i].name);
    for (size_t i = 0; i < r->nhosts; i++) free(r->hosts[i]);
    for (size_t i = 0; i < r->napps; i++) free(r->apps ? r->apps[i] : NULL);
    free(r->lists);
    for (size_t i = 0; i < r->nextra_lists; i++) free(r->extra_lists[i]);
    free(r->extra_lists);
    free(r->replay_lists);
    free(r->units);
    free(r->stages);
    free(r->hosts);
    free(r->apps);
    free(r->tasks);
    clarity__iqcar_tasktab_free(r->tab);
    clarity__iqcar_replay_prep_free(r->replay_prep);
    free(r->l6);
    free(r->l6_first);
    free(r->targets);
    free(r->aggressive);
    free(r->aggressive_time);
    free(r->aggressive_replay);
    free(r->heaviest);
    free(r->victims);
    free(r->host_score);
    free(r->rules);
    free(r->overlap);
    clarity_iqcar_graph_free(&r->g);
    memset(r, 0, sizeof *r);
}

/* The value of cell (row, col) among cells[lo, end) sorted by row then col; 0 when absent. */
static double cell_find(const struct iqcar_cell *c, size_t lo, size_t end, size_t row, size_t col)
{
    size_t hi = end;
    while (lo < hi) {   /* the first cell not before (row, col) */
        size_t m = lo + (hi - lo) / 2;
        if (c[m].row < row || (c[m].row == row && c[m].col < col)) lo = m + 1;
        else hi = m;
    }
    return lo < end && c[lo].row == row && c[lo].col == col ? c[lo].v : 0;
}

double clarity_iqcar_overlap_of(const struct iqcar_result *r, size_t t, size_t s)
{
    if (r->targets && t < r->ntargets) {
        const struct iqcar_target_answer *a = &r->targets[t];
        return cell_find(r->overlap, a->overlap_first, a->overlap_first + a->overlap_cells, t, s);
    }
    return cell_find(r->overlap, 0, r->noverlap, t, s);
}

double clarity_iqcar_l6_dor(const struct iqcar_result *r, size_t s, size_t t)
{
    if (!r->l6_first || s >= r->nunits + 2) return 0;
    return cell_find(r->l6, r->l6_first[s], r->l6_first[s + 1], s, t);
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

void clarity_iqcar_victim_ranks(const struct iqcar_result *r, size_t *rank)
{
    for (size_t t = 0; t < r->nunits; t++) rank[t] = SIZE_MAX;
    for (size_t i = 0; i < r->nvictims; i++) rank[r->victims[i].node] = i;
}

static int cmp_victim_dor(const void *x, const void *y)
{
    const struct iqcar_victim_dor *a = x, *b = y;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

size_t clarity_iqcar_victims_of(const struct iqcar_result *r, const size_t *rank, size_t s, struct iqcar_victim_dor *v,
                                double *runtime_ms)
{
    size_t n = 0;
    double ms = 0;
    for (size_t c = r->l6_first[s]; c < r->l6_first[s + 1]; c++) {
        const struct iqcar_cell *cell = &r->l6[c];
        if (cell->col >= r->nunits || rank[cell->col] == SIZE_MAX || !(cell->v > 0)) continue;
        v[n++] = (struct iqcar_victim_dor){rank[cell->col], cell->col, cell->v};
        const struct iqcar_unit_info *u = &r->units[cell->col];
        if (u->end > u->start) ms += (double)(u->end - u->start);
    }
    /* ranks are distinct (one per unit of the victim answer), so the order is total */
    qsort(v, n, sizeof *v, cmp_victim_dor);
    if (runtime_ms) *runtime_ms = ms;
    return n;
}
