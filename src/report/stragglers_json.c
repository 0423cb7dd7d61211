/* `clarity stragglers --json`: one application object of the clarity.stragglers/1 schema
 * (docs/stragglers-json.md). */
#include "clarity/report.h"
#include "util/jsonw.h"

static void causes(struct jsonw *w, const size_t *by, size_t n)
{
    jsonw_key(w, "by_cause");
    jsonw_obj_begin(w);
    for (int q = 0; q < CLARITY_SC_COUNT; q++) {
        jsonw_key(w, clarity_scause_name(q));
        jsonw_obj_begin(w);
        jsonw_kint(w, "stragglers", (int64_t)by[q]);
        if (n) jsonw_kdouble(w, "fraction", (double)by[q] / (double)n);
        else { jsonw_key(w, "fraction"); jsonw_null(w); }
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);
}

static void cause_list(struct jsonw *w, uint16_t f)
{
    jsonw_key(w, "causes");
    jsonw_arr_begin(w);
    for (int q = 0; q < CLARITY_SC_COUNT; q++)
        if (f & (1u << q)) jsonw_str(w, clarity_scause_name(q));
    if (f & CLARITY_SF_SLOW_DATA) jsonw_str(w, "data_skew");
    jsonw_arr_end(w);
}

static void frac(struct jsonw *w, const char *k, size_t a, size_t n)
{
    if (n) jsonw_kdouble(w, k, (double)a / (double)n);
    else { jsonw_key(w, k); jsonw_null(w); }
}

int report_stragglers_json(struct jsonw *w, const struct clarity_app *a, const struct clarity_stragglers_result *r,
                           struct clarity_error *err)
{
    const struct clarity_task_comps *c = &r->comps;
    jsonw_obj_begin(w);
    jsonw_kstr(w, "app_id", clarity_app_str(a, a->app_id));
    jsonw_kstr(w, "name", clarity_app_str(a, a->name));
    jsonw_kstr(w, "source", a->source_path ? a->source_path : "");
    jsonw_kdouble(w, "threshold", CLARITY_STRAGGLER_FACTOR);
    jsonw_key(w, "attempts");
    jsonw_obj_begin(w);
    jsonw_kint(w, "rated", (int64_t)c->n);
    jsonw_kint(w, "failed", (int64_t)c->failed);
    jsonw_kint(w, "killed", (int64_t)c->killed);
    jsonw_kint(w, "without_end", (int64_t)c->without_end);
    jsonw_obj_end(w);
    jsonw_key(w, "not_in_standard_logs");
    jsonw_arr_begin(w);
    jsonw_str(w, "input_read");
    jsonw_str(w, "output_write");
    jsonw_arr_end(w);

