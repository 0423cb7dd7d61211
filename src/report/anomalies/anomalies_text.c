/* Text report of LADRA: where and when (periods), why (cause probabilities per victim host and
 * for the run), the factors behind them with every approximation named, Spark's speculation
 * rule beside it, and what the other logs contributed. */
#include <stdlib.h>
#include <string.h>
#include "clarity/report.h"

/* end - start; a log with impossible times (INT64 extremes) would overflow: the longest span */
static int64_t span_ms(int64_t start, int64_t end)
{
    int64_t d;
    return __builtin_sub_overflow(end, start, &d) ? INT64_MAX : d;
}

static void causes_line(FILE *o, const double *p)
{
    for (int c = 0; c < LADRA_NCLASS; c++) fprintf(o, "  %s %3.0f%%", clarity_ladra_class_name(c), 100 * p[c]);
}

/* eDCO, eMCS and eDMC only when GC logs gave DCO, MCS and DMC (otherwise they are the same) */
static void factors_line(FILE *o, const struct ladra_factors *f)
{
    for (int k = 0; k < ladra_nfeat_mode(f->flags & LADRA_APPROX_DCO); k++)
        fprintf(o, "%s  %s %.3g", k == LADRA_NFACTOR ? "  |" : "", clarity_ladra_factor_name(k), f->f[k]);
}

/* The factors behind the verdict: the run's (against its victim), every host with a period,
 * the approximations used and the victim rule's figures. */
static void factors_block(FILE *o, const struct clarity_app *a, const struct clarity_anomalies_result *r)
{
    char b3[32];
    const struct ladra_input *in = &r->in;
    fprintf(o, "\nfactors (about 1 when healthy but FWB, ms of fetch wait per remote MB; after | clarity's event-log features, not in the paper)\n");
    if (in->nhosts && in->nstages) {
        fprintf(o, "  run   victim %s, stage %lld, window %s\n      ", clarity_app_str(a, r->host_ids[r->run.victim]),
                (long long)r->stages[r->run.stage].stage_id, clarity_fmt_ms(b3, sizeof b3, span_ms(r->run.win_start_ms, r->run.win_end_ms)));
        factors_line(o, &r->run);
        fputc('\n', o);
    } else {
        /* a log without task attempts (job and stage events only, or none) has no host to
         * compare: there is no victim, and its factors stay at their healthy 1 */
        fprintf(o, "  run   no task attempts in the log: no victim host, nothing to compare\n");
    }
    for (size_t j = 0; j < in->nhosts; j++) {
        const struct clarity_anomalies_host *h = &r->hosts[j];
        if (!h->has_periods) continue;
        fprintf(o, "  host %-16s", clarity_app_str(a, h->host));
        factors_line(o, &h->factors);
        fprintf(o, "\n        rules (Eq. 11-12): cpu %.2f, memory %.2f, network %.2f, disk %.2f\n", h->rule_prob[0],
                h->rule_prob[1], h->rule_prob[2], h->rule_prob[3]);
    }
    if (r->run.flags & (LADRA_APPROX_DCO | LADRA_APPROX_MCS | LADRA_APPROX_DMC))
        fprintf(o, "  approximated (no GC logs): DCO = max over hosts of wall/CPU time of tasks in the window over all hosts'; "
                   "MCS = victim's GC time per run ms over the others'; DMC = max/min of hosts' shuffle fetch-wait share "
                   "(+0.05)\n");
    fprintf(o, "  victim = most time beyond the stage medians:");
    for (size_t j = 0; j < in->nhosts; j++)
        fprintf(o, " %s %s", clarity_app_str(a, r->hosts[j].host), clarity_fmt_ms(b3, sizeof b3, (int64_t)r->hosts[j].excess_ms));
    fputc('\n', o);
    if (r->run.flags & LADRA_CLAMPED) fprintf(o, "  a zero denominator was clamped (D10/D16)\n");
    if (r->run.flags & LADRA_SINGLE_HOST) fprintf(o, "  one host only: inter-node factors are 1 (D16)\n");
}

