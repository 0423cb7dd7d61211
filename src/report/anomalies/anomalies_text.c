/* Text report of LADRA: where and when (periods), why (cause probabilities per victim host and
 * for the run), the factors behind them with every approximation named, Spark's speculation
 * rule beside it, and what the other logs contributed. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdio.h>
#include "clarity/report.h"
#include "report/table.h"

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

/* The fetch-wait scan's blind spot, said under the verdict (lad29): the readers that ran in one
 * wave have no unimpeded reader to be compared with, so "normal" says nothing of the network
 * there. Names their stages (the first LADRA_NET_WAVE_STAGES) and what would check it. */
static void unchecked_line(FILE *o, const struct clarity_anomalies_result *r, size_t width)
{
    const struct ladra_net_period *p = &r->net;
    if (!p->unchecked) return;
    char st[160] = "", fw[48];
    size_t len = 0, kept = p->wave_nstages < LADRA_NET_WAVE_STAGES ? p->wave_nstages : LADRA_NET_WAVE_STAGES;
    for (size_t k = 0; k < kept && len < sizeof st; k++) {
        const struct clarity_anomalies_stage *g = &r->stages[p->wave_stages[k]];
        len += (size_t)snprintf(st + len, sizeof st - len, "%s%lld", k ? ", " : "", (long long)g->stage_id);
        if (g->attempt && len < sizeof st) len += (size_t)snprintf(st + len, sizeof st - len, " (attempt %d)", (int)g->attempt);
    }
    if (p->wave_nstages > kept && len < sizeof st)
        snprintf(st + len, sizeof st - len, " and %zu more", p->wave_nstages - kept);
    clarity_fmt_ms(fw, sizeof fw, (int64_t)p->wave_fetch_ms);
    clarity_fit_wrapf(o, width, "             ", "network not checked: %zu of %zu shuffle readers (stage%s %s) read at once, "
                      "waiting %s on fetches (%.1f%% of the task time), so the fetch-wait scan had no unimpeded reader to "
                      "compare them with and a slow network would look normal; another run of the same job would check it",
                      p->wave_readers, p->readers, p->wave_nstages == 1 ? "" : "s", st,
                      fw, p->run_task_ms > 0 ? 100 * p->wave_fetch_ms / p->run_task_ms : 0);
}

/* With --reference (lad30): which reference the fetch-wait scan used, said under the verdict,
 * and when no stage of the reference run matched. Nothing without a reference run. */
static void reference_line(FILE *o, const struct clarity_anomalies_result *r, size_t width)
{
    if (!r->net_reference_name) return;
    const struct ladra_net_period *p = &r->net;
    if (p->by_reference)
        clarity_fit_wrapf(o, width, "             ", "network reference: %s (another run of the same job): %zu of %zu readers "
                          "compared with the readers of their stage there (%zu of %zu shuffle-read stages matched)",
                          r->net_reference_name, p->ref_readers, p->readers, r->net_ref_matched, r->net_ref_read_stages);
    else if (!r->net_ref_matched)
        clarity_fit_wrapf(o, width, "             ", "network reference: in-run; no shuffle-read stage of %s matched this "
                          "run's %zu (by name and position, with %d readers or more)", r->net_reference_name,
                          r->net_ref_read_stages, LADRA_NET_REF_MIN_READERS);
    else
        clarity_fit_wrapf(o, width, "             ", "network reference: in-run (the scan could check this run with its "
                          "own readers, so %s was not used; %zu of %zu shuffle-read stages matched)", r->net_reference_name,
                          r->net_ref_matched, r->net_ref_read_stages);
}

/* DCO, MCS and DMC in plain words where they first appear (the mode line without GC logs, the
 * factors with them): the paper's three GC-log factors, which the other lines only name */
static void glossary_line(FILE *o, size_t width, const char *indent)
{
    clarity_fit_wrap(o, width, indent, "DCO: CPU occupation (wall over CPU time); MCS: memory change speed (how "
                                       "fast the heap fills); DMC: degree of memory change (long flat heap "
                                       "stretches: tasks waiting on data)");
}

