/* I/O sharing on a host: a stage's time per MB of I/O against how many of its tasks ran at
 * once on a host, fitted from the log and extrapolated to more tasks at once. Two rules use it
 * (one model, one fit): tiny_tasks (the coalesced tasks run more at once, fnd22) and
 * idle_executors (the same tasks on fewer hosts run more at once on each, fnd25). Why and how
 * it was measured: docs/findings.md (the rules "tiny_tasks" and "idle_executors") and
 * docs/findings-rounds.md ("This round (fnd22)" and "This round (fnd25)").
 *
 * A host's disks serve a few streams at full rate and share out the rest (a real disk, and
 * synth's processor-sharing model of one). Tiny tasks spend most of their time being
 * scheduled and deserialized, so their I/O rarely overlaps; a few tasks of the same work each
 * read and write at once, for most of their run. Measured on synth sort (tuning seed 1, stage
 * 1): the tiny tasks' time outside CPU and GC per MB was 3.9 ms with no other stream on the
 * host, rising to 6.0 ms at 3 at once; the re-run's 40 coalesced tasks ran at 11-13 ms with
 * 7-8 at once: 111 s of I/O where the tiny tasks spent 38 s.
 *
 * Model, per stage (every successful task with CPU time and bytes):
 *  - a task's I/O time: its run time outside CPU and GC (disk and network: fetch wait and
 *    shuffle write included); its bytes: input + output + shuffle read + shuffle write;
 *  - its I/O streams at once: the mean number of the stage's tasks running (executor run time,
 *    ending at the task's finish) on its host over its own run, times the stage's I/O share of
 *    run time (the other tasks are in I/O that share of the time);
 *  - t1: the time per MB of the tasks with at most one stream at once (alone: no sharing);
 *  - streams served at full rate, D (>= 1): least squares of (time per MB / t1) against
 *    max(1, streams / D) over the tasks with more than one stream at once;
 *  - n tasks at once per host (the coalesced tasks: min(slots, partitions) / hosts; idle
 *    executors: the stage's tasks at once at the proposed count per host), each in I/O its own
 *    share of the time, which depends on its time per MB: t' = t1 x max(1, n x t' / (t' + k)
 *    / D), k the stage's CPU and GC per MB, solved by iteration; never below the stage's own
 *    mean (the correction only adds the contention the log shows).
 * It applies only where the stage shows the sharing: enough tasks with more than one stream at
 * once (tiny tasks: 50; the caller says how many), whose time per MB is above t1 and grew no
 * more than in proportion to their streams (the most that sharing a disk can cost). Synth wordcount and pagerank (their
 * I/O per MB jumps 2.4x at the first overlap, then stays flat: a per-request cost, not a
 * shared disk) do not pass, and their estimates were within 14% without it. */
#include <math.h>
#include <stdlib.h>
#include "analysis/findings/fnd_internal.h"

/* tiny tasks: tasks with more than one I/O stream at once needed to fit D, and with at most
   one to measure t1 (a tiny-task stage has >= 100 tasks) */
#define TINY_MIN_SHARED 50
#define TINY_MIN_ALONE 50
/* by tasks at once: how far above proportional the fitted stage's slowing may sit */
#define IO_FIT_TOLERANCE 0.10

double clarity_fnd_io_ms(const struct clarity_task_comp *c)
{
    double v = c->run_ms - c->cpu_ms - c->gc_ms;
    return v > 0 ? v : 0;
}

double clarity_fnd_io_mb(const struct clarity_task_comp *c)
{
    double b = (double)(c->input_bytes > 0 ? c->input_bytes : 0) + (double)(c->output_bytes > 0 ? c->output_bytes : 0) +
               (double)(c->shuffle_read_bytes > 0 ? c->shuffle_read_bytes : 0) +
               (double)(c->shuffle_write_bytes > 0 ? c->shuffle_write_bytes : 0);
    return b / 1e6;
}

/* Per task its mean tasks at once on its host over its run (itself included) in conc, and the
 * stage's sums; 1 when CPU time is not logged (nothing applies), -1 out of memory */
struct sums { double io, run, cpu_gc, mb; };
static int overlap(const struct clarity_task_comp *c, size_t m, double *conc, struct sums *t, size_t *hosts)
{
    *t = (struct sums){0};
    if (m == 0) return 1;
    struct clarity_sim_span *e = malloc(m * sizeof *e);
    if (!e) return -1;
    for (size_t i = 0; i < m; i++) {
        if (!c[i].cpu_logged) { free(e); return 1; }
        int64_t from = c[i].finish_ms - (int64_t)c[i].run_ms;
        e[i] = (struct clarity_sim_span){from, c[i].finish_ms, c[i].host};
        t->io += clarity_fnd_io_ms(&c[i]);
        t->run += c[i].run_ms;
        t->cpu_gc += c[i].cpu_ms + c[i].gc_ms;
        t->mb += clarity_fnd_io_mb(&c[i]);
    }
    int rc = clarity_sim_host_overlap(e, m, conc, hosts);
    free(e);
    if (rc != 0) return -1;
    for (size_t i = 0; i < m; i++) conc[i] = c[i].run_ms > 0 ? conc[i] / c[i].run_ms : 1;
    return 0;
}

