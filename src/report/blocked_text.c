/* `clarity blocked` as text: one row per group, then the approximations and a verdict each. */
#include <stdio.h>
#include "clarity/report.h"

static void pct(FILE *o, const struct clarity_blocked_without *w)
{
    if (!w->available) fprintf(o, " %8s", "-");
    else fprintf(o, " %7.1f%%", 100 * w->improvement);
}

static const int columns[] = {CLARITY_RES_NETWORK, CLARITY_RES_DISK, CLARITY_RES_SHUFFLE_WRITE, CLARITY_RES_GC,
                              CLARITY_RES_SCHED_DELAY, CLARITY_RES_STRAGGLERS, CLARITY_RES_NON_CPU};

/* Rounded to int64 ms; a replay of int64-extreme times can exceed the range, which a plain
 * conversion leaves undefined: such a span saturates (NaN reads as unknown). */
static int64_t round_ms(double ms)
{
    if (ms != ms) return -1;
    double r = ms + 0.5;
    return r >= 0x1p63 ? INT64_MAX : r <= -0x1p63 ? INT64_MIN : (int64_t)r;
}

int clarity_report_blocked_text(FILE *o, const struct clarity_app *a, const struct clarity_blocked_result *r,
                        struct clarity_error *err)
{
    char b1[32], b2[32], v[512];
    const struct clarity_task_counts *c = &r->counts;
    fprintf(o, "application  %s  \"%s\"\n", clarity_app_str(a, a->app_id), clarity_app_str(a, a->name));
    fprintf(o, "source       %s\n", a->source_path ? a->source_path : "-");
    fprintf(o, "replay       %zu successful attempts in launch order on %s slots; left out: %zu failed, %zu killed, "
               "%zu without end, %zu other\n",
            c->n, r->slots == CLARITY_SLOTS_CONFIGURED ? "configured (executor cores / spark.task.cpus)"
                                                         : "observed (peak concurrency up to 40 tasks, average above)",
            c->failed, c->killed, c->without_end, c->other_end);
    fprintf(o, "             stages overlapping in time are replayed together; gaps between stages and driver time are "
               "not replayed (idle column)\n");
    if (r->clamped) fprintf(o, "             %zu task(s) had metrics exceeding their runtime: clamped\n", r->clamped);
    char sn[256];
    if (clarity_report_storage_note(a, sn, sizeof sn)) fprintf(o, "storage      %s\n", sn);
    if (clarity_report_photon_wait(a, sn, sizeof sn)) fprintf(o, "photon       %s\n", sn);
    fprintf(o, "\nimprovement if the tasks never blocked on the resource (simulated without / simulated)\n");
    fprintf(o, "%-5s %6s %7s %6s %6s %10s %10s %10s %7s %8s %8s %8s %8s %8s %8s %8s\n", "kind", "id", "tasks",
            "stages", "slots", "actual", "idle", "simulated", "error", "network", "disk*", "shuf wr", "GC", "sched",
            "straggl", "non-CPU");
    for (size_t i = 0; i < r->ngroups; i++) {
        const struct clarity_blocked_group *g = &r->groups[i];
        char slots[24];
        if (g->tasks == 0) snprintf(slots, sizeof slots, "-");
        else if (g->slots_min == g->slots_max) snprintf(slots, sizeof slots, "%d", g->slots_min);
        else snprintf(slots, sizeof slots, "%d-%d", g->slots_min, g->slots_max);
        char id[24];
        if (g->kind == CLARITY_GROUP_APP) snprintf(id, sizeof id, "-");
        else snprintf(id, sizeof id, "%lld", (long long)g->id);
        fprintf(o, "%-5s %6s %7zu %6zu %6s %10s %10s %10s", clarity_group_kind_name(g->kind), id, g->tasks,
                g->stages, slots, clarity_fmt_ms(b1, sizeof b1, g->actual_ms), clarity_fmt_ms(b2, sizeof b2, g->idle_ms),
                clarity_fmt_ms(v, sizeof v, round_ms(g->simulated_ms)));
        if (g->has_error) fprintf(o, " %6.1f%%", 100 * g->replay_error);
        else fprintf(o, " %7s", "-");
        for (size_t k = 0; k < sizeof columns / sizeof *columns; k++) pct(o, &g->without[columns[k]]);
        fputc('\n', o);
    }
    fprintf(o, "\napproximations\n");
    static const char *const label[CLARITY_RES_COUNT] = {"network", "disk*", "shuffle read", "shuffle write", "GC",
                                                         "sched", "non-CPU", "stragglers"};
    for (int k = 0; k < CLARITY_RES_COUNT; k++) {
        if (k == CLARITY_RES_SHUFFLE_READ) continue;   /* same figure as network here */
        fprintf(o, "  %-13s %s\n", label[k], clarity_blocked_resource_note(r, (enum clarity_resource)k));
    }
    fprintf(o, "  %-13s %s\n", "shuffle rd", "same as network on standard logs (Fetch Wait Time); listed in --json");
    fprintf(o, "  %-13s %s\n", "cpu", "blocked-time analysis cannot bound CPU (thesis 3.3.3)");
    fprintf(o, "\nverdicts\n");
    for (size_t i = 0; i < r->ngroups; i++) {
        const struct clarity_blocked_group *g = &r->groups[i];
        clarity_blocked_verdict(g, v, sizeof v);
        char id[24];
        if (g->kind == CLARITY_GROUP_APP) snprintf(id, sizeof id, "app");
        else snprintf(id, sizeof id, "%s %lld", clarity_group_kind_name(g->kind), (long long)g->id);
        fprintf(o, "  %-9s %s\n", id, v);
    }
    return clarity_report_status(o, err);
}
