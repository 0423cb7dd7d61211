/* Stage submitted/completed, Stage Info, RDD Info and accumulables. */
#include "model/build.h"

static void read_rdd(struct apply_ctx *c, cj_val r)
{
    struct clarity_app *a = c->app;
    int64_t id;
    if (!clarity_cj_get_int(r, "RDD ID", &id)) return;
    uint32_t row;
    struct clarity_rdd *d;
    if (clarity_idmap_get(&a->rdd_by_id, id, &row)) d = &a->rdds[row];
    else {
        d = CLARITY_VEC_PUSH(a->rdds, a->nrdds, a->cap_rdds);
        if (!d || clarity_idmap_put(&a->rdd_by_id, id, (uint32_t)(a->nrdds - 1)) != 0) {
            c->failed = 1;
            return;
        }
    }
    d->rdd_id = id;
    d->name = clarity_intern_key(c, r, "Name");
    d->scope = clarity_intern_key(c, r, "Scope");
    d->call_site = clarity_intern_key(c, r, "Callsite");
    cj_val v;
    if (clarity_cj_get(r, "Parent IDs", &v)) d->nparents = clarity_read_int_array(c, v, &d->parents);
    if (clarity_cj_get(r, "Storage Level", &v)) d->storage_level = clarity_intern_json(c, v);
    d->num_partitions = clarity_get_int_or(r, "Number of Partitions", 0);
    d->num_cached_partitions = clarity_get_int_or(r, "Number of Cached Partitions", 0);
    d->mem_size = clarity_get_int_or(r, "Memory Size", 0);
    d->disk_size = clarity_get_int_or(r, "Disk Size", 0);
    clarity_cj_get_bool(r, "Barrier", &d->barrier);
}

void clarity_read_stage_info(struct apply_ctx *c, cj_val info, struct clarity_stage *st)
{
    uint32_t s = clarity_intern_key(c, info, "Stage Name");
    if (s) st->name = s;
    s = clarity_intern_key(c, info, "Details");
    if (s) st->details = s;
    st->num_tasks = clarity_get_int_or(info, "Number of Tasks", st->num_tasks);
    int64_t t;
    if (clarity_cj_get_int(info, "Submission Time", &t)) st->submit_ms = t;
    if (clarity_cj_get_int(info, "Completion Time", &t)) st->complete_ms = t;
    s = clarity_intern_key(c, info, "Failure Reason");
    if (s) st->failure = s;
    st->resource_profile_id = (int32_t)clarity_get_int_or(info, "Resource Profile Id", st->resource_profile_id);
    clarity_cj_get_bool(info, "Shuffle Push Enabled", &st->shuffle_push_enabled);
    st->shuffle_mergers = (int32_t)clarity_get_int_or(info, "Shuffle Push Mergers Count", st->shuffle_mergers);
    cj_val v, r;
    cj_iter it;
    if (clarity_cj_get(info, "Parent IDs", &v)) st->nparents = clarity_read_int_array(c, v, &st->parents);
    if (clarity_cj_get(info, "RDD Info", &v) && clarity_cj_array_begin(v, &it)) {
        size_t n = 0;
        while (clarity_cj_array_next(&it, &r)) n++;
        st->rdd_ids = n ? clarity_arena_alloc(&c->app->arena, n * sizeof *st->rdd_ids) : NULL;
        st->nrdd_ids = 0;
        clarity_cj_array_begin(v, &it);
        while (st->rdd_ids && clarity_cj_array_next(&it, &r)) {
            int64_t id;
            if (clarity_cj_get_int(r, "RDD ID", &id)) st->rdd_ids[st->nrdd_ids++] = id;
            read_rdd(c, r);
        }
    }
}

/* True when v is an integer, or a string that is exactly the decimal text of one. */
static bool plain_int(cj_val v, int64_t *out)
{
    enum clarity_cj_type t = clarity_cj_type(v);
    if (t == CJ_INT || t == CJ_UINT) return clarity_cj_int(v, out);
    const char *s;
    size_t n;
    if (!clarity_cj_str(v, &s, &n) || n == 0 || n > 19) {
        clarity_value_as_int(v, out);
        return false;
    }
    size_t i = s[0] == '-' ? 1 : 0;
    if (i == n || (s[i] == '0' && n > i + 1)) {
        clarity_value_as_int(v, out);
        return false;
    }
    int64_t x = 0;
    for (size_t k = i; k < n; k++) {
        if (s[k] < '0' || s[k] > '9') {
            clarity_value_as_int(v, out);
            return false;
        }
        x = x * 10 + (s[k] - '0');
    }
    *out = i ? -x : x;
    return true;
}

