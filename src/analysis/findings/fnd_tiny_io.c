/* tiny_tasks: the I/O time the coalesced tasks would add by sharing their hosts' disks and
 * network, extrapolated from the tiny tasks' own time per byte against how many of them ran at
 * once on a host. Why and how it was measured: docs/findings.md ("tiny_tasks" and "This round
 * (fnd22)").
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
 *  - the coalesced tasks: min(slots, partitions) / hosts at once per host, each in I/O its own
 *    share of the time, which depends on its time per MB: t' = t1 x max(1, n x t' / (t' + k)
 *    / D), k the stage's CPU and GC per MB, solved by iteration; never below the tiny tasks'
 *    own mean (the correction only adds the contention the log shows).
 * It applies only where the tiny tasks show the sharing: at least MIN_SHARED tasks with more
 * than one stream at once, whose time per MB is above t1 and grew no more than in proportion
 * to their streams (the most that sharing a disk can cost). Synth wordcount and pagerank (their
 * I/O per MB jumps 2.4x at the first overlap, then stays flat: a per-request cost, not a
 * shared disk) do not pass, and their estimates were within 14% without it. */
#include <math.h>
#include <stdlib.h>
#include "analysis/findings/fnd_internal.h"

/* tasks with more than one I/O stream at once needed to fit D */
#define MIN_SHARED 50
/* tasks with at most one stream at once needed to measure t1 */
#define MIN_ALONE 50

static double io_ms(const struct clarity_task_comp *c)
{
    double v = c->run_ms - c->cpu_ms - c->gc_ms;
    return v > 0 ? v : 0;
}

static double mb_of(const struct clarity_task_comp *c)
{
    double b = (double)(c->input_bytes > 0 ? c->input_bytes : 0) + (double)(c->output_bytes > 0 ? c->output_bytes : 0) +
               (double)(c->shuffle_read_bytes > 0 ? c->shuffle_read_bytes : 0) +
               (double)(c->shuffle_write_bytes > 0 ? c->shuffle_write_bytes : 0);
    return b / 1e6;
}

int clarity_fnd_tiny_io(const struct clarity_task_comp *c, size_t m, uint32_t parts, int slots, struct fnd_tiny_io *out)
{
    *out = (struct fnd_tiny_io){0};
    if (m == 0 || slots <= 0) return 0;
    double *conc = calloc(m, sizeof *conc);
    struct clarity_sim_span *e = malloc(m * sizeof *e);
    if (!conc || !e) { free(conc); free(e); return -1; }
    double io_sum = 0, run_sum = 0, cpu_gc = 0, mb_sum = 0;
    for (size_t i = 0; i < m; i++) {
        if (!c[i].cpu_logged) { free(conc); free(e); return 0; }
        int64_t from = c[i].finish_ms - (int64_t)c[i].run_ms;
        e[i] = (struct clarity_sim_span){from, c[i].finish_ms, c[i].host};
        io_sum += io_ms(&c[i]);
        run_sum += c[i].run_ms;
        cpu_gc += c[i].cpu_ms + c[i].gc_ms;
        mb_sum += mb_of(&c[i]);
    }
    size_t hosts = 0;
    int rc = clarity_sim_host_overlap(e, m, conc, &hosts);
    free(e);
    if (rc != 0) { free(conc); return -1; }
    if (run_sum <= 0 || mb_sum <= 0 || io_sum <= 0) { free(conc); return 0; }
    double share = io_sum / run_sum;
    /* t1 (alone) and the shared tasks' mean streams and time per MB, byte-weighted */
    double a_io = 0, a_mb = 0, s_io = 0, s_mb = 0, s_l = 0;
    size_t na = 0, ns = 0;
    for (size_t i = 0; i < m; i++) {
        double mb = mb_of(&c[i]);
        if (mb <= 0) continue;
        double d = c[i].run_ms;
        double l = (d > 0 ? conc[i] / d : 1) * share;
        conc[i] = l;
        if (l <= 1) { a_io += io_ms(&c[i]); a_mb += mb; na++; }
        else { s_io += io_ms(&c[i]); s_mb += mb; s_l += l * mb; ns++; }
    }
    out->tasks_shared = ns;
    if (na < MIN_ALONE || ns < MIN_SHARED || a_mb <= 0 || s_mb <= 0) { free(conc); return 0; }
    double t1 = a_io / a_mb, grown = (s_io / s_mb) / t1, streams = s_l / s_mb;
    out->ms_per_mb_alone = t1;
    out->ms_per_mb = io_sum / mb_sum;
    if (t1 <= 0 || grown <= 1 || grown > streams) { free(conc); return 0; }
    /* D by least squares over a grid (1 to 16 streams, 0.05 apart): the residual is not
       smooth in D (the kink), and 301 passes over a stage's tasks cost little next to its
       replay */
    /* the shared tasks' bytes, time per MB over t1 and streams, packed once in task order:
       the grid's 301 passes then read three doubles a task instead of decoding each task's
       bytes again (on a 1 GB wordcount the repeated decoding was a fifth of findings' CPU);
       the same expressions in the same order, so D is the same to the last bit */
    double *g_mb = malloc(3 * ns * sizeof *g_mb);
    if (!g_mb) { free(conc); return -1; }
    double *g_y = g_mb + ns, *g_l = g_y + ns;
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        double mb = mb_of(&c[i]);
        if (mb <= 0 || conc[i] <= 1) continue;
        g_mb[k] = mb, g_y[k] = io_ms(&c[i]) / mb / t1, g_l[k] = conc[i], k++;
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
    double n = (double)((int)parts < slots ? (int)parts : slots) / (double)(hosts ? hosts : 1);
    double kk = cpu_gc / mb_sum, t = out->ms_per_mb;
    for (int it = 0; it < 50; it++) {
        double f = n * t / (t + kk) / bd;
        double nt = t1 * (f > 1 ? f : 1);
        if (nt < out->ms_per_mb) nt = out->ms_per_mb;
        if (fabs(nt - t) < 1e-6) { t = nt; break; }
        t = nt;
    }
    out->streams_full_rate = bd;
    out->per_host = n;
    out->ms_per_mb_coalesced = t;
    out->extra_ms = (t - out->ms_per_mb) * mb_sum;
    return 0;
}
