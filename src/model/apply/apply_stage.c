/* Stage submitted/completed, Stage Info, RDD Info and accumulables. */
#include "model/apply/sql_listen.h"

enum { RDD_ID, RDD_NAME, RDD_SCOPE, RDD_CALLSITE, RDD_PARENTS, RDD_STORAGE, RDD_PARTS, RDD_CACHED,
       RDD_MEM, RDD_DISK, RDD_BARRIER, RDD_COUNT };
static const cj_key rdd_keys[RDD_COUNT] = {
    CJ_KEY("RDD ID"), CJ_KEY("Name"), CJ_KEY("Scope"), CJ_KEY("Callsite"), CJ_KEY("Parent IDs"),
    CJ_KEY("Storage Level"), CJ_KEY("Number of Partitions"), CJ_KEY("Number of Cached Partitions"),
    CJ_KEY("Memory Size"), CJ_KEY("Disk Size"), CJ_KEY("Barrier"),
};

static void read_rdd(struct apply_ctx *c, const struct clarity_picked *p, int64_t id)
{
    struct clarity_app *a = c->app;
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
    d->name = clarity_pk_intern(c, p, RDD_NAME);
    d->scope = clarity_pk_intern(c, p, RDD_SCOPE);
    d->call_site = clarity_pk_intern(c, p, RDD_CALLSITE);
    if (clarity_pk_has(p, RDD_PARENTS)) clarity_reread_int_array(c, p->v[RDD_PARENTS], &d->parents, &d->nparents);
    if (clarity_pk_has(p, RDD_STORAGE)) d->storage_level = clarity_intern_json_memo(c, &c->storage_level_memo, p->v[RDD_STORAGE]);
    d->num_partitions = clarity_pk_int_or(p, RDD_PARTS, 0);
    d->num_cached_partitions = clarity_pk_int_or(p, RDD_CACHED, 0);
    d->mem_size = clarity_pk_int_or(p, RDD_MEM, 0);
    d->disk_size = clarity_pk_int_or(p, RDD_DISK, 0);
    clarity_pk_bool(p, RDD_BARRIER, &d->barrier);
}

static const cj_key stage_info_keys[CLARITY_SI_COUNT] = {
    CJ_KEY("Stage ID"), CJ_KEY("Stage Attempt ID"), CJ_KEY("Stage Name"), CJ_KEY("Details"),
    CJ_KEY("Number of Tasks"), CJ_KEY("Submission Time"), CJ_KEY("Completion Time"),
    CJ_KEY("Failure Reason"), CJ_KEY("Resource Profile Id"), CJ_KEY("Shuffle Push Enabled"),
    CJ_KEY("Shuffle Push Mergers Count"), CJ_KEY("Parent IDs"), CJ_KEY("RDD Info"), CJ_KEY("Accumulables"),
};

void clarity_pick_stage_info(cj_val info, struct clarity_picked *p)
{
    p->found = clarity_cj_pick(info, stage_info_keys, CLARITY_SI_COUNT, p->v);
}

