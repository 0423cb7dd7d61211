/* clarity.anomalies/1 (docs/anomalies.md): one object per application. */
#include <math.h>
#include "clarity/report.h"
#include "util/jsonw.h"

static void causes(struct jsonw *w, const char *key, const double *p)
{
    clarity_jsonw_key(w, key);
    clarity_jsonw_obj_begin(w);
    for (int c = 0; c < LADRA_NCLASS; c++) clarity_jsonw_kdouble(w, clarity_ladra_class_name(c), p[c]);
    clarity_jsonw_obj_end(w);
}

static void factors(struct jsonw *w, const struct clarity_app *a, const struct clarity_anomalies_result *r,
                    const struct ladra_factors *f)
{
    clarity_jsonw_key(w, "factors");
    clarity_jsonw_obj_begin(w);
    for (int k = 0; k < LADRA_NFEAT; k++) clarity_jsonw_kdouble(w, clarity_ladra_factor_name(k), f->f[k]);
    clarity_jsonw_obj_end(w);
    if (r->in.nhosts && r->in.nstages) {
        clarity_jsonw_kstr(w, "victim_host", clarity_app_str(a, r->host_ids[f->victim]));
        clarity_jsonw_kint(w, "victim_stage", r->stages[f->stage].stage_id);
    } else {   /* no task attempts: no host to blame */
        clarity_jsonw_key(w, "victim_host");
        clarity_jsonw_null(w);
        clarity_jsonw_key(w, "victim_stage");
        clarity_jsonw_null(w);
    }
    clarity_jsonw_kint(w, "window_start_ms", f->win_start_ms);
    clarity_jsonw_kint(w, "window_end_ms", f->win_end_ms);
    clarity_jsonw_key(w, "approximated");
    clarity_jsonw_arr_begin(w);
    if (f->flags & LADRA_APPROX_DCO) clarity_jsonw_str(w, "DCO");
    if (f->flags & LADRA_APPROX_MCS) clarity_jsonw_str(w, "MCS");
    if (f->flags & LADRA_APPROX_DMC) clarity_jsonw_str(w, "DMC");
    clarity_jsonw_arr_end(w);
    clarity_jsonw_kbool(w, "clamped", f->flags & LADRA_CLAMPED);
}

