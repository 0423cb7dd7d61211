/* Slow hosts: per stage, the host whose tasks ran slower per input byte than the other hosts'
 * tasks of the same stage, summed per host over the application and replayed at the other
 * hosts' rate for tasks of their size (HOST_NEAR_TASKS). Thresholds and why: docs/findings.md
 * ("slow_host").
 *
 * Three ways a stage counts against a host:
 *  - the straggler analysis (`clarity stragglers`) put most of the stage's stragglers (tasks at
 *    >= 1.5x the stage's median rate) on it, at >= 2x the other hosts' straggler rate;
 *  - its tasks' median rate is >= 2x the median rate of the other hosts' tasks. The straggler
 *    test compares a task with the stage's median, which the slow host itself sets when it
 *    holds most of the stage's tasks (a cached or local partition keeps landing there: synth
 *    pagerank put 5 of 8 tasks on the hogged host, which then defined "the median"), and it
 *    needs two stragglers on the host in one stage (synth kmeans' cached iterations put one
 *    task per stage on it, 4-5x slower, in every iteration). Comparing the host with the
 *    others catches both; 2x is the straggler analysis' own "2x the others" bound, and on the
 *    tuning seeds' clean runs no host's median came above 1.5x the others' in any stage (the
 *    hogged hosts' were 1.5-5.3x);
 *  - under 2x, every task of it slower per byte than every task of the other hosts, in a stage
 *    where that is unlikely by chance (HOST_APART_MIN_ORDERS), at >= 1.3x their median.
 * Each then passes the load allowance (still_slow). The replay runs the stages on the slots
 * seen at once (clarity_fnd_mod_end_peak): see the rule below. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/findings/fnd_internal.h"
#include "util/stats.h"

/* a host's median rate at least this many times the other hosts' in a stage ... */
#define HOST_RATE_FACTOR 2.0
/* ... in a stage of at least this many rated tasks (a median of one or two tasks a side is
   one task's noise) ... */
#define HOST_MIN_RATED 4
/* ... with at least this many rated tasks on the other hosts ... */
#define HOST_MIN_OTHERS 2
/* ... and, over the stages that count against the host, at least this many of its tasks: one
   slow task is a straggler, not a host */
#define HOST_MIN_TASKS 2
/* a task of the host at this many times the other hosts' median rate is counted as straggling
   in the title (the straggler analysis' own factor) */
#define HOST_STRAGGLER_FACTOR 1.5
/* the straggler analysis' host (most stragglers on it, at >= 2x the others' straggler rate):
   its median time per byte, over the others' and allowed for its load, at least this (synth
   sort's hogged host, disk-bound, is 1.5-1.8x the others at their concurrency; the loaded
   hosts of the tuning seeds' false alarms came to 0.6-0.9x once divided by their load) */
#define HOST_LOADED_FACTOR 1.3
/* ... or, below HOST_RATE_FACTOR, when every rated task of the host took longer per byte than
   every rated task of the other hosts and its median is >= HOST_LOADED_FACTOR x theirs (after
   the load allowance): a host slower on every task, not a few slow tasks. If the stage's rates
   were in random order, all k of the host's n rated tasks would be the k slowest with chance
   1 / C(n, k); at least this many orders are asked for, so the chance is 1 in 1000 or less
   (k = 8 of 32 tasks: 1 in 10.5 million; 4 of 8: 1 in 70, not enough). Why: synth sort's hogged
   host is 1.40-1.68x the others in its reduce stage (under 2x), its 8 tasks all slower than
   the other 24, and with at most one of them at 1.5x the stage's median the straggler
   analysis (two stragglers on the host) missed 2 of 5 tuning runs (sort 1 and 5). On tuning
   seeds 1-5 and 41-45 (fnd29), in 123 stages a host that was not a hogged one had its tasks
   all slower than the others' with enough orders, all at <= 1.05x the others' median after
   the load allowance, against 1.40-1.64x for the hogged hosts' reduce stages of the 10 sort
   runs */
