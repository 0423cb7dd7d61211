/* The replay every finding's saving is measured with (fnd_internal.h): built once per
 * application, then re-run component by component with one problem removed. */
#include <stdlib.h>
#include <string.h>
#include "analysis/findings/fnd_internal.h"

static bool ended(const struct clarity_app *a, size_t r)
{
    return (clarity_task_flags(a, r) & CLARITY_TF_ENDED) != 0;
}

static double comp_run(struct fnd *x, size_t c, const double *rt, const uint32_t *split, int slots_at_least)
{
    const struct clarity_replay_component *k = &x->plan.comp[c];
    size_t len = 0;
    for (size_t j = 0; j < k->n; j++) {
        size_t i = x->plan.order[k->first + j];
        size_t pieces = split && split[i] > 1 ? split[i] : 1;
        if (len + pieces > x->gather_cap) {
            size_t cap = (len + pieces) * 2;
            double *g = realloc(x->gather, cap * sizeof *g);
            if (!g) { x->oom = 1; return 0; }
            x->gather = g;
            x->gather_cap = cap;
        }
        for (size_t p = 0; p < pieces; p++) x->gather[len++] = rt[i] / (double)pieces;
    }
    int slots = k->slots > slots_at_least ? k->slots : slots_at_least;
    double m = clarity_sim_makespan(x->gather, len, slots, NULL);
    if (m < 0) { x->oom = 1; return 0; }
    return m;
}

/* The replay's attempts in replay order (a stage's successful attempts from the view, their
 * components giving the trim and the GC and scheduler-delay columns, then its other ended
 * attempts in row order), written either as the plan's input (st) or, once the plan is built
 * and st freed, as x's per-attempt columns (row, rt, gc, sd). Two passes over the tasks
 * rather than one so that st (32 B an attempt) and the plan's sort keys are never live beside
 * the columns and mod (28 B an attempt): the plan's build was the findings run's peak (at
 * 1 M tasks 97 B an attempt above the model; 57 B with this and the plan's 16 B keys).
 * count[] is ns + 1 counters, zeroed by the caller. */
static void fill(struct fnd *x, struct clarity_sim_task *st, uint32_t *count)
{
    const struct clarity_app *a = x->a;
    size_t ns = a->nstages, nt = a->tasks.n;
    for (size_t s = 0; s < ns; s++) {
        size_t m = x->lsucc[s], base = x->lstart[s];
        clarity_task_view_stage_comps(&x->v, s, x->comps);
        for (size_t k = 0; k < m; k++) {
            const struct clarity_task_comp *c = &x->comps[k];
            size_t i = base + k;
            if (st) {
                st[i] = (struct clarity_sim_task){c->launch_ms, c->finish_ms, c->sched_delay_ms, (uint32_t)s};
                continue;
            }
            x->row[i] = (uint32_t)c->row;
            x->rt[i] = c->runtime_ms > 0 ? c->runtime_ms : 0;
            x->gc[i] = (float)c->gc_ms;
            x->sd[i] = (float)c->sched_delay_ms;
        }
    }
    for (size_t r = 0; r < nt; r++) {
        int64_t end = clarity_icol_get(&a->tasks.end, r);
        int64_t s = clarity_icol_get(&a->tasks.stage, r);
        if (end == CLARITY_END_SUCCESS || !ended(a, r) || s < 0 || (size_t)s >= ns) continue;
        size_t i = x->lstart[s] + x->lsucc[s] + count[s]++;
        int64_t l = clarity_task_launch_ms(a, r), f = clarity_task_finish_ms(a, r);
        if (f < l) f = l;
        if (st) {
            st[i] = (struct clarity_sim_task){l, f, 0, (uint32_t)s};
            continue;
        }
        x->row[i] = (uint32_t)r;
        x->rt[i] = (double)f - (double)l;
    }
}