/* eDCO, eMCS and eDMC only when GC logs gave DCO, MCS and DMC (otherwise they are the same) */
static void factors_line(FILE *o, size_t width, const char *lead, const char *first, const struct ladra_factors *f)
{
    /* wrapped between factors, never between a factor's name and its value; continuation
     * lines under the run's factors (8 columns) */
    size_t col = strlen(lead);
    fputs(lead, o);
    if (first) col += (size_t)fprintf(o, "%s", first);
    for (int k = 0; k < ladra_nfeat_mode(f->flags & LADRA_APPROX_DCO); k++) {
        char item[64];
        int n = snprintf(item, sizeof item, "%s%s %.3g", k == LADRA_NFACTOR ? "|  " : "", clarity_ladra_factor_name(k), f->f[k]);
        size_t sep = 2;
        if (width && col > 8 && col + sep + (size_t)n > width) {
            fprintf(o, "\n%8s", "");
            col = 8, sep = 0;
        }
        col += (size_t)fprintf(o, "%*s%s", (int)sep, "", item);
    }
    fputc('\n', o);
}

/* The factors behind the verdict: the run's (against its victim), every host with a period,
 * the approximations used and the victim rule's figures. */
/* How the victim was chosen, and each host's figure under that rule: the time beyond the stage
 * medians up to 4 hosts, else the time lost against the other hosts' tasks (per byte, load out). */
static const char *victim_rule(const struct clarity_anomalies_result *r)
{
    return r->victim_by_slowdown ? "victim = slowest against the other hosts (per byte, load taken out), time lost:"
                                 : "victim = most time beyond the stage medians:";
}

static double victim_ms(const struct clarity_anomalies_result *r, size_t j)
{
    /* a host faster than the others lost nothing: 0, not a negative time */
    return r->victim_by_slowdown ? fmax(r->hosts[j].lost_ms, 0) : r->hosts[j].excess_ms;
}

/* More than 4 hosts: the cause came from the victim's time components, or the model's cause
 * was dropped because they did not bear it out; say which, with the figures (as ratios to the
 * other hosts of the same stages, the way they were compared). */
/* the victim's lost time over one host's share of the run's task time */
static double victim_host_share(const struct clarity_anomalies_result *r)
{
    double run_ms = 0;
    for (size_t j = 0; j < r->in.nhosts; j++) run_ms += r->hosts[j].task_ms;
    return run_ms > 0 ? r->hosts[r->run.victim].lost_ms * (double)r->in.nhosts / run_ms : 0;
}

static void components_line(FILE *o, const struct clarity_app *a, const struct clarity_anomalies_result *r, size_t width)
{
    const double *c = r->victim_comp;
    char why[512], gc[96] = "";
    if (!r->eventlog_only)
        snprintf(gc, sizeof gc, ", GC system share x%.2f", exp(c[LADRA_COMP_GC_SYS]));
    /* the cause's rules also read the rest of the run time per local-disk byte and, from the GC
     * logs, the collections' wall over user + sys: name them where they may have decided */
    char gcw[64] = "";
    if (!r->eventlog_only) snprintf(gcw, sizeof gcw, ", GC wall over user + sys x%.2f", exp(c[LADRA_COMP_GC_STRETCH]));
    if (r->cause_by_components)
        snprintf(why, sizeof why, "cause from %s's time components against the other hosts of its stages, not the "
                 "root-cause model (trained on 4 hosts): run time per CPU time x%.2f, shuffle write time per byte "
                 "x%.2f, other time per local-disk byte x%.2f, GC time per CPU time x%.2f%s%s",
                 clarity_app_str(a, r->host_ids[r->run.victim]), exp(c[LADRA_COMP_CPU]), exp(c[LADRA_COMP_WRITE]),
                 exp(c[LADRA_COMP_READ]), exp(c[LADRA_COMP_GC]), gc, gcw);
    else if (r->model_drop_why == LADRA_DROP_LOST)
        snprintf(why, sizeof why, "the root-cause model's %s is not named: %s lost %.1f%% of one host's share of the "
                 "run's task time against the other hosts of its stages, under the 10%% that healthy hosts' own load "
                 "and skew reach on wide clusters", clarity_ladra_class_name(r->model_cause_dropped),
                 clarity_app_str(a, r->host_ids[r->run.victim]), 100 * victim_host_share(r));
    else if (r->model_drop_why == LADRA_DROP_READERS)
        snprintf(why, sizeof why, "the root-cause model's network is not named: no stretch of slow readers matters "
                 "(a slow network makes the readers on every host wait on fetches)");
    else
        snprintf(why, sizeof why, "the root-cause model's %s is not borne out by %s's time components against the "
                 "other hosts of its stages (run time per CPU time x%.2f, shuffle write time per byte x%.2f, GC time "
                 "per CPU time x%.2f%s)%s", clarity_ladra_class_name(r->model_cause_dropped),
                 clarity_app_str(a, r->host_ids[r->run.victim]), exp(c[LADRA_COMP_CPU]), exp(c[LADRA_COMP_WRITE]),
                 exp(c[LADRA_COMP_GC]), gc, r->cause_by_fetch_scan ? "" : ", so no cause is named");
    clarity_fit_wrap(o, width, "             ", why);
}

