/* Stage detail, in expandable sections: task duration quantiles as the History Server's task
 * summary shows them (min, 25th, median, 75th percentile, max, by Spark's index rule), the
 * slowest tasks, and what the straggler analysis says about the stage. */
#include <stdlib.h>
#include <string.h>
#include "util/checked.h"
#include "report/html/html_internal.h"
#include "util/stats.h"

#define DETAIL_MAX 30            /* stages with a section: the longest, the critical ones, the findings' */
#define SLOWEST 5

struct pick { size_t k; int64_t key; };
static int pick_cmp(const void *pa, const void *pb)
{
    const struct pick *a = pa, *b = pb;
    if (a->key != b->key) return a->key > b->key ? -1 : 1;
    return (a->k > b->k) - (a->k < b->k);
}
static int i64_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

static bool named_by_finding(const struct html_view *v, const struct html_stage *s)
{
    const struct clarity_findings *f = v->p->findings;
    for (size_t i = 0; f && i < f->n; i++)
        if ((f->f[i].where & CLARITY_FW_STAGE) && f->f[i].stage == v->a->stages[s->row].stage_id) return true;
    return false;
}

static const struct clarity_stage_strag *strag_of(const struct html_view *v, size_t row)
{
    const struct clarity_stragglers_result *r = v->p->strag;
    for (size_t i = 0; r && i < r->nstages; i++)
        if (r->stages[i].stage == row) return &r->stages[i];
    return NULL;
}

static void quantile_row(FILE *o, const char *name, int64_t *x, size_t n, bool ms)
{
    static const double q[] = {0, 0.25, 0.5, 0.75, 1};
    qsort(x, n, sizeof *x, i64_cmp);
    fprintf(o, "<tr><td>%s</td>", name);
    for (size_t i = 0; i < 5; i++) {
        char b[32];
        int64_t val = x[clarity_spark_quantile_index(q[i], n)];
        fprintf(o, "<td>%s</td>", ms ? clarity_fmt_ms(b, sizeof b, val) : clarity_fmt_bytes(b, sizeof b, val));
    }
    fputs("</tr>", o);
}

