/* The Spark 3.5 event log: the events and keys JsonProtocol writes (short class names for core
 * events, Jackson-serialized SQL events with camelCase keys), flushed where
 * EventLoggingListener flushes, so compressed logs get their frames where Spark's do. */
#include <math.h>
#include <stdlib.h>
#include "synth/internal.h"

#define SPARK_VERSION "3.5.1"

static const char *const acc_names[ACC_COUNT] = {
    "internal.metrics.executorDeserializeTime", "internal.metrics.executorDeserializeCpuTime",
    "internal.metrics.executorRunTime", "internal.metrics.executorCpuTime", "internal.metrics.resultSize",
    "internal.metrics.jvmGCTime", "internal.metrics.resultSerializationTime",
    "internal.metrics.memoryBytesSpilled", "internal.metrics.diskBytesSpilled",
    "internal.metrics.peakExecutionMemory", "internal.metrics.shuffle.read.remoteBlocksFetched",
    "internal.metrics.shuffle.read.localBlocksFetched", "internal.metrics.shuffle.read.remoteBytesRead",
    "internal.metrics.shuffle.read.remoteBytesReadToDisk", "internal.metrics.shuffle.read.localBytesRead",
    "internal.metrics.shuffle.read.fetchWaitTime", "internal.metrics.shuffle.read.recordsRead",
    "internal.metrics.shuffle.write.bytesWritten", "internal.metrics.shuffle.write.recordsWritten",
    "internal.metrics.shuffle.write.writeTime", "internal.metrics.input.bytesRead",
    "internal.metrics.input.recordsRead", "internal.metrics.output.bytesWritten",
    "internal.metrics.output.recordsWritten",
};

static struct clarity_strbuf *line(struct sim *s)
{
    s->line.n = 0;
    return &s->line;
}

void clarity_ev_emit(struct sim *s, bool flush)
{
    clarity_sb_ch(&s->line, '\n');
    if (s->line.oom) {
        SIM_FAIL(s, "out of memory");
        return;
    }
    if (clarity_out_write(s->ev, s->line.p, s->line.n) || (flush && clarity_out_flush(s->ev)))
        SIM_FAIL(s, "cannot write the event log");
    s->events++;
}

static void kstr(struct clarity_strbuf *b, const char *k, const char *v)
{
    clarity_sb_str(b, k);
    clarity_sb_jstr(b, v);
}

static void exec_log_urls(struct sim *s, struct clarity_strbuf *b, const struct sy_exec *e)
{
    clarity_sb_printf(b, "{\"stdout\":\"http://%s:8081/logPage/?appId=%s&executorId=%s&logType=stdout\","
                 "\"stderr\":\"http://%s:8081/logPage/?appId=%s&executorId=%s&logType=stderr\"}",
              s->hosts[e->host].name, s->app_id, e->id, s->hosts[e->host].name, s->app_id, e->id);
}