void clarity_read_stage_info_picked(struct apply_ctx *c, const struct clarity_picked *p, struct clarity_stage *st)
{
    uint32_t s = clarity_pk_intern(c, p, CLARITY_SI_NAME);
    if (s) st->name = s;
    s = clarity_pk_intern(c, p, CLARITY_SI_DETAILS);
    if (s) st->details = s;
    st->num_tasks = clarity_pk_int_or(p, CLARITY_SI_NTASKS, st->num_tasks);
    int64_t t;
    if (clarity_pk_int(p, CLARITY_SI_SUBMIT, &t)) st->submit_ms = t;
    if (clarity_pk_int(p, CLARITY_SI_COMPLETE, &t)) st->complete_ms = t;
    s = clarity_pk_intern(c, p, CLARITY_SI_FAILURE);
    if (s) st->failure = s;
    st->resource_profile_id = (int32_t)clarity_pk_int_or(p, CLARITY_SI_PROFILE, st->resource_profile_id);
    clarity_pk_bool(p, CLARITY_SI_PUSH, &st->shuffle_push_enabled);
    st->shuffle_mergers = (int32_t)clarity_pk_int_or(p, CLARITY_SI_MERGERS, st->shuffle_mergers);
    cj_val r;
    cj_iter it;
    if (clarity_pk_has(p, CLARITY_SI_PARENTS)) clarity_reread_int_array(c, p->v[CLARITY_SI_PARENTS], &st->parents, &st->nparents);
    if (clarity_pk_has(p, CLARITY_SI_RDDS) && clarity_cj_array_begin(p->v[CLARITY_SI_RDDS], &it)) {
        size_t n = 0;
        while (clarity_cj_array_next(&it, &r)) n++;
        /* The same stage's RDD list comes again with each of its events: kept when unchanged,
         * so a stage costs one copy rather than one per event. */
        int64_t *ids = n <= st->nrdd_ids ? st->rdd_ids : n ? clarity_arena_alloc(&c->app->arena, n * sizeof *ids) : NULL;
        size_t k = 0;
        clarity_cj_array_begin(p->v[CLARITY_SI_RDDS], &it);
        struct clarity_picked rp;
        while (ids && clarity_cj_array_next(&it, &r)) {
            int64_t id;
            rp.found = clarity_cj_pick(r, rdd_keys, RDD_COUNT, rp.v);
            if (!clarity_pk_int(&rp, RDD_ID, &id)) continue;
            ids[k++] = id;
            read_rdd(c, &rp, id);
        }
        st->rdd_ids = ids;
        st->nrdd_ids = k;
    }
}

void clarity_read_stage_info(struct apply_ctx *c, cj_val info, struct clarity_stage *st)
{
    struct clarity_picked p;
    clarity_pick_stage_info(info, &p);
    clarity_read_stage_info_picked(c, &p, st);
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

static struct clarity_stage *stage_of(struct apply_ctx *c, cj_val ev, struct clarity_picked *p)
{
    int64_t sid, att = 0;
    cj_val info;
    if (!clarity_cj_get(ev, "Stage Info", &info)) p->found = 0;
    else clarity_pick_stage_info(info, p);
    if (!clarity_pk_int(p, CLARITY_SI_ID, &sid)) {
        clarity_problem(c, "stage event without \"Stage Info\".\"Stage ID\"");
        return NULL;
    }
    clarity_pk_int(p, CLARITY_SI_ATTEMPT, &att);
    return clarity_stage_get_or_add(c, sid, att);
}

void clarity_apply_stage_submitted(struct apply_ctx *c, cj_val ev)
{
    cj_val props;
    struct clarity_picked p;
    struct clarity_stage *st = stage_of(c, ev, &p);
    if (!st) return;
    clarity_read_stage_info_picked(c, &p, st);
    st->seen_submitted = true;
    if (st->status == CLARITY_STAGE_PENDING) st->status = CLARITY_STAGE_ACTIVE;
    cj_val info;
    if (clarity_cj_get(ev, "Stage Info", &info)) clarity__model_storage_stage_submitted(c, info);
    clarity__sql_listen_stage_submitted(c, st->stage_id, st->attempt);
    if (clarity_cj_get(ev, "Properties", &props) && clarity_cj_type(props) == CJ_OBJECT) {
        uint32_t pool = clarity_intern_key(c, props, "spark.scheduler.pool");
        if (pool) st->pool = pool;
    }
}

void clarity_apply_stage_completed(struct apply_ctx *c, cj_val ev)
{
    struct clarity_picked p;
    struct clarity_stage *st = stage_of(c, ev, &p);
    if (!st) return;
    clarity_read_stage_info_picked(c, &p, st);
    st->seen_completed = true;
    st->status = st->failure ? CLARITY_STAGE_FAILED : CLARITY_STAGE_COMPLETE;
    if (clarity_pk_has(&p, CLARITY_SI_ACCUMS))
        clarity_read_accumulables(c, p.v[CLARITY_SI_ACCUMS], (uint32_t)(st - c->app->stages), &c->app->stage_accums, false, false, NULL, 0);
}

void clarity_apply_unpersist_rdd(struct apply_ctx *c, cj_val ev)
{
    int64_t id;
    if (clarity_cj_get_int(ev, "RDD ID", &id)) clarity__model_storage_unpersist(c, id);
}
