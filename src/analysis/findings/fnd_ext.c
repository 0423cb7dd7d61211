/* The findings of two other analyses, through their public APIs, in their own words:
 *   anomaly     LADRA (`clarity anomalies`): the run's verdict when it has an abnormal period
 *               that matters: the victim host, its stage and the likeliest root cause;
 *   contention  iQCAR (`clarity contention`): the query whose tasks slowed the application's
 *               other concurrent queries most (the first of its "aggressive queries").
 * Each runs only when the options carry its inputs (docs/findings.md: when the CLI asks). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/findings/fnd_internal.h"

/* ---- anomaly ---- */

/* The median runtime of a stage attempt's successful attempts in the replay (0 without). */
static double stage_median(struct fnd *x, size_t s)
{
    uint32_t n = x->lsucc[s];
    if (!n) return 0;
    double *v = malloc(n * sizeof *v);
    if (!v) { x->oom = 1; return 0; }
    memcpy(v, x->rt + x->lstart[s], n * sizeof *v);
    for (uint32_t i = 1; i < n; i++)   /* a stage's tasks: insertion sort is enough for a median */
        for (uint32_t k = i; k > 0 && v[k - 1] > v[k]; k--) { double t = v[k]; v[k] = v[k - 1]; v[k - 1] = t; }
    double m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    free(v);
    return m;
}

/* Every successful attempt of stage row s on host hid launched in [from, to] at most the
   stage's median (LADRA's abnormal tasks with their cause removed). Returns how many. */
static size_t at_median(struct fnd *x, size_t s, uint32_t hid, int64_t from, int64_t to)
{
    const struct clarity_app *a = x->a;
    double med = -1;
    size_t n = 0;
    for (uint32_t i = x->lstart[s]; i < x->lstart[s] + x->lsucc[s]; i++) {
        size_t row = x->row[i];
        int64_t t = clarity_task_launch_ms(a, row);
        if ((uint32_t)clarity_task_get(a, &a->tasks.host, row) != hid || t < from || t > to) continue;
        if (med < 0) med = stage_median(x, s);
        if (x->rt[i] > med) {
            clarity_fnd_mod_set(x, i, med);
            n++;
        }
    }
    return n;
}

static long stage_row(const struct clarity_app *a, const struct clarity_anomalies_result *r, int32_t dense)
{
    if (dense < 0) return -1;
    const struct clarity_stage *st = clarity_app_stage(a, r->stages[dense].stage_id, r->stages[dense].attempt);
    return st ? (long)(st - a->stages) : -1;
}

/* The verdict line of `clarity anomalies` (src/report/anomalies/anomalies_text.c), word for word. */
static void verdict(const struct clarity_app *a, const struct clarity_anomalies_result *r, char *out, size_t cap)
{
    char head[256];
    if (r->names_host)
        snprintf(head, sizeof head, "abnormal on %s (stage %lld), ", clarity_app_str(a, r->host_ids[r->run.victim]),
                 (long long)r->stages[r->run.stage].stage_id);
    else snprintf(head, sizeof head, "abnormal: shuffle readers on %zu hosts slowed, ", r->net.hosts);
    if (r->cause_without_period)
        snprintf(out, cap, "%smost likely %s", head, clarity_ladra_class_name(r->run_class));
    else if (r->run_likeliest == LADRA_NORMAL)
        snprintf(out, cap, "%sno cause found: the root-cause model gives normal %.0f%% of its weight", head,
                 100 * r->run_y[LADRA_NORMAL]);
    else if (r->run_class != r->run_likeliest)
        snprintf(out, cap, "%scause unclear: %s is likeliest with %.0f%% of the model's weight, under the %.0f%% a "
                 "verdict needs", head, clarity_ladra_class_name(r->run_likeliest), 100 * r->run_y[r->run_likeliest],
                 100 * r->min_cause);
    else snprintf(out, cap, "%smost likely %s", head, clarity_ladra_class_name(r->run_class));
}

static const char *cause_action(int c)
{
    switch (c) {
    case LADRA_CPU: return "Another process took the host's CPU while the tasks ran: find what else ran there "
                           "(co-located jobs, a noisy neighbour) and move it, or drain the host; "
                           "spark.speculation=true re-runs such tasks elsewhere.";
    case LADRA_MEMORY: return "Memory pressure on the host (GC, swapping): give executors more memory or fewer "
                              "cores, or move what else used the host's memory.";
    case LADRA_NETWORK: return "The network was slow for the period: check the host's NIC and switch, and what "
                               "else moved data at that time.";
    case LADRA_DISK: return "The host's disks were slow or shared: check them (failing disk, another process "
                            "writing), or point spark.local.dir at other disks.";
    default: return "Read the host's executor and GC logs for the period (clarity anomalies --executor-logs "
                    "--gc-logs gives the model more to go on).";
    }
}

