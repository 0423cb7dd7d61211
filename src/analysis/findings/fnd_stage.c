/* Stage rules: data skew, too few or oversized partitions, tiny tasks, spill; and, per stage,
 * the slow-host test that fnd_host.c sums per host. Thresholds and
 * why: docs/findings.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/findings/fnd_internal.h"
#include "clarity/stragglers.h"

/* a skewed partition reads at least this many times the stage's median input ... */
#define SKEW_INPUT_FACTOR 5.0
/* ... and runs at least this many times the median task: a large partition that is not slow
 * costs nothing */
#define SKEW_TIME_FACTOR 2.0
/* ... in a stage of at least this many tasks: a hot key of 8 partitions (pagerank's default)
   is as real as one of 200, and the 5x and 2x factors keep a few tasks' natural spread out
   (synth pagerank without a hot key: 2.5-2.9x) */
#define SKEW_MIN_TASKS 4
/* ... and, where records are logged, at least this many times the median records */
#define SKEW_RECORDS_FACTOR 2.0
/* skew is some partitions far above the rest: when more than a quarter of the tasks are 5x
   the median, the median is no longer "the rest" (a bimodal stage, not a skewed one) */
#define SKEW_MAX_TASK_SHARE 0.25
/* a stage with fewer tasks than slots has data worth splitting only above this */
#define FEW_MIN_BYTES (32.0 * FND_MB)
/* the median partition above which a stage's partitions are oversized (8x the target) */
#define OVERSIZED_MEDIAN_BYTES (1024.0 * FND_MB)
/* tiny tasks: median below this, and at least this many waves of them */
#define TINY_MEDIAN_MS 100.0
#define TINY_MIN_WAVES 4
#define TINY_MIN_TASKS 100
/* spill is written and read back: assumed disk rate for the estimate when CPU time is not
 * logged (the log has no spill time); with CPU time the task's own disk time gives the rate */
