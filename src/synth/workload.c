/* The built-in scenarios as stage DAGs: what each task reads, computes, shuffles and writes.
 * Rates are per core and per byte, so --data and the cluster knobs scale one application. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "synth/internal.h"
#include "util/vec.h"

#define MB (1024.0 * 1024.0)

static int query_add(struct sim *s, const char *name, const char *desc, bool sql, int pool, double arrival)
{
    if (CLARITY_VEC_RESERVE(s->queries, s->cap_queries, (size_t)s->nqueries + 1)) return -1;
    struct sy_query *q = &s->queries[s->nqueries];
    *q = (struct sy_query){.idx = s->nqueries, .sql = sql, .sql_id = -1, .pool = pool, .arrival_t = arrival, .gap_s = 0.3,
                           .priority = 1};
    snprintf(q->name, sizeof q->name, "%s", name);
    snprintf(q->description, sizeof q->description, "%s", desc);
    return s->nqueries++;
}

static int job_add(struct sim *s, int q, const char *call_site)
{
    struct sy_query *qq = &s->queries[q];
    if (qq->njobs >= 64 || CLARITY_VEC_RESERVE(s->jobs, s->cap_jobs, (size_t)s->njobs + 1)) return -1;
    struct sy_job *j = &s->jobs[s->njobs];
    *j = (struct sy_job){.idx = s->njobs, .query = q, .spark_id = -1};
    snprintf(j->call_site, sizeof j->call_site, "%s", call_site);
    qq->jobs[qq->njobs++] = j->idx;
    return s->njobs++;
}

/* A new stage in job j; parents must already be in the job. Returns its index or -1. */
static int stage_new(struct sim *s, int j, const char *name, int ntasks, const int *parents, int np)
{
    struct sy_job *jb = &s->jobs[j];
    if (jb->nstages >= 16 || CLARITY_VEC_RESERVE(s->stages, s->cap_stages, (size_t)s->nstages + 1)) return -1;
    struct sy_stage *st = &s->stages[s->nstages];
    *st = (struct sy_stage){.idx = s->nstages, .spark_id = -1, .query = jb->query, .job = j, .ntasks = ntasks < 1 ? 1 : ntasks,
                            .cache_src = -1, .loc_timer = -1, .alloc_per_cpu = 300 * MB, .mem_bytes = 32 * MB,
                            .result_bytes = 2500};
    snprintf(st->name, sizeof st->name, "%s", name);
    for (int i = 0; i < np && i < 4; i++) {
        st->parents[st->nparents++] = parents[i];
        st->map_tasks += s->stages[parents[i]].ntasks;
    }
    jb->stages[jb->nstages++] = st->idx;
    return s->nstages++;
}

static void reuse(struct sim *s, int j, int stage)
{
    struct sy_job *jb = &s->jobs[j];
    if (jb->nstages < 16) jb->stages[jb->nstages++] = stage;
}

static int splits(const struct sim *s, double bytes)
{
    double n = ceil(bytes / s->cfg->split_bytes);
    return n < 1 ? 1 : n > 5e7 ? 50000000 : (int)n;
}

static int parts(const struct sim *s, int dflt)
{
    return s->cfg->partitions > 0 ? s->cfg->partitions : dflt;
}

/* sets the shuffle read of st from everything its parents wrote */
static void shuffle_from_parents(struct sim *s, int st)
{
    struct sy_stage *x = &s->stages[st];
    double total = 0;
    for (int i = 0; i < x->nparents; i++) {
        struct sy_stage *p = &s->stages[x->parents[i]];
        total += p->sw_bytes * p->ntasks * exp(s->cfg->skew * s->cfg->skew / 2);
    }
    x->sr_bytes = total / x->ntasks;
}

#define S(i) (&s->stages[i])
#define CHECK(x) do { if ((x) < 0) return -1; } while (0)

static int build_wordcount(struct sim *s)
{
    int q, j, m, r;
    CHECK(q = query_add(s, "wordcount", "WordCount", false, 0, 0.6));
    CHECK(j = job_add(s, q, "saveAsTextFile at WordCount.scala:49"));
    int nm = splits(s, s->cfg->data_bytes);
    CHECK(m = stage_new(s, j, "map at WordCount.scala:43", nm, NULL, 0));
    S(m)->input_kind = IN_HDFS;
    S(m)->in_bytes = s->cfg->data_bytes / nm;
    S(m)->cpu_s = S(m)->in_bytes / (70 * MB);
    S(m)->sw_bytes = S(m)->in_bytes * 0.06;
    S(m)->mem_bytes = 96 * MB;
    CHECK(r = stage_new(s, j, "saveAsTextFile at WordCount.scala:49", parts(s, nm), &m, 1));
    shuffle_from_parents(s, r);
    S(r)->result = true;
    S(r)->cpu_s = S(r)->sr_bytes / (40 * MB);
    S(r)->out_bytes = S(r)->sr_bytes * 0.8;
    S(r)->op = "HashAggregate";
    return 0;
}

