/* Ground truth: what really slowed each task (from the processor-sharing model, not from the
 * logs), which tasks each fault hit, who slowed whom between concurrent queries over time,
 * and the application's runtime. truth-tasks.jsonl is streamed stage by stage; truth.json is
 * written at the end. Schema: docs/synth.md. */
#include <math.h>
#include <stdlib.h>
#include "util/jsonw.h"
#include "synth/internal.h"
#include "util/stats.h"
#include "util/vec.h"

#define MAX_CONT_QUERIES 64

struct contention {
    int nq, nc;                 /* victims: queries; culprits: queries then faults */
    double bucket;
    int nb;
    float *pair;                /* [bucket][victim][culprit][3] seconds lost */
    float *usage;               /* [bucket][query][3] work done (core-s or bytes) */
};

static size_t pair_block(const struct contention *c) { return (size_t)c->nq * (size_t)c->nc * 3; }
static size_t usage_block(const struct contention *c) { return (size_t)c->nq * 3; }

int clarity_truth_init(struct sim *s)
{
    if (s->nqueries > MAX_CONT_QUERIES) return 0;   /* documented: no contention truth */
    struct contention *c = calloc(1, sizeof *c);
    if (!c) return -1;
    c->nq = s->nqueries;
    c->nc = s->nqueries + s->cfg->nfaults;
    c->bucket = s->cfg->bucket_s > 0 ? s->cfg->bucket_s : 10;
    s->cont = c;
    return 0;
}

static int bucket_of(struct sim *s, double t)
{
    struct contention *c = s->cont;
    int b = (int)(t / c->bucket);
    if (b < 0) b = 0;
    if (b >= c->nb) {
        int nb = b + 16;
        float *p = realloc(c->pair, (size_t)nb * pair_block(c) * sizeof *p);
        if (p) c->pair = p;
        float *u = realloc(c->usage, (size_t)nb * usage_block(c) * sizeof *u);
        if (u) c->usage = u;
        if (!p || !u) {
            SIM_FAIL(s, "out of memory");
            return -1;
        }
        memset(c->pair + (size_t)c->nb * pair_block(c), 0, (size_t)(nb - c->nb) * pair_block(c) * sizeof *p);
        memset(c->usage + (size_t)c->nb * usage_block(c), 0, (size_t)(nb - c->nb) * usage_block(c) * sizeof *u);
        c->nb = nb;
    }
    return b;
}

void clarity_truth_pair(struct sim *s, int victim, int culprit, int res, double t, double delay)
{
    struct contention *c = s->cont;
    if (!c || delay <= 0 || res < RES_CPU) return;
    int b = bucket_of(s, t);
    if (b < 0) return;
    c->pair[(size_t)b * pair_block(c) + ((size_t)victim * c->nc + (size_t)culprit) * 3 + (size_t)(res - RES_CPU)] += (float)delay;
}

void clarity_truth_usage(struct sim *s, int q, int res, double t, double amount)
{
    struct contention *c = s->cont;
    if (!c || amount <= 0 || res < RES_CPU) return;
    int b = bucket_of(s, t);
    if (b < 0) return;
    c->usage[(size_t)b * usage_block(c) + (size_t)q * 3 + (size_t)(res - RES_CPU)] += (float)amount;
}

