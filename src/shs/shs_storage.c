/* storage/rdd and storage/rdd/{id}: RDDStorageInfo as AppStatusListener's LiveRDD writes it,
 * from the model's replay of block updates (src/model/apply/apply_storage.c). The list shows
 * only RDDs with a cached partition (AppStatusStore.rddList(cachedOnly = true)), by id; one
 * RDD is answered whenever a submitted stage registered it, even with nothing cached. */
#include <stdlib.h>
#include "shs/shs_internal.h"
#include "util/jsonw.h"

static int cmp_rdd(const void *x, const void *y)
{
    const struct clarity_rdd_storage *a = *(const struct clarity_rdd_storage *const *)x,
                                     *b = *(const struct clarity_rdd_storage *const *)y;
    return (a->rdd_id > b->rdd_id) - (a->rdd_id < b->rdd_id);
}

static const struct clarity_rdd_storage *rdd_by_id(const struct clarity_app *a, int64_t id)
{
    uint32_t row;
    if (!clarity_idmap_get(&a->cached_by_id, id, &row) || a->cached[row].unpersisted) return NULL;
    return &a->cached[row];
}

/* A partition's level as LiveRDDPartition derives it from where the block is: on disk when
 * it uses disk, in memory when it uses memory, the RDD's off-heap flag, deserialized only in
 * memory, replicated as many times as executors hold it. */
static void part_level(const struct clarity_rdd_storage *d, const struct clarity_rdd_part *p, char *buf, size_t cap)
{
    bool disk = p->disk > 0, mem = p->mem > 0;
    snprintf(buf, cap, "%s%s%s%zux Replicated", disk ? "Disk " : "",
             mem ? (d->use_off_heap ? "Memory (off heap) " : "Memory ") : "",
             mem && d->deserialized ? "Deserialized " : "Serialized ", p->nexecs);
}

static void dist_write(struct jsonw *w, const struct clarity_app *a, const struct clarity_rdd_dist *d)
{
    size_t row;
    const struct clarity_executor *e = clarity__shs_exec_by_sid(a, d->exec, &row);
    char hp[512] = "";
    if (e) {
        const char *host = e->host ? clarity_app_str(a, e->host) : "";
        if (e->port >= 0) snprintf(hp, sizeof hp, "%s:%d", host, e->port);
        else snprintf(hp, sizeof hp, "%s", host);
    }
    bool mem_info = e && e->max_onheap >= 0;
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "address", hp);
    clarity_jsonw_kint(w, "memoryUsed", d->mem);
    clarity_jsonw_kint(w, "memoryRemaining", d->mem_remaining);
    clarity_jsonw_kint(w, "diskUsed", d->disk);
    if (mem_info) {
        clarity_jsonw_kint(w, "onHeapMemoryUsed", d->on_heap);
        clarity_jsonw_kint(w, "offHeapMemoryUsed", d->off_heap);
        clarity_jsonw_kint(w, "onHeapMemoryRemaining", d->on_heap_remaining);
        clarity_jsonw_kint(w, "offHeapMemoryRemaining", d->off_heap_remaining);
    }
    clarity_jsonw_obj_end(w);
}

static void rdd_write(struct jsonw *w, const struct clarity_app *a, const struct clarity_rdd_storage *d)
{
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "id", d->rdd_id);
    clarity__shs_kstr_id(w, a, "name", d->name);
    clarity_jsonw_kint(w, "numPartitions", d->num_partitions);
    clarity_jsonw_kint(w, "numCachedPartitions", (int64_t)d->nlive_parts);
    clarity__shs_kstr_id(w, a, "storageLevel", d->level);
    clarity_jsonw_kint(w, "memoryUsed", d->mem);
    clarity_jsonw_kint(w, "diskUsed", d->disk);
    size_t ndist = 0;
    for (size_t i = 0; i < d->ndists; i++) ndist += !d->dists[i].gone;
    if (ndist) {
        /* SHS lists them in its hash map's order; here in the order executors first held a
         * block of the RDD */
        clarity_jsonw_key(w, "dataDistribution");
        clarity_jsonw_arr_begin(w);
        for (size_t i = 0; i < d->ndists; i++)
            if (!d->dists[i].gone) dist_write(w, a, &d->dists[i]);
        clarity_jsonw_arr_end(w);
    }
    clarity_jsonw_key(w, "partitions");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < d->nparts; i++) {
        const struct clarity_rdd_part *p = &d->parts[i];
        if (p->gone) continue;
        char level[96];
        part_level(d, p, level, sizeof level);
        clarity_jsonw_obj_begin(w);
        clarity__shs_kstr_id(w, a, "blockName", p->block);
        clarity_jsonw_kstr(w, "storageLevel", level);
        clarity_jsonw_kint(w, "memoryUsed", p->mem);
        clarity_jsonw_kint(w, "diskUsed", p->disk);
        clarity_jsonw_key(w, "executors");
        clarity_jsonw_arr_begin(w);
        for (size_t k = 0; k < p->nexecs; k++) clarity_jsonw_str(w, clarity_app_str(a, (uint32_t)p->execs[k]));
        clarity_jsonw_arr_end(w);
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
}

int clarity__shs_rdd_list(struct shs_req *r)
{
    const struct clarity_app *a = r->app;
    const struct clarity_rdd_storage **v = malloc((a->ncached ? a->ncached : 1) * sizeof *v);
    if (!v) return clarity__shs_oom(r);
    size_t n = 0;
    for (size_t i = 0; i < a->ncached; i++)
        if (!a->cached[i].unpersisted && a->cached[i].nlive_parts > 0) v[n++] = &a->cached[i];
    qsort(v, n, sizeof *v, cmp_rdd);
    clarity_jsonw_arr_begin(r->w);
    for (size_t i = 0; i < n; i++) rdd_write(r->w, a, v[i]);
    clarity_jsonw_arr_end(r->w);
    free(v);
    return CLARITY_OK;
}

int clarity__shs_rdd_one_check(struct shs_req *r)
{
    if (rdd_by_id(r->app, r->rdd_id)) return CLARITY_OK;
    return clarity__shs_fail(r, SHS_NOT_FOUND, "unknown rdd: %lld", (long long)r->rdd_id);
}

int clarity__shs_rdd_one(struct shs_req *r)
{
    rdd_write(r->w, r->app, rdd_by_id(r->app, r->rdd_id));
    return CLARITY_OK;
}