static int build_sort(struct sim *s)
{
    int q, j, m, r;
    CHECK(q = query_add(s, "sort", "Sort", false, 0, 0.6));
    CHECK(j = job_add(s, q, "saveAsNewAPIHadoopFile at ScalaSort.scala:51"));
    int nm = splits(s, s->cfg->data_bytes);
    CHECK(m = stage_new(s, j, "sortByKey at ScalaSort.scala:47", nm, NULL, 0));
    S(m)->input_kind = IN_HDFS;
    S(m)->in_bytes = s->cfg->data_bytes / nm;
    S(m)->cpu_s = S(m)->in_bytes / (300 * MB);
    S(m)->sw_bytes = S(m)->in_bytes;
    S(m)->mem_bytes = 160 * MB;
    CHECK(r = stage_new(s, j, "saveAsNewAPIHadoopFile at ScalaSort.scala:51", parts(s, nm), &m, 1));
    shuffle_from_parents(s, r);
    S(r)->result = true;
    S(r)->cpu_s = S(r)->sr_bytes / (150 * MB);
    S(r)->out_bytes = S(r)->sr_bytes;
    S(r)->mem_bytes = S(r)->sr_bytes * 1.3;
    return 0;
}

static int build_kmeans(struct sim *s)
{
    int q, j, c, a, b;
    CHECK(q = query_add(s, "kmeans", "DenseKMeans", false, 0, 0.6));
    s->queries[q].gap_s = 0.15;
    CHECK(j = job_add(s, q, "count at DenseKMeans.scala:82"));
    int nm = splits(s, s->cfg->data_bytes);
    CHECK(c = stage_new(s, j, "count at DenseKMeans.scala:82", nm, NULL, 0));
    S(c)->input_kind = IN_HDFS;
    S(c)->in_bytes = s->cfg->data_bytes / nm;
    S(c)->cpu_s = S(c)->in_bytes / (60 * MB);
    S(c)->mem_bytes = S(c)->in_bytes * 1.4;   /* deserialized vectors held in the cache */
    S(c)->caches = true;
    S(c)->result = true;
    int iters = s->cfg->iterations > 0 ? s->cfg->iterations : 5;
    for (int i = 0; i < iters; i++) {
        CHECK(j = job_add(s, q, "collectAsMap at KMeans.scala:297"));
        CHECK(a = stage_new(s, j, "mapPartitions at KMeans.scala:284", nm, NULL, 0));
        S(a)->input_kind = IN_CACHE;
        S(a)->cache_src = c;
        S(a)->in_bytes = S(c)->in_bytes;
        S(a)->cpu_s = S(a)->in_bytes / (45 * MB);
        S(a)->sw_bytes = 40e3;
        S(a)->alloc_per_cpu = 150 * MB;
        CHECK(b = stage_new(s, j, "collectAsMap at KMeans.scala:297", nm, &a, 1));
        shuffle_from_parents(s, b);
        S(b)->result = true;
        S(b)->cpu_s = 0.01;
        S(b)->result_bytes = 20e3;
    }
    return 0;
}

static int build_pagerank(struct sim *s)
{
    int q, j, d, prev, st;
    CHECK(q = query_add(s, "pagerank", "SparkPageRank", false, 0, 0.6));
    CHECK(j = job_add(s, q, "collect at SparkPageRank.scala:79"));
    int nm = splits(s, s->cfg->data_bytes), np = parts(s, nm);
    CHECK(d = stage_new(s, j, "distinct at SparkPageRank.scala:64", nm, NULL, 0));
    S(d)->input_kind = IN_HDFS;
    S(d)->in_bytes = s->cfg->data_bytes / nm;
    S(d)->cpu_s = S(d)->in_bytes / (50 * MB);
    S(d)->sw_bytes = S(d)->in_bytes * 0.7;
    S(d)->mem_bytes = 128 * MB;
    prev = d;
    int iters = s->cfg->iterations > 0 ? s->cfg->iterations : 4;
    int maps[16], nmaps = 0;
    maps[nmaps++] = d;
    for (int i = 0; i < iters && nmaps < 14; i++) {
        CHECK(st = stage_new(s, j, "flatMap at SparkPageRank.scala:71", np, &prev, 1));
        shuffle_from_parents(s, st);
        S(st)->cpu_s = S(st)->sr_bytes / (35 * MB);
        S(st)->mem_bytes = S(st)->sr_bytes * 2.5;   /* links grouped in memory: GC heavy */
        S(st)->alloc_per_cpu = 600 * MB;
        S(st)->sw_bytes = S(st)->sr_bytes * 0.8;
        S(st)->caches = i == 0;
        prev = st;
        maps[nmaps++] = st;
    }
    CHECK(st = stage_new(s, j, "collect at SparkPageRank.scala:79", np, &prev, 1));
    shuffle_from_parents(s, st);
    S(st)->result = true;
    S(st)->cpu_s = S(st)->sr_bytes / (80 * MB);
    S(st)->result_bytes = S(st)->sr_bytes * 0.1;
    /* the ranks are saved too: a second job that reuses every shuffle (skipped stages) */
    CHECK(j = job_add(s, q, "saveAsTextFile at SparkPageRank.scala:82"));
    for (int i = 0; i < nmaps; i++) reuse(s, j, maps[i]);
    CHECK(st = stage_new(s, j, "saveAsTextFile at SparkPageRank.scala:82", np, &prev, 1));
    shuffle_from_parents(s, st);
    S(st)->result = true;
    S(st)->cpu_s = S(st)->sr_bytes / (80 * MB);
    S(st)->out_bytes = S(st)->sr_bytes * 0.5;
    return 0;
}

