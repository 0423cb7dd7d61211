/* Model allocation, lookups and the small readers every apply_*.c uses. */
#include <stdarg.h>
#include <stdio.h>
#include "model/build.h"

uint32_t clarity_intern(struct apply_ctx *c, const char *s, size_t len)
{
    uint32_t id = clarity_strtab_intern(&c->app->strs, s, len);
    if (id == UINT32_MAX) {
        c->failed = 1;
        return 0;
    }
    return id;
}

uint32_t clarity_intern_memo(struct apply_ctx *c, uint32_t *memo, const char *s, size_t len)
{
    const struct clarity_strtab *t = &c->app->strs;
    if (*memo && t->lens[*memo] == len && memcmp(t->strs[*memo], s, len) == 0) return *memo;
    return *memo = clarity_intern(c, s, len);
}

uint32_t clarity_intern_val(struct apply_ctx *c, cj_val v)
{
    const char *s;
    size_t n;
    if (clarity_cj_str(v, &s, &n)) return clarity_intern(c, s, n);
    return 0;
}

uint32_t clarity_intern_key(struct apply_ctx *c, cj_val obj, const char *key)
{
    cj_val v;
    return clarity_cj_get(obj, key, &v) ? clarity_intern_val(c, v) : 0;
}

uint32_t clarity_intern_json(struct apply_ctx *c, cj_val v)
{
    size_t n;
    char *s = clarity_cj_to_json(v, &n);
    if (!s) {
        c->failed = 1;
        return 0;
    }
    uint32_t id = clarity_intern(c, s, n);
    free(s);
    return id;
}

/* The object is read member by member into a signature (each key with its length, each value
 * as a boolean or a 64-bit integer): equal signatures serialize to the same minified JSON, so
 * the memo's string id is reused without serializing and hashing again (3 K instructions per
 * RDD, a tenth of a job event on logs of many small jobs). Any other shape is interned as is. */
uint32_t clarity_intern_json_memo(struct apply_ctx *c, struct json_memo *m, cj_val v)
{
    char sig[sizeof m->sig];
    size_t n = 0;
    cj_iter it;
    const char *k;
    size_t kl;
    cj_val x;
    if (clarity_cj_type(v) != CJ_OBJECT || !clarity_cj_object_begin(v, &it)) return clarity_intern_json(c, v);
    while (clarity_cj_object_next(&it, &k, &kl, &x)) {
        if (kl > 255 || n + 1 + kl + 9 > sizeof sig) return clarity_intern_json(c, v);
        sig[n++] = (char)kl;
        memcpy(sig + n, k, kl);
        n += kl;
        enum clarity_cj_type t = clarity_cj_type(x);
        bool b;
        int64_t i;
        if (t == CJ_BOOL && clarity_cj_bool(x, &b)) sig[n++] = b ? 't' : 'f';
        else if (t == CJ_INT && clarity_cj_int(x, &i)) {
            sig[n++] = 'i';
            memcpy(sig + n, &i, sizeof i);
            n += sizeof i;
        } else {
            return clarity_intern_json(c, v);
        }
    }
    if (m->id && m->len == n && memcmp(m->sig, sig, n) == 0) return m->id;
    uint32_t id = clarity_intern_json(c, v);
    if (c->failed) return id;
    memcpy(m->sig, sig, n);
    m->len = n;
    m->id = id;
    return id;
}

void clarity_problem(struct apply_ctx *c, const char *fmt, ...)
{
    struct clarity_integrity *in = &c->app->integrity;
    in->problems_total++;
    if (in->nproblems >= 200) return;   /* the first ones locate the trouble; the count says how much */
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    struct clarity_problem *p = CLARITY_VEC_PUSH(in->problems, in->nproblems, in->cap_problems);
    if (!p) {
        c->failed = 1;
        return;
    }
    p->file = c->file;
    p->line = c->line;
    p->offset = c->offset;
    p->msg = clarity_intern(c, buf, strlen(buf));
}