void clarity_ev_preamble(struct sim *s)
{
    const struct synth_config *c = s->cfg;
    struct clarity_strbuf *b = line(s);
    clarity_sb_str(b, "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"" SPARK_VERSION "\"}");
    clarity_ev_emit(s, true);
    b = line(s);
    clarity_sb_printf(b, "{\"Event\":\"SparkListenerResourceProfileAdded\",\"Resource Profile Id\":0,\"Executor Resource Requests\":"
                 "{\"cores\":{\"Resource Name\":\"cores\",\"Amount\":%d,\"Discovery Script\":\"\",\"Vendor\":\"\"},"
                 "\"memory\":{\"Resource Name\":\"memory\",\"Amount\":%lld,\"Discovery Script\":\"\",\"Vendor\":\"\"},"
                 "\"offHeap\":{\"Resource Name\":\"offHeap\",\"Amount\":0,\"Discovery Script\":\"\",\"Vendor\":\"\"}},"
                 "\"Task Resource Requests\":{\"cpus\":{\"Resource Name\":\"cpus\",\"Amount\":1.0}}}",
              c->executor_cores, (long long)(c->executor_heap / 1048576));
    clarity_ev_emit(s, true);
    b = line(s);
    clarity_sb_printf(b, "{\"Event\":\"SparkListenerBlockManagerAdded\",\"Block Manager ID\":{\"Executor ID\":\"driver\","
                 "\"Host\":\"driver-host\",\"Port\":41000},\"Maximum Memory\":2101975449,\"Timestamp\":%lld,"
                 "\"Maximum Onheap Memory\":2101975449,\"Maximum Offheap Memory\":0}",
              (long long)sim_ms(s, -0.3));
    clarity_ev_emit(s, true);
    b = line(s);
    const char *codec = c->codec == SYNTH_CODEC_ZSTD ? "zstd" : c->codec == SYNTH_CODEC_LZ4 ? "lz4" : NULL;
    clarity_sb_str(b, "{\"Event\":\"SparkListenerEnvironmentUpdate\",\"JVM Information\":{\"Java Home\":\"/usr/lib/jvm/java-17-openjdk-amd64\","
              "\"Java Version\":\"17.0.10 (Eclipse Adoptium)\",\"Scala Version\":\"version 2.12.18\"},\"Spark Properties\":{");
    kstr(b, "\"spark.app.name\":", c->app_name);
    kstr(b, ",\"spark.app.id\":", s->app_id);
    clarity_sb_printf(b, ",\"spark.app.startTime\":\"%lld\"", (long long)c->start_ms);
    clarity_sb_str(b, ",\"spark.master\":\"spark://driver-host:7077\",\"spark.driver.host\":\"driver-host\","
              "\"spark.eventLog.enabled\":\"true\",\"spark.eventLog.dir\":\"hdfs:///spark-logs\"");
    clarity_sb_printf(b, ",\"spark.eventLog.compress\":\"%s\"", codec ? "true" : "false");
    if (codec) clarity_sb_printf(b, ",\"spark.eventLog.compression.codec\":\"%s\"", codec);
    clarity_sb_printf(b, ",\"spark.executor.cores\":\"%d\",\"spark.executor.memory\":\"%lldm\"", c->executor_cores,
              (long long)(c->executor_heap / 1048576));
    if (c->dynalloc)
        clarity_sb_printf(b, ",\"spark.dynamicAllocation.enabled\":\"true\",\"spark.dynamicAllocation.minExecutors\":\"%d\","
                     "\"spark.dynamicAllocation.maxExecutors\":\"%d\",\"spark.shuffle.service.enabled\":\"true\"",
                  c->dyn_min, c->dyn_max);
    else clarity_sb_printf(b, ",\"spark.executor.instances\":\"%d\"", c->hosts * c->executors_per_host);
    clarity_sb_printf(b, ",\"spark.scheduler.mode\":\"%s\",\"spark.locality.wait\":\"%lldms\",\"spark.speculation\":\"%s\"",
              c->fair ? "FAIR" : "FIFO", (long long)llround(c->locality_wait_s * 1000), c->speculation ? "true" : "false");
    if (c->speculation)
        clarity_sb_printf(b, ",\"spark.speculation.multiplier\":\"%g\",\"spark.speculation.quantile\":\"%g\"", c->spec_multiplier,
                  c->spec_quantile);
    if (c->gc_format == SYNTH_GC_JDK8_PARALLEL)
        clarity_sb_str(b, ",\"spark.executor.extraJavaOptions\":\"-XX:+UseParallelGC -XX:+PrintGCDetails -XX:+PrintGCDateStamps\"");
    else clarity_sb_str(b, ",\"spark.executor.extraJavaOptions\":\"-XX:+UseG1GC -Xlog:gc*:stdout:time,uptime,level,tags\"");
    clarity_sb_printf(b, ",\"spark.sql.shuffle.partitions\":\"%d\",\"spark.submit.deployMode\":\"client\"}",
              c->partitions > 0 ? c->partitions : 200);
    clarity_sb_str(b, ",\"Hadoop Properties\":{\"fs.defaultFS\":\"hdfs://namenode:8020\",\"dfs.blocksize\":\"");
    clarity_sb_int(b, (int64_t)c->split_bytes);
    clarity_sb_str(b, "\"},\"System Properties\":{\"java.vm.name\":\"OpenJDK 64-Bit Server VM\",\"os.name\":\"Linux\","
              "\"user.timezone\":\"UTC\",\"file.encoding\":\"UTF-8\"},\"Metrics Properties\":{},"
              "\"Classpath Entries\":{\"/opt/spark/jars/spark-core_2.12-" SPARK_VERSION ".jar\":\"System Classpath\"}}");
    clarity_ev_emit(s, true);
    b = line(s);
    clarity_sb_str(b, "{\"Event\":\"SparkListenerApplicationStart\",");
    kstr(b, "\"App Name\":", c->app_name);
    kstr(b, ",\"App ID\":", s->app_id);
    clarity_sb_printf(b, ",\"Timestamp\":%lld,\"User\":\"spark\"}", (long long)c->start_ms);
    clarity_ev_emit(s, true);
}

