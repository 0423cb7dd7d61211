/* clarity.contention/1 (docs/contention.md): per target the explanations per level with
 * their DOR, noisy queries beside the simple-overlap baseline; aggressive (by total DOR, and
 * by the victims' runtime attributed), victims, slow hosts, hot resources and the rules. */
#include "clarity/report.h"
#include "util/jsonw.h"

static const char *const level_key[7] = {"target", "stage", "IE", "DE", "BE", "source_stage", "source_query"};

static void unit_ranked(struct jsonw *w, const struct iqcar_result *r, const char *key, const struct iqcar_ranked *v,
                        size_t n, const char *val)
{
    clarity_jsonw_key(w, key);
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "query", r->units[v[i].node].name);
        clarity_jsonw_kdouble(w, val, v[i].dor);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
}

static void target_json(struct jsonw *w, const struct iqcar_result *r, size_t t)
{
    const struct iqcar_target_answer *a = &r->targets[t];
    char buf[512];
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "target", r->units[t].name);
    clarity_jsonw_kint(w, "start_ms", r->units[t].start);
    clarity_jsonw_kint(w, "end_ms", r->units[t].end);
    clarity_jsonw_kdouble(w, "dor_from_others", a->dor_others);
    clarity_jsonw_key(w, "explanations");
    clarity_jsonw_arr_begin(w);
    for (int l = 2; l <= 6; l++)
        for (size_t i = 0; i < a->ntop[l]; i++) {
            const struct iqcar_node *n = &r->g.nodes[a->top[l][i].node];
            clarity_jsonw_obj_begin(w);
            clarity_jsonw_kint(w, "level", l);
            clarity_jsonw_kstr(w, "type", level_key[l]);
            clarity_jsonw_kstr(w, "node", clarity_iqcar_node_label(r, a->top[l][i].node, buf, sizeof buf));
            clarity_jsonw_kint(w, "id", a->top[l][i].node);
            if (l == 2) clarity_jsonw_kstr(w, "resource", clarity_iqcar_res_name(n->b));
            if (l == 3) {
                clarity_jsonw_kstr(w, "subtype", clarity_iqcar_sub_name(n->b));
                clarity_jsonw_kstr(w, "host", r->hosts[n->c]);
            }
            if (l == 2 || l == 3) clarity_jsonw_kstr(w, "t_stage", r->stages[n->a].name);
            clarity_jsonw_kdouble(w, "vc", n->vc);
            clarity_jsonw_kdouble(w, "dor", a->top[l][i].dor);
            clarity_jsonw_obj_end(w);
        }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "noisy");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < a->nnoisy; i++) {
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "query", r->units[r->g.nodes[a->noisy[i].node].a].name);
        clarity_jsonw_kdouble(w, "dor", a->noisy[i].dor);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    unit_ranked(w, r, "simple_overlap", a->overlap, a->noverlap, "share");
    /* [replay]: how much sooner this query ends in the workload replay without each source */
    clarity_jsonw_key(w, "replay");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < a->nreplay; i++) {
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "query", r->units[a->replay[i].node].name);
        clarity_jsonw_kdouble(w, "saved_ms", a->replay[i].dor);
        clarity_jsonw_kdouble(w, "share", a->replay[i].aux);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "paths");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < a->npaths; i++) {
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "source", r->units[r->g.nodes[a->paths[i].node].c].name);
        clarity_jsonw_kstr(w, "via", clarity_iqcar_node_label(r, a->paths[i].node, buf, sizeof buf));
        clarity_jsonw_kdouble(w, "weight", a->paths[i].dor);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
}

static void rules_json(struct jsonw *w, const struct iqcar_result *r)
{
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nrules; i++) {
        const struct iqcar_rule *x = &r->rules[i];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "id", x->id);
        clarity_jsonw_kstr(w, "rule-type", x->type);
        clarity_jsonw_kstr(w, "query-id", r->units[x->unit].name);
        clarity_jsonw_kstr(w, "query-type", x->qtype);
        clarity_jsonw_kdouble(w, "rule-value", x->value);
        clarity_jsonw_kint(w, "rule-order", x->order);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
}

int clarity_report_contention_rules(FILE *o, const struct iqcar_result *r, struct clarity_error *err)
{
    struct jsonw w;
    clarity_jsonw_init(&w, o, true);
    rules_json(&w, r);
    clarity_jsonw_end(&w);
    return clarity_report_status(o, err);
}