static void factors_block(FILE *o, const struct clarity_app *a, const struct clarity_anomalies_result *r, size_t width)
{
    char b3[32];
    const struct ladra_input *in = &r->in;
    clarity_fit_wrap(o, width, "\n", "factors (about 1 when healthy but FWB, ms of fetch wait per remote MB; after | clarity's "
                                     "event-log features, not in the paper)");
    if (!r->eventlog_only) glossary_line(o, width, "  ");
    if (in->nhosts && in->nstages) {
        clarity_fit_wrapf(o, width, "  run   ", "victim %s, stage %lld, window %s", clarity_app_str(a, r->host_ids[r->run.victim]),
                          (long long)r->stages[r->run.stage].stage_id,
                          clarity_fmt_ms(b3, sizeof b3, span_ms(r->run.win_start_ms, r->run.win_end_ms)));
        factors_line(o, width, "      ", NULL, &r->run);
    } else {
        /* a log without task attempts (job and stage events only, or none) has no host to
         * compare: there is no victim, and its factors stay at their healthy 1 */
        clarity_fit_wrap(o, width, "  run   ", "no task attempts in the log: no victim host, nothing to compare");
    }
    for (size_t j = 0; j < in->nhosts; j++) {
        const struct clarity_anomalies_host *h = &r->hosts[j];
        if (!h->has_periods) continue;
        char host[512];
        snprintf(host, sizeof host, "%-16s", clarity_app_str(a, h->host));
        factors_line(o, width, "  host ", host, &h->factors);
        fprintf(o, "        rules (Eq. 11-12): cpu %.2f, memory %.2f, network %.2f, disk %.2f\n", h->rule_prob[0],
                h->rule_prob[1], h->rule_prob[2], h->rule_prob[3]);
    }
    if (r->run.flags & (LADRA_APPROX_DCO | LADRA_APPROX_MCS | LADRA_APPROX_DMC))
        clarity_fit_wrap(o, width, "  ", "approximated (no GC logs): DCO = max over hosts of wall/CPU time of tasks in the window "
                                         "over all hosts'; MCS = victim's GC time per run ms over the others'; DMC = max/min of "
                                         "hosts' shuffle fetch-wait share (+0.05)");
    /* every host's excess, so a long list wraps instead of running off the terminal */
    size_t cap = 64;
    for (size_t j = 0; j < in->nhosts; j++) cap += strlen(clarity_app_str(a, r->hosts[j].host)) + 40;
    char *victims = malloc(cap);
    if (victims) {
        size_t n = (size_t)snprintf(victims, cap, "%s", victim_rule(r));
        for (size_t j = 0; j < in->nhosts && n < cap; j++)
            n += (size_t)snprintf(victims + n, cap - n, " %s %s", clarity_app_str(a, r->hosts[j].host),
                                  clarity_fmt_ms(b3, sizeof b3, (int64_t)victim_ms(r, j)));
        clarity_fit_wrap(o, width, "  ", victims);
        free(victims);
    } else {
        /* no memory for the wrapped line: the same figures, unwrapped */
        fprintf(o, "  %s", victim_rule(r));
        for (size_t j = 0; j < in->nhosts; j++)
            fprintf(o, " %s %s", clarity_app_str(a, r->hosts[j].host), clarity_fmt_ms(b3, sizeof b3, (int64_t)victim_ms(r, j)));
        fputc('\n', o);
    }
    if (r->run.flags & LADRA_CLAMPED) fprintf(o, "  a zero denominator was clamped (D10/D16)\n");
    if (r->run.flags & LADRA_SINGLE_HOST) fprintf(o, "  one host only: inter-node factors are 1 (D16)\n");
}

