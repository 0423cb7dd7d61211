/* `clarity stragglers` as text: stages, explained fractions per group, slowest tasks. Every
 * table fits the width the caller gives; rows that would say nothing (stages too small to
 * have stragglers, groups without any) are counted, not listed. */
#include <stdio.h>
#include <string.h>
#include "clarity/report.h"
#include "report/table.h"

/* To int64 ms, toward zero; a runtime from int64-extreme times can exceed the range, which a
 * plain conversion leaves undefined: it saturates (NaN reads as unknown). */
static int64_t trunc_ms(double ms)
{
    if (ms != ms) return -1;
    return ms >= 0x1p63 ? INT64_MAX : ms <= -0x1p63 ? INT64_MIN : (int64_t)ms;
}

/* "GC, first task (JIT)" from a task's flags; "unexplained" for a straggler without cause,
 * "data skew" for a slow task with more data, "-" otherwise. */
static const char *causes_text(uint16_t f, char *buf, size_t cap)
{
    size_t w = 0;
    buf[0] = 0;
    for (int q = 0; q < CLARITY_SC_COUNT && w < cap; q++)
        if (f & (1u << q)) w += (size_t)snprintf(buf + w, cap - w, "%s%s", w ? ", " : "", clarity_scause_label(q));
    if (!w && (f & CLARITY_SF_STRAGGLER)) w += (size_t)snprintf(buf, cap, "unexplained");
    if ((f & CLARITY_SF_SLOW_DATA) && w < cap) w += (size_t)snprintf(buf + w, cap - w, "%sdata skew", w ? ", " : "");
    if (!w) snprintf(buf, cap, "-");
    return buf;
}

static const char *frac(char *buf, size_t cap, size_t k, size_t n)
{
    if (!n) snprintf(buf, cap, "-");
    else snprintf(buf, cap, "%.0f%%", 100.0 * (double)k / (double)n);
    return buf;
}

static bool small(const struct clarity_stage_strag *st)
{
    return st->with_input > 0 && st->with_input < CLARITY_STRAGGLER_MIN_RATED;
}

static const int stage_causes[] = {CLARITY_SC_SCHED_DELAY, CLARITY_SC_SHUFFLE_READ, CLARITY_SC_SHUFFLE_WRITE,
                                   CLARITY_SC_GC, CLARITY_SC_OUTPUT_SKEW, CLARITY_SC_FIRST_TASK, CLARITY_SC_SLOW_HOST};
enum { NSTAGE_CAUSES = sizeof stage_causes / sizeof *stage_causes };

