/* The application model: what an event log says, replayed into compact tables. Analyses and
 * reports only read it. Times are epoch ms and metrics are in Spark's units (ms, ns, bytes)
 * exactly as logged; conversion happens in reports. */
#ifndef CLARITY_MODEL_H
#define CLARITY_MODEL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/arena.h"
#include "clarity/icol.h"
#include "clarity/source.h"

/* Task metrics, one column each. Units as Spark logs them. */
enum clarity_tm {
    CLARITY_TM_DESER_MS, CLARITY_TM_DESER_CPU_NS, CLARITY_TM_RUN_MS, CLARITY_TM_CPU_NS,
    CLARITY_TM_PEAK_EXEC_MEM, CLARITY_TM_PEAK_ONHEAP_EXEC_MEM, CLARITY_TM_PEAK_OFFHEAP_EXEC_MEM,
    CLARITY_TM_RESULT_SIZE, CLARITY_TM_GC_MS, CLARITY_TM_RESULT_SER_MS,
    CLARITY_TM_MEM_SPILLED, CLARITY_TM_DISK_SPILLED,
    CLARITY_TM_INPUT_BYTES, CLARITY_TM_INPUT_RECORDS, CLARITY_TM_OUTPUT_BYTES, CLARITY_TM_OUTPUT_RECORDS,
    CLARITY_TM_SR_REMOTE_BLOCKS, CLARITY_TM_SR_LOCAL_BLOCKS, CLARITY_TM_SR_FETCH_WAIT_MS,
    CLARITY_TM_SR_REMOTE_BYTES, CLARITY_TM_SR_REMOTE_BYTES_TO_DISK, CLARITY_TM_SR_LOCAL_BYTES,
    CLARITY_TM_SR_RECORDS, CLARITY_TM_SR_REMOTE_REQS_MS,
    CLARITY_TM_SP_CORRUPT_MERGED_CHUNKS, CLARITY_TM_SP_MERGED_FALLBACK,
    CLARITY_TM_SP_REMOTE_MERGED_BLOCKS, CLARITY_TM_SP_LOCAL_MERGED_BLOCKS,
    CLARITY_TM_SP_REMOTE_MERGED_CHUNKS, CLARITY_TM_SP_LOCAL_MERGED_CHUNKS,
    CLARITY_TM_SP_REMOTE_MERGED_BYTES, CLARITY_TM_SP_LOCAL_MERGED_BYTES,
    CLARITY_TM_SP_REMOTE_MERGED_REQS_MS,
    CLARITY_TM_SW_BYTES, CLARITY_TM_SW_TIME_NS, CLARITY_TM_SW_RECORDS,
    CLARITY_TM_COUNT
};
const char *clarity_tm_name(enum clarity_tm m);   /* SHS REST name, e.g. "executorRunTime" */

enum clarity_locality { CLARITY_LOC_PROCESS_LOCAL, CLARITY_LOC_NODE_LOCAL, CLARITY_LOC_NO_PREF,
                        CLARITY_LOC_RACK_LOCAL, CLARITY_LOC_ANY, CLARITY_LOC_UNKNOWN };
const char *clarity_locality_name(int loc);

/* How a task attempt ended (Task End Reason); RUNNING when no TaskEnd was seen. */
enum clarity_task_end {
    CLARITY_END_RUNNING = 0, CLARITY_END_SUCCESS, CLARITY_END_RESUBMITTED, CLARITY_END_TASK_RESULT_LOST,
    CLARITY_END_UNKNOWN_REASON, CLARITY_END_FETCH_FAILED, CLARITY_END_EXCEPTION,
    CLARITY_END_KILLED, CLARITY_END_COMMIT_DENIED, CLARITY_END_EXECUTOR_LOST, CLARITY_END_OTHER
};

/* Task flags (bit set in the flags column). */
enum {
    CLARITY_TF_SPECULATIVE = 1, CLARITY_TF_FAILED = 2, CLARITY_TF_KILLED = 4,
    CLARITY_TF_HAS_METRICS = 8, CLARITY_TF_RESULT_TASK = 16, CLARITY_TF_ENDED = 32,
    CLARITY_TF_GOT_START = 64,
};

/* Why a task attempt did not succeed: its "Task End Reason" decoded (Spark's TaskEndReason).
 * Only attempts that ended with another reason than Success have one, so the table is sparse
 * (no per-task column). Strings are string-table ids, 0 when not logged or empty; the
 * CLARITY_TER_* bits in `logged` tell the two apart where Spark's text differs. */
enum {
    CLARITY_TER_BLOCK_MANAGER = 1,           /* FetchFailed: "Block Manager Address" was an object */
    CLARITY_TER_KILL_REASON = 2,             /* TaskKilled: "Kill Reason" was logged */
    CLARITY_TER_EXECUTOR = 4,                /* ExecutorLostFailure: "Executor ID" was logged */
    CLARITY_TER_LOSS_REASON = 8,             /* ExecutorLostFailure: "Loss Reason" was logged */
};
struct clarity_stack_frame {                 /* a StackTraceElement */
    uint32_t declaring_class, method, file;  /* string ids */
    int32_t line;                            /* -1 unknown, -2 native method */
    bool has_file;                           /* "File Name" was logged (else: unknown source) */
};
struct clarity_task_end_reason {
    uint32_t row;                            /* task row */
    uint8_t kind;                            /* enum clarity_task_end: never RUNNING or SUCCESS */
    uint8_t logged;                          /* CLARITY_TER_* bits */
    union {
        struct {                             /* CLARITY_END_EXCEPTION */
            uint32_t class_name, description;
            uint32_t full_trace;             /* "Full Stack Trace" (Spark 1.2+), 0 when empty */
            uint32_t nframes;
            const struct clarity_stack_frame *frames;   /* "Stack Trace", arena-owned */
        } exception;
        struct {                             /* CLARITY_END_FETCH_FAILED */
            uint32_t executor, host, message;
            int64_t port, shuffle_id, map_id, reduce_id;   /* 0 when not logged */
            int64_t map_index;               /* -1 when not logged (Spark < 3.0) */
        } fetch;
        struct { uint32_t reason; } killed;  /* CLARITY_END_KILLED */
        struct { int64_t job_id, partition, attempt; } commit_denied;   /* -1 when not logged */
        struct {                             /* CLARITY_END_EXECUTOR_LOST */
            uint32_t executor, loss_reason;
            bool exit_caused_by_app;         /* true when not logged */
        } executor_lost;
    } u;
};