static void anomaly_rule(struct fnd *x, const struct clarity_anomalies_options *o)
{
    const struct clarity_app *a = x->a;
    struct clarity_anomalies_result r;
    struct clarity_error err = {0};
    if (clarity_anomalies_analyze(a, o, &r, &err)) {
        x->oom = 1;   /* its only failure is out of memory */
        return;
    }
    /* a finding needs what the user can act on: a period that matters and a named cause
       ("most likely cpu"); "no cause found" and "cause unclear" verdicts stay in `clarity
       anomalies` (on synth TPC-DS mixes without any fault LADRA finds such periods) */
    if ((!r.detected && !r.cause_without_period) || r.run_class == LADRA_NORMAL) goto out;
    /* the saving: the tasks of the periods that matter at their stage's median (per-stage
       periods, then the host scan's stretches); a fetch-wait period names no host: its
       excess wait, LADRA's own figure, removed from the run's tasks is all that is known */
    double excess = 0;
    size_t tasks = 0;
    for (size_t i = 0; i < r.nperiods; i++) {
        const struct ladra_period *p = &r.periods[i];
        if (!p->matters || p->host < 0) continue;
        long s = stage_row(a, &r, p->stage);
        if (s < 0) continue;
        tasks += at_median(x, (size_t)s, r.host_ids[p->host], p->start_ms, p->end_ms);
        excess += p->excess_ms;
    }
    for (size_t i = 0; i < r.nhost_periods; i++) {
        const struct ladra_host_period *p = &r.host_periods[i];
        if (!p->matters || p->host < 0) continue;
        for (size_t s = 0; s < a->nstages && !x->oom; s++)
            tasks += at_median(x, s, r.host_ids[p->host], p->start_ms, p->end_ms);
        excess += p->excess_ms;
    }
    if (x->oom) goto out;
    double sim = 0;
    if (tasks) sim = clarity_fnd_mod_end(x, 0, -1);
    else clarity_fnd_mod_cancel(x);
    int64_t saving;
    if (sim > 0) saving = clarity_fnd_wall(x, sim);
    else if (!tasks && r.net.matters && x->slots > 0)
        saving = (int64_t)(r.net.excess_ms / (double)x->slots);   /* spread over the slots: an estimate */
    else saving = 0;
    struct clarity_finding *f = clarity_fnd_add(x, CLARITY_FK_ANOMALY);
    if (!f) goto out;
    char v[512];
    verdict(a, &r, v, sizeof v);
    snprintf(f->title, sizeof f->title, "Anomaly (LADRA): %.180s", v);
    if (r.names_host) {
        f->where |= CLARITY_FW_HOST;
        snprintf(f->host, sizeof f->host, "%s", clarity_app_str(a, r.host_ids[r.run.victim]));
        long s = stage_row(a, &r, r.run.stage);
        if (s >= 0) clarity_fnd_where_stage(x, f, (size_t)s);
    }
    f->saving_ms = saving;
    f->method = CLARITY_FM_ESTIMATE;
    f->confidence = r.run_class != LADRA_NORMAL && r.run_class == r.run_likeliest ? CLARITY_FC_MEDIUM : CLARITY_FC_LOW;
    clarity_fnd_ev(f, "periods", (double)(r.nmatter + r.nhost_matter + (r.net.matters ? 1 : 0)), "count");
    clarity_fnd_ev(f, "excess_ms", excess > 0 ? excess : r.net.excess_ms, "ms");
    clarity_fnd_ev(f, "tasks_at_median", (double)tasks, "tasks");
    if (r.run_likeliest >= 0 && r.run_likeliest < LADRA_NCLASS)
        clarity_fnd_ev(f, "cause_weight", r.run_y[r.run_likeliest], "share");
    snprintf(f->caveat, sizeof f->caveat, "estimate: the abnormal periods' tasks replayed at their stage's median "
             "time (LADRA's periods are smoothed, so a few normal slow tasks count); %s%s",
             r.eventlog_only ? "factors from the event log alone" : "factors from the executor and GC logs",
             r.method == LADRA_METHOD_RULES ? "; cause by LADRA's weighted rules (no GRNN model found)" : "");
    clarity_fnd_action(x, f, NULL, NULL, NULL, "%s", cause_action(r.run_class));
out:
    clarity_anomalies_free(&r);
}

/* ---- contention ---- */

/* An aggressive query is worth a finding when iQCAR can name it: not a close call with the
   second (iQCAR's own IQ_AGG_CLOSE rule), and it took part of at least one other query's
   runtime. The saving is the victims' runtime attributed to it (DOR x runtime), which is not
   wall time of the application (victims overlap): an estimate, capped by the duration. */
