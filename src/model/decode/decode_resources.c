/* Resource profiles (SparkListenerResourceProfileAdded) and the resources an executor was
 * given ("Executor Info"."Resources"), decoded into typed tables at load time. */
#include "model/build.h"

static size_t members(cj_val obj)
{
    cj_iter it;
    const char *k;
    size_t kl, n = 0;
    cj_val v;
    if (!clarity_cj_object_begin(obj, &it)) return 0;
    while (clarity_cj_object_next(&it, &k, &kl, &v)) n++;
    return n;
}

/* Arena array of n elements (NULL for none); sets c->failed when out of memory. */
static void *alloc_n(struct apply_ctx *c, size_t n, size_t size)
{
    if (!n) return NULL;
    void *p = clarity_arena_alloc(&c->app->arena, n * size);
    if (!p) c->failed = 1;
    return p;
}

/* "Resource Name" when logged as a string, else the map key (Spark keys requests by it). */
static uint32_t name_or_key(struct apply_ctx *c, cj_val r, uint32_t key)
{
    cj_val v;
    const char *s;
    size_t n;
    if (clarity_cj_get(r, "Resource Name", &v) && clarity_cj_str(v, &s, &n)) return clarity_intern(c, s, n);
    return key;
}

static void read_exec_requests(struct apply_ctx *c, cj_val obj, struct clarity_resource_profile *p)
{
    p->has_exec_requests = true;
    size_t n = members(obj);
    p->exec_requests = alloc_n(c, n, sizeof *p->exec_requests);
    if (!p->exec_requests) return;
    cj_iter it;
    const char *k;
    size_t kl;
    cj_val r, am;
    clarity_cj_object_begin(obj, &it);
    while (p->nexec_requests < n && clarity_cj_object_next(&it, &k, &kl, &r)) {
        struct clarity_exec_request *q = &p->exec_requests[p->nexec_requests++];
        q->key = clarity_intern(c, k, kl);
        q->name = name_or_key(c, r, q->key);
        if (clarity_cj_get(r, "Amount", &am)) clarity_cj_int(am, &q->amount);
        q->discovery_script = clarity_intern_key(c, r, "Discovery Script");
        q->vendor = clarity_intern_key(c, r, "Vendor");
    }
}

static void read_task_requests(struct apply_ctx *c, cj_val obj, struct clarity_resource_profile *p)
{
    p->has_task_requests = true;
    size_t n = members(obj);
    p->task_requests = alloc_n(c, n, sizeof *p->task_requests);
    if (!p->task_requests) return;
    cj_iter it;
    const char *k;
    size_t kl;
    cj_val r, am;
    clarity_cj_object_begin(obj, &it);
    while (p->ntask_requests < n && clarity_cj_object_next(&it, &k, &kl, &r)) {
        struct clarity_task_request *q = &p->task_requests[p->ntask_requests++];
        q->key = clarity_intern(c, k, kl);
        q->name = name_or_key(c, r, q->key);
        if (clarity_cj_get(r, "Amount", &am)) clarity_cj_double(am, &q->amount);
    }
}

void clarity__model_resource_profile_read(struct apply_ctx *c, cj_val ev, struct clarity_resource_profile *p)
{
    cj_val v;
    if (clarity_cj_get(ev, "Executor Resource Requests", &v)) read_exec_requests(c, v, p);
    if (clarity_cj_get(ev, "Task Resource Requests", &v)) read_task_requests(c, v, p);
}

void clarity__model_resources_read(struct apply_ctx *c, cj_val obj, struct clarity_executor *e)
{
    size_t n = members(obj);
    e->has_resources = true;
    e->resources = alloc_n(c, n, sizeof *e->resources);
    e->nresources = 0;
    if (!e->resources) return;
    cj_iter it, ai;
    const char *k;
    size_t kl;
    cj_val r, addrs, x;
    clarity_cj_object_begin(obj, &it);
    while (e->nresources < n && clarity_cj_object_next(&it, &k, &kl, &r)) {
        struct clarity_resource_info *ri = &e->resources[e->nresources++];
        ri->key = clarity_intern(c, k, kl);
        uint32_t name = clarity_intern_key(c, r, "name");
        ri->name = name ? name : ri->key;
        if (!clarity_cj_get(r, "addresses", &addrs) || !clarity_cj_array_begin(addrs, &ai)) continue;
        size_t na = 0;
        while (clarity_cj_array_next(&ai, &x)) na++;
        ri->addresses = alloc_n(c, na, sizeof *ri->addresses);
        if (!ri->addresses) continue;
        clarity_cj_array_begin(addrs, &ai);
        while (ri->naddresses < na && clarity_cj_array_next(&ai, &x)) ri->addresses[ri->naddresses++] = clarity_intern_val(c, x);
    }
}
