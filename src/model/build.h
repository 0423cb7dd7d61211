/* Internal helpers shared by the files that replay events into the model. */
#ifndef CLARITY_MODEL_BUILD_H
#define CLARITY_MODEL_BUILD_H
#include <stdlib.h>
#include <string.h>
#include "clarity/model.h"
#include "event/json.h"
#include "model/decode/blank.h"
#include "model/grow.h"
#include "util/idset.h"
#include "util/vec.h"

/* Context for one event being applied: where it came from, for problem reports. */
struct apply_ctx {
    struct clarity_app *app;
    const struct clarity_load_options *opt;
    uint32_t file;        /* string id of the file path */
    uint64_t line, offset;
    /* for projecting the big tables' final size (grow.h): the bytes of the log's files, 0
     * when unknown (a compressed file: decoded offsets are not a share of it), and of the
     * files read before this one */
    uint64_t proj_total, proj_done;
    int failed;           /* set on out-of-memory */
    /* string ids of the executor metric names Spark defines, interned on first use: these
     * names repeat in every TaskEnd, and hashing them each time showed in profiles */
    uint32_t metric_name_ids[32];
    uint32_t last_host, last_exec; /* most recent task host / executor string ids */
    /* string id -> row in the integrity's unknown event / field list (UINT32_MAX: past the
     * listed ones), only while loading */
    struct clarity_idmap unknown_event_ids, unknown_field_ids;
    const struct blank_names *acc_names;   /* task accumulables kept by name (opt), measured */
    struct sql_listen *sql;                /* the SQL listener's replay (opt sql_plan_graphs) */
    struct json_memo {                     /* clarity_intern_json_memo: the last flat object */
        char sig[160];
        size_t len;
        uint32_t id;
    } storage_level_memo;
    /* load option only_stage: task ids seen with another stage, whose later events are passed
     * over too (util/idset.h), only while loading */
    struct clarity_idset other_stage;
    /* load option task_fold (apply/task_fold.c), only while loading: live task id -> row
     * (open addressing, INT64_MIN empty), each row's ordinal (0: a free row), the free rows,
     * the ids already folded (util/idset.h) */
    struct task_fold_state {
        int64_t *keys; uint32_t *rows; size_t cap, n;
        uint64_t *ord; size_t ord_cap; uint64_t next_ord;
        uint32_t *free_rows; size_t nfree, cap_free;
        struct clarity_idset done;
    } fold;
    uint64_t last_file_bytes, last_file_lines; /* of the file read last, decoded (resume.c) */
    /* a load that may be continued (resume.c): the stage rows finish marked skipped and the
     * status each had, so a continuation can undo it before reading on */
    bool record_skipped;
    struct skipped_undo { uint32_t row; int status; } *skipped;
    size_t nskipped, capskipped;
};

uint32_t clarity_intern(struct apply_ctx *c, const char *s, size_t len);
/* intern() with a one-entry memo, for strings that repeat from one event to the next. */
uint32_t clarity_intern_memo(struct apply_ctx *c, uint32_t *memo, const char *s, size_t len);
uint32_t clarity_intern_val(struct apply_ctx *c, cj_val v);          /* string value; else 0 */
uint32_t clarity_intern_key(struct apply_ctx *c, cj_val obj, const char *key);
uint32_t clarity_intern_json(struct apply_ctx *c, cj_val v);         /* any value as minified JSON */
/* intern_json with a one-entry memo, for small flat objects of booleans and integers that
 * repeat from one event to the next (an RDD's storage level, in every stage of every job) */
uint32_t clarity_intern_json_memo(struct apply_ctx *c, struct json_memo *m, cj_val v);
/* Counts an unknown key of a task event under "<where>.<key>". */
void clarity_unknown_field(struct apply_ctx *c, const char *where, const char *k, size_t kl);
/* Counts an event of a kind no handler knows, under its "Event" name. */
void clarity_unknown_event(struct apply_ctx *c, const char *name, size_t len);
/* load option task_fold (apply/task_fold.c). */
static inline bool clarity__model_folds(const struct apply_ctx *c)
{
    return c->opt->task_fold && !c->opt->only_stage && !c->opt->no_task_rows;
}
/* The live row of task tid, if any. */
bool clarity__model_fold_get(const struct apply_ctx *c, int64_t tid, uint32_t *row);
/* Whether tid was folded already. */
bool clarity__model_fold_done(const struct apply_ctx *c, int64_t tid);
/* A row for new task tid: a free one (all columns 0), else -1 and the caller appends one;
 * *row is then remembered for tid with the next ordinal. -2 when out of memory. */
int clarity__model_fold_take(struct apply_ctx *c, int64_t tid, uint32_t *row);
int clarity__model_fold_put(struct apply_ctx *c, int64_t tid, uint32_t row);
/* Hands the ended row to the caller, then frees it. */
void clarity__model_fold_release(struct apply_ctx *c, uint32_t row);
/* Hands every live row over in ordinal order, then empties the task table (before finish). */
void clarity__model_fold_flush(struct apply_ctx *c);
void clarity__model_fold_free(struct apply_ctx *c);
/* Frees what the context holds only while loading (the unknown-name maps). */
void clarity__model_ctx_free(struct apply_ctx *c);
/* Reads one file of the application into c->app (load.c; resume.c reads a rolling log's
 * new parts with it); *any_events set when it held events, first_err the first error. */