int clarity_report_anomalies_text(FILE *o, const struct clarity_app *a, const struct clarity_anomalies_result *r,
                          const struct clarity_logs *logs, size_t limit, struct clarity_error *err)
{
    char b1[48], b2[48];
    const struct ladra_input *in = &r->in;
    fprintf(o, "application  %s  \"%s\"\n", clarity_app_str(a, a->app_id), clarity_app_str(a, a->name));
    fprintf(o, "source       %s\n", a->source_path);
    bool ext = r->method == LADRA_METHOD_GRNN && r->features == LADRA_FEATURES_EXTENDED;
    char grnn[96];
    snprintf(grnn, sizeof grnn, "GRNN on the paper's %d factors + %d event-log features (z-scored)", LADRA_NFACTOR,
             ladra_nfeat_mode(r->eventlog_only) - LADRA_NFACTOR);
    fprintf(o, "mode         %s; root cause by %s%s\n",
            r->eventlog_only ? "event log only (DCO, MCS, DMC approximated from task metrics)"
                             : "event log + GC logs",
            r->method != LADRA_METHOD_GRNN ? "weighted rules (paper Eq. 11-12)"
            : ext ? grnn
                  : "GRNN on the paper's 7 factors (raw)",
            r->method == LADRA_METHOD_GRNN && r->softmax ? ", softmax" : "");
    fprintf(o, "tasks        %zu successful attempts in %zu stage attempts on %zu hosts (%zu other attempts left out)\n",
            in->ntasks, in->nstages, in->nhosts, r->tasks_skipped);
    size_t raw = 0, sm = 0, skew = 0, spec = 0;
    for (size_t i = 0; i < in->ntasks; i++)
        raw += in->tasks[i].raw, sm += in->tasks[i].smooth && !in->tasks[i].skew_suspect,
            skew += in->tasks[i].skew_suspect, spec += in->tasks[i].speculation;
    fprintf(o, "detection    %zu above mean + 1.5 sd of their stage and set, %zu after width-5 smoothing, "
               "%zu left out as data skew; %zu period(s)", raw, sm, skew, r->nperiods);
    if (r->rule.all_periods) fprintf(o, ", all shown (--all-periods)\n");
    else {
        char ex[32];
        fprintf(o, ", %zu that matter%s\n", r->nmatter, r->nmatter == 1 ? "s" : "");
        /* the rule, so a reader knows what "matters" means and how to see the rest */
        fprintf(o, "matters      time beyond the stage median >= %s and >= %.3g%% of the stage's task time, on a\n"
                   "             host with %d+ tasks in it, not every host of the stage (--all-periods: every period)\n",
                clarity_fmt_ms(ex, sizeof ex, (int64_t)r->rule.min_excess_ms), 100 * r->rule.min_share, LADRA_MIN_HOST_TASKS);
    }
    fprintf(o, "speculation  Spark's rule (1.5 x median after 75%% done) flags %zu task(s)%s\n", spec,
            r->speculation_detected ? "" : ": run looks normal to it");
    if (logs)
        fprintf(o, "logs         %llu files, %llu lines: %llu log4j (%llu used), %llu GC records (%llu joined to hosts, "
                   "%llu not), %llu YARN header lines; task ids in logs: %llu in the event log, %llu not\n",
                (unsigned long long)logs->files, (unsigned long long)logs->lines, (unsigned long long)logs->l4j_lines,
                (unsigned long long)logs->l4j_used, (unsigned long long)logs->gc_records,
                (unsigned long long)r->gc_joined, (unsigned long long)r->gc_unjoined,
                (unsigned long long)logs->yarn_headers, (unsigned long long)r->log_tids_joined,
                (unsigned long long)r->log_tids_unjoined);

    if (!r->detected && !r->cause_without_period) {
        /* No period that matters and no cause the model can stand by: nothing else. */
        fprintf(o, "\nverdict      normal: no abnormal period\n");
    } else {
        const struct ladra_factors *f = &r->run;
        fprintf(o, "\nverdict      abnormal on %s (stage %lld), ", clarity_app_str(a, r->host_ids[f->victim]),
                (long long)r->stages[f->stage].stage_id);
        if (r->cause_without_period)
            fprintf(o, "most likely %s\n             no single period stands out: the root-cause model sees the host "
                       "slowed over the run", clarity_ladra_class_name(r->run_class));
        else if (r->run_likeliest == LADRA_NORMAL)
            /* never "abnormal ..., most likely normal": the periods stand, the model has no cause */
            fprintf(o, "no cause found: the root-cause model gives normal %.0f%% of its weight", 100 * r->run_y[LADRA_NORMAL]);
        else if (r->run_class != r->run_likeliest)
            fprintf(o, "cause unclear: %s is likeliest with %.0f%% of the model's weight, under the %.0f%% a verdict needs",
                    clarity_ladra_class_name(r->run_likeliest), 100 * r->run_y[r->run_likeliest], 100 * r->min_cause);
        else
            fprintf(o, "most likely %s", clarity_ladra_class_name(r->run_class));
        fprintf(o, "\n            ");
        causes_line(o, r->run_p);
        /* The softmax (on by default, as the paper) only flattens the GRNN's weights, which
         * already sum to 1, so the weights y are printed under it; the verdict reads the
         * weights themselves */
        bool soft = r->method == LADRA_METHOD_GRNN && r->softmax;
        fprintf(o, "%s\n", soft ? "   (softmax, Eq. 15)" : "");
        if (soft) {
            fprintf(o, "            ");
            causes_line(o, r->run_y);
            fprintf(o, "   (the GRNN's weights y)\n");
        }
    }

    if (r->detected) {
        fprintf(o, "\nabnormal periods (where and when)\n");
        fprintf(o, "%-20s %-9s %9s  %-23s  %-12s %5s  %7s %7s %7s %7s %7s\n", "host", "executor", "stage.att",
                "start (UTC)", "duration", "tasks", "normal", "cpu", "memory", "network", "disk");
        size_t shown = 0;
        for (size_t i = 0; i < r->nperiods; i++) {
            const struct ladra_period *p = &r->periods[i];
            if (!p->matters) continue;
            if (limit && shown >= limit) break;
            shown++;
            const struct clarity_anomalies_stage *s = &r->stages[p->stage];
            char sa[32];
            snprintf(sa, sizeof sa, "%lld.%d", (long long)s->stage_id, s->attempt);
            fprintf(o, "%-20s %-9s %9s  %-23s  %-12s %5zu ", clarity_app_str(a, r->host_ids[p->host]),
                    p->exec >= 0 ? clarity_app_str(a, r->exec_ids[p->exec]) : "several", sa,
                    clarity_fmt_time(b1, sizeof b1, p->start_ms), clarity_fmt_ms(b2, sizeof b2, span_ms(p->start_ms, p->end_ms)), p->tasks);
            for (int c = 0; c < LADRA_NCLASS; c++) fprintf(o, " %6.1f%%", 100 * p->causes[c]);
            fputc('\n', o);
        }
        if (shown < r->nmatter) fprintf(o, "(%zu more; --limit 0 shows all)\n", r->nmatter - shown);
    }

    /* the factors explain a verdict: a run with no period that matters has none to explain */
    if (r->detected || r->cause_without_period) factors_block(o, a, r);

    if (logs && logs->nunknown) {
        if (logs->nunknown > 10)
            fprintf(o, "\nlog lines not understood, by pattern (the 10 most frequent of %zu patterns)\n", logs->nunknown);
        else
            fprintf(o, "\nlog lines not understood, by pattern (%zu pattern%s)\n", logs->nunknown, logs->nunknown == 1 ? "" : "s");
        bool *done = calloc(logs->nunknown, 1);
        if (!done) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the report");
        for (int k = 0; k < 10; k++) {
            size_t best = SIZE_MAX;
            for (size_t i = 0; i < logs->nunknown; i++)
                if (!done[i] && (best == SIZE_MAX || logs->unknown[i].count > logs->unknown[best].count)) best = i;
            if (best == SIZE_MAX) break;
            done[best] = true;
            fprintf(o, "  %8llu  %s\n", (unsigned long long)logs->unknown[best].count, logs->unknown[best].key);
        }
        free(done);
    }
    return clarity_report_status(o, err);
}
