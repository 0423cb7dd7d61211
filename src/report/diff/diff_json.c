/* JSON of `clarity diff` (schema clarity.diff/1, docs/diff.md): one object per pair of
 * applications. Formats the analysis' result; computes nothing. */
#include <stdio.h>
#include "clarity/report.h"
#include "util/jsonw.h"

static void app_ref(struct jsonw *w, const char *k, const struct clarity_diff_ident *a)
{
    clarity_jsonw_key(w, k);
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "app_id", a->app_id);
    if (a->attempt_id) clarity_jsonw_kstr(w, "attempt_id", a->attempt_id);
    clarity_jsonw_kstr(w, "name", a->name);
    clarity_jsonw_kstr(w, "source", a->source ? a->source : "");
    clarity_jsonw_obj_end(w);
}

static void side(struct jsonw *w, const char *k, const struct clarity_diff_side *s, bool present)
{
    clarity_jsonw_key(w, k);
    if (!present) {
        clarity_jsonw_null(w);
        return;
    }
    clarity_jsonw_obj_begin(w);
    if (s->wall_ms >= 0) clarity_jsonw_kint(w, "wall_ms", s->wall_ms);
    else clarity_jsonw_key(w, "wall_ms"), clarity_jsonw_null(w);
    clarity_jsonw_kint(w, "tasks", s->tasks);
    clarity_jsonw_kint(w, "task_ms", s->task_ms);
    clarity_jsonw_kint(w, "executors_used", s->executors);
    clarity_jsonw_kbool(w, "cpu_logged", s->cpu_logged);
    clarity_jsonw_key(w, "components");
    clarity_jsonw_obj_begin(w);
    for (int c = 0; c < CLARITY_DC_COUNT; c++) clarity_jsonw_kdouble(w, clarity_diff_comp_name(c), s->comp_ms[c]);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "data");
    clarity_jsonw_obj_begin(w);
    for (int d = 0; d < CLARITY_DD_COUNT; d++) clarity_jsonw_kint(w, clarity_diff_data_name(d), s->data[d]);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_obj_end(w);
}

static void items(struct jsonw *w, const char *k, const struct clarity_diff_item *it, size_t n)
{
    clarity_jsonw_key(w, k);
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++, it++) {
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "name", it->name);
        clarity_jsonw_kint(w, "ordinal", it->ordinal);
        clarity_jsonw_key(w, "a_id");
        if (it->in_a) clarity_jsonw_int(w, it->a_id);
        else clarity_jsonw_null(w);
        clarity_jsonw_key(w, "b_id");
        if (it->in_b) clarity_jsonw_int(w, it->b_id);
        else clarity_jsonw_null(w);
        if (it->kind == CLARITY_DK_SQL) clarity_jsonw_kbool(w, "plan_changed", it->plan_changed);
        clarity_jsonw_kint(w, "delta_ms", it->delta_ms);
        clarity_jsonw_kbool(w, "significant", it->significant);
        clarity_jsonw_key(w, "moved");
        if (it->moved >= 0 && it->in_a && it->in_b) clarity_jsonw_str(w, clarity_diff_comp_name(it->moved));
        else clarity_jsonw_null(w);
        clarity_jsonw_kdouble(w, "moved_ms", it->moved_ms);
        clarity_jsonw_key(w, "data_moved");
        if (it->data_moved >= 0 && it->in_a && it->in_b) clarity_jsonw_str(w, clarity_diff_data_name(it->data_moved));
        else clarity_jsonw_null(w);
        side(w, "a", &it->a, it->in_a);
        side(w, "b", &it->b, it->in_b);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
}

static void pair3(struct jsonw *w, const char *k, int64_t a, int64_t b)
{
    clarity_jsonw_key(w, k);
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "a", a);
    clarity_jsonw_kint(w, "b", b);
    clarity_jsonw_obj_end(w);
}