void clarity_truth_attempt_end(struct sim *s, struct sy_attempt *a, int end)
{
    const struct synth_config *c = s->cfg;
    struct sy_stage *st = &s->stages[a->stage];
    double dur = a->t_phase[PH_COUNT] - a->t_launch;
    if (a->fault_seen >= 0 && a->wait_fault > fmax(0.05, 0.05 * dur)) {
        int f = a->fault_seen;
        if (!CLARITY_VEC_RESERVE(s->fault_tasks[f], s->cap_fault_tasks[f], (size_t)s->nfault_tasks[f] + 1))
            s->fault_tasks[f][s->nfault_tasks[f]++] = a->tid;
    }
    s->tasks_done++;
    if (!c->truth_tasks) return;
    if (CLARITY_VEC_RESERVE(st->tt, st->cap_tt, (size_t)st->ntt + 1)) {
        SIM_FAIL(s, "out of memory");
        return;
    }
    struct task_truth *r = &st->tt[st->ntt++];
    memset(r, 0, sizeof *r);
    r->tid = a->tid;
    r->index = a->index;
    r->attempt = a->attempt;
    r->host = a->host;
    r->exec = a->exec;
    r->query = st->query;
    r->launch = a->t_launch;
    r->finish = a->t_phase[PH_COUNT];
    r->skew = st->tasks[a->index].skew;
    for (int w = 0; w < W_COUNT; w++) r->wait[w] = (float)a->wait[w];
    r->wait_fault = (float)a->wait_fault;
    r->wait_other = (float)a->wait_other;
    r->wait_self = (float)a->wait_self;
    r->fault = a->wait_fault > 0 ? a->fault_seen : -1;
    r->end = (int8_t)end;
    r->speculative = a->speculative;
    r->nonlocal = st->input_kind != IN_NONE && a->locality == LOC_ANY;
    double in_net = a->locality == LOC_ANY ? a->work[PH_INPUT] : 0;
    double in_disk = a->locality == LOC_ANY || a->locality == LOC_PROCESS ? 0 : a->work[PH_INPUT];
    double in_cpu = a->locality == LOC_PROCESS ? a->work[PH_INPUT] : 0;
    r->service_cpu = (float)(a->work[PH_DESER] + a->work[PH_COMPUTE] + in_cpu);
    r->service_disk = (float)((in_disk + a->work[PH_FETCH_DISK] + a->work[PH_SPILL] + a->work[PH_SHUFFLE_WRITE] +
                               a->work[PH_OUTPUT]) / c->disk_bw);
    r->service_net = (float)((in_net + a->work[PH_FETCH_NET]) / c->nic_bw);
    r->ideal = r->service_cpu + r->service_disk + r->service_net + a->work[PH_LAUNCH] + a->work[PH_RESULT_SER] +
               a->work[PH_RESULT_SEND];
}

static void ms_field(struct clarity_strbuf *b, const char *k, double sec)
{
    clarity_sb_str(b, k);
    clarity_sb_int(b, llround(sec * 1000));
}

/* A task is abnormal when it took over 1.5x its stage's median successful attempt (and at
 * least 500 ms more); why = the causes that explain at least a quarter of the excess. */
