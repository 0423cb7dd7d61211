/* Recurring applications: the names that ran several times, each run compared with the mean
 * of the runs of that name before it (a summary-row comparison: duration and core-hours, not
 * `clarity diff`'s stage-by-stage one, which needs both logs loaded), and the trend over the
 * runs as a least-squares slope. */
#include <stdlib.h>
#include <string.h>
#include "clarity/report.h"
#include "fleet/fleet_internal.h"
#include "report/table.h"
#include "util/jsonw.h"

#define DEF(v, d) ((v) > 0 ? (v) : (d))

bool clarity_fleet_regressed(const struct clarity_store_run *r, const struct clarity_fleet_query *q)
{
    double ratio = DEF(q->regress_ratio, 1.25), min_ch = DEF(q->regress_min_core_hours, 0.1);
    int64_t min_ms = DEF(q->regress_min_ms, 60000);
    if (r->previous < 2) return false;
    double d = (double)r->app->duration_ms, bd = r->baseline_duration_ms;
    double c = r->app->core_hours, bc = r->baseline_core_hours;
    bool slower = r->app->completed && d >= ratio * bd && d - bd >= (double)min_ms;
    bool costlier = c >= ratio * bc && c - bc >= min_ch;
    return slower || costlier;
}

double clarity_fleet_slope_share(const double *y, size_t n)
{
    if (n < 2) return 0;
    double mx = (double)(n - 1) / 2, my = 0, sxy = 0, sxx = 0;
    for (size_t i = 0; i < n; i++) my += y[i];
    my /= (double)n;
    for (size_t i = 0; i < n; i++) {
        sxy += ((double)i - mx) * (y[i] - my);
        sxx += ((double)i - mx) * ((double)i - mx);
    }
    return my != 0 ? sxy / sxx / my : 0;
}

struct names { char **v; size_t n, cap, min_runs, limit; bool oom; };

static int name_cb(void *ctx, const struct clarity_store_total *t)
{
    struct names *ns = ctx;
    if (t->runs < (int64_t)ns->min_runs) return 0;
    if (ns->limit && ns->n >= ns->limit) return 1;
    if (ns->n == ns->cap) {
        size_t cap = ns->cap ? 2 * ns->cap : 16;
        char **p = realloc(ns->v, cap * sizeof *p);
        if (!p) return ns->oom = true, 1;
        ns->v = p;
        ns->cap = cap;
    }
    if (!(ns->v[ns->n] = strdup(t->key))) return ns->oom = true, 1;
    ns->n++;
    return 0;
}

struct runs {
    const struct clarity_fleet_query *q;
    FILE *o;
    struct jsonw *w;
    enum clarity_fleet_format fmt;
    struct table *reg;
    const char *name;
    double *dur, *ch;
    size_t n, cap;
    size_t regressed;
    bool oom;
};

static void run_csv(FILE *o, const char *name, const struct clarity_store_run *r, bool regressed)
{
    clarity_csv_str(o, name);
    fputc(',', o);
    clarity_csv_str(o, r->app->app_id);
    fputc(',', o);
    clarity_csv_str(o, r->app->attempt_id);
    fprintf(o, ",%lld,%lld,%.6f,%lld,%.1f,%.6f,%d\n", (long long)r->app->start_ms, (long long)r->app->duration_ms,
            r->app->core_hours, (long long)r->previous, r->baseline_duration_ms, r->baseline_core_hours, regressed);
}

static void regression_json(struct jsonw *w, const struct clarity_store_run *r)
{
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "app_id", r->app->app_id);
    clarity_jsonw_key(w, "attempt_id");
    if (r->app->attempt_id) clarity_jsonw_str(w, r->app->attempt_id);
    else clarity_jsonw_null(w);
    clarity_jsonw_kint(w, "start_ms", r->app->start_ms);
    clarity_jsonw_kint(w, "duration_ms", r->app->duration_ms);
    clarity_jsonw_kdouble(w, "baseline_duration_ms", r->baseline_duration_ms);
    clarity_jsonw_kdouble(w, "core_hours", r->app->core_hours);
    clarity_jsonw_kdouble(w, "baseline_core_hours", r->baseline_core_hours);
    clarity_jsonw_kint(w, "baseline_runs", r->previous);
    clarity_jsonw_obj_end(w);
}