static const char *const tpcds_names[] = {"q3", "q17", "q42", "q67", "q7", "q25", "q52", "q98", "q19", "q29", "q55", "q89"};

/* One TPC-DS-like query: shape 0 scan+aggregate, 1 sort-merge join, 2 broadcast join (two
 * jobs), 3 CPU-heavy sort/window. */
static void tpcds_name(int n, char *name, size_t cap)
{
    if (n >= 12) snprintf(name, cap, "%s_%d", tpcds_names[n % 12], n / 12);
    else snprintf(name, cap, "%s", tpcds_names[n % 12]);
}

/* name in a comma-separated list (--aggressive, --omit) */
static bool in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, ",");
        if (k == n && !strncmp(p, name, n)) return true;
        p += k + (p[k] == ',');
    }
    return false;
}

static int build_tpcds_query(struct sim *s, int n, double arrival)
{
    int shape = n % 4, q, j, a, b, c, d;
    int pool = s->cfg->fair ? (shape == 1 || shape == 3 ? 1 : 2) : 0;
    char name[32], desc[64];
    tpcds_name(n, name, sizeof name);
    /* an aggressive query: the same plan over more data (and so more CPU, disk, network) */
    const double data = s->cfg->data_bytes *
                        (in_list(s->cfg->aggressive, name) ? (s->cfg->aggressive_scale > 0 ? s->cfg->aggressive_scale : 4) : 1);
    snprintf(desc, sizeof desc, "TPC-DS %s", name);
    CHECK(q = query_add(s, name, desc, true, pool, arrival));
    int np = parts(s, 200);
    char cs[96];
    snprintf(cs, sizeof cs, "run at %s.scala:%d", name, 40 + n);
    switch (shape) {
    case 0:
        CHECK(j = job_add(s, q, cs));
        CHECK(a = stage_new(s, j, cs, splits(s, data * 0.3), NULL, 0));
        S(a)->input_kind = IN_HDFS; S(a)->in_bytes = data * 0.3 / S(a)->ntasks;
        S(a)->cpu_s = S(a)->in_bytes / (150 * MB); S(a)->sw_bytes = S(a)->in_bytes * 0.02; S(a)->op = "HashAggregate";
        CHECK(b = stage_new(s, j, cs, np, &a, 1));
        shuffle_from_parents(s, b);
        S(b)->result = true; S(b)->cpu_s = 0.02 + S(b)->sr_bytes / (60 * MB); S(b)->op = "HashAggregate";
        break;
    case 1: {
        CHECK(j = job_add(s, q, cs));
        CHECK(a = stage_new(s, j, cs, splits(s, data * 0.5), NULL, 0));
        S(a)->input_kind = IN_HDFS; S(a)->in_bytes = data * 0.5 / S(a)->ntasks;
        S(a)->cpu_s = S(a)->in_bytes / (120 * MB); S(a)->sw_bytes = S(a)->in_bytes * 0.25; S(a)->op = "Filter";
        CHECK(b = stage_new(s, j, cs, 4, NULL, 0));
        S(b)->input_kind = IN_HDFS; S(b)->in_bytes = data * 0.01 / 4;
        S(b)->cpu_s = S(b)->in_bytes / (120 * MB); S(b)->sw_bytes = S(b)->in_bytes * 0.5; S(b)->op = "Filter";
        int ab[2] = {a, b};
        CHECK(c = stage_new(s, j, cs, np, ab, 2));
        shuffle_from_parents(s, c);
        S(c)->cpu_s = S(c)->sr_bytes / (40 * MB); S(c)->mem_bytes = S(c)->sr_bytes * 2; S(c)->sw_bytes = 20e3;
        S(c)->op = "SortMergeJoin";
        CHECK(d = stage_new(s, j, cs, 1, &c, 1));
        shuffle_from_parents(s, d);
        S(d)->result = true; S(d)->cpu_s = 0.05; S(d)->op = "TakeOrderedAndProject";
        break;
    }
    case 2:
        CHECK(j = job_add(s, q, cs));
        CHECK(a = stage_new(s, j, cs, 2, NULL, 0));
        S(a)->input_kind = IN_HDFS; S(a)->in_bytes = 24 * MB; S(a)->cpu_s = 0.25;
        S(a)->result = true; S(a)->result_bytes = 4 * MB; S(a)->op = "BroadcastExchange";
        CHECK(j = job_add(s, q, cs));
        CHECK(b = stage_new(s, j, cs, splits(s, data * 0.2), NULL, 0));
        S(b)->input_kind = IN_HDFS; S(b)->in_bytes = data * 0.2 / S(b)->ntasks;
        S(b)->cpu_s = S(b)->in_bytes / (90 * MB); S(b)->sw_bytes = S(b)->in_bytes * 0.01; S(b)->op = "BroadcastHashJoin";
        CHECK(c = stage_new(s, j, cs, np, &b, 1));
        shuffle_from_parents(s, c);
        S(c)->result = true; S(c)->cpu_s = 0.02 + S(c)->sr_bytes / (60 * MB); S(c)->op = "HashAggregate";
        break;
    default:
        CHECK(j = job_add(s, q, cs));
        CHECK(a = stage_new(s, j, cs, splits(s, data * 0.4), NULL, 0));
        S(a)->input_kind = IN_HDFS; S(a)->in_bytes = data * 0.4 / S(a)->ntasks;
        S(a)->cpu_s = S(a)->in_bytes / (40 * MB); S(a)->sw_bytes = S(a)->in_bytes * 0.3; S(a)->op = "Project";
        CHECK(b = stage_new(s, j, cs, np, &a, 1));
        shuffle_from_parents(s, b);
        S(b)->result = true; S(b)->cpu_s = S(b)->sr_bytes / (20 * MB); S(b)->mem_bytes = S(b)->sr_bytes * 1.5;
        S(b)->alloc_per_cpu = 500 * MB; S(b)->op = "Window";
    }
    return 0;
}

