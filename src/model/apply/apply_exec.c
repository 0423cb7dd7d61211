/* Executor lifecycle: added/removed, block managers, exclusion, executor metrics. */
#include "model/build.h"

static struct clarity_executor *exec_from(struct apply_ctx *c, cj_val obj, const char *key)
{
    const char *id;
    size_t n;
    if (!clarity_cj_get_str(obj, key, &id, &n)) {
        clarity_problem(c, "event without \"%s\"", key);
        return NULL;
    }
    return clarity_exec_get_or_add(c, id, n);
}

void clarity_apply_exec_added(struct apply_ctx *c, cj_val ev)
{
    struct clarity_executor *e = exec_from(c, ev, "Executor ID");
    if (!e) return;
    e->seen_added = true;
    e->add_ms = clarity_get_int_or(ev, "Timestamp", 0);
    cj_val info;
    if (!clarity_cj_get(ev, "Executor Info", &info)) return;
    uint32_t host = clarity_intern_key(c, info, "Host");
    if (host) e->host = host;
    e->total_cores = (int32_t)clarity_get_int_or(info, "Total Cores", 0);
    e->resource_profile_id = (int32_t)clarity_get_int_or(info, "Resource Profile Id", 0);
    cj_val v;
    if (clarity_cj_get(info, "Log Urls", &v)) clarity_read_kvs(c, v, &e->log_urls);
    if (clarity_cj_get(info, "Attributes", &v)) clarity_read_kvs(c, v, &e->attributes);
    if (clarity_cj_get(info, "Resources", &v) && clarity_cj_type(v) == CJ_OBJECT) clarity__model_resources_read(c, v, e);
}

void clarity_apply_exec_removed(struct apply_ctx *c, cj_val ev)
{
    struct clarity_executor *e = exec_from(c, ev, "Executor ID");
    if (!e) return;
    if (!e->remove_ms) clarity__model_storage_exec_removed(c, e);
    e->remove_ms = clarity_get_int_or(ev, "Timestamp", 0);
    e->remove_reason = clarity_intern_key(c, ev, "Removed Reason");
}

static void block_manager(struct apply_ctx *c, cj_val ev, bool added)
{
    cj_val bm;
    if (!clarity_cj_get(ev, "Block Manager ID", &bm)) {
        clarity_problem(c, "block manager event without \"Block Manager ID\"");
        return;
    }
    struct clarity_executor *e = exec_from(c, bm, "Executor ID");
    if (!e) return;
    if (!added) return;
    uint32_t host = clarity_intern_key(c, bm, "Host");
    if (host && !e->host) e->host = host;
    e->port = (int32_t)clarity_get_int_or(bm, "Port", -1);
    e->max_memory = clarity_get_int_or(ev, "Maximum Memory", e->max_memory);
    e->max_onheap = clarity_get_int_or(ev, "Maximum Onheap Memory", e->max_onheap);
    e->max_offheap = clarity_get_int_or(ev, "Maximum Offheap Memory", e->max_offheap);
    /* the driver has no ExecutorAdded; its block manager is when it appeared */
    if (!e->add_ms) e->add_ms = clarity_get_int_or(ev, "Timestamp", 0);
}

void clarity_apply_block_manager_added(struct apply_ctx *c, cj_val ev) { block_manager(c, ev, true); }
void clarity_apply_block_manager_removed(struct apply_ctx *c, cj_val ev) { block_manager(c, ev, false); }

/* An executor AppStatusListener still holds as live: known and not removed. Exclusion events
 * about any other executor change nothing (and create none). */
static struct clarity_executor *live_exec(struct apply_ctx *c, cj_val ev, const char *key)
{
    const char *id;
    size_t n;
    uint32_t row;
    if (!clarity_cj_get_str(ev, key, &id, &n)) {
        clarity_problem(c, "event without \"%s\"", key);
        return NULL;
    }
    if (!clarity_idmap_get(&c->app->exec_by_name, clarity_intern(c, id, n), &row)) return NULL;
    struct clarity_executor *e = &c->app->execs[row];
    return e->remove_ms ? NULL : e;
}

/* The stage attempt's rarely-set part, allocated on first use (NULL, the load failed, when out
 * of memory). */
static struct clarity_stage_rare *stage_rare(struct apply_ctx *c, struct clarity_stage *s)
{
    if (!s->rare && !(s->rare = calloc(1, sizeof *s->rare))) c->failed = 1;
    return s->rare;
}

/* The stage attempt an exclusion names, when it is live (known and not completed). */
static struct clarity_stage *live_stage(struct apply_ctx *c, cj_val ev)
{
    int64_t sid, att;
    if (!clarity_cj_get_int(ev, "stageId", &sid) || !clarity_cj_get_int(ev, "stageAttemptId", &att)) return NULL;
    if (att < INT32_MIN || att > INT32_MAX) return NULL;
    struct clarity_stage *s = clarity_app_stage(c->app, sid, (int32_t)att);
    return s && !s->seen_completed ? s : NULL;
}