/* Counts one occurrence of an unknown name (event kind or task event key). A hostile or
 * vendor log can hold millions of distinct names: they are found through a hash of their
 * string ids (a linear search made 10^6 names never finish), the first MAX_LISTED are listed
 * with their counts and the rest only counted as distinct, so the lists stay small. */
#define MAX_LISTED 100
static void count_name(struct apply_ctx *c, struct clarity_idmap *seen, uint32_t id, struct clarity_kv **names,
                       uint64_t **counts, size_t *n, size_t *cap, uint64_t *unlisted)
{
    uint32_t at;
    if (clarity_idmap_get(seen, id, &at)) {
        if (at != UINT32_MAX) (*counts)[at]++;
        return;
    }
    if (*n >= MAX_LISTED) {
        if (clarity_idmap_put(seen, id, UINT32_MAX) != 0) c->failed = 1;
        else (*unlisted)++;
        return;
    }
    size_t old_cap = *cap;
    struct clarity_kv *kv = CLARITY_VEC_PUSH(*names, *n, *cap);
    if (!kv) {
        c->failed = 1;
        return;
    }
    if (old_cap != *cap) {
        uint64_t *nc = realloc(*counts, *cap * sizeof *nc);
        if (!nc) {
            c->failed = 1;
            (*n)--;
            return;
        }
        *counts = nc;
    }
    if (clarity_idmap_put(seen, id, (uint32_t)(*n - 1)) != 0) {
        c->failed = 1;
        (*n)--;
        return;
    }
    kv->k = id;
    (*counts)[*n - 1] = 1;
}

void clarity_unknown_event(struct apply_ctx *c, const char *name, size_t len)
{
    struct clarity_integrity *in = &c->app->integrity;
    in->events_unknown++;
    uint32_t id = clarity_intern(c, name, len);
    if (c->failed) return;
    count_name(c, &c->unknown_event_ids, id, &in->unknown_events, &in->unknown_counts, &in->nunknown_events,
               &in->cap_unknown_events, &in->unknown_events_unlisted);
}

void clarity_unknown_field(struct apply_ctx *c, const char *where, const char *k, size_t kl)
{
    struct clarity_integrity *in = &c->app->integrity;
    in->fields_unknown++;
    char name[256];
    int n = snprintf(name, sizeof name, "%s.%.*s", where, (int)(kl > 200 ? 200 : kl), k);
    uint32_t id = clarity_intern(c, name, (size_t)n);
    if (c->failed) return;
    count_name(c, &c->unknown_field_ids, id, &in->unknown_fields, &in->unknown_field_counts, &in->nunknown_fields,
               &in->cap_unknown_fields, &in->unknown_fields_unlisted);
}

void clarity__model_ctx_free(struct apply_ctx *c)
{
    clarity_idmap_free(&c->unknown_event_ids);
    clarity_idmap_free(&c->unknown_field_ids);
    clarity_idset_free(&c->other_stage);
    clarity__model_fold_free(c);
    free(c->skipped);
    c->skipped = NULL;
    c->nskipped = c->capskipped = 0;
}

void clarity_read_kvs(struct apply_ctx *c, cj_val obj, struct clarity_kvs *out)
{
    cj_iter it;
    const char *k;
    size_t kl;
    cj_val v;
    size_t n = 0;
    if (!clarity_cj_object_begin(obj, &it)) return;
    while (clarity_cj_object_next(&it, &k, &kl, &v)) n++;
    /* The same map comes again when an executor is re-registered (on a log of many small
     * applications' worth of jobs, with every copy): the array it had is reused when the new
     * map fits, instead of a fresh arena block per event (the arrays are owned by this map
     * alone, and the count, not the block's size, says how many are set). */
    if (!out->p || n > out->n) out->p = clarity_arena_alloc(&c->app->arena, (n ? n : 1) * sizeof *out->p);
    out->n = 0;
    if (!out->p) {
        c->failed = 1;
        return;
    }
    clarity_cj_object_begin(obj, &it);
    while (clarity_cj_object_next(&it, &k, &kl, &v)) {
        struct clarity_kv *kv = &out->p[out->n++];
        kv->k = clarity_intern(c, k, kl);
        const char *s;
        size_t sl;
        if (clarity_cj_str(v, &s, &sl)) kv->v = clarity_intern(c, s, sl);
        else kv->v = clarity_intern_json(c, v);
    }
}