#define HOST_APART_MIN_ORDERS 1000.0
/* a slow host's task is replayed at the median time per byte of this many tasks of the other
   hosts nearest to it in input bytes (all of them when fewer): time per byte falls with a
   task's size (a fixed part per task), so the others' median over all sizes over-states the
   largest tasks, which end the stage (fnd27: synth sort's reduce stage, the hogged host's
   largest task replayed 10-28% above its time without the hog on all 10 tuning sort runs, the
   saving 12-35% short). 5 chosen on tuning seeds 1-5 and 41-45 by a stage-level check against
   the re-run (3 and 7 agreed with 5 on most runs but moved single runs by 11-13 points; 9 was
   close to the plain median) */
#define HOST_NEAR_TASKS 5

struct hr { uint32_t host; double rate; };

struct near { int64_t bytes; double rate; };

static int near_cmp(const void *pa, const void *pb)
{
    const struct near *a = pa, *b = pb;
    if (a->bytes != b->bytes) return a->bytes < b->bytes ? -1 : 1;
    return (a->rate > b->rate) - (a->rate < b->rate);
}

/* fnd_internal.h. One sort of the other hosts' tasks by size, then per task of h a binary
   search and HOST_NEAR_TASKS steps outwards. */
int clarity_fnd_host_near(const struct clarity_task_comp *c, size_t m, uint32_t h, double *out)
{
    struct near *o = malloc((m ? m : 1) * sizeof *o);
    if (!o) return -1;
    size_t n = 0;
    for (size_t i = 0; i < m; i++) {
        int64_t in = clarity_task_input_bytes(&c[i]);
        if (c[i].host != h && in > 0) o[n++] = (struct near){in, (c[i].runtime_ms > 0 ? c[i].runtime_ms : 0) / (double)in};
    }
    qsort(o, n, sizeof *o, near_cmp);
    double pick[HOST_NEAR_TASKS];
    for (size_t i = 0; i < m; i++) {
        int64_t in = clarity_task_input_bytes(&c[i]);
        out[i] = 0;
        if (c[i].host != h || in <= 0 || n == 0) continue;
        /* the first of the others with at least as many bytes, then the nearer neighbour by
           ratio, one at a time (the smaller side on a tie) */
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (o[mid].bytes < in) lo = mid + 1; else hi = mid;
        }
        size_t l = lo, r = lo, k = 0;   /* taken: o[l..r) */
        while (k < HOST_NEAR_TASKS && (l > 0 || r < n)) {
            bool left = r >= n || (l > 0 && (double)in / (double)o[l - 1].bytes <= (double)o[r].bytes / (double)in);
            pick[k++] = left ? o[--l].rate : o[r++].rate;
        }
        out[i] = clarity_median_mean_mid(pick, k);
    }
    free(o);
    return 0;
}

static int hr_cmp(const void *pa, const void *pb)
{
    const struct hr *a = pa, *b = pb;
    if (a->host != b->host) return a->host < b->host ? -1 : 1;
    return (a->rate > b->rate) - (a->rate < b->rate);
}

static double rate_of(const struct clarity_task_comp *c)
{
    return (c->runtime_ms > 0 ? c->runtime_ms : 0) / (double)clarity_task_input_bytes(c);
}

/* Whether every rated task of host h is slower per byte than every rated task elsewhere, with
   at least HOST_APART_MIN_ORDERS orders of the stage's rates (C(n, k), k of them on h) */
static bool apart(const struct clarity_task_comp *c, size_t m, uint32_t h)
{
    double hmin = -1, omax = -1;
    size_t k = 0, n = 0;
    for (size_t i = 0; i < m; i++) {
        if (clarity_task_input_bytes(&c[i]) <= 0) continue;
        double r = rate_of(&c[i]);
        n++;
        if (c[i].host == h) { k++; if (hmin < 0 || r < hmin) hmin = r; }
        else if (r > omax) omax = r;
    }
    if (k == 0 || k == n || !(hmin > omax)) return false;
    double orders = 1;   /* C(n, k), built as a product of ratios; stops once it is enough */
    for (size_t j = 1; j <= k && orders < HOST_APART_MIN_ORDERS; j++) orders = orders * (double)(n - k + j) / (double)j;
    return orders >= HOST_APART_MIN_ORDERS;
}

