#include "model/decode/preparse.h"
#include <string.h>
#include "model/decode/blank.h"
#include "model/decode/task_decode.h"

static bool starts(const char *line, size_t len, const char *prefix, size_t n)
{
    return len >= n && memcmp(line, prefix, n) == 0;
}

void clarity_preparse_scan(void *ctx, const char *line, size_t len)
{
    static const char log_start[] = "{\"Event\":\"SparkListenerLogStart\"";
    struct preparse_shared *sh = ctx;
    if (!starts(line, len, log_start, sizeof log_start - 1)) return;
    /* the version decides whether accumulables may be blanked; the applying thread reads this
     * line too, for the model */
    const char *v = memmem(line, len, "\"Spark Version\":\"", 17);
    if (v && (size_t)(v - line) + 19 <= len) atomic_store_explicit(&sh->spark3, clarity_blank_spark3(v + 17), memory_order_relaxed);
}

bool clarity_preparse_line(void *ctx, char *line, size_t len, void *recp)
{
    static const char task_end[] = "{\"Event\":\"SparkListenerTaskEnd\"";
    static const char task_start[] = "{\"Event\":\"SparkListenerTaskStart\"";
    struct preparse *pp = ctx;
    struct task_rec *r = recp;
    enum task_kind kind;
    if (starts(line, len, task_end, sizeof task_end - 1)) kind = TASK_END;
    else if (starts(line, len, task_start, sizeof task_start - 1)) kind = TASK_START;
    else return false;
    /* a record carries no accumulables: a line that may have one to keep is the applying
     * thread's (with the usual names, a tenth of the TaskEnds or fewer) */
    if (kind == TASK_END && !clarity_blank_names_absent(line, len, pp->shared->acc_names)) return false;
    bool spark3 = atomic_load_explicit(&pp->shared->spark3, memory_order_relaxed);
    bool hidden_only = pp->shared->hidden_accumulables_only;
    struct blank_undo undo;
    clarity_blank_lean(line, len, kind == TASK_END && spark3, hidden_only, kind == TASK_END && pp->shared->skip_executor_metrics,
                       &undo);
    /* accumulables that are kept need the document: the applying thread parses the line
     * (parsing it here too would only double the work) */
    size_t open, close;
    if (hidden_only && kind == TASK_END && !undo.saved[0] && clarity_blank_find_accumulables(line, len, &open, &close)) {
        clarity_blank_restore(line, &undo);
        clarity_blank_undo_free(&undo);
        return false;
    }
    cj_val root;
    const char *why;
    int rc = clarity_cj_parse(pp->parser, line, len, &root, &why);
    if (rc != 0) {
        clarity_blank_restore(line, &undo);
        clarity_blank_undo_free(&undo);
        return false;
    }
    clarity_blank_undo_free(&undo);
    clarity_task_rec_decode(root, kind, r);
    /* anything that needs the document later, or a message, stays with the applying thread */
    if (!r->has_tid || r->nunknown || r->end != CLARITY_END_SUCCESS) return false;
    /* kept executor metrics travel in the record when every name is one Spark defines */
    if (r->has_exec_metrics && clarity_task_rec_members(r->exec_metrics) > 0 && !clarity_task_rec_own_exec_metrics(r))
        return false;
    if (!clarity_task_rec_own_strings(r)) return false;
    r->has_reason = r->has_exec_metrics = r->has_accums = false;
    return true;
}