/* One row per task attempt, column-wise. Use the accessors below. */
struct clarity_tasks {
    size_t n, cap;
    struct clarity_icol task_id, stage, index, attempt, partition; /* stage = row in stages[] */
    struct clarity_icol launch_rel;     /* launch ms - model time_base */
    struct clarity_icol duration;       /* finish - launch ms; 0 while running */
    struct clarity_icol getting_result; /* getting-result ms - launch ms; 0 if never fetched */
    struct clarity_icol executor, host; /* ids in the string table */
    struct clarity_icol locality, end, flags;
    struct clarity_icol m[CLARITY_TM_COUNT];
};

struct clarity_kv { uint32_t k, v; };        /* string-table ids */
struct clarity_kvs { struct clarity_kv *p; size_t n; };
struct clarity_metric_peak { uint32_t name; int64_t value; };
struct clarity_peaks { struct clarity_metric_peak *p; size_t n, cap; };

struct clarity_accum {                       /* accumulable value as logged */
    int64_t id;
    uint32_t name;                           /* string id */
    uint32_t owner;                          /* task row or stage row */
    int64_t update, value;                   /* parsed as int64 (SQL metrics are strings) */
    uint32_t update_str, value_str;          /* the text as logged (string ids), only when it is
                                                not a plain integer: use clarity_accum_text() */
    bool has_update, internal, count_failed, is_sql;
};
struct clarity_accums { struct clarity_accum *p; size_t n, cap; };

/* A resource an executor was given (ResourceInformation), e.g. gpu with addresses "0", "1". */
struct clarity_resource_info {
    uint32_t key, name;                      /* map key; "name" (the key when not logged or "") */
    uint32_t *addresses; size_t naddresses;  /* string ids, arena-owned */
};

struct clarity_executor {
    uint32_t id, host;                       /* string ids */
    int32_t port;                            /* from BlockManagerAdded, -1 unknown */
    int32_t total_cores;
    int64_t add_ms, remove_ms;               /* 0 = unknown / still alive */
    uint32_t remove_reason;
    int64_t max_memory, max_onheap, max_offheap; /* -1 unknown */
    int32_t resource_profile_id;
    bool excluded, seen_added, is_driver;
    struct clarity_kvs log_urls, attributes;
    struct clarity_resource_info *resources; size_t nresources; /* "Resources", logged order */
    bool has_resources;                      /* "Resources" was logged (possibly empty) */
    int64_t *excluded_stages; size_t nexcluded_stages, cap_excluded_stages;
    struct clarity_peaks peaks;              /* peak executor metrics */
    /* storage use from block updates while the executor lived (0 without them) */
    int64_t rdd_blocks, mem_used, disk_used, used_on_heap, used_off_heap;
};

enum clarity_job_status { CLARITY_JOB_RUNNING, CLARITY_JOB_SUCCEEDED, CLARITY_JOB_FAILED, CLARITY_JOB_UNKNOWN };

struct clarity_job {
    int64_t job_id;
    int64_t submit_ms, end_ms;               /* end 0 = no JobEnd */
    int status;                              /* enum clarity_job_status */
    uint32_t failure;                        /* exception message */
    int64_t *stage_ids; size_t nstage_ids;
    int64_t sql_id;                          /* spark.sql.execution.id, -1 none */
    uint32_t group, description, pool, call_site, tags_text; /* string ids */
    uint32_t name;                           /* SHS job name: last stage's name in Stage Infos */
    int64_t num_tasks_declared;              /* sum over Stage Infos */
};

enum clarity_stage_status { CLARITY_STAGE_PENDING, CLARITY_STAGE_ACTIVE, CLARITY_STAGE_COMPLETE,
                            CLARITY_STAGE_FAILED, CLARITY_STAGE_SKIPPED };
const char *clarity_stage_status_name(int s);  /* "COMPLETE", ... as SHS */

struct clarity_rdd {
    int64_t rdd_id;
    uint32_t name, scope, call_site, storage_level;
    int64_t *parents; size_t nparents;
    int64_t num_partitions, num_cached_partitions, mem_size, disk_size;
    bool barrier;
};

/* A cached RDD as the History Server tracks it (AppStatusListener's LiveRDD): registered when a
 * submitted stage names it with a valid storage level, filled by SparkListenerBlockUpdated
 * events (logged only with spark.eventLog.logBlockUpdates.enabled), dropped by UnpersistRDD. */
struct clarity_rdd_part {                    /* one cached block: "rdd_<id>_<split>" */
    uint32_t block;                          /* string id */
    int64_t mem, disk;
    int64_t *execs; size_t nexecs, cap_execs; /* executors holding it (string ids), in order */
    bool gone;                               /* stored nowhere any more: not listed */
};
struct clarity_rdd_dist {                    /* the RDD's use of one executor */
    uint32_t exec;                           /* string id */
    int64_t mem, disk, on_heap, off_heap;
    /* what the executor had left when the listener last wrote the RDD (it caches this view
     * until a block update on that executor invalidates it) */
    int64_t mem_remaining, on_heap_remaining, off_heap_remaining;
    bool stale;                              /* invalidated since: taken afresh at the next write */
    bool gone;
};
struct clarity_rdd_storage {
    int64_t rdd_id;
    uint32_t name, level;                    /* level: StorageLevel.description, string id */
    int64_t num_partitions;
    bool use_off_heap, deserialized;
    bool unpersisted;                        /* not listed */
    int64_t mem, disk;
    struct clarity_rdd_part *parts; size_t nparts, cap_parts, nlive_parts;
    struct clarity_rdd_dist *dists; size_t ndists, cap_dists;
    struct clarity_idmap part_by_block;      /* block string id -> latest entry in parts */
};