#define CONT_MIN_SHARE 0.30
static void contention_rule(struct fnd *x, const struct iqcar_options *o)
{
    const struct clarity_app *a = x->a;
    struct iqcar_result r;
    struct clarity_error err = {0};
    const struct clarity_app *apps[1] = {a};
    if (clarity_iqcar_analyze(apps, 1, o, &r, &err)) {
        x->oom = 1;
        clarity_iqcar_result_free(&r);
        return;
    }
    /* SQL queries only: concurrent queries are independent clients (a Thrift server, a mix)
       whose weight on each other can be moved (a pool, another time); an application's plain
       jobs are steps of one program (the shared LargeBlocks log: job 2 waited for job 1's
       slot, and no scheduling makes the two finish sooner) */
    if (r.unit_kind != IQ_UNIT_SQL || !r.naggressive_rank || r.aggressive_close || r.nunits < 2) goto out;
    const struct iqcar_ranked *ag = &r.aggressive_rank[0];
    double ms = o->aggressive_by_dor ? ag->aux : ag->dor, dor = o->aggressive_by_dor ? ag->dor : ag->aux;
    if (!(ms > 0)) goto out;
    size_t s = ag->node, nv = 0;
    /* its victims as `clarity contention` lists them: in the victim answer's order */
    struct iqcar_victim_dor *v;
    double victim_ms;
    if (clarity_fnd_victims(&r, s, &v, &nv, &victim_ms) != 0) {
        x->oom = 1;
        goto out;
    }
    /* an aggressive query matters when it took CONT_MIN_SHARE of its victims' runtime: the
       heaviest query of a mix always takes some (docs/findings.md has the runs) */
    if (!(victim_ms > 0) || ms < CONT_MIN_SHARE * victim_ms) {
        free(v);
        goto out;
    }
    char victims[160] = "";
    size_t len = 0;
    for (size_t j = 0; j < nv && j < 3 && len < sizeof victims; j++)
        len += (size_t)snprintf(victims + len, sizeof victims - len, "%s%.40s %.3f", j ? ", " : "",
                                r.units[v[j].unit].name, v[j].dor);
    free(v);
    struct clarity_finding *f = clarity_fnd_add(x, CLARITY_FK_CONTENTION);
    if (!f) goto out;
    const char *name = r.units[s].name;
    char t[512];   /* the title cuts what does not fit */
    snprintf(t, sizeof t, "Contention (iQCAR): aggressive query %.60s: %.1f s of victim runtime attributed | total "
             "DOR %.4f; victims %.160s%s", name, ms / 1000, dor, victims, nv > 3 ? ", ..." : "");
    size_t tl = strlen(t) < sizeof f->title ? strlen(t) : sizeof f->title - 1;
    memcpy(f->title, t, tl);
    f->title[tl] = '\0';
    /* wall time: the attributed runtime spread over the queries running at once on average
       (their summed runtime over the span they cover): victims that overlap each gain, the
       application only once */
    double span;
    double conc = clarity_fnd_mean_concurrency(&r, &span);
    double wall = ms / conc;
    f->saving_ms = (int64_t)(wall < (double)x->duration_ms ? wall : (double)x->duration_ms);
    f->method = CLARITY_FM_ESTIMATE;
    f->confidence = CLARITY_FC_LOW;
    clarity_fnd_ev(f, "victim_runtime_attributed_ms", ms, "ms");
    clarity_fnd_ev(f, "total_dor", dor, "share");
    clarity_fnd_ev(f, "victims", (double)nv, "count");
    clarity_fnd_ev(f, "victims_runtime_ms", victim_ms, "ms");
    clarity_fnd_ev(f, "max_concurrency", (double)r.max_concurrency, "count");
    clarity_fnd_ev(f, "mean_concurrency", conc, "count");
    snprintf(f->caveat, sizeof f->caveat, "estimate: iQCAR's degree of responsibility x the victims' runtime, over "
             "the mean number of queries running at once; waits from %s",
             r.src.instrumented_cpu || r.src.sidecar_tasks ? "instrumented metrics" : "labelled proxies of the event log");
    clarity_fnd_action(x, f, "spark.scheduler.mode", "FIFO", "FAIR", "Run %.60s apart from the others: in its own "
                       "FAIR pool with a low weight (spark.scheduler.pool), or at another time.", name);
out:
    clarity_iqcar_result_free(&r);
}

void clarity_fnd_ext_rules(struct fnd *x, const struct clarity_findings_options *opt)
{
    if (opt->anomalies) anomaly_rule(x, opt->anomalies);
    if (!x->oom && opt->contention) contention_rule(x, opt->contention);
}
