/* clarity.contention/1 (docs/contention.md): per target the explanations per level with
 * their DOR, noisy queries beside the simple-overlap baseline; aggressive, victims, slow
 * hosts, hot resources and the rules. */
#include "clarity/report.h"
#include "util/jsonw.h"

static const char *const level_key[7] = {"target", "stage", "IE", "DE", "BE", "source_stage", "source_query"};

static void unit_ranked(struct jsonw *w, const struct iqcar_result *r, const char *key, const struct iqcar_ranked *v,
                        size_t n, const char *val)
{
    jsonw_key(w, key);
    jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        jsonw_obj_begin(w);
        jsonw_kstr(w, "query", r->units[v[i].node].name);
        jsonw_kdouble(w, val, v[i].dor);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

static void target_json(struct jsonw *w, const struct iqcar_result *r, size_t t)
{
    const struct iqcar_target_answer *a = &r->targets[t];
    char buf[512];
    jsonw_obj_begin(w);
    jsonw_kstr(w, "target", r->units[t].name);
    jsonw_kint(w, "start_ms", r->units[t].start);
    jsonw_kint(w, "end_ms", r->units[t].end);
    jsonw_kdouble(w, "dor_from_others", a->dor_others);
    jsonw_key(w, "explanations");
    jsonw_arr_begin(w);
    for (int l = 2; l <= 6; l++)
        for (size_t i = 0; i < a->ntop[l]; i++) {
            const struct iqcar_node *n = &r->g.nodes[a->top[l][i].node];
            jsonw_obj_begin(w);
            jsonw_kint(w, "level", l);
            jsonw_kstr(w, "type", level_key[l]);
            jsonw_kstr(w, "node", iqcar_node_label(r, a->top[l][i].node, buf, sizeof buf));
            jsonw_kint(w, "id", a->top[l][i].node);
            if (l == 2) jsonw_kstr(w, "resource", iqcar_res_name(n->b));
            if (l == 3) {
                jsonw_kstr(w, "subtype", iqcar_sub_name(n->b));
                jsonw_kstr(w, "host", r->hosts[n->c]);
            }
            if (l == 2 || l == 3) jsonw_kstr(w, "t_stage", r->stages[n->a].name);
            jsonw_kdouble(w, "vc", n->vc);
            jsonw_kdouble(w, "dor", a->top[l][i].dor);
            jsonw_obj_end(w);
        }
    jsonw_arr_end(w);
    jsonw_key(w, "noisy");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < a->nnoisy; i++) {
        jsonw_obj_begin(w);
        jsonw_kstr(w, "query", r->units[r->g.nodes[a->noisy[i].node].a].name);
        jsonw_kdouble(w, "dor", a->noisy[i].dor);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    unit_ranked(w, r, "simple_overlap", a->overlap, a->noverlap, "share");
    jsonw_key(w, "paths");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < a->npaths; i++) {
        jsonw_obj_begin(w);
        jsonw_kstr(w, "source", r->units[r->g.nodes[a->paths[i].node].c].name);
        jsonw_kstr(w, "via", iqcar_node_label(r, a->paths[i].node, buf, sizeof buf));
        jsonw_kdouble(w, "weight", a->paths[i].dor);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

static void rules_json(struct jsonw *w, const struct iqcar_result *r)
{
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nrules; i++) {
        const struct iqcar_rule *x = &r->rules[i];
        jsonw_obj_begin(w);
        jsonw_kint(w, "id", x->id);
        jsonw_kstr(w, "rule-type", x->type);
        jsonw_kstr(w, "query-id", r->units[x->unit].name);
        jsonw_kstr(w, "query-type", x->qtype);
        jsonw_kdouble(w, "rule-value", x->value);
        jsonw_kint(w, "rule-order", x->order);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

int report_contention_rules(FILE *o, const struct iqcar_result *r, struct clarity_error *err)
{
    struct jsonw w;
    jsonw_init(&w, o, true);
    rules_json(&w, r);
    jsonw_end(&w);
    return clarity_report_status(o, err);
}

int report_contention_json(struct jsonw *w, const struct iqcar_result *r, const long *targets, size_t ntargets,
                           struct clarity_error *err)
{
    jsonw_obj_begin(w);
    jsonw_kstr(w, "schema", "clarity.contention/1");
    jsonw_kstr(w, "unit", iqcar_unit_name(r->unit_kind));
    jsonw_key(w, "applications");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->napps; i++) jsonw_str(w, r->apps[i]);
    jsonw_arr_end(w);
    jsonw_key(w, "inputs");
    jsonw_obj_begin(w);
    jsonw_kint(w, "tasks", (int64_t)r->src.tasks);
    jsonw_kint(w, "hosts", (int64_t)r->nhosts);
    jsonw_kint(w, "units", (int64_t)r->nunits);
    jsonw_kint(w, "overlapping_pairs", (int64_t)r->overlap_pairs);
    jsonw_kstr(w, "slots_offered", r->src.instrumented_slots == r->src.tasks && r->src.tasks ? "instrumented" : "proxy");
    jsonw_kstr(w, "cpu_wait", r->src.instrumented_cpu ? "instrumented" : "proxy");
    jsonw_kstr(w, "memory_wait", r->src.instrumented_mem ? "instrumented" : "absent");
    jsonw_kstr(w, "io_read_wait", r->src.scan_time ? "scan_time" : "absent");
    jsonw_kint(w, "sidecar_tasks", (int64_t)r->src.sidecar_tasks);
    jsonw_kstr(w, "level1_stages", r->opt.critical_path ? "critical_path" : "all");
    jsonw_kstr(w, "slot_blame", r->opt.slot_blame_wait ? "wait" : "held");
    jsonw_obj_end(w);
    jsonw_key(w, "targets");
    jsonw_arr_begin(w);
    if (targets)
        for (size_t i = 0; i < ntargets; i++) target_json(w, r, (size_t)targets[i]);
    else
        for (size_t i = 0; i < r->nvictims; i++) target_json(w, r, r->victims[i].node);
    jsonw_arr_end(w);
    unit_ranked(w, r, "aggressive", r->aggressive, r->naggressive, "dor");
    unit_ranked(w, r, "victims", r->victims, r->nvictims, "dor");
    jsonw_key(w, "slow_hosts");
    jsonw_arr_begin(w);
    for (size_t h = 0; h < r->nhosts; h++) {
        jsonw_obj_begin(w);
        jsonw_kstr(w, "host", r->hosts[h]);
        jsonw_kdouble(w, "if_sum", r->host_score[h].if_sum);
        jsonw_kdouble(w, "dor_sum", r->host_score[h].dor_sum);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "hot_resources");
    jsonw_arr_begin(w);
    for (int res = 0; res < IQ_NRES; res++) {
        jsonw_obj_begin(w);
        jsonw_kstr(w, "resource", iqcar_res_name(res));
        jsonw_kdouble(w, "if_sum", r->res_score[res].if_sum);
        jsonw_kdouble(w, "dor_sum", r->res_score[res].dor_sum);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_kint(w, "max_concurrency", r->max_concurrency);
    jsonw_key(w, "rules");
    rules_json(w, r);
    jsonw_obj_end(w);
    return clarity_report_status(w->out, err);
}