/* What few stage attempts have, kept apart from the stage row (clarity_stage.rare): per-stage
 * peak executor metrics (SparkListenerStageExecutorMetrics, logged only with
 * spark.eventLog.logStageExecutorMetrics) and the executors excluded for the attempt while it
 * ran. */
struct clarity_stage_rare {
    struct clarity_peaks peaks;              /* per-stage peak executor metrics (any executor) */
    struct clarity_stage_exec_peaks { uint32_t executor; struct clarity_peaks peaks; } *exec_peaks;
    size_t nexec_peaks, cap_exec_peaks;
    /* executors (string ids) excluded for this attempt while it ran, by an executor or a node
     * exclusion event, in event order */
    int64_t *excluded_execs;
    size_t nexcluded_execs, cap_excluded_execs;
};

struct clarity_stage {                       /* one stage attempt */
    /* Fields are grouped by use, not by meaning: what lookups and the passes over every stage
     * (finishing the model, skipped stages, job totals) read sits in the first 64 bytes, and
     * what most attempts never have is behind one pointer (rare), so a row is 144 bytes (208
     * before; two per job on logs of many small jobs, written once into fresh pages) and a
     * pass over 10^6 stages touches one cache line of each. */
    int64_t stage_id; int32_t attempt;
    int status;                              /* enum clarity_stage_status */
    int64_t num_tasks;
    size_t task_ends;                        /* TaskEnds seen for this attempt */
    int64_t *job_ids; size_t njob_ids;       /* in the model's arena */
    bool seen_submitted, seen_completed;
    bool shuffle_push_enabled;
    int32_t resource_profile_id;
    int32_t shuffle_mergers;
    /* second line */
    int64_t submit_ms, complete_ms;          /* 0 = not logged */
    /* peaks and exclusions: NULL when the log gave the attempt none (malloc'd); read through
     * clarity_stage_rare_of() */
    struct clarity_stage_rare *rare;
    size_t cap_job_ids;
    uint32_t name, details, failure, pool;   /* string ids */
    int64_t *parents; size_t nparents;
    int64_t *rdd_ids; size_t nrdd_ids;
};

/* A stage attempt's peaks and exclusions, empty ones when it has none. */
static inline const struct clarity_stage_rare *clarity_stage_rare_of(const struct clarity_stage *s)
{
    static const struct clarity_stage_rare none;
    return s->rare ? s->rare : &none;
}

/* A value the driver gave an SQL metric (SparkListenerDriverAccumUpdates): a broadcast's data
 * size, a scan's file count, a subquery's time. */
struct clarity_driver_accum { int64_t accum_id, value; };

/* An execution's plan graph as the History Server's SparkPlanGraph builds it from the last
 * plan logged (start or adaptive update): WholeStageCodegen clusters and their members,
 * InputAdapter and query stages skipped, reused exchanges and subqueries pointing at the node
 * they reuse. Built only with the load option sql_plan_graphs. */
struct clarity_sql_gnode {
    int64_t id;                              /* SparkPlanGraph's node id (depth-first order) */
    uint32_t name;                           /* nodeName as logged (string id) */
    int32_t cluster;                         /* index in nodes of its WholeStageCodegen, -1 none */
    uint32_t first_metric, nmetrics;         /* its metrics in the graph's metrics, logged order */
};
struct clarity_sql_gmetric { int64_t accum_id; uint32_t name, type; };   /* string ids */
struct clarity_sql_gedge { int64_t from, to; };                          /* child -> parent */
/* One metric's values over the execution, as the History Server's SQL listener aggregates
 * them when the execution ends (or when replay ends, for one still running): per stage the
 * last attempt's value of each task index (0 for an index without one), then the driver's
 * values. kind: CLARITY_SQLM_*. For sum, total is the sum of every value; for the others the
 * figures are over the valid values (>= 0; > 0 for average): n of them, their sum, min, upper
 * median (sorted[n/2]) and max, and where the largest task value came from (has_max false:
 * none, or the driver's value was larger). */
enum { CLARITY_SQLM_SUM, CLARITY_SQLM_SIZE, CLARITY_SQLM_TIMING, CLARITY_SQLM_NS_TIMING, CLARITY_SQLM_AVERAGE,
       CLARITY_SQLM_CUSTOM, CLARITY_SQLM_UNKNOWN };
struct clarity_sql_value {
    int64_t accum_id;
    int64_t n, total, min, med, max;
    int64_t max_stage, max_attempt, max_task;
    uint8_t kind;
    bool has_max;
};
struct clarity_sql_graph {
    struct clarity_sql_gnode *nodes; size_t nnodes;     /* arena-owned, by id */
    struct clarity_sql_gmetric *metrics; size_t nmetrics;
    struct clarity_sql_gedge *edges; size_t nedges;     /* in the order SparkPlanGraph adds them */
    struct clarity_sql_value *values; size_t nvalues;   /* sorted by accum_id; malloc'd */
    int64_t *jobs; size_t njobs;             /* the execution's jobs in the listener's map order
                                                (insertion order up to 4, Scala 2.12's hash order
                                                beyond); malloc'd */
    uint8_t *job_status;                     /* per jobs[i]: 0 running, 1 succeeded, 2 failed */
};