/* The periods that matter, up to the limit. part 0: one table; 1: where and when, numbered;
 * 2: the causes of each numbered period (a terminal too narrow for one table gets two). */
static int periods_table(FILE *o, const struct clarity_app *a, const struct clarity_anomalies_result *r, size_t limit,
                         size_t width, int part)
{
    static const struct table_col cols[] = {
        {"#", TCOL_NUM},        {"host", TCOL_HOST},  {"executor", TCOL_ID}, {"stage.att", TCOL_NUM},
        {"start (UTC)", TCOL_FIXED}, {"duration", TCOL_NUM}, {"tasks", TCOL_NUM}, {"normal", TCOL_NUM},
        {"cpu", TCOL_NUM},      {"memory", TCOL_NUM}, {"network", TCOL_NUM}, {"disk", TCOL_NUM}};
    /* the columns of each part, by index into cols */
    static const int pick[3][12] = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, -1},
                                    {0, 1, 2, 3, 4, 5, 6, -1},
                                    {0, 3, 7, 8, 9, 10, 11, -1}};
    struct table_col use[12];
    size_t nc = 0;
    for (; pick[part][nc] >= 0; nc++) use[nc] = cols[pick[part][nc]];
    struct table t;
    clarity_table_init(&t, use, nc);
    size_t shown = 0;
    for (size_t i = 0; i < r->nperiods; i++) {
        const struct ladra_period *p = &r->periods[i];
        if (!p->matters) continue;
        if (limit && shown >= limit) break;
        shown++;
        const struct clarity_anomalies_stage *s = &r->stages[p->stage];
        char cell[12][48];
        snprintf(cell[0], sizeof cell[0], "%zu", shown);
        snprintf(cell[1], sizeof cell[1], "%s", "");
        snprintf(cell[3], sizeof cell[3], "%lld.%d", (long long)s->stage_id, s->attempt);
        clarity_fmt_time(cell[4], sizeof cell[4], p->start_ms);
        clarity_fmt_ms(cell[5], sizeof cell[5], span_ms(p->start_ms, p->end_ms));
        snprintf(cell[6], sizeof cell[6], "%zu", p->tasks);
        for (int c = 0; c < LADRA_NCLASS; c++) snprintf(cell[7 + c], sizeof cell[7 + c], "%.1f%%", 100 * p->causes[c]);
        const char *all[12];
        for (int k = 0; k < 12; k++) all[k] = cell[k];
        all[1] = clarity_app_str(a, r->host_ids[p->host]);   /* host and executor names can be long */
        all[2] = p->exec >= 0 ? clarity_app_str(a, r->exec_ids[p->exec]) : "several";
        const char *row[12];
        for (size_t k = 0; k < nc; k++) row[k] = all[pick[part][k]];
        clarity_table_row(&t, row);
    }
    int rc = clarity_table_write(o, &t, 0, width);
    clarity_table_free(&t);
    return rc;
}

/* The verdict and the lines that qualify it (what was not checked, which reference, where the
 * cause came from, the cause weights): the answer, printed right under the header so it is the
 * first thing read; the method lines and the tables that support it follow. */