int clarity_fnd_io_fit(const struct clarity_task_comp *c, size_t m, size_t min_alone, size_t min_shared,
                       struct fnd_io_fit *out)
{
    *out = (struct fnd_io_fit){0};
    if (m == 0) return 0;
    double *conc = calloc(m, sizeof *conc);
    if (!conc) return -1;
    struct sums sm;
    size_t hosts = 0;
    int rc = overlap(c, m, conc, &sm, &hosts);
    if (rc) { free(conc); return rc < 0 ? -1 : 0; }
    double io_sum = sm.io, run_sum = sm.run, cpu_gc = sm.cpu_gc, mb_sum = sm.mb;
    out->hosts = hosts;
    if (run_sum <= 0 || mb_sum <= 0 || io_sum <= 0) { free(conc); return 0; }
    double share = io_sum / run_sum;
    /* t1 (alone) and the shared tasks' mean streams and time per MB, byte-weighted */
    double a_io = 0, a_mb = 0, s_io = 0, s_mb = 0, s_l = 0;
    size_t na = 0, ns = 0;
    for (size_t i = 0; i < m; i++) {
        double mb = clarity_fnd_io_mb(&c[i]);
        if (mb <= 0) continue;
        double l = conc[i] * share;
        conc[i] = l;
        if (l <= 1) { a_io += clarity_fnd_io_ms(&c[i]); a_mb += mb; na++; }
        else { s_io += clarity_fnd_io_ms(&c[i]); s_mb += mb; s_l += l * mb; ns++; }
    }
    out->tasks_shared = ns;
    if (na < min_alone || ns < min_shared || a_mb <= 0 || s_mb <= 0) { free(conc); return 0; }
    double t1 = a_io / a_mb, grown = (s_io / s_mb) / t1, streams = s_l / s_mb;
    out->ms_per_mb_alone = t1;
    out->ms_per_mb = io_sum / mb_sum;
    if (t1 <= 0 || grown <= 1 || grown > streams) { free(conc); return 0; }
    /* D by least squares over a grid (1 to 16 streams, 0.05 apart): the residual is not
       smooth in D (the kink), and 301 passes over a stage's tasks cost little next to its
       replay */
    /* the shared tasks' MB, time per MB over t1 and streams, packed once in task order: the
       grid's 301 passes then read three doubles a task instead of recomputing each task's MB
       and I/O time (on the 1 GB wordcount of bench/findings-cost.sh that was a fifth of
       findings' CPU); the same expressions in the same order, so D is the same to the bit */
    double *g_mb = malloc(3 * ns * sizeof *g_mb);
    if (!g_mb) { free(conc); return -1; }
    double *g_y = g_mb + ns, *g_l = g_y + ns;
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        double mb = clarity_fnd_io_mb(&c[i]);
        if (mb <= 0 || conc[i] <= 1) continue;
        g_mb[k] = mb, g_y[k] = clarity_fnd_io_ms(&c[i]) / mb / t1, g_l[k] = conc[i], k++;
    }
    double best = INFINITY, bd = 0;
    for (int g = 0; g <= 300; g++) {
        double dd = 1.0 + 0.05 * g, r = 0;
        for (size_t j = 0; j < k; j++) {
            double y = g_y[j], f = g_l[j] / dd > 1 ? g_l[j] / dd : 1;
            r += g_mb[j] * (y - f) * (y - f);
        }
        if (r < best) { best = r; bd = dd; }
    }
    free(g_mb);
    free(conc);
    out->applies = true;
    out->streams_full_rate = bd;
    out->cpu_gc_ms_per_mb = cpu_gc / mb_sum;
    out->mb = mb_sum;
    return 0;
}