static int stages(FILE *o, const struct clarity_app *a, const struct clarity_stragglers_result *r, size_t limit, size_t width)
{
    static const struct table_col found[] = {
        {"stage.att", TCOL_NUM}, {"tasks", TCOL_NUM},    {"rated", TCOL_NUM},   {"ms/MB med", TCOL_NUM},
        {"strag", TCOL_NUM},     {"expl", TCOL_NUM},     {"slow host", TCOL_HOST},
        {"bytes mx", TCOL_NUM},  {"recs mx", TCOL_NUM},  {"slow/dt", TCOL_NUM}};
    static const struct table_col why[] = {{"stage.att", TCOL_NUM}, {"strag", TCOL_NUM},  {"sched", TCOL_NUM},
                                           {"shuf rd", TCOL_NUM},   {"shuf wr", TCOL_NUM}, {"GC", TCOL_NUM},
                                           {"out sk", TCOL_NUM},    {"first", TCOL_NUM},   {"host", TCOL_NUM}};
    struct table tf, tw;
    clarity_table_init(&tf, found, sizeof found / sizeof *found);
    clarity_table_init(&tw, why, sizeof why / sizeof *why);
    size_t with = 0, shown = 0, tiny = 0, skipped = 0;
    for (size_t s = 0; s < r->nstages; s++) {
        const struct clarity_stage_strag *st = &r->stages[s];
        if (small(st)) {
            tiny++;
            continue;
        }
        skipped += st->skipped != NULL;
        if (st->skipped) continue;
        if (!st->stragglers) continue;
        with++;
        if (limit && shown >= limit) continue;
        shown++;
        const struct clarity_stage *sg = &a->stages[st->stage];
        char id[32], tk[24], rt[24], med[32], sn[24], ex[16], host[160], bm[24], rm[24], sd[40], c[NSTAGE_CAUSES][16];
        snprintf(id, sizeof id, "%lld.%d", (long long)sg->stage_id, sg->attempt);
        snprintf(tk, sizeof tk, "%zu", st->tasks);
        snprintf(rt, sizeof rt, "%zu", st->with_input);
        snprintf(med, sizeof med, "%.4g", st->median_ipr * 1e6);
        snprintf(sn, sizeof sn, "%zu", st->stragglers);
        if (st->slow_host) snprintf(host, sizeof host, "%s (%zu/%zu)", clarity_app_str(a, st->slow_host), st->slow_host_stragglers,
                                    st->stragglers);
        else snprintf(host, sizeof host, "-");
        snprintf(bm, sizeof bm, "%.1fx", st->bytes_max_over_median);
        snprintf(rm, sizeof rm, "%.1fx", st->records_max_over_median);
        snprintf(sd, sizeof sd, "%zu/%zu", st->slow_tasks_more_data, st->slow_tasks);
        const char *rf[] = {id, tk, rt, med, sn, frac(ex, sizeof ex, st->explained, st->stragglers), host, bm, rm, sd};
        clarity_table_row(&tf, rf);
        const char *rw[2 + NSTAGE_CAUSES] = {id, sn};
        for (int q = 0; q < NSTAGE_CAUSES; q++) rw[2 + q] = frac(c[q], sizeof c[q], st->by_cause[stage_causes[q]], st->stragglers);
        clarity_table_row(&tw, rw);
    }
    int rc = 0;
    fprintf(o, "\nstages with stragglers (%zu of %zu stage attempts)\n", with, r->nstages);
    if (with) {
        rc |= clarity_table_write(o, &tf, 2, width);
        if (shown < with) fprintf(o, "  ... %zu more (--limit 0 shows all)\n", with - shown);
        fprintf(o, "\nwhat explains them, share of each stage's stragglers (same stages)\n");
        rc |= clarity_table_write(o, &tw, 2, width);
        if (shown < with) fprintf(o, "  ... %zu more (--limit 0 shows all)\n", with - shown);
    } else {
        fprintf(o, "  none\n");
    }
    clarity_table_free(&tf);
    clarity_table_free(&tw);
    if (skipped) fprintf(o, "  %zu stage attempt(s) not rated: no task read input or shuffle data\n", skipped);
    if (tiny) {
        /* two lines where the first fits, else one paragraph wrapped to the width */
        char first[160];
        int n = snprintf(first, sizeof first, "  %zu stage attempt(s) with fewer than %d rated tasks not examined: among so few tasks",
                         tiny, CLARITY_STRAGGLER_MIN_RATED);
        if (!width || (size_t)n <= width) fprintf(o, "%s\n  the median is no measure of a normal one\n", first);
        else clarity_fit_wrapf(o, width, "  ", "%s the median is no measure of a normal one", first + 2);
    }
    if (with) {
        clarity_fit_wrap(o, width, "  ", "expl: explained by at least one cause; slow host: the host with most of the stage's stragglers "
                                 "(its stragglers/all); slow/dt: tasks >= 1.5x the median runtime that "
                                 "also had >= 1.5x the median bytes or records (data skew) / all such slow tasks");
    }
    return rc;
}

static void group_label(char *buf, size_t cap, const struct clarity_straggler_group *g)
{
    if (g->kind == CLARITY_GROUP_APP) snprintf(buf, cap, "app");
    else snprintf(buf, cap, "%s %lld", clarity_group_kind_name(g->kind), (long long)g->id);
}

static int groups(FILE *o, const struct clarity_stragglers_result *r, size_t limit, size_t width)
{
    static const struct table_col share[] = {{"group", TCOL_FIXED}, {"tasks", TCOL_NUM}, {"strag", TCOL_NUM},
                                             {"thesis", TCOL_NUM},  {"any", TCOL_NUM}};
    static const struct table_col cause[] = {{"group", TCOL_FIXED}, {"sched", TCOL_NUM}, {"shuf rd", TCOL_NUM},
                                             {"shuf wr", TCOL_NUM}, {"GC", TCOL_NUM},    {"out sk", TCOL_NUM},
                                             {"first", TCOL_NUM},   {"host", TCOL_NUM},  {"exec", TCOL_NUM}};
    struct table ts, tc;
    clarity_table_init(&ts, share, sizeof share / sizeof *share);
    clarity_table_init(&tc, cause, sizeof cause / sizeof *cause);
    size_t none = 0, with = 0, shown = 0;
    for (size_t i = 0; i < r->ngroups; i++) {
        const struct clarity_straggler_group *g = &r->groups[i];
        if (!g->stragglers) {
            none++;
            continue;
        }
        with++;
        if (limit && shown >= limit) continue;
        shown++;
        char id[48], tk[24], sn[24], th[16], an[16], c[CLARITY_SC_COUNT][16];
        group_label(id, sizeof id, g);
        snprintf(tk, sizeof tk, "%zu", g->tasks);
        snprintf(sn, sizeof sn, "%zu", g->stragglers);
        const char *rs[] = {id, tk, sn, frac(th, sizeof th, g->explained_thesis, g->stragglers),
                            frac(an, sizeof an, g->explained, g->stragglers)};
        clarity_table_row(&ts, rs);
        const char *rc[1 + CLARITY_SC_COUNT] = {id};
        for (int q = 0; q < CLARITY_SC_COUNT; q++) rc[1 + q] = frac(c[q], sizeof c[q], g->by_cause[q], g->stragglers);
        clarity_table_row(&tc, rc);
    }
    int rc = 0;
    fprintf(o, "\nexplained stragglers per group (thesis Fig. 4.12)\n");
    if (with) {
        rc |= clarity_table_write(o, &ts, 2, width);
        if (shown < with) fprintf(o, "  ... %zu more (--limit 0 shows all)\n", with - shown);
        fprintf(o, "\nwhat explains them, share of each group's stragglers (same groups)\n");
        rc |= clarity_table_write(o, &tc, 2, width);
        if (shown < with) fprintf(o, "  ... %zu more (--limit 0 shows all)\n", with - shown);
    } else {
        fprintf(o, "  none\n");
    }
    if (none) fprintf(o, "  %zu group(s) without stragglers, not listed (--json has them)\n", none);
    clarity_fit_wrap(o, width, "  ", "thesis: explained by its causes (scheduler delay, shuffle read/write, GC, output skew, "
                             "first task); any: also slow host or executor");
    clarity_table_free(&ts);
    clarity_table_free(&tc);
    return rc;
}