void clarity_truth_stage_done(struct sim *s, struct sy_stage *st)
{
    int n = st->ntt;
    double *d = malloc((size_t)(n ? n : 1) * sizeof *d), *id = malloc((size_t)(n ? n : 1) * sizeof *id);
    if (!d || !id) {
        free(d);
        free(id);
        SIM_FAIL(s, "out of memory");
        return;
    }
    int k = 0;
    for (int i = 0; i < n; i++)
        if (st->tt[i].end == 0) {
            d[k] = st->tt[i].finish - st->tt[i].launch;
            id[k++] = st->tt[i].ideal;
        }
    double med = clarity_median_mean_mid(d, (size_t)k), med_ideal = clarity_median_mean_mid(id, (size_t)k);
    /* the injected-problem truth reads the task that completed each partition, kept with or
     * without truth-tasks.jsonl (st->tt is only kept for that file) */
    st->max_s = 0;
    for (int i = 0; i < st->nsucc_dur; i++) st->max_s = fmax(st->max_s, st->succ_dur[i]);
    st->median_s = clarity_median_mean_mid(st->succ_dur, (size_t)st->nsucc_dur);
    free(d);
    free(id);
    struct clarity_strbuf *b = &s->tmp;
    for (int i = 0; i < n && s->truth_tasks; i++) {
        const struct task_truth *r = &st->tt[i];
        double dur = r->finish - r->launch, excess = dur - med;
        bool abnormal = r->end == 0 && k >= 3 && dur > 1.5 * med && excess >= 0.5;
        b->n = 0;
        clarity_sb_kint(b, "{\"task_id\":", r->tid);
        clarity_sb_kint(b, ",\"stage_id\":", st->spark_id);
        clarity_sb_kint(b, ",\"stage_attempt\":0,\"index\":", r->index);
        clarity_sb_kint(b, ",\"attempt\":", r->attempt);
        clarity_sb_str(b, ",\"query\":");
        clarity_sb_jstr(b, s->queries[r->query].name);
        clarity_sb_str(b, ",\"host\":\"");
        clarity_sb_str(b, s->hosts[r->host].name);
        clarity_sb_str(b, "\",\"executor\":\"");
        clarity_sb_str(b, s->execs[r->exec].id);
        clarity_sb_str(b, r->end == 0 ? "\",\"end\":\"success\"" : r->end == 1 ? "\",\"end\":\"failed\"" : "\",\"end\":\"killed\"");
        clarity_sb_str(b, r->speculative ? ",\"speculative\":true" : ",\"speculative\":false");
        clarity_sb_kint(b, ",\"launch_ms\":", sim_ms(s, r->launch));
        clarity_sb_kint(b, ",\"finish_ms\":", sim_ms(s, r->finish));
        ms_field(b, ",\"duration_ms\":", dur);
        ms_field(b, ",\"ideal_ms\":", r->ideal);
        ms_field(b, ",\"service_ms\":{\"cpu\":", r->service_cpu);
        ms_field(b, ",\"disk\":", r->service_disk);
        ms_field(b, ",\"network\":", r->service_net);
        ms_field(b, "},\"wait_ms\":{\"cpu\":", r->wait[W_CPU]);
        ms_field(b, ",\"disk\":", r->wait[W_DISK]);
        ms_field(b, ",\"network\":", r->wait[W_NET]);
        ms_field(b, ",\"gc\":", r->wait[W_GC]);
        ms_field(b, ",\"memory\":", r->wait[W_MEM]);
        ms_field(b, "},\"wait_by_cause_ms\":{\"fault\":", r->wait_fault);
        ms_field(b, ",\"other_queries\":", r->wait_other);
        ms_field(b, ",\"same_query\":", r->wait_self);
        clarity_sb_str(b, "},\"skew\":");
        clarity_sb_fixed(b, r->skew, 3);
        if (r->fault >= 0) clarity_sb_kint(b, ",\"fault\":", r->fault);
        clarity_sb_str(b, abnormal ? ",\"abnormal\":true,\"why\":[" : ",\"abnormal\":false,\"why\":[");
        if (abnormal) {
            s->abnormal++;
            int nw = 0;
#define WHY(cond, text) do { if (cond) { if (nw++) clarity_sb_ch(b, ','); clarity_sb_str(b, text); } } while (0)
            WHY(r->ideal > 1.5 * med_ideal, "\"skew\"");
            if (r->fault >= 0 && r->wait_fault >= 0.25 * excess) {
                if (nw++) clarity_sb_ch(b, ',');
                clarity_sb_printf(b, "\"fault:%d:%s\"", r->fault, clarity_synth_fault_kind_name(s->cfg->faults[r->fault].kind));
            }
            WHY(r->wait_other >= 0.25 * excess, "\"other-queries\"");
            WHY(r->wait_self >= 0.25 * excess, "\"same-query\"");
            /* pauses a CPU or memory hog stretched are the fault's, not the JVM's */
            int fk = r->fault >= 0 ? (int)s->cfg->faults[r->fault].kind : -1;
            double gc_own = r->wait[W_GC] - (fk == SYNTH_FAULT_MEMORY || fk == SYNTH_FAULT_CPU ? r->wait_fault : 0);
            WHY(gc_own >= 0.25 * excess, "\"gc\"");
            WHY(r->nonlocal, "\"non-local-input\"");
            WHY(r->attempt > 0 && !r->speculative, "\"retry\"");
            WHY(nw == 0, "\"other\"");
#undef WHY
        }
        clarity_sb_str(b, "]}\n");
        if (b->oom || fwrite(b->p, 1, b->n, s->truth_tasks) != b->n) SIM_FAIL(s, "cannot write truth-tasks.jsonl");
    }
    if (!s->truth_tasks)
        for (int i = 0; i < n; i++) {
            const struct task_truth *r = &st->tt[i];
            double dur = r->finish - r->launch;
            if (r->end == 0 && k >= 3 && dur > 1.5 * med && dur - med >= 0.5) s->abnormal++;
        }
    free(st->tt);
    st->tt = NULL;
    st->ntt = st->cap_tt = 0;
    free(st->succ_dur);
    st->succ_dur = NULL;
    st->nsucc_dur = st->cap_succ_dur = 0;
    if (!st->caches) {
        free(st->tasks);
        st->tasks = NULL;
    }
}