/* The median rate of the rated tasks not on host h; its count in *n. buf holds m doubles. */
static double others_median(const struct clarity_task_comp *c, size_t m, uint32_t h, double *buf, size_t *n)
{
    size_t k = 0;
    for (size_t i = 0; i < m; i++)
        if (c[i].host != h && clarity_task_input_bytes(&c[i]) > 0) buf[k++] = rate_of(&c[i]);
    *n = k;
    return clarity_median_mean_mid(buf, k);
}

int clarity_fnd_host_stage(struct fnd *x, size_t m, uint32_t straggler_host, struct fnd_slow *out)
{
    const struct clarity_task_comp *c = x->comps;
    memset(out, 0, sizeof *out);
    struct hr *v = malloc((m ? m : 1) * sizeof *v);
    double *buf = malloc((m ? m : 1) * sizeof *buf);
    if (!v || !buf) { free(v); free(buf); return -1; }
    size_t n = 0;
    for (size_t i = 0; i < m; i++)
        if (clarity_task_input_bytes(&c[i]) > 0) v[n++] = (struct hr){c[i].host, rate_of(&c[i])};
    uint32_t h = straggler_host;
    if (!h && n >= HOST_MIN_RATED) {
        /* the candidate: the host whose own median rate is the highest (sorted by host, then
           rate, each group's median is its middle) */
        qsort(v, n, sizeof *v, hr_cmp);
        double best = -1;
        size_t groups = 0;
        for (size_t i = 0; i < n;) {
            size_t j = i;
            while (j < n && v[j].host == v[i].host) j++;
            size_t g = j - i;
            double med = g % 2 ? v[i + g / 2].rate : (v[i + g / 2 - 1].rate + v[i + g / 2].rate) / 2;
            groups++;
            if (med > best) { best = med; h = v[i].host; }
            i = j;
        }
        size_t no = 0;
        double om = groups >= 2 ? others_median(c, m, h, buf, &no) : 0;
        if (groups < 2 || no < HOST_MIN_OTHERS || om <= 0) h = 0;
        else if (best < HOST_RATE_FACTOR * om) {
            out->apart = best >= HOST_LOADED_FACTOR * om && apart(c, m, h);
            if (!out->apart) h = 0;
        }
    }
    if (h) {
        size_t no = 0;
        out->others_rate = others_median(c, m, h, buf, &no);
        if (no == 0) h = 0;
    }
    if (h) {
        size_t nh = 0;
        for (size_t i = 0; i < m; i++)
            if (c[i].host == h && clarity_task_input_bytes(&c[i]) > 0) buf[nh++] = rate_of(&c[i]);
        out->host_rate = clarity_median_mean_mid(buf, nh);
        out->host = h;
        out->by_stragglers = straggler_host != 0;
        for (size_t i = 0; i < m; i++) {
            if (c[i].host != h || clarity_task_input_bytes(&c[i]) <= 0) continue;
            out->tasks++;
            if (rate_of(&c[i]) >= HOST_STRAGGLER_FACTOR * out->others_rate) out->stragglers++;
        }
    }
    free(v);
    free(buf);
    return 0;
}

/* Per replay index of a successful attempt: the mean number of attempts running on its host
   while it ran, itself included (the integral of the host's running count over the attempt,
   over its runtime); 1 for an attempt of no duration. Failed and killed attempts count as load
   too: they held the host's disks and network as much as a successful one (lost_executors /
   kmeans / 12: host1 ran 8 tasks of stage 0 at once, 6 of which died with their executor; its
   2 survivors, counted against 1-2 successful neighbours, looked 1.7x slower per byte than
   the other hosts' tasks and a slow host was reported). So the sweep
   (clarity_sim_host_overlap) gets a span for every attempt of the replay; only the successful
   ones' figures are read (the others are load only: never rated). Done only when some stage
   has a slow-host candidate. NULL when out of memory. */
