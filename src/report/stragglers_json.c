/* `clarity stragglers --json`: one application object of the clarity.stragglers/1 schema
 * (docs/stragglers-json.md). */
#include "clarity/report.h"
#include "report/group_json.h"
#include "util/jsonw.h"

static void causes(struct jsonw *w, const size_t *by, size_t n)
{
    clarity_jsonw_key(w, "by_cause");
    clarity_jsonw_obj_begin(w);
    for (int q = 0; q < CLARITY_SC_COUNT; q++) {
        clarity_jsonw_key(w, clarity_scause_name(q));
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "stragglers", (int64_t)by[q]);
        if (n) clarity_jsonw_kdouble(w, "fraction", (double)by[q] / (double)n);
        else { clarity_jsonw_key(w, "fraction"); clarity_jsonw_null(w); }
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_obj_end(w);
}

static void cause_list(struct jsonw *w, uint16_t f)
{
    clarity_jsonw_key(w, "causes");
    clarity_jsonw_arr_begin(w);
    for (int q = 0; q < CLARITY_SC_COUNT; q++)
        if (f & (1u << q)) clarity_jsonw_str(w, clarity_scause_name(q));
    if (f & CLARITY_SF_SLOW_DATA) clarity_jsonw_str(w, "data_skew");
    clarity_jsonw_arr_end(w);
}

static void frac(struct jsonw *w, const char *k, size_t a, size_t n)
{
    if (n) clarity_jsonw_kdouble(w, k, (double)a / (double)n);
    else { clarity_jsonw_key(w, k); clarity_jsonw_null(w); }
}