struct clarity_sql {
    int64_t id, root_id;
    uint32_t description, details, plan;     /* plan = physicalPlanDescription (last AQE wins) */
    int64_t start_ms, end_ms;
    uint32_t error;
    bool started;                            /* a SQLExecutionStart was read */
    bool error_logged;                       /* "errorMessage" was logged (Spark 3.4+), "" meaning
                                                it succeeded */
    int64_t *job_ids; size_t njob_ids, cap_job_ids;
    struct clarity_sql_metric { int64_t accum_id; uint32_t name, type, node; } *metrics;
    size_t nmetrics, cap_metrics;
    /* The last logged plan tree (sparkPlanInfo; an AQE update replaces it), depth first: a
     * node's subtree is nodes[i .. end). Kept as shapes, not text, so repeated subtrees can be
     * found (findings' repeated_work) for 32 bytes a node; none on logs without SQL plans. */
    struct clarity_plan_node {
        uint64_t shape;                      /* hash of the subtree's node names and simpleStrings
                                                with expression, plan, codegen and query-stage ids
                                                left out (they differ between two copies) */
        uint32_t name;                       /* nodeName (string id) */
        uint32_t end;                        /* one past its subtree's last node */
        uint32_t metric0, nmetric;           /* its metrics: metrics[metric0 .. +nmetric) */
        uint32_t depth, pad;
    } *nodes;
    size_t nnodes, cap_nodes;
    /* every driver-side metric value logged for it, in log order (no allocation without
     * them): read with clarity_sql_driver_accums(), or the last value of one id with
     * clarity_sql_driver_value() */
    struct clarity_driver_accum *driver_accums; size_t ndriver_accums, cap_driver_accums;
    struct clarity_sql_graph *graph;         /* load option sql_plan_graphs, else NULL */
};
/* A driver-side SQL metric's value (clarity_sql.driver_accums); false when not logged. */
bool clarity_sql_driver_value(const struct clarity_sql *q, int64_t accum_id, int64_t *value);

/* The driver-side SQL metric values of an execution (SparkListenerDriverAccumUpdates), in log
 * order: (accumulator id, value) pairs, several for one id when the driver updated it again. */
static inline const struct clarity_driver_accum *clarity_sql_driver_accums(const struct clarity_sql *q, size_t *n)
{
    *n = q->ndriver_accums;
    return q->driver_accums;
}

struct clarity_misc_process {
    uint32_t id, host_port; int32_t cores; int64_t add_ms; bool active;
    struct clarity_kvs logs;                 /* "processLogs" */
    bool has_logs;                           /* "processLogs" was logged (possibly empty) */
};

/* A resource profile's requests (ExecutorResourceRequest / TaskResourceRequest), logged order. */
struct clarity_exec_request {
    uint32_t key, name;                      /* map key; "Resource Name" (the key when not logged) */
    int64_t amount;                          /* 0 when not logged */
    uint32_t discovery_script, vendor;
};
struct clarity_task_request {
    uint32_t key, name;
    double amount;                           /* may be fractional (0.5 GPU); 0 when not logged */
};
struct clarity_resource_profile {
    int32_t id;
    bool has_exec_requests, has_task_requests;  /* the maps were logged (possibly empty) */
    struct clarity_exec_request *exec_requests; size_t nexec_requests;  /* arena-owned */
    struct clarity_task_request *task_requests; size_t ntask_requests;
};

/* What was wrong with the input, so every analysis can say how far to trust it. */
struct clarity_problem { uint32_t file; uint64_t line, offset; uint32_t msg; };
struct clarity_integrity {
    uint64_t lines, bytes, events, events_unknown, lines_malformed, lines_blank, lines_too_long;
    struct clarity_problem *problems; size_t nproblems, cap_problems; /* first ones kept */
    size_t problems_total;
    struct clarity_kv *unknown_events; size_t nunknown_events, cap_unknown_events; /* name -> count id */
    uint64_t *unknown_counts;
    /* keys of task events that no Spark version documented here writes, e.g.
     * "Task Info.Foo": counted, never fatal (a vendor build, or a newer Spark) */
    uint64_t fields_unknown;
    struct clarity_kv *unknown_fields; size_t nunknown_fields, cap_unknown_fields;
    uint64_t *unknown_field_counts;
    /* distinct unknown event / field names past the first 100 listed above: counted in
     * events_unknown / fields_unknown, not listed */
    uint64_t unknown_events_unlisted, unknown_fields_unlisted;
    bool truncated;                          /* a file ended mid-block/frame or mid-line */
    uint32_t truncation_why;
    bool in_progress, no_app_end, compacted;
    size_t compact_dropped_files;
    uint64_t task_end_without_start, task_start_without_end;
    uint64_t stages_without_end, jobs_without_end, sql_without_end;
    uint64_t dropped_task_ends;              /* sum over complete stages of numTasks - ends seen, >0 */
    bool no_task_events;                     /* stages ran but the log has no task events at all
                                                (stage-level logs): not counted as dropped */
    size_t stages_missing_task_ends;
    uint64_t negative_durations, cpu_exceeds_run, sw_time_suspect_units;
    uint64_t duplicate_task_ends;
    uint64_t rolling_parts_missing, rolling_first_missing; /* rolling events_<N> files absent */
    /* values no Spark writes (a stage attempt beyond a Java int) or times whose differences
     * overflow 64 bits: the value is clamped, or the duration taken as unknown (0) */
    uint64_t values_out_of_range;
    /* SparkListenerApplicationStart events read: more than one means two runs (or a log
     * appended to another) in one file; the last one's name, id and start are kept, as the
     * History Server keeps them */
    uint64_t app_starts;
    /* With the load option app_events_only: TaskStart and TaskEnd lines passed over without
     * being parsed (what a listing counts to tell how large the whole model would be) */
    uint64_t task_starts_skipped, task_ends_skipped;
};

