/* Stage Info and RDD Info are read with one pass over their members (clarity_cj_pick). The
 * model must hold what the former lookup-by-name reader gave: that reader is kept here as the
 * reference and run over the same hand-written events (members out of order, duplicated keys,
 * missing keys, nulls, wrong types), read one after another as the loader reads them. */
#include <criterion/criterion.h>
#include "event/json.h"
#include "load_helpers.h"

#define START "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"x\",\"App ID\":\"a-1\",\"Timestamp\":1000,\"User\":\"u\"}\n"

/* Submitted: members out of order, "Stage Name" twice, a null "Details", a string "Number of
 * Tasks", an RDD with "RDD ID" last and "Name" twice, one without "RDD ID". */
#define INFO1 "{\"RDD Info\":[{\"Name\":\"r1\",\"Scope\":null,\"Parent IDs\":[4,5],\"Number of Partitions\":3," \
    "\"Name\":\"r1-again\",\"Storage Level\":{\"Use Disk\":false,\"Replication\":1},\"Barrier\":true,\"RDD ID\":9}," \
    "{\"Name\":\"no id\"}],\"Stage Name\":\"first\",\"Stage ID\":2,\"Details\":null,\"Stage Name\":\"second\"," \
    "\"Number of Tasks\":\"4\",\"Parent IDs\":[1,0],\"Submission Time\":1500,\"Resource Profile Id\":true," \
    "\"Shuffle Push Enabled\":1,\"Stage Attempt ID\":0}"
/* Completed: fewer parents and RDDs (arrays reused), a failure, a mistyped completion time. */
#define INFO2 "{\"Stage ID\":2,\"Stage Attempt ID\":0,\"Stage Name\":\"third\",\"Details\":\"d\",\"Number of Tasks\":6," \
    "\"Parent IDs\":[1],\"Completion Time\":\"later\",\"Failure Reason\":\"boom\",\"Shuffle Push Enabled\":true," \
    "\"Shuffle Push Mergers Count\":7,\"RDD Info\":[{\"RDD ID\":9,\"Name\":\"r9\",\"Memory Size\":11,\"Disk Size\":null," \
    "\"Number of Cached Partitions\":2,\"Callsite\":\"cs\",\"Parent IDs\":[]}],\"Accumulables\":[]}"

struct ref_rdd { int64_t id; char name[16], scope[16], call_site[16], storage[64]; int64_t parents[4]; size_t nparents;
                 int64_t parts, cached, mem, disk; bool barrier; };
struct ref_stage { char name[16], details[16], failure[16]; int64_t num_tasks, submit, complete, parents[4];
                   size_t nparents; int32_t profile, mergers; bool push; int64_t rdd_ids[4]; size_t nrdd_ids;
                   struct ref_rdd rdd; };

static void ref_str(cj_val o, const char *k, char *out, size_t cap)
{
    cj_val v;
    const char *s;
    size_t n;
    if (!clarity_cj_get(o, k, &v)) { out[0] = 0; return; }
    if (!clarity_cj_str(v, &s, &n)) { out[0] = 0; return; }
    cr_assert_lt(n, cap);
    memcpy(out, s, n);
    out[n] = 0;
}
static int64_t ref_int_or(cj_val o, const char *k, int64_t d)
{
    int64_t x;
    return clarity_cj_get_int(o, k, &x) ? x : d;
}
static size_t ref_ints(cj_val o, const char *k, int64_t *out, size_t old)
{
    cj_val v, e;
    cj_iter it;
    size_t n = 0;
    if (!clarity_cj_get(o, k, &v)) return old;
    if (!clarity_cj_array_begin(v, &it)) return 0;
    while (clarity_cj_array_next(&it, &e)) {
        int64_t x = 0;
        clarity_cj_int(e, &x);
        out[n++] = x;
    }
    return n;
}

/* The lookup-by-name reader as it was (clarity_read_stage_info and read_rdd before the pick). */
static void ref_read(struct ref_stage *st, const char *json)
{
    cj_parser *p = clarity_cj_parser_new(strlen(json) + 1);
    char *buf = calloc(1, strlen(json) + CJ_PADDING);
    memcpy(buf, json, strlen(json));
    cj_val info, v, r;
    cj_iter it;
    const char *why;
    cr_assert_eq(clarity_cj_parse(p, buf, strlen(json), &info, &why), 0);
    char s[16];
    ref_str(info, "Stage Name", s, sizeof s);
    if (*s) strcpy(st->name, s);
    ref_str(info, "Details", s, sizeof s);
    if (*s) strcpy(st->details, s);
    st->num_tasks = ref_int_or(info, "Number of Tasks", st->num_tasks);
    int64_t t;
    if (clarity_cj_get_int(info, "Submission Time", &t)) st->submit = t;
    if (clarity_cj_get_int(info, "Completion Time", &t)) st->complete = t;
    ref_str(info, "Failure Reason", s, sizeof s);
    if (*s) strcpy(st->failure, s);
    st->profile = (int32_t)ref_int_or(info, "Resource Profile Id", st->profile);
    clarity_cj_get_bool(info, "Shuffle Push Enabled", &st->push);
    st->mergers = (int32_t)ref_int_or(info, "Shuffle Push Mergers Count", st->mergers);
    st->nparents = ref_ints(info, "Parent IDs", st->parents, st->nparents);
    if (clarity_cj_get(info, "RDD Info", &v) && clarity_cj_array_begin(v, &it)) {
        st->nrdd_ids = 0;
        while (clarity_cj_array_next(&it, &r)) {
            int64_t id;
            if (!clarity_cj_get_int(r, "RDD ID", &id)) continue;
            st->rdd_ids[st->nrdd_ids++] = id;
            struct ref_rdd *d = &st->rdd;
            d->id = id;
            ref_str(r, "Name", d->name, sizeof d->name);
            ref_str(r, "Scope", d->scope, sizeof d->scope);
            ref_str(r, "Callsite", d->call_site, sizeof d->call_site);
            d->nparents = ref_ints(r, "Parent IDs", d->parents, d->nparents);
            cj_val sl;
            if (clarity_cj_get(r, "Storage Level", &sl)) {
                char *j = clarity_cj_to_json(sl, NULL);
                strcpy(d->storage, j);
                free(j);
            }
            d->parts = ref_int_or(r, "Number of Partitions", 0);
            d->cached = ref_int_or(r, "Number of Cached Partitions", 0);
            d->mem = ref_int_or(r, "Memory Size", 0);
            d->disk = ref_int_or(r, "Disk Size", 0);
            clarity_cj_get_bool(r, "Barrier", &d->barrier);
        }
    }
    free(buf);
    clarity_cj_parser_free(p);
}