int clarity_report_diff_json(struct jsonw *w, const struct clarity_diff_result *r, struct clarity_error *err)
{
    (void)err;
    clarity_jsonw_obj_begin(w);
    app_ref(w, "a", &r->a_app);
    app_ref(w, "b", &r->b_app);
    clarity_jsonw_kdouble(w, "noise_pct", r->noise_pct);
    clarity_jsonw_kdouble(w, "change_pct", r->change_pct);
    clarity_jsonw_kbool(w, "no_change", r->no_change);
    clarity_jsonw_key(w, "top_stage");
    if (r->top_stage != SIZE_MAX) {
        const struct clarity_diff_item *t = &r->items[r->top_stage];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "name", t->name);
        clarity_jsonw_kint(w, "ordinal", t->ordinal);
        clarity_jsonw_kint(w, "a_id", t->a_id);
        clarity_jsonw_kint(w, "b_id", t->b_id);
        clarity_jsonw_kint(w, "delta_ms", t->delta_ms);
        clarity_jsonw_obj_end(w);
    } else clarity_jsonw_null(w);
    clarity_jsonw_key(w, "causes");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < r->ncauses; i++) {
        const struct clarity_diff_cause *c = &r->causes[i];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "kind", clarity_diff_cause_name(c->kind));
        if (c->what) clarity_jsonw_kstr(w, "what", c->what);
        if (c->kind != CLARITY_CAUSE_CONFIG) {
            clarity_jsonw_kdouble(w, "a", c->a);
            clarity_jsonw_kdouble(w, "b", c->b);
        }
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "application");
    clarity_jsonw_obj_begin(w);
    side(w, "a", &r->a, true);
    side(w, "b", &r->b, true);
    pair3(w, "executors", r->a_execs, r->b_execs);
    pair3(w, "cores", r->a_cores, r->b_cores);
    pair3(w, "hosts", r->a_hosts, r->b_hosts);
    clarity_jsonw_obj_end(w);
    items(w, "stages", r->items, r->nstages);
    items(w, "sql", r->items + r->nstages, r->nsqls);
    items(w, "jobs", r->items + r->nstages + r->nsqls, r->njobs);
    clarity_jsonw_key(w, "config");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "ignored", (int64_t)r->nconfig_ignored);
    clarity_jsonw_key(w, "changes");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nconfig; i++) {
        const struct clarity_diff_config *c = &r->config[i];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "key", c->key);
        clarity_jsonw_kstr(w, "change", c->change == CLARITY_CFG_ADDED ? "added" : c->change == CLARITY_CFG_REMOVED ? "removed" : "changed");
        clarity_jsonw_key(w, "a");
        if (c->a) clarity_jsonw_str(w, c->a);
        else clarity_jsonw_null(w);
        clarity_jsonw_key(w, "b");
        if (c->b) clarity_jsonw_str(w, c->b);
        else clarity_jsonw_null(w);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "hosts");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nhosts; i++) {
        const struct clarity_diff_host *h = &r->hosts[i];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "host", h->host);
        clarity_jsonw_kdouble(w, "a_run_per_cpu", h->a_rate);
        clarity_jsonw_kdouble(w, "b_run_per_cpu", h->b_rate);
        clarity_jsonw_kint(w, "a_tasks", h->a_tasks);
        clarity_jsonw_kint(w, "b_tasks", h->b_tasks);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "findings");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kbool(w, "compared", r->findings_compared);
    clarity_jsonw_key(w, "changes");
    clarity_jsonw_arr_begin(w);
    static const char *const chg[] = {"gone", "appeared", "both"};
    for (size_t i = 0; i < r->nfindings; i++) {
        const struct clarity_diff_finding *f = &r->findings[i];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "change", chg[f->change]);
        clarity_jsonw_kstr(w, "kind", f->kind);
        clarity_jsonw_kstr(w, "title", f->title);
        if (f->item != SIZE_MAX) {
            const struct clarity_diff_item *it = &r->items[f->item];
            clarity_jsonw_key(w, "where");
            clarity_jsonw_obj_begin(w);
            clarity_jsonw_kstr(w, "kind", clarity_diff_kind_name(it->kind));
            clarity_jsonw_kstr(w, "name", it->name);
            clarity_jsonw_kint(w, "ordinal", it->ordinal);
            clarity_jsonw_obj_end(w);
        }
        clarity_jsonw_key(w, "a_saving_ms");
        if (f->a_saving_ms >= 0) clarity_jsonw_int(w, f->a_saving_ms);
        else clarity_jsonw_null(w);
        clarity_jsonw_key(w, "b_saving_ms");
        if (f->b_saving_ms >= 0) clarity_jsonw_int(w, f->b_saving_ms);
        else clarity_jsonw_null(w);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_obj_end(w);
    return 0;
}
