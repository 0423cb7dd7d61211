/* Task Info, Task Metrics of every version and the end reason, read in one pass per object. */
#include "model/decode/task_decode.h"
#include <string.h>
#include "model/build.h"
#include "model/metric_keys.h"

/* Task events have at most ~20 members per object; members past this are ignored. */
#define MAX_MEMBERS 64
#define KEY(lit) (kl == sizeof lit - 1 && !memcmp(k, lit, sizeof lit - 1))

static void unknown(struct task_rec *r, const char *where, const char *k, size_t kl)
{
    r->unknown_total++;
    if (r->nunknown < TASK_REC_UNKNOWN_MAX) {
        r->unknown[r->nunknown].where = where;
        r->unknown[r->nunknown].key = k;
        r->unknown[r->nunknown].len = kl;
        r->nunknown++;
    }
}

/* Keys Spark wrote that clarity deliberately does not keep (1.x-era fields, the push-read
 * sub-object read separately, block updates). */
static bool ignored_metric_key(const char *k, size_t kl)
{
    static const char *const keys[] = {"Shuffle Finish Time", "Total Blocks Fetched", "Remote Fetch Time",
                                       "Data Read Method", "Data Write Method", "Updated Blocks", "Host Name",
                                       "Shuffle Push Read Metrics", "Push Based Shuffle"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strlen(keys[i]) == kl && !memcmp(keys[i], k, kl)) return true;
    return false;
}

static void set_metric(struct task_rec *r, int m, int64_t v)
{
    r->m[m] = v;
    r->metric_mask |= 1ull << m;
}

static void read_metric_group(struct task_rec *r, cj_val obj, int (*lookup)(const char *, size_t))
{
    cj_member mem[MAX_MEMBERS];
    size_t nm = clarity_cj_object_members(obj, mem, MAX_MEMBERS);
    for (size_t i = 0; i < nm && i < MAX_MEMBERS; i++) {
        const char *k = mem[i].key;
        size_t kl = mem[i].klen;
        int m = lookup(k, kl);
        int64_t x;
        if (m >= 0 && clarity_cj_int(mem[i].val, &x)) set_metric(r, m, x);
        else if (m < 0 && !ignored_metric_key(k, kl)) unknown(r, "Task Metrics", k, kl);
    }
}

static void read_task_metrics(struct task_rec *r, cj_val tm)
{
    cj_member mem[MAX_MEMBERS];
    size_t nm = clarity_cj_object_members(tm, mem, MAX_MEMBERS);
    for (size_t i = 0; i < nm && i < MAX_MEMBERS; i++) {
        const char *k = mem[i].key;
        size_t kl = mem[i].klen;
        cj_val v = mem[i].val;
        if (clarity_cj_type(v) != CJ_OBJECT) {
            int m = clarity_metric_key_top(k, kl);
            int64_t x;
            if (m >= 0 && clarity_cj_int(v, &x)) set_metric(r, m, x);
            else if (m < 0 && !ignored_metric_key(k, kl)) unknown(r, "Task Metrics", k, kl);
            continue;
        }
        if (KEY("Shuffle Read Metrics")) {
            read_metric_group(r, v, clarity_metric_key_shuffle_read);
            cj_member sub[MAX_MEMBERS];
            size_t ns = clarity_cj_object_members(v, sub, MAX_MEMBERS);
            for (size_t j = 0; j < ns && j < MAX_MEMBERS; j++) {
                const char *k2 = sub[j].key;
                size_t kl2 = sub[j].klen;
                /* both spellings of the push-based sub-object (apache/spark#40749, #48102) */
                if ((kl2 == 25 && !memcmp(k2, "Shuffle Push Read Metrics", 25)) ||
                    (kl2 == 18 && !memcmp(k2, "Push Based Shuffle", 18)))
                    read_metric_group(r, sub[j].val, clarity_metric_key_shuffle_push);
            }
        } else if (KEY("Shuffle Write Metrics")) read_metric_group(r, v, clarity_metric_key_shuffle_write);
        else if (KEY("Input Metrics")) read_metric_group(r, v, clarity_metric_key_input);
        else if (KEY("Output Metrics")) read_metric_group(r, v, clarity_metric_key_output);
        else if (!ignored_metric_key(k, kl)) unknown(r, "Task Metrics", k, kl);
    }
}