void clarity_reread_int_array(struct apply_ctx *c, cj_val arr, int64_t **out, size_t *n)
{
    cj_iter it;
    cj_val v;
    size_t m = 0;
    if (clarity_cj_array_begin(arr, &it))
        while (clarity_cj_array_next(&it, &v)) m++;
    if (!m) {
        *out = NULL;
        *n = 0;
        return;
    }
    int64_t *p = *out && m <= *n ? *out : clarity_arena_alloc(&c->app->arena, m * sizeof *p);
    if (!p) {
        c->failed = 1;
        *out = NULL;
        *n = 0;
        return;
    }
    size_t i = 0;
    clarity_cj_array_begin(arr, &it);
    while (clarity_cj_array_next(&it, &v)) {
        int64_t x = 0;
        clarity_cj_int(v, &x);
        p[i++] = x;
    }
    *out = p;
    *n = m;
}

/* A fresh array: the reread with nothing to reuse. */
size_t clarity_read_int_array(struct apply_ctx *c, cj_val arr, int64_t **out)
{
    size_t n = 0;
    *out = NULL;
    clarity_reread_int_array(c, arr, out, &n);
    return n;
}

int64_t clarity_get_int_or(cj_val obj, const char *key, int64_t dflt)
{
    int64_t v;
    return clarity_cj_get_int(obj, key, &v) ? v : dflt;
}

bool clarity_value_as_int(cj_val v, int64_t *out)
{
    if (clarity_cj_int(v, out)) return true;
    const char *s;
    size_t n;
    if (!clarity_cj_str(v, &s, &n) || n == 0 || n > 30) return false;
    char buf[32];
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    long long x = strtoll(buf, &end, 10);
    if (*end != '\0') {
        double d = strtod(buf, &end);
        if (*end != '\0') return false;
        x = (long long)d;
    }
    *out = x;
    return true;
}

void clarity_peaks_max(struct apply_ctx *c, struct clarity_peaks *pk, uint32_t name, int64_t v)
{
    for (size_t i = 0; i < pk->n; i++)
        if (pk->p[i].name == name) {
            if (v > pk->p[i].value) pk->p[i].value = v;
            return;
        }
    struct clarity_metric_peak *p = CLARITY_VEC_PUSH(pk->p, pk->n, pk->cap);
    if (!p) {
        c->failed = 1;
        return;
    }
    p->name = name;
    p->value = v;
}

/* Metrics arrive in the same order every time, so the i-th one is usually at slot i. */
static void peaks_max_at(struct apply_ctx *c, struct clarity_peaks *pk, size_t hint, uint32_t name, int64_t v)
{
    if (hint < pk->n && pk->p[hint].name == name) {
        if (v > pk->p[hint].value) pk->p[hint].value = v;
        return;
    }
    clarity_peaks_max(c, pk, name, v);
}

/* ExecutorMetricType names (eventlog-format.md 2.9); the set is open, others are interned. */
static const char *const metric_names[] = {
    "JVMHeapMemory", "JVMOffHeapMemory", "OnHeapExecutionMemory", "OffHeapExecutionMemory",
    "OnHeapStorageMemory", "OffHeapStorageMemory", "OnHeapUnifiedMemory", "OffHeapUnifiedMemory",
    "DirectPoolMemory", "MappedPoolMemory", "ProcessTreeJVMVMemory", "ProcessTreeJVMRSSMemory",
    "ProcessTreePythonVMemory", "ProcessTreePythonRSSMemory", "ProcessTreeOtherVMemory",
    "ProcessTreeOtherRSSMemory", "MinorGCCount", "MinorGCTime", "MajorGCCount", "MajorGCTime",
    "TotalGCTime", "ConcurrentGCCount", "ConcurrentGCTime",
};

int clarity_exec_metric_index(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof metric_names / sizeof *metric_names; i++)
        if (strlen(metric_names[i]) == len && memcmp(metric_names[i], name, len) == 0) return (int)i;
    return -1;
}

