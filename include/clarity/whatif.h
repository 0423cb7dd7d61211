/* What-if analyses (thesis 5.6):
 *  - the hardware an application ran on, from its log where the log says, defaults otherwise;
 *  - a monotask-style resource model per stage (ideal CPU, disk and network times, the max is
 *    the stage's time, the sum over stages the job's) used to predict other hardware as
 *    actual x new model / old model, and the best case with each resource infinitely fast;
 *  - a core-count curve: the DAG-aware slot replay (dag_replay.h) at other slot counts.
 * On Spark (not MonoSpark) the thesis measured 20-30% typical error for this model, with
 * perfect resource counters; from logs it can only be worse. Reports must say so. */
#ifndef CLARITY_WHATIF_H
#define CLARITY_WHATIF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/error.h"
#include "clarity/model.h"
#include "clarity/sim.h"

/* ---- hardware profile ---- */

enum clarity_hw_field {
    CLARITY_HW_HOSTS, CLARITY_HW_EXECUTORS, CLARITY_HW_CORES_PER_HOST, CLARITY_HW_DISKS_PER_HOST,
    CLARITY_HW_DISK_MB_S, CLARITY_HW_NET_GBPS, CLARITY_HW_INPUT_ON_DISK, CLARITY_HW_REPLICATION,
    CLARITY_HW_NFIELDS
};
const char *clarity_hw_field_name(enum clarity_hw_field f);   /* INI/JSON key: "hosts", ... */

enum clarity_hw_source { CLARITY_HWS_DEFAULT, CLARITY_HWS_LOG, CLARITY_HWS_OBSERVED, CLARITY_HWS_INI,
                         CLARITY_HWS_FLAG };
const char *clarity_hw_source_name(enum clarity_hw_source s);  /* "default", "log", ... */

#define CLARITY_HW_DEFAULT_DISK_MB_S 90.0   /* effective HDD throughput, thesis [T] */
#define CLARITY_HW_DEFAULT_NET_GBPS 1.0     /* thesis' nominal NIC */

struct clarity_hw {
    double v[CLARITY_HW_NFIELDS];           /* input_on_disk is 0 or 1 */
    enum clarity_hw_source src[CLARITY_HW_NFIELDS];
    int task_cpus;                          /* spark.task.cpus */
    /* Input read from (output written to) a remote object store, as the log's paths say
     * (model platform): those bytes cross each host's network link to a remote service and
     * never touch the hosts' disks, so the model counts them as network, not disk. Input on
     * disk given by a user (input_on_disk) wins over input_remote. */
    bool input_remote, output_remote;
    char input_scheme[8], output_scheme[8];  /* "gs://", "s3://", "dbfs:" ... when remote */
};
static inline double clarity_hw_cores(const struct clarity_hw *h)
{ return h->v[CLARITY_HW_HOSTS] * h->v[CLARITY_HW_CORES_PER_HOST]; }
static inline double clarity_hw_slots(const struct clarity_hw *h)
{ return clarity_hw_cores(h) / (h->task_cpus > 0 ? h->task_cpus : 1); }

/* Hosts, executors and cores from the log (the most executors and cores alive at once,
 * distinct executor hosts; local mode counts the driver); when the log has no executor
 * cores (Spark 1.x local logs), cores = peak task concurrency x spark.task.cpus on the task
 * hosts, labelled observed. Disks 1 per host at 90 MB/s, 1 Gbps, input on disk when any task
 * read input and the log's paths do not put it on an object store (then input_remote),
 * output on an object store when its paths say so, replication from dfs.replication when
 * logged, else 1. */
void clarity_hw_from_log(const struct clarity_app *a, struct clarity_hw *out);

/* A value a user gives: absolute ("16", "10Gbps", "200MB/s") or relative ("x2", "2x", "0.5x"). */
struct clarity_hw_value { double v; bool relative, set; };
struct clarity_hw_change { struct clarity_hw_value f[CLARITY_HW_NFIELDS]; };

/* Parses a value for field f. network_gbps: Gbps without a unit, else bits per second with a
 * decimal or binary prefix (10Gbps, 100Mb/s, 10G) or bytes per second (1.25GB/s); disk_mb_s:
 * MB/s without a unit, else bytes per second (200MB/s, 1.5G/s, 150MiB/s); input_on_disk
 * yes/no/true/false/1/0. Returns 0, or CLARITY_EUSAGE with the message in err. */