int clarity_fnd_build(struct fnd *x, const struct clarity_app *a, struct clarity_error *err)
{
    x->a = a;
    int rc = clarity_task_view_build(a, &x->v, err);
    if (rc) return rc;
    size_t ns = a->nstages, nt = a->tasks.n;
    x->lstart = calloc(ns + 1, sizeof *x->lstart);
    x->lsucc = calloc(ns + 1, sizeof *x->lsucc);
    uint32_t *extra = calloc(ns + 1, sizeof *extra);
    if (!x->lstart || !x->lsucc || !extra) goto oom;
    for (size_t r = 0; r < nt; r++) {
        int64_t end = clarity_icol_get(&a->tasks.end, r);
        int64_t s = clarity_icol_get(&a->tasks.stage, r);
        if (end != CLARITY_END_SUCCESS && ended(a, r) && s >= 0 && (size_t)s < ns) extra[s]++;
    }
    size_t total = 0;
    for (size_t s = 0; s < ns; s++) {
        x->lstart[s] = (uint32_t)total;
        x->lsucc[s] = (uint32_t)clarity_task_view_stage_size(&x->v, s);
        total += x->lsucc[s] + extra[s];
    }
    x->lstart[ns] = (uint32_t)total;
    x->n = total;
    size_t nn = total ? total : 1;
    x->comps = malloc((x->v.max_stage ? x->v.max_stage : 1) * sizeof *x->comps);
    struct clarity_sim_task *st = malloc(nn * sizeof *st);
    if (!x->comps || !st) {
        free(st);
        goto oom;
    }
    memset(extra, 0, (ns + 1) * sizeof *extra);   /* reused as the fill count */
    fill(x, st, extra);
    rc = clarity_replay_plan_build(st, total, CLARITY_SLOTS_OBSERVED, a, &x->plan, err);
    free(st);
    if (rc) { free(extra); return rc; }
    x->row = malloc(nn * sizeof *x->row);
    x->rt = malloc(nn * sizeof *x->rt);
    x->mod = malloc(nn * sizeof *x->mod);
    x->gc = calloc(nn, sizeof *x->gc);
    x->sd = calloc(nn, sizeof *x->sd);
    x->split = calloc(nn, sizeof *x->split);
    x->touched = malloc(nn * sizeof *x->touched);
    if (!x->row || !x->rt || !x->mod || !x->gc || !x->sd || !x->split || !x->touched) goto oom;
    memset(extra, 0, (ns + 1) * sizeof *extra);
    fill(x, NULL, extra);
    free(extra);
    extra = NULL;
    memcpy(x->mod, x->rt, nn * sizeof *x->mod);
    x->comp_of = malloc(nn * sizeof *x->comp_of);
    x->comp_base = calloc(x->plan.ncomp ? x->plan.ncomp : 1, sizeof *x->comp_base);
    x->comp_mark = calloc(x->plan.ncomp ? x->plan.ncomp : 1, 1);
    if (!x->comp_of || !x->comp_base || !x->comp_mark) goto oom;
    x->sim_total = 0;
    for (size_t c = 0; c < x->plan.ncomp; c++) {
        const struct clarity_replay_component *k = &x->plan.comp[c];
        for (size_t j = 0; j < k->n; j++) x->comp_of[x->plan.order[k->first + j]] = (uint32_t)c;
        x->comp_base[c] = comp_run(x, c, x->rt, NULL, 0);
        x->sim_total += x->comp_base[c];
    }
    if (x->oom) goto oom;
    clarity_app_driver_time(a, &x->plan, &x->duration_ms, &x->driver_ms);
    x->task_span_ms = x->duration_ms - x->driver_ms;
    if (x->task_span_ms < 0) x->task_span_ms = 0;
    int64_t end = a->end_ms ? a->end_ms : clarity_app_last_time_ms(a);
    x->slots = clarity_sim_configured_slots(a, a->start_ms, end > a->start_ms ? end : a->start_ms);
    return clarity_fnd_arrivals_build(x, err);
oom:
    free(extra);
    return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory building the findings replay");
}

void clarity_fnd_free(struct fnd *x)
{
    clarity_fnd_arrivals_free(x);
    clarity_task_view_free(&x->v);
    clarity_replay_plan_free(&x->plan);
    free(x->lstart); free(x->lsucc); free(x->row); free(x->rt); free(x->gc); free(x->sd);
    free(x->mod); free(x->split); free(x->touched); free(x->comp_of); free(x->comp_base);
    free(x->comp_mark); free(x->gather); free(x->comps);
    memset(x, 0, sizeof *x);
}

static void touch(struct fnd *x, size_t i)
{
    if (x->mod[i] == x->rt[i] && x->split[i] <= 1) x->touched[x->ntouched++] = (uint32_t)i;
}

void clarity_fnd_mod_set(struct fnd *x, size_t i, double runtime)
{
    if (runtime < 0) runtime = 0;
    if (runtime == x->rt[i] && x->mod[i] == x->rt[i]) return;
    touch(x, i);
    if (x->rt[i] > runtime) x->reduction += x->rt[i] - runtime;
    x->mod[i] = runtime;
    if (x->mod[i] == x->rt[i]) x->mod[i] = runtime + 1e-9;   /* stays listed as touched */
}

void clarity_fnd_mod_split(struct fnd *x, size_t i, uint32_t k)
{
    if (k <= 1) return;
    touch(x, i);
    x->split[i] = k;
    x->reduction += x->mod[i] - x->mod[i] / k;
}

void clarity_fnd_mod_cancel(struct fnd *x)
{
    for (size_t t = 0; t < x->ntouched; t++) {
        uint32_t i = x->touched[t];
        x->mod[i] = x->rt[i];
        x->split[i] = 0;
    }
    x->ntouched = 0;
    x->reduction = 0;
    x->arr_wall = -1;
    x->arr_skipped = false;
}

/* Before a replay of the modified tasks: false (every modification undone) when the bound on
   what they can save (the summed reduction when bound < 0) is under the minimum saving, so no
   replay is spent on it */
static bool begin_mods(struct fnd *x, double bound)
{
    if (bound < 0) bound = x->reduction;
    x->arr_wall = -1;
    x->arr_skipped = false;
    if (x->min_sim > 0 && bound < x->min_sim) {
        clarity_fnd_mod_cancel(x);
        return false;
    }
    return true;
}