static void regression_text(struct table *t, const char *name, const struct clarity_store_run *r)
{
    char id[200], st[40], d[32], bd[32], x[24], ch[24], bch[24];
    snprintf(id, sizeof id, "%s%s%s", r->app->app_id, r->app->attempt_id ? "/" : "",
             r->app->attempt_id ? r->app->attempt_id : "");
    clarity_fmt_time(st, sizeof st, r->app->start_ms);
    if (strlen(st) > 10) st[10] = '\0';   /* the day: the table must fit 100 columns */
    clarity_fmt_ms(d, sizeof d, r->app->duration_ms);
    clarity_fmt_ms(bd, sizeof bd, (int64_t)r->baseline_duration_ms);
    snprintf(x, sizeof x, "%.2f", r->baseline_duration_ms > 0 ? (double)r->app->duration_ms / r->baseline_duration_ms : 0);
    snprintf(ch, sizeof ch, "%.2f", r->app->core_hours);
    snprintf(bch, sizeof bch, "%.2f", r->baseline_core_hours);
    const char *row[] = {clarity_fleet__or_dash(name), id, st, d, bd, x, ch, bch};
    clarity_table_row(t, row);
}

static int run_cb(void *ctx, const struct clarity_store_run *r)
{
    struct runs *rs = ctx;
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? 2 * rs->cap : 64;
        double *d = realloc(rs->dur, cap * sizeof *d);
        if (d) rs->dur = d;
        double *c = d ? realloc(rs->ch, cap * sizeof *c) : NULL;
        if (c) rs->ch = c;
        if (!d || !c) return rs->oom = true, 1;
        rs->cap = cap;
    }
    rs->dur[rs->n] = (double)r->app->duration_ms;
    rs->ch[rs->n] = r->app->core_hours;
    rs->n++;
    bool bad = clarity_fleet_regressed(r, rs->q);
    rs->regressed += bad;
    if (rs->fmt == CLARITY_FLEET_CSV) run_csv(rs->o, rs->name, r, bad);
    else if (bad && rs->fmt == CLARITY_FLEET_JSON) regression_json(rs->w, r);
    else if (bad) regression_text(rs->reg, rs->name, r);
    return 0;
}

static double mean(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += v[i];
    return n ? s / (double)n : 0;
}