int clarity_hw_parse_value(enum clarity_hw_field f, const char *s, struct clarity_hw_value *out,
                           struct clarity_error *err);
/* Applies a change: set fields replace (or multiply) base's; src marks them. */
void clarity_hw_apply(const struct clarity_hw *base, const struct clarity_hw_change *c, enum clarity_hw_source src,
                      struct clarity_hw *out);
bool clarity_hw_change_any(const struct clarity_hw_change *c);

/* INI profile: [cluster] describes the hardware the log ran on (absolute values), [whatif]
 * the hardware to predict for (absolute or relative). Keys: clarity_hw_field_name(). '#' and
 * ';' start comments. Returns 0, or nonzero with the file and line of the problem in err. */
int clarity_hw_ini_load(const char *path, struct clarity_hw_change *cluster, struct clarity_hw_change *whatif,
                        struct clarity_error *err);

/* ---- resource model (monotask style) ---- */

enum clarity_wres { CLARITY_WRES_CPU, CLARITY_WRES_DISK, CLARITY_WRES_NETWORK, CLARITY_WRES_COUNT };
const char *clarity_wres_name(int r);       /* "cpu", "disk", "network" */

/* What a stage used: CPU ms (summed over tasks), bytes through disks and over the network
 * (remote shuffle bytes, plus object-store input and output). */
struct clarity_stage_usage { double cpu_ms, disk_bytes, net_bytes; };

struct clarity_ideal {
    double ms[CLARITY_WRES_COUNT];          /* ideal time per resource */
    double model_ms;                        /* max over the resources not infinitely fast */
    int bottleneck;                         /* argmax (enum clarity_wres), -1 when all are 0 */
};

/* ideal cpu = cpu / cores; disk = bytes / (hosts x disks x MB/s); network = bytes / (hosts x
 * Gbps x 125 MB/s). `infinite` (a clarity_wres, or -1) is left out of the max. */
void clarity_ideal_compute(const struct clarity_stage_usage *u, const struct clarity_hw *hw, int infinite,
                           struct clarity_ideal *out);

/* predicted = actual x model_new / model_old (thesis 5.6.2); actual when model_old is 0. */
double clarity_whatif_predict(double actual, double model_old, double model_new);
double clarity_prediction_error(double predicted, double actual);   /* |p - a| / a; 0 when a is 0 */
/* The plain Spark slot model (thesis 5.6.6): time inversely proportional to slots. */
double clarity_slot_model_predict(double actual, double old_slots, double new_slots);
/* Multitasks MonoSpark runs per machine: cores + disk concurrency (1 per HDD, 4 per SSD) +
 * network (4 multitasks outstanding) + 1 (thesis 5.3). */
int clarity_monospark_multitasks(int cores, int disks, bool ssd, int network);
/* Disk MB (decimal) per non-idle CPU-second (thesis 4.5.4). 0 when there is no CPU time. */
double clarity_mb_per_cpu_s(double disk_bytes, double cpu_ms);

struct clarity_whatif_stage {
    size_t row;                             /* stage attempt row */
    long job;                               /* owning job row, -1 none */
    size_t tasks, cpu_fallback_tasks;       /* tasks without CPU time: run time minus blocked time */
    struct clarity_stage_usage use;
    struct clarity_ideal ideal;             /* on the base hardware */
};

enum clarity_scenario_kind { CLARITY_SCEN_BASE, CLARITY_SCEN_WHATIF, CLARITY_SCEN_INF_CPU,
                             CLARITY_SCEN_INF_DISK, CLARITY_SCEN_INF_NETWORK, CLARITY_SCEN_COUNT };
const char *clarity_scenario_name(int s);   /* "observed", "whatif", "cpu_infinite", ... */

struct clarity_whatif_scenario {
    bool present;
    struct clarity_hw hw;
    int infinite;                           /* clarity_wres or -1 */
    double model_ms;                        /* sum over stages */
    double predicted_ms;                    /* application wall time */
    size_t bottleneck_stages[CLARITY_WRES_COUNT];
};

struct clarity_whatif_job {
    size_t row; int64_t job_id;
    size_t stages;
    int64_t actual_ms;                      /* job duration (submit to end), else its task span */
    double model_ms[CLARITY_SCEN_COUNT], predicted_ms[CLARITY_SCEN_COUNT];
    int bottleneck;                         /* of its largest stage on the base hardware */
};