void clarity_apply_exec_excluded(struct apply_ctx *c, cj_val ev, bool excluded)
{
    struct clarity_executor *e = live_exec(c, ev, "executorId");
    if (e) e->excluded = excluded;
}

void clarity_apply_exec_excluded_for_stage(struct apply_ctx *c, cj_val ev)
{
    const char *id;
    size_t n;
    int64_t st;
    if (!clarity_cj_get_str(ev, "executorId", &id, &n)) {
        clarity_problem(c, "event without \"executorId\"");
        return;
    }
    /* the stage's summary marks the executor even when the listener holds no such executor */
    struct clarity_stage *s = live_stage(c, ev);
    struct clarity_stage_rare *r = s ? stage_rare(c, s) : NULL;
    if (r) clarity_push_id(c, &r->excluded_execs, &r->nexcluded_execs, &r->cap_excluded_execs, clarity_intern(c, id, n));
    struct clarity_executor *e = live_exec(c, ev, "executorId");
    if (e && clarity_cj_get_int(ev, "stageId", &st))
        clarity_push_id(c, &e->excluded_stages, &e->nexcluded_stages, &e->cap_excluded_stages, st);
}

/* A node's exclusion (or its end) reaches every live executor on it but the driver, which
 * runs no tasks (the listener compares the executor's host, or its block manager's host when
 * it has no ExecutorAdded). */
void clarity_apply_node_excluded(struct apply_ctx *c, cj_val ev, bool excluded)
{
    uint32_t host = clarity_intern_key(c, ev, "hostId");
    if (!host) return;
    for (size_t i = 0; i < c->app->nexecs; i++) {
        struct clarity_executor *e = &c->app->execs[i];
        if (!e->remove_ms && !e->is_driver && e->host == host) e->excluded = excluded;
    }
}

/* A node excluded for a stage: the stage's summary marks the executors that registered on
 * that host (ExecutorAdded's host), and every live executor there lists the stage. */
void clarity_apply_node_excluded_for_stage(struct apply_ctx *c, cj_val ev)
{
    uint32_t host = clarity_intern_key(c, ev, "hostId");
    int64_t st;
    if (!host || !clarity_cj_get_int(ev, "stageId", &st)) return;
    struct clarity_stage *s = live_stage(c, ev);
    for (size_t i = 0; i < c->app->nexecs; i++) {
        struct clarity_executor *e = &c->app->execs[i];
        if (e->remove_ms || e->is_driver || e->host != host) continue;
        struct clarity_stage_rare *r = s && e->seen_added ? stage_rare(c, s) : NULL;
        if (r) clarity_push_id(c, &r->excluded_execs, &r->nexcluded_execs, &r->cap_excluded_execs, e->id);
        clarity_push_id(c, &e->excluded_stages, &e->nexcluded_stages, &e->cap_excluded_stages, st);
    }
}

static void stage_exec_peaks(struct apply_ctx *c, struct clarity_stage *s, uint32_t exec, cj_val metrics)
{
    struct clarity_stage_rare *st = stage_rare(c, s);
    if (!st) return;
    clarity_read_peaks(c, metrics, &st->peaks);
    for (size_t i = 0; i < st->nexec_peaks; i++)
        if (st->exec_peaks[i].executor == exec) {
            clarity_read_peaks(c, metrics, &st->exec_peaks[i].peaks);
            return;
        }
    struct clarity_stage_exec_peaks *p = CLARITY_VEC_PUSH(st->exec_peaks, st->nexec_peaks, st->cap_exec_peaks);
    if (!p) {
        c->failed = 1;
        return;
    }
    p->executor = exec;
    clarity_read_peaks(c, metrics, &p->peaks);
}

void clarity_apply_stage_exec_metrics(struct apply_ctx *c, cj_val ev)
{
    struct clarity_executor *e = exec_from(c, ev, "Executor ID");
    cj_val m;
    if (!e || !clarity_cj_get(ev, "Executor Metrics", &m)) return;
    clarity_read_peaks(c, m, &e->peaks);
    int64_t sid, att;
    if (clarity_cj_get_int(ev, "Stage ID", &sid) && clarity_cj_get_int(ev, "Stage Attempt ID", &att)) {
        struct clarity_stage *st = clarity_stage_get_or_add(c, sid, att);
        if (st) stage_exec_peaks(c, st, e->id, m);
    }
}

void clarity_apply_exec_metrics_update(struct apply_ctx *c, cj_val ev)
{
    struct clarity_executor *e = exec_from(c, ev, "Executor ID");
    cj_val arr, item, m;
    cj_iter it;
    if (!e || !clarity_cj_get(ev, "Executor Metrics Updated", &arr) || !clarity_cj_array_begin(arr, &it)) return;
    while (clarity_cj_array_next(&it, &item))
        if (clarity_cj_get(item, "Executor Metrics", &m)) clarity_read_peaks(c, m, &e->peaks);
}
