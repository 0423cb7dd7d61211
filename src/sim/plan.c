/* A replay plan: which tasks replay together, on how many slots, in which order. Built once
 * per group of tasks (a job, a SQL query, the application) and run once per what-if. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/sim.h"
#include "sim/components.h"

/* idx is 32-bit (16 B a key, not 24): two n-sized arrays of keys are live at the peak of a
   replay over every attempt of an application (findings at 10 M tasks); the task view
   already refuses tables past 32-bit rows, and a larger n is refused below */
struct key { int64_t launch; uint32_t unit; uint32_t idx; };

static int by_unit_launch(const void *pa, const void *pb)
{
    const struct key *a = pa, *b = pb;
    if (a->unit != b->unit) return a->unit < b->unit ? -1 : 1;
    if (a->launch != b->launch) return a->launch < b->launch ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

static int by_launch(const void *pa, const void *pb)
{
    const struct key *a = pa, *b = pb;
    if (a->launch != b->launch) return a->launch < b->launch ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

struct unit_span { double start, cfin; size_t first, n; uint32_t unit; };

static int by_start(const void *pa, const void *pb)
{
    const struct unit_span *a = pa, *b = pb;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return (a->unit > b->unit) - (a->unit < b->unit);
}

void clarity_replay_plan_free(struct clarity_replay_plan *p)
{
    free(p->order);
    free(p->comp);
    free(p->scratch);
    memset(p, 0, sizeof *p);
}

int clarity_replay_plan_build(const struct clarity_sim_task *t, size_t n, enum clarity_slot_mode mode,
                              const struct clarity_app *a, struct clarity_replay_plan *out, struct clarity_error *err)
{
    memset(out, 0, sizeof *out);
    out->ntasks = n;
    if (n == 0) return 0;
    if (n > UINT32_MAX)
        return clarity_error_set(err, CLARITY_EFORMAT, NULL, 0, 0, "%zu tasks to replay: more than a 32-bit index holds", n);
    struct key *k = malloc(n * sizeof *k);
    struct unit_span *u = malloc(n * sizeof *u);
    struct clarity_sim_task *tmp = malloc(n * sizeof *tmp);
    out->order = malloc(n * sizeof *out->order);
    out->comp = malloc(n * sizeof *out->comp);
    out->scratch = malloc(2 * n * sizeof *out->scratch);   /* runtimes, then the slot heap */
    struct key *buf = malloc(n * sizeof *buf);
    /* configured slots: one executor-core index for every component, not a scan each */
    struct clarity__slot_index index = {0};
    bool configured = mode == CLARITY_SLOTS_CONFIGURED && a;
    if (!k || !u || !tmp || !buf || !out->order || !out->comp || !out->scratch ||
        (configured && clarity__slot_index_build(a, &index, NULL))) {
        free(k); free(u); free(tmp); free(buf);
        clarity_replay_plan_free(out);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory building a replay plan");
    }
    for (size_t i = 0; i < n; i++) k[i] = (struct key){t[i].launch_ms, t[i].unit, (uint32_t)i};
    qsort(k, n, sizeof *k, by_unit_launch);

    size_t nu = 0;
    for (size_t i = 0; i < n; i++) {
        const struct clarity_sim_task *x = &t[k[i].idx];
        double cfin = (double)x->finish_ms - (x->trim_ms > 0 ? x->trim_ms : 0);
        if (i == 0 || k[i].unit != k[i - 1].unit) {
            u[nu++] = (struct unit_span){(double)x->launch_ms, cfin, i, 1, k[i].unit};
        } else {
            struct unit_span *s = &u[nu - 1];
            s->n++;
            if (cfin > s->cfin) s->cfin = cfin;   /* start is the first, launch-sorted */
        }
    }
    qsort(u, nu, sizeof *u, by_start);

    /* Connected components of overlapping unit spans, swept in start order. */
    size_t used = 0, ui = 0;
    while (ui < nu) {
        size_t uj = ui + 1;
        double reach = u[ui].cfin;
        while (uj < nu && u[uj].start < reach) {
            if (u[uj].cfin > reach) reach = u[uj].cfin;
            uj++;
        }
        struct clarity_replay_component *c = &out->comp[out->ncomp++];
        c->first = used;
        c->nunits = uj - ui;
        size_t m = 0;
        for (size_t q = ui; q < uj; q++) m += u[q].n;
        size_t w = 0;
        for (size_t q = ui; q < uj; q++)
            for (size_t r = 0; r < u[q].n; r++) buf[w++] = k[u[q].first + r];
        qsort(buf, m, sizeof *buf, by_launch);
        int64_t lo = t[buf[0].idx].launch_ms, hi = t[buf[0].idx].finish_ms;
        for (size_t r = 0; r < m; r++) {
            const struct clarity_sim_task *x = &t[buf[r].idx];
            out->order[used + r] = buf[r].idx;
            tmp[r] = *x;
            if (x->launch_ms < lo) lo = x->launch_ms;
            if (x->finish_ms > hi) hi = x->finish_ms;
        }
        c->n = m;
        c->start_ms = lo;
        c->end_ms = hi;
        c->slots = clarity__component_slots(configured ? &index : NULL, tmp, m, lo, hi, out->scratch, &c->slots_fallback);
        if (mode == CLARITY_SLOTS_CONFIGURED && !configured) c->slots_fallback = true;   /* no application given */
        used += m;
        ui = uj;
    }
    free(k); free(u); free(tmp); free(buf);
    clarity__slot_index_free(&index);
    return 0;
}

double clarity_replay_plan_run(const struct clarity_replay_plan *p, const double *runtime)
{
    double total = 0;
    for (size_t c = 0; c < p->ncomp; c++) {
        const struct clarity_replay_component *comp = &p->comp[c];
        double *r = p->scratch;
        for (size_t i = 0; i < comp->n; i++) r[i] = runtime[p->order[comp->first + i]];
        total += clarity_sim_makespan(r, comp->n, comp->slots, p->scratch + p->ntasks);
    }
    return total;
}