void clarity_read_peak_value(struct apply_ctx *c, struct clarity_peaks *pk, size_t pos, size_t name, int64_t v)
{
    if (!c->metric_name_ids[name]) c->metric_name_ids[name] = clarity_intern(c, metric_names[name], strlen(metric_names[name]));
    peaks_max_at(c, pk, pos, c->metric_name_ids[name], v);
}

static uint32_t metric_name_id(struct apply_ctx *c, const char *k, size_t kl, size_t hint)
{
    size_t n = sizeof metric_names / sizeof *metric_names;
    /* metrics come in the same order every time: try the expected slot first */
    for (size_t j = 0; j < n; j++) {
        size_t i = (hint + j) % n;
        if (strlen(metric_names[i]) == kl && memcmp(metric_names[i], k, kl) == 0) {
            if (!c->metric_name_ids[i]) c->metric_name_ids[i] = clarity_intern(c, k, kl);
            return c->metric_name_ids[i];
        }
    }
    return clarity_intern(c, k, kl);
}

void clarity_read_peaks(struct apply_ctx *c, cj_val metrics, struct clarity_peaks *pk)
{
    cj_member mem[64];
    size_t nm = clarity_cj_object_members(metrics, mem, 64);
    for (size_t i = 0; i < nm && i < 64; i++) {
        int64_t x;
        if (clarity_cj_int(mem[i].val, &x)) peaks_max_at(c, pk, i, metric_name_id(c, mem[i].key, mem[i].klen, i), x);
    }
}

void clarity_push_id(struct apply_ctx *c, int64_t **arr, size_t *n, size_t *cap, int64_t v)
{
    for (size_t i = 0; i < *n; i++)
        if ((*arr)[i] == v) return;
    if (CLARITY_VEC_RESERVE_SMALL(*arr, *cap, *n + 1)) {
        c->failed = 1;
        return;
    }
    (*arr)[(*n)++] = v;
}

void clarity_push_id_arena(struct apply_ctx *c, int64_t **arr, size_t *n, size_t *cap, int64_t v)
{
    for (size_t i = 0; i < *n; i++)
        if ((*arr)[i] == v) return;
    if (*n + 1 > *cap && clarity_vec_grow_arena(&c->app->arena, (void **)arr, cap, *n + 1, sizeof **arr, 2)) {
        c->failed = 1;
        return;
    }
    (*arr)[(*n)++] = v;
}

struct clarity_executor *clarity_exec_get_or_add(struct apply_ctx *c, const char *id, size_t len)
{
    struct clarity_app *a = c->app;
    uint32_t sid = clarity_intern(c, id, len);
    uint32_t row;
    if (clarity_idmap_get(&a->exec_by_name, sid, &row)) return &a->execs[row];
    struct clarity_executor *e = CLARITY_VEC_PUSH(a->execs, a->nexecs, a->cap_execs);
    if (!e || clarity_idmap_put(&a->exec_by_name, sid, (uint32_t)(a->nexecs - 1)) != 0) {
        c->failed = 1;
        return NULL;
    }
    e->id = sid;
    e->port = -1;
    e->max_memory = e->max_onheap = e->max_offheap = -1;
    e->is_driver = (len == 6 && memcmp(id, "driver", 6) == 0) || (len == 8 && memcmp(id, "<driver>", 8) == 0);
    return e;
}

/* Stage attempts are found through the id map under a 64-bit hash of (stage id, attempt); the
 * row found is checked against both, and on a mismatch the next key of a fixed sequence is
 * tried (a free one comes within as many steps as there are stages), so two attempts never
 * share a row whatever their values (packing the attempt in the
 * low 12 bits of the id overflowed for big ids and made stage s attempt 4096 stage s+1
 * attempt 0). Returns true with *row when present, else false with *key free for it. */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30; x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27; x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static bool stage_find(const struct clarity_app *a, int64_t stage_id, int32_t attempt, int64_t *key, uint32_t *row)
{
    /* A first attempt starts at its own stage id, so the common case lands in the map's dense
     * range (one array load, in id order) rather than a random hash slot; a hashed key of
     * another attempt that happens to equal it only moves this attempt on along its sequence. */
    uint64_t k = attempt == 0 && stage_id >= 0 ? (uint64_t)stage_id
                                                : mix64((uint64_t)stage_id ^ mix64((uint64_t)(uint32_t)attempt + 1));
    for (;;) {
        if (!clarity_idmap_get(&a->stage_by_key, (int64_t)k, row)) {
            *key = (int64_t)k;
            return false;
        }
        if (a->stages[*row].stage_id == stage_id && a->stages[*row].attempt == attempt) return true;
        k += 0x9E3779B97F4A7C15ull;   /* odd: the sequence visits every 64-bit value before repeating */
    }
}