static void one_stage(FILE *o, const struct html_view *v, const struct html_stage *s, const uint32_t *rows, size_t n,
                      int64_t *scratch)
{
    const struct clarity_app *a = v->a;
    const struct clarity_stage *cs = &a->stages[s->row];
    char b[32];
    fprintf(o, "<details id=\"stage-%lld-%d\" data-stage=\"%lld\"><summary><b>stage %lld.%d</b> ", (long long)cs->stage_id,
            cs->attempt, (long long)cs->stage_id, (long long)cs->stage_id, cs->attempt);
    clarity__html_esc(o, clarity_app_str(a, cs->name));
    fprintf(o, " &#8212; %s, %zu task attempts", clarity__html_ms(b, sizeof b, ((double)s->end_ms - (double)s->start_ms)),
            s->tasks);
    if (s->failed) fprintf(o, ", %zu failed", s->failed);
    if (s->killed) fprintf(o, ", %zu killed", s->killed);
    if (s->speculative) fprintf(o, ", %zu speculative", s->speculative);
    if (s->critical) fputs(" <span style=\"color:var(--crit)\">&#9679; critical path</span>", o);
    fputs("</summary>\n", o);
    if (n) {
        fputs("<table><thead><tr><th class=\"l\">successful tasks</th><th>min</th><th>25th</th><th>median</th>"
              "<th>75th</th><th>max</th></tr></thead><tbody>", o);
        for (size_t i = 0; i < n; i++) scratch[i] = clarity_icol_get(&a->tasks.duration, rows[i]);
        quantile_row(o, "duration", scratch, n, true);
        for (size_t i = 0; i < n; i++) scratch[i] = clarity_task_metric(a, rows[i], CLARITY_TM_GC_MS);
        quantile_row(o, "GC time", scratch, n, true);
        for (size_t i = 0; i < n; i++)
            scratch[i] = clarity_task_metric(a, rows[i], CLARITY_TM_INPUT_BYTES);
        quantile_row(o, "input", scratch, n, false);
        for (size_t i = 0; i < n; i++)
            scratch[i] = clarity_sat_add(clarity_task_metric(a, rows[i], CLARITY_TM_SR_REMOTE_BYTES),
                                         clarity_task_metric(a, rows[i], CLARITY_TM_SR_LOCAL_BYTES));
        quantile_row(o, "shuffle read", scratch, n, false);
        fputs("</tbody></table>\n", o);
        /* the slowest: a partial selection, n is at most the stage's tasks */
        size_t top[SLOWEST], nt = 0;
        for (size_t i = 0; i < n; i++) {
            int64_t d = clarity_icol_get(&a->tasks.duration, rows[i]);
            size_t p = nt;
            while (p > 0 && clarity_icol_get(&a->tasks.duration, rows[top[p - 1]]) < d) p--;
            if (p >= SLOWEST) continue;
            if (nt < SLOWEST) nt++;
            memmove(top + p + 1, top + p, (nt - 1 - p) * sizeof *top);
            top[p] = i;
        }
        fputs("<table><thead><tr><th class=\"l\">slowest tasks</th><th class=\"l\">executor</th><th class=\"l\">host</th>"
              "<th>duration</th><th>GC</th><th>input</th><th>shuffle read</th><th>fetch wait</th></tr></thead><tbody>", o);
        for (size_t k = 0; k < nt; k++) {
            size_t r = rows[top[k]];
            char d[32], g[32], in[32], sr[32], fw[32];
            fprintf(o, "<tr><td>task %lld</td><td class=\"l\">", (long long)clarity_icol_get(&a->tasks.index, r));
            clarity__html_esc(o, clarity_app_str(a, (uint32_t)clarity_icol_get(&a->tasks.executor, r)));
            fputs("</td><td class=\"l\">", o);
            clarity__html_esc(o, clarity_app_str(a, (uint32_t)clarity_icol_get(&a->tasks.host, r)));
            fprintf(o, "</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>",
                    clarity_fmt_ms(d, sizeof d, clarity_icol_get(&a->tasks.duration, r)),
                    clarity_fmt_ms(g, sizeof g, clarity_task_metric(a, r, CLARITY_TM_GC_MS)),
                    clarity_fmt_bytes(in, sizeof in, clarity_task_metric(a, r, CLARITY_TM_INPUT_BYTES)),
                    clarity_fmt_bytes(sr, sizeof sr, clarity_sat_add(clarity_task_metric(a, r, CLARITY_TM_SR_REMOTE_BYTES),
                                                                         clarity_task_metric(a, r, CLARITY_TM_SR_LOCAL_BYTES))),
                    clarity_fmt_ms(fw, sizeof fw, clarity_task_metric(a, r, CLARITY_TM_SR_FETCH_WAIT_MS)));
        }
        fputs("</tbody></table>\n", o);
    }
    const struct clarity_stage_strag *g = strag_of(v, s->row);
    if (g && g->skipped) fprintf(o, "<p class=\"note\">Stragglers not sought: %s.</p>\n", g->skipped);
    else if (g) {
        fprintf(o, "<p>Stragglers (1.5x+ the stage's median time per input byte): <b>%zu</b> of %zu tasks, %zu explained",
                g->stragglers, g->tasks, g->explained);
        bool any = false;
        for (int c = 0; c < CLARITY_SC_COUNT; c++)
            if (g->by_cause[c]) {
                fprintf(o, "%s%s %zu", any ? ", " : ": ", clarity_scause_label(c), g->by_cause[c]);
                any = true;
            }
        fputs(".", o);
        if (g->slow_host) {
            fputs(" Most on host <b>", o);
            clarity__html_esc(o, clarity_app_str(a, g->slow_host));
            fprintf(o, "</b> (%zu of its %zu tasks).", g->slow_host_stragglers, g->slow_host_tasks);
        }
        if (g->bytes_max_over_median >= 2)
            fprintf(o, " Data skew: the largest input is %.1fx the median.", g->bytes_max_over_median);
        fputs("</p>\n", o);
    }
    fputs("</details>\n", o);
}