void clarity__model_read_file(struct apply_ctx *c, cj_parser *p, const struct clarity_log_file *f, bool *any_events,
                              struct clarity_error *first_err);
/* One whole line of a log applied as an event (load.c's reader and resume.c's). */
void clarity__model_apply_line(struct apply_ctx *c, cj_parser *p, char *line, size_t len, bool cut);
/* clarity_app_load over a context the caller set up (c->opt); with keep_ctx what the
 * context holds while loading is handed back in *c instead of freed (a load to continue). */
int clarity__model_load(const struct clarity_app_source *src, struct apply_ctx *c, struct blank_names *acc_names,
                        bool keep_ctx, struct clarity_app **out, struct clarity_error *err);
/* The task id index, which finish frees, built again from the rows (resume.c). -1: no memory. */
int clarity__model_tasks_reindex(struct clarity_app *a);
void clarity_problem(struct apply_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A string map object into kvs (arena-owned), keys in logged order. */
void clarity_read_kvs(struct apply_ctx *c, cj_val obj, struct clarity_kvs *out);
/* Array of numbers into an arena-owned int64 array. */
size_t clarity_read_int_array(struct apply_ctx *c, cj_val arr, int64_t **out);
/* The same for a field read again with each event of its object: the array already held is
 * reused when the new one fits, so an unchanged list costs no memory per event. */
void clarity_reread_int_array(struct apply_ctx *c, cj_val arr, int64_t **out, size_t *n);
int64_t clarity_get_int_or(cj_val obj, const char *key, int64_t dflt);
/* Accepts numbers or numeric strings (SQL metric values are strings). */
bool clarity_value_as_int(cj_val v, int64_t *out);
void clarity_peaks_max(struct apply_ctx *c, struct clarity_peaks *pk, uint32_t name, int64_t v);
void clarity_read_peaks(struct apply_ctx *c, cj_val metrics, struct clarity_peaks *pk);
/* One metric of such an object read beforehand (a task record): its position among the
 * members, its index in the ExecutorMetricType list (clarity_exec_metric_index) and its value;
 * the same as clarity_read_peaks reading that member. */
void clarity_read_peak_value(struct apply_ctx *c, struct clarity_peaks *pk, size_t pos, size_t name, int64_t v);

struct clarity_executor *clarity_exec_get_or_add(struct apply_ctx *c, const char *id, size_t len);
/* An attempt outside Java's int range is counted in integrity.values_out_of_range and clamped. */
struct clarity_stage *clarity_stage_get_or_add(struct apply_ctx *c, int64_t stage_id, int64_t attempt);
struct clarity_job *clarity_job_get_or_add(struct apply_ctx *c, int64_t job_id);
struct clarity_sql *clarity_sql_get_or_add(struct apply_ctx *c, int64_t id);
void clarity_read_stage_info(struct apply_ctx *c, cj_val info, struct clarity_stage *st);

/* Values picked from an object in one pass (clarity_cj_pick), read with the same conversions
 * as the by-name getters above: clarity_pk_int_or(p, i, d) is clarity_get_int_or(obj, key_i, d). */
#define CLARITY_PICK_MAX 16   /* small: read_plan recurses with two of these per plan level */
struct clarity_picked { uint64_t found; cj_val v[CLARITY_PICK_MAX]; };
static inline bool clarity_pk_has(const struct clarity_picked *p, int i) { return p->found >> i & 1; }
static inline bool clarity_pk_int(const struct clarity_picked *p, int i, int64_t *out)
{
    return clarity_pk_has(p, i) && clarity_cj_int(p->v[i], out);
}
static inline int64_t clarity_pk_int_or(const struct clarity_picked *p, int i, int64_t dflt)
{
    int64_t x;
    return clarity_pk_int(p, i, &x) ? x : dflt;
}
static inline bool clarity_pk_bool(const struct clarity_picked *p, int i, bool *out)
{
    return clarity_pk_has(p, i) && clarity_cj_bool(p->v[i], out);
}
static inline uint32_t clarity_pk_intern(struct apply_ctx *c, const struct clarity_picked *p, int i)
{
    return clarity_pk_has(p, i) ? clarity_intern_val(c, p->v[i]) : 0;
}

/* A Stage Info object's members, picked once for the stage lookup and the reading. */
enum { CLARITY_SI_ID, CLARITY_SI_ATTEMPT, CLARITY_SI_NAME, CLARITY_SI_DETAILS, CLARITY_SI_NTASKS,
       CLARITY_SI_SUBMIT, CLARITY_SI_COMPLETE, CLARITY_SI_FAILURE, CLARITY_SI_PROFILE,
       CLARITY_SI_PUSH, CLARITY_SI_MERGERS, CLARITY_SI_PARENTS, CLARITY_SI_RDDS, CLARITY_SI_ACCUMS,
       CLARITY_SI_COUNT };
void clarity_pick_stage_info(cj_val info, struct clarity_picked *p);
void clarity_read_stage_info_picked(struct apply_ctx *c, const struct clarity_picked *p, struct clarity_stage *st);
/* Appends the accumulables of arr. user_only: drop internal and SQL-metric ones (load option
 * user_task_accumulables_only); with names (n > 0) only those with one of these names. */
void clarity_read_accumulables(struct apply_ctx *c, cj_val arr, uint32_t owner, struct clarity_accums *acc,
                       bool updates, bool user_only, const char *const *names, size_t n);
void clarity_push_id(struct apply_ctx *c, int64_t **arr, size_t *n, size_t *cap, int64_t v);
/* The same for lists that live as long as the model (a stage's and a query's jobs): kept in
 * the model's arena (util/vec.h), never freed one by one. */
void clarity_push_id_arena(struct apply_ctx *c, int64_t **arr, size_t *n, size_t *cap, int64_t v);
/* A query's plan metrics list moves from the arena to the heap at this many entries (apply_sql.c
 * says why); a capacity this large is heap-owned and freed with the model. */
#define CLARITY_SQL_METRICS_HEAP 64

/* Event handlers, one per family (apply_*.c). */
void clarity_apply_log_start(struct apply_ctx *c, cj_val ev);
void clarity_apply_dbc_metadata(struct apply_ctx *c, cj_val ev);
void clarity_apply_app_start(struct apply_ctx *c, cj_val ev);
void clarity_apply_app_end(struct apply_ctx *c, cj_val ev);
void clarity_apply_env(struct apply_ctx *c, cj_val ev);
void clarity_apply_resource_profile(struct apply_ctx *c, cj_val ev);
void clarity_apply_misc_process(struct apply_ctx *c, cj_val ev);
void clarity_apply_exec_added(struct apply_ctx *c, cj_val ev);
void clarity_apply_exec_removed(struct apply_ctx *c, cj_val ev);
void clarity_apply_block_manager_added(struct apply_ctx *c, cj_val ev);
void clarity_apply_block_manager_removed(struct apply_ctx *c, cj_val ev);
void clarity_apply_exec_excluded(struct apply_ctx *c, cj_val ev, bool excluded);
void clarity_apply_exec_excluded_for_stage(struct apply_ctx *c, cj_val ev);
void clarity_apply_node_excluded(struct apply_ctx *c, cj_val ev, bool excluded);
/* storage (apply_storage.c) */
void clarity_apply_block_updated(struct apply_ctx *c, cj_val ev);
void clarity__model_storage_stage_submitted(struct apply_ctx *c, cj_val stage_info);
void clarity__model_storage_unpersist(struct apply_ctx *c, int64_t rdd_id);
void clarity__model_storage_exec_removed(struct apply_ctx *c, struct clarity_executor *e);
void clarity__model_storage_finish(struct clarity_app *a);
void clarity__model_rdd_storage_free(struct clarity_rdd_storage *r);
void clarity_apply_node_excluded_for_stage(struct apply_ctx *c, cj_val ev);
void clarity_apply_exec_metrics_update(struct apply_ctx *c, cj_val ev);
void clarity_apply_stage_exec_metrics(struct apply_ctx *c, cj_val ev);
void clarity_apply_job_start(struct apply_ctx *c, cj_val ev);
void clarity_apply_job_end(struct apply_ctx *c, cj_val ev);
void clarity_apply_stage_submitted(struct apply_ctx *c, cj_val ev);
void clarity_apply_stage_completed(struct apply_ctx *c, cj_val ev);
void clarity_apply_task_start(struct apply_ctx *c, cj_val ev);
void clarity_apply_task_getting_result(struct apply_ctx *c, cj_val ev);
void clarity_apply_task_end(struct apply_ctx *c, cj_val ev);
struct task_rec;
void clarity_apply_task_rec(struct apply_ctx *c, const struct task_rec *r);
void clarity_apply_unpersist_rdd(struct apply_ctx *c, cj_val ev);
void clarity_apply_sql_start(struct apply_ctx *c, cj_val ev);
void clarity_apply_sql_end(struct apply_ctx *c, cj_val ev);
void clarity_apply_sql_adaptive(struct apply_ctx *c, cj_val ev);
void clarity_apply_sql_adaptive_metrics(struct apply_ctx *c, cj_val ev);
void clarity_apply_driver_accum_updates(struct apply_ctx *c, cj_val ev);

/* Typed decoders for what used to be kept as raw JSON (decode_task_reason.c, decode_resources.c). */
void clarity__model_task_end_reason_read(struct apply_ctx *c, cj_val reason, uint32_t row, int end);
void clarity__model_task_end_reasons_sort(struct clarity_app *a);
void clarity__model_resource_profile_read(struct apply_ctx *c, cj_val ev, struct clarity_resource_profile *p);
void clarity__model_resources_read(struct apply_ctx *c, cj_val obj, struct clarity_executor *e);

/* Finishes the model after the last event: integrity counts, derived statuses. */
void clarity_model_finish(struct apply_ctx *c);

#endif