static double *concurrency(struct fnd *x)
{
    const struct clarity_app *a = x->a;
    double *conc = malloc((x->n ? x->n : 1) * sizeof *conc);
    struct clarity_sim_span *sp = malloc((x->n ? x->n : 1) * sizeof *sp);
    if (!conc || !sp) { free(conc); free(sp); return NULL; }
    for (size_t s = 0; s < a->nstages; s++) {
        size_t m = x->lsucc[s];
        if (m) {
            clarity_task_view_stage_comps(&x->v, s, x->comps);
            for (size_t j = 0; j < m; j++) {
                const struct clarity_task_comp *c = &x->comps[j];
                sp[x->lstart[s] + j] = (struct clarity_sim_span){c->launch_ms, c->finish_ms, c->host};
            }
        }
        for (uint32_t i = x->lstart[s] + x->lsucc[s]; i < x->lstart[s + 1]; i++) {   /* load only */
            uint32_t r = x->row[i];
            sp[i] = (struct clarity_sim_span){clarity_task_launch_ms(a, r), clarity_task_finish_ms(a, r),
                                              (uint32_t)clarity_icol_get(&a->tasks.host, r)};
        }
    }
    int rc = clarity_sim_host_overlap(sp, x->n, conc, NULL);
    free(sp);
    if (rc != 0) { free(conc); return NULL; }
    for (size_t s = 0; s < a->nstages; s++) {
        size_t m = x->lsucc[s];
        if (!m) continue;
        clarity_task_view_stage_comps(&x->v, s, x->comps);
        for (size_t j = 0; j < m; j++) {
            const struct clarity_task_comp *c = &x->comps[j];
            double d = (double)(c->finish_ms - c->launch_ms);
            size_t i = x->lstart[s] + j;
            conc[i] = d > 0 ? conc[i] / d : 1;
        }
    }
    return conc;
}

/* Whether stage s's candidate host stays slow once its load is allowed for: its median time
   per byte over the other hosts', divided by how many more attempts ran beside its tasks than
   beside theirs (when more), must reach HOST_RATE_FACTOR (or, for the straggler analysis'
   host, HOST_LOADED_FACTOR). A host given 8 tasks at once while the others ran 2-3 shares its
   disk and network among more of them: slower per byte, and not a faulty host (synth sort and
   TPC-DS mixes on the tuning seeds: 2.1-2.3x the others' time per byte at 2.5-3.8x their
   concurrency, in runs with no fault). Dividing by the whole concurrency ratio assumes the
   worst, that the tasks' time grew in proportion to their neighbours. */
static bool still_slow(struct fnd *x, size_t s, const struct fnd_slow *q, const double *conc)
{
    size_t m = x->lsucc[s];
    clarity_task_view_stage_comps(&x->v, s, x->comps);
    double ch = 0, co = 0;
    size_t nh = 0, no = 0;
    for (size_t k = 0; k < m; k++) {
        if (clarity_task_input_bytes(&x->comps[k]) <= 0) continue;
        double c = conc[x->lstart[s] + k];
        if (x->comps[k].host == q->host) { ch += c; nh++; }
        else { co += c; no++; }
    }
    if (!nh || !no || q->others_rate <= 0) return false;
    double load = (ch / (double)nh) / (co / (double)no);
    double slower = q->host_rate / q->others_rate / (load > 1 ? load : 1);
    return slower >= (q->by_stragglers || q->apart ? HOST_LOADED_FACTOR : HOST_RATE_FACTOR);
}