int clarity_report_contention_json(struct jsonw *w, const struct iqcar_result *r, const long *targets, size_t ntargets,
                           struct clarity_error *err)
{
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "schema", "clarity.contention/1");
    clarity_jsonw_kstr(w, "unit", clarity_iqcar_unit_name(r->unit_kind));
    clarity_jsonw_key(w, "applications");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < r->napps; i++) clarity_jsonw_str(w, r->apps[i]);
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "inputs");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "tasks", (int64_t)r->src.tasks);
    clarity_jsonw_kint(w, "hosts", (int64_t)r->nhosts);
    clarity_jsonw_kint(w, "units", (int64_t)r->nunits);
    clarity_jsonw_kint(w, "overlapping_pairs", (int64_t)r->overlap_pairs);
    clarity_jsonw_kstr(w, "slots_offered", r->src.instrumented_slots == r->src.tasks && r->src.tasks ? "instrumented" : "proxy");
    clarity_jsonw_kstr(w, "cpu_wait", r->src.instrumented_cpu ? "instrumented" : "proxy");
    clarity_jsonw_kstr(w, "memory_wait", r->src.instrumented_mem ? "instrumented" : "absent");
    clarity_jsonw_kstr(w, "io_read_wait", r->src.scan_time ? "scan_time" : "absent");
    clarity_jsonw_kint(w, "sidecar_tasks", (int64_t)r->src.sidecar_tasks);
    clarity_jsonw_kstr(w, "level1_stages", r->opt.critical_path ? "critical_path" : "all");
    clarity_jsonw_kstr(w, "slot_blame", r->opt.slot_blame_wait ? "wait" : "held");
    static const char *const method[] = {"replay", "time", "dor"};
    clarity_jsonw_kstr(w, "aggressive_rank", method[r->aggressive_method]);
    clarity_jsonw_key(w, "replay");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kbool(w, "ran", r->replay.ran);
    if (!r->replay.ran) clarity_jsonw_kstr(w, "why", r->replay.why ? r->replay.why : "");
    clarity_jsonw_kint(w, "slots", r->replay.slots);
    clarity_jsonw_kstr(w, "scheduler", r->replay.fair ? "FAIR" : "FIFO");
    clarity_jsonw_kint(w, "candidates", (int64_t)r->replay.candidates);
    clarity_jsonw_kbool(w, "budget_cut", r->replay.budget_cut);
    clarity_jsonw_kdouble(w, "fidelity_median", r->replay.fidelity);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "targets");
    clarity_jsonw_arr_begin(w);
    if (targets)
        for (size_t i = 0; i < ntargets; i++) target_json(w, r, (size_t)targets[i]);
    else
        for (size_t i = 0; i < r->nvictims; i++) target_json(w, r, r->victims[i].node);
    clarity_jsonw_arr_end(w);
    unit_ranked(w, r, "aggressive", r->aggressive, r->naggressive, "dor");
    /* the same queries by the victims' runtime attributed to them (ms), their total DOR beside */
    clarity_jsonw_key(w, "aggressive_time");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < r->naggressive_time; i++) {
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "query", r->units[r->aggressive_time[i].node].name);
        clarity_jsonw_kdouble(w, "lost_ms", r->aggressive_time[i].dor);
        clarity_jsonw_kdouble(w, "dor", r->aggressive_time[i].aux);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    /* [replay]: the candidates by the runtime the other queries save without each */
    clarity_jsonw_key(w, "aggressive_replay");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < r->naggressive_replay; i++) {
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "query", r->units[r->aggressive_replay[i].node].name);
        clarity_jsonw_kdouble(w, "saved_ms", r->aggressive_replay[i].dor);
        clarity_jsonw_kint(w, "faster", (int64_t)r->aggressive_replay[i].aux);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_kbool(w, "aggressive_close", r->aggressive_close);
    clarity_jsonw_key(w, "heaviest");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nheaviest; i++) {
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "query", r->units[r->heaviest[i].node].name);
        clarity_jsonw_kdouble(w, "task_ms", r->heaviest[i].dor);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    unit_ranked(w, r, "victims", r->victims, r->nvictims, "dor");
    clarity_jsonw_key(w, "slow_hosts");
    clarity_jsonw_arr_begin(w);
    for (size_t h = 0; h < r->nhosts; h++) {
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "host", r->hosts[h]);
        clarity_jsonw_kdouble(w, "if_sum", r->host_score[h].if_sum);
        clarity_jsonw_kdouble(w, "dor_sum", r->host_score[h].dor_sum);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "hot_resources");
    clarity_jsonw_arr_begin(w);
    for (int res = 0; res < IQ_NRES; res++) {
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "resource", clarity_iqcar_res_name(res));
        clarity_jsonw_kdouble(w, "if_sum", r->res_score[res].if_sum);
        clarity_jsonw_kdouble(w, "dor_sum", r->res_score[res].dor_sum);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_kint(w, "max_concurrency", r->max_concurrency);
    clarity_jsonw_key(w, "rules");
    rules_json(w, r);
    clarity_jsonw_obj_end(w);
    return clarity_report_status(w->out, err);
}
