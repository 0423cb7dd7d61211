/* One replay component: its tasks gathered in launch order from the task view, their
 * runtimes with and without each resource computed from the model, and every variant replayed
 * on the component's slots. Only the current component's tasks are held. */
#include <stdlib.h>
#include <string.h>
#include "clarity/blocked.h"
#include "analysis/blocked/blocked_int.h"
#include "util/checked.h"

void clarity__blocked_scratch_free(struct clarity__blocked_scratch *s)
{
    free(s->lr); free(s->st); free(s->heap);
    for (int r = 0; r <= CLARITY_RES_COUNT; r++) free(s->rt[r]);
    memset(s, 0, sizeof *s);
}

static bool grow_tasks(struct clarity__blocked_scratch *w, size_t n)
{
    if (n <= w->cap_tasks) return true;
    size_t cap = n < 2 * w->cap_tasks ? 2 * w->cap_tasks : n;
    void *lr = realloc(w->lr, cap * sizeof *w->lr);
    if (lr) w->lr = lr;
    void *st = realloc(w->st, cap * sizeof *w->st);
    if (st) w->st = st;
    void *hp = realloc(w->heap, cap * sizeof *w->heap);
    if (hp) w->heap = hp;
    bool ok = lr && st && hp;
    for (int r = 0; r <= CLARITY_RES_COUNT; r++) {
        void *q = realloc(w->rt[r], cap * sizeof *w->rt[r]);
        if (q) w->rt[r] = q; else ok = false;
    }
    if (ok) w->cap_tasks = cap;
    return ok;
}

int clarity__blocked_replay(const struct clarity__blocked_ctx *x, struct clarity__blocked_comp *c,
                            struct clarity__blocked_scratch *w, struct clarity_error *err)
{
    size_t m = c->ntasks;
    if (!grow_tasks(w, m)) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory replaying a group");
    clarity__component_tasks(x->v, c->units, c->nunits, w->lr, m);
    for (size_t i = 0; i < m; i++) {
        struct clarity_task_comp tc;
        clarity_task_comp_from_row(x->v->app, w->lr[i].row, &tc);
        w->st[i] = (struct clarity_sim_task){tc.launch_ms, tc.finish_ms, tc.sched_delay_ms, tc.stage};
        w->rt[0][i] = tc.runtime_ms;
        double med = x->stage[tc.stage].dolly_median;
        for (int r = 0; r < CLARITY_RES_COUNT; r++) w->rt[1 + r][i] = clarity__blocked_without(&tc, r, med);
    }
    c->slots = clarity__component_slots(x->slots, w->st, m, c->start_ms, c->end_ms, w->heap, &c->fallback);
    for (int v = 0; v <= CLARITY_RES_COUNT; v++) {
        /* a variant equal to an earlier one (a resource no task here waited on; network and
         * shuffle read, which standard logs measure alike) replays the same */
        int same = -1;
        for (int q = 0; q < v && same < 0; q++)
            if (!memcmp(w->rt[q], w->rt[v], m * sizeof *w->rt[v])) same = q;
        c->ms[v] = same >= 0 ? c->ms[same] : clarity_sim_makespan(w->rt[v], m, c->slots, w->heap);
    }
    return 0;
}

static int busy_cmp(const void *pa, const void *pb)
{
    const struct clarity__busy *a = pa, *b = pb;
    return (a->s > b->s) - (a->s < b->s);
}

/* Time within [first launch, last finish] when none of the group's tasks ran: driver work,
 * job gaps, waiting for slots held by other groups. The replay does not model it. Swept over
 * the stages' merged task intervals, which join and part exactly where the tasks' do. */
bool clarity__blocked_idle(const struct clarity__blocked_stage *stage, const uint32_t *stages, size_t ns,
                           struct clarity__busy **buf, size_t *cap, int64_t *idle_out, int64_t *span_out)
{
    size_t n = 0;
    for (size_t k = 0; k < ns; k++) n += stage[stages[k]].nbusy;
    *idle_out = *span_out = 0;
    if (n == 0) return true;
    if (n > *cap) {
        void *q = realloc(*buf, n * sizeof **buf);
        if (!q) return false;
        *buf = q;
        *cap = n;
    }
    struct clarity__busy *v = *buf;
    n = 0;
    for (size_t k = 0; k < ns; k++) {
        const struct clarity__blocked_stage *s = &stage[stages[k]];
        memcpy(v + n, s->busy, s->nbusy * sizeof *v);
        n += s->nbusy;
    }
    qsort(v, n, sizeof *v, busy_cmp);
    int64_t idle = 0, reach = v[0].f, lo = v[0].s, hi = v[0].f;
    for (size_t k = 1; k < n; k++) {
        /* saturating: int64-extreme task times (a damaged log, flagged as out of range) must not wrap */
        if (v[k].s > reach) idle = clarity_sat_add(idle, clarity_sat_sub(v[k].s, reach));
        if (v[k].f > reach) reach = v[k].f;
        if (v[k].f > hi) hi = v[k].f;
    }
    *span_out = clarity_sat_sub(hi, lo);
    *idle_out = idle;
    return true;
}
