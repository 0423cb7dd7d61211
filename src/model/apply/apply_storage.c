/* Cached RDD storage, replayed as the History Server's AppStatusListener keeps it: an RDD is
 * tracked once a submitted stage names it with a valid storage level; each block update of
 * one of its blocks ("rdd_<id>_<split>") adds or removes the block's holder and its sizes,
 * clamped at 0 as the listener clamps them; broadcast blocks count towards the executor's
 * memory and disk only; an unpersisted RDD is dropped and an executor's removal takes its
 * blocks and distribution away. Only live executors (not removed) are updated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/build.h"

static int64_t add_delta(int64_t old, int64_t delta)
{
    int64_t v;
    if (__builtin_add_overflow(old, delta, &v)) v = delta > 0 ? INT64_MAX : 0;
    return v > 0 ? v : 0;
}

struct level { bool disk, memory, off_heap, deserialized; int64_t replication; };

static void read_level(cj_val v, struct level *l)
{
    memset(l, 0, sizeof *l);
    clarity_cj_get_bool(v, "Use Disk", &l->disk);
    clarity_cj_get_bool(v, "Use Memory", &l->memory);
    clarity_cj_get_bool(v, "Use Off Heap", &l->off_heap);   /* absent before Spark 2.0: false */
    clarity_cj_get_bool(v, "Deserialized", &l->deserialized);
    l->replication = clarity_get_int_or(v, "Replication", 1);
}

static bool level_valid(const struct level *l) { return (l->memory || l->disk) && l->replication > 0; }

/* StorageLevel.description, e.g. "Disk Memory Deserialized 1x Replicated". */
static uint32_t level_text(struct apply_ctx *c, const struct level *l)
{
    char buf[96];
    snprintf(buf, sizeof buf, "%s%s%s%lldx Replicated", l->disk ? "Disk " : "",
             l->memory ? (l->off_heap ? "Memory (off heap) " : "Memory ") : "",
             l->deserialized ? "Deserialized " : "Serialized ", (long long)l->replication);
    return clarity_intern(c, buf, strlen(buf));
}

void clarity__model_rdd_storage_free(struct clarity_rdd_storage *r)
{
    for (size_t i = 0; i < r->nparts; i++) free(r->parts[i].execs);
    free(r->parts);
    free(r->dists);
    clarity_idmap_free(&r->part_by_block);
    memset(r, 0, sizeof *r);
}

static struct clarity_rdd_storage *rdd_of(struct clarity_app *a, int64_t id)
{
    uint32_t row;
    if (!clarity_idmap_get(&a->cached_by_id, id, &row)) return NULL;
    return a->cached[row].unpersisted ? NULL : &a->cached[row];
}

void clarity__model_storage_stage_submitted(struct apply_ctx *c, cj_val info)
{
    struct clarity_app *a = c->app;
    cj_val arr, r, lv;
    cj_iter it;
    if (!clarity_cj_get(info, "RDD Info", &arr) || !clarity_cj_array_begin(arr, &it)) return;
    while (clarity_cj_array_next(&it, &r)) {
        int64_t id;
        struct level l;
        if (!clarity_cj_get_int(r, "RDD ID", &id) || !clarity_cj_get(r, "Storage Level", &lv)) continue;
        read_level(lv, &l);
        if (!level_valid(&l) || rdd_of(a, id)) continue;   /* the first registration stays */
        uint32_t row;
        struct clarity_rdd_storage *d;
        if (clarity_idmap_get(&a->cached_by_id, id, &row)) {   /* unpersisted, cached again */
            d = &a->cached[row];
            clarity__model_rdd_storage_free(d);
        } else {
            d = CLARITY_VEC_PUSH(a->cached, a->ncached, a->cap_cached);
            if (!d || clarity_idmap_put(&a->cached_by_id, id, (uint32_t)(a->ncached - 1)) != 0) {
                c->failed = 1;
                return;
            }
        }
        d->rdd_id = id;
        d->name = clarity_intern_key(c, r, "Name");
        d->num_partitions = clarity_get_int_or(r, "Number of Partitions", 0);
        d->level = level_text(c, &l);
        d->use_off_heap = l.off_heap;
        d->deserialized = l.deserialized;
    }
}

static bool has_memory_info(const struct clarity_executor *e) { return e->max_onheap >= 0; }

/* What the executor has left, as the listener's RDD view takes it when written. */
static void dist_snapshot(const struct clarity_app *a, struct clarity_rdd_dist *d)
{
    uint32_t row;
    if (!d->stale || !clarity_idmap_get(&a->exec_by_name, d->exec, &row)) return;
    const struct clarity_executor *e = &a->execs[row];
    d->mem_remaining = (e->max_memory > 0 ? e->max_memory : 0) - e->mem_used;
    d->on_heap_remaining = has_memory_info(e) ? e->max_onheap - e->used_on_heap : 0;
    d->off_heap_remaining = has_memory_info(e) ? (e->max_offheap > 0 ? e->max_offheap : 0) - e->used_off_heap : 0;
    d->stale = false;
}