    jsonw_key(w, "stages");
    jsonw_arr_begin(w);
    for (size_t s = 0; s < r->nstages; s++) {
        const struct clarity_stage_strag *st = &r->stages[s];
        const struct clarity_stage *sg = &a->stages[st->stage];
        jsonw_obj_begin(w);
        jsonw_kint(w, "stage_id", sg->stage_id);
        jsonw_kint(w, "attempt", sg->attempt);
        jsonw_kint(w, "tasks", (int64_t)st->tasks);
        jsonw_kint(w, "tasks_with_input", (int64_t)st->with_input);
        jsonw_kstr(w, "input", st->shuffle_input ? "shuffle_read_bytes" : "input_bytes");
        if (st->skipped) jsonw_kstr(w, "not_rated", st->skipped);
        else { jsonw_key(w, "not_rated"); jsonw_null(w); }
        jsonw_kdouble(w, "median_ms_per_mb", st->median_ipr * 1e6);
        jsonw_kint(w, "stragglers", (int64_t)st->stragglers);
        jsonw_kint(w, "explained", (int64_t)st->explained);
        jsonw_kint(w, "explained_thesis", (int64_t)st->explained_thesis);
        causes(w, st->by_cause, st->stragglers);
        jsonw_key(w, "slow_host");
        if (st->slow_host) {
            jsonw_obj_begin(w);
            jsonw_kstr(w, "host", clarity_app_str(a, st->slow_host));
            jsonw_kint(w, "stragglers", (int64_t)st->slow_host_stragglers);
            jsonw_kint(w, "tasks", (int64_t)st->slow_host_tasks);
            frac(w, "share", st->slow_host_stragglers, st->stragglers);
            jsonw_obj_end(w);
        } else jsonw_null(w);
        jsonw_key(w, "slow_executor");
        if (st->slow_executor) {
            jsonw_obj_begin(w);
            jsonw_kstr(w, "executor", clarity_app_str(a, st->slow_executor));
            jsonw_kint(w, "stragglers", (int64_t)st->slow_exec_stragglers);
            jsonw_kint(w, "tasks", (int64_t)st->slow_exec_tasks);
            frac(w, "share", st->slow_exec_stragglers, st->stragglers);
            jsonw_obj_end(w);
        } else jsonw_null(w);
        jsonw_key(w, "data_skew");
        jsonw_obj_begin(w);
        jsonw_kdouble(w, "bytes_max_over_median", st->bytes_max_over_median);
        jsonw_kdouble(w, "records_max_over_median", st->records_max_over_median);
        jsonw_kint(w, "slow_tasks", (int64_t)st->slow_tasks);
        jsonw_kint(w, "slow_tasks_with_more_data", (int64_t)st->slow_tasks_more_data);
        jsonw_obj_end(w);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);

    jsonw_key(w, "groups");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < r->ngroups; i++) {
        const struct clarity_straggler_group *g = &r->groups[i];
        jsonw_obj_begin(w);
        jsonw_kstr(w, "kind", clarity_group_kind_name(g->kind));
        if (g->kind == CLARITY_GROUP_APP) { jsonw_key(w, "id"); jsonw_null(w); }
        else jsonw_kint(w, "id", g->id);
        jsonw_kstr(w, "name", blocked_group_name(a, g->kind, g->row));
        jsonw_kint(w, "tasks", (int64_t)g->tasks);
        jsonw_kint(w, "stages", (int64_t)g->stages);
        jsonw_kint(w, "stages_rated", (int64_t)g->stages_analyzed);
        jsonw_kint(w, "stragglers", (int64_t)g->stragglers);
        frac(w, "explained_fraction", g->explained, g->stragglers);
        frac(w, "explained_thesis_fraction", g->explained_thesis, g->stragglers);
        causes(w, g->by_cause, g->stragglers);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);

    jsonw_key(w, "top");
    jsonw_arr_begin(w);
    for (size_t k = 0; k < r->ntop; k++) {
        size_t i = r->top[k];
        const struct clarity_task_comp *t = &c->t[i];
        const struct clarity_stage *sg = &a->stages[t->stage];
        jsonw_obj_begin(w);
        jsonw_kint(w, "task_id", clarity_icol_get(&a->tasks.task_id, t->row));
        jsonw_kint(w, "stage_id", sg->stage_id);
        jsonw_kint(w, "stage_attempt", sg->attempt);
        jsonw_kstr(w, "host", clarity_app_str(a, t->host));
        jsonw_kstr(w, "executor", clarity_app_str(a, t->executor));
        jsonw_kint(w, "launch_ms", t->launch_ms);
        jsonw_kdouble(w, "duration_ms", t->runtime_ms);
        jsonw_kint(w, "input_bytes", clarity_task_input_bytes(t));
        if (r->ratio[i] > 0) jsonw_kdouble(w, "rate_over_median", r->ratio[i]);
        else { jsonw_key(w, "rate_over_median"); jsonw_null(w); }
        jsonw_kbool(w, "straggler", r->flags[i] & CLARITY_SF_STRAGGLER);
        cause_list(w, r->flags[i]);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
    return clarity_report_status(w->out, err);
}