int clarity__html_stage_detail(FILE *o, const struct html_view *v, struct clarity_error *err)
{
    const struct clarity_app *a = v->a;
    fprintf(o, "<h2 id=\"stages\">Stage detail</h2>\n");
    if (!v->nst) return 0;
    struct pick *p = malloc(v->nst * sizeof *p);
    size_t *sel = calloc(v->nst, sizeof *sel);     /* index in st -> 1 + position among the chosen */
    if (!p || !sel) { free(p); free(sel); goto oom; }
    for (size_t k = 0; k < v->nst; k++) {
        /* findings' and critical stages first, then the longest */
        int64_t bonus = named_by_finding(v, &v->st[k]) ? INT64_MAX / 4 : v->st[k].critical ? INT64_MAX / 8 : 0;
        double len = (double)v->st[k].end_ms - (double)v->st[k].start_ms;   /* saturated times: no overflow */
        p[k] = (struct pick){k, bonus + (int64_t)(len < 0 ? 0 : len > 1e15 ? 1e15 : len)};
    }
    qsort(p, v->nst, sizeof *p, pick_cmp);
    size_t nsel = v->nst < DETAIL_MAX ? v->nst : DETAIL_MAX;
    for (size_t i = 0; i < nsel; i++) sel[p[i].k] = i + 1;
    fprintf(o, "<p class=\"note\">%zu of %zu stage attempts (those findings name, those on the critical path, then the "
               "longest). Quantiles are the History Server's (index min(floor(q x n), n - 1) of the sorted values) over "
               "successful tasks.</p>\n", nsel, v->nst);
    /* one pass over the task table gathers the chosen stages' successful rows */
    size_t *cnt = calloc(nsel + 1, sizeof *cnt);
    if (!cnt) { free(p); free(sel); goto oom; }
    for (size_t i = 0; i < a->tasks.n; i++) {
        size_t s = (size_t)clarity_icol_get(&a->tasks.stage, i);
        if (s < a->nstages && v->stage_idx[s] && sel[v->stage_idx[s] - 1] &&
            clarity_icol_get(&a->tasks.end, i) == CLARITY_END_SUCCESS)
            cnt[sel[v->stage_idx[s] - 1]]++;
    }
    for (size_t i = 1; i <= nsel; i++) cnt[i] += cnt[i - 1];
    uint32_t *rows = malloc((cnt[nsel] ? cnt[nsel] : 1) * sizeof *rows);
    int64_t *scratch = malloc((cnt[nsel] ? cnt[nsel] : 1) * sizeof *scratch);
    size_t *pos = malloc((nsel + 1) * sizeof *pos);
    if (!rows || !scratch || !pos) { free(p); free(sel); free(cnt); free(rows); free(scratch); free(pos); goto oom; }
    memcpy(pos, cnt, (nsel + 1) * sizeof *pos);
    for (size_t i = 0; i < a->tasks.n; i++) {
        size_t s = (size_t)clarity_icol_get(&a->tasks.stage, i);
        if (s < a->nstages && v->stage_idx[s] && sel[v->stage_idx[s] - 1] &&
            clarity_icol_get(&a->tasks.end, i) == CLARITY_END_SUCCESS)
            rows[pos[sel[v->stage_idx[s] - 1] - 1]++] = (uint32_t)i;
    }
    for (size_t i = 0; i < nsel; i++)
        one_stage(o, v, &v->st[p[i].k], rows + cnt[i], cnt[i + 1] - cnt[i], scratch);
    free(p); free(sel); free(cnt); free(rows); free(scratch); free(pos);
    return 0;
oom:
    return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the stage detail");
}