/* Whether an accumulable's Name is one of names, compared as the model keeps it: a C string
 * (up to a NUL), "" when missing or not a string. */
static bool name_wanted(cj_val a, const char *const *names, size_t n)
{
    const char *s = "";
    size_t len = 0;
    cj_val v;
    if (clarity_cj_get(a, "Name", &v) && !clarity_cj_str(v, &s, &len)) s = "", len = 0;
    len = strnlen(s, len);
    for (size_t k = 0; k < n; k++)
        if (strlen(names[k]) == len && !memcmp(names[k], s, len)) return true;
    return false;
}

void clarity_read_accumulables(struct apply_ctx *c, cj_val arr, uint32_t owner, struct clarity_accums *acc,
                       bool updates, bool user_only, const char *const *names, size_t n)
{
    cj_iter it;
    cj_val a, v;
    if (!clarity_cj_array_begin(arr, &it)) return;
    while (clarity_cj_array_next(&it, &a)) {
        bool internal = false;
        const char *m;
        size_t ml;
        clarity_cj_get_bool(a, "Internal", &internal);
        bool is_sql = clarity_cj_get_str(a, "Metadata", &m, &ml) && ml == 3 && memcmp(m, "sql", 3) == 0;
        if (user_only && (internal || is_sql)) continue;
        if (n && !name_wanted(a, names, n)) continue;
        struct clarity_accum *x = CLARITY_VEC_PUSH(acc->p, acc->n, acc->cap);
        if (!x) {
            c->failed = 1;
            return;
        }
        x->owner = owner;
        x->id = clarity_get_int_or(a, "ID", -1);
        x->name = clarity_intern_key(c, a, "Name");
        /* values are mostly distinct integers: interning their text would grow the string
         * table by one entry per task, so only text that is not a plain integer is kept */
        if (updates && clarity_cj_get(a, "Update", &v)) {
            x->has_update = true;
            if (!plain_int(v, &x->update)) x->update_str = clarity_cj_type(v) == CJ_STRING ? clarity_intern_val(c, v) : clarity_intern_json(c, v);
        }
        if (clarity_cj_get(a, "Value", &v) && !plain_int(v, &x->value))
            x->value_str = clarity_cj_type(v) == CJ_STRING ? clarity_intern_val(c, v) : clarity_intern_json(c, v);
        x->internal = internal;
        clarity_cj_get_bool(a, "Count Failed Values", &x->count_failed);
        x->is_sql = is_sql;
    }
}

static struct clarity_stage *stage_of(struct apply_ctx *c, cj_val ev, cj_val *info)
{
    int64_t sid, att = 0;
    if (!clarity_cj_get(ev, "Stage Info", info) || !clarity_cj_get_int(*info, "Stage ID", &sid)) {
        clarity_problem(c, "stage event without \"Stage Info\".\"Stage ID\"");
        return NULL;
    }
    clarity_cj_get_int(*info, "Stage Attempt ID", &att);
    return clarity_stage_get_or_add(c, sid, att);
}

void clarity_apply_stage_submitted(struct apply_ctx *c, cj_val ev)
{
    cj_val info, props;
    struct clarity_stage *st = stage_of(c, ev, &info);
    if (!st) return;
    clarity_read_stage_info(c, info, st);
    st->seen_submitted = true;
    if (st->status == CLARITY_STAGE_PENDING) st->status = CLARITY_STAGE_ACTIVE;
    if (clarity_cj_get(ev, "Properties", &props) && clarity_cj_type(props) == CJ_OBJECT) {
        uint32_t pool = clarity_intern_key(c, props, "spark.scheduler.pool");
        if (pool) st->pool = pool;
    }
}

void clarity_apply_stage_completed(struct apply_ctx *c, cj_val ev)
{
    cj_val info, acc;
    struct clarity_stage *st = stage_of(c, ev, &info);
    if (!st) return;
    clarity_read_stage_info(c, info, st);
    st->seen_completed = true;
    st->status = st->failure ? CLARITY_STAGE_FAILED : CLARITY_STAGE_COMPLETE;
    if (clarity_cj_get(info, "Accumulables", &acc))
        clarity_read_accumulables(c, acc, (uint32_t)(st - c->app->stages), &c->app->stage_accums, false, false, NULL, 0);
}

void clarity_apply_unpersist_rdd(struct apply_ctx *c, cj_val ev)
{
    (void)c;
    (void)ev; /* storage state is not modelled beyond RDD Info; counted as a known event */
}
