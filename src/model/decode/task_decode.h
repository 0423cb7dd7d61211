/* A task event (TaskStart, TaskGettingResult, TaskEnd) decoded into a plain record, so it can
 * be decoded on one thread and applied to the model on another, in log order. */
#ifndef CLARITY_MODEL_TASK_DECODE_H
#define CLARITY_MODEL_TASK_DECODE_H
#include <stdbool.h>
#include <stdint.h>
#include "clarity/model.h"
#include "event/json.h"

enum task_kind { TASK_START, TASK_GETTING_RESULT, TASK_END };

#define TASK_REC_UNKNOWN_MAX 4
#define TASK_REC_EXEC_MAX 32

struct task_rec {
    enum task_kind kind;
    int64_t stage_id, stage_attempt;
    bool result_task;
    bool has_tid;
    int64_t tid, index, attempt, partition, launch, getting, finish;
    bool spec, failed, killed;
    const char *exec, *host;         /* into the parsed document; use task_rec_exec/host() */
    size_t exec_len, host_len;
    int locality;
    int end;                         /* enum clarity_task_end; SUCCESS without a reason */
    bool has_reason, has_metrics, has_exec_metrics, has_accums;
    bool peak_from_accums;           /* m[PEAK_EXEC_MEM] came from the internal accumulable */
    cj_val reason, exec_metrics, accums;   /* valid only while the document is */
    uint64_t metric_mask;            /* bit m set: m[m] was logged */
    int64_t m[CLARITY_TM_COUNT];
    size_t nunknown, unknown_total;  /* keys no documented Spark version writes */
    struct { const char *where, *key; size_t len; } unknown[TASK_REC_UNKNOWN_MAX];
    bool owned;                      /* strings copied into the buffers below (the record may
                                        then be moved: no pointer into itself is kept) */
    uint8_t nexec_vals;              /* entries of exec_vals (clarity_task_rec_own_exec_metrics) */
    char exec_buf[48], host_buf[128];
    /* "Task Executor Metrics" copied out of the document: each integer member's position,
     * its name as an index in Spark's ExecutorMetricType list (clarity_exec_metric_index)
     * and its value */
    struct { uint8_t pos, name; int64_t value; } exec_vals[TASK_REC_EXEC_MAX];
};

static inline const char *task_rec_exec(const struct task_rec *r) { return r->owned ? r->exec_buf : r->exec; }
static inline const char *task_rec_host(const struct task_rec *r) { return r->owned ? r->host_buf : r->host; }

/* Decodes a task event. Never fails: missing fields stay at their defaults (has_tid false
 * when there is no Task ID). Peak execution memory comes from the accumulables when Task
 * Metrics lack it (Spark 2.x). */
void clarity_task_rec_decode(cj_val ev, enum task_kind kind, struct task_rec *r);
/* Copies the strings into the record's own buffers (sets owned); false when one does not fit. */
bool clarity_task_rec_own_strings(struct task_rec *r);
/* Number of members of an object value (0 for anything else). */
size_t clarity_task_rec_members(cj_val v);
/* Copies the executor metrics into exec_vals (then has_exec_metrics is cleared and the
 * document is no longer needed for them); false when a name is not one Spark defines or
 * there are too many. */
bool clarity_task_rec_own_exec_metrics(struct task_rec *r);
/* The index of an ExecutorMetricType name in the model's list, -1 for any other name. */
int clarity_exec_metric_index(const char *name, size_t len);

#endif
