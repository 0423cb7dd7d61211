/* The text logs a cluster leaves next to the event log: executor stderr and the driver log in
 * Spark's default log4j2 layout (`%d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex`), and one GC log
 * per executor JVM (JDK 8 ParallelGC -XX:+PrintGCDetails -XX:+PrintGCDateStamps, or JDK 11+
 * unified -Xlog:gc* for G1). Lines of each file are in time order. */
#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>
#include "synth/internal.h"

static int mkdirs(const char *path)
{
    char tmp[4400];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0755) && errno != EEXIST) return -1;
            *p = '/';
        }
    return mkdir(tmp, 0755) && errno != EEXIST ? -1 : 0;
}

static const char *log_time(const struct sim *s, double t, char *buf, size_t cap)
{
    int64_t ms = sim_ms(s, t);
    time_t sec = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&sec, &tm);
    strftime(buf, cap, "%y/%m/%d %H:%M:%S", &tm);
    return buf;
}

static const char *iso_time(const struct sim *s, double t, char *buf, size_t cap)
{
    int64_t ms = sim_ms(s, t);
    time_t sec = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&sec, &tm);
    size_t n = strftime(buf, cap, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, cap - n, ".%03d+0000", (int)(ms % 1000));
    return buf;
}

static const char *human(double bytes, char *buf, size_t cap)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while (bytes >= 1024 && i < 4) {
        bytes /= 1024;
        i++;
    }
    snprintf(buf, cap, "%.1f %s", bytes, u[i]);
    return buf;
}

void clarity_logs_open(struct sim *s)
{
    if (!s->cfg->logs) return;
    char p[4200];
    snprintf(p, sizeof p, "%s/driver.log", s->outdir);
    s->driver_log = fopen(p, "w");
    if (!s->driver_log) {
        SIM_FAIL(s, "cannot write a log file in the output directory");
        return;
    }
    setvbuf(s->driver_log, NULL, _IOFBF, 1 << 20);
    clarity_log_driver(s, "SparkContext", "Running Spark version 3.5.1");
    clarity_log_driver(s, "SparkContext", "Submitted application: %s", s->cfg->app_name);
    clarity_log_driver(s, "StandaloneSchedulerBackend", "Connected to Spark cluster with app ID %s", s->app_id);
}

void clarity_logs_close(struct sim *s)
{
    if (s->driver_log) {
        clarity_log_driver(s, "SparkContext", "Successfully stopped SparkContext");
        if (fclose(s->driver_log)) SIM_FAIL(s, "cannot write the driver log");
        s->driver_log = NULL;
    }
    for (int i = 0; i < s->nexecs; i++) {
        struct sy_exec *e = &s->execs[i];
        if (e->log && fclose(e->log)) SIM_FAIL(s, "cannot write an executor log");
        if (e->gc && fclose(e->gc)) SIM_FAIL(s, "cannot write a GC log");
        e->log = e->gc = NULL;
    }
}

void clarity_log_driver(struct sim *s, const char *cls, const char *fmt, ...)
{
    if (!s->driver_log) return;
    char t[32];
    fprintf(s->driver_log, "%s INFO %s: ", log_time(s, s->now, t, sizeof t), cls);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(s->driver_log, fmt, ap);
    va_end(ap);
    fputc('\n', s->driver_log);
}