/* The stages host h ran with no other host to compare with (fewer than HOST_MIN_OTHERS rated
   tasks elsewhere): its tasks there are replayed at the slowdown measured in the stages where
   it was found slow beside other hosts (the smallest of those stages' host rate over the
   others', the least the host was seen to lose), and each task saves no more than its time
   outside CPU, GC, fetch wait and shuffle write (where a CPU hog or a slow disk shows: CPU
   time is the thread's own and does not grow when the host's cores are shared). Without CPU
   time in the log nothing is extrapolated. Why: synth pagerank, tuning seed 4, a CPU hog on
   host1: every task of stages 1-5 ran on host1 (a partitioner's locality), 110-129 s of task
   time against 29-34 s in the re-run without the hog, 63-81 s of it outside CPU against 0;
   comparing hosts saw only stage 0 (3 of 8 tasks on host1) and found 9.9 s of the re-run's
   70 s. Returns the number of stages extrapolated; their changes are left in x's
   modification. */
static size_t extrapolate(struct fnd *x, const struct fnd_slow *sl, uint32_t h)
{
    const struct clarity_app *a = x->a;
    double factor = 0;
    for (size_t s = 0; s < a->nstages; s++)
        if (sl[s].host == h && sl[s].others_rate > 0) {
            double r = sl[s].host_rate / sl[s].others_rate;
            if (factor == 0 || r < factor) factor = r;
        }
    if (factor <= 1) return 0;
    size_t ext = 0;
    for (size_t s = 0; s < a->nstages; s++) {
        size_t m = x->lsucc[s];
        if (!m || sl[s].host == h) continue;
        clarity_task_view_stage_comps(&x->v, s, x->comps);
        size_t on = 0, others = 0;
        bool cpu = true;
        for (size_t k = 0; k < m; k++) {
            if (x->comps[k].host == h) { on++; cpu = cpu && x->comps[k].cpu_logged; }
            else if (clarity_task_input_bytes(&x->comps[k]) > 0) others++;
        }
        if (!on || others >= HOST_MIN_OTHERS || !cpu) continue;
        bool any = false;
        for (size_t k = 0; k < m; k++) {
            const struct clarity_task_comp *c = &x->comps[k];
            if (c->host != h || c->unattributed_ms <= 0) continue;
            double r = c->runtime_ms / factor, floor = c->runtime_ms - c->unattributed_ms;
            clarity_fnd_mod_set(x, x->lstart[s] + k, r > floor ? r : floor);
            any = true;
        }
        ext += any;
    }
    return ext;
}

