/* `clarity stragglers` as text: stages, explained fractions per group, slowest tasks. */
#include <stdio.h>
#include <string.h>
#include "clarity/report.h"

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

static void frac(FILE *o, size_t k, size_t n)
{
    if (!n) fprintf(o, " %7s", "-");
    else fprintf(o, " %6.0f%%", 100.0 * (double)k / (double)n);
}

int clarity_report_stragglers_text(FILE *o, const struct clarity_app *a, const struct clarity_stragglers_result *r,
                           const struct stragglers_report_options *opt, struct clarity_error *err)
{
    char b1[64], b2[64], cz[256];
    const struct clarity_task_counts *c = &r->counts;
    fprintf(o, "application  %s  \"%s\"\n", clarity_app_str(a, a->app_id), clarity_app_str(a, a->name));
    fprintf(o, "source       %s\n", a->source_path ? a->source_path : "-");
    fprintf(o, "stragglers   successful tasks whose runtime per input byte is >= 1.5 x their stage's median; input =\n"
               "             shuffle bytes read if any, else input bytes; tasks without input are not rated\n");
    fprintf(o, "             %zu successful attempts rated by stage; left out: %zu failed, %zu killed, %zu without end\n",
            c->n, c->failed, c->killed, c->without_end);
    char sn[256];
    if (clarity_report_storage_note(a, sn, sizeof sn))
        fprintf(o, "not seen     %s:\n             slow reads or writes there cannot be found; unexplained stragglers "
                   "may be due to them\n", sn);
    else
        fprintf(o, "not seen     input read (HDFS) and output write times are not in standard logs: those causes cannot\n"
                   "             be found; unexplained stragglers may be due to them\n");
    if (clarity_report_photon_wait(a, sn, sizeof sn)) fprintf(o, "photon       %s\n", sn);

    size_t shown = 0, with = 0;
    for (size_t s = 0; s < r->nstages; s++) with += r->stages[s].stragglers > 0;
    fprintf(o, "\nstages with stragglers (%zu of %zu stage attempts)\n", with, r->nstages);
    fprintf(o, "%9s %6s %6s %10s %6s %6s %7s %7s %7s %7s %7s %7s %7s  %-26s %8s %8s %7s\n", "stage.att", "tasks", "rated",
            "ms/MB med", "strag", "expl", "sched", "shuf rd", "shuf wr", "GC", "out sk", "first", "host",
            "slow host (stragglers)", "bytes mx", "recs mx", "slow/dt");
    for (size_t s = 0; s < r->nstages; s++) {
        const struct clarity_stage_strag *st = &r->stages[s];
        if (!st->stragglers) continue;
        if (opt && opt->stage_limit && shown++ >= opt->stage_limit) {
            fprintf(o, "  ... %zu more (--limit 0 shows all)\n", with - opt->stage_limit);
            break;
        }
        const struct clarity_stage *sg = &a->stages[st->stage];
        snprintf(b1, sizeof b1, "%lld.%d", (long long)sg->stage_id, sg->attempt);
        fprintf(o, "%9s %6zu %6zu %10.4g %6zu", b1, st->tasks, st->with_input, st->median_ipr * 1e6, st->stragglers);
        frac(o, st->explained, st->stragglers);
        static const int cols[] = {CLARITY_SC_SCHED_DELAY, CLARITY_SC_SHUFFLE_READ, CLARITY_SC_SHUFFLE_WRITE,
                                   CLARITY_SC_GC, CLARITY_SC_OUTPUT_SKEW, CLARITY_SC_FIRST_TASK, CLARITY_SC_SLOW_HOST};
        for (size_t q = 0; q < sizeof cols / sizeof *cols; q++) frac(o, st->by_cause[cols[q]], st->stragglers);
        if (st->slow_host) snprintf(b2, sizeof b2, "%.18s (%zu/%zu)", clarity_app_str(a, st->slow_host),
                                    st->slow_host_stragglers, st->stragglers);
        else snprintf(b2, sizeof b2, "-");
        fprintf(o, "  %-26s %7.1fx %7.1fx %3zu/%-3zu\n", b2, st->bytes_max_over_median, st->records_max_over_median,
                st->slow_tasks_more_data, st->slow_tasks);
    }
    if (!with) fprintf(o, "  none\n");
    size_t skipped = 0;
    for (size_t s = 0; s < r->nstages; s++) skipped += r->stages[s].skipped != NULL;
    if (skipped) fprintf(o, "  %zu stage attempt(s) not rated: no task read input or shuffle data\n", skipped);
    fprintf(o, "  expl: explained by at least one cause; slow/dt: tasks >= 1.5x the median runtime that also had\n"
               "  >= 1.5x the median bytes or records (data skew) / all such slow tasks\n");

    fprintf(o, "\nexplained stragglers per group (thesis Fig. 4.12)\n");
    fprintf(o, "%-5s %6s %7s %6s %7s %7s %7s %7s %7s %7s %7s %7s %7s %7s\n", "kind", "id", "tasks", "strag",
            "thesis", "any", "sched", "shuf rd", "shuf wr", "GC", "out sk", "first", "host", "exec");
    for (size_t i = 0; i < r->ngroups; i++) {
        const struct clarity_straggler_group *g = &r->groups[i];
        if (g->kind == CLARITY_GROUP_APP) snprintf(b1, sizeof b1, "-");
        else snprintf(b1, sizeof b1, "%lld", (long long)g->id);
        fprintf(o, "%-5s %6s %7zu %6zu", clarity_group_kind_name(g->kind), b1, g->tasks, g->stragglers);
        frac(o, g->explained_thesis, g->stragglers);
        frac(o, g->explained, g->stragglers);
        for (int q = 0; q < CLARITY_SC_COUNT; q++) frac(o, g->by_cause[q], g->stragglers);
        fputc('\n', o);
    }
    fprintf(o, "  thesis: explained by its causes (scheduler delay, shuffle read/write, GC, output skew, first\n"
               "  task); any: also slow host or executor\n");

    fprintf(o, "\nslowest tasks\n");
    fprintf(o, "%8s %9s %-20s %-8s %10s %8s  %s\n", "task", "stage.att", "host", "executor", "duration", "x median",
            "cause");
    for (size_t k = 0; k < r->ntop; k++) {
        const struct clarity_straggler_top *top = &r->top[k];
        const struct clarity_task_comp *t = &top->t;
        const struct clarity_stage *sg = &a->stages[t->stage];
        snprintf(b1, sizeof b1, "%lld.%d", (long long)sg->stage_id, sg->attempt);
        char rat[16];
        if (top->ratio >= 0.1) snprintf(rat, sizeof rat, "%.1fx", top->ratio);
        else if (top->ratio > 0) snprintf(rat, sizeof rat, "<0.1x");
        else snprintf(rat, sizeof rat, "-");
        fprintf(o, "%8lld %9s %-20.20s %-8.8s %10s %8s  %s\n", (long long)clarity_icol_get(&a->tasks.task_id, t->row),
                b1, clarity_app_str(a, t->host), clarity_app_str(a, t->executor),
                clarity_fmt_ms(b2, sizeof b2, trunc_ms(t->runtime_ms)), rat, causes_text(top->flags, cz, sizeof cz));
    }
    fprintf(o, "  x median: runtime per input byte over the stage's median\n");
    return clarity_report_status(o, err);
}
