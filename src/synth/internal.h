/* The simulator's state. One `struct sim` per run; every file of src/synth/ works on it.
 * Times are seconds after the application start (double); the writers turn them into epoch
 * milliseconds. Work is in core-seconds (CPU), bytes (disk, network) or seconds (fixed delays). */
#ifndef CLARITY_SYNTH_INTERNAL_H
#define CLARITY_SYNTH_INTERNAL_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "clarity/synth.h"
#include "synth/heap.h"
#include "synth/write/out.h"
#include "synth/rng.h"
#include "util/strbuf.h"

/* Resources shared by processor sharing on each host. */
enum { RES_NONE, RES_CPU, RES_DISK, RES_NET, RES_COUNT };
/* Truth wait classes. */
enum { W_CPU, W_DISK, W_NET, W_GC, W_MEM, W_COUNT };

/* A task attempt's life, in order. Phases with no work are skipped. */
enum phase {
    PH_LAUNCH,       /* driver -> executor: part of scheduler delay */
    PH_DESER,        /* deserialize task and closure (CPU) */
    PH_INPUT,        /* read input split: local disk, remote (network) or cache */
    PH_FETCH_NET,    /* shuffle fetch, remote blocks */
    PH_FETCH_DISK,   /* shuffle fetch, local blocks */
    PH_COMPUTE,      /* the task's CPU work */
    PH_SPILL,        /* spill to disk when execution memory is short */
    PH_SHUFFLE_WRITE,
    PH_OUTPUT,
    PH_RESULT_SER,
    PH_RESULT_SEND,  /* executor -> driver: part of scheduler delay */
    PH_COUNT
};

enum { TK_ATTEMPT, TK_EXEC, TK_ARRIVAL, TK_JOB_SUBMIT, TK_FAULT, TK_ALLOC, TK_SPEC, TK_LOCALITY, TK_APP_END, TK_KILL };

enum { IN_NONE, IN_HDFS, IN_CACHE };
enum { LOC_PROCESS, LOC_NODE, LOC_NO_PREF, LOC_RACK, LOC_ANY };

struct sy_host {
    char name[32];
    int idx;
    double cores, disks;
    int32_t *att; int natt; size_t cap_att;       /* running attempts on this host */
    double last;                           /* time the attempts' progress was last advanced */
    /* active faults (intensity 0 = none) and which fault is behind each */
    double hog_threads, disk_hog_streams, net_factor, mem_intensity;
    int fault_cpu, fault_disk, fault_net, fault_mem;
    int fetching;                          /* attempts fetching shuffle blocks over the network */
    int execs[16], nexecs;                 /* alive executors on this host */
};

struct sy_exec {
    int idx, host;
    char id[16];
    int cores, free_slots;
    double heap, young_cap, old_cap, young_used, old_used, cached_bytes;
    double jvm_start, ready_t, removed_t, idle_since;
    double paused_until, pause_len, pause_nominal;
    bool alive, ready, removing;
    int32_t timer;                         /* young-GC time, pause end, or registration */
    int64_t minor_gc, major_gc; double minor_gc_s, major_gc_s, peak_heap;
    FILE *log, *gc;
    int64_t gc_seq;
    int running;
    int last_stage;                        /* first task of a stage on a JVM pays class loading */
    double alloc_rate;                     /* bytes/s allocated by its running tasks */
    double busy_s;                         /* task-seconds run on it (truth: idle executors) */
    bool lost;                             /* killed by --kill-executor */
};

/* Per task index of a stage. */
struct sy_ptask {
    uint8_t done, running, failures, speculatable, spec_launched, queued, nlaunched;
    int16_t pref_host[3];                  /* HDFS replica hosts, -1 unused */
    int32_t cache_exec;                    /* executor holding its cached block, -1 none */
    float skew;
};

struct sql_metric { int64_t id; const char *name, *type; int64_t total; };
/* SQL metric slots of a stage (id 0 = absent) */
enum { SQL_ROWS, SQL_SCAN_TIME, SQL_SW_BYTES, SQL_SW_TIME, SQL_FETCH_WAIT, SQL_REMOTE_BYTES, SQL_COUNT };
/* internal.metrics accumulables, in the order Spark registers them */
enum { ACC_DESER_MS, ACC_DESER_CPU, ACC_RUN_MS, ACC_CPU_NS, ACC_RESULT_SIZE, ACC_GC_MS, ACC_SER_MS,
       ACC_MEM_SPILL, ACC_DISK_SPILL, ACC_PEAK_MEM, ACC_SR_REMOTE_BLOCKS, ACC_SR_LOCAL_BLOCKS,
       ACC_SR_REMOTE_BYTES, ACC_SR_REMOTE_TO_DISK, ACC_SR_LOCAL_BYTES, ACC_SR_FETCH_WAIT, ACC_SR_RECORDS,
       ACC_SW_BYTES, ACC_SW_RECORDS, ACC_SW_TIME, ACC_IN_BYTES, ACC_IN_RECORDS, ACC_OUT_BYTES,
       ACC_OUT_RECORDS, ACC_COUNT };