Test(stage_info_pick, same_model_as_the_lookup_reader)
{
    struct clarity_app *a;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(START
        "{\"Event\":\"SparkListenerStageSubmitted\",\"Stage Info\":" INFO1 ",\"Properties\":{}}\n"
        "{\"Event\":\"SparkListenerStageCompleted\",\"Stage Info\":" INFO2 "}\n", &a, &err), CLARITY_OK, "%s", err.msg);
    struct ref_stage ref = {.num_tasks = 0};
    ref_read(&ref, INFO1);
    /* worked values after the first event, so the reference itself is checked */
    cr_assert_str_eq(ref.name, "first");
    cr_assert_eq(ref.num_tasks, 0, "a string count is not a count");
    cr_assert_eq(ref.profile, 0, "a boolean is not an id");
    cr_assert_str_eq(ref.rdd.name, "r1", "the first of duplicated keys");
    ref_read(&ref, INFO2);

    cr_assert_eq(a->nstages, 1);
    const struct clarity_stage *st = &a->stages[0];
    cr_assert_str_eq(clarity_app_str(a, st->name), ref.name);
    cr_assert_str_eq(clarity_app_str(a, st->name), "third");
    cr_assert_str_eq(clarity_app_str(a, st->details), ref.details);
    cr_assert_str_eq(clarity_app_str(a, st->failure), ref.failure);
    cr_assert_eq(st->status, CLARITY_STAGE_FAILED);
    cr_assert_eq(st->num_tasks, ref.num_tasks);
    cr_assert_eq(st->num_tasks, 6);
    cr_assert_eq(st->submit_ms, ref.submit);
    cr_assert_eq(st->submit_ms, 1500);
    cr_assert_eq(st->complete_ms, ref.complete);
    cr_assert_eq(st->complete_ms, 0, "a string time is not a time");
    cr_assert_eq(st->resource_profile_id, ref.profile);
    cr_assert_eq(st->shuffle_push_enabled, ref.push);
    cr_assert_eq(st->shuffle_mergers, ref.mergers);
    cr_assert_eq(st->shuffle_mergers, 7);
    cr_assert_eq(st->nparents, ref.nparents);
    cr_assert_eq(st->nparents, 1);
    cr_assert_eq(st->parents[0], 1);
    cr_assert_eq(st->nrdd_ids, ref.nrdd_ids);
    cr_assert_eq(st->nrdd_ids, 1);
    cr_assert_eq(st->rdd_ids[0], 9);

    cr_assert_eq(a->nrdds, 1, "the RDD without an id is not kept");
    const struct clarity_rdd *d = &a->rdds[0];
    cr_assert_eq(d->rdd_id, ref.rdd.id);
    cr_assert_str_eq(clarity_app_str(a, d->name), ref.rdd.name);
    cr_assert_str_eq(clarity_app_str(a, d->name), "r9");
    cr_assert_str_eq(clarity_app_str(a, d->scope), ref.rdd.scope);
    cr_assert_str_eq(clarity_app_str(a, d->call_site), ref.rdd.call_site);
    cr_assert_str_eq(clarity_app_str(a, d->storage_level), ref.rdd.storage);
    cr_assert_str_eq(clarity_app_str(a, d->storage_level), "{\"Use Disk\":false,\"Replication\":1}",
                     "kept from the first event: the second has none");
    cr_assert_eq(d->nparents, ref.rdd.nparents);
    cr_assert_eq(d->nparents, 0);
    cr_assert_eq(d->num_partitions, ref.rdd.parts);
    cr_assert_eq(d->num_partitions, 0, "not in the second event: back to 0");
    cr_assert_eq(d->num_cached_partitions, ref.rdd.cached);
    cr_assert_eq(d->mem_size, ref.rdd.mem);
    cr_assert_eq(d->mem_size, 11);
    cr_assert_eq(d->disk_size, ref.rdd.disk);
    cr_assert_eq(d->barrier, ref.rdd.barrier);
    cr_assert(d->barrier, "kept: the second event has no Barrier");
    clarity_app_free(a);
}