void clarity_log_exec_start(struct sim *s, struct sy_exec *e)
{
    if (!s->cfg->logs) return;
    const char *host = s->hosts[e->host].name;
    char dir[4200], p[4300], t[32];
    snprintf(dir, sizeof dir, "%s/executor-logs/%s/%s", s->outdir, host, e->id);
    if (mkdirs(dir)) {
        SIM_FAIL(s, "cannot create an executor log directory");
        return;
    }
    snprintf(p, sizeof p, "%s/stderr", dir);
    e->log = fopen(p, "w");
    snprintf(p, sizeof p, "%s/gc/%s-%s.log", s->outdir, host, e->id);
    e->gc = fopen(p, "w");
    if (!e->log || !e->gc) {
        SIM_FAIL(s, "cannot write a log file in the output directory");
        return;
    }
    int pid = 20000 + 97 * e->idx % 30000;
    fprintf(e->log, "%s INFO CoarseGrainedExecutorBackend: Started daemon with process name: %d@%s\n",
            log_time(s, e->jvm_start, t, sizeof t), pid, host);
    fprintf(e->log, "%s INFO SecurityManager: Changing view acls to: spark\n", t);
    fprintf(e->log, "%s INFO TransportClientFactory: Successfully created connection to driver-host/10.0.0.2:41000 after 52 ms (0 ms spent in bootstraps)\n", t);
    fprintf(e->log, "%s INFO CoarseGrainedExecutorBackend: Connecting to driver: spark://CoarseGrainedScheduler@driver-host:41000\n",
            log_time(s, s->now, t, sizeof t));
    fprintf(e->log, "%s INFO CoarseGrainedExecutorBackend: Successfully registered with driver\n", t);
    fprintf(e->log, "%s INFO Executor: Starting executor ID %s on host %s\n", t, e->id, host);
    fprintf(e->log, "%s INFO MemoryStore: MemoryStore started with capacity %.1f GiB\n", t,
            (e->heap - 300.0 * 1048576) * 0.6 / 1073741824.0);
    if (s->cfg->gc_format == SYNTH_GC_JDK8_PARALLEL)
        fprintf(e->gc, "OpenJDK 64-Bit Server VM (25.392-b08) for linux-amd64 JRE (1.8.0_392-b08), built on Oct 18 2023 00:00:00 by \"openjdk\" with gcc 7.5.0\n"
                       "Memory: 4k page, physical %lldk(%lldk free), swap 0k(0k free)\n"
                       "CommandLine flags: -XX:InitialHeapSize=%lld -XX:MaxHeapSize=%lld -XX:+PrintGC -XX:+PrintGCDateStamps "
                       "-XX:+PrintGCDetails -XX:+PrintGCTimeStamps -XX:+UseCompressedClassPointers -XX:+UseCompressedOops -XX:+UseParallelGC \n",
                (long long)(s->cfg->host_memory / 1024), (long long)(s->cfg->host_memory / 2048),
                (long long)e->heap, (long long)e->heap);
    else
        fprintf(e->gc, "[%s][%.3fs][info][gc,init] Version: 17.0.10+7 (release)\n[%s][%.3fs][info][gc     ] Using G1\n"
                       "[%s][%.3fs][info][gc,init] Heap Max Capacity: %lldM\n",
                iso_time(s, e->jvm_start, p, sizeof p), 0.012, p, 0.013, p, 0.014, (long long)(e->heap / 1048576));
}

void clarity_log_task_start(struct sim *s, struct sy_attempt *a)
{
    struct sy_exec *e = &s->execs[a->exec];
    const struct sy_stage *st = &s->stages[a->stage];
    static const char *const loc[] = {"PROCESS_LOCAL", "NODE_LOCAL", "NO_PREF", "RACK_LOCAL", "ANY"};
    char t[32], h1[32], h2[32], h3[32];
    if (s->driver_log)
        fprintf(s->driver_log, "%s INFO TaskSetManager: Starting task %d.%d in stage %d.0 (TID %lld) (%s, executor %s, partition %d, %s, %d bytes) \n",
                log_time(s, s->now, t, sizeof t), a->index, a->attempt, st->spark_id, (long long)a->tid,
                s->hosts[a->host].name, e->id, a->index, loc[a->locality], 7800 + st->spark_id % 200);
    if (!e->log) return;
    log_time(s, s->now + a->work[PH_LAUNCH], t, sizeof t);
    fprintf(e->log, "%s INFO Executor: Running task %d.%d in stage %d.0 (TID %lld)\n", t, a->index, a->attempt,
            st->spark_id, (long long)a->tid);
    if (a->sr_remote + a->sr_local > 0) {
        int remote = s->nhosts > 1 ? (int)((double)st->map_tasks * (s->nhosts - 1) / s->nhosts + 0.5) : 0;
        fprintf(e->log, "%s INFO ShuffleBlockFetcherIterator: Getting %d (%s) non-empty blocks including %d (%s) local and "
                        "0 (0.0 B) host-local and 0 (0.0 B) push-merged-local and %d (%s) remote blocks\n",
                t, st->map_tasks, human(a->sr_local + a->sr_remote, h1, sizeof h1), st->map_tasks - remote,
                human(a->sr_local, h2, sizeof h2), remote, human(a->sr_remote, h3, sizeof h3));
        fprintf(e->log, "%s INFO ShuffleBlockFetcherIterator: Started %d remote fetches in %d ms\n", t,
                remote < 5 ? remote : 5, 1 + (int)(a->tid % 7));
    }
}

