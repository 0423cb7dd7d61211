/* clarity contention as text: what was measured and how (labels for every proxy), then per
 * target the explanations per level, then the workload-wide answers. */
#include <stdlib.h>
#include <string.h>
#include "clarity/report.h"
#include "report/table.h"

static const char *const level_name[7] = {"target", "stage", "resource (IE)", "host (DE)", "blame (BE)",
                                          "source stage", "source query"};

/* The one line a user came for, before the method notes: which query to move or throttle, and
 * what the others gain without it. Only the replay's answer is put here, since it is a measured
 * saving; the DOR rankings stay in their section below with their labels. */
static void headline(FILE *o, const struct iqcar_result *r, size_t width)
{
    if (r->aggressive_method != IQ_AGG_REPLAY) return;
    char line[768], a[256], b[256];
    if (!r->naggressive_replay) {
        clarity_fit_wrap(o, width, "answer       ", "no query slows the others: leaving any candidate out ends no other "
                                                   "query sooner in the replay");
        return;
    }
    const struct iqcar_ranked *x = &r->aggressive_replay[0];
    int n = snprintf(line, sizeof line, "%s slows the other queries most: %.0f of them end %.1f s sooner in total without "
                     "it [replay]", clarity_fit_cell(a, sizeof a, r->units[x->node].name, 60), x->aux, x->dor / 1000);
    if (r->aggressive_close && r->naggressive_replay > 1 && n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, "; a close call with %s",
                 clarity_fit_cell(b, sizeof b, r->units[r->aggressive_replay[1].node].name, 60));
    clarity_fit_wrap(o, width, "answer       ", line);
}

static void sources_note(FILE *o, const struct iqcar_result *r, size_t width)
{
    char line[512];
    const struct iqcar_sources *s = &r->src;
    fprintf(o, "iQCAR contention analysis (Kalmegh, Babu, Roy 2018)\n");
    headline(o, r, width);
    snprintf(line, sizeof line, "%zu application(s), %zu task attempts, %zu host(s), %zu %s unit(s), %zu overlapping pairs",
             s->apps, s->tasks, r->nhosts, r->nunits, clarity_iqcar_unit_name(r->unit_kind), r->overlap_pairs);
    clarity_fit_wrap(o, width, "input        ", line);
    /* the three abbreviations every later line uses, in plain words before their first use */
    clarity_fit_wrap(o, width, "terms        ", "SWT: slot wait time, from the stage's submission to the task's launch; "
                                               "RATP: resource acquire time penalty, a task's wait per byte it processed (per slot "
                                               "offered for slots); "
                                               "DOR: degree of responsibility, the share (0 to 1) of a query's slowdown "
                                               "put on a resource, host or query");
    snprintf(line, sizeof line, "SWT = launch - stage submission; slots_offered %s",
             s->instrumented_slots == s->tasks && s->tasks ? "instrumented"
                                                           : "proxy: 1 + launches on the host while the task waited");
    clarity_fit_wrap(o, width, "waits        SLOTS   ", line);
    clarity_fit_wrap(o, width, "             CPU     ", s->instrumented_cpu ? "instrumented (iqcar.cpu.* accumulables or --metrics-csv)"
                                                                     : "proxy: run - CPU - fetch wait - shuffle write - GC - scan time, all 'blocked'");
    clarity_fit_wrap(o, width, "             MEMORY  ", s->instrumented_mem ? "instrumented (iqcar.mem.* accumulables or --metrics-csv)"
                                                                     : "not in standard logs: 0 (no proxy)");
    fprintf(o, "             NETWORK shuffle fetch wait / remote bytes read\n");
    snprintf(line, sizeof line, "read: %s; write: shuffle write time / bytes written",
             s->scan_time ? "SQL 'scan time' / input bytes" : "no 'scan time' metric in this log: 0");
    clarity_fit_wrap(o, width, "             IO      ", line);
    if (s->sidecar_tasks)
        fprintf(o, "instrumented %zu task(s) take their values from the sidecar CSV (--metrics-csv)\n", s->sidecar_tasks);
    if (r->opt.critical_path) fprintf(o, "level 1      each query's critical-path stages only (--critical-path, 6.18)\n");
    if (s->no_submit) fprintf(o, "note         %zu task(s) of stages without a submission time: SWT 0\n", s->no_submit);
    size_t wd = 0;
    for (int p = 0; p < IQ_NSUB; p++) wd += s->wait_without_data[p];
    if (wd) fprintf(o, "note         %zu wait figure(s) with no data processed: RATP 0\n", wd);
    clarity_fit_wrap(o, width, "RATP_h       ", "smallest positive RATP per host and sub-type; Unknown = slowdown not blamed on a task");
    if (r->replay.ran) {
        snprintf(line, sizeof line, "the stages re-run on %d slots (%s) without each of %zu candidate queries%s; "
                 "logged task times; replayed query runtimes off the logged ones by %.1f%% (median)",
                 r->replay.slots, r->replay.fair ? "FAIR pools" : "FIFO", r->replay.candidates,
                 r->replay.budget_cut ? " (fewer than --replay-candidates: task budget)" : "", 100 * r->replay.fidelity);
        clarity_fit_wrap(o, width, "replay       ", line);
    } else {
        clarity_fit_wrap(o, width, "replay       ", r->replay.why ? r->replay.why : "not run");
    }
    clarity_fit_wrap(o, width, "slot blame   ", r->opt.slot_blame_wait
                                               ? "source RATP = its own SWT / slots offered (--slot-blame=wait)"
                                               : "every task holding a slot on the host alike (source RATP = RATP_h)");
}