void clarity_ev_executor_added(struct sim *s, struct sy_exec *e)
{
    struct clarity_strbuf *b = line(s);
    int64_t t = sim_ms(s, s->now);
    clarity_sb_printf(b, "{\"Event\":\"SparkListenerExecutorAdded\",\"Timestamp\":%lld,\"Executor ID\":\"%s\",\"Executor Info\":"
                 "{\"Host\":\"%s\",\"Total Cores\":%d,\"Log Urls\":",
              (long long)t, e->id, s->hosts[e->host].name, e->cores);
    exec_log_urls(s, b, e);
    clarity_sb_printf(b, ",\"Attributes\":{},\"Resources\":{},\"Resource Profile Id\":0,\"Registration Time\":%lld,"
                 "\"Request Time\":%lld}}",
              (long long)t, (long long)sim_ms(s, e->jvm_start - 1.0));
    clarity_ev_emit(s, true);
    b = line(s);
    int64_t maxmem = (int64_t)((e->heap - 300.0 * 1048576) * 0.6);
    clarity_sb_printf(b, "{\"Event\":\"SparkListenerBlockManagerAdded\",\"Block Manager ID\":{\"Executor ID\":\"%s\",\"Host\":\"%s\","
                 "\"Port\":%d},\"Maximum Memory\":%lld,\"Timestamp\":%lld,\"Maximum Onheap Memory\":%lld,"
                 "\"Maximum Offheap Memory\":0}",
              e->id, s->hosts[e->host].name, 40000 + e->idx, (long long)maxmem, (long long)t + 20, (long long)maxmem);
    clarity_ev_emit(s, true);
}

void clarity_ev_executor_removed(struct sim *s, struct sy_exec *e, const char *reason)
{
    struct clarity_strbuf *b = line(s);
    clarity_sb_printf(b, "{\"Event\":\"SparkListenerExecutorRemoved\",\"Timestamp\":%lld,\"Executor ID\":\"%s\",\"Removed Reason\":",
              (long long)sim_ms(s, s->now), e->id);
    clarity_sb_jstr(b, reason);
    clarity_sb_ch(b, '}');
    clarity_ev_emit(s, true);
}

static void rdd_infos(struct clarity_strbuf *b, const struct sy_stage *st)
{
    clarity_sb_str(b, "\"RDD Info\":[");
    for (int i = st->nrdds - 1; i >= 0; i--) {
        int id = st->rdd_base + i;
        bool hdfs = st->input_kind == IN_HDFS && i == 0, last = i == st->nrdds - 1;
        bool cached = st->caches && last;
        const char *name = hdfs ? "hdfs://namenode:8020/data/input" : i == 0 ? "ShuffledRDD" : "MapPartitionsRDD";
        if (i != st->nrdds - 1) clarity_sb_ch(b, ',');
        clarity_sb_printf(b, "{\"RDD ID\":%d,\"Name\":\"%s\",\"Scope\":\"{\\\"id\\\":\\\"%d\\\",\\\"name\\\":\\\"%s\\\"}\",\"Callsite\":",
                  id, name, id, hdfs ? "textFile" : st->op ? st->op : "map");
        clarity_sb_jstr(b, st->name);
        clarity_sb_str(b, ",\"Parent IDs\":[");
        if (i > 0) clarity_sb_int(b, id - 1);
        clarity_sb_printf(b, "],\"Storage Level\":{\"Use Disk\":false,\"Use Memory\":%s,\"Deserialized\":%s,\"Replication\":1},"
                     "\"Barrier\":false,\"DeterministicLevel\":\"DETERMINATE\",\"Number of Partitions\":%d,"
                     "\"Number of Cached Partitions\":%d,\"Memory Size\":%lld,\"Disk Size\":0}",
                  cached ? "true" : "false", cached ? "true" : "false", st->ntasks,
                  cached && st->status == ST_DONE ? st->ntasks : 0,
                  (long long)(cached && st->status == ST_DONE ? st->mem_bytes * 0.5 * st->ntasks : 0));
    }
    clarity_sb_ch(b, ']');
}

static void acc_internal(struct clarity_strbuf *b, bool *first, int64_t id, const char *name, int64_t upd, bool with_upd, int64_t val)
{
    if (!*first) clarity_sb_ch(b, ',');
    *first = false;
    clarity_sb_str(b, "{\"ID\":");
    clarity_sb_int(b, id);
    clarity_sb_str(b, ",\"Name\":\"");
    clarity_sb_str(b, name);
    if (with_upd) {
        clarity_sb_str(b, "\",\"Update\":");
        clarity_sb_int(b, upd);
        clarity_sb_str(b, ",\"Value\":");
    } else clarity_sb_str(b, "\",\"Value\":");
    clarity_sb_int(b, val);
    clarity_sb_str(b, ",\"Internal\":true,\"Count Failed Values\":true}");
}

static void acc_string(struct clarity_strbuf *b, bool *first, int64_t id, const char *name, int64_t upd, bool with_upd, int64_t val,
                       bool sql)
{
    if (!*first) clarity_sb_ch(b, ',');
    *first = false;
    clarity_sb_str(b, "{\"ID\":");
    clarity_sb_int(b, id);
    clarity_sb_str(b, ",\"Name\":\"");
    clarity_sb_str(b, name);
    if (with_upd) {
        clarity_sb_str(b, "\",\"Update\":\"");
        clarity_sb_int(b, upd);
        clarity_sb_str(b, "\",\"Value\":\"");
    } else clarity_sb_str(b, "\",\"Value\":\"");
    clarity_sb_int(b, val);
    clarity_sb_str(b, sql ? "\",\"Internal\":true,\"Count Failed Values\":true,\"Metadata\":\"sql\"}"
                  : "\",\"Internal\":false,\"Count Failed Values\":false}");
}