/* What an attempt's TaskEnd says, in Spark's units; derived once from its phase times. */
struct tmetrics {
    int64_t launch_ms, finish_ms, v[ACC_COUNT];
    int64_t sql[SQL_COUNT];
    int64_t cpu_wait_ms, mem_wait_ms, mem_asked;
};

struct sy_stage {
    int idx, spark_id, query, job;         /* job = first job that ran it */
    char name[128];
    int ntasks;
    int parents[4], nparents;
    int input_kind;                        /* IN_* */
    int cache_src;                         /* stage whose cached output this reads (IN_CACHE) */
    bool caches;                           /* output kept in memory (persist) */
    bool result;                           /* ResultStage */
    const char *op;                        /* plan operator for SQL ("HashAggregate", ...) */
    /* per-task demand before skew */
    double cpu_s, in_bytes, sr_bytes, sw_bytes, out_bytes, mem_bytes, alloc_per_cpu, result_bytes;
    int map_tasks;                         /* tasks of the parent stages (shuffle blocks) */
    /* state */
    enum { ST_NEW, ST_WAITING, ST_RUNNING, ST_DONE } status;
    double submit_t, done_t;
    struct sy_ptask *tasks;
    int succeeded, running, launched_total, spec_running;
    int pool;
    /* task set: pending queues (indices; a popped index may no longer be pending) */
    int32_t *pend_all; int npend_all, cur_all; size_t cap_pend_all;
    int32_t **pend_host; int *npend_host, *cur_host; size_t *cap_pend_host;
    int32_t **pend_exec; int *npend_exec, *cur_exec; size_t *cap_pend_exec; int nexec_q;
    int pending;                           /* indices waiting for a (re)launch */
    int loc_level;                         /* delay scheduling: current allowed level */
    double loc_last;                       /* last launch at the current level */
    int32_t loc_timer;
    int nlevels, levels[3];
    int32_t *spec_q; int nspec_q, cur_spec; size_t cap_spec_q;
    /* metrics */
    int64_t acc_base;                      /* first internal.metrics accumulator id */
    struct sql_metric sql[SQL_COUNT];
    int rdd_base, nrdds;
    int64_t acc_sum[ACC_COUNT];            /* stage totals of the internal.metrics accumulables */
    double spill_s;                        /* attempts' time in the spill phase (truth.json) */
    double *succ_dur; int nsucc_dur; size_t cap_succ_dur;
    int failed_attempts, lost_attempts;    /* truth: failures injected, attempts lost with an executor */
    double median_s, max_s;                /* successful attempts' median and longest, set when it completes */
    struct task_truth *tt; int ntt; size_t cap_tt;
};

struct sy_job {
    int idx, spark_id, query;
    int stages[16], nstages;               /* in creation order; the last is the result stage */
    double submit_t, end_t;
    bool submitted, done;
    char call_site[96];
};

struct sy_query {
    int idx;
    char name[32], description[128];
    bool sql;
    int64_t sql_id;
    int pool;
    double arrival_t, start_t, end_t;
    int jobs[64], njobs, cur_job;
    bool done, started;
    double gap_s;                          /* driver time between its jobs */
    double priority;                       /* higher: its task sets are offered slots first */
};

struct sy_pool { char name[16]; double weight; int min_share; int running; };

struct sy_attempt {
    bool used;
    int64_t tid;
    int stage, index, attempt, exec, host, locality;
    bool speculative, will_fail, killed, first_on_exec, lost;
    int phase, res;                        /* current phase and the resource it uses */
    int end_phase;                         /* phase it was in when it ended */
    double work[PH_COUNT];                 /* demand per phase */
    double remaining, rate, rate_nofault, max_rate;
    double t_launch, t_phase[PH_COUNT + 1];/* phase start times; [PH_COUNT] = finish */
    double cpu_done, cpu_deser;            /* core-seconds executed in the run, in deserialization */
    double gc_s;                           /* stop-the-world pauses while it ran */
    double wait[W_COUNT];                  /* truth: time lost per resource */
    double wait_fault, wait_other, wait_self; /* truth: by culprit class */
    int fault_seen;                        /* a fault that slowed it, -1 none */
    int fault_remote;                      /* a throttled sender capping its shuffle fetch, -1 none */
    double in_bytes, sr_remote, sr_local, sw_bytes, out_bytes, mem_bytes, alloc_per_cpu, spill_mem, spill_disk;
    double result_bytes;
    int64_t records_in, records_sr, records_sw, records_out;
    int32_t timer;
    int host_slot;                         /* position in host->att */
};