/* Room for a name between a row's number and its figures: names are cut in the middle so the
 * figures stay (width 0: the name's usual column). */
static size_t room(size_t width, size_t fixed, size_t usual)
{
    if (!width) return 0;
    return width > fixed + 12 ? (width - fixed < usual ? width - fixed : usual) : 12;
}

static void ranked(FILE *o, const struct iqcar_result *r, const char *title, const struct iqcar_ranked *v, size_t n,
                   size_t width)
{
    char buf[512], cut[512];
    if (!n) return;
    fprintf(o, "  %s\n", title);
    size_t w = room(width, 4 + 4 + 1 + 10, 70);
    for (size_t i = 0; i < n; i++)
        fprintf(o, "    %zu. %-*s DOR %.4f\n", i + 1, w ? (int)w : 70,
                clarity_fit_cell(cut, sizeof cut, clarity_iqcar_node_label(r, v[i].node, buf, sizeof buf), w), v[i].dor);
}

static void target_text(FILE *o, const struct iqcar_result *r, size_t t, size_t width)
{
    const struct iqcar_target_answer *a = &r->targets[t];
    char buf[512], cut[512], line[1024];
    snprintf(line, sizeof line, "%s  (%.1f s, %.0f tasks; DOR from other queries %.4f)", r->units[t].name,
             (double)(r->units[t].end - r->units[t].start) / 1000, r->units[t].tasks, a->dor_others);
    clarity_fit_wrap(o, width, "\ntarget ", line);
    for (int l = 2; l <= 6; l++) ranked(o, r, level_name[l], a->top[l], a->ntop[l], width);
    size_t w = room(width, 4 + 4 + 1 + 30, 40);
    if (a->nnoisy) {
        fprintf(o, "  noisy queries (iQCAR DOR | simple-overlap share)\n");
        for (size_t i = 0; i < a->nnoisy; i++) {
            const struct iqcar_node *n = &r->g.nodes[a->noisy[i].node];
            double so = 0, sum = a->overlap_sum;
            if (sum > 0) so = clarity_iqcar_overlap_of(r, t, (size_t)n->a) / sum;
            fprintf(o, "    %zu. %-*s DOR %.4f | overlap %.4f\n", i + 1, w ? (int)w : 40,
                    clarity_fit_cell(cut, sizeof cut, r->units[n->a].name, w), a->noisy[i].dor, so);
        }
    }
    if (a->nreplay) {
        fprintf(o, "  [replay] culprits (how much sooner it ends without each, replayed)\n");
        for (size_t i = 0; i < a->nreplay; i++)
            fprintf(o, "    %zu. %-*s %8.1f s (%.0f%%)\n", i + 1, w ? (int)w : 40,
                    clarity_fit_cell(cut, sizeof cut, r->units[a->replay[i].node].name, w), a->replay[i].dor / 1000,
                    100 * a->replay[i].aux);
    } else if (r->replay.ran) {
        fprintf(o, "  [replay] no candidate's removal ends it sooner\n");
    }
    if (a->noverlap) {
        fprintf(o, "  simple-overlap baseline ranking\n");
        for (size_t i = 0; i < a->noverlap; i++)
            fprintf(o, "    %zu. %-*s share %.4f\n", i + 1, w ? (int)w : 40,
                    clarity_fit_cell(cut, sizeof cut, r->units[a->overlap[i].node].name, w), a->overlap[i].dor);
    }
    if (a->npaths) {
        fprintf(o, "  top impact paths (source query -> ... -> target)\n");
        for (size_t i = 0; i < a->npaths; i++) {
            const struct iqcar_node *be = &r->g.nodes[a->paths[i].node];
            snprintf(line, sizeof line, "%s -> %s", r->units[be->c].name,
                     clarity_iqcar_node_label(r, a->paths[i].node, buf, sizeof buf));
            fprintf(o, "    %.4f  %s\n", a->paths[i].dor, clarity_fit_cell(cut, sizeof cut, line, width > 20 ? width - 14 : 0));
        }
    }
}