struct clarity_stage *clarity_stage_get_or_add(struct apply_ctx *c, int64_t stage_id, int64_t attempt)
{
    struct clarity_app *a = c->app;
    if (attempt < INT32_MIN || attempt > INT32_MAX) {
        /* Spark's attempt numbers are Java ints: a wider one is a damaged value */
        clarity_problem(c, "stage %lld attempt %lld out of range", (long long)stage_id, (long long)attempt);
        a->integrity.values_out_of_range++;
        attempt = attempt < 0 ? INT32_MIN : INT32_MAX;
    }
    uint32_t row;
    int64_t key;
    if (stage_find(a, stage_id, (int32_t)attempt, &key, &row)) return &a->stages[row];
    struct clarity_stage *s = CLARITY_MODEL_PUSH(c, a->stages, a->nstages, a->cap_stages);
    if (!s || clarity_idmap_put(&a->stage_by_key, key, (uint32_t)(a->nstages - 1)) != 0) {
        c->failed = 1;
        return NULL;
    }
    s->stage_id = stage_id;
    s->attempt = (int32_t)attempt;
    s->status = CLARITY_STAGE_PENDING;
    return s;
}

struct clarity_job *clarity_job_get_or_add(struct apply_ctx *c, int64_t job_id)
{
    struct clarity_app *a = c->app;
    uint32_t row;
    if (clarity_idmap_get(&a->job_by_id, job_id, &row)) return &a->jobs[row];
    struct clarity_job *j = CLARITY_MODEL_PUSH(c, a->jobs, a->njobs, a->cap_jobs);
    if (!j || clarity_idmap_put(&a->job_by_id, job_id, (uint32_t)(a->njobs - 1)) != 0) {
        c->failed = 1;
        return NULL;
    }
    j->job_id = job_id;
    j->sql_id = -1;
    j->status = CLARITY_JOB_RUNNING;
    return j;
}

struct clarity_sql *clarity_sql_get_or_add(struct apply_ctx *c, int64_t id)
{
    struct clarity_app *a = c->app;
    uint32_t row;
    if (clarity_idmap_get(&a->sql_by_id, id, &row)) return &a->sqls[row];
    struct clarity_sql *q = CLARITY_MODEL_PUSH(c, a->sqls, a->nsqls, a->cap_sqls);
    if (!q || clarity_idmap_put(&a->sql_by_id, id, (uint32_t)(a->nsqls - 1)) != 0) {
        c->failed = 1;
        return NULL;
    }
    q->id = id;
    q->root_id = id;
    return q;
}

bool clarity_sql_driver_value(const struct clarity_sql *q, int64_t accum_id, int64_t *value)
{
    /* a query has a few to a few hundred driver metrics, read once per finding rule; from the
       end, so the last update of an id wins (as in Spark's SQL listener) */
    for (size_t i = q->ndriver_accums; i-- > 0;)
        if (q->driver_accums[i].accum_id == accum_id) {
            *value = q->driver_accums[i].value;
            return true;
        }
    return false;
}

struct clarity_stage *clarity_app_stage(const struct clarity_app *a, int64_t stage_id, int32_t attempt)
{
    uint32_t row;
    int64_t key;
    return stage_find(a, stage_id, attempt, &key, &row) ? &a->stages[row] : NULL;
}