int clarity_fnd_io_fit_tasks(const struct clarity_task_comp *c, size_t m, size_t min_full, size_t min_shared,
                             struct fnd_io_fit *out, double *at_once)
{
    *out = (struct fnd_io_fit){0};
    if (m == 0) return 0;
    struct sums sm;
    size_t hosts = 0;
    int rc = overlap(c, m, at_once, &sm, &hosts);
    if (rc) return rc < 0 ? -1 : 0;
    out->hosts = hosts;
    if (sm.mb <= 0 || sm.io <= 0) return 0;
    out->ms_per_mb = sm.io / sm.mb;
    /* t1 and D together, byte-weighted least squares: for each D on the grid the best t1 is
       sum(w y f) / sum(w f^2), f = max(1, tasks / D) */
    /* Where every task is at or beyond D, any smaller D fits as well (the growth from one
       count to another is the same): ties, within a billionth of the sum of squares, go to
       the larger D, the fewest streams assumed shared */
    /* the tasks with bytes: MB, time per MB and tasks at once, packed once in task order (as in
       clarity_fnd_io_fit: the grid's 301 passes read three doubles a task; the same expressions
       in the same order, so D and t1 are the same to the bit) */
    double *g_mb = malloc(3 * m * sizeof *g_mb);
    if (!g_mb) return -1;
    double *g_y = g_mb + m, *g_l = g_y + m;
    double best = INFINITY, bd = 0, bt = 0, tol = 0;
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        double mb = clarity_fnd_io_mb(&c[i]);
        if (mb <= 0) continue;
        tol += clarity_fnd_io_ms(&c[i]) * clarity_fnd_io_ms(&c[i]) / mb;
        g_mb[k] = mb, g_y[k] = clarity_fnd_io_ms(&c[i]) / mb, g_l[k] = at_once[i], k++;
    }
    tol *= 1e-9;
    for (int g = 0; g <= 300; g++) {
        double dd = 1.0 + 0.05 * g, syf = 0, sff = 0, syy = 0;
        for (size_t j = 0; j < k; j++) {
            double mb = g_mb[j], y = g_y[j], f = g_l[j] / dd > 1 ? g_l[j] / dd : 1;
            syf += mb * y * f; sff += mb * f * f; syy += mb * y * y;
        }
        if (sff <= 0) continue;
        double r = syy - syf * syf / sff;   /* the residual at t1 = syf / sff */
        if (r <= best + tol) { best = r < best ? r : best; bd = dd; bt = syf / sff; }
    }
    free(g_mb);
    size_t nf = 0, ns = 0;
    double s_io = 0, s_mb = 0, s_l = 0, f_io = 0, f_mb = 0;
    for (size_t i = 0; i < m; i++) {
        double mb = clarity_fnd_io_mb(&c[i]);
        if (mb <= 0) continue;
        if (at_once[i] <= bd) { nf++; f_io += clarity_fnd_io_ms(&c[i]); f_mb += mb; }
        else { ns++; s_io += clarity_fnd_io_ms(&c[i]); s_mb += mb; s_l += at_once[i] / bd * mb; }
    }
    out->tasks_shared = ns;
    out->ms_per_mb_alone = bt;
    if (nf < min_full || ns < min_shared || bt <= 0 || s_mb <= 0) return 0;
    /* the tasks beyond D must be slower than at full rate, by no more than their tasks / D (the
       least squares puts them close to it by construction, so within 10%: a stage slower
       beyond that, or with D at the grid's floor, has a per-request cost, not a shared disk) */
    double grown = s_io / s_mb / bt, shares = (s_l / s_mb) * (1 + IO_FIT_TOLERANCE);
    /* and the tasks at full rate must run at t1 (within 10%): a t1 pulled up by tasks slower
       than any sharing explains is no rate to extrapolate from */
    double full = f_mb > 0 ? f_io / f_mb / bt : 0;
    if (grown <= 1 || grown > shares || bd <= 1.0 || fabs(full - 1) > IO_FIT_TOLERANCE) return 0;
    out->applies = true;
    out->by_tasks = true;
    out->streams_full_rate = bd;
    out->mb = sm.mb;
    return 0;
}

double clarity_fnd_io_growth(const struct fnd_io_fit *f, double from, double to)
{
    if (!f->applies || to <= from) return 1;
    double d = f->streams_full_rate, a = from / d > 1 ? from / d : 1, b = to / d > 1 ? to / d : 1;
    return b / a;
}

double clarity_fnd_io_rate(const struct fnd_io_fit *f, double per_host)
{
    double t = f->ms_per_mb;
    if (!f->applies) return t;
    for (int it = 0; it < 50; it++) {
        double g = per_host * t / (t + f->cpu_gc_ms_per_mb) / f->streams_full_rate;
        double nt = f->ms_per_mb_alone * (g > 1 ? g : 1);
        if (nt < f->ms_per_mb) nt = f->ms_per_mb;
        if (fabs(nt - t) < 1e-6) { t = nt; break; }
        t = nt;
    }
    return t;
}

int clarity_fnd_tiny_io(const struct clarity_task_comp *c, size_t m, uint32_t parts, int slots, struct fnd_tiny_io *out)
{
    *out = (struct fnd_tiny_io){0};
    if (m == 0 || slots <= 0) return 0;
    struct fnd_io_fit fit;
    if (clarity_fnd_io_fit(c, m, TINY_MIN_ALONE, TINY_MIN_SHARED, &fit)) return -1;
    out->tasks_shared = fit.tasks_shared;
    out->ms_per_mb_alone = fit.ms_per_mb_alone;
    out->ms_per_mb = fit.ms_per_mb;
    if (!fit.applies) return 0;
    double n = (double)((int)parts < slots ? (int)parts : slots) / (double)(fit.hosts ? fit.hosts : 1);
    double t = clarity_fnd_io_rate(&fit, n);
    out->streams_full_rate = fit.streams_full_rate;
    out->per_host = n;
    out->ms_per_mb_coalesced = t;
    out->extra_ms = (t - out->ms_per_mb) * fit.mb;
    return 0;
}
