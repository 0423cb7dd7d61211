/* `clarity blocked` as text: the groups where blocking cost the most first, with a line for
 * those where nothing can be saved, then how each was replayed, the approximations and a
 * verdict each. Every table fits the width the caller gives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/report.h"
#include "report/table.h"

static const int columns[] = {CLARITY_RES_NETWORK, CLARITY_RES_DISK, CLARITY_RES_SHUFFLE_WRITE, CLARITY_RES_GC,
                              CLARITY_RES_SCHED_DELAY, CLARITY_RES_STRAGGLERS, CLARITY_RES_NON_CPU};
enum { NCOLS = sizeof columns / sizeof *columns };

/* Below this, an improvement is not worth a line: the verdicts' threshold too. */
#define SAVE_MIN 0.01

/* Rounded to int64 ms; a replay of int64-extreme times can exceed the range, which a plain
 * conversion leaves undefined: such a span saturates (NaN reads as unknown). */
static int64_t round_ms(double ms)
{
    if (ms != ms) return -1;
    double r = ms + 0.5;
    return r >= 0x1p63 ? INT64_MAX : r <= -0x1p63 ? INT64_MIN : (int64_t)r;
}

/* The most one named resource could save ("all non-CPU" is a bound over all of them, not one
 * to act on). */
static double best_saving(const struct clarity_blocked_group *g)
{
    double best = 0;
    for (int k = 0; k < NCOLS; k++)
        if (columns[k] != CLARITY_RES_NON_CPU && g->without[columns[k]].available && g->without[columns[k]].improvement > best)
            best = g->without[columns[k]].improvement;
    return best;
}

static int by_saving(const void *x, const void *y, void *ctx)
{
    const struct clarity_blocked_result *r = ctx;
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    double a = best_saving(&r->groups[i]), b = best_saving(&r->groups[j]);
    if (a != b) return a < b ? 1 : -1;
    return (i > j) - (i < j);   /* the analysis' order: jobs, SQL queries, the application */
}

static int by_index(const void *x, const void *y, void *ctx)
{
    (void)ctx;
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    return (i > j) - (i < j);
}

static void group_label(char *buf, size_t cap, const struct clarity_blocked_group *g)
{
    if (g->kind == CLARITY_GROUP_APP) snprintf(buf, cap, "app");
    else snprintf(buf, cap, "%s %lld", clarity_group_kind_name(g->kind), (long long)g->id);
}

static const char *pct(char *buf, size_t cap, const struct clarity_blocked_without *w)
{
    if (!w->available) snprintf(buf, cap, "-");
    else snprintf(buf, cap, "%.1f%%", 100 * w->improvement);
    return buf;
}

/* One line naming every group where nothing can be saved, "job 0, 1, 3; sql 2", cut to the
 * width (--json has each). */
static void nothing_line(FILE *o, const struct clarity_blocked_result *r, const size_t *order, size_t from, size_t width)
{
    if (from >= r->ngroups) return;
    size_t cap = 64 + 24 * (r->ngroups - from), n = 0;
    char *buf = malloc(cap);
    if (!buf) return;
    int kind = -1;
    n += (size_t)snprintf(buf + n, cap - n, "  nothing to save in %zu group(s) (no resource %.0f%% or more): ", r->ngroups - from,
                          100 * SAVE_MIN);
    for (size_t k = from; k < r->ngroups; k++) {
        const struct clarity_blocked_group *g = &r->groups[order[k]];
        if (g->kind == CLARITY_GROUP_APP) n += (size_t)snprintf(buf + n, cap - n, "%sapp", kind >= 0 ? "; " : "");
        else if (g->kind != kind) n += (size_t)snprintf(buf + n, cap - n, "%s%s %lld", kind >= 0 ? "; " : "",
                                                        clarity_group_kind_name(g->kind), (long long)g->id);
        else n += (size_t)snprintf(buf + n, cap - n, ", %lld", (long long)g->id);
        kind = g->kind;
    }
    if (width && n > width) {
        /* keep whole ids: cut at the last separator that fits, and say how the rest is seen */
        size_t cut = width - 25;
        while (cut && buf[cut] != ',' && buf[cut] != ';') cut--;
        snprintf(buf + cut, cap - cut, ", ... (--wide lists all)");
    }
    fprintf(o, "%s\n", buf);
    free(buf);
}