static void stage_info(struct sim *s, struct clarity_strbuf *b, const struct sy_stage *st, bool submitted, bool completed)
{
    clarity_sb_str(b, "{\"Stage ID\":");
    clarity_sb_int(b, st->spark_id);
    clarity_sb_str(b, ",\"Stage Attempt ID\":0,\"Stage Name\":");
    clarity_sb_jstr(b, st->name);
    clarity_sb_str(b, ",\"Number of Tasks\":");
    clarity_sb_int(b, st->ntasks);
    clarity_sb_ch(b, ',');
    rdd_infos(b, st);
    clarity_sb_str(b, ",\"Parent IDs\":[");
    for (int i = 0; i < st->nparents; i++) {
        if (i) clarity_sb_ch(b, ',');
        clarity_sb_int(b, s->stages[st->parents[i]].spark_id);
    }
    clarity_sb_str(b, "],\"Details\":");
    clarity_sb_printf(b, "\"org.apache.spark.rdd.RDD.%s\\norg.apache.spark.examples.Main.main(Main.scala:%d)\"",
              st->result ? "collect(RDD.scala:1049)" : "mapPartitions(RDD.scala:858)", 20 + st->spark_id);
    if (submitted) clarity_sb_kint(b, ",\"Submission Time\":", sim_ms(s, st->submit_t));
    if (completed) clarity_sb_kint(b, ",\"Completion Time\":", sim_ms(s, st->done_t));
    clarity_sb_str(b, ",\"Accumulables\":[");
    if (completed) {
        bool first = true;
        for (int k = 0; k < ACC_COUNT; k++)
            if (st->acc_sum[k]) acc_internal(b, &first, st->acc_base + k, acc_names[k], 0, false, st->acc_sum[k]);
        for (int k = 0; k < SQL_COUNT; k++)
            if (st->sql[k].id) acc_string(b, &first, st->sql[k].id, st->sql[k].name, 0, false, st->sql[k].total, true);
    }
    clarity_sb_str(b, "],\"Resource Profile Id\":0,\"Shuffle Push Enabled\":false,\"Shuffle Push Mergers Count\":0}");
}

static void properties(struct sim *s, struct clarity_strbuf *b, const struct sy_job *j)
{
    const struct sy_query *q = &s->queries[j->query];
    clarity_sb_str(b, "\"Properties\":{\"callSite.short\":");
    clarity_sb_jstr(b, j->call_site);
    if (q->sql) {
        clarity_sb_printf(b, ",\"spark.sql.execution.id\":\"%lld\",\"spark.sql.execution.root.id\":\"%lld\",\"spark.job.description\":",
                  (long long)q->sql_id, (long long)q->sql_id);
        clarity_sb_jstr(b, q->description);
        clarity_sb_str(b, ",\"spark.rdd.scope\":\"{\\\"id\\\":\\\"1\\\",\\\"name\\\":\\\"Exchange\\\"}\"");
    }
    if (s->cfg->fair) {
        clarity_sb_str(b, ",\"spark.scheduler.pool\":");
        clarity_sb_jstr(b, s->pools[q->pool].name);
    }
    clarity_sb_ch(b, '}');
}