int clarity_report_anomalies_json(struct jsonw *w, const struct clarity_app *a, const struct clarity_anomalies_result *r,
                          const struct clarity_logs *logs, struct clarity_error *err)
{
    const struct ladra_input *in = &r->in;
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "app_id", clarity_app_str(a, a->app_id));
    clarity_jsonw_kstr(w, "source", a->source_path);
    clarity_jsonw_kstr(w, "mode", r->eventlog_only ? "eventlog" : "logs");
    clarity_jsonw_kstr(w, "method", r->method == LADRA_METHOD_GRNN ? "grnn" : "rules");
    clarity_jsonw_kbool(w, "softmax", r->softmax && r->method == LADRA_METHOD_GRNN);
    /* The model's inputs: the rules always read the paper's seven factors. */
    bool ext = r->method == LADRA_METHOD_GRNN && r->features == LADRA_FEATURES_EXTENDED;
    clarity_jsonw_kstr(w, "features", ext ? "extended" : "paper");
    clarity_jsonw_key(w, "features_used");
    clarity_jsonw_arr_begin(w);
    for (int k = 0; k < (ext ? ladra_nfeat_mode(r->eventlog_only) : LADRA_NFACTOR); k++) clarity_jsonw_str(w, clarity_ladra_factor_name(k));
    clarity_jsonw_arr_end(w);
    clarity_jsonw_kint(w, "tasks", (int64_t)in->ntasks);
    clarity_jsonw_kint(w, "tasks_left_out", (int64_t)r->tasks_skipped);
    size_t raw = 0, sm = 0, skew = 0, spec = 0;
    for (size_t i = 0; i < in->ntasks; i++)
        raw += in->tasks[i].raw, sm += in->tasks[i].smooth && !in->tasks[i].skew_suspect,
            skew += in->tasks[i].skew_suspect, spec += in->tasks[i].speculation;
    clarity_jsonw_kint(w, "abnormal_raw", (int64_t)raw);
    clarity_jsonw_kint(w, "abnormal_smoothed", (int64_t)sm);
    clarity_jsonw_kint(w, "skew_suspects", (int64_t)skew);
    clarity_jsonw_kbool(w, "detected", r->detected);
    clarity_jsonw_kint(w, "periods_found", (int64_t)r->nperiods);   /* LADRA's, before the rule below */
    clarity_jsonw_key(w, "period_rule");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kbool(w, "all_periods", r->rule.all_periods);
    clarity_jsonw_kdouble(w, "min_share", r->rule.min_share);
    clarity_jsonw_kdouble(w, "min_excess_ms", r->rule.min_excess_ms);
    clarity_jsonw_kint(w, "min_host_tasks", LADRA_MIN_HOST_TASKS);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "speculation");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "tasks", (int64_t)spec);
    clarity_jsonw_kbool(w, "detected", r->speculation_detected);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "run");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "class", clarity_ladra_class_name(r->run_class));
    clarity_jsonw_kstr(w, "likeliest", clarity_ladra_class_name(r->run_likeliest));
    clarity_jsonw_kstr(w, "model_class", clarity_ladra_class_name(r->model_class));
    clarity_jsonw_kbool(w, "cause_without_period", r->cause_without_period);
    if (r->victim_by_slowdown) {   /* more than 4 hosts: who answered (docs/anomalies.md) */
        clarity_jsonw_key(w, "cause_from");
        if (r->run_class == LADRA_NORMAL) clarity_jsonw_null(w);
        else clarity_jsonw_str(w, r->cause_by_components ? "components" : r->cause_by_fetch_scan ? "fetch_scan" : "model");
        clarity_jsonw_key(w, "model_cause_dropped");
        if (r->model_cause_dropped == LADRA_NORMAL) clarity_jsonw_null(w);
        else clarity_jsonw_str(w, clarity_ladra_class_name(r->model_cause_dropped));
    }
    /* the fetch-wait scan's blind spot (lad29): null, or the readers that ran in one wave whose
     * fetch wait it could not check (docs/anomalies.md, JSON) */
    clarity_jsonw_key(w, "network_unchecked");
    if (!r->net.unchecked) clarity_jsonw_null(w);
    else {
        const struct ladra_net_period *p = &r->net;
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "readers_at_once", (int64_t)p->wave_readers);
        clarity_jsonw_kint(w, "readers", (int64_t)p->readers);
        clarity_jsonw_kint(w, "at_ms", p->wave_at_ms);
        clarity_jsonw_kdouble(w, "fetch_wait_ms", p->wave_fetch_ms);
        clarity_jsonw_kdouble(w, "run_task_ms", p->run_task_ms);
        clarity_jsonw_key(w, "stages");
        clarity_jsonw_arr_begin(w);
        size_t kept = p->wave_nstages < LADRA_NET_WAVE_STAGES ? p->wave_nstages : LADRA_NET_WAVE_STAGES;
        for (size_t k = 0; k < kept; k++) {
            clarity_jsonw_obj_begin(w);
            clarity_jsonw_kint(w, "stage", r->stages[p->wave_stages[k]].stage_id);
            clarity_jsonw_kint(w, "attempt", r->stages[p->wave_stages[k]].attempt);
            clarity_jsonw_obj_end(w);
        }
        clarity_jsonw_arr_end(w);
        clarity_jsonw_kint(w, "stages_total", (int64_t)p->wave_nstages);
        clarity_jsonw_obj_end(w);
    }
    /* --reference only (lad30; absent without it, so the output is unchanged): the fetch-wait
     * scan's reference ("in-run", or the reference run as named on the command line) and how
     * many of this run's shuffle-read stages matched one of the reference run's */
    if (r->net_reference_name) {
        clarity_jsonw_kstr(w, "network_reference", r->net.by_reference ? r->net_reference_name : "in-run");
        clarity_jsonw_key(w, "network_reference_stages");
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "read", (int64_t)r->net_ref_read_stages);
        clarity_jsonw_kint(w, "matched", (int64_t)r->net_ref_matched);
        clarity_jsonw_kint(w, "readers_compared", (int64_t)r->net.ref_readers);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_key(w, "verdict_host");   /* the host the verdict names; null: none (normal, or a slow network) */
    if (r->names_host) clarity_jsonw_str(w, clarity_app_str(a, r->host_ids[r->run.victim]));
    else clarity_jsonw_null(w);
    clarity_jsonw_key(w, "model_distance");   /* null without a GRNN */
    if (isfinite(r->model_distance)) clarity_jsonw_double(w, r->model_distance);
    else clarity_jsonw_null(w);
    clarity_jsonw_kbool(w, "in_domain", r->in_domain);
    clarity_jsonw_kdouble(w, "max_model_distance", r->max_model_distance);   /* the domain bound of this mode */
    clarity_jsonw_kdouble(w, "min_cause", r->min_cause);
    causes(w, "causes", r->run_p);
    causes(w, "y", r->run_y);
    if (r->victim_by_slowdown) {
        static const char *const comp[LADRA_NCOMP] = {"time", "cpu", "gc", "fetch", "write", "gc_sys",
                                                           "gc_stretch", "read", "cpu_conc"};
        clarity_jsonw_key(w, "victim_components");
        clarity_jsonw_obj_begin(w);
        for (int c = 0; c < LADRA_NCOMP; c++) clarity_jsonw_kdouble(w, comp[c], r->victim_comp[c]);
        clarity_jsonw_kdouble(w, "lost_ms", r->hosts[r->run.victim].lost_ms);
        clarity_jsonw_obj_end(w);
    }
    factors(w, a, r, &r->run);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "periods");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nperiods; i++) {
        const struct ladra_period *p = &r->periods[i];
        if (!p->matters) continue;
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "host", clarity_app_str(a, r->host_ids[p->host]));
        if (p->exec >= 0) clarity_jsonw_kstr(w, "executor", clarity_app_str(a, r->exec_ids[p->exec]));
        else {
            clarity_jsonw_key(w, "executor");
            clarity_jsonw_null(w);
        }
        clarity_jsonw_kint(w, "stage", r->stages[p->stage].stage_id);
        clarity_jsonw_kint(w, "stage_attempt", r->stages[p->stage].attempt);
        clarity_jsonw_kint(w, "start_ms", p->start_ms);
        clarity_jsonw_kint(w, "end_ms", p->end_ms);
        clarity_jsonw_kint(w, "tasks", (int64_t)p->tasks);
        clarity_jsonw_kdouble(w, "excess_ms", p->excess_ms);
        clarity_jsonw_kdouble(w, "stage_median_ms", p->stage_median_ms);
        clarity_jsonw_kdouble(w, "stage_task_ms", p->stage_task_ms);
        clarity_jsonw_kint(w, "host_set_tasks", p->host_set_tasks);
        clarity_jsonw_kint(w, "stage_hosts", p->stage_hosts);
        clarity_jsonw_kint(w, "stage_hosts_with_period", p->stage_hosts_with_period);
        causes(w, "causes", p->causes);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    /* the cross-stage scan: each host's strongest stretch, whether it matters or not (those
     * that matter make the run abnormal as a period does) */
    clarity_jsonw_key(w, "host_scan");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nhost_periods; i++) {
        const struct ladra_host_period *p = &r->host_periods[i];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "host", clarity_app_str(a, r->host_ids[p->host]));
        clarity_jsonw_kbool(w, "matters", p->matters);
        clarity_jsonw_kint(w, "start_ms", p->start_ms);
        clarity_jsonw_kint(w, "end_ms", p->end_ms);
        clarity_jsonw_kint(w, "tasks", (int64_t)p->tasks);
        clarity_jsonw_kint(w, "stage_runs", (int64_t)p->stage_runs);
        clarity_jsonw_kdouble(w, "z", p->z);
        clarity_jsonw_kdouble(w, "slowdown", p->slowdown);
        clarity_jsonw_kdouble(w, "excess_ms", p->excess_ms);
        clarity_jsonw_kdouble(w, "run_task_ms", p->run_task_ms);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    /* the fetch-wait scan: the strongest stretch of slow readers (null when the application
     * has too few readers or none waited beyond the reference); it names no host */
    clarity_jsonw_key(w, "fetch_scan");
    if (!r->net.found) clarity_jsonw_null(w);
    else {
        const struct ladra_net_period *p = &r->net;
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kbool(w, "matters", p->matters);
        clarity_jsonw_kint(w, "start_ms", p->start_ms);
        clarity_jsonw_kint(w, "end_ms", p->end_ms);
        clarity_jsonw_kint(w, "tasks", (int64_t)p->tasks);
        clarity_jsonw_kint(w, "hosts", (int64_t)p->hosts);
        clarity_jsonw_kint(w, "stage_runs", (int64_t)p->stage_runs);
        clarity_jsonw_kint(w, "readers", (int64_t)p->readers);
        clarity_jsonw_kdouble(w, "ref_ms_per_mb", p->ref_ms_per_mb);
        clarity_jsonw_kdouble(w, "slowdown", p->slowdown);
        clarity_jsonw_kdouble(w, "excess_ms", p->excess_ms);
        clarity_jsonw_kdouble(w, "run_task_ms", p->run_task_ms);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_key(w, "hosts");
    clarity_jsonw_arr_begin(w);
    for (size_t j = 0; j < in->nhosts; j++) {
        const struct clarity_anomalies_host *h = &r->hosts[j];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "host", clarity_app_str(a, h->host));
        clarity_jsonw_kint(w, "tasks", (int64_t)h->tasks);
        clarity_jsonw_kint(w, "abnormal_raw", (int64_t)h->raw);
        clarity_jsonw_kint(w, "abnormal_smoothed", (int64_t)h->smooth);
        clarity_jsonw_kint(w, "speculation", (int64_t)h->speculation);
        clarity_jsonw_kdouble(w, "excess_ms", h->excess_ms);
        clarity_jsonw_kdouble(w, "task_ms", h->task_ms);
        if (h->has_periods) {
            causes(w, "causes", h->p);
            factors(w, a, r, &h->factors);
            clarity_jsonw_key(w, "rules");
            clarity_jsonw_obj_begin(w);
            static const char *const k[4] = {"cpu", "memory", "network", "disk"};
            for (int c = 0; c < 4; c++) clarity_jsonw_kdouble(w, k[c], h->rule_prob[c]);
            clarity_jsonw_obj_end(w);
        }
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    if (logs) {
        clarity_jsonw_key(w, "logs");
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "files", (int64_t)logs->files);
        clarity_jsonw_kint(w, "lines", (int64_t)logs->lines);
        clarity_jsonw_kint(w, "log4j_lines", (int64_t)logs->l4j_lines);
        clarity_jsonw_kint(w, "log4j_used", (int64_t)logs->l4j_used);
        clarity_jsonw_kint(w, "json_lines", (int64_t)logs->json_lines);
        clarity_jsonw_kint(w, "gc_records", (int64_t)logs->gc_records);
        clarity_jsonw_kint(w, "gc_joined", (int64_t)r->gc_joined);
        clarity_jsonw_kint(w, "gc_unjoined", (int64_t)r->gc_unjoined);
        clarity_jsonw_kint(w, "yarn_header_lines", (int64_t)logs->yarn_headers);
        clarity_jsonw_kint(w, "task_ids_joined", (int64_t)r->log_tids_joined);
        clarity_jsonw_kint(w, "task_ids_unjoined", (int64_t)r->log_tids_unjoined);
        clarity_jsonw_key(w, "not_understood");
        clarity_jsonw_obj_begin(w);
        for (size_t i = 0; i < logs->nunknown; i++) clarity_jsonw_kint(w, logs->unknown[i].key, (int64_t)logs->unknown[i].count);
        clarity_jsonw_obj_end(w);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_obj_end(w);
    return clarity_report_status(w->out, err);
}