struct clarity_job *clarity_app_job(const struct clarity_app *a, int64_t job_id)
{
    uint32_t row;
    return clarity_idmap_get(&a->job_by_id, job_id, &row) ? &a->jobs[row] : NULL;
}

struct clarity_executor *clarity_app_executor(const struct clarity_app *a, const char *id)
{
    for (size_t i = 0; i < a->nexecs; i++)
        if (strcmp(clarity_app_str(a, a->execs[i].id), id) == 0) return &a->execs[i];
    return NULL;
}

struct clarity_sql *clarity_app_sql(const struct clarity_app *a, int64_t sql_id)
{
    uint32_t row;
    return clarity_idmap_get(&a->sql_by_id, sql_id, &row) ? &a->sqls[row] : NULL;
}

long clarity_app_task_row(const struct clarity_app *a, int64_t task_id)
{
    uint32_t row;
    if (task_id >= 0 && (size_t)task_id < a->task_dense_cap && a->task_dense[task_id]) return (long)a->task_dense[task_id] - 1;
    if (a->task_by_id.cap || a->task_by_id.ndense) return clarity_idmap_get(&a->task_by_id, task_id, &row) ? (long)row : -1;
    const struct clarity_icol *ids = &a->tasks.task_id;
    if (a->tasks_sorted_by_id) {
        size_t lo = 0, hi = a->tasks.n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            int64_t v = clarity_icol_get(ids, mid);
            if (v == task_id) return (long)mid;
            if (v < task_id) lo = mid + 1;
            else hi = mid;
        }
        return -1;
    }
    for (size_t i = 0; i < a->tasks.n; i++)
        if (clarity_icol_get(ids, i) == task_id) return (long)i;
    return -1;
}

static size_t tasks_bytes(const struct clarity_tasks *t)
{
    const struct clarity_icol *cols[] = {&t->task_id, &t->stage, &t->index, &t->attempt, &t->partition,
                                         &t->launch_rel, &t->duration, &t->getting_result, &t->executor,
                                         &t->host, &t->locality, &t->end, &t->flags};
    size_t b = 0;
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) b += clarity_icol_bytes(cols[i], t->cap);
    for (int m = 0; m < CLARITY_TM_COUNT; m++) b += clarity_icol_bytes(&t->m[m], t->cap);
    return b;
}

size_t clarity_app_task_bytes(const struct clarity_app *a)
{
    return tasks_bytes(&a->tasks) + a->task_by_id.cap * (sizeof(int64_t) + sizeof(uint32_t) + 1);
}

size_t clarity_app_accumulable_bytes(const struct clarity_app *a)
{
    return (a->task_accums.cap + a->stage_accums.cap) * sizeof(struct clarity_accum);
}

static void tasks_free(struct clarity_tasks *t)
{
    struct clarity_icol *cols[] = {&t->task_id, &t->stage, &t->index, &t->attempt, &t->partition,
                                   &t->launch_rel, &t->duration, &t->getting_result, &t->executor,
                                   &t->host, &t->locality, &t->end, &t->flags};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) clarity_icol_free(cols[i]);
    for (int m = 0; m < CLARITY_TM_COUNT; m++) clarity_icol_free(&t->m[m]);
}

/* Giving back the parts of a model an analysis has finished reading: contention reads the
 * jobs, SQL executions and accumulables only while it collects its queries and task table, and
 * the task columns and stage attempts only until its iQC-Graph is built, then holds the graph
 * and its answers beside the model (at 10^6 one-job queries the model is ~1 GB of heap). */