void clarity_fnd_slow_host_rule(struct fnd *x, const struct fnd_slow *sl_in)
{
    const struct clarity_app *a = x->a;
    bool any = false;
    for (size_t s = 0; s < a->nstages && !any; s++) any = sl_in[s].host != 0;
    if (!any) return;
    double *conc = concurrency(x);
    struct fnd_slow *sl = malloc(a->nstages * sizeof *sl);
    double *near = malloc((x->v.max_stage ? x->v.max_stage : 1) * sizeof *near);
    if (!conc || !sl || !near) { free(conc); free(sl); free(near); x->oom = 1; return; }
    for (size_t s = 0; s < a->nstages; s++) {
        sl[s] = sl_in[s];
        if (sl[s].host && !still_slow(x, s, &sl[s], conc)) sl[s].host = 0;
    }
    free(conc);
    for (size_t s0 = 0; s0 < a->nstages; s0++) {
        uint32_t h = sl[s0].host;
        if (!h) continue;
        bool first = true;
        for (size_t s = 0; s < s0; s++) if (sl[s].host == h) first = false;
        if (!first) continue;
        size_t nst = 0, str = 0, tasks = 0;
        for (size_t s = s0; s < a->nstages; s++) {
            if (sl[s].host != h) continue;
            nst++;
            str += sl[s].stragglers;
            tasks += sl[s].tasks;
        }
        if (str < HOST_MIN_TASKS) continue;
        for (size_t s = s0; s < a->nstages && !x->oom; s++) {
            if (sl[s].host != h) continue;
            size_t m = x->lsucc[s];
            clarity_task_view_stage_comps(&x->v, s, x->comps);
            /* the host's tasks at the other hosts' median rate among the tasks of about their
               size (the stage's own median would be the slow host's rate where it ran most of
               the stage) */
            if (clarity_fnd_host_near(x->comps, m, h, near) != 0) { x->oom = 1; break; }
            for (size_t k = 0; k < m; k++)
                if (x->comps[k].host == h)
                    clarity_fnd_mod_set(x, x->lstart[s] + k, clarity_dolly_runtime(&x->comps[k], near[k]));
        }
        if (x->oom) { clarity_fnd_mod_cancel(x); break; }
        size_t ext = extrapolate(x, sl, h);
        /* on the slots seen at once, not the slots the stage's task time over its span gives
           (the observed-slot rule of a stage of over 40 tasks with its peak at most half of
           them): the slow host's tail, its slots running the last tasks while the others'
           stand idle, lowers that count (synth wordcount 5: 19 of the 32 slots), so the
           replay was bound by the task time and left out the tail the host added; its
           saving 27% short (5.6 s of 7.7 s), and the same on every wordcount of 4 hosts
           (seeds ending in 5: 12-46% short on all nine sets) */
        double sim = clarity_fnd_mod_end_peak(x, -1);
        if (sim < 0) continue;
        struct clarity_finding *f = clarity_fnd_add(x, CLARITY_FK_SLOW_HOST);
        if (!f) break;
        const char *host = clarity_app_str(a, h);
        f->where = CLARITY_FW_HOST;
        snprintf(f->host, sizeof f->host, "%s", host);
        if (nst == 1) clarity_fnd_where_stage(x, f, s0);
        clarity_fnd_set_saving(x, f, sim);
        /* stages replayed at a slowdown measured elsewhere: an estimate, at medium confidence */
        f->method = ext ? CLARITY_FM_ESTIMATE : CLARITY_FM_REPLAY;
        f->confidence = nst >= 2 && !ext ? CLARITY_FC_HIGH : CLARITY_FC_MEDIUM;
        char alone[48] = "";
        if (ext) snprintf(alone, sizeof alone, " (and %zu it ran alone)", ext);
        snprintf(f->title, sizeof f->title, "Slow host %s: %zu of its %zu tasks took >= 1.5x the other hosts' median "
                 "time per byte, in %zu stage%s%s", host, str, tasks, nst, nst == 1 ? "" : "s", alone);
        clarity_fnd_ev(f, "stages", (double)nst, "stages");
        clarity_fnd_ev(f, "straggler_tasks", (double)str, "tasks");
        clarity_fnd_ev(f, "host_tasks", (double)tasks, "tasks");
        clarity_fnd_ev(f, "extrapolated_stages", (double)ext, "stages");
        if (ext)
            /* short: findings.c appends how queries' arrivals were held to the same 240 bytes */
            snprintf(f->caveat, sizeof f->caveat, "replayed at the median rate of the other hosts' %d tasks nearest in "
                     "size; %zu stage%s run only here at the slowdown seen beside other hosts (an extrapolation)",
                     HOST_NEAR_TASKS, ext, ext == 1 ? "" : "s");
        else
            snprintf(f->caveat, sizeof f->caveat, "replayed with this host's tasks in those stages at the median rate "
                     "(runtime per input byte) of the other hosts' %d tasks nearest in size", HOST_NEAR_TASKS);
        const char *ex = clarity_fnd_prop(a, "spark.excludeOnFailure.enabled");
        clarity_fnd_action(x, f, "spark.speculation", "false", "true",
                           "Check the host (disk, CPU steal, noisy neighbours) and take it out of the pool; "
                           "spark.speculation=true re-runs its slow tasks elsewhere%s.",
                           ex ? "" : " (excludeOnFailure only reacts to failures, not slowness)");
    }
    free(sl);
    free(near);
}