/* Each of the k most aggressive queries (in the answer's order: by the victims' runtime
 * attributed, or by total DOR) with both figures and its first k victims (in victim order) it
 * sent DOR to: from its own row of source x target cells, not a scan of every victim. */
static int aggressive_lines(FILE *o, const struct iqcar_result *r, const struct iqcar_ranked *ag, size_t nag,
                            bool by_dor, size_t k, size_t width)
{
    char cut[512], line[2048];
    size_t *rank = malloc((r->nunits ? r->nunits : 1) * sizeof *rank), most = 0;
    for (size_t i = 0; i < nag && i < k; i++) {
        size_t s = ag[i].node;
        if (r->l6_first[s + 1] - r->l6_first[s] > most) most = r->l6_first[s + 1] - r->l6_first[s];
    }
    struct iqcar_victim_dor *v = malloc((most ? most : 1) * sizeof *v);
    if (!rank || !v) {
        free(rank);
        free(v);
        return -1;
    }
    clarity_iqcar_victim_ranks(r, rank);
    for (size_t i = 0; i < nag && i < k; i++) {
        size_t s = ag[i].node, len = 0;
        size_t n = clarity_iqcar_victims_of(r, rank, s, v, NULL);
        double ms = by_dor ? ag[i].aux : ag[i].dor, dor = by_dor ? ag[i].dor : ag[i].aux;
        size_t w = room(width, 2 + 4 + 1 + 10 + 3 + 10 + 2 + 20, 30);
        char lead[600];
        snprintf(lead, sizeof lead, "  %zu. %-*s %8.1f s | DOR %.4f  ", i + 1, w ? (int)w : 30,
                 clarity_fit_cell(cut, sizeof cut, r->units[s].name, w), ms / 1000, dor);
        /* the victims wrap under the first one; on a terminal too narrow for that, they go
         * on the lines below the figures. A victim's name and its DOR (", 0.123": 7 more)
         * must fit beside the lead, or a name with no space in it runs past the width. */
        size_t ll = strlen(lead);
        size_t vroom = room(width, 46, 40);
        if (vroom && width > ll + 7 + 12 && width - ll - 7 < vroom) vroom = width - ll - 7;
        line[0] = '\0';
        for (size_t j = 0; j < n && j < k && len < sizeof line; j++)
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%s %.3f", j ? ", " : "",
                                    clarity_fit_cell(cut, sizeof cut, r->units[v[j].unit].name, vroom), v[j].dor);
        if (width && width < ll + 21) {
            while (ll && lead[ll - 1] == ' ') lead[--ll] = '\0';
            fprintf(o, "%s\n", lead);
            clarity_fit_wrap(o, width, "       ", line);
        } else {
            clarity_fit_wrap(o, width, lead, line);
        }
    }
    free(rank);
    free(v);
    return 0;
}

/* Slow hosts: by IF sum (or DOR sum) descending, ties in host order. */
static int cmp_host(const void *x, const void *y, void *ctx)
{
    const struct iqcar_result *r = ctx;
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    const struct iqcar_host_score *a = &r->host_score[i], *b = &r->host_score[j];
    double ka = r->opt.rank_by_dor ? a->dor_sum : a->if_sum, kb = r->opt.rank_by_dor ? b->dor_sum : b->if_sum;
    if (ka != kb) return ka > kb ? -1 : 1;
    return (i > j) - (i < j);
}