/* ---- platform and storage (filled once after load from the log's own evidence) ---- */
/* Where paths point: a URI scheme. dbfs is Databricks' file system over an object store. */
enum clarity_scheme {
    CLARITY_SCHEME_FILE, CLARITY_SCHEME_HDFS, CLARITY_SCHEME_S3, CLARITY_SCHEME_GS, CLARITY_SCHEME_ABFS,
    CLARITY_SCHEME_WASB, CLARITY_SCHEME_DBFS, CLARITY_SCHEME_OSS, CLARITY_SCHEME_OTHER, CLARITY_SCHEME_COUNT
};
const char *clarity_scheme_name(int s);        /* "file", "hdfs", "s3", "gs", "abfs", ... */
/* True for the schemes served by a remote object store (s3, s3a, s3n, gs, abfs(s), wasb(s),
 * dbfs, oss): reads and writes cross the network, not the hosts' disks. */
bool clarity_scheme_is_object_store(int s);
/* The scheme a path starts with (s3a:// counts as s3, abfss as abfs, wasbs as wasb), or -1
 * when it names none (a bare path): the caller decides, since only it knows the default. */
int clarity_scheme_of(const char *path, size_t len);

enum clarity_cluster_manager { CLARITY_CM_UNKNOWN, CLARITY_CM_LOCAL, CLARITY_CM_STANDALONE, CLARITY_CM_YARN,
                               CLARITY_CM_KUBERNETES, CLARITY_CM_MESOS };
const char *clarity_cluster_manager_name(int m);   /* "unknown", "local", "standalone", "YARN", ... */
enum clarity_vendor { CLARITY_VENDOR_NONE, CLARITY_VENDOR_DATABRICKS, CLARITY_VENDOR_EMR, CLARITY_VENDOR_DATAPROC };
const char *clarity_vendor_name(int v);            /* "", "Databricks", "EMR", "Dataproc" */

/* Where input came from / output went, decided from the path counts. */
enum clarity_storage_kind { CLARITY_STORE_UNKNOWN, CLARITY_STORE_HOST, CLARITY_STORE_OBJECT, CLARITY_STORE_MIXED };
const char *clarity_store_name(int s);             /* "unknown", "host", "object_store", "mixed" */

/* Photon (Databricks' native engine) keeps shuffle, spill and I/O wait in its SQL plan
 * metrics, not in task metrics: these are their totals (the final value of each accumulator,
 * summed), with has[] false when no plan of the log defines the metric. */
enum clarity_photon_metric {
    CLARITY_PH_SCAN_IO_WAIT_NS, CLARITY_PH_SCAN_CLOUD_BYTES, CLARITY_PH_SCAN_CACHE_HIT_BYTES,
    CLARITY_PH_SHUFFLE_WRITE_BYTES, CLARITY_PH_SHUFFLE_WRITE_NS, CLARITY_PH_SHUFFLE_REMOTE_BYTES,
    CLARITY_PH_SHUFFLE_LOCAL_BYTES, CLARITY_PH_FETCH_WAIT_MS, CLARITY_PH_SPILL_BYTES, CLARITY_PH_COUNT
};
const char *clarity_photon_metric_name(int m);     /* JSON key: "scan_io_wait_ns", ... */

struct clarity_platform {
    int manager, vendor;                     /* enum clarity_cluster_manager, enum clarity_vendor */
    char runtime[24];                        /* vendor release ("13.3", "2.2"), "" when not logged */
    char arch[16], cloud[16];                /* "aarch64", "AWS": "" when not logged */
    bool photon;                             /* Photon runtime or Photon plan nodes */
    char evidence[96];                       /* the property (or other evidence) the vendor came from */
    char manager_evidence[64];               /* e.g. "spark.master=yarn" */
    uint32_t input[CLARITY_SCHEME_COUNT];    /* paths read per scheme: SQL scan locations, RDD names */
    uint32_t output[CLARITY_SCHEME_COUNT];   /* paths written per scheme: SQL write commands */
    int default_fs;                          /* scheme of fs.defaultFS, -1 when not logged */
    int input_store, output_store;           /* enum clarity_storage_kind */
    int input_scheme, output_scheme;         /* the most used scheme, -1 none */
    int64_t photon_v[CLARITY_PH_COUNT];
    bool photon_has[CLARITY_PH_COUNT];
};

struct clarity_app {
    struct clarity_arena arena;
    struct clarity_strtab strs;
    const char *source_path;                 /* arena copy */
    uint32_t app_id, attempt_id, name, user, spark_version;
    int64_t start_ms, end_ms;                /* end 0 = no ApplicationEnd */
    int64_t time_base;                       /* task launch times are stored relative to it */
    struct clarity_kvs driver_logs, jvm, spark_props, hadoop_props, system_props,
        metrics_props, classpath;
    bool have_env;
    /* some task's peak execution memory came from the internal accumulable
     * "internal.metrics.peakExecutionMemory" (Spark 1.x-2.x, whose Task Metrics lack "Peak
     * Execution Memory"): analyses use the value; the History Server shows 0 for such logs */
    bool peak_exec_mem_from_accums;
    /* load option task_fold: the tasks handed to it, and the events of tasks already handed
     * over that were not applied (a whole load would have changed their rows) */
    uint64_t tasks_folded, tasks_refolded;
    /* What a caller built from the folded rows, freed with the model by fold_result_free. */
    void *fold_result;
    void (*fold_result_free)(void *);

    struct clarity_executor *execs; size_t nexecs, cap_execs;
    struct clarity_job *jobs; size_t njobs, cap_jobs;
    struct clarity_stage *stages; size_t nstages, cap_stages;
    struct clarity_sql *sqls; size_t nsqls, cap_sqls;
    struct clarity_rdd *rdds; size_t nrdds, cap_rdds;
    struct clarity_misc_process *misc; size_t nmisc, cap_misc;
    struct clarity_rdd_storage *cached; size_t ncached, cap_cached; /* by registration */
    struct clarity_idmap cached_by_id;
    struct clarity_resource_profile *profiles; size_t nprofiles, cap_profiles;
    struct clarity_tasks tasks;
    struct clarity_accums task_accums, stage_accums;
    /* Why attempts that did not succeed ended, sorted by task row (use clarity_task_end_reason). */
    struct clarity_task_end_reason *task_reasons;
    size_t ntask_reasons, cap_task_reasons;

