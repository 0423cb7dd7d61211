/* Reads an application's files in order, line by line, and replays each event into the
 * model. Bad lines are counted and located; the rest of the log is still used. */
#include <stdio.h>
#include <sys/stat.h>
#include "event/line_pipe.h"
#include "model/decode/blank.h"
#include "model/apply/sql_listen.h"
#include "model/decode/preparse.h"
#include "model/decode/task_decode.h"

#define MAX_LINE (128u << 20)   /* a bigger line is skipped and reported, never buffered */

typedef void (*handler)(struct apply_ctx *, cj_val);

static void h_excluded(struct apply_ctx *c, cj_val ev) { clarity_apply_exec_excluded(c, ev, true); }
static void h_unexcluded(struct apply_ctx *c, cj_val ev) { clarity_apply_exec_excluded(c, ev, false); }
static void h_node_excluded(struct apply_ctx *c, cj_val ev) { clarity_apply_node_excluded(c, ev, true); }
static void h_node_unexcluded(struct apply_ctx *c, cj_val ev) { clarity_apply_node_excluded(c, ev, false); }
static void h_known(struct apply_ctx *c, cj_val ev) { (void)c; (void)ev; }

/* Short event names (JsonProtocol's, or the last segment of a Jackson class name). */
#define H(lit, fn) {lit, sizeof lit - 1, fn}
static const struct { const char *name; size_t len; handler fn; } handlers[] = {
    H("SparkListenerTaskEnd", clarity_apply_task_end),
    H("SparkListenerTaskStart", clarity_apply_task_start),
    H("SparkListenerTaskGettingResult", clarity_apply_task_getting_result),
    H("SparkListenerStageSubmitted", clarity_apply_stage_submitted),
    H("SparkListenerStageCompleted", clarity_apply_stage_completed),
    H("SparkListenerJobStart", clarity_apply_job_start),
    H("SparkListenerJobEnd", clarity_apply_job_end),
    H("SparkListenerExecutorAdded", clarity_apply_exec_added),
    H("SparkListenerExecutorRemoved", clarity_apply_exec_removed),
    H("SparkListenerBlockManagerAdded", clarity_apply_block_manager_added),
    H("SparkListenerBlockManagerRemoved", clarity_apply_block_manager_removed),
    H("SparkListenerExecutorMetricsUpdate", clarity_apply_exec_metrics_update),
    H("SparkListenerStageExecutorMetrics", clarity_apply_stage_exec_metrics),
    H("SparkListenerApplicationStart", clarity_apply_app_start),
    H("SparkListenerApplicationEnd", clarity_apply_app_end),
    H("SparkListenerEnvironmentUpdate", clarity_apply_env),
    H("SparkListenerLogStart", clarity_apply_log_start),
    H("DBCEventLoggingListenerMetadata", clarity_apply_dbc_metadata),
    H("SparkListenerResourceProfileAdded", clarity_apply_resource_profile),
    H("SparkListenerUnpersistRDD", clarity_apply_unpersist_rdd),
    H("SparkListenerSQLExecutionStart", clarity_apply_sql_start),
    H("SparkListenerSQLExecutionEnd", clarity_apply_sql_end),
    H("SparkListenerSQLAdaptiveExecutionUpdate", clarity_apply_sql_adaptive),
    H("SparkListenerSQLAdaptiveSQLMetricUpdates", clarity_apply_sql_adaptive_metrics),
    H("SparkListenerDriverAccumUpdates", clarity_apply_driver_accum_updates),
    H("SparkListenerExecutorExcluded", h_excluded),
    H("SparkListenerExecutorBlacklisted", h_excluded),
    H("SparkListenerExecutorUnexcluded", h_unexcluded),
    H("SparkListenerExecutorUnblacklisted", h_unexcluded),
    H("SparkListenerExecutorExcludedForStage", clarity_apply_exec_excluded_for_stage),
    H("SparkListenerExecutorBlacklistedForStage", clarity_apply_exec_excluded_for_stage),
    H("SparkListenerMiscellaneousProcessAdded", clarity_apply_misc_process),
    H("SparkListenerNodeExcluded", h_node_excluded),
    H("SparkListenerNodeBlacklisted", h_node_excluded),
    H("SparkListenerNodeUnexcluded", h_node_unexcluded),
    H("SparkListenerNodeUnblacklisted", h_node_unexcluded),
    H("SparkListenerNodeExcludedForStage", clarity_apply_node_excluded_for_stage),
    H("SparkListenerNodeBlacklistedForStage", clarity_apply_node_excluded_for_stage),
    H("SparkListenerBlockUpdated", clarity_apply_block_updated),
    H("SparkListenerSpeculativeTaskSubmitted", h_known),
    H("SparkListenerUnschedulableTaskSetAdded", h_known),
    H("SparkListenerUnschedulableTaskSetRemoved", h_known),
};
#undef H