void clarity_app_release(struct clarity_app *a, unsigned parts)
{
    /* arrays become NULL and their counts stay: a reader that still indexes one faults at once
     * instead of reading freed memory or finding none */
    parts &= ~a->released;
    if (parts & CLARITY_APP_JOBS) {
        free(a->jobs);   /* their stage id lists are in the arena */
        a->jobs = NULL, a->cap_jobs = 0;
    }
    if (parts & CLARITY_APP_SQLS) {
        for (size_t i = 0; i < a->nsqls; i++) {
            if (a->sqls[i].cap_metrics >= CLARITY_SQL_METRICS_HEAP) free(a->sqls[i].metrics);   /* apply_sql.c */
            if (a->sqls[i].graph) {
                free(a->sqls[i].graph->values);
                free(a->sqls[i].graph->jobs);
                free(a->sqls[i].graph->job_status);
            }
        }
        free(a->sqls);
        a->sqls = NULL, a->cap_sqls = 0;
    }
    if (parts & CLARITY_APP_RDDS) {
        for (size_t i = 0; i < a->ncached; i++) clarity__model_rdd_storage_free(&a->cached[i]);
        free(a->cached);
        free(a->rdds);
        clarity_idmap_free(&a->cached_by_id);
        a->cached = NULL, a->rdds = NULL, a->cap_cached = a->cap_rdds = 0;
    }
    if (parts & CLARITY_APP_ACCUMS) {
        free(a->task_accums.p);
        free(a->stage_accums.p);
        a->task_accums.p = a->stage_accums.p = NULL;
        a->task_accums.cap = a->stage_accums.cap = 0;
    }
    if (parts & CLARITY_APP_TASK_REASONS) {
        free(a->task_reasons);
        a->task_reasons = NULL, a->cap_task_reasons = 0;
    }
    if (parts & CLARITY_APP_TASKS) {
        tasks_free(&a->tasks);
        /* a freed column reads as all zeros (width 0); width 1 over NULL faults instead */
        struct clarity_tasks *t = &a->tasks;
        struct clarity_icol *cols[] = {&t->task_id, &t->stage, &t->index, &t->attempt, &t->partition,
                                       &t->launch_rel, &t->duration, &t->getting_result, &t->executor,
                                       &t->host, &t->locality, &t->end, &t->flags};
        for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) cols[i]->width = 1;
        for (int m = 0; m < CLARITY_TM_COUNT; m++) t->m[m].width = 1;
    }
    if (parts & CLARITY_APP_STAGES) {
        for (size_t i = 0; i < a->nstages; i++) {
            struct clarity_stage_rare *r = a->stages[i].rare;
            if (!r) continue;
            free(r->peaks.p);
            for (size_t k = 0; k < r->nexec_peaks; k++) free(r->exec_peaks[k].peaks.p);
            free(r->exec_peaks);
            free(r->excluded_execs);
            free(r);
        }
        free(a->stages);
        a->stages = NULL, a->cap_stages = 0;
    }
    a->released |= parts;
}

void clarity_app_free(struct clarity_app *a)
{
    if (!a) return;
    if (a->fold_result_free) a->fold_result_free(a->fold_result);
    clarity_app_release(a, CLARITY_APP_JOBS | CLARITY_APP_SQLS | CLARITY_APP_RDDS | CLARITY_APP_ACCUMS |
                               CLARITY_APP_TASK_REASONS | CLARITY_APP_TASKS | CLARITY_APP_STAGES);
    for (size_t i = 0; i < a->nexecs; i++) {
        free(a->execs[i].excluded_stages);
        free(a->execs[i].peaks.p);
    }
    free(a->execs);
    free(a->misc); free(a->profiles);
    clarity_idmap_free(&a->task_by_id); clarity_idmap_free(&a->job_by_id);
    free(a->task_dense);
    clarity_idmap_free(&a->stage_by_key); clarity_idmap_free(&a->exec_by_name);
    clarity_idmap_free(&a->sql_by_id); clarity_idmap_free(&a->rdd_by_id);
    free(a->integrity.problems);
    free(a->integrity.unknown_events);
    free(a->integrity.unknown_counts);
    free(a->integrity.unknown_fields);
    free(a->integrity.unknown_field_counts);
    clarity_strtab_free(&a->strs);
    clarity_arena_free(&a->arena);
    free(a);
}

const char *clarity_accum_text(const struct clarity_app *a, const struct clarity_accum *x, bool update,
                               char *buf, size_t cap)
{
    uint32_t id = update ? x->update_str : x->value_str;
    if (id) return clarity_app_str(a, id);
    if (update && !x->has_update) return "";
    snprintf(buf, cap, "%lld", (long long)(update ? x->update : x->value));
    return buf;
}