/* The listener writes the RDD: every distribution invalidated since is taken afresh. */
static void rdd_write(const struct clarity_app *a, struct clarity_rdd_storage *r)
{
    for (size_t i = 0; i < r->ndists; i++)
        if (!r->dists[i].gone) dist_snapshot(a, &r->dists[i]);
}

static struct clarity_rdd_dist *dist_find(struct clarity_rdd_storage *r, uint32_t exec)
{
    for (size_t i = 0; i < r->ndists; i++)
        if (!r->dists[i].gone && r->dists[i].exec == exec) return &r->dists[i];
    return NULL;
}

static struct clarity_rdd_part *part_find(struct clarity_rdd_storage *r, uint32_t block)
{
    uint32_t row;
    if (!clarity_idmap_get(&r->part_by_block, block, &row) || r->parts[row].gone) return NULL;
    return &r->parts[row];
}

static void part_remove(struct clarity_rdd_storage *r, struct clarity_rdd_part *p)
{
    p->gone = true;
    r->nlive_parts--;
}

static void exec_mem_disk(struct clarity_executor *e, bool off_heap, int64_t mem_delta, int64_t disk_delta)
{
    if (has_memory_info(e)) {
        if (off_heap) e->used_off_heap = add_delta(e->used_off_heap, mem_delta);
        else e->used_on_heap = add_delta(e->used_on_heap, mem_delta);
    }
    e->mem_used = add_delta(e->mem_used, mem_delta);
    e->disk_used = add_delta(e->disk_used, disk_delta);
}

static void rdd_block(struct apply_ctx *c, struct clarity_executor *e, uint32_t exec, int64_t rdd_id, uint32_t block,
                      const struct level *l, int64_t mem_delta, int64_t disk_delta)
{
    struct clarity_app *a = c->app;
    int64_t blocks_delta = 0;
    if (e) exec_mem_disk(e, l->off_heap, mem_delta, disk_delta);
    struct clarity_rdd_storage *r = rdd_of(a, rdd_id);
    if (r) {
        struct clarity_rdd_part *p = part_find(r, block);
        if (!p) {
            p = CLARITY_VEC_PUSH(r->parts, r->nparts, r->cap_parts);
            if (!p || clarity_idmap_put(&r->part_by_block, block, (uint32_t)(r->nparts - 1)) != 0) {
                c->failed = 1;
                return;
            }
            p->block = block;
            r->nlive_parts++;
        }
        bool holds = false;
        for (size_t i = 0; i < p->nexecs && !holds; i++) holds = p->execs[i] == (int64_t)exec;
        if (level_valid(l)) {
            if (!holds) {
                blocks_delta = 1;
                clarity_push_id(c, &p->execs, &p->nexecs, &p->cap_execs, exec);
            }
        } else {
            blocks_delta = -1;
            size_t k = 0;
            for (size_t i = 0; i < p->nexecs; i++)
                if (p->execs[i] != (int64_t)exec) p->execs[k++] = p->execs[i];
            p->nexecs = k;
        }
        if (p->nexecs) {
            p->mem = add_delta(p->mem, mem_delta);
            p->disk = add_delta(p->disk, disk_delta);
        } else {
            part_remove(r, p);
        }
        if (e) {
            struct clarity_rdd_dist *d = dist_find(r, exec);
            if (e->rdd_blocks + blocks_delta > 0) {
                if (!d) {
                    d = CLARITY_VEC_PUSH(r->dists, r->ndists, r->cap_dists);
                    if (!d) {
                        c->failed = 1;
                        return;
                    }
                    d->exec = exec;
                }
                d->mem = add_delta(d->mem, mem_delta);
                d->disk = add_delta(d->disk, disk_delta);
                if (has_memory_info(e)) {
                    if (l->off_heap) d->off_heap = add_delta(d->off_heap, mem_delta);
                    else d->on_heap = add_delta(d->on_heap, mem_delta);
                }
                d->stale = true;
            } else if (d) {
                d->gone = true;
            }
            /* the other RDDs on this executor are rewritten with its new free memory */
            for (size_t i = 0; i < a->ncached; i++) {
                struct clarity_rdd_storage *o = &a->cached[i];
                struct clarity_rdd_dist *od;
                if (o == r || o->unpersisted || !(od = dist_find(o, exec))) continue;
                od->stale = true;
                rdd_write(a, o);
            }
        }
        r->mem = add_delta(r->mem, mem_delta);
        r->disk = add_delta(r->disk, disk_delta);
        rdd_write(a, r);
    }
    if (e) e->rdd_blocks += blocks_delta;
}