int clarity_report_contention_text(FILE *o, const struct iqcar_result *r, const long *targets, size_t ntargets,
                                   size_t width, struct clarity_error *err)
{
    char cut[512];
    sources_note(o, r, width);
    size_t k = (size_t)r->opt.k;
    if (targets)
        for (size_t i = 0; i < ntargets; i++) target_text(o, r, (size_t)targets[i], width);
    else
        for (size_t i = 0; i < r->nvictims && i < k; i++) target_text(o, r, r->victims[i].node, width);
    if (!targets && r->nvictims > k)
        fprintf(o, "\n(%zu more target(s) received contention; --target NAME or --all shows them)\n", r->nvictims - k);
    fprintf(o, "\nvictim queries (DOR received from other queries)\n");
    size_t w = room(width, 2 + 4 + 1 + 8, 40);
    for (size_t i = 0; i < r->nvictims && i < k; i++)
        fprintf(o, "  %zu. %-*s %.4f\n", i + 1, w ? (int)w : 40, clarity_fit_cell(cut, sizeof cut, r->units[r->victims[i].node].name, w),
                r->victims[i].dor);
    if (r->aggressive_method == IQ_AGG_REPLAY) {
        clarity_fit_wrap(o, width, "", "aggressive queries [replay] (runtime the other queries save without it, replayed)");
        size_t wr = room(width, 2 + 4 + 1 + 10 + 25, 40);
        for (size_t i = 0; i < r->naggressive_replay && i < k; i++)
            fprintf(o, "  %zu. %-*s %8.1f s | %.0f quer%s sooner\n", i + 1, wr ? (int)wr : 40,
                    clarity_fit_cell(cut, sizeof cut, r->units[r->aggressive_replay[i].node].name, wr),
                    r->aggressive_replay[i].dor / 1000, r->aggressive_replay[i].aux, r->aggressive_replay[i].aux == 1 ? "y" : "ies");
        if (!r->naggressive_replay)
            clarity_fit_wrap(o, width, "  ", "none: leaving any candidate out ends no other query sooner in the replay");
        if (r->naggressive_time) fprintf(o, "  by iQCAR's DOR (victim runtime attributed | total DOR; victims)\n");
        if (aggressive_lines(o, r, r->aggressive_time, r->naggressive_time, false, k, width))
            return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the report");
    } else {
        fprintf(o, "%s", r->opt.aggressive_by_dor
                            ? "aggressive queries by total DOR (victim runtime attributed | DOR; victims)\n"
                            : "aggressive queries (victim runtime attributed | total DOR; victims)\n");
        if (aggressive_lines(o, r, r->aggressive_rank, r->naggressive_rank, r->opt.aggressive_by_dor, k, width))
            return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the report");
    }
    if (r->nheaviest) {
        char line[1024];
        size_t len = 0;
        for (size_t i = 0; i < r->nheaviest && i < k && len < sizeof line; i++)
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%s %.1f task-s", i ? ", " : "",
                                    clarity_fit_cell(cut, sizeof cut, r->units[r->heaviest[i].node].name, room(width, 30 + 16, 40)),
                                    r->heaviest[i].dor / 1000);
        clarity_fit_wrap(o, width, "  baseline, most task time: ", line);
    }
    if (r->aggressive_close && k >= 2 && r->aggressive_method == IQ_AGG_REPLAY)
        clarity_fit_wrap(o, width, "  note: ", "the first two are within 25% of each other, too close to name one: on synth "
                                               "workloads the replay's close calls named the query whose removal helps the "
                                               "others most in 13 of 19 runs, its clear answers in all 53 "
                                               "(docs/contention.md)");
    else if (r->aggressive_close && k >= 2)
        clarity_fit_wrap(o, width, "  note: ", "the first two are within 25% of each other, too close to name one: on synth "
                                               "workloads such close calls named the query whose removal helps the others "
                                               "most in a quarter of the runs, the most-task-time baseline in three quarters "
                                               "(docs/contention.md)");
    fprintf(o, "slow hosts (sum of IF out of DE nodes | sum of DOR)%s\n", r->opt.rank_by_dor ? ", by DOR" : "");
    size_t *ord = malloc((r->nhosts ? r->nhosts : 1) * sizeof *ord);
    if (!ord) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the report");
    for (size_t h = 0; h < r->nhosts; h++) ord[h] = h;
    qsort_r(ord, r->nhosts, sizeof *ord, cmp_host, (void *)r);
    for (size_t i = 0; i < r->nhosts && i < k; i++)
        fprintf(o, "  %zu. %-30s IF %.4f | DOR %.4f\n", i + 1, clarity_fit_cell(cut, sizeof cut, r->hosts[ord[i]], room(width, 2 + 4 + 1 + 28, 48)),
                r->host_score[ord[i]].if_sum, r->host_score[ord[i]].dor_sum);
    free(ord);
    fprintf(o, "hot resources (sum of IF out of IE nodes | sum of DOR)\n");
    for (int res = 0; res < IQ_NRES; res++)
        fprintf(o, "  %-8s IF %.4f | DOR %.4f\n", clarity_iqcar_res_name(res), r->res_score[res].if_sum, r->res_score[res].dor_sum);
    fprintf(o, "rules (max query concurrency %d)\n", r->max_concurrency);
    /* the name is padded to 40 columns, or to what it was cut to when the terminal is
     * narrower: padding a cut name back to 40 would push the line past the width */
    size_t wn = room(width, 2 + 5 + 5 + 7 + 30, 60);
    int pad = wn && wn < 40 ? (int)wn : 40;
    for (size_t i = 0; i < r->nrules; i++) {
        const struct iqcar_rule *x = &r->rules[i];
        fprintf(o, "  %d. %-4s %-6s %-*s value %g, order %d\n", x->id, x->type, x->qtype, pad,
                clarity_fit_cell(cut, sizeof cut, r->units[x->unit].name, wn), x->value, x->order);
    }
    return clarity_report_status(o, err);
}
