/* Texts SHS derives from a task's end reason: errorMessage is TaskEndReason.toErrorString
 * (TaskKilled gives its kill reason), and killedTasksSummary is keyed by the kill reason or
 * the TaskCommitDenied text. The model keeps non-success reasons as raw JSON. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "event/json.h"
#include "shs/shs_internal.h"
#include "util/strbuf.h"

static void put_key(struct clarity_strbuf *b, cj_val o, const char *key, const char *dflt)
{
    const char *s;
    size_t n;
    if (cj_get_str(o, key, &s, &n)) clarity_sb_mem(b, s, n);
    else if (dflt) clarity_sb_str(b, dflt);
}

/* StackTraceElement.toString: "cls.method(File.java:12)" */
static void stack_trace(struct clarity_strbuf *b, cj_val st)
{
    cj_iter it;
    cj_val e;
    bool first = true;
    if (!cj_array_begin(st, &it)) return;
    while (cj_array_next(&it, &e)) {
        if (!first) clarity_sb_str(b, "\n");
        first = false;
        clarity_sb_str(b, "        ");
        put_key(b, e, "Declaring Class", "");
        clarity_sb_str(b, ".");
        put_key(b, e, "Method Name", "");
        const char *f;
        size_t fn;
        int64_t line = -1;
        cj_get_int(e, "Line Number", &line);
        if (cj_get_str(e, "File Name", &f, &fn)) {
            clarity_sb_str(b, "(");
            clarity_sb_mem(b, f, fn);
            if (line >= 0) clarity_sb_printf(b, ":%lld", (long long)line);
            clarity_sb_str(b, ")");
        } else {
            clarity_sb_str(b, line == -2 ? "(Native Method)" : "(Unknown Source)");
        }
    }
}

static void describe(struct clarity_strbuf *b, cj_val r, const char *reason)
{
    const char *s;
    size_t n;
    int64_t x;
    bool flag;
    if (!strcmp(reason, "ExceptionFailure")) {
        if (cj_get_str(r, "Full Stack Trace", &s, &n) && n) {
            clarity_sb_mem(b, s, n);
            return;
        }
        put_key(b, r, "Class Name", "");
        clarity_sb_str(b, ": ");
        put_key(b, r, "Description", "");
        clarity_sb_str(b, "\n");
        cj_val st;
        if (cj_get(r, "Stack Trace", &st)) stack_trace(b, st);
    } else if (!strcmp(reason, "FetchFailed")) {
        cj_val bm;
        clarity_sb_str(b, "FetchFailed(");
        if (cj_get(r, "Block Manager Address", &bm) && cj_type(bm) == CJ_OBJECT) {
            clarity_sb_str(b, "BlockManagerId(");
            put_key(b, bm, "Executor ID", "");
            clarity_sb_str(b, ", ");
            put_key(b, bm, "Host", "");
            clarity_sb_printf(b, ", %lld, None)", cj_get_int(bm, "Port", &x) ? (long long)x : 0LL);
        } else {
            clarity_sb_str(b, "null");
        }
        clarity_sb_printf(b, ", shuffleId=%lld", cj_get_int(r, "Shuffle ID", &x) ? (long long)x : 0LL);
        clarity_sb_printf(b, ", mapIndex=%lld", cj_get_int(r, "Map Index", &x) ? (long long)x : -1LL);
        clarity_sb_printf(b, ", mapId=%lld", cj_get_int(r, "Map ID", &x) ? (long long)x : 0LL);
        clarity_sb_printf(b, ", reduceId=%lld, message=\n", cj_get_int(r, "Reduce ID", &x) ? (long long)x : 0LL);
        put_key(b, r, "Message", "");
        clarity_sb_str(b, "\n)");
    } else if (!strcmp(reason, "TaskKilled")) {
        put_key(b, r, "Kill Reason", "unknown reason");
    } else if (!strcmp(reason, "TaskCommitDenied")) {
        clarity_sb_printf(b, "TaskCommitDenied (Driver denied task commit) for job: %lld",
                cj_get_int(r, "Job ID", &x) ? (long long)x : -1LL);
        clarity_sb_printf(b, ", partition: %lld", cj_get_int(r, "Partition ID", &x) ? (long long)x : -1LL);
        clarity_sb_printf(b, ", attemptNumber: %lld", cj_get_int(r, "Attempt Number", &x) ? (long long)x : -1LL);
    } else if (!strcmp(reason, "ExecutorLostFailure")) {
        flag = true;
        cj_get_bool(r, "Exit Caused By App", &flag);
        clarity_sb_str(b, "ExecutorLostFailure (executor ");
        put_key(b, r, "Executor ID", "Unknown");
        clarity_sb_str(b, flag ? " exited caused by one of the running tasks)" : " exited unrelated to the running tasks)");
        if (cj_get_str(r, "Loss Reason", &s, &n)) {
            clarity_sb_str(b, " Reason: ");
            clarity_sb_mem(b, s, n);
        }
    } else if (!strcmp(reason, "TaskResultLost")) {
        clarity_sb_str(b, "TaskResultLost (result lost from block manager)");
    } else if (!strcmp(reason, "Resubmitted")) {
        clarity_sb_str(b, "Resubmitted (resubmitted due to lost executor)");
    } else {
        clarity_sb_str(b, "UnknownReason");
    }
}

/* Parses the stored reason JSON of a row; calls describe() when its Reason is wanted. */
static char *reason_text(const struct shs_agg *g, size_t row, bool killed_key)
{
    uint32_t id = g->reason_of_row ? g->reason_of_row[row] : 0;
    if (!id) return killed_key ? NULL : NULL;
    const char *json = clarity_app_str(g->app, id);
    size_t len = strlen(json);
    char *copy = calloc(len + CJ_PADDING + 1, 1);
    cj_parser *p = cj_parser_new(len + 1);
    struct clarity_strbuf b = {0};
    cj_val root;
    const char *why;
    const char *rs;
    size_t rn;
    if (!copy || !p) goto out;
    memcpy(copy, json, len);
    if (cj_parse(p, copy, len, &root, &why) != 0 || !cj_get_str(root, "Reason", &rs, &rn)) goto out;
    char reason[64];
    snprintf(reason, sizeof reason, "%.*s", (int)rn, rs);
    if (killed_key && strcmp(reason, "TaskKilled") && strcmp(reason, "TaskCommitDenied")) goto out;
    describe(&b, root, reason);
out:
    if (p) cj_parser_free(p);
    free(copy);
    return b.p;
}

char *shs_error_message(const struct shs_agg *g, size_t row) { return reason_text(g, row, false); }
char *shs_killed_key(const struct shs_agg *g, size_t row) { return reason_text(g, row, true); }