/* What truth-tasks.jsonl says about one attempt; kept until its stage completes so that
 * "abnormal" can compare it with its siblings. */
struct task_truth {
    int64_t tid; int index, attempt, host, exec, query;
    double launch, finish, ideal, skew;
    float wait[W_COUNT], wait_fault, wait_other, wait_self, service_cpu, service_disk, service_net;
    int fault; int8_t end;                 /* 0 success, 1 failed, 2 killed */
    bool speculative, nonlocal;
};

struct contention;   /* truth.c */

struct sim {
    const struct synth_config *cfg;
    struct rng rng_work, rng_sched, rng_fail, rng_jvm;
    struct theap heap;
    double now;
    struct sy_host *hosts; int nhosts;
    struct sy_exec *execs; int nexecs; size_t cap_execs;
    int execs_alive, execs_requested, next_exec_id;
    struct sy_pool pools[4]; int npools;
    struct sy_query *queries; int nqueries; size_t cap_queries;
    struct sy_job *jobs; int njobs; size_t cap_jobs;
    struct sy_stage *stages; int nstages; size_t cap_stages;
    struct sy_attempt *att; int cap_att; int32_t *att_free; int natt_free;
    int *active; int nactive; size_t cap_active;  /* stages with a task set */
    int64_t next_tid, next_accum;
    int next_job_id, next_stage_id, next_rdd_id, next_sql_id;
    int queries_done;
    bool app_done;
    double end_t;
    int32_t alloc_timer, spec_timer, fault_timer, end_timer;
    int add_step;                          /* dynamic allocation: executors asked next round */
    double backlog_since;
    /* output */
    char outdir[3072];
    char app_id[64];
    struct out_stream *ev;
    struct clarity_strbuf line;                      /* event being written */
    struct clarity_strbuf tmp;
    FILE *driver_log, *truth_tasks;
    uint64_t events;
    struct contention *cont;
    int nthrottled;                        /* hosts whose NIC a network fault throttles now */
    double net_sig;                        /* throttled NICs and fetchers when remote caps were last set */
    int64_t *fault_tasks[SYNTH_MAX_FAULTS]; int nfault_tasks[SYNTH_MAX_FAULTS]; size_t cap_fault_tasks[SYNTH_MAX_FAULTS];
    double fault_delay[SYNTH_MAX_FAULTS];
    uint64_t abnormal, tasks_done;
    int skew_stage, skew_part;             /* --skew-key: the stage and partition made hot (-1 none) */
    double skew_share;                     /* the hot partition's share of that stage's shuffle, as run */
    int kill_exec[4];                      /* --kill-executor: the executor each kill removed (-1 none) */
    int kill_attempts[4];                  /* ... the attempts it took with it */
    double kill_cached[4];                 /* ... the cached bytes it held (lost with it) */
    double task_gc_s, task_s;              /* attempts' GC pauses and durations, summed (truth) */
    double driver_gap_total;               /* seconds of injected driver time */
    int err;                               /* first I/O or memory error */
    char errmsg[256];
};

#define SIM_FAIL(s, ...) do { if (!(s)->err) { (s)->err = 1; snprintf((s)->errmsg, sizeof (s)->errmsg, __VA_ARGS__); } } while (0)

static inline int64_t sim_ms(const struct sim *s, double t) { return s->cfg->start_ms + (int64_t)llround(t * 1000.0); }

/* arrays */

/* workload.c: builds queries, jobs and stages of the scenario */
int clarity_workload_build(struct sim *s);
struct sy_stage *stage_add(struct sim *s, struct sy_job *j, const char *name, int ntasks);
void stage_reuse(struct sy_job *j, int stage);

/* cluster.c: processor sharing */
void clarity_host_advance(struct sim *s, struct sy_host *h);
void clarity_host_reschedule(struct sim *s, struct sy_host *h);
void clarity_host_add_attempt(struct sim *s, struct sy_host *h, int32_t a);
void clarity_host_remove_attempt(struct sim *s, struct sy_host *h, int32_t a);
void clarity_phase_enter(struct sim *s, struct sy_attempt *a, int phase);

/* attempt.c: a task attempt from launch to end */
void clarity_attempt_launch(struct sim *s, struct sy_stage *st, int index, struct sy_exec *e, int locality, bool speculative);
void clarity_attempt_timer(struct sim *s, int32_t a);
void clarity_attempt_kill(struct sim *s, int32_t a);
void clarity_attempt_lose(struct sim *s, int32_t a);