struct clarity_resource_result {
    struct clarity_whatif_stage *stages; size_t nstages;
    struct clarity_whatif_job *jobs; size_t njobs;
    struct clarity_whatif_scenario scen[CLARITY_SCEN_COUNT];
    int64_t actual_ms;                      /* application wall time */
    int64_t driver_ms;                      /* of which no task ran: kept as measured */
    size_t tasks, cpu_fallback_tasks;
    struct clarity_stage_usage total;
    double mb_per_cpu_s;
};

/* The model on base, with `whatif` as the WHATIF scenario when non-NULL. Successful attempts
 * only, one stage attempt at a time on one worker per core (threads: 0 one per core, 1 none;
 * the result is the same for any count). Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_resources_analyze(const struct clarity_app *a, const struct clarity_hw *base,
                              const struct clarity_hw *whatif, int threads, struct clarity_resource_result *out,
                              struct clarity_error *err);
void clarity_resources_free(struct clarity_resource_result *r);

/* ---- core-count curve ---- */

/* A point asked for: relative to the observed executors/cores ("2x") or absolute. */
struct clarity_curve_ask { double v; bool relative; };
enum clarity_curve_unit { CLARITY_CURVE_EXECUTORS, CLARITY_CURVE_CORES };
/* "0.5x,1x,2x,4x" or "8,16,32": all relative or all absolute, at most cap points, their count
 * in *n. Returns 0, or CLARITY_EUSAGE with err saying why. */
int clarity_curve_parse(const char *s, struct clarity_curve_ask *out, size_t cap, size_t *n, struct clarity_error *err);

struct clarity_curve_point {
    struct clarity_curve_ask ask;
    double executors, cores;                /* the cluster at this point */
    int slots;                              /* cluster slots: cores / spark.task.cpus */
    int slots_min, slots_max;               /* slots each replayed stage group got */
    double replay_ms;                       /* DAG replay of the tasks */
    double predicted_ms;                    /* replay + driver-only time */
    double calibrated_ms;                   /* driver + measured task time x replay / replay at 1x:
                                               the replay's own error cancels, as in blocked time */
    double core_hours;                      /* cores x predicted */
    double efficiency;                      /* task time / (slots x replay) */
};

struct clarity_curve_result {
    enum clarity_slot_mode mode;
    struct clarity_curve_point *points; size_t npoints;   /* by slots, ascending */
    size_t knee;                            /* smallest point within 10% of the best */
    size_t knee_replay;                     /* the same on the replay alone, without driver time */
    int64_t actual_ms, driver_ms;           /* driver-only time: no task running, as measured */
    double serial_ms;                       /* sum of task runtimes: one slot */
    double critical_path_ms;                /* infinite slots */
    /* per stage attempt row (a->nstages entries): 1 when the stage is on the critical path
     * (per component the chain of stages whose longest tasks sum to the most; their sum over
     * components is critical_path_ms) */
    uint8_t *on_critical;
    double observed_replay_ms;              /* the replay at the observed slots (blocked's t_s) */
    double replay_error;                    /* observed replay vs measured task time (actual - driver) */
    size_t tasks, components, internal_edges;
    double base_executors, base_cores;
    bool cores_observed;                    /* no executor cores logged: observed concurrency */
};

/* Replays the successful attempts at each asked point (driver time, clarity_app_driver_time
 * in sim.h, added back as measured), one pooled component at a time on one worker per core
 * (threads: 0 one per core, 1 none; the result is the same for any count). Returns 0, or
 * CLARITY_ENOMEM with err filled. */
int clarity_curve_analyze(const struct clarity_app *a, const struct clarity_hw *hw, enum clarity_slot_mode mode,
                          enum clarity_curve_unit unit, const struct clarity_curve_ask *ask, size_t nask, int threads,
                          struct clarity_curve_result *out, struct clarity_error *err);
/* The same with extra_ms[row] ms added to the runtime of task row `row` (a->tasks.n entries;
 * NULL: none) in every replay, the observed one included: a caller that models how the tasks
 * would run at another count (findings' idle executors: I/O sharing on fewer hosts) replays
 * that count with it and reads replay_ms against a plain curve's observed_replay_ms. */
int clarity_curve_analyze_extra(const struct clarity_app *a, const struct clarity_hw *hw, enum clarity_slot_mode mode,
                                enum clarity_curve_unit unit, const struct clarity_curve_ask *ask, size_t nask,
                                int threads, const double *extra_ms, struct clarity_curve_result *out,
                                struct clarity_error *err);
void clarity_curve_free(struct clarity_curve_result *r);

#endif
