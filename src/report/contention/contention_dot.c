/* The iQC-Graph as Graphviz DOT: one rank per level, edges labelled with their impact
 * factor, nodes with VC and the DOR toward the chosen targets. */
#include <stdlib.h>
#include <string.h>
#include "clarity/report.h"

static void dot_str(FILE *o, const char *s)
{
    fputc('"', o);
    for (; *s; s++) {
        if (*s == '"') fputc('\\', o);   /* labels carry \\n line breaks on purpose */
        fputc(*s, o);
    }
    fputc('"', o);
}

int clarity_report_contention_dot(FILE *o, const struct iqcar_result *r, const long *targets, size_t ntargets, bool full,
                          struct clarity_error *err)
{
    const struct iqcar_graph *g = &r->g;
    struct iqcar_dor_walk w;
    double *sum = calloc(g->nnodes ? g->nnodes : 1, sizeof *sum);
    if (!sum || clarity_iqcar_dor_walk_init(&w, g, NULL)) {
        free(sum);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the report");
    }
    size_t nt = targets ? ntargets : r->nunits;
    for (size_t i = 0; i < nt; i++) {   /* each target costs only what it reaches */
        if (clarity_iqcar_dor_walk(&w, targets ? (size_t)targets[i] : i)) {
            clarity_iqcar_dor_walk_free(&w);
            free(sum);
            return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the report");
        }
        for (size_t j = 0; j < w.ntouched; j++) sum[w.touched[j]] += w.dor[w.touched[j]];
    }
    clarity_iqcar_dor_walk_free(&w);
    char buf[512];
    fprintf(o, "digraph iqcgraph {\n  rankdir=BT;\n  node [shape=box, fontsize=10];\n");
    for (int l = 6; l >= 0; l--) {
        fprintf(o, "  { rank=same;");
        for (size_t v = 0; v < g->nnodes; v++)
            if (g->nodes[v].level == l && (full || sum[v] > 0)) fprintf(o, " n%zu;", v);
        fprintf(o, " }\n");
    }
    for (size_t v = 0; v < g->nnodes; v++) {
        if (!full && !(sum[v] > 0)) continue;
        char lab[700];
        snprintf(lab, sizeof lab, "L%d %s\\nVC %.4g  DOR %.4g", g->nodes[v].level, clarity_iqcar_node_label(r, (uint32_t)v, buf, sizeof buf),
                 g->nodes[v].vc, sum[v]);
        fprintf(o, "  n%zu [label=", v);
        dot_str(o, lab);
        fprintf(o, "%s];\n", g->nodes[v].kind == IQ_K_UNKNOWN ? ", style=dashed" : "");
    }
    for (size_t i = 0; i < g->nedges; i++) {
        const struct iqcar_edge *e = &g->edges[i];
        if (!full && !(sum[e->from] > 0 && sum[e->to] > 0)) continue;
        fprintf(o, "  n%u -> n%u [label=\"%.3g\"];\n", e->from, e->to, e->imf);
    }
    fprintf(o, "}\n");
    free(sum);
    return clarity_report_status(o, err);
}