void clarity_log_task_end(struct sim *s, struct sy_attempt *a, int end, int64_t dur_ms)
{
    struct sy_exec *e = &s->execs[a->exec];
    struct sy_stage *st = &s->stages[a->stage];
    char t[32], h1[32];
    const char *host = s->hosts[a->host].name;
    if (s->driver_log) {
        log_time(s, s->now, t, sizeof t);
        if (end == 0)
            fprintf(s->driver_log, "%s INFO TaskSetManager: Finished task %d.%d in stage %d.0 (TID %lld) in %lld ms on %s (executor %s) (%d/%d)\n",
                    t, a->index, a->attempt, st->spark_id, (long long)a->tid, (long long)dur_ms, host, e->id,
                    st->succeeded + 1, st->ntasks);
        else if (end == 1 && a->lost)
            fprintf(s->driver_log, "%s WARN TaskSetManager: Lost task %d.%d in stage %d.0 (TID %lld) (%s executor %s): "
                                   "ExecutorLostFailure (executor %s exited caused by one of the running tasks) Reason: "
                                   "Command exited with code 137\n",
                    t, a->index, a->attempt, st->spark_id, (long long)a->tid, host, e->id, e->id);
        else if (end == 1)
            fprintf(s->driver_log, "%s WARN TaskSetManager: Lost task %d.%d in stage %d.0 (TID %lld) (%s executor %s): "
                                   "java.io.IOException: Connection reset by peer\n",
                    t, a->index, a->attempt, st->spark_id, (long long)a->tid, host, e->id);
        else
            fprintf(s->driver_log, "%s INFO TaskSetManager: Killing attempt %d for task %d.%d in stage %d.0 (TID %lld) on %s as another attempt succeeded\n",
                    t, a->attempt, a->index, a->attempt, st->spark_id, (long long)a->tid, host);
    }
    if (!e->log || a->lost) return;   /* a lost executor's JVM died without a word */
    double tend = a->t_phase[PH_RESULT_SEND];
    log_time(s, tend, t, sizeof t);
    if (a->spill_mem > 0 && a->end_phase > PH_SPILL)
        fprintf(e->log, "%s INFO UnsafeExternalSorter: Thread %d spilling sort data of %s to disk (0  time so far)\n",
                log_time(s, a->t_phase[PH_SPILL], t, sizeof t), 60 + (int)(a->tid % 64), human(a->spill_mem, h1, sizeof h1));
    log_time(s, tend, t, sizeof t);
    if (end == 0)
        fprintf(e->log, "%s INFO Executor: Finished task %d.%d in stage %d.0 (TID %lld). %lld bytes result sent to driver\n", t,
                a->index, a->attempt, st->spark_id, (long long)a->tid, (long long)a->result_bytes);
    else if (end == 1)
        fprintf(e->log, "%s ERROR Executor: Exception in task %d.%d in stage %d.0 (TID %lld)\njava.io.IOException: Connection reset by peer\n"
                        "\tat sun.nio.ch.FileDispatcherImpl.read0(Native Method)\n",
                t, a->index, a->attempt, st->spark_id, (long long)a->tid);
    else
        fprintf(e->log, "%s INFO Executor: Executor killed task %d.%d in stage %d.0 (TID %lld), reason: another attempt succeeded\n",
                t, a->index, a->attempt, st->spark_id, (long long)a->tid);
}

void clarity_log_gc(struct sim *s, struct sy_exec *e, bool full, struct gc_times tm, double y_before, double y_after,
            double heap_before, double heap_after, double old_before, double old_after)
{
    if (!e->gc) return;
    char iso[48];
    iso_time(s, s->now, iso, sizeof iso);
    double up = s->now - e->jvm_start;
    double pause = tm.real, user = tm.user, sys = tm.sys;
    long long K = 1024;
    if (s->cfg->gc_format == SYNTH_GC_JDK8_PARALLEL) {
        if (!full)
            fprintf(e->gc, "%s: %.3f: [GC (Allocation Failure) [PSYoungGen: %lldK->%lldK(%lldK)] %lldK->%lldK(%lldK), %.7f secs] "
                           "[Times: user=%.2f sys=%.2f, real=%.2f secs] \n",
                    iso, up, (long long)y_before / K, (long long)y_after / K, (long long)e->young_cap / K,
                    (long long)heap_before / K, (long long)heap_after / K, (long long)e->heap / K, pause, user, sys, pause);
        else
            fprintf(e->gc, "%s: %.3f: [Full GC (Ergonomics) [PSYoungGen: %lldK->0K(%lldK)] [ParOldGen: %lldK->%lldK(%lldK)] "
                           "%lldK->%lldK(%lldK), [Metaspace: 61234K->61234K(1105920K)], %.7f secs] [Times: user=%.2f sys=%.2f, real=%.2f secs] \n",
                    iso, up, (long long)y_before / K, (long long)e->young_cap / K, (long long)old_before / K,
                    (long long)old_after / K, (long long)e->old_cap / K, (long long)heap_before / K,
                    (long long)heap_after / K, (long long)e->heap / K, pause, user, sys, pause);
    } else {
        long long M = 1048576, n = (long long)e->gc_seq;
        const char *what = full ? "Pause Full (G1 Compaction Pause)" : "Pause Young (Normal) (G1 Evacuation Pause)";
        fprintf(e->gc, "[%s][%.3fs][info][gc,start    ] GC(%lld) %s\n", iso, up, n, what);
        double t2 = s->now + pause;
        iso_time(s, t2, iso, sizeof iso);
        fprintf(e->gc, "[%s][%.3fs][info][gc          ] GC(%lld) %s %lldM->%lldM(%lldM) %.3fms\n", iso, up + pause, n, what,
                (long long)heap_before / M, (long long)heap_after / M, (long long)e->heap / M, pause * 1000);
        fprintf(e->gc, "[%s][%.3fs][info][gc,cpu      ] GC(%lld) User=%.2fs Sys=%.2fs Real=%.2fs\n", iso, up + pause, n, user,
                sys, pause);
    }
    e->gc_seq++;
}