    bool tasks_sorted_by_id;                 /* set when loading ends */
    struct clarity_idmap task_by_id;         /* only while loading: task ids off the dense range */
    uint32_t *task_dense;                    /* only while loading: row+1 by task id (ids are dense) */
    size_t task_dense_cap;
    struct clarity_idmap job_by_id, stage_by_key, exec_by_name, sql_by_id, rdd_by_id;
    struct clarity_integrity integrity;
    struct clarity_platform platform;        /* filled once loading ends */
    unsigned released;                       /* enum clarity_app_part: given back (clarity_app_release) */
};

static inline const char *clarity_app_str(const struct clarity_app *a, uint32_t id)
{
    return clarity_strtab_get(&a->strs, id);
}
/* Task accessors. */
static inline int64_t clarity_task_get(const struct clarity_app *a, const struct clarity_icol *c, size_t i)
{ (void)a; return clarity_icol_get(c, i); }
static inline int64_t clarity_task_metric(const struct clarity_app *a, size_t i, enum clarity_tm m)
{ return clarity_icol_get(&a->tasks.m[m], i); }
static inline int64_t clarity_task_launch_ms(const struct clarity_app *a, size_t i)
{ return a->time_base + clarity_icol_get(&a->tasks.launch_rel, i); }
/* launch + duration, saturating: a damaged log can hold int64-extreme durations (the integrity
 * report flags them as out of range), and a wrapped sum would be undefined behaviour */
static inline int64_t clarity_task_finish_ms(const struct clarity_app *a, size_t i)
{ int64_t d = clarity_icol_get(&a->tasks.duration, i), f;
  if (!(clarity_icol_get(&a->tasks.flags, i) & CLARITY_TF_ENDED)) return 0;
  return __builtin_add_overflow(clarity_task_launch_ms(a, i), d, &f) ? (d < 0 ? INT64_MIN : INT64_MAX) : f; }
static inline int64_t clarity_task_flags(const struct clarity_app *a, size_t i)
{ return clarity_icol_get(&a->tasks.flags, i); }

/* The end reason of a task row, NULL when it has none (succeeded, still running). */
const struct clarity_task_end_reason *clarity_task_end_reason(const struct clarity_app *a, size_t row);

/* An accumulable's update (or value) as the log wrote it; buf holds at least 24 bytes. */
const char *clarity_accum_text(const struct clarity_app *a, const struct clarity_accum *x, bool update,
                               char *buf, size_t cap);

/* Lookups; return NULL / -1 when absent. */
struct clarity_stage *clarity_app_stage(const struct clarity_app *a, int64_t stage_id, int32_t attempt);
struct clarity_job *clarity_app_job(const struct clarity_app *a, int64_t job_id);
struct clarity_executor *clarity_app_executor(const struct clarity_app *a, const char *id);
struct clarity_sql *clarity_app_sql(const struct clarity_app *a, int64_t sql_id);
long clarity_app_task_row(const struct clarity_app *a, int64_t task_id);

/* Bytes the model holds for its task table (for the bytes-per-task report). */
size_t clarity_app_task_bytes(const struct clarity_app *a);
/* Bytes held for task and stage accumulables (kept apart: analyses rarely need them). */
size_t clarity_app_accumulable_bytes(const struct clarity_app *a);

struct clarity_load_options {
    bool keep_task_accumulables;             /* default true */
    /* With keep_task_accumulables: keep only the task accumulables the History Server shows
     * with a task (neither internal nor SQL metrics). Spark 3+ TaskEnds whose accumulables
     * are all internal then skip them before parsing, as when none are kept; typical logs
     * have no others, so this costs what a load without accumulables costs. */
    bool user_task_accumulables_only;
    /* With keep_task_accumulables false: the task accumulables named here are kept after all
     * (ntask_accumulable_names names, compared as C strings with the logged Name; a missing
     * or non-string Name counts as ""). For an analysis that reads a few of them: a lean load
     * keeps its speed and memory, the rest being dropped. */
    const char *const *task_accumulable_names;
    size_t ntask_accumulable_names;
    bool skip_task_executor_metrics;         /* TaskEnd "Task Executor Metrics" (executor peaks) */
    /* Build each SQL execution's plan graph and replay its metric values as the History
     * Server's SQL listener does (clarity_sql.graph): reads every TaskEnd's accumulables
     * without keeping them, so task events are decoded on the applying thread. */
    bool sql_plan_graphs;
    /* Only what an application listing shows: the ids, name, user, start, end, Spark version
     * and environment (LogStart, ApplicationStart/End, EnvironmentUpdate, Databricks'
     * metadata). Once the first event has parsed (so a file that is no event log still
     * fails as in a whole load), a line whose first key names any other event ("Event" is
     * the first key Spark writes) is passed over unparsed; task lines are only counted
     * (integrity.task_*_skipped). The model then holds no jobs, stages, tasks or executors,
     * and reading costs the decompression and line splitting. */
    bool app_events_only;
    /* Keep the task rows of one stage id only (every attempt of it): a server answering that
     * stage's task routes for an application whose whole task table would not fit its memory
     * bound. Tasks of other stages still create their stage and executor rows and set the
     * task time base and the peak-memory source flag as in a whole load, so what the kept
     * rows show is what a whole load shows; integrity counts over tasks then cover the kept
     * rows only. A task belongs to the stage its first event names. Ignored with
     * sql_plan_graphs (the SQL replay needs every task). */
    bool only_stage;
    int64_t only_stage_id;
    /* Keep no task rows at all: every task is treated as only_stage treats another stage's
     * (its stage and executor rows, the time base, the peak-memory source flag and executor
     * peaks as in a whole load). For what shows no task: a server answering an application's
     * environment, storage or attempt within a memory bound. Ignored with sql_plan_graphs. */
    bool no_task_rows;
    /* Fold task rows instead of keeping them: each task's row is handed to task_fold, with its
     * ordinal (1 for the first task the log names, 2 for the next: its row number in a whole
     * load, plus one), once its TaskEnd is applied, and the rows of tasks that never end once
     * the log is read, in ordinal order; then the row is dropped. Only the tasks running at a
     * time are held, so a caller that needs sums over every task (a server's job, stage and
     * executor figures) builds them while the log is read. During the call the row reads as in
     * a whole load, its end reason too (clarity_task_end_reason), and with
     * keep_task_accumulables its accumulables (the last entries of task_accums, owner = the
     * row; dropped with the row). An event naming a task
     * already folded (a duplicate end, a start after the end) is not applied and counted in
     * tasks_refolded: sums built so may then differ from a whole load's. The finished model
     * holds no task row. With sql_plan_graphs the SQL listener's replay still sees every
     * task's end as in a whole load (it reads the events, not the rows). Ignored with
     * only_stage and no_task_rows. Nonzero from task_fold fails the load as out of memory. */
    int (*task_fold)(void *ctx, const struct clarity_app *a, size_t row, uint64_t ordinal);
    void *task_fold_ctx;
    int threads;                             /* 0 = one per core; 1 = no extra thread at all. Callers
                                                that load many applications use it per application */
    bool quiet;
    /* Called about every 64K lines with the decoded bytes and events so far and the size of
     * the file being read (compressed bytes for compressed files); NULL for none. */
    void (*progress)(void *ctx, const char *file, uint64_t bytes, uint64_t events, uint64_t file_bytes);
    void *progress_ctx;
};