static const char *const res_names[3] = {"cpu", "disk", "network"};

static void write_contention(struct sim *s, struct jsonw *w)
{
    struct contention *c = s->cont;
    clarity_jsonw_key(w, "contention");
    if (!c) {
        clarity_jsonw_null(w);
        return;
    }
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "bucket_ms", llround(c->bucket * 1000));
    clarity_jsonw_key(w, "pairs");
    clarity_jsonw_arr_begin(w);
    for (int v = 0; v < c->nq; v++)
        for (int cu = 0; cu < c->nc; cu++)
            for (int r = 0; r < 3; r++) {
                double total = 0;
                for (int b = 0; b < c->nb; b++) total += c->pair[(size_t)b * pair_block(c) + ((size_t)v * c->nc + (size_t)cu) * 3 + (size_t)r];
                if (total < 0.001) continue;
                clarity_jsonw_obj_begin(w);
                clarity_jsonw_kstr(w, "victim", s->queries[v].name);
                if (cu < c->nq) clarity_jsonw_kstr(w, "culprit", s->queries[cu].name);
                else {
                    char f[32];
                    snprintf(f, sizeof f, "fault:%d", cu - c->nq);
                    clarity_jsonw_kstr(w, "culprit", f);
                }
                clarity_jsonw_kstr(w, "resource", res_names[r]);
                clarity_jsonw_kint(w, "delay_ms", llround(total * 1000));
                clarity_jsonw_key(w, "series");
                clarity_jsonw_arr_begin(w);
                for (int b = 0; b < c->nb; b++) {
                    double x = c->pair[(size_t)b * pair_block(c) + ((size_t)v * c->nc + (size_t)cu) * 3 + (size_t)r];
                    if (x < 0.0005) continue;
                    clarity_jsonw_arr_begin(w);
                    clarity_jsonw_int(w, sim_ms(s, b * c->bucket));
                    clarity_jsonw_int(w, llround(x * 1000));
                    clarity_jsonw_arr_end(w);
                }
                clarity_jsonw_arr_end(w);
                clarity_jsonw_obj_end(w);
            }
    clarity_jsonw_arr_end(w);
    /* share of the cluster's capacity each query used, per bucket */
    double cap[3] = {(double)s->cfg->hosts * s->cfg->cores, (double)s->cfg->hosts * s->cfg->disks * s->cfg->disk_bw,
                     (double)s->cfg->hosts * s->cfg->nic_bw};
    clarity_jsonw_key(w, "usage");
    clarity_jsonw_arr_begin(w);
    for (int q = 0; q < c->nq; q++)
        for (int r = 0; r < 3; r++) {
            bool any = false;
            for (int b = 0; b < c->nb && !any; b++) any = c->usage[(size_t)b * usage_block(c) + (size_t)q * 3 + (size_t)r] > 0;
            if (!any) continue;
            clarity_jsonw_obj_begin(w);
            clarity_jsonw_kstr(w, "query", s->queries[q].name);
            clarity_jsonw_kstr(w, "resource", res_names[r]);
            clarity_jsonw_key(w, "series");
            clarity_jsonw_arr_begin(w);
            for (int b = 0; b < c->nb; b++) {
                double x = c->usage[(size_t)b * usage_block(c) + (size_t)q * 3 + (size_t)r];
                if (x <= 0) continue;
                clarity_jsonw_arr_begin(w);
                clarity_jsonw_int(w, sim_ms(s, b * c->bucket));
                clarity_jsonw_double(w, round(x / (cap[r] * c->bucket) * 1e4) / 1e4);
                clarity_jsonw_arr_end(w);
            }
            clarity_jsonw_arr_end(w);
            clarity_jsonw_obj_end(w);
        }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
}

