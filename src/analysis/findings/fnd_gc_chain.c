/* The GC rule's saving on the log's own schedule (fnd28): every ended attempt stays on the
 * executor slot it ran on, in the order it ran, each successful one shorter by the GC the fix
 * removes; a task that waited for a slot starts as its predecessor on that slot now ends (the
 * gap between them kept). The saving is how much earlier each component of overlapping stages
 * ends, summed (components run back to back).
 *
 * Why not the component replay the other rules use: it restarts every slot at the
 * component's start and pairs first- and second-wave tasks by its own list schedule. A GC fix
 * shortens nearly every task by a similar share, so the schedule keeps its shape, and the
 * stage's end is set by the chain of tasks that ended it in the log. Where executors joined a
 * stage 1-2 s apart or a stage was just over one wave (synth wordcount, tuning seeds 4 and 44:
 * -19% and -14% against the re-run), the replay's pairing was not the log's; on the log's chains
 * they are -5% and -4%. Pairings that the fix itself would change are not modelled. */
#include <stdlib.h>
#include "analysis/findings/fnd_gc_chain.h"

struct ev { uint32_t i; int64_t ex, launch, finish; };
struct slot { int64_t old_end; double new_end; };

static int by_exec_launch(const void *pa, const void *pb)
{
    const struct ev *a = pa, *b = pb;
    if (a->ex != b->ex) return a->ex < b->ex ? -1 : 1;
    if (a->launch != b->launch) return a->launch < b->launch ? -1 : 1;
    if (a->finish != b->finish) return a->finish < b->finish ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* One component: its attempts e[0..n) sorted by executor then launch. Returns how much
   earlier the last of them ends. */
static double comp_shift(struct ev *e, size_t n, const double *cut, struct slot *sl)
{
    int64_t old_end = INT64_MIN;
    double new_end = -1e300;
    size_t a = 0;
    while (a < n) {
        size_t b = a, ns = 0;
        while (b < n && e[b].ex == e[a].ex) b++;
        for (size_t k = a; k < b; k++) {
            /* the slot this attempt took: the one freed last at or before its launch (Spark
               offers a freed core at once; 1 ms for the log's rounding) */
            size_t best = ns;
            for (size_t s = 0; s < ns; s++)
                if (sl[s].old_end <= e[k].launch + 1 && (best == ns || sl[s].old_end > sl[best].old_end)) best = s;
            double start = (double)e[k].launch;
            if (best == ns) ns++;
            else start = sl[best].new_end + (double)(e[k].launch - sl[best].old_end);
            double end = start + (double)(e[k].finish - e[k].launch) - cut[e[k].i];
            if (end < start) end = start;
            sl[best] = (struct slot){e[k].finish, end};
            if (e[k].finish > old_end) old_end = e[k].finish;
            if (end > new_end) new_end = end;
        }
        a = b;
    }
    if (old_end == INT64_MIN) return 0;
    double s = (double)old_end - new_end;
    return s > 0 ? s : 0;
}

double clarity_fnd_gc_chain_saving(const struct fnd *x, const double *cut)
{
    const struct clarity_app *a = x->a;
    size_t nmax = 0;
    for (size_t c = 0; c < x->plan.ncomp; c++)
        if (x->plan.comp[c].n > nmax) nmax = x->plan.comp[c].n;
    struct ev *e = malloc((nmax ? nmax : 1) * sizeof *e);
    struct slot *sl = malloc((nmax ? nmax : 1) * sizeof *sl);
    if (!e || !sl) {
        free(e);
        free(sl);
        return -1;
    }
    double total = 0;
    for (size_t c = 0; c < x->plan.ncomp; c++) {
        const struct clarity_replay_component *k = &x->plan.comp[c];
        bool any = false;
        for (size_t j = 0; j < k->n; j++) {
            uint32_t i = (uint32_t)x->plan.order[k->first + j];
            size_t r = x->row[i];
            int64_t l = clarity_task_launch_ms(a, r), f = clarity_task_finish_ms(a, r);
            e[j] = (struct ev){i, clarity_icol_get(&a->tasks.executor, r), l, f > l ? f : l};
            if (cut[i] > 0) any = true;
        }
        if (!any) continue;
        qsort(e, k->n, sizeof *e, by_exec_launch);
        total += comp_shift(e, k->n, cut, sl);
    }
    free(e);
    free(sl);
    return total;
}
