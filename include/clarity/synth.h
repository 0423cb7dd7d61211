/* clarity synth: a discrete-event model of a Spark cluster that writes the files a real
 * cluster writes (Spark 3.5 event log, executor and driver log4j logs, JVM GC logs) plus the
 * ground truth behind them (truth.json, truth-tasks.jsonl; see docs/synth.md).
 *
 * Everything a run needs is in struct synth_config; a run keeps all its state in one heap
 * object, so runs are independent and the same config and seed give byte-identical files. */
#ifndef CLARITY_SYNTH_H
#define CLARITY_SYNTH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/error.h"

#define SYNTH_MAX_FAULTS 16

enum synth_fault_kind { SYNTH_FAULT_CPU, SYNTH_FAULT_MEMORY, SYNTH_FAULT_DISK, SYNTH_FAULT_NETWORK };
const char *clarity_synth_fault_kind_name(int kind);   /* "cpu-hog", "memory-hog", "disk-hog", "network" */

/* One injected interference, as LADRA injected them: a kind, on one host, over a window. */
struct synth_fault {
    int kind;              /* enum synth_fault_kind */
    int host;              /* 1-based: host3 is 3 */
    double start_s, end_s; /* seconds after the application starts; end < 0 = until the end */
    double intensity;      /* 0 < x < 1; meaning per kind in docs/synth.md */
};
/* "cpu-hog@host3:60s-180s:0.8", "network@host2:0.3", "disk-hog@host1:2m-5m" (intensity 0.5
 * when omitted, whole run when the window is omitted). */
int clarity_synth_fault_parse(const char *spec, struct synth_fault *f, struct clarity_error *err);

enum synth_codec { SYNTH_CODEC_PLAIN, SYNTH_CODEC_ZSTD, SYNTH_CODEC_LZ4 };
enum synth_gc_format { SYNTH_GC_JDK8_PARALLEL, SYNTH_GC_UNIFIED_G1 };

struct synth_config {
    char scenario[32];
    char app_name[64];
    uint64_t seed;
    int64_t start_ms;              /* epoch ms of SparkListenerApplicationStart */
    /* cluster */
    int hosts, cores, disks;       /* per host: cores, disks */
    double host_memory;            /* bytes */
    double disk_bw, nic_bw;        /* bytes/s per disk, per NIC */
    int executors_per_host, executor_cores;
    double executor_heap;          /* bytes */
    /* scheduler */
    bool fair;                     /* spark.scheduler.mode FAIR, queries spread over pools */
    double locality_wait_s;        /* spark.locality.wait */
    bool dynalloc;                 /* spark.dynamicAllocation.enabled */
    int dyn_min, dyn_max;          /* executors */
    bool speculation;
    double spec_multiplier, spec_quantile;
    double failure_rate;           /* probability that a task attempt throws */
    /* workload */
    double data_bytes, split_bytes; /* input size; input split (HDFS block) size */
    int partitions;                /* shuffle partitions (0 = as many as map tasks, or 200 for SQL) */
    int queries, iterations;
    double skew;                   /* sigma of the log-normal per-partition size factor */
    double arrival_s;              /* mean seconds between query arrivals (tpcds-mix) */
    double cpu_scale;              /* multiplies every task's CPU work */
    /* injected problems (docs/synth.md "Injected problems"; each is recorded in truth.json's
     * "findings"). 0 = off: the run is then byte-identical to one without the knob. */
    double skew_key;               /* share of the heaviest shuffle stage's data on one partition */
    double driver_gap_s;           /* driver-side time before each job, no task running */
    double gc_pressure;            /* multiplies every stage's allocation per CPU-second */
    int idle_executors;            /* hosts (one executor each) beyond what --hosts asks, idle */
    struct synth_kill { char executor[16]; double at_s; } kill[4];   /* executors lost mid-run */
    int nkill;
    bool heap_derived;             /* set by the run: executor heap from host memory, not given */
    char aggressive[128];          /* tpcds-mix: comma-separated query names made heavier */
    double aggressive_scale;       /* their data and CPU multiplier (default 4) */
    char omit[128];                /* tpcds-mix: comma-separated query names left out; the
                                      others keep their arrival times (source elimination) */
    /* tpcds-mix scheduler overrides, as iQCAR's rules ask (AGG: a query alone in a FAIR pool;
     * DYNP: a query's priority raised; the paper's section 6.3) */
    char pool_query[32];           /* this query gets a dedicated FAIR pool ("" none) */
    double pool_share;             /* ... whose weight is this fraction of the total weight */
    struct synth_priority { char query[32]; double value; } priority[8];  /* default 1 */
    int npriority;
    /* JVM */
    int gc_format;                 /* enum synth_gc_format */
    /* faults */
    struct synth_fault faults[SYNTH_MAX_FAULTS];
    int nfaults;
    /* output */
    int codec;                     /* enum synth_codec */
    bool logs;                     /* executor, driver and GC logs */
    bool truth_tasks;              /* truth-tasks.jsonl */
    bool instrument;               /* iqcar.* task accumulables (instrumented waits) */
    /* draws keyed by what they are for (a stage's partition sizes and block hosts, a task's work,
     * the driver's gaps) instead of taken in turn from the run's shared streams: a run and its
     * re-run without a fault then hold the same data after the fault, as a real re-run would
     * (with the shared streams every extra attempt shifted every later stage's partition sizes) */
    bool keyed_draws;
    double bucket_s;               /* time resolution of the contention truth */
};

struct synth_scenario_info { const char *name, *what; };
const struct synth_scenario_info *clarity_synth_scenarios(size_t *n);

/* Defaults for a built-in scenario (unknown name: CLARITY_EUSAGE). */
int clarity_synth_config_init(struct synth_config *c, const char *scenario, struct clarity_error *err);
/* One option by its long name without dashes ("hosts", "data", "fault", ...), as the CLI and
 * the scenario INI file both spell them. Sizes take K/M/G/T suffixes, times s/m/h/ms. */
int clarity_synth_config_set(struct synth_config *c, const char *key, const char *value, struct clarity_error *err);
/* Reads an INI scenario: `scenario = NAME` (first) then any option keys; sections are only
 * for readability. Options set before the call are kept unless the file sets them. */
int clarity_synth_config_load_ini(struct synth_config *c, const char *path, struct clarity_error *err);
/* Checks the config as a whole (fault hosts exist, executors fit the hosts, ...). */
int clarity_synth_config_check(const struct synth_config *c, struct clarity_error *err);

struct synth_result {
    char app_id[64];
    char eventlog[4096];           /* path written */
    uint64_t tasks, stages, jobs, queries, executors, events, abnormal_tasks;
    uint64_t eventlog_bytes;       /* bytes on disk (compressed if a codec is used) */
    int64_t runtime_ms;            /* simulated application runtime */
};

/* Simulates the application and writes everything under outdir (created if missing). */
int clarity_synth_run(const struct synth_config *c, const char *outdir, struct synth_result *res,
              struct clarity_error *err);

#endif