/* Reads one application (all its files in order) into a model. Returns CLARITY_OK when at
 * least one event was read (problems go to app->integrity); otherwise an error code with err
 * naming the file, line and byte offset, and *out NULL. */
int clarity_app_load(const struct clarity_app_source *src, const struct clarity_load_options *opt,
                     struct clarity_app **out, struct clarity_error *err);
void clarity_app_free(struct clarity_app *a);
/* Parts of a model an analysis can give back once it has read them. */
enum clarity_app_part {
    CLARITY_APP_JOBS = 1u << 0,          /* jobs[] */
    CLARITY_APP_SQLS = 1u << 1,          /* sqls[], their heap metrics and plan graphs */
    CLARITY_APP_RDDS = 1u << 2,          /* rdds[], cached[] */
    CLARITY_APP_ACCUMS = 1u << 3,        /* task_accums, stage_accums */
    CLARITY_APP_TASK_REASONS = 1u << 4,  /* task_reasons[] */
    CLARITY_APP_TASKS = 1u << 5,         /* the task table's columns (tasks.n stays) */
    CLARITY_APP_STAGES = 1u << 6,        /* stages[] and their rare parts */
};
/* Frees the parts named in parts (a mask of enum clarity_app_part) and adds them to
 * a->released. Their arrays become NULL and their counts stay, so code that still reads one
 * faults at once rather than reading freed memory; the lookups by id (clarity_app_job, ...)
 * must not be used for a released part. The rest of the model and clarity_app_free are
 * unaffected. */
void clarity_app_release(struct clarity_app *a, unsigned parts);
/* ---- continuing a load of a log that grew ----
 * An append-only log (an .inprogress file being written) read again from where the last read
 * stopped, into the same model. clarity_app_load_resumable loads as clarity_app_load and, when
 * the application is one uncompressed file whose bytes read end with a whole line (and the
 * load has no sql_plan_graphs, whose replay is finished with the model, nor task_fold), or a
 * rolling event-log directory, fills *state; otherwise *state is NULL and a grown log must
 * be loaded again. clarity_app_resume applies the whole lines appended since (a torn last
 * line is left for the next call) and finishes the model again as a load of the grown file
 * finishes it; *read is the bytes it read from the file, *from the offset it read them from.
 * A rolling log is listed again: the parts read must still open it, unchanged but for the
 * last one, which is read on from where the last read stopped when it is uncompressed (a
 * compressed part must not grow: it is read whole once); then the new parts are read (an
 * uncompressed last one so that it can be read on later, the others whole), and *read is
 * the bytes of the grown part read plus the new parts' file sizes. The model must not be in
 * use meanwhile. On an error (the file shrank or was replaced, a part changed or the log was
 * compacted, a part left ending inside a line, a line over 128 MiB, out of memory) the model
 * is left half-continued: free it and the state, and load again. */
struct clarity_app_resume;
int clarity_app_load_resumable(const struct clarity_app_source *src, const struct clarity_load_options *opt,
                               struct clarity_app **out, struct clarity_app_resume **state, struct clarity_error *err);
int clarity_app_resume(struct clarity_app_resume *state, struct clarity_app *a, uint64_t *from, uint64_t *read,
                       struct clarity_error *err);
void clarity_app_resume_free(struct clarity_app_resume *state);
/* What the platform and storage detectors say about a loaded model (the loader stores it in
 * a->platform; exposed for tests and for models built by hand). */
void clarity_platform_detect(const struct clarity_app *a, struct clarity_platform *out);

/* ---- many applications at once ---- */
/* One application of a set: its source and either its model or why it could not be read. */
struct clarity_loaded_app {
    const struct clarity_app_source *src;    /* points into the set's sources */
    struct clarity_app *app;                 /* NULL when loading failed, or once released */
    struct clarity_error err;                /* why, when app is NULL and not released */
    bool released;                           /* loaded, handed to `each` and freed (streaming) */
};
/* Everything some paths name, loaded: the applications in source order (sorted by path, so
 * output does not depend on which load finished first), with every problem kept for the
 * caller to report. */