void clarity_ev_job_start(struct sim *s, struct sy_job *j)
{
    struct clarity_strbuf *b = line(s);
    clarity_sb_str(b, "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":");
    clarity_sb_int(b, j->spark_id);
    clarity_sb_kint(b, ",\"Submission Time\":", sim_ms(s, s->now));
    clarity_sb_str(b, ",\"Stage Infos\":[");
    for (int k = 0; k < j->nstages; k++) {
        if (k) clarity_sb_ch(b, ',');
        const struct sy_stage *st = &s->stages[j->stages[k]];
        stage_info(s, b, st, false, false);
    }
    clarity_sb_str(b, "],\"Stage IDs\":[");
    for (int k = 0; k < j->nstages; k++) {
        if (k) clarity_sb_ch(b, ',');
        clarity_sb_int(b, s->stages[j->stages[k]].spark_id);
    }
    clarity_sb_str(b, "],");
    properties(s, b, j);
    clarity_sb_ch(b, '}');
    clarity_ev_emit(s, true);
}

void clarity_ev_job_end(struct sim *s, struct sy_job *j)
{
    struct clarity_strbuf *b = line(s);
    clarity_sb_printf(b, "{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":%d,\"Completion Time\":%lld,\"Job Result\":{\"Result\":\"JobSucceeded\"}}",
              j->spark_id, (long long)sim_ms(s, s->now));
    clarity_ev_emit(s, true);
}

void clarity_ev_stage_submitted(struct sim *s, struct sy_stage *st)
{
    struct clarity_strbuf *b = line(s);
    clarity_sb_str(b, "{\"Event\":\"SparkListenerStageSubmitted\",\"Stage Info\":");
    stage_info(s, b, st, true, false);
    clarity_sb_ch(b, ',');
    properties(s, b, &s->jobs[s->queries[st->query].jobs[s->queries[st->query].cur_job]]);
    clarity_sb_ch(b, '}');
    clarity_ev_emit(s, false);
}

void clarity_ev_stage_completed(struct sim *s, struct sy_stage *st)
{
    struct clarity_strbuf *b = line(s);
    clarity_sb_str(b, "{\"Event\":\"SparkListenerStageCompleted\",\"Stage Info\":");
    stage_info(s, b, st, true, true);
    clarity_sb_ch(b, '}');
    clarity_ev_emit(s, true);
}

static const char *const loc_names[] = {"PROCESS_LOCAL", "NODE_LOCAL", "NO_PREF", "RACK_LOCAL", "ANY"};

static void task_info(struct sim *s, struct clarity_strbuf *b, const struct sy_attempt *a, int64_t finish, bool failed, bool killed)
{
    const struct sy_stage *st = &s->stages[a->stage];
    clarity_sb_str(b, "\"Task Info\":{\"Task ID\":");
    clarity_sb_int(b, a->tid);
    clarity_sb_kint(b, ",\"Index\":", a->index);
    clarity_sb_kint(b, ",\"Attempt\":", a->attempt);
    clarity_sb_kint(b, ",\"Partition ID\":", a->index);
    clarity_sb_kint(b, ",\"Launch Time\":", sim_ms(s, a->t_launch));
    clarity_sb_str(b, ",\"Executor ID\":\"");
    clarity_sb_str(b, s->execs[a->exec].id);
    clarity_sb_str(b, "\",\"Host\":\"");
    clarity_sb_str(b, s->hosts[a->host].name);
    clarity_sb_str(b, "\",\"Locality\":\"");
    clarity_sb_str(b, loc_names[a->locality]);
    clarity_sb_str(b, a->speculative ? "\",\"Speculative\":true" : "\",\"Speculative\":false");
    clarity_sb_str(b, ",\"Getting Result Time\":0,\"Finish Time\":");
    clarity_sb_int(b, finish);
    clarity_sb_str(b, failed ? ",\"Failed\":true" : ",\"Failed\":false");
    clarity_sb_str(b, killed ? ",\"Killed\":true" : ",\"Killed\":false");
    (void)st;
}

void clarity_ev_task_start(struct sim *s, struct sy_attempt *a)
{
    struct clarity_strbuf *b = line(s);
    clarity_sb_str(b, "{\"Event\":\"SparkListenerTaskStart\",\"Stage ID\":");
    clarity_sb_int(b, s->stages[a->stage].spark_id);
    clarity_sb_str(b, ",\"Stage Attempt ID\":0,");
    task_info(s, b, a, 0, false, false);
    clarity_sb_str(b, ",\"Accumulables\":[]}}");
    clarity_ev_emit(s, false);
}

static int64_t ms_between(const struct sim *s, double t0, double t1)
{
    return sim_ms(s, t1) - sim_ms(s, t0);
}

void clarity_task_metrics(const struct sim *s, const struct sy_attempt *a, struct tmetrics *m)
{
    const struct sy_stage *st = &s->stages[a->stage];
    const struct sy_exec *e = &s->execs[a->exec];
    const double *T = a->t_phase;
    memset(m, 0, sizeof *m);
    m->launch_ms = sim_ms(s, a->t_launch);
    m->finish_ms = sim_ms(s, T[PH_COUNT]);
    int64_t *v = m->v;
    v[ACC_DESER_MS] = ms_between(s, T[PH_DESER], T[PH_INPUT]);
    v[ACC_RUN_MS] = ms_between(s, T[PH_INPUT], T[PH_RESULT_SER]);
    v[ACC_SER_MS] = ms_between(s, T[PH_RESULT_SER], T[PH_RESULT_SEND]);
    v[ACC_SR_FETCH_WAIT] = ms_between(s, T[PH_FETCH_NET], T[PH_COMPUTE]);
    double io = (T[PH_COMPUTE] - T[PH_INPUT]) + (T[PH_RESULT_SER] - T[PH_SPILL]);
    int64_t cpu = llround((a->cpu_done + 0.04 * io) * 1e9);
    if (cpu > v[ACC_RUN_MS] * 1000000) cpu = v[ACC_RUN_MS] * 1000000;
    v[ACC_CPU_NS] = cpu;
    int64_t dcpu = llround(a->cpu_deser * 1e9);
    if (dcpu > v[ACC_DESER_MS] * 1000000) dcpu = v[ACC_DESER_MS] * 1000000;
    v[ACC_DESER_CPU] = dcpu;
    int64_t sw = llround((T[PH_OUTPUT] - T[PH_SHUFFLE_WRITE]) * 1e9);
    int64_t room = (v[ACC_RUN_MS] - v[ACC_SR_FETCH_WAIT]) * 1000000;
    if (sw > room) sw = room;
    int64_t gc = llround(a->gc_s * 1000);
    if (gc > v[ACC_RUN_MS] + v[ACC_DESER_MS]) gc = v[ACC_RUN_MS] + v[ACC_DESER_MS];
    v[ACC_GC_MS] = gc;
    bool ok = !a->will_fail && !a->killed;
    int ep = a->end_phase;
    if (ep > PH_INPUT && st->input_kind != IN_NONE) {
        v[ACC_IN_BYTES] = (int64_t)a->in_bytes;
        v[ACC_IN_RECORDS] = a->records_in;
    }
    if (ep > PH_FETCH_DISK && st->sr_bytes > 0) {
        int remote = s->nhosts > 1 ? (int)llround(st->map_tasks * (s->nhosts - 1.0) / s->nhosts) : 0;
        v[ACC_SR_REMOTE_BLOCKS] = remote;
        v[ACC_SR_LOCAL_BLOCKS] = st->map_tasks - remote;
        v[ACC_SR_REMOTE_BYTES] = (int64_t)a->sr_remote;
        v[ACC_SR_LOCAL_BYTES] = (int64_t)a->sr_local;
        v[ACC_SR_RECORDS] = a->records_sr;
    }
    if (ep > PH_SPILL && a->spill_mem > 0) {
        v[ACC_MEM_SPILL] = (int64_t)a->spill_mem;
        v[ACC_DISK_SPILL] = (int64_t)a->spill_disk;
    }
    if (ep > PH_SHUFFLE_WRITE && a->sw_bytes > 0) {
        v[ACC_SW_BYTES] = (int64_t)a->sw_bytes;
        v[ACC_SW_RECORDS] = a->records_sw;
        v[ACC_SW_TIME] = sw;
    }
    if (ep > PH_OUTPUT && a->out_bytes > 0) {
        v[ACC_OUT_BYTES] = (int64_t)a->out_bytes;
        v[ACC_OUT_RECORDS] = a->records_out;
    }
    if (ok) v[ACC_RESULT_SIZE] = (int64_t)a->result_bytes;
    if (a->mem_bytes > 0 && (st->op || st->sw_bytes > 0 || st->sr_bytes > 0)) {
        double share = (e->heap - 300.0 * 1048576) * 0.6 / e->cores;
        v[ACC_PEAK_MEM] = (int64_t)fmin(a->mem_bytes, share);
    }
    m->sql[SQL_ROWS] = v[ACC_IN_RECORDS] ? v[ACC_IN_RECORDS] / 4 : v[ACC_SR_RECORDS] / 2;
    m->sql[SQL_SCAN_TIME] = ms_between(s, T[PH_INPUT], T[PH_FETCH_NET]);
    m->sql[SQL_SW_BYTES] = v[ACC_SW_BYTES];
    m->sql[SQL_SW_TIME] = v[ACC_SW_TIME];
    m->sql[SQL_FETCH_WAIT] = v[ACC_SR_FETCH_WAIT];
    m->sql[SQL_REMOTE_BYTES] = v[ACC_SR_REMOTE_BYTES];
    m->cpu_wait_ms = llround(a->wait[W_CPU] * 1000);
    m->mem_wait_ms = llround((a->wait[W_MEM] + a->wait[W_GC]) * 1000);
    m->mem_asked = (int64_t)a->mem_bytes;
}

static void task_metrics_json(struct clarity_strbuf *b, const struct tmetrics *m)
{
    const int64_t *v = m->v;
    clarity_sb_kint(b, "\"Task Metrics\":{\"Executor Deserialize Time\":", v[ACC_DESER_MS]);
    clarity_sb_kint(b, ",\"Executor Deserialize CPU Time\":", v[ACC_DESER_CPU]);
    clarity_sb_kint(b, ",\"Executor Run Time\":", v[ACC_RUN_MS]);
    clarity_sb_kint(b, ",\"Executor CPU Time\":", v[ACC_CPU_NS]);
    clarity_sb_kint(b, ",\"Peak Execution Memory\":", v[ACC_PEAK_MEM]);
    clarity_sb_kint(b, ",\"Result Size\":", v[ACC_RESULT_SIZE]);
    clarity_sb_kint(b, ",\"JVM GC Time\":", v[ACC_GC_MS]);
    clarity_sb_kint(b, ",\"Result Serialization Time\":", v[ACC_SER_MS]);
    clarity_sb_kint(b, ",\"Memory Bytes Spilled\":", v[ACC_MEM_SPILL]);
    clarity_sb_kint(b, ",\"Disk Bytes Spilled\":", v[ACC_DISK_SPILL]);
    clarity_sb_kint(b, ",\"Shuffle Read Metrics\":{\"Remote Blocks Fetched\":", v[ACC_SR_REMOTE_BLOCKS]);
    clarity_sb_kint(b, ",\"Local Blocks Fetched\":", v[ACC_SR_LOCAL_BLOCKS]);
    clarity_sb_kint(b, ",\"Fetch Wait Time\":", v[ACC_SR_FETCH_WAIT]);
    clarity_sb_kint(b, ",\"Remote Bytes Read\":", v[ACC_SR_REMOTE_BYTES]);
    clarity_sb_str(b, ",\"Remote Bytes Read To Disk\":0");
    clarity_sb_kint(b, ",\"Local Bytes Read\":", v[ACC_SR_LOCAL_BYTES]);
    clarity_sb_kint(b, ",\"Total Records Read\":", v[ACC_SR_RECORDS]);
    clarity_sb_kint(b, ",\"Remote Requests Duration\":", v[ACC_SR_REMOTE_BLOCKS] ? v[ACC_SR_FETCH_WAIT] / 2 : 0);
    clarity_sb_str(b, ",\"Push Based Shuffle\":{\"Corrupt Merged Block Chunks\":0,\"Merged Fetch Fallback Count\":0,"
              "\"Merged Remote Blocks Fetched\":0,\"Merged Local Blocks Fetched\":0,\"Merged Remote Chunks Fetched\":0,"
              "\"Merged Local Chunks Fetched\":0,\"Merged Remote Bytes Read\":0,\"Merged Local Bytes Read\":0,"
              "\"Merged Remote Requests Duration\":0}}");
    clarity_sb_kint(b, ",\"Shuffle Write Metrics\":{\"Shuffle Bytes Written\":", v[ACC_SW_BYTES]);
    clarity_sb_kint(b, ",\"Shuffle Write Time\":", v[ACC_SW_TIME]);
    clarity_sb_kint(b, ",\"Shuffle Records Written\":", v[ACC_SW_RECORDS]);
    clarity_sb_kint(b, "},\"Input Metrics\":{\"Bytes Read\":", v[ACC_IN_BYTES]);
    clarity_sb_kint(b, ",\"Records Read\":", v[ACC_IN_RECORDS]);
    clarity_sb_kint(b, "},\"Output Metrics\":{\"Bytes Written\":", v[ACC_OUT_BYTES]);
    clarity_sb_kint(b, ",\"Records Written\":", v[ACC_OUT_RECORDS]);
    clarity_sb_str(b, "},\"Updated Blocks\":[]}");
}

static void executor_metrics_json(struct clarity_strbuf *b, const struct sy_exec *e, const struct tmetrics *m)
{
    int64_t heap = (int64_t)(e->young_used + e->old_used), exec_mem = m->v[ACC_PEAK_MEM] * e->running;
    int64_t storage = (int64_t)e->cached_bytes;
    clarity_sb_kint(b, "\"Task Executor Metrics\":{\"JVMHeapMemory\":", (int64_t)e->peak_heap > heap ? (int64_t)e->peak_heap : heap);
    clarity_sb_str(b, ",\"JVMOffHeapMemory\":183565360");
    clarity_sb_kint(b, ",\"OnHeapExecutionMemory\":", exec_mem);
    clarity_sb_str(b, ",\"OffHeapExecutionMemory\":0");
    clarity_sb_kint(b, ",\"OnHeapStorageMemory\":", storage);
    clarity_sb_str(b, ",\"OffHeapStorageMemory\":0");
    clarity_sb_kint(b, ",\"OnHeapUnifiedMemory\":", exec_mem + storage);
    clarity_sb_str(b, ",\"OffHeapUnifiedMemory\":0,\"DirectPoolMemory\":16793,\"MappedPoolMemory\":0,\"ProcessTreeJVMVMemory\":0,"
              "\"ProcessTreeJVMRSSMemory\":0,\"ProcessTreePythonVMemory\":0,\"ProcessTreePythonRSSMemory\":0,"
              "\"ProcessTreeOtherVMemory\":0,\"ProcessTreeOtherRSSMemory\":0");
    clarity_sb_kint(b, ",\"MinorGCCount\":", e->minor_gc);
    clarity_sb_kint(b, ",\"MinorGCTime\":", llround(e->minor_gc_s * 1000));
    clarity_sb_kint(b, ",\"MajorGCCount\":", e->major_gc);
    clarity_sb_kint(b, ",\"MajorGCTime\":", llround(e->major_gc_s * 1000));
    clarity_sb_kint(b, ",\"TotalGCTime\":", llround((e->minor_gc_s + e->major_gc_s) * 1000));
    clarity_sb_ch(b, '}');
}

/* Task accumulables: the non-zero internal metrics, the SQL metrics of the plan nodes the
 * stage runs, and (with --instrument) the waits iQCAR needs an instrumented Spark for. */
static void task_accumulables(struct sim *s, struct clarity_strbuf *b, const struct sy_attempt *a, const struct tmetrics *m, bool ok)
{
    struct sy_stage *st = &s->stages[a->stage];
    bool first = true;
    for (int k = 0; k < ACC_COUNT; k++) {
        if (!m->v[k]) continue;
        st->acc_sum[k] += m->v[k];   /* internal metrics count failed values */
        acc_internal(b, &first, st->acc_base + k, acc_names[k], m->v[k], true, st->acc_sum[k]);
    }
    for (int k = 0; k < SQL_COUNT; k++) {
        /* the reader side of an exchange updates its parent's exchange metrics */
        struct sy_stage *owner = (k == SQL_FETCH_WAIT || k == SQL_REMOTE_BYTES) && st->nparents ? &s->stages[st->parents[0]] : st;
        struct sql_metric *sm = &owner->sql[k];
        if (!sm->id || !m->sql[k]) continue;
        if (ok) sm->total += m->sql[k];
        acc_string(b, &first, sm->id, sm->name, m->sql[k], true, sm->total, true);
    }
    if (s->cfg->instrument) {
        acc_string(b, &first, st->acc_base + 30, "iqcar.cpu.waitedTime", m->cpu_wait_ms, true, m->cpu_wait_ms, false);
        acc_string(b, &first, st->acc_base + 31, "iqcar.cpu.blockedTime", 0, true, 0, false);
        acc_string(b, &first, st->acc_base + 32, "iqcar.mem.executionWaitTime", m->mem_wait_ms, true, m->mem_wait_ms, false);
        acc_string(b, &first, st->acc_base + 33, "iqcar.mem.executionAsked", m->mem_asked, true, m->mem_asked, false);
    }
}

void clarity_ev_task_end(struct sim *s, struct sy_attempt *a, int end)
{
    struct tmetrics m;
    clarity_task_metrics(s, a, &m);
    const struct sy_stage *st = &s->stages[a->stage];
    struct clarity_strbuf *b = line(s);
    clarity_sb_str(b, "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":");
    clarity_sb_int(b, st->spark_id);
    clarity_sb_str(b, st->result ? ",\"Stage Attempt ID\":0,\"Task Type\":\"ResultTask\",\"Task End Reason\":"
                         : ",\"Stage Attempt ID\":0,\"Task Type\":\"ShuffleMapTask\",\"Task End Reason\":");
    if (end == 0) clarity_sb_str(b, "{\"Reason\":\"Success\"}");
    else if (end == 2) clarity_sb_str(b, "{\"Reason\":\"TaskKilled\",\"Kill Reason\":\"another attempt succeeded\",\"Accumulator Updates\":[]}");
    else if (a->lost)
        clarity_sb_printf(b, "{\"Reason\":\"ExecutorLostFailure\",\"Executor ID\":\"%s\",\"Exit Caused By App\":true,"
                             "\"Loss Reason\":\"Command exited with code 137\"}", s->execs[a->exec].id);
    else clarity_sb_str(b, "{\"Reason\":\"ExceptionFailure\",\"Class Name\":\"java.io.IOException\",\"Description\":"
                   "\"Connection reset by peer\",\"Stack Trace\":[{\"Declaring Class\":\"sun.nio.ch.FileDispatcherImpl\","
                   "\"Method Name\":\"read0\",\"File Name\":\"FileDispatcherImpl.java\",\"Line Number\":-2}],"
                   "\"Full Stack Trace\":\"java.io.IOException: Connection reset by peer\\n\\tat "
                   "sun.nio.ch.FileDispatcherImpl.read0(Native Method)\\n\",\"Accumulator Updates\":[]}");
    clarity_sb_ch(b, ',');
    task_info(s, b, a, m.finish_ms, end == 1, end == 2);
    clarity_sb_str(b, ",\"Accumulables\":[");
    task_accumulables(s, b, a, &m, end == 0);
    clarity_sb_str(b, "]},");
    executor_metrics_json(b, &s->execs[a->exec], &m);
    clarity_sb_ch(b, ',');
    task_metrics_json(b, &m);
    clarity_sb_ch(b, '}');
    clarity_ev_emit(s, false);
}

void clarity_ev_sql_end(struct sim *s, struct sy_query *q)
{
    struct clarity_strbuf *b = line(s);
    clarity_sb_printf(b, "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd\",\"executionId\":%lld,\"time\":%lld}",
              (long long)q->sql_id, (long long)sim_ms(s, q->end_t));
    clarity_ev_emit(s, true);
}

void clarity_ev_app_end(struct sim *s)
{
    struct clarity_strbuf *b = line(s);
    clarity_sb_printf(b, "{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":%lld}", (long long)sim_ms(s, s->now));
    clarity_ev_emit(s, true);
}
