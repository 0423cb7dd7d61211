/* Training LADRA's GRNN from `clarity synth` output: each run directory holds its event log
 * (eventlogs/), executor logs (executor-logs/), GC logs (gc/) and the injected faults
 * (truth.json), which label the run. Prints nothing. */
#ifndef CLARITY_LADRA_TRAIN_H
#define CLARITY_LADRA_TRAIN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/anomalies.h"
#include "clarity/error.h"
#include "clarity/logs.h"
#include "clarity/model.h"

/* Executor logs (log4j, exdir) and GC logs (gcdir) for the log-based mode, either may be NULL,
 * with clock_offset_ms added to every time. Initializes L; on error frees it again. */
int clarity_ladra_logs_read(struct clarity_logs *L, const char *exdir, const char *gcdir, int64_t clock_offset_ms,
                            struct clarity_error *err);

/* The class a run is labelled with: its first injected fault's kind (cpu, memory, network,
 * disk) when that fault delayed at least one task, else normal (a fault that touched nothing
 * leaves a normal run). -1 when dir/truth.json cannot be read. */
int clarity_ladra_truth_label(const char *dir);

enum clarity_ladra_run_status {
    CLARITY_LADRA_RUN_USED,              /* its samples are in the model */
    CLARITY_LADRA_RUN_NO_TRUTH,          /* skipped: no readable truth.json */
    CLARITY_LADRA_RUN_NO_EVENT_LOG,      /* skipped: no event log could be loaded */
};
/* What became of one run directory, for the caller to report. */
struct clarity_ladra_train_run {
    const char *dir;
    int status;                          /* enum clarity_ladra_run_status */
    int label;                           /* enum ladra_class, when used */
    const struct clarity_app_set *events;    /* the run's event logs as loaded, with their problems;
                                                NULL when not read (valid during the callback only) */
    bool have_logs;                      /* executor and GC logs read: both modes trained */
    struct clarity_error logs_err;       /* its executor or GC logs unreadable (code 0: none): the
                                            run trains the event-log-only mode only */
};

/* Adds to m, for each run directory, the factors of its run in both modes (log-based when
 * its GC logs are there, and event-log-only), computed as the analysis does with the
 * weighted-rule method, labelled by clarity_ladra_truth_label. runs[class] counts the runs
 * used per class. on_run (may be NULL) is called after each directory. Returns CLARITY_OK, or
 * an error (out of memory) after going through every directory: a run whose analysis failed
 * is missing from m. */
int clarity_ladra_train(const char *const *dirs, size_t ndirs, struct ladra_model *m, size_t runs[LADRA_NCLASS],
                        void (*on_run)(void *ctx, const struct clarity_ladra_train_run *run), void *ctx,
                        struct clarity_error *err);

#endif