/* query-pool: the named query alone in pool "dedicated", whose weight is the given share of
 * the total weight of the pools in use (w / (w + others) = share). The root then compares
 * pools by Spark's fair algorithm even in FIFO mode: that is what a FIFO deployment must switch
 * to for a per-query pool, with the other queries left in one FIFO pool ("default"). */
static void dedicated_pool(struct sim *s, int q)
{
    double others = 0;
    bool used[4] = {false};
    for (int i = 0; i < s->nqueries; i++)
        if (i != q) used[s->queries[i].pool] = true;
    for (int p = 0; p < s->npools; p++)
        if (used[p]) others += s->pools[p].weight;
    if (others <= 0) others = 1;
    double share = s->cfg->pool_share;
    s->pools[3] = (struct sy_pool){"dedicated", share / (1 - share) * others, 0, 0};
    s->npools = 4;
    s->queries[q].pool = 3;
}

/* query-pool and query-priority, once every query exists (the pool weight depends on the
 * pools the others use). Names that match no query are ignored, as omit does. */
static void apply_overrides(struct sim *s)
{
    const struct synth_config *c = s->cfg;
    for (int i = 0; i < s->nqueries; i++) {
        struct sy_query *q = &s->queries[i];
        for (int k = 0; k < c->npriority; k++)
            if (!strcmp(c->priority[k].query, q->name)) q->priority = c->priority[k].value;
    }
    for (int i = 0; c->pool_query[0] && i < s->nqueries; i++)
        if (!strcmp(c->pool_query, s->queries[i].name)) dedicated_pool(s, i);
}

static int build_tpcds(struct sim *s)
{
    int n = s->cfg->queries > 0 ? s->cfg->queries : 8;
    double t = 3.0;
    for (int i = 0; i < n; i++) {
        char name[32];
        tpcds_name(i, name, sizeof name);
        if (!in_list(s->cfg->omit, name)) CHECK(build_tpcds_query(s, i, t));
        t += rng_exp(&s->rng_work, s->cfg->arrival_s);
    }
    apply_overrides(s);
    return 0;
}

int clarity_workload_build(struct sim *s)
{
    const char *n = s->cfg->scenario;
    int rc = !strcmp(n, "wordcount") ? build_wordcount(s)
           : !strcmp(n, "sort") ? build_sort(s)
           : !strcmp(n, "kmeans") ? build_kmeans(s)
           : !strcmp(n, "pagerank") ? build_pagerank(s)
           : !strcmp(n, "tpcds-mix") ? build_tpcds(s) : -1;
    return rc;
}