int clarity_truth_write(struct sim *s, struct synth_result *res)
{
    const struct synth_config *c = s->cfg;
    char path[4200];
    snprintf(path, sizeof path, "%s/truth.json", s->outdir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    struct jsonw w;
    clarity_jsonw_init(&w, f, true);
    clarity_jsonw_obj_begin(&w);
    clarity_jsonw_kstr(&w, "schema", "clarity.synth.truth/1");
    clarity_jsonw_key(&w, "generator");
    clarity_jsonw_obj_begin(&w);
    clarity_jsonw_kstr(&w, "scenario", c->scenario);
    clarity_jsonw_kint(&w, "seed", (int64_t)c->seed);
    clarity_jsonw_kstr(&w, "spark_version", "3.5.1");
    clarity_jsonw_kstr(&w, "codec", c->codec == SYNTH_CODEC_ZSTD ? "zstd" : c->codec == SYNTH_CODEC_LZ4 ? "lz4" : "none");
    clarity_jsonw_kstr(&w, "gc_log", c->gc_format == SYNTH_GC_JDK8_PARALLEL ? "jdk8-parallel" : "unified-g1");
    clarity_jsonw_obj_end(&w);
    clarity_jsonw_key(&w, "application");
    clarity_jsonw_obj_begin(&w);
    clarity_jsonw_kstr(&w, "app_id", s->app_id);
    clarity_jsonw_kstr(&w, "eventlog", res->eventlog + strlen(s->outdir) + 1);   /* relative to the output directory */
    clarity_jsonw_kint(&w, "start_ms", c->start_ms);
    clarity_jsonw_kint(&w, "end_ms", sim_ms(s, s->end_t));
    clarity_jsonw_kint(&w, "runtime_ms", sim_ms(s, s->end_t) - c->start_ms);
    clarity_jsonw_kint(&w, "jobs", s->next_job_id);
    clarity_jsonw_kint(&w, "stages", s->next_stage_id);
    clarity_jsonw_kint(&w, "task_attempts", (int64_t)s->tasks_done);
    clarity_jsonw_kint(&w, "abnormal_tasks", (int64_t)s->abnormal);
    clarity_jsonw_kstr(&w, "tasks_file", c->truth_tasks ? "truth-tasks.jsonl" : "");
    clarity_jsonw_obj_end(&w);
    clarity_jsonw_key(&w, "cluster");
    clarity_jsonw_obj_begin(&w);
    clarity_jsonw_key(&w, "hosts");
    clarity_jsonw_arr_begin(&w);
    for (int h = 0; h < s->nhosts; h++) {
        clarity_jsonw_obj_begin(&w);
        clarity_jsonw_kstr(&w, "name", s->hosts[h].name);
        clarity_jsonw_kint(&w, "cores", c->cores);
        clarity_jsonw_kint(&w, "disks", c->disks);
        clarity_jsonw_kint(&w, "disk_bytes_per_s", (int64_t)c->disk_bw);
        clarity_jsonw_kint(&w, "nic_bytes_per_s", (int64_t)c->nic_bw);
        clarity_jsonw_kint(&w, "memory_bytes", (int64_t)c->host_memory);
        clarity_jsonw_obj_end(&w);
    }
    clarity_jsonw_arr_end(&w);
    clarity_jsonw_key(&w, "executors");
    clarity_jsonw_arr_begin(&w);
    for (int i = 0; i < s->nexecs; i++) {
        const struct sy_exec *e = &s->execs[i];
        if (!e->ready) continue;
        clarity_jsonw_obj_begin(&w);
        clarity_jsonw_kstr(&w, "id", e->id);
        clarity_jsonw_kstr(&w, "host", s->hosts[e->host].name);
        clarity_jsonw_kint(&w, "cores", e->cores);
        clarity_jsonw_kint(&w, "heap_bytes", (int64_t)e->heap);
        clarity_jsonw_kint(&w, "added_ms", sim_ms(s, e->ready_t));
        clarity_jsonw_key(&w, "removed_ms");
        if (e->alive) clarity_jsonw_null(&w);
        else clarity_jsonw_int(&w, sim_ms(s, e->removed_t));
        clarity_jsonw_kint(&w, "minor_gcs", e->minor_gc);
        clarity_jsonw_kint(&w, "major_gcs", e->major_gc);
        clarity_jsonw_kint(&w, "gc_pause_ms", llround((e->minor_gc_s + e->major_gc_s) * 1000));
        clarity_jsonw_obj_end(&w);
    }
    clarity_jsonw_arr_end(&w);
    clarity_jsonw_obj_end(&w);
    clarity_jsonw_key(&w, "faults");
    clarity_jsonw_arr_begin(&w);
    for (int i = 0; i < c->nfaults; i++) {
        const struct synth_fault *ft = &c->faults[i];
        clarity_jsonw_obj_begin(&w);
        clarity_jsonw_kint(&w, "id", i);
        clarity_jsonw_kstr(&w, "kind", clarity_synth_fault_kind_name(ft->kind));
        clarity_jsonw_kstr(&w, "host", s->hosts[ft->host - 1].name);
        clarity_jsonw_kint(&w, "start_ms", sim_ms(s, ft->start_s));
        clarity_jsonw_kint(&w, "end_ms", sim_ms(s, ft->end_s < 0 || ft->end_s > s->end_t ? s->end_t : ft->end_s));
        clarity_jsonw_kdouble(&w, "intensity", ft->intensity);
        clarity_jsonw_kint(&w, "delay_ms", llround(s->fault_delay[i] * 1000));
        clarity_jsonw_kint(&w, "affected_tasks", s->nfault_tasks[i]);
        clarity_jsonw_key(&w, "affected_task_ids");
        clarity_jsonw_arr_begin(&w);
        for (int k = 0; k < s->nfault_tasks[i]; k++) clarity_jsonw_int(&w, s->fault_tasks[i][k]);
        clarity_jsonw_arr_end(&w);
        clarity_jsonw_obj_end(&w);
    }
    clarity_jsonw_arr_end(&w);
    clarity_jsonw_key(&w, "queries");
    clarity_jsonw_arr_begin(&w);
    for (int q = 0; q < s->nqueries; q++) {
        const struct sy_query *x = &s->queries[q];
        clarity_jsonw_obj_begin(&w);
        clarity_jsonw_kstr(&w, "name", x->name);
        clarity_jsonw_key(&w, "sql_id");
        if (x->sql) clarity_jsonw_int(&w, x->sql_id);
        else clarity_jsonw_null(&w);
        clarity_jsonw_kstr(&w, "pool", s->pools[x->pool].name);
        clarity_jsonw_kint(&w, "start_ms", sim_ms(s, x->start_t));
        clarity_jsonw_kint(&w, "end_ms", sim_ms(s, x->end_t));
        clarity_jsonw_kint(&w, "runtime_ms", sim_ms(s, x->end_t) - sim_ms(s, x->start_t));
        clarity_jsonw_key(&w, "job_ids");
        clarity_jsonw_arr_begin(&w);
        for (int k = 0; k < x->njobs; k++) clarity_jsonw_int(&w, s->jobs[x->jobs[k]].spark_id);
        clarity_jsonw_arr_end(&w);
        clarity_jsonw_obj_end(&w);
    }
    clarity_jsonw_arr_end(&w);
    write_contention(s, &w);
    clarity_truth_findings(s, &w);
    clarity_jsonw_obj_end(&w);
    clarity_jsonw_end(&w);
    return fclose(f) ? -1 : 0;
}

void clarity_truth_free(struct sim *s)
{
    if (s->cont) {
        free(s->cont->pair);
        free(s->cont->usage);
        free(s->cont);
        s->cont = NULL;
    }
    for (int i = 0; i < SYNTH_MAX_FAULTS; i++) free(s->fault_tasks[i]);
}