static int locality_of(const char *s, size_t n)
{
    static const char *names[] = {"PROCESS_LOCAL", "NODE_LOCAL", "NO_PREF", "RACK_LOCAL", "ANY"};
    for (int i = 0; i < 5; i++)
        if (strlen(names[i]) == n && memcmp(names[i], s, n) == 0) return i;
    return CLARITY_LOC_UNKNOWN;
}

static int end_reason(const char *s, size_t n)
{
    static const struct { const char *name; int end; } r[] = {
        {"Success", CLARITY_END_SUCCESS}, {"Resubmitted", CLARITY_END_RESUBMITTED},
        {"TaskResultLost", CLARITY_END_TASK_RESULT_LOST}, {"UnknownReason", CLARITY_END_UNKNOWN_REASON},
        {"FetchFailed", CLARITY_END_FETCH_FAILED}, {"ExceptionFailure", CLARITY_END_EXCEPTION},
        {"TaskKilled", CLARITY_END_KILLED}, {"TaskCommitDenied", CLARITY_END_COMMIT_DENIED},
        {"ExecutorLostFailure", CLARITY_END_EXECUTOR_LOST},
    };
    for (size_t i = 0; i < sizeof r / sizeof *r; i++)
        if (strlen(r[i].name) == n && memcmp(r[i].name, s, n) == 0) return r[i].end;
    return CLARITY_END_OTHER;
}

static void read_task_info(struct task_rec *t, cj_val info)
{
    cj_member mem[MAX_MEMBERS];
    size_t nm = clarity_cj_object_members(info, mem, MAX_MEMBERS);
    const char *loc = NULL;
    size_t loc_len = 0;
    for (size_t i = 0; i < nm && i < MAX_MEMBERS; i++) {
        const char *k = mem[i].key;
        size_t kl = mem[i].klen;
        cj_val v = mem[i].val;
        if (KEY("Task ID")) t->has_tid = clarity_cj_int(v, &t->tid);
        else if (KEY("Index")) clarity_cj_int(v, &t->index);
        else if (KEY("Attempt")) clarity_cj_int(v, &t->attempt);
        else if (KEY("Partition ID")) clarity_cj_int(v, &t->partition);
        else if (KEY("Launch Time")) clarity_cj_int(v, &t->launch);
        else if (KEY("Executor ID")) clarity_cj_str(v, &t->exec, &t->exec_len);
        else if (KEY("Host")) clarity_cj_str(v, &t->host, &t->host_len);
        else if (KEY("Locality")) clarity_cj_str(v, &loc, &loc_len);
        else if (KEY("Speculative")) clarity_cj_bool(v, &t->spec);
        else if (KEY("Getting Result Time")) clarity_cj_int(v, &t->getting);
        else if (KEY("Finish Time")) clarity_cj_int(v, &t->finish);
        else if (KEY("Failed")) clarity_cj_bool(v, &t->failed);
        else if (KEY("Killed")) clarity_cj_bool(v, &t->killed);
        else if (KEY("Accumulables")) t->has_accums = true, t->accums = v;
        else unknown(t, "Task Info", k, kl);
    }
    t->locality = loc ? locality_of(loc, loc_len) : CLARITY_LOC_UNKNOWN;
}

/* Spark 2.x kept peak execution memory only as an internal accumulator. */
static void peak_memory_from_accumulables(struct task_rec *r)
{
    cj_val a, v[2];
    cj_iter it;
    const char *name;
    size_t n;
    static const char key[] = "internal.metrics.peakExecutionMemory";
    static const cj_key keys[2] = {CJ_KEY("Name"), CJ_KEY("Update")};
    if (!clarity_cj_array_begin(r->accums, &it)) return;
    while (clarity_cj_array_next(&it, &a)) {
        int64_t x;
        uint64_t f = clarity_cj_pick(a, keys, 2, v);   /* one pass per accumulable, not two lookups */
        if ((f & 1) && clarity_cj_str(v[0], &name, &n) && n == sizeof key - 1 && memcmp(name, key, n) == 0 &&
            (f & 2) && clarity_value_as_int(v[1], &x)) {
            set_metric(r, CLARITY_TM_PEAK_EXEC_MEM, x);
            r->peak_from_accums = true;
            return;
        }
    }
}