/* sched.c: task sets, pools, locality, speculation */
void clarity_taskset_create(struct sim *s, struct sy_stage *st);
void clarity_taskset_enqueue(struct sim *s, struct sy_stage *st, int index);
void clarity_taskset_remove(struct sim *s, struct sy_stage *st);
void clarity_sched_offer(struct sim *s, struct sy_exec *e);
void clarity_sched_offer_all(struct sim *s);
void clarity_sched_locality_timer(struct sim *s, int stage);
void clarity_spec_tick(struct sim *s);
int clarity_pending_tasks(const struct sim *s);
int clarity_running_tasks(const struct sim *s);

/* dag.c: jobs and stages */
void clarity_query_arrive(struct sim *s, int q);
void clarity_job_submit_next(struct sim *s, int q);
void clarity_stage_task_succeeded(struct sim *s, struct sy_stage *st);

/* alloc.c: executors */
int clarity_exec_create(struct sim *s, int host, double ready_t);
void clarity_exec_timer(struct sim *s, int e);
void clarity_exec_remove(struct sim *s, struct sy_exec *e, const char *reason);
void clarity_alloc_tick(struct sim *s);
void clarity_exec_idle_check(struct sim *s, struct sy_exec *e);
void clarity_exec_kill(struct sim *s, int k);

/* jvm.c: heap and GC */
void clarity_jvm_init(struct sim *s, struct sy_exec *e);
void clarity_jvm_advance(struct sim *s, struct sy_exec *e, double dt);
void clarity_jvm_schedule(struct sim *s, struct sy_exec *e);
void clarity_jvm_collect(struct sim *s, struct sy_exec *e);

/* fault.c */
void clarity_fault_timer(struct sim *s);
void clarity_fault_schedule(struct sim *s);

/* write_event.c: the Spark 3.5 event log */
void clarity_ev_preamble(struct sim *s);
void clarity_ev_executor_added(struct sim *s, struct sy_exec *e);
void clarity_ev_executor_removed(struct sim *s, struct sy_exec *e, const char *reason);
void clarity_ev_job_start(struct sim *s, struct sy_job *j);
void clarity_ev_job_end(struct sim *s, struct sy_job *j);
void clarity_ev_stage_submitted(struct sim *s, struct sy_stage *st);
void clarity_ev_stage_completed(struct sim *s, struct sy_stage *st);
void clarity_ev_task_start(struct sim *s, struct sy_attempt *a);
void clarity_ev_task_end(struct sim *s, struct sy_attempt *a, int end);  /* 0 ok, 1 failed, 2 killed */
void clarity_ev_sql_start(struct sim *s, struct sy_query *q);
void clarity_ev_sql_end(struct sim *s, struct sy_query *q);
void clarity_ev_app_end(struct sim *s);
void clarity_ev_emit(struct sim *s, bool flush);   /* s->line + '\n' to the log */
void clarity_task_metrics(const struct sim *s, const struct sy_attempt *a, struct tmetrics *m);
void sql_plan_json(struct sim *s, struct clarity_strbuf *b, struct sy_query *q);

/* write_logs.c: log4j text of executors and driver, GC logs */
void clarity_logs_open(struct sim *s);
void clarity_logs_close(struct sim *s);
void clarity_log_exec_start(struct sim *s, struct sy_exec *e);
void clarity_log_task_start(struct sim *s, struct sy_attempt *a);
void clarity_log_task_end(struct sim *s, struct sy_attempt *a, int end, int64_t dur_ms);
void clarity_log_driver(struct sim *s, const char *cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
struct gc_times { double real, user, sys; };   /* seconds, as the GC log's Times block */
void clarity_log_gc(struct sim *s, struct sy_exec *e, bool full, struct gc_times t, double y_before, double y_after,
            double heap_before, double heap_after, double old_before, double old_after);

/* truth.c */
int clarity_truth_init(struct sim *s);
/* victim query lost `delay` seconds at time t on resource res because of culprit (a query
 * index, or nqueries + fault index) */
void clarity_truth_pair(struct sim *s, int victim, int culprit, int res, double t, double delay);
void clarity_truth_usage(struct sim *s, int q, int res, double t0, double amount);
void clarity_truth_attempt_end(struct sim *s, struct sy_attempt *a, int end);
void clarity_truth_stage_done(struct sim *s, struct sy_stage *st);
int clarity_truth_write(struct sim *s, struct synth_result *res);
void clarity_truth_free(struct sim *s);
/* truth_findings.c: the injected problems, as truth.json's "findings" */
struct jsonw;
void clarity_truth_findings(struct sim *s, struct jsonw *w);
#endif