int clarity_fleet__recurring(FILE *o, struct jsonw *w, struct clarity_store *s, const struct clarity_fleet_query *q,
                             enum clarity_fleet_format fmt, struct clarity_error *err)
{
    struct names ns = {.min_runs = (size_t)DEF(q->min_runs, 3),
                       .limit = q->filter.limit > 0 ? (size_t)q->filter.limit : 0};
    int rc = clarity_store_totals_each(s, CLARITY_STORE_BY_NAME, &q->filter, name_cb, &ns, err);
    if (rc == 1) rc = 0;
    if (ns.oom) rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    static const struct table_col sum_cols[] = {
        {"name", TCOL_NAME}, {"runs", TCOL_NUM}, {"mean duration", TCOL_NUM}, {"trend %/run", TCOL_NUM},
        {"mean core-h", TCOL_NUM}, {"core-h trend %/run", TCOL_NUM}, {"regressed", TCOL_NUM}};
    static const struct table_col reg_cols[] = {
        {"name", TCOL_NAME},       {"regressed run", TCOL_ID}, {"started", TCOL_FIXED}, {"duration", TCOL_NUM},
        {"baseline", TCOL_NUM},    {"x", TCOL_NUM},            {"core-h", TCOL_NUM},        {"base core-h", TCOL_NUM}};
    struct table sum, reg;
    clarity_table_init(&sum, sum_cols, sizeof sum_cols / sizeof *sum_cols);
    clarity_table_init(&reg, reg_cols, sizeof reg_cols / sizeof *reg_cols);
    if (fmt == CLARITY_FLEET_CSV)
        fputs("name,app_id,attempt_id,start_ms,duration_ms,core_hours,baseline_runs,baseline_duration_ms,"
              "baseline_core_hours,regressed\n", o);
    if (w) {
        clarity_jsonw_key(w, "recurring");
        clarity_jsonw_arr_begin(w);
    }
    int window = DEF(q->window, 5);
    for (size_t i = 0; !rc && i < ns.n; i++) {
        struct clarity_store_filter f = q->filter;
        f.name = ns.v[i];
        struct runs rs = {.q = q, .o = o, .w = w, .fmt = fmt, .reg = &reg, .name = ns.v[i]};
        if (w) {
            clarity_jsonw_obj_begin(w);
            clarity_jsonw_kstr(w, "name", ns.v[i]);
            clarity_jsonw_key(w, "regressions");
            clarity_jsonw_arr_begin(w);
        }
        rc = clarity_store_runs_each(s, &f, window, run_cb, &rs, err);
        if (rs.oom) rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
        struct clarity_fleet_trend t = {.runs = rs.n, .regressed = rs.regressed, .mean_duration_ms = mean(rs.dur, rs.n),
                                        .mean_core_hours = mean(rs.ch, rs.n),
                                        .duration_trend = clarity_fleet_slope_share(rs.dur, rs.n),
                                        .core_hours_trend = clarity_fleet_slope_share(rs.ch, rs.n)};
        if (w) {
            clarity_jsonw_arr_end(w);
            clarity_jsonw_kint(w, "runs", (int64_t)t.runs);
            clarity_jsonw_kint(w, "regressed", (int64_t)t.regressed);
            clarity_jsonw_kdouble(w, "mean_duration_ms", t.mean_duration_ms);
            clarity_jsonw_kdouble(w, "mean_core_hours", t.mean_core_hours);
            clarity_jsonw_kdouble(w, "duration_trend_per_run", t.duration_trend);
            clarity_jsonw_kdouble(w, "core_hours_trend_per_run", t.core_hours_trend);
            clarity_jsonw_obj_end(w);
        } else if (fmt == CLARITY_FLEET_TEXT) {
            char runs[24], md[32], tr[24], mc[24], ct[24], rg[24];
            snprintf(runs, sizeof runs, "%zu", t.runs);
            clarity_fmt_ms(md, sizeof md, (int64_t)t.mean_duration_ms);
            snprintf(tr, sizeof tr, "%+.1f", 100 * t.duration_trend);
            snprintf(mc, sizeof mc, "%.2f", t.mean_core_hours);
            snprintf(ct, sizeof ct, "%+.1f", 100 * t.core_hours_trend);
            snprintf(rg, sizeof rg, "%zu", t.regressed);
            const char *row[] = {clarity_fleet__or_dash(ns.v[i]), runs, md, tr, mc, ct, rg};
            clarity_table_row(&sum, row);
        }
        free(rs.dur);
        free(rs.ch);
    }
    if (w) clarity_jsonw_arr_end(w);
    if (!rc && fmt == CLARITY_FLEET_TEXT) {
        if (clarity_table_write(o, &sum, 0, q->width) || (reg.nrows && (fputc('\n', o), clarity_table_write(o, &reg, 0, q->width))))
            rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the table");
        else
            clarity_fit_wrapf(o, q->width, "",
                              "%zu recurring name(s) (at least %zu runs). Each run is compared with the mean of up to "
                              "%d runs of its name before it (summary rows, not a stage-level diff): regressed when "
                              "%.2fx slower and %lld s longer, or %.2fx the core-hours and %.2f more. trend: "
                              "least-squares slope over the runs, %% of the mean per run; started: UTC day.",
                              ns.n, ns.min_runs, window, DEF(q->regress_ratio, 1.25),
                              (long long)DEF(q->regress_min_ms, 60000) / 1000, DEF(q->regress_ratio, 1.25),
                              DEF(q->regress_min_core_hours, 0.1));
    }
    clarity_table_free(&sum);
    clarity_table_free(&reg);
    for (size_t i = 0; i < ns.n; i++) free(ns.v[i]);
    free(ns.v);
    return rc;
}