void clarity_task_rec_decode(cj_val ev, enum task_kind kind, struct task_rec *r)
{
    memset(r, 0, offsetof(struct task_rec, exec_buf));
    r->kind = kind;
    r->stage_id = -1;
    r->partition = -1;
    r->end = CLARITY_END_SUCCESS;
    cj_val info, metrics;
    bool has_info = false;
    cj_member mem[MAX_MEMBERS];
    size_t nm = clarity_cj_object_members(ev, mem, MAX_MEMBERS);
    for (size_t i = 0; i < nm && i < MAX_MEMBERS; i++) {
        const char *k = mem[i].key;
        size_t kl = mem[i].klen;
        cj_val v = mem[i].val;
        if (KEY("Task Info")) has_info = true, info = v;
        else if (KEY("Stage ID")) clarity_cj_int(v, &r->stage_id);
        else if (KEY("Stage Attempt ID")) clarity_cj_int(v, &r->stage_attempt);
        else if (KEY("Task End Reason")) r->has_reason = true, r->reason = v;
        else if (KEY("Task Metrics")) r->has_metrics = clarity_cj_type(v) == CJ_OBJECT, metrics = v;
        else if (KEY("Task Executor Metrics")) r->has_exec_metrics = clarity_cj_type(v) == CJ_OBJECT, r->exec_metrics = v;
        else if (KEY("Task Type")) {
            const char *s;
            size_t n;
            r->result_task = clarity_cj_str(v, &s, &n) && n == 10 && !memcmp(s, "ResultTask", 10);
        } else if (!KEY("Event")) unknown(r, "task event", k, kl);
    }
    if (has_info) read_task_info(r, info);
    if (r->has_reason) {
        const char *s;
        size_t n;
        if (clarity_cj_get_str(r->reason, "Reason", &s, &n)) r->end = end_reason(s, n);
    }
    if (r->has_metrics) {
        read_task_metrics(r, metrics);
        if (!(r->metric_mask & (1ull << CLARITY_TM_PEAK_EXEC_MEM)) && r->has_accums) peak_memory_from_accumulables(r);
    }
}

bool clarity_task_rec_own_strings(struct task_rec *r)
{
    if (r->exec_len >= sizeof r->exec_buf || r->host_len >= sizeof r->host_buf) return false;
    if (r->exec) memcpy(r->exec_buf, r->exec, r->exec_len);
    if (r->host) memcpy(r->host_buf, r->host, r->host_len);
    r->owned = true;
    return true;
}

size_t clarity_task_rec_members(cj_val v) { return clarity_cj_type(v) == CJ_OBJECT ? clarity_cj_object_members(v, NULL, 0) : 0; }

bool clarity_task_rec_own_exec_metrics(struct task_rec *r)
{
    cj_member mem[TASK_REC_EXEC_MAX];
    size_t nm = clarity_cj_object_members(r->exec_metrics, mem, TASK_REC_EXEC_MAX);
    if (nm > TASK_REC_EXEC_MAX) return false;
    uint8_t n = 0;
    for (size_t i = 0; i < nm; i++) {
        int name = clarity_exec_metric_index(mem[i].key, mem[i].klen);
        if (name < 0) return false;
        int64_t x;
        /* a value that is not an integer is skipped, as the applying thread skips it */
        if (!clarity_cj_int(mem[i].val, &x)) continue;
        r->exec_vals[n].pos = (uint8_t)i;
        r->exec_vals[n].name = (uint8_t)name;
        r->exec_vals[n++].value = x;
    }
    r->nexec_vals = n;
    r->has_exec_metrics = false;
    return true;
}