static handler find_handler(const char *name, size_t n)
{
    const char *dot = memrchr(name, '.', n);
    if (dot) {
        n -= (size_t)(dot + 1 - name);
        name = dot + 1;
    }
    for (size_t i = 0; i < sizeof handlers / sizeof *handlers; i++)
        if (handlers[i].len == n && memcmp(handlers[i].name, name, n) == 0) return handlers[i].fn;
    return NULL;
}

void clarity__model_apply_line(struct apply_ctx *c, cj_parser *p, char *line, size_t len, bool cut)
{
    struct clarity_integrity *in = &c->app->integrity;
    cj_val root;
    const char *why;
    struct blank_undo undo;
    bool keep = c->opt->keep_task_accumulables, user_only = keep && c->opt->user_task_accumulables_only;
    /* the SQL listener's replay reads every TaskEnd's SQL metric updates */
    bool acc = (!keep || user_only) && !c->opt->sql_plan_graphs &&
               clarity_blank_spark3(clarity_app_str(c->app, c->app->spark_version));
    /* accumulables asked for by name (a lean load): kept whenever the line may hold one */
    if (acc && !keep) acc = clarity_blank_names_absent(line, len, c->acc_names);
    clarity_blank_lean(line, len, acc, user_only, c->opt->skip_task_executor_metrics, &undo);
    int rc = clarity_cj_parse(p, line, len, &root, &why);
    if (rc != 0 && clarity_blank_restore(line, &undo)) rc = clarity_cj_parse(p, line, len, &root, &why);
    clarity_blank_undo_free(&undo);
    if (rc != 0) {
        if (cut) {
            in->truncated = true;
            clarity_problem(c, "log ends inside this line (%zu bytes): truncated", len);
        } else {
            in->lines_malformed++;
            clarity_problem(c, "malformed JSON: %s", why);
        }
        return;
    }
    const char *name;
    size_t n;
    if (!clarity_cj_get_str(root, "Event", &name, &n)) {
        in->lines_malformed++;
        clarity_problem(c, "JSON line without an \"Event\" name");
        return;
    }
    in->events++;
    handler fn = find_handler(name, n);
    if (fn) fn(c, root);
    else clarity_unknown_event(c, name, n);
}

/* The events an application listing reads (load option app_events_only). */
static bool listing_event(const char *name, size_t n)
{
    static const char *const keep[] = {"SparkListenerApplicationStart", "SparkListenerApplicationEnd",
                                       "SparkListenerLogStart", "SparkListenerEnvironmentUpdate",
                                       "DBCEventLoggingListenerMetadata"};
    for (size_t i = 0; i < sizeof keep / sizeof *keep; i++)
        if (strlen(keep[i]) == n && !memcmp(keep[i], name, n)) return true;
    return false;
}

/* app_events_only: whether a line can be passed over unparsed, told from its first bytes:
 * {"Event":"Name" (JsonProtocol writes "Event" first and no blanks) naming an event the
 * listing does not read (a Jackson class name counts by its last segment, as find_handler
 * takes it). A line written any other way is parsed, so nothing is passed over by mistake. */
static bool listing_passes_over(struct clarity_integrity *in, const char *p, size_t n)
{
    static const char head[] = "{\"Event\":\"";
    const size_t hl = sizeof head - 1;
    if (n < hl || memcmp(p, head, hl)) return false;
    const char *name = p + hl, *end = memchr(name, '"', n - hl);
    if (!end || memchr(name, '\\', (size_t)(end - name))) return false;
    size_t len = (size_t)(end - name);
    const char *dot = memrchr(name, '.', len);
    if (dot) {
        len -= (size_t)(dot + 1 - name);
        name = dot + 1;
    }
    if (listing_event(name, len)) return false;
    if (len == 22 && !memcmp(name, "SparkListenerTaskStart", 22)) in->task_starts_skipped++;
    else if (len == 20 && !memcmp(name, "SparkListenerTaskEnd", 20)) in->task_ends_skipped++;
    return true;
}