int clarity_report_blocked_text(FILE *o, const struct clarity_app *a, const struct clarity_blocked_result *r,
                                const struct blocked_report_options *opt, struct clarity_error *err)
{
    size_t width = opt ? opt->width : 100, limit = opt ? opt->limit : 0;
    char b1[32], b2[32], b3[32], v[512], line[512];
    const struct clarity_task_counts *c = &r->counts;
    clarity_fit_line(o, width, "application  %s  \"%s\"", clarity_app_str(a, a->app_id), clarity_app_str(a, a->name));
    clarity_fit_line(o, width, "source       %s", a->source_path ? a->source_path : "-");
    snprintf(line, sizeof line,
             "%zu successful attempts in launch order on %s slots; left out: %zu failed, %zu killed, %zu without end, "
             "%zu other",
             c->n, r->slots == CLARITY_SLOTS_CONFIGURED ? "configured (executor cores / spark.task.cpus)"
                                                          : "observed (peak concurrency up to 40 tasks, average above)",
             c->failed, c->killed, c->without_end, c->other_end);
    clarity_fit_wrap(o, width, "replay       ", line);
    clarity_fit_wrap(o, width, "             ",
             "stages overlapping in time are replayed together; gaps between stages and driver time are not "
             "replayed (idle column)");
    if (r->clamped) fprintf(o, "             %zu task(s) had metrics exceeding their runtime: clamped\n", r->clamped);
    char sn[256];
    if (clarity_report_storage_note(a, sn, sizeof sn)) clarity_fit_wrap(o, width, "storage      ", sn);
    if (clarity_report_photon_wait(a, sn, sizeof sn)) clarity_fit_wrap(o, width, "photon       ", sn);

    size_t *order = malloc((r->ngroups ? r->ngroups : 1) * sizeof *order);
    if (!order) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the report");
    for (size_t i = 0; i < r->ngroups; i++) order[i] = i;
    qsort_r(order, r->ngroups, sizeof *order, by_saving, (void *)r);
    size_t worth = 0;   /* groups where some resource saves SAVE_MIN or more, first in order */
    while (worth < r->ngroups && best_saving(&r->groups[order[worth]]) >= SAVE_MIN) worth++;
    size_t shown = limit && limit < worth ? limit : worth;
    /* the groups with nothing to save are listed in the analysis' order */
    qsort_r(order + worth, r->ngroups - worth, sizeof *order, by_index, NULL);

    static const struct table_col imp_cols[] = {{"group", TCOL_FIXED}, {"actual", TCOL_NUM},  {"network", TCOL_NUM},
                                                {"disk*", TCOL_NUM},   {"shuf wr", TCOL_NUM}, {"GC", TCOL_NUM},
                                                {"sched", TCOL_NUM},   {"straggl", TCOL_NUM}, {"non-CPU", TCOL_NUM}};
    static const struct table_col rep_cols[] = {{"group", TCOL_FIXED},    {"tasks", TCOL_NUM}, {"stages", TCOL_NUM},
                                                {"slots", TCOL_NUM},      {"actual", TCOL_NUM}, {"idle", TCOL_NUM},
                                                {"simulated", TCOL_NUM}, {"error", TCOL_NUM}};
    struct table ti, tr;
    clarity_table_init(&ti, imp_cols, sizeof imp_cols / sizeof *imp_cols);
    clarity_table_init(&tr, rep_cols, sizeof rep_cols / sizeof *rep_cols);
    for (size_t k = 0; k < r->ngroups; k++) {
        const struct clarity_blocked_group *g = &r->groups[order[k]];
        char id[48], p[NCOLS][16], tk[24], st[24], slots[24], er[16];
        group_label(id, sizeof id, g);
        if (k < shown) {
            const char *row[1 + 1 + NCOLS];
            row[0] = id;
            row[1] = clarity_fmt_ms(b1, sizeof b1, g->actual_ms);
            for (int q = 0; q < NCOLS; q++) row[2 + q] = pct(p[q], sizeof p[q], &g->without[columns[q]]);
            clarity_table_row(&ti, row);
        }
        if (g->tasks == 0) snprintf(slots, sizeof slots, "-");
        else if (g->slots_min == g->slots_max) snprintf(slots, sizeof slots, "%d", g->slots_min);
        else snprintf(slots, sizeof slots, "%d-%d", g->slots_min, g->slots_max);
        snprintf(tk, sizeof tk, "%zu", g->tasks);
        snprintf(st, sizeof st, "%zu", g->stages);
        if (g->has_error) snprintf(er, sizeof er, "%.1f%%", 100 * g->replay_error);
        else snprintf(er, sizeof er, "-");
        const char *rr[] = {id, tk, st, slots, clarity_fmt_ms(b1, sizeof b1, g->actual_ms), clarity_fmt_ms(b2, sizeof b2, g->idle_ms),
                            clarity_fmt_ms(b3, sizeof b3, round_ms(g->simulated_ms)), er};
        if (!limit || k < limit) clarity_table_row(&tr, rr);
    }
    /* two lines where the first fits, else one paragraph wrapped to the width */
    static const char head[] = "improvement if the tasks never blocked on the resource (simulated without / simulated),";
    if (!width || sizeof head - 1 <= width) fprintf(o, "\n%s\nlargest saving first\n", head);
    else clarity_fit_wrapf(o, width, "\n", "%s largest saving first", head);
    int trc = 0;
    if (shown) trc |= clarity_table_write(o, &ti, 2, width);
    if (shown < worth) fprintf(o, "  ... %zu more group(s) with a saving (--limit 0 shows all)\n", worth - shown);
    nothing_line(o, r, order, worth, width);
    fprintf(o, "\nreplay of each group, same order\n");
    trc |= clarity_table_write(o, &tr, 2, width);
    if (limit && limit < r->ngroups) fprintf(o, "  ... %zu more (--limit 0 shows all)\n", r->ngroups - limit);
    clarity_table_free(&ti);
    clarity_table_free(&tr);
    if (trc) {
        free(order);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory writing the report");
    }

    fprintf(o, "\napproximations\n");
    static const char *const label[CLARITY_RES_COUNT] = {"network", "disk*", "shuffle read", "shuffle write", "GC",
                                                         "sched", "non-CPU", "stragglers"};
    for (int k = 0; k < CLARITY_RES_COUNT; k++) {
        if (k == CLARITY_RES_SHUFFLE_READ) continue;   /* same figure as network here */
        snprintf(line, sizeof line, "  %-13s ", label[k]);
        const char *note = clarity_blocked_resource_note(r, (enum clarity_resource)k);
        clarity_fit_wrap(o, width, line, note ? note : "");
    }
    clarity_fit_wrap(o, width, "  shuffle rd    ", "same as network on standard logs (Fetch Wait Time); listed in --json");
    clarity_fit_wrap(o, width, "  cpu           ", "blocked-time analysis cannot bound CPU (thesis 3.3.3)");
    fprintf(o, "\nverdicts, largest saving first\n");
    for (size_t k = 0; k < shown; k++) {
        const struct clarity_blocked_group *g = &r->groups[order[k]];
        char id[48];
        clarity_blocked_verdict(g, v, sizeof v);
        group_label(id, sizeof id, g);
        snprintf(line, sizeof line, "  %-9s ", id);
        clarity_fit_wrap(o, width, line, v);
    }
    if (shown < worth) fprintf(o, "  ... %zu more (--limit 0 shows all)\n", worth - shown);
    if (worth < r->ngroups)
        fprintf(o, "  %zu group(s): nothing to save (no resource %.0f%% or more), listed above\n", r->ngroups - worth,
                100 * SAVE_MIN);
    free(order);
    return clarity_report_status(o, err);
}