void clarity_apply_block_updated(struct apply_ctx *c, cj_val ev)
{
    cj_val info, bm, lv;
    const char *id, *bid;
    size_t n, bn;
    if (!clarity_cj_get(ev, "Block Updated Info", &info) || !clarity_cj_get(info, "Block Manager ID", &bm) ||
        !clarity_cj_get_str(bm, "Executor ID", &id, &n) || !clarity_cj_get_str(info, "Block ID", &bid, &bn)) {
        clarity_problem(c, "block update without its block manager or block id");
        return;
    }
    struct level l = {0};
    if (clarity_cj_get(info, "Storage Level", &lv)) read_level(lv, &l);
    int64_t mem = clarity_get_int_or(info, "Memory Size", 0), disk = clarity_get_int_or(info, "Disk Size", 0);
    int64_t mem_delta = l.memory ? mem : -mem, disk_delta = l.disk ? disk : -disk;
    uint32_t exec = clarity_intern(c, id, n), row;
    struct clarity_executor *e = NULL;
    if (clarity_idmap_get(&c->app->exec_by_name, exec, &row) && !c->app->execs[row].remove_ms) e = &c->app->execs[row];
    char name[64];
    long long rdd, split;
    char tail;
    snprintf(name, sizeof name, "%.*s", (int)(bn < sizeof name ? bn : sizeof name - 1), bid);
    if (bn < sizeof name && sscanf(name, "rdd_%lld_%lld%c", &rdd, &split, &tail) == 2) {
        rdd_block(c, e, exec, rdd, clarity_intern(c, bid, bn), &l, mem_delta, disk_delta);
    } else if (bn > 10 && !memcmp(bid, "broadcast_", 10)) {
        if (e) exec_mem_disk(e, l.off_heap, mem_delta, disk_delta);
    }
    /* stream blocks ("input-...") feed the streaming tab, which the REST layer does not serve */
}

void clarity__model_storage_unpersist(struct apply_ctx *c, int64_t rdd_id)
{
    struct clarity_app *a = c->app;
    struct clarity_rdd_storage *r = rdd_of(a, rdd_id);
    if (!r) return;
    uint32_t row;
    for (size_t i = 0; i < r->nparts; i++) {
        if (r->parts[i].gone) continue;
        for (size_t k = 0; k < r->parts[i].nexecs; k++)
            if (clarity_idmap_get(&a->exec_by_name, r->parts[i].execs[k], &row) && !a->execs[row].remove_ms)
                a->execs[row].rdd_blocks--;
    }
    for (size_t i = 0; i < r->ndists; i++) {
        const struct clarity_rdd_dist *d = &r->dists[i];
        if (d->gone || !clarity_idmap_get(&a->exec_by_name, d->exec, &row) || a->execs[row].remove_ms) continue;
        struct clarity_executor *e = &a->execs[row];
        if (has_memory_info(e)) {
            if (r->use_off_heap) e->used_off_heap = add_delta(e->used_off_heap, -d->off_heap);
            else e->used_on_heap = add_delta(e->used_on_heap, -d->on_heap);
        }
        e->mem_used = add_delta(e->mem_used, -d->mem);
        e->disk_used = add_delta(e->disk_used, -d->disk);
    }
    r->unpersisted = true;
}

void clarity__model_storage_exec_removed(struct apply_ctx *c, struct clarity_executor *e)
{
    struct clarity_app *a = c->app;
    int64_t exec = e->id;
    for (size_t i = 0; i < a->ncached; i++) {
        struct clarity_rdd_storage *r = &a->cached[i];
        if (r->unpersisted) continue;
        struct clarity_rdd_dist *d = dist_find(r, e->id);
        if (d) d->gone = true;
        for (size_t k = 0; k < r->nparts; k++) {
            struct clarity_rdd_part *p = &r->parts[k];
            bool holds = false;
            for (size_t x = 0; x < p->nexecs && !holds; x++) holds = p->execs[x] == exec;
            if (p->gone || !holds) continue;
            int64_t n = (int64_t)p->nexecs;
            if (n == 1) {
                part_remove(r, p);
                r->mem = add_delta(r->mem, -p->mem);
                r->disk = add_delta(r->disk, -p->disk);
                continue;
            }
            /* a replicated block: the executor's share of it goes */
            r->mem = add_delta(r->mem, -(p->mem / n));
            r->disk = add_delta(r->disk, -(p->disk / n));
            size_t w = 0;
            for (size_t x = 0; x < p->nexecs; x++)
                if (p->execs[x] != exec) p->execs[w++] = p->execs[x];
            p->nexecs = w;
            p->mem = add_delta(p->mem, -(p->mem / n));
            p->disk = add_delta(p->disk, -(p->disk / n));
        }
        rdd_write(a, r);
    }
}

void clarity__model_storage_finish(struct clarity_app *a)
{
    for (size_t i = 0; i < a->ncached; i++)
        if (!a->cached[i].unpersisted) rdd_write(a, &a->cached[i]);
}