void clarity__model_read_file(struct apply_ctx *c, cj_parser *p, const struct clarity_log_file *f, bool *any_events,
                              struct clarity_error *first_err)
{
    struct clarity_app *a = c->app;
    struct clarity_error err = {0};
    c->file = clarity_intern(c, f->path, strlen(f->path));
    struct stat sb;
    uint64_t file_bytes = stat(f->path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    c->line = c->offset = 0;
    struct clarity_decoder *d = clarity_decoder_open(f->path, f->codec, &err);
    if (!d) {
        clarity_problem(c, "%s", err.msg);
        if (!first_err->code) *first_err = err;
        return;
    }
    struct clarity_decoder_status ds0;
    clarity_decoder_status(d, &ds0);   /* sniffed at open: which codec the bytes are in */
    if (ds0.codec != CLARITY_CODEC_PLAIN) c->proj_total = 0;   /* decoded offsets are no share of it */
    struct line_pipe *r;
    bool threaded = c->opt->threads != 1;
    /* lean loads also decode task events on worker threads (preparse.c), one per core */
    bool user_only = c->opt->keep_task_accumulables && c->opt->user_task_accumulables_only;
    struct preparse_shared shared = {.skip_executor_metrics = c->opt->skip_task_executor_metrics,
                                     .hidden_accumulables_only = user_only, .acc_names = c->acc_names};
    struct preparse workers[8];
    void *ctxs[8];
    size_t nworkers = 0;
    if (threaded && (!c->opt->keep_task_accumulables || user_only) && !c->opt->sql_plan_graphs &&
        !c->opt->app_events_only) {
        size_t want = c->opt->threads > 1 ? (size_t)c->opt->threads : clarity_line_pipe_default_workers();
        for (; nworkers < want && nworkers < 8; nworkers++) {
            workers[nworkers] = (struct preparse){.parser = clarity_cj_parser_new(MAX_LINE + 1024), .shared = &shared};
            if (!workers[nworkers].parser) break;
            ctxs[nworkers] = &workers[nworkers];
        }
    }
    int prc = nworkers ? clarity_line_pipe_start_hooked(&r, d, MAX_LINE, true, clarity_preparse_scan, &shared, nworkers, clarity_preparse_line,
                                                ctxs, sizeof(struct task_rec))
                       : clarity_line_pipe_start(&r, d, MAX_LINE, threaded);
    if (prc != 0) {
        for (size_t i = 0; i < nworkers; i++) clarity_cj_parser_free(workers[i].parser);
        c->failed = 1;
        clarity_decoder_close(d);
        return;
    }
    char *line;
    size_t len;
    uint64_t line_no = 0, offset = 0;
    bool header = false;
    uint64_t events_before = a->integrity.events;
    for (;;) {
        enum line_status st = clarity_line_pipe_next(r, &line, &len, &line_no, &offset, &err);
        if (st == LINE_EOF) break;
        c->line = line_no;
        c->offset = offset;
        if (st == LINE_IO_ERROR) {
            /* the reader knows the line, not the file: name it, or the message reads "1: ..." */
            if (!err.file[0]) snprintf(err.file, sizeof err.file, "%s", f->path);
            clarity_problem(c, "read error: %s", err.msg);
            if (!first_err->code) *first_err = err;
            break;
        }
        a->integrity.lines++;
        if (c->opt->progress && (a->integrity.lines & 0xFFFF) == 0)
            c->opt->progress(c->opt->progress_ctx, f->path, offset, a->integrity.events, file_bytes);
        const struct task_rec *rec = clarity_line_pipe_record(r);
        if (rec) {
            a->integrity.events++;
            clarity_apply_task_rec(c, rec);
            if (c->failed) break;
            continue;
        }
        if (st == LINE_TOO_LONG) {
            a->integrity.lines_too_long++;
            clarity_problem(c, "line longer than %u MiB skipped", MAX_LINE >> 20);
            continue;
        }
        size_t i = 0;
        while (i < len && (line[i] == ' ' || line[i] == '\t')) i++;
        if (i == len) {
            a->integrity.lines_blank++;
            continue;
        }
        /* a pre-release 1.3 plain-text header (ending "=== LOG_HEADER_END ==="); some forks still
         * write it, so it is tolerated */
        if (line_no == 1 && line[i] != '{' && line[i] != '[') header = true;
        if (header) {
            if (len >= 22 && memmem(line, len, "=== LOG_HEADER_END ===", 22)) header = false;
            continue;
        }
        /* a listing's read parses the first event whatever it is, then only its own */
        if (c->opt->app_events_only && a->integrity.events && listing_passes_over(&a->integrity, line + i, len - i))
            continue;
        clarity__model_apply_line(c, p, line, len, st == LINE_CUT);
        if (c->failed) break;
    }
    if (header) clarity_problem(c, "plain-text header never ended; no events read from this file");
    c->last_file_bytes = clarity_line_pipe_bytes(r);
    c->last_file_lines = line_no;
    a->integrity.bytes += c->last_file_bytes;
    clarity_line_pipe_free(r);   /* stops the threads before the decoder is asked for its status */
    for (size_t i = 0; i < nworkers; i++) clarity_cj_parser_free(workers[i].parser);
    struct clarity_decoder_status ds;
    clarity_decoder_status(d, &ds);
    if (ds.truncated || ds.corrupt) {
        a->integrity.truncated = true;
        c->line = 0;
        c->offset = ds.damage_offset;
        clarity_problem(c, "%s: %s", ds.corrupt ? "corrupt compressed data" : "compressed stream cut", ds.why);
        if (!a->integrity.truncation_why) a->integrity.truncation_why = clarity_intern(c, ds.why, strlen(ds.why));
    }
    if (a->integrity.events > events_before) *any_events = true;
    else if (!first_err->code) {
        clarity_error_set(first_err, CLARITY_EFORMAT, f->path, line_no, 0,
                          line_no ? "no Spark events in %llu line(s): not an event log"
                                  : "no lines: empty event log", (unsigned long long)line_no);
        if (a->integrity.nproblems) {
            const struct clarity_problem *pr = &a->integrity.problems[0];
            clarity_error_set(first_err, CLARITY_EFORMAT, f->path, pr->line, pr->offset, "no Spark events; first problem: %s",
                              clarity_app_str(a, pr->msg));
        }
    }
    clarity_decoder_close(d);
    c->proj_done += file_bytes;
}

/* The bytes of an application's files, for projecting its tables' final sizes (grow.h); 0
 * when one cannot be sized. */
static uint64_t source_bytes(const struct clarity_app_source *src)
{
    uint64_t n = 0;
    for (size_t i = 0; i < src->nfiles; i++) {
        struct stat sb;
        if (stat(src->files[i].path, &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
        n += (uint64_t)sb.st_size;
    }
    return n;
}

int clarity_app_load(const struct clarity_app_source *src, const struct clarity_load_options *opt,
                     struct clarity_app **out, struct clarity_error *err)
{
    static const struct clarity_load_options defaults = {.keep_task_accumulables = true};
    struct apply_ctx c = {.opt = opt ? opt : &defaults};
    struct blank_names acc_names;
    return clarity__model_load(src, &c, &acc_names, false, out, err);
}

int clarity__model_load(const struct clarity_app_source *src, struct apply_ctx *cp, struct blank_names *acc_names,
                        bool keep_ctx, struct clarity_app **out, struct clarity_error *err)
{
    *out = NULL;
    struct clarity_app *a = calloc(1, sizeof *a);
    if (!a) return clarity_error_set(err, CLARITY_ENOMEM, src->path, 0, 0, "out of memory");
    a->source_path = clarity_arena_strndup(&a->arena, src->path, strlen(src->path));
    struct apply_ctx c = *cp;
    c.app = a;
    if (c.opt->sql_plan_graphs && clarity__sql_listen_new(&c)) {
        clarity_app_free(a);
        return clarity_error_set(err, CLARITY_ENOMEM, src->path, 0, 0, "out of memory");
    }
    clarity_blank_names_init(acc_names, c.opt->task_accumulable_names, c.opt->ntask_accumulable_names);
    c.acc_names = acc_names;
    if (src->base) a->app_id = clarity_intern(&c, src->base, strlen(src->base));
    if (src->version_hint) a->spark_version = clarity_intern(&c, src->version_hint, strlen(src->version_hint));
    a->integrity.in_progress = src->in_progress;
    a->integrity.compacted = src->dropped_before_compact > 0;
    a->integrity.compact_dropped_files = src->dropped_before_compact;
    a->integrity.rolling_parts_missing = src->missing_parts;
    a->integrity.rolling_first_missing = src->first_missing_part;
    for (size_t i = 0; i < src->nfiles; i++)
        if (src->files[i].compact) a->integrity.compacted = true;

    cj_parser *p = clarity_cj_parser_new(MAX_LINE + 1024);
    if (!p) {
        clarity_app_free(a);
        return clarity_error_set(err, CLARITY_ENOMEM, src->path, 0, 0, "out of memory");
    }
    bool any = false;
    struct clarity_error first = {0};
    c.proj_total = source_bytes(src);
    c.proj_done = 0;
    for (size_t i = 0; i < src->nfiles && !c.failed; i++) clarity__model_read_file(&c, p, &src->files[i], &any, &first);
    c.proj_total = 0;   /* a continued load (resume.c) reads past these sizes: no projection */
    clarity_cj_parser_free(p);
    clarity__sql_listen_finish(&c);
    clarity__sql_listen_free(&c);
    clarity__model_fold_flush(&c);
    /* a load that may be continued (resume.c) keeps what the context holds while loading */
    if (!keep_ctx || c.failed || !any) clarity__model_ctx_free(&c);
    if (c.failed) {
        clarity_app_free(a);
        return clarity_error_set(err, CLARITY_ENOMEM, src->path, 0, 0, "out of memory while reading");
    }
    if (!any) {
        if (err) *err = first;
        if (!first.code) clarity_error_set(err, CLARITY_EFORMAT, src->path, 0, 0, "no event log files");
        clarity_app_free(a);
        return err ? err->code : CLARITY_EFORMAT;
    }
    clarity_model_finish(&c);
    *cp = c;
    *out = a;
    return CLARITY_OK;
}