#define SPILL_MB_S 100.0

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, size_t n)
{
    if (!n) return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static bool aqe_on(const struct clarity_app *a)
{
    const char *v = clarity_fnd_prop(a, "spark.sql.adaptive.enabled");
    if (v) return !strcmp(v, "true");
    const char *ver = clarity_app_str(a, a->spark_version);
    int maj = 0, min = 0;
    sscanf(ver, "%d.%d", &maj, &min);
    return maj > 3 || (maj == 3 && min >= 2);   /* on by default since Spark 3.2 */
}

/* per stage figures the rules share */
struct sf {
    size_t s, m;
    double work_ms, med_rt_ms, med_in, mean_in, in_bytes, disk_spill, mem_spill;
    double med_rec;             /* median records read (shuffle, else input), 0 when not logged */
    bool shuffle;
    int slots;                  /* configured over the stage's span */
    const char *name;
    char namebuf[48];
};

static uint32_t round_up(double v, int mult)
{
    if (mult < 1) mult = 1;
    double r = ceil(v / mult) * mult;
    return r > 1e6 ? 1000000u : (uint32_t)r;
}

/* the partition setting that governs the stage, with the proposed count or size */
static void partition_action(struct fnd *x, struct clarity_finding *f, const struct sf *q, uint32_t parts,
                             const char *why)
{
    char p[32];
    double per = q->in_bytes / (parts ? parts : 1);
    /* file scans of DataFrames are split by maxPartitionBytes whether or not their job has a
       SQL execution id (schema inference, pandas loads); shuffles by the SQL settings only
       under a SQL execution */
    bool sql = (f->where & CLARITY_FW_SQL) != 0 || (!q->shuffle && x->a->nsqls > 0);
    if (q->shuffle && sql && aqe_on(x->a)) {
        clarity_fnd_fmt_jvm(p, sizeof p, (int64_t)(per > FND_MB ? per : FND_MB));
        clarity_fnd_action(x, f, "spark.sql.adaptive.advisoryPartitionSizeInBytes", "64m", p,
                           "Try spark.sql.adaptive.advisoryPartitionSizeInBytes=%s (about %u partitions of the "
                           "%.0f MB shuffle)%s.", p, parts, q->in_bytes / 1e6, why);
    } else if (q->shuffle && sql) {
        snprintf(p, sizeof p, "%u", parts);
        clarity_fnd_action(x, f, "spark.sql.shuffle.partitions", "200", p,
                           "Try spark.sql.shuffle.partitions=%u (%.0f MB shuffle / %u)%s.", parts,
                           q->in_bytes / 1e6, parts, why);
    } else if (sql) {
        clarity_fnd_fmt_jvm(p, sizeof p, (int64_t)(per > FND_MB ? per : FND_MB));
        clarity_fnd_action(x, f, "spark.sql.files.maxPartitionBytes", "128m", p,
                           "Try spark.sql.files.maxPartitionBytes=%s (about %u input partitions)%s.", p, parts, why);
    } else if (!q->shuffle) {
        /* an RDD read (textFile, hadoopFile): Hadoop's input format cuts splits of
           max(minsize, min(maxsize, block)): more splits need a smaller maxsize, fewer a
           larger minsize */
        bool more = parts > q->m;
        const char *set = more ? "spark.hadoop.mapreduce.input.fileinputformat.split.maxsize"
                               : "spark.hadoop.mapreduce.input.fileinputformat.split.minsize";
        clarity_fnd_fmt_jvm(p, sizeof p, (int64_t)(per > FND_MB ? per : FND_MB));
        clarity_fnd_action(x, f, set, more ? "the block size" : "0", p,
                           "Try %s=%s (about %u input splits) for files, the minPartitions argument of "
                           "textFile/hadoopFile, or repartition(%u) for cached data%s.", set, p, parts, parts, why);
    } else {
        snprintf(p, sizeof p, "%u", parts);
        clarity_fnd_action(x, f, "spark.default.parallelism", "the cores", p,
                           "Try spark.default.parallelism=%u, or repartition(%u) before the stage%s.", parts, parts,
                           why);
    }
}

static bool skewed_task(const struct sf *q, const struct clarity_task_comp *c)
{
    double in = (double)clarity_task_input_bytes(c);
    double rec = (double)(q->shuffle ? c->shuffle_read_records : c->input_records);
    /* more bytes but not more records is not more work per record read (a wider row, a
       file footer, a less compressed block): skew needs both where records are logged */
    bool more_records = q->med_rec <= 0 || rec >= SKEW_RECORDS_FACTOR * q->med_rec;
    return in >= SKEW_INPUT_FACTOR * q->med_in && c->runtime_ms >= SKEW_TIME_FACTOR * q->med_rt_ms && more_records;
}

/* The data_skew finding of the stage, or NULL (its replay skipped or out of memory). */
static struct clarity_finding *skew_rule(struct fnd *x, const struct sf *q, const struct clarity_stage_strag *ss)
{
    const struct clarity_task_comp *c = x->comps;
    if (q->m < SKEW_MIN_TASKS || q->med_in <= 0 || q->mean_in <= 0) return NULL;
    /* What the fix does to the hot data decides the replay. A SQL shuffle (AQE's skew join
       splits the skewed partitions) and uneven input splits (smaller splits) are split into
       pieces of the stage's mean size. An RDD shuffle has no such split: the hot key's records
       go back among the others (a salted key, or the bad key fixed), and the other partitions
       grow. Each skewed partition is taken at the stage's median size, and its excess over
       it is spread over every partition in proportion to its size: the records a key
       distribution draws land where that distribution puts the rest. The partitions of a
       skewed graph (synth pagerank: its largest partition 2.5-2.9x the median without any hot
       key) keep their shape, and the largest of them, not the pieces, ends the stage: tuning
       seeds pagerank 1 and 45, +42% and +93% over the re-run with the pieces (10.8 s found
       against 5.6 s for 45), +3% and -7% so. Where the partitions are even (wordcount, sort)
       in proportion is the same as evenly. */
    const struct clarity_stage *st = &x->a->stages[q->s];
    const struct clarity_job *job = st->njob_ids ? clarity_app_job(x->a, st->job_ids[0]) : NULL;
    bool spread = q->shuffle && !(job && job->sql_id >= 0);
    size_t nskew = 0;
    double skew_bytes = 0, max_in = 0, max_rt = 0, excess = 0;
    for (size_t k = 0; k < q->m; k++) {
        double in = (double)clarity_task_input_bytes(&c[k]);
        if (!skewed_task(q, &c[k])) continue;
        nskew++;
        skew_bytes += in;
        excess += in - q->med_in;
        if (in > max_in) max_in = in;
        if (c[k].runtime_ms > max_rt) max_rt = c[k].runtime_ms;
        double pieces = ceil(in / q->mean_in);
        if (!spread) clarity_fnd_mod_split(x, x->lstart[q->s] + k, (uint32_t)(pieces > 10000 ? 10000 : pieces));
    }
    if (!nskew || (double)nskew > SKEW_MAX_TASK_SHARE * (double)q->m) {
        clarity_fnd_mod_cancel(x);
        return NULL;
    }
    /* each task's runtime in proportion to its bytes (the work per byte as it ran) */
    double rest = q->in_bytes - excess;
    for (size_t k = 0; spread && rest > 0 && k < q->m; k++) {
        double in = (double)clarity_task_input_bytes(&c[k]);
        if (in <= 0) continue;
        double to = (skewed_task(q, &c[k]) ? q->med_in : in) * q->in_bytes / rest;
        clarity_fnd_mod_set(x, x->lstart[q->s] + k, x->rt[x->lstart[q->s] + k] * to / in);
    }
    /* The pieces run on the stage's configured slots, up to one per task of the stage (the
       fix spreads the hot data over the stage's own partitions; it adds no parallelism the
       stage did not have). Not on the slots the log saw busy at once: a stage of short tasks
       launched a few at a time looks 5 slots wide (synth wordcount, tuning seed 5: 64 tasks
       of 0.2 s on 32 slots, the hot one 5.0 s), and its pieces then queued behind each other:
       1.7 s saved against the re-run's 4.2 s. Tuning seeds 1-5 / 41-45, p90 of the saving
       error 42 / 64% -> 20 / 27%; all configured slots (more pieces than tasks at once) put
       every sort and pagerank 25-45% over the re-run. */
    double sim = clarity_fnd_mod_end(x, q->slots < (int)q->m ? q->slots : (int)q->m, -1);
    if (sim < 0) return NULL;
    struct clarity_finding *f = clarity_fnd_add(x, CLARITY_FK_DATA_SKEW);
    if (!f) return NULL;
    clarity_fnd_where_stage(x, f, q->s);
    clarity_fnd_set_saving(x, f, sim);
    f->method = CLARITY_FM_REPLAY;
    f->confidence = nskew <= 3 ? CLARITY_FC_HIGH : CLARITY_FC_MEDIUM;
    char b1[24], b2[24];
    const char *what = q->shuffle ? "shuffle" : "input";
    snprintf(f->title, sizeof f->title, "Data skew in stage %lld%s%s%s: %zu of %zu tasks read %.0f%% of the %s "
             "(max %s, median %s)", (long long)f->stage, *q->name ? " (" : "", q->name, *q->name ? ")" : "", nskew,
             q->m, 100 * skew_bytes / q->in_bytes, what, clarity_fnd_bytes(b1, sizeof b1, max_in),
             clarity_fnd_bytes(b2, sizeof b2, q->med_in));
    clarity_fnd_ev(f, "tasks", (double)q->m, "tasks");
    clarity_fnd_ev(f, "skewed_tasks", (double)nskew, "tasks");
    clarity_fnd_ev(f, q->shuffle ? "max_shuffle_read_bytes" : "max_input_bytes", max_in, "bytes");
    clarity_fnd_ev(f, q->shuffle ? "median_shuffle_read_bytes" : "median_input_bytes", q->med_in, "bytes");
    clarity_fnd_ev(f, "skewed_bytes_share", skew_bytes / q->in_bytes, "ratio");
    clarity_fnd_ev(f, "max_task_ms", max_rt, "ms");
    clarity_fnd_ev(f, "median_task_ms", q->med_rt_ms, "ms");
    clarity_fnd_ev(f, "max_records_over_median", ss->records_max_over_median, "ratio");
    if (spread)
        snprintf(f->caveat, sizeof f->caveat, "replayed with each skewed partition at the median size (%s) and its "
                 "excess spread over all partitions in proportion to their size", clarity_fnd_bytes(b1, sizeof b1, q->med_in));
    else
        snprintf(f->caveat, sizeof f->caveat, "replayed with each skewed partition split into pieces of the stage's "
                 "mean size (%s)", clarity_fnd_bytes(b1, sizeof b1, q->mean_in));
    bool sql = (f->where & CLARITY_FW_SQL) != 0;
    if (!q->shuffle) {
        char p[32];
        clarity_fnd_fmt_jvm(p, sizeof p, (int64_t)(q->mean_in > FND_MB ? q->mean_in : FND_MB));
        clarity_fnd_action(x, f, sql ? "spark.sql.files.maxPartitionBytes" : NULL, "128m", p,
                           "The input splits are uneven: %s; or rewrite the input as evenly sized files.",
                           sql ? "try spark.sql.files.maxPartitionBytes (smaller splits)" : "repartition after reading");
    } else if (!sql) {
        clarity_fnd_action(x, f, NULL, NULL, NULL, "Salt the hot key (append a random suffix, aggregate twice) or "
                           "use a partitioner that spreads it.");
    } else if (!aqe_on(x->a)) {
        clarity_fnd_action(x, f, "spark.sql.adaptive.enabled", "false", "true",
                           "Try spark.sql.adaptive.enabled=true with spark.sql.adaptive.skewJoin.enabled=true (AQE "
                           "splits skewed join partitions); or salt the join key.");
    } else {
        const char *sj = clarity_fnd_prop(x->a, "spark.sql.adaptive.skewJoin.enabled");
        if (sj && !strcmp(sj, "false"))
            clarity_fnd_action(x, f, "spark.sql.adaptive.skewJoin.enabled", "true", "true",
                               "Try spark.sql.adaptive.skewJoin.enabled=true; or salt the join key.");
        else {
            char p[32];
            clarity_fnd_fmt_jvm(p, sizeof p, (int64_t)(q->med_in * SKEW_INPUT_FACTOR > 64 * FND_MB ?
                                                       q->med_in * SKEW_INPUT_FACTOR : 64 * FND_MB));
            clarity_fnd_action(x, f, "spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes", "256m", p,
                               "AQE did not split these partitions (not a sort-merge join, or under its threshold):"
                               " try a lower skewedPartitionThresholdInBytes=%s; or salt the key.", p);
        }
    }
    return f;
}

/* the stage's work spread evenly over `parts` partitions, on at least `slots` slots */
static double repartition_saving(struct fnd *x, const struct sf *q, uint32_t parts, double per_task_overhead)
{
    double w = 0, longest = 0;
    for (size_t k = 0; k < q->m; k++) {
        double r = x->rt[x->lstart[q->s] + k];
        w += r;
        if (r > longest) longest = r;
    }
    w += per_task_overhead;   /* negative: overhead removed by coalescing */
    if (w < 0) w = 0;
    for (size_t k = 1; k < q->m; k++) clarity_fnd_mod_set(x, x->lstart[q->s] + k, 0);
    clarity_fnd_mod_set(x, x->lstart[q->s], w);
    clarity_fnd_mod_split(x, x->lstart[q->s], parts);
    /* the stage's time on the replay's critical path shrinks by at most its longest task less
       a piece, plus the overhead removed */
    double bound = longest - w / parts - (per_task_overhead < 0 ? per_task_overhead : 0);
    return clarity_fnd_mod_end(x, q->slots, bound > 0 ? bound : 0);
}

/* More partitions of the same data: each task split into parts / tasks pieces (rounded up),
 * on at least the stage's configured slots. Each task keeps its share of the work, so a
 * partition that was twice the others' stays twice theirs in pieces: the data's own
 * unevenness (a power-law key distribution) is not assumed away, as an even split of the
 * stage's total would. */
static double split_saving(struct fnd *x, const struct sf *q, uint32_t parts)
{
    uint32_t k = (uint32_t)ceil((double)parts / (double)(q->m ? q->m : 1));
    double longest = 0;
    for (size_t i = 0; i < q->m; i++) {
        double r = x->rt[x->lstart[q->s] + i];
        if (r > longest) longest = r;
        clarity_fnd_mod_split(x, x->lstart[q->s] + i, k);
    }
    /* the stage's time on the critical path shrinks by at most its longest task less a piece */
    double bound = k > 1 ? longest - longest / k : 0;
    return clarity_fnd_mod_end(x, q->slots, bound);
}

static void partitions_rule(struct fnd *x, const struct sf *q)
{
    if (q->slots <= 0 || q->in_bytes < FEW_MIN_BYTES) return;
    enum clarity_finding_kind kind;
    uint32_t parts;
    double target = ceil(q->in_bytes / FND_TARGET_PARTITION_BYTES);
    if (q->m < (size_t)q->slots && q->med_rt_ms >= TINY_MEDIAN_MS) {
        kind = CLARITY_FK_TOO_FEW_PARTITIONS;
        parts = target <= q->slots ? (uint32_t)q->slots : round_up(target, q->slots);
    } else if (q->med_in >= OVERSIZED_MEDIAN_BYTES) {
        kind = CLARITY_FK_OVERSIZED_PARTITIONS;
        parts = round_up(target, q->slots);
    } else return;
    double sim = split_saving(x, q, parts);
    if (sim < 0) return;
    struct clarity_finding *f = clarity_fnd_add(x, kind);
    if (!f) return;
    clarity_fnd_where_stage(x, f, q->s);
    clarity_fnd_set_saving(x, f, sim);
    f->method = CLARITY_FM_REPLAY;
    char b1[24];
    if (kind == CLARITY_FK_TOO_FEW_PARTITIONS)
        snprintf(f->title, sizeof f->title, "Too few partitions in stage %lld%s%s%s: %zu tasks for %d slots "
                 "(%s read, median task %.1f s)", (long long)f->stage, *q->name ? " (" : "", q->name,
                 *q->name ? ")" : "", q->m, q->slots, clarity_fnd_bytes(b1, sizeof b1, q->in_bytes),
                 q->med_rt_ms / 1e3);
    else
        snprintf(f->title, sizeof f->title, "Oversized partitions in stage %lld%s%s%s: median partition %s (%zu "
                 "tasks)", (long long)f->stage, *q->name ? " (" : "", q->name, *q->name ? ")" : "",
                 clarity_fnd_bytes(b1, sizeof b1, q->med_in), q->m);
    clarity_fnd_ev(f, "tasks", (double)q->m, "tasks");
    clarity_fnd_ev(f, "slots", q->slots, "slots");
    clarity_fnd_ev(f, q->shuffle ? "shuffle_read_bytes" : "input_bytes", q->in_bytes, "bytes");
    clarity_fnd_ev(f, "median_partition_bytes", q->med_in, "bytes");
    clarity_fnd_ev(f, "median_task_ms", q->med_rt_ms, "ms");
    clarity_fnd_ev(f, "proposed_partitions", parts, "partitions");
    snprintf(f->caveat, sizeof f->caveat, "replayed with each task split into %u equal pieces (about %u tasks) on "
             "the stage's %d slots; assumes each partition's work divides with its data",
             (unsigned)ceil((double)parts / (double)q->m), parts, q->slots);
    partition_action(x, f, q, parts, kind == CLARITY_FK_TOO_FEW_PARTITIONS ? ": every slot gets work" : "");
}

static void tiny_rule(struct fnd *x, const struct sf *q)
{
    if (q->slots <= 0 || q->m < TINY_MIN_TASKS || q->m < (size_t)TINY_MIN_WAVES * (size_t)q->slots ||
        q->med_rt_ms >= TINY_MEDIAN_MS)
        return;
    /* per-task overhead: scheduler delay and deserialization, paid once per task */
    double over = 0;
    for (size_t k = 0; k < q->m; k++) over += x->comps[k].sched_delay_ms + x->comps[k].deser_ms;
    double target = ceil(q->in_bytes / FND_TARGET_PARTITION_BYTES);
    uint32_t parts = target <= q->slots ? (uint32_t)q->slots : round_up(target, q->slots);
    if (parts >= q->m) return;
    double keep = over / (double)q->m * parts;
    struct fnd_tiny_io io;
    if (clarity_fnd_tiny_io(x->comps, q->m, parts, q->slots, &io)) { x->oom = 1; return; }
    double sim = repartition_saving(x, q, parts, keep - over + io.extra_ms);
    if (sim < 0) return;
    struct clarity_finding *f = clarity_fnd_add(x, CLARITY_FK_TINY_TASKS);
    if (!f) return;
    clarity_fnd_where_stage(x, f, q->s);
    clarity_fnd_set_saving(x, f, sim);
    f->method = CLARITY_FM_REPLAY;
    f->confidence = CLARITY_FC_MEDIUM;
    snprintf(f->title, sizeof f->title, "Tiny tasks in stage %lld%s%s%s: %zu tasks, median %.0f ms, %.0f%% of task "
             "time is scheduling and deserialization", (long long)f->stage, *q->name ? " (" : "", q->name,
             *q->name ? ")" : "", q->m, q->med_rt_ms, q->work_ms > 0 ? 100 * over / q->work_ms : 0);
    clarity_fnd_ev(f, "tasks", (double)q->m, "tasks");
    clarity_fnd_ev(f, "slots", q->slots, "slots");
    clarity_fnd_ev(f, "median_task_ms", q->med_rt_ms, "ms");
    clarity_fnd_ev(f, "overhead_ms", over, "ms");
    clarity_fnd_ev(f, "proposed_partitions", parts, "partitions");
    /* The coalesced tasks' I/O contention (fnd_io.c), where the tiny tasks show it */
    if (io.extra_ms > 0) {
        f->method = CLARITY_FM_ESTIMATE;   /* the coalesced tasks' I/O rate is extrapolated */
        clarity_fnd_ev(f, "io_ms_per_mb", io.ms_per_mb, "ms");
        clarity_fnd_ev(f, "io_ms_per_mb_coalesced", io.ms_per_mb_coalesced, "ms");
        clarity_fnd_ev(f, "io_extra_ms", io.extra_ms, "ms");
        snprintf(f->caveat, sizeof f->caveat, "replayed as %u tasks with the same work, one task's overhead each, "
                 "and their I/O at %.1f ms/MB (%.1f now): %.0f at once per host, extrapolated from how the tiny "
                 "tasks' I/O slowed with concurrency (an estimate)", parts, io.ms_per_mb_coalesced, io.ms_per_mb,
                 io.per_host);
    } else
        snprintf(f->caveat, sizeof f->caveat, "replayed as %u tasks with the same work and one task's overhead each; "
                 "larger tasks share their host's disks and network more (the tiny tasks show no such slowing to "
                 "extrapolate): high where the stage waits on I/O", parts);
    partition_action(x, f, q, parts, ": fewer, larger tasks");
}

/* skew_saving: the wall saving of the stage's data_skew finding, -1 when it has none. The skew
 * replay already runs each skewed task at the median size (or in pieces of the mean), without
 * the excess it spilled; a spill saving that also removed their spill would count it twice
 * where a reader adds the two (the findings are ranked by saving and added up: on hot-key
 * sorts data_skew + spill summed came +5% to +17% over the synth re-run, data_skew alone -4%
 * to +4%, tuning seeds 1-5, 41-45). So where the data_skew finding is kept, the spill finding
 * replays only the other tasks' spill, and there is none when only skewed tasks spilled. */
static void spill_rule(struct fnd *x, const struct sf *q, int64_t skew_saving)
{
    if (q->disk_spill <= 0) return;
    const struct clarity_app *a = x->a;
    /* the data_skew finding survives the minimum-saving filter (keep()'s own wall threshold:
       a data_skew finding has no core-hour saving to pass it by) */
    bool overlap = skew_saving >= 0 && (double)skew_saving >= x->min_wall;
    bool any_cpu = false;
    size_t nspill = 0, nskew = 0;
    double skew_spill = 0;
    for (size_t k = 0; k < q->m; k++) {
        const struct clarity_task_comp *c = &x->comps[k];
        int64_t d = clarity_task_metric(a, c->row, CLARITY_TM_DISK_SPILLED);
        if (d <= 0) continue;
        if (overlap && skewed_task(q, c)) {
            nskew++;
            skew_spill += (double)d;
            continue;
        }
        nspill++;
        /* written and read back at SPILL_MB_S where CPU time is not logged. Where it is, the
           task's time outside CPU, GC and shuffle (the only place spill time can hide) is its
           disk time: input read, output write and the spill written and read back, shared by
           bytes, each alike (the rate the task's own disk gave it, at its own contention) */
        double est = 2.0 * (double)d / (SPILL_MB_S * 1e6) * 1e3;
        if (c->cpu_logged) {
            any_cpu = true;
            double io = (double)(c->input_bytes > 0 ? c->input_bytes : 0) +
                        (double)(c->output_bytes > 0 ? c->output_bytes : 0) + 2.0 * (double)d;
            est = c->unattributed_ms * 2.0 * (double)d / io;
        }
        clarity_fnd_mod_set(x, x->lstart[q->s] + k, c->runtime_ms - est);
    }
    if (!nspill) {   /* only the skewed tasks spilled: the data_skew finding's saving holds it all */
        clarity_fnd_mod_cancel(x);
        return;
    }
    double sim = clarity_fnd_mod_end(x, 0, -1);
    if (sim < 0) return;
    struct clarity_finding *f = clarity_fnd_add(x, CLARITY_FK_SPILL);
    if (!f) return;
    clarity_fnd_where_stage(x, f, q->s);
    clarity_fnd_set_saving(x, f, sim);
    f->method = CLARITY_FM_ESTIMATE;
    f->confidence = any_cpu ? CLARITY_FC_MEDIUM : CLARITY_FC_LOW;
    char b1[24], b2[24];
    snprintf(f->title, sizeof f->title, "Spill in stage %lld%s%s%s: %s to disk (%s in memory) over %zu tasks",
             (long long)f->stage, *q->name ? " (" : "", q->name, *q->name ? ")" : "",
             clarity_fnd_bytes(b1, sizeof b1, q->disk_spill), clarity_fnd_bytes(b2, sizeof b2, q->mem_spill), q->m);
    clarity_fnd_ev(f, "disk_spilled_bytes", q->disk_spill, "bytes");
    clarity_fnd_ev(f, "memory_spilled_bytes", q->mem_spill, "bytes");
    clarity_fnd_ev(f, q->shuffle ? "shuffle_read_bytes" : "input_bytes", q->in_bytes, "bytes");
    clarity_fnd_ev(f, "tasks", (double)q->m, "tasks");
    if (nskew) {
        /* added fields (clarity.findings/1 stays as it was): the skewed tasks' spill left out */
        clarity_fnd_ev(f, "overlaps_data_skew", 1, "flag");
        clarity_fnd_ev(f, "skewed_tasks_disk_spilled_bytes", skew_spill, "bytes");
        clarity_fnd_ev(f, "spilling_tasks_counted", (double)nspill, "tasks");
        snprintf(f->caveat, sizeof f->caveat, "spill of the %zu tasks not skewed only: the %s of the %zu skewed is "
                 "in the data_skew saving (add the two); no spill time logged: %s", nspill,
                 clarity_fnd_bytes(b1, sizeof b1, skew_spill), nskew,
                 any_cpu ? "time outside CPU, GC, shuffle by bytes" : "an assumed disk rate");
    } else if (any_cpu)
        snprintf(f->caveat, sizeof f->caveat, "the log has no spill time: each spilling task's time outside CPU, GC "
                 "and shuffle shared over its input, output and spilled bytes (written and read back), byte for byte");
    else
        snprintf(f->caveat, sizeof f->caveat, "the log has no spill time (nor CPU time): estimated as the spilled bytes "
                 "written and read at an assumed %.0f MB/s", SPILL_MB_S);
    double target = ceil(q->in_bytes / FND_TARGET_PARTITION_BYTES);
    if (target > 1.5 * (double)q->m && q->slots > 0) {
        partition_action(x, f, q, round_up(target, q->slots), ": smaller partitions fit in memory");
        return;
    }
    const char *cur = clarity_fnd_prop(a, "spark.executor.memory");
    int64_t mem = clarity_fnd_jvm_size(cur ? cur : "1g");
    char p[32];
    clarity_fnd_fmt_jvm(p, sizeof p, mem * 2);
    clarity_fnd_action(x, f, "spark.executor.memory", "1g", p, "Try spark.executor.memory=%s (twice the memory per "
                       "task), or more partitions for this stage.", p);
}

void clarity_fnd_stage_rules(struct fnd *x)
{
    const struct clarity_app *a = x->a;
    size_t maxm = x->v.max_stage ? x->v.max_stage : 1;
    uint16_t *flags = malloc(maxm * sizeof *flags);
    double *tmp = malloc(maxm * sizeof *tmp), *tmp2 = malloc(maxm * sizeof *tmp2);
    struct fnd_slow *sl = calloc(a->nstages ? a->nstages : 1, sizeof *sl);
    if (!flags || !tmp || !tmp2 || !sl) { x->oom = 1; goto done; }
    for (size_t s = 0; s < a->nstages && !x->oom; s++) {
        size_t m = x->lsucc[s];
        if (!m) continue;
        clarity_task_view_stage_comps(&x->v, s, x->comps);
        struct sf q = {.s = s, .m = m};
        size_t nin = 0, nrec = 0;
        double sr = 0, ib = 0;
        for (size_t k = 0; k < m; k++) {
            const struct clarity_task_comp *c = &x->comps[k];
            q.work_ms += c->runtime_ms;
            tmp[k] = c->runtime_ms;
            int64_t in = clarity_task_input_bytes(c);
            if (in > 0) tmp2[nin++] = (double)in;
            sr += (double)c->shuffle_read_bytes;
            ib += (double)c->input_bytes;
            q.disk_spill += (double)clarity_task_metric(a, c->row, CLARITY_TM_DISK_SPILLED);
            q.mem_spill += (double)clarity_task_metric(a, c->row, CLARITY_TM_MEM_SPILLED);
        }
        q.shuffle = sr > 0;
        for (size_t k = 0; k < m; k++) {
            int64_t rec = q.shuffle ? x->comps[k].shuffle_read_records : x->comps[k].input_records;
            if (rec > 0) tmp[nrec++] = (double)rec;
        }
        q.med_rec = median_of(tmp, nrec);
        for (size_t k = 0; k < m; k++) tmp[k] = x->comps[k].runtime_ms;
        q.in_bytes = 0;
        for (size_t k = 0; k < nin; k++) q.in_bytes += tmp2[k];
        q.mean_in = nin ? q.in_bytes / (double)nin : 0;
        q.med_rt_ms = median_of(tmp, m);
        q.med_in = median_of(tmp2, nin);
        int64_t from = INT64_MAX, to = INT64_MIN;
        for (size_t k = 0; k < m; k++) {
            if (x->comps[k].launch_ms < from) from = x->comps[k].launch_ms;
            if (x->comps[k].finish_ms > to) to = x->comps[k].finish_ms;
        }
        q.slots = clarity_sim_configured_slots(a, from, to);
        q.name = clarity_fnd_stage_name(x, s, q.namebuf, sizeof q.namebuf);
        (void)ib;
        struct clarity_stage_strag ss;
        struct clarity_error e = {0};
        if (clarity_stragglers_stage(x->comps, NULL, m, &ss, flags, NULL, &e)) { x->oom = 1; break; }
        if (clarity_fnd_host_stage(x, m, m >= CLARITY_STRAGGLER_MIN_RATED ? ss.slow_host : 0, &sl[s])) {
            x->oom = 1;
            break;
        }
        /* the saving, not the finding: the rules after it may move x->f */
        const struct clarity_finding *sk = skew_rule(x, &q, &ss);
        int64_t skew_saving = sk ? sk->saving_ms : -1;
        partitions_rule(x, &q);
        tiny_rule(x, &q);
        spill_rule(x, &q, skew_saving);
    }
    if (!x->oom) clarity_fnd_slow_host_rule(x, sl);
done:
    free(flags); free(tmp); free(tmp2); free(sl);
}