static void verdict_block(FILE *o, const struct clarity_app *a, const struct clarity_anomalies_result *r, size_t width)
{
    if (!r->detected && !r->cause_without_period && !r->cause_by_components) {
        /* No period that matters and no cause the model can stand by: nothing else. */
        fprintf(o, "verdict      normal: no abnormal period\n");
        unchecked_line(o, r, width);
        reference_line(o, r, width);
    } else {
        const struct ladra_factors *f = &r->run;
        char verdict[512], head[256];
        if (r->names_host)
            snprintf(head, sizeof head, "abnormal on %s (stage %lld), ", clarity_app_str(a, r->host_ids[f->victim]),
                     (long long)r->stages[f->stage].stage_id);
        else if (r->net.matters)   /* only the fetch-wait scan: every host's readers waited, no host to blame */
            snprintf(head, sizeof head, "abnormal: shuffle readers on %zu hosts slowed, ", r->net.hosts);
        else   /* the model's network without a period: a slow network slows every host's readers */
            snprintf(head, sizeof head, "abnormal: no host named, ");
        if (r->cause_without_period || r->cause_by_components || r->cause_by_fetch_scan)
            snprintf(verdict, sizeof verdict, "%smost likely %s", head, clarity_ladra_class_name(r->run_class));
        else if (r->model_cause_dropped != LADRA_NORMAL)   /* the line under it says why */
            snprintf(verdict, sizeof verdict, "%sno cause named", head);
        else if (r->run_likeliest == LADRA_NORMAL)
            /* never "abnormal ..., most likely normal": the periods stand, the model has no cause */
            snprintf(verdict, sizeof verdict, "%sno cause found: the root-cause model gives normal %.0f%% of its weight", head,
                     100 * r->run_y[LADRA_NORMAL]);
        else if (r->run_class != r->run_likeliest)
            snprintf(verdict, sizeof verdict, "%scause unclear: %s is likeliest with %.0f%% of the model's weight, under the %.0f%% a verdict needs",
                     head, clarity_ladra_class_name(r->run_likeliest), 100 * r->run_y[r->run_likeliest], 100 * r->min_cause);
        else
            snprintf(verdict, sizeof verdict, "%smost likely %s", head, clarity_ladra_class_name(r->run_class));
        clarity_fit_wrap(o, width, "verdict      ", verdict);
        unchecked_line(o, r, width);
        reference_line(o, r, width);
        if (r->cause_by_fetch_scan)
            clarity_fit_wrapf(o, width, "             ", "cause from the fetch-wait scan, not the root-cause model: %zu "
                              "readers on %zu hosts waited x%.2f per remote MB over %s, %.1f s beyond their rate",
                              r->net.tasks, r->net.hosts, r->net.slowdown,
                              r->net.by_reference ? "the reference run's readers of the same stages" : "the run's unimpeded readers",
                              r->net.excess_ms / 1000);
        if (r->cause_without_period) {
            /* the model's judgement, not a period: say what it rests on */
            double vms = victim_ms(r, (size_t)f->victim), run_ms = 0;
            for (size_t j = 0; j < r->in.nhosts; j++) run_ms += r->hosts[j].task_ms;
            char why[400];
            bool net = r->run_class == LADRA_NETWORK;
            snprintf(why, sizeof why, "no single period stands out: the root-cause model sees %s slowed over the run "
                     "(%s%s%s lost %.1f s %s, %.1f%% of the run's task time; the run lies %.2f "
                     "kernel widths from the model's nearest training run, within its %.2f)",
                     net ? "the network" : "the host", net ? "the most slowed host, " : "",
                     clarity_app_str(a, r->host_ids[f->victim]), net ? "," : "", vms / 1000,
                     r->victim_by_slowdown ? "against the other hosts' tasks" : "beyond its stages' medians",
                     run_ms > 0 ? 100 * vms / run_ms : 0, r->model_distance,
                     r->max_model_distance);
            clarity_fit_wrap(o, width, "             ", why);
        }
        if (r->cause_by_components || r->model_cause_dropped != LADRA_NORMAL) components_line(o, a, r, width);
        fprintf(o, "            ");
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
}

int clarity_report_anomalies_text(FILE *o, const struct clarity_app *a, const struct clarity_anomalies_result *r,
                          const struct clarity_logs *logs, size_t limit, size_t width, struct clarity_error *err)
{
    const struct ladra_input *in = &r->in;
    clarity_fit_line(o, width, "application  %s  \"%s\"", clarity_app_str(a, a->app_id), clarity_app_str(a, a->name));
    clarity_fit_line(o, width, "source       %s", a->source_path);
    verdict_block(o, a, r, width);
    fputc('\n', o);
    bool ext = r->method == LADRA_METHOD_GRNN && r->features == LADRA_FEATURES_EXTENDED;
    char grnn[96];
    snprintf(grnn, sizeof grnn, "GRNN on the paper's %d factors + %d event-log features (z-scored)", LADRA_NFACTOR,
             ladra_nfeat_mode(r->eventlog_only) - LADRA_NFACTOR);
    clarity_fit_wrapf(o, width, "mode         ", "%s; root cause by %s%s",
            r->eventlog_only ? "event log only (DCO, MCS, DMC approximated from task metrics)"
                             : "event log + GC logs",
            r->method != LADRA_METHOD_GRNN ? "weighted rules (paper Eq. 11-12)"
            : ext ? grnn
                  : "GRNN on the paper's 7 factors (raw)",
            r->method == LADRA_METHOD_GRNN && r->softmax ? ", softmax" : "");
    if (r->eventlog_only) glossary_line(o, width, "             ");
    clarity_fit_wrapf(o, width, "tasks        ", "%zu successful attempts in %zu stage attempts on %zu hosts (%zu other attempts left out)",
            in->ntasks, in->nstages, in->nhosts, r->tasks_skipped);
    size_t raw = 0, sm = 0, skew = 0, spec = 0;
    for (size_t i = 0; i < in->ntasks; i++)
        raw += in->tasks[i].raw, sm += in->tasks[i].smooth && !in->tasks[i].skew_suspect,
            skew += in->tasks[i].skew_suspect, spec += in->tasks[i].speculation;
    char matter[48] = ", all shown (--all-periods)";
    if (!r->rule.all_periods) snprintf(matter, sizeof matter, ", %zu that matter%s", r->nmatter, r->nmatter == 1 ? "s" : "");
    clarity_fit_wrapf(o, width, "detection    ", "%zu above mean + 1.5 sd of their stage and set, %zu after width-5 smoothing, "
                      "%zu left out as data skew; %zu period(s)%s", raw, sm, skew, r->nperiods, matter);
    if (!r->rule.all_periods) {
        char ex[32];
        /* the rule, so a reader knows what "matters" means and how to see the rest */
        clarity_fit_wrapf(o, width, "matters      ", "time beyond the stage median >= %s and >= %.3g%% of the stage's task time, on a "
                   "host with %d+ tasks in it, not every host of the stage (--all-periods: every period)",
                clarity_fmt_ms(ex, sizeof ex, (int64_t)r->rule.min_excess_ms), 100 * r->rule.min_share, LADRA_MIN_HOST_TASKS);
    }
    {
        size_t slow = 0;
        for (size_t i = 0; i < r->nhost_periods; i++) slow += r->host_periods[i].matters;
        /* the cross-stage scan and its rule, so "abnormal" without a period can be read */
        clarity_fit_wrapf(o, width, "cross-stage  ", "%zu host(s) slower than the other hosts' tasks of the same stages over a "
                          "stretch of tasks (>= 3 hosts a stage, >= %d tasks, z >= %.3g, >= %.3g%% of the run's task time)",
                          slow, LADRA_HOST_MIN_TASKS, LADRA_HOST_MIN_Z, 100 * LADRA_HOST_MIN_SHARE);
    }
    /* the fetch-wait scan and its rule: a slow network slows every host's readers alike */
    clarity_fit_wrapf(o, width, "fetch wait   ", "%s (%d+ readers of 1 MB+ of remote blocks on %d+ hosts waiting "
                      "x%.3g+ per remote MB over the run's 25th percentile, costing %.3g%%+ of the run's task time)",
                      r->net.matters ? "shuffle readers slowed over a stretch" : "no stretch of slow shuffle readers",
                      LADRA_NET_MIN_TASKS, LADRA_NET_MIN_HOSTS, LADRA_NET_MIN_SLOWDOWN, 100 * LADRA_NET_MIN_SHARE);
    clarity_fit_wrapf(o, width, "speculation  ", "Spark's rule (1.5 x median after 75%% done) flags %zu task(s)%s", spec,
            r->speculation_detected ? "" : ": run looks normal to it");
    if (logs)
        clarity_fit_wrapf(o, width, "logs         ", "%llu files, %llu lines: %llu log4j (%llu used), %llu GC records (%llu joined to hosts, "
                   "%llu not), %llu YARN header lines; task ids in logs: %llu in the event log, %llu not",
                (unsigned long long)logs->files, (unsigned long long)logs->lines, (unsigned long long)logs->l4j_lines,
                (unsigned long long)logs->l4j_used, (unsigned long long)logs->gc_records,
                (unsigned long long)r->gc_joined, (unsigned long long)r->gc_unjoined,
                (unsigned long long)logs->yarn_headers, (unsigned long long)r->log_tids_joined,
                (unsigned long long)r->log_tids_unjoined);

    if (r->nmatter) {
        fprintf(o, "\nabnormal periods (where and when)\n");
        /* one table when it fits; else where and when, then the causes, numbered alike */
        char *one = NULL;
        size_t len = 0, widest = 0;
        FILE *m = width ? open_memstream(&one, &len) : NULL;
        int trc = periods_table(m ? m : o, a, r, limit, width, 0);
        if (m) {
            fclose(m);
            for (const char *l = one; l && *l;) {
                size_t n = strcspn(l, "\n");
                if (n > widest) widest = n;
                l += n + (l[n] == '\n');
            }
            if (!trc && widest <= width) fputs(one, o);
            else if (!trc) {
                trc = periods_table(o, a, r, limit, width, 1);
                fprintf(o, "\nlikely causes of each period\n");
                trc = trc ? trc : periods_table(o, a, r, limit, width, 2);
            }
            free(one);
        }
        if (trc) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the report");
        size_t shown = limit && limit < r->nmatter ? limit : r->nmatter;
        if (shown < r->nmatter) fprintf(o, "(%zu more; --limit 0 shows all)\n", r->nmatter - shown);
    }

    if (r->nhost_matter) {
        fprintf(o, "\nhosts slowed across stages (where and when)\n");
        static const struct table_col hc[] = {{"host", TCOL_HOST}, {"start (UTC)", TCOL_FIXED}, {"duration", TCOL_NUM},
                                              {"tasks", TCOL_NUM}, {"stages", TCOL_NUM}, {"slowdown", TCOL_NUM},
                                              {"excess", TCOL_NUM}, {"z", TCOL_NUM}};
        struct table t;
        clarity_table_init(&t, hc, 8);
        for (size_t i = 0; i < r->nhost_periods; i++) {
            const struct ladra_host_period *p = &r->host_periods[i];
            if (!p->matters) continue;
            char c[8][48];
            clarity_fmt_time(c[1], sizeof c[1], p->start_ms);
            clarity_fmt_ms(c[2], sizeof c[2], span_ms(p->start_ms, p->end_ms));
            snprintf(c[3], sizeof c[3], "%zu", p->tasks);
            snprintf(c[4], sizeof c[4], "%zu", p->stage_runs);
            snprintf(c[5], sizeof c[5], "x%.2f", p->slowdown);
            clarity_fmt_ms(c[6], sizeof c[6], (int64_t)p->excess_ms);
            snprintf(c[7], sizeof c[7], "%.1f", p->z);
            const char *row[8] = {clarity_app_str(a, r->host_ids[p->host]), c[1], c[2], c[3], c[4], c[5], c[6], c[7]};
            clarity_table_row(&t, row);
        }
        int trc = clarity_table_write(o, &t, 0, width);
        clarity_table_free(&t);
        if (trc) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the report");
        clarity_fit_wrap(o, width, "", "(stages: runs of the same stage along the stretch; slowdown: geometric mean against the "
                                       "other hosts' typical task of the same stage; excess: time beyond it)");
    }

    if (r->net.matters) {
        const struct ladra_net_period *p = &r->net;
        char st[48], du[48], ex[48];
        clarity_fmt_time(st, sizeof st, p->start_ms);
        clarity_fmt_ms(du, sizeof du, span_ms(p->start_ms, p->end_ms));
        clarity_fmt_ms(ex, sizeof ex, (int64_t)p->excess_ms);
        fprintf(o, "\nshuffle readers slowed (when)\n");
        clarity_fit_wrapf(o, width, "", "from %s for %s: %zu readers on %zu hosts waited x%.2f per remote MB over the "
                          "%s (%.3g ms/MB), %s of fetch wait beyond it; the event log does not say which host served the "
                          "blocks", st, du, p->tasks, p->hosts, p->slowdown,
                          p->by_reference ? "reference run's readers of the same stages" : "application's unimpeded readers",
                          p->ref_ms_per_mb, ex);
    }

    /* the factors explain a verdict: a run with no period that matters has none to explain */
    if (r->detected || r->cause_without_period) factors_block(o, a, r, width);

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
            clarity_fit_line(o, width, "  %8llu  %s", (unsigned long long)logs->unknown[best].count, logs->unknown[best].key);
        }
        free(done);
    }
    return clarity_report_status(o, err);
}