static int slowest(FILE *o, const struct clarity_app *a, const struct clarity_stragglers_result *r, size_t width)
{
    static const struct table_col cols[] = {{"task", TCOL_NUM},    {"stage.att", TCOL_NUM}, {"host", TCOL_HOST},
                                            {"executor", TCOL_ID}, {"duration", TCOL_NUM},  {"x median", TCOL_NUM},
                                            {"cause", TCOL_NAME}};
    struct table t;
    clarity_table_init(&t, cols, sizeof cols / sizeof *cols);
    for (size_t k = 0; k < r->ntop; k++) {
        const struct clarity_straggler_top *top = &r->top[k];
        const struct clarity_task_comp *tc = &top->t;
        const struct clarity_stage *sg = &a->stages[tc->stage];
        char id[24], st[32], rat[16], d[32], cz[256];
        snprintf(id, sizeof id, "%lld", (long long)clarity_icol_get(&a->tasks.task_id, tc->row));
        snprintf(st, sizeof st, "%lld.%d", (long long)sg->stage_id, sg->attempt);
        if (top->ratio >= 0.1) snprintf(rat, sizeof rat, "%.1fx", top->ratio);
        else if (top->ratio > 0) snprintf(rat, sizeof rat, "<0.1x");
        else snprintf(rat, sizeof rat, "-");
        const char *row[] = {id, st, clarity_app_str(a, tc->host), clarity_app_str(a, tc->executor),
                             clarity_fmt_ms(d, sizeof d, trunc_ms(tc->runtime_ms)), rat, causes_text(top->flags, cz, sizeof cz)};
        clarity_table_row(&t, row);
    }
    fprintf(o, "\nslowest tasks\n");
    int rc = clarity_table_write(o, &t, 2, width);
    clarity_table_free(&t);
    fprintf(o, "  x median: runtime per input byte over the stage's median\n");
    return rc;
}

int clarity_report_stragglers_text(FILE *o, const struct clarity_app *a, const struct clarity_stragglers_result *r,
                                   const struct stragglers_report_options *opt, struct clarity_error *err)
{
    size_t width = opt ? opt->width : 100, limit = opt ? opt->stage_limit : 0;
    char line[512];
    const struct clarity_task_counts *c = &r->counts;
    clarity_fit_line(o, width, "application  %s  \"%s\"", clarity_app_str(a, a->app_id), clarity_app_str(a, a->name));
    clarity_fit_line(o, width, "source       %s", a->source_path ? a->source_path : "-");
    clarity_fit_wrap(o, width, "stragglers   ",
             "successful tasks whose runtime per input byte is >= 1.5 x their stage's median; input = shuffle bytes "
             "read if any, else input bytes; tasks without input are not rated");
    snprintf(line, sizeof line, "%zu successful attempts rated by stage; left out: %zu failed, %zu killed, %zu without end",
             c->n, c->failed, c->killed, c->without_end);
    clarity_fit_wrap(o, width, "             ", line);
    char sn[256], ns[400];
    if (clarity_report_storage_note(a, sn, sizeof sn)) {
        snprintf(ns, sizeof ns, "%s: slow reads or writes there cannot be found; unexplained stragglers may be due to them",
                 sn);
        clarity_fit_wrap(o, width, "not seen     ", ns);
    } else
        clarity_fit_wrap(o, width, "not seen     ",
                 "input read (HDFS) and output write times are not in standard logs: those causes cannot be found; "
                 "unexplained stragglers may be due to them");
    if (clarity_report_photon_wait(a, sn, sizeof sn)) clarity_fit_wrap(o, width, "photon       ", sn);
    int rc = stages(o, a, r, limit, width);
    rc |= groups(o, r, limit, width);
    rc |= slowest(o, a, r, width);
    if (rc) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the report");
    return clarity_report_status(o, err);
}