/* After a replay of the modified tasks: their components unmarked, every modification undone
   (the arrival shift already taken), so the next rule starts from the log's runtimes */
static void end_mods(struct fnd *x)
{
    for (size_t t = 0; t < x->ntouched; t++) {
        uint32_t i = x->touched[t];
        x->comp_mark[x->comp_of[i]] = 0;
        x->mod[i] = x->rt[i];
        x->split[i] = 0;
    }
    x->ntouched = 0;
    x->reduction = 0;
}

double clarity_fnd_mod_end(struct fnd *x, int slots_at_least, double bound)
{
    if (!begin_mods(x, bound)) return -1;
    double saved = 0;
    x->alt_delta = 0;
    for (size_t t = 0; t < x->ntouched; t++) {
        uint32_t c = x->comp_of[x->touched[t]];
        if (x->comp_mark[c]) continue;
        x->comp_mark[c] = 1;
        double base = x->base_alt ? comp_run(x, c, x->base_alt, NULL, slots_at_least)
                    : slots_at_least > x->plan.comp[c].slots ? comp_run(x, c, x->rt, NULL, slots_at_least)
                                                             : x->comp_base[c];
        if (x->base_alt) x->alt_delta += base - x->comp_base[c];
        saved += base - comp_run(x, c, x->mod, x->split, slots_at_least);
    }
    /* queries arriving on their own: the same change as the shift of the application's end,
       whatever the component replay saved (a stage whose component had other work to fill its
       slots may still be its query's tail, and the query the application's: seen on TPC-DS mix
       23 of the reporting set 21-25, too few partitions in stage 8: 0.7 s by the components,
       5.4 s held, 6.0 s by the re-run); the bound above still skips what cannot pass the
       minimum saving */
    if (x->arr) x->arr_wall = clarity_fnd_arrivals_shift(x);
    end_mods(x);
    return saved > 0 ? saved : 0;
}

int64_t clarity_fnd_wall(const struct fnd *x, double sim_ms)
{
    if (x->sim_total <= 0 || sim_ms <= 0) return 0;
    double w = sim_ms / x->sim_total * (double)x->task_span_ms;
    return (int64_t)(w + 0.5);
}

void clarity_fnd_set_saving(const struct fnd *x, struct clarity_finding *f, double sim_ms)
{
    f->saving_ms = clarity_fnd_wall(x, sim_ms);
    if (x->arr_skipped) f->arrivals = 2;   /* past the budget: the component saving, a bound */
    if (x->arr_wall < 0) return;
    /* the arrival-held replay's shift, not the smaller of the two: taking the smaller was
       tried on the tuning seeds (1-5) and changed nothing but the driver gaps, where it kept
       the component figure below the re-run's (see fnd_app.c) */
    f->saving_ms = (int64_t)(x->arr_wall + 0.5);
    f->arrivals = 1;
}

int64_t clarity_fnd_wall_alt(const struct fnd *x, double sim_ms, double delta)
{
    double total = x->sim_total + delta;
    if (total <= 0 || sim_ms <= 0) return 0;
    return (int64_t)(sim_ms / total * (double)x->task_span_ms + 0.5);
}

/* fnd_internal.h. The attempts of component c as the plan saw them (successful ones trimmed by
   their scheduler delay, as clarity_fnd_build passed them), their peak at once. */
static int comp_peak_slots(struct fnd *x, size_t c)
{
    const struct clarity_replay_component *k = &x->plan.comp[c];
    struct clarity_sim_task *t = malloc((k->n ? k->n : 1) * sizeof *t);
    if (!t) { x->oom = 1; return 0; }
    for (size_t j = 0; j < k->n; j++) {
        size_t i = x->plan.order[k->first + j];
        uint32_t r = x->row[i];
        int64_t l = clarity_task_launch_ms(x->a, r), f = clarity_task_finish_ms(x->a, r);
        t[j] = (struct clarity_sim_task){l, f > l ? f : l, x->sd[i], 0};
    }
    int p = clarity_sim_peak_slots(t, k->n);
    free(t);
    return p;
}

double clarity_fnd_mod_end_peak(struct fnd *x, double bound)
{
    if (!begin_mods(x, bound)) return -1;
    double saved = 0;
    for (size_t t = 0; t < x->ntouched && !x->oom; t++) {
        uint32_t c = x->comp_of[x->touched[t]];
        if (x->comp_mark[c]) continue;
        x->comp_mark[c] = 1;
        int peak = comp_peak_slots(x, c);
        if (peak <= x->plan.comp[c].slots) {   /* the usual replay */
            saved += x->comp_base[c] - comp_run(x, c, x->mod, x->split, 0);
            continue;
        }
        double base = comp_run(x, c, x->rt, NULL, peak), mod = comp_run(x, c, x->mod, x->split, peak);
        if (base > 0) saved += x->comp_base[c] * (base - mod) / base;
    }
    if (x->arr && !x->oom) x->arr_wall = clarity_fnd_arrivals_shift(x);
    end_mods(x);
    return saved > 0 ? saved : 0;
}