struct clarity_app_set {
    struct clarity_source_list sources;      /* what the paths resolved to; notes: what was not taken */
    struct clarity_error resolve_err;        /* a named path unreadable, or no log found (code 0: none).
                                                The applications found beside it are still loaded. */
    struct clarity_loaded_app *apps;
    size_t n, nfailed;
};
struct clarity_load_set_options {
    /* For each application. Its progress hook is used only when the paths hold a single
     * application; with many, each is read on one thread (threads = 1) since the
     * applications already keep every core busy. NULL: every field default. */
    const struct clarity_load_options *app;
    int workers;                             /* applications read at once; 0 = one per core */
    /* Called about every 200 ms from the calling thread while many applications load (that
     * thread then only watches), with how many are done, and once more when all are
     * (done == total). NULL for none. */
    void (*progress)(void *ctx, size_t done, size_t total);
    void *progress_ctx;
    /* Streaming, for callers that need one application at a time: when set, every
     * application (loaded or failed) is handed to `each` on the calling thread in source
     * order, as soon as it and every one before it are done, and a loaded model is freed
     * right after the call (apps[i].app is then NULL and apps[i].released true). Workers
     * load at most two applications per worker ahead of the one handed over, so a directory
     * of many applications holds a few models at a time instead of all of them. */
    void (*each)(void *ctx, const struct clarity_app_set *set, size_t i);
    void *each_ctx;
};
/* Resolves paths (clarity_source_resolve) and loads every application found, one worker per
 * core. Returns CLARITY_OK when at least one application loaded; otherwise the error of the
 * first problem (no application found, or every load failed) with err a copy of it. *out is
 * filled in every case and must be freed: problems are reported from it (resolve_err,
 * sources.notes, apps[i].err), since err names only one of them. opt may be NULL. */
int clarity_load_set(const char *const *paths, size_t npaths, const struct clarity_load_set_options *opt,
                     struct clarity_app_set *out, struct clarity_error *err);
void clarity_app_set_free(struct clarity_app_set *s);


/* ---- aggregate ---- */
/* Per-stage, per-job, per-executor and per-SQL totals over task attempts: the figures the
 * summary shows. Every task attempt that ended counts (failed and killed ones too: their time
 * was spent), as Spark's UI sums them. */

struct clarity_totals {
    int64_t tasks, succeeded, failed, killed, running, speculative;
    int64_t task_ms;                 /* sum of task durations (launch to finish) */
    int64_t run_ms, cpu_ns, gc_ms, deser_ms;
    int64_t input_bytes, output_bytes, shuffle_read_bytes, shuffle_remote_bytes, shuffle_write_bytes;
    int64_t fetch_wait_ms, shuffle_write_ns, mem_spilled, disk_spilled;
    bool cpu_logged;                 /* some task had a CPU time (Spark 2.1+) */
};

struct clarity_totals_links;   /* opaque: the stage rows each job's and query's totals sum */

struct clarity_app_totals {
    struct clarity_totals app;
    struct clarity_totals *stage;    /* per row of app->stages; NULL from clarity_totals_compute_lean */
    struct clarity_totals *job;      /* per row of app->jobs; NULL from clarity_totals_compute_lean */
    struct clarity_totals *exec;     /* per row of app->execs */
    struct clarity_totals *sql;      /* per row of app->sqls; NULL from clarity_totals_compute_lean */
    struct clarity_totals_links *links;   /* set by clarity_totals_compute_lean only */
};

int clarity_totals_compute(const struct clarity_app *a, struct clarity_app_totals *t);
/* The same figures without the per-stage, per-job and per-query arrays: a stage's totals are
 * kept packed (its nonzero figures as varints, ~25 bytes for a small job's stage instead of
 * 168) and read with clarity_totals_stage; a job's and a query's are summed from their stages'
 * when asked for (clarity_totals_job, clarity_totals_sql), through an index of ~8 bytes per
 * link instead of 2 x 168 bytes per job kept for the whole report. Why: on logs of 10^5-10^6
 * small jobs every byte of fresh memory costs a page fault (~7 ms per MB on a virtual
 * machine), and `summary` writes each stage's, job's and query's totals once. Same numbers,
 * added in the same order. 0, or -1 when out of memory. */
int clarity_totals_compute_lean(const struct clarity_app *a, struct clarity_app_totals *t);
/* Stage row i's totals, from t->stage when computed, else unpacked. */
void clarity_totals_stage(const struct clarity_app_totals *t, size_t i, struct clarity_totals *out);
/* Job row i's / SQL row i's totals, from t->job / t->sql when computed, else from the links. */
void clarity_totals_job(const struct clarity_app_totals *t, size_t i, struct clarity_totals *out);
void clarity_totals_sql(const struct clarity_app_totals *t, size_t i, struct clarity_totals *out);
void clarity_totals_free(struct clarity_app_totals *t);
void clarity_totals_add_task(struct clarity_totals *t, const struct clarity_app *a, size_t row);

/* Wall-clock span of a stage attempt / job / SQL execution in ms, -1 when unknown. */
int64_t clarity_stage_duration_ms(const struct clarity_app *a, const struct clarity_stage *s);
int64_t clarity_job_duration_ms(const struct clarity_app *a, const struct clarity_job *j);
int64_t clarity_app_duration_ms(const struct clarity_app *a);
/* Last event time seen, for logs without an end (in progress, truncated): the latest job,
 * stage, task or SQL execution event, or executor removal. */
int64_t clarity_app_last_time_ms(const struct clarity_app *a);
/* Local mode (spark.master local, local[N], local[*], no executor but the driver): the cores
 * the driver ran tasks on; 0 when the application is not in local mode or they are unknown. */
int32_t clarity_app_local_cores(const struct clarity_app *a);

#endif