int clarity_report_stragglers_json(struct jsonw *w, const struct clarity_app *a, const struct clarity_stragglers_result *r,
                           struct clarity_error *err)
{
    const struct clarity_task_counts *c = &r->counts;
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "app_id", clarity_app_str(a, a->app_id));
    clarity_jsonw_kstr(w, "name", clarity_app_str(a, a->name));
    clarity_jsonw_kstr(w, "source", a->source_path ? a->source_path : "");
    clarity_jsonw_kdouble(w, "threshold", CLARITY_STRAGGLER_FACTOR);
    clarity_jsonw_key(w, "attempts");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "rated", (int64_t)c->n);
    clarity_jsonw_kint(w, "failed", (int64_t)c->failed);
    clarity_jsonw_kint(w, "killed", (int64_t)c->killed);
    clarity_jsonw_kint(w, "without_end", (int64_t)c->without_end);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "not_in_standard_logs");
    clarity_jsonw_arr_begin(w);
    clarity_jsonw_str(w, "input_read");
    clarity_jsonw_str(w, "output_write");
    clarity_jsonw_arr_end(w);

    clarity_jsonw_key(w, "stages");
    clarity_jsonw_arr_begin(w);
    for (size_t s = 0; s < r->nstages; s++) {
        const struct clarity_stage_strag *st = &r->stages[s];
        const struct clarity_stage *sg = &a->stages[st->stage];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "stage_id", sg->stage_id);
        clarity_jsonw_kint(w, "attempt", sg->attempt);
        clarity_jsonw_kint(w, "tasks", (int64_t)st->tasks);
        clarity_jsonw_kint(w, "tasks_with_input", (int64_t)st->with_input);
        clarity_jsonw_kstr(w, "input", st->shuffle_input ? "shuffle_read_bytes" : "input_bytes");
        if (st->skipped) clarity_jsonw_kstr(w, "not_rated", st->skipped);
        else { clarity_jsonw_key(w, "not_rated"); clarity_jsonw_null(w); }
        clarity_jsonw_kdouble(w, "median_ms_per_mb", st->median_ipr * 1e6);
        clarity_jsonw_kint(w, "stragglers", (int64_t)st->stragglers);
        clarity_jsonw_kint(w, "explained", (int64_t)st->explained);
        clarity_jsonw_kint(w, "explained_thesis", (int64_t)st->explained_thesis);
        causes(w, st->by_cause, st->stragglers);
        clarity_jsonw_key(w, "slow_host");
        if (st->slow_host) {
            clarity_jsonw_obj_begin(w);
            clarity_jsonw_kstr(w, "host", clarity_app_str(a, st->slow_host));
            clarity_jsonw_kint(w, "stragglers", (int64_t)st->slow_host_stragglers);
            clarity_jsonw_kint(w, "tasks", (int64_t)st->slow_host_tasks);
            frac(w, "share", st->slow_host_stragglers, st->stragglers);
            clarity_jsonw_obj_end(w);
        } else clarity_jsonw_null(w);
        clarity_jsonw_key(w, "slow_executor");
        if (st->slow_executor) {
            clarity_jsonw_obj_begin(w);
            clarity_jsonw_kstr(w, "executor", clarity_app_str(a, st->slow_executor));
            clarity_jsonw_kint(w, "stragglers", (int64_t)st->slow_exec_stragglers);
            clarity_jsonw_kint(w, "tasks", (int64_t)st->slow_exec_tasks);
            frac(w, "share", st->slow_exec_stragglers, st->stragglers);
            clarity_jsonw_obj_end(w);
        } else clarity_jsonw_null(w);
        clarity_jsonw_key(w, "data_skew");
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kdouble(w, "bytes_max_over_median", st->bytes_max_over_median);
        clarity_jsonw_kdouble(w, "records_max_over_median", st->records_max_over_median);
        clarity_jsonw_kint(w, "slow_tasks", (int64_t)st->slow_tasks);
        clarity_jsonw_kint(w, "slow_tasks_with_more_data", (int64_t)st->slow_tasks_more_data);
        clarity_jsonw_obj_end(w);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);

    clarity_jsonw_key(w, "groups");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < r->ngroups; i++) {
        const struct clarity_straggler_group *g = &r->groups[i];
        clarity_jsonw_obj_begin(w);
        clarity__report_group_json(w, a, g->kind, g->id, g->row);
        clarity_jsonw_kint(w, "tasks", (int64_t)g->tasks);
        clarity_jsonw_kint(w, "stages", (int64_t)g->stages);
        clarity_jsonw_kint(w, "stages_rated", (int64_t)g->stages_analyzed);
        clarity_jsonw_kint(w, "stragglers", (int64_t)g->stragglers);
        frac(w, "explained_fraction", g->explained, g->stragglers);
        frac(w, "explained_thesis_fraction", g->explained_thesis, g->stragglers);
        causes(w, g->by_cause, g->stragglers);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);

    clarity_jsonw_key(w, "top");
    clarity_jsonw_arr_begin(w);
    for (size_t k = 0; k < r->ntop; k++) {
        const struct clarity_straggler_top *top = &r->top[k];
        const struct clarity_task_comp *t = &top->t;
        const struct clarity_stage *sg = &a->stages[t->stage];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kint(w, "task_id", clarity_icol_get(&a->tasks.task_id, t->row));
        clarity_jsonw_kint(w, "stage_id", sg->stage_id);
        clarity_jsonw_kint(w, "stage_attempt", sg->attempt);
        clarity_jsonw_kstr(w, "host", clarity_app_str(a, t->host));
        clarity_jsonw_kstr(w, "executor", clarity_app_str(a, t->executor));
        clarity_jsonw_kint(w, "launch_ms", t->launch_ms);
        clarity_jsonw_kdouble(w, "duration_ms", t->runtime_ms);
        clarity_jsonw_kint(w, "input_bytes", clarity_task_input_bytes(t));
        if (top->ratio > 0) clarity_jsonw_kdouble(w, "rate_over_median", top->ratio);
        else { clarity_jsonw_key(w, "rate_over_median"); clarity_jsonw_null(w); }
        clarity_jsonw_kbool(w, "straggler", top->flags & CLARITY_SF_STRAGGLER);
        cause_list(w, top->flags);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
    return clarity_report_status(w->out, err);
}
