/* The integrity report: what the log is missing or got wrong, in text and JSON. */
#include <stdarg.h>
#include <string.h>
#include "clarity/report.h"
#include "util/jsonw.h"
#include "report/table.h"

#define S(id) clarity_app_str(a, (id))

/* Short flags for fleet rows, e.g. "truncated,dropped-task-ends". */
void clarity_report_integrity_flags(const struct clarity_app *a, char *buf, size_t cap)
{
    const struct clarity_integrity *in = &a->integrity;
    size_t n = 0;
    buf[0] = '\0';
#define F(cond, name) if ((cond) && n < cap) n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? "," : "", name)
    F(in->truncated, "truncated");
    F(in->in_progress, "in-progress");
    F(in->no_app_end && !in->in_progress, "no-app-end");
    F(in->lines_malformed, "malformed-lines");
    F(in->dropped_task_ends, "dropped-task-ends");
    F(in->no_task_events, "no-task-events");
    F(in->task_start_without_end, "tasks-without-end");
    F(in->compacted, "compacted");
    F(in->negative_durations, "negative-durations");
    F(in->cpu_exceeds_run || in->sw_time_suspect_units, "unit-suspect");
    F(in->rolling_parts_missing, "missing-rolling-part");
    /* a skipped line, a repeated TaskEnd or an impossible value is not "ok" */
    F(in->lines_too_long, "lines-too-long");
    F(in->duplicate_task_ends, "duplicate-task-ends");
    F(in->values_out_of_range, "values-out-of-range");
    F(in->app_starts > 1, "two-app-starts");
#undef F
    if (!n) snprintf(buf, cap, "ok");
}

/* One integrity line: the 15-column label, then the text wrapped under it. */
static void line(FILE *o, size_t width, const char *label, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void line(FILE *o, size_t width, const char *label, const char *fmt, ...)
{
    char lead[32], text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    text[strcspn(text, "\n")] = '\0';
    snprintf(lead, sizeof lead, "  %-12s ", label);
    clarity_fit_wrap(o, width, lead, text);
}

int clarity_report_integrity_text(FILE *o, const struct clarity_app *a, size_t width, struct clarity_error *err)
{
    const struct clarity_integrity *in = &a->integrity;
    char f[256];
    clarity_report_integrity_flags(a, f, sizeof f);
    fprintf(o, "\nintegrity    %s\n", f);
    line(o, width, "read", "%llu lines, %llu events (%llu of unknown kinds), %llu bytes decoded",
         (unsigned long long)in->lines, (unsigned long long)in->events, (unsigned long long)in->events_unknown,
            (unsigned long long)in->bytes);
    line(o, width, "Spark", "%s", a->spark_version ? S(a->spark_version) : "unknown (no SparkListenerLogStart)");
#define L(cond, label, ...) if (cond) line(o, width, label, __VA_ARGS__)
    L(in->app_starts > 1, "app start", "%llu SparkListenerApplicationStart events: two runs in one log? Figures mix them; the last start is used",
      (unsigned long long)in->app_starts);
    L(in->in_progress, "in progress", "the log is still being written (.inprogress or no completion marker)");
    L(in->no_app_end, "no end", "no SparkListenerApplicationEnd; durations run to the last event seen");
    L(in->truncated, "truncated", "%s", in->truncation_why ? S(in->truncation_why) : "the last line is cut");
    L(in->lines_malformed, "malformed", "%llu line(s) not valid JSON events, skipped", (unsigned long long)in->lines_malformed);
    L(in->lines_too_long, "too long", "%llu line(s) over 128 MiB, skipped", (unsigned long long)in->lines_too_long);
    L(in->dropped_task_ends, "dropped", "%llu TaskEnd event(s) missing in %zu completed stage(s) (listener queue overflow?)",
      (unsigned long long)in->dropped_task_ends, in->stages_missing_task_ends);
    L(in->no_task_events, "no tasks", "stages completed but the log has no task events (a stage-level log): task figures are absent, not zero");
    L(in->task_start_without_end, "no TaskEnd", "%llu task attempt(s) started but never ended",
      (unsigned long long)in->task_start_without_end);
    L(in->task_end_without_start, "no TaskStart", "%llu TaskEnd(s) without a TaskStart", (unsigned long long)in->task_end_without_start);
    L(in->duplicate_task_ends, "duplicates", "%llu repeated TaskEnd(s) ignored", (unsigned long long)in->duplicate_task_ends);
    L(in->stages_without_end, "stages", "%llu stage attempt(s) submitted but never completed", (unsigned long long)in->stages_without_end);
    L(in->jobs_without_end, "jobs", "%llu job(s) without JobEnd", (unsigned long long)in->jobs_without_end);
    L(in->sql_without_end, "SQL", "%llu SQL execution(s) without end", (unsigned long long)in->sql_without_end);
    L(in->negative_durations, "negative", "%llu task(s) finish before they launch", (unsigned long long)in->negative_durations);
    L(in->cpu_exceeds_run, "units", "%llu task(s) with CPU time above run time (ns/ms mix-up?)", (unsigned long long)in->cpu_exceeds_run);
    L(in->sw_time_suspect_units, "units", "%llu task(s) with shuffle write time above run time (ns/ms mix-up?)",
      (unsigned long long)in->sw_time_suspect_units);
    L(in->compacted, "compacted", "rolling log compaction dropped finished jobs, dead executors and finished SQL (%zu file(s) before the .compact not read)",
      in->compact_dropped_files);
    L(in->rolling_parts_missing, "missing", "%llu rolling log file(s) absent, from events_%llu_: the jobs, stages and executors logged there are missing",
      (unsigned long long)in->rolling_parts_missing, (unsigned long long)in->rolling_first_missing);

    L(in->values_out_of_range, "range", "%llu value(s) out of range (time differences beyond 64 bits, stage attempts beyond an int): clamped or unknown",
      (unsigned long long)in->values_out_of_range);
#undef L
    for (size_t i = 0; i < in->nunknown_events; i++)
        line(o, width, "unknown", "%s x%llu (counted, not used)", S(in->unknown_events[i].k),
             (unsigned long long)in->unknown_counts[i]);
    if (in->unknown_events_unlisted)
        fprintf(o, "  unknown      %llu more distinct event name(s) (counted, not listed)\n",
                (unsigned long long)in->unknown_events_unlisted);
    for (size_t i = 0; i < in->nunknown_fields; i++)
        line(o, width, "unknown key", "%s x%llu (counted, not used)", S(in->unknown_fields[i].k),
             (unsigned long long)in->unknown_field_counts[i]);
    if (in->unknown_fields_unlisted)
        fprintf(o, "  unknown key  %llu more distinct key(s) (counted, not listed)\n",
                (unsigned long long)in->unknown_fields_unlisted);
    for (size_t i = 0; i < in->nproblems && i < 10; i++) {
        const struct clarity_problem *p = &in->problems[i];
        /* line 0 is a problem of the compressed stream, not of a line: its message says where */
        if (!p->line)
            line(o, width, "problem", "%s: %s", S(p->file), S(p->msg));
        else
            line(o, width, "problem", "%s: line %llu: byte %llu: %s", S(p->file), (unsigned long long)p->line,
                 (unsigned long long)p->offset, S(p->msg));
    }
    if (in->problems_total > 10)
        fprintf(o, "  ...          %zu more problem(s) (--json lists the first %zu)\n", in->problems_total - 10, in->nproblems);
    return clarity_report_status(o, err);
}

int clarity_report_integrity_json(struct jsonw *w, const struct clarity_app *a, struct clarity_error *err)
{
    const struct clarity_integrity *in = &a->integrity;
    char f[256];
    clarity_report_integrity_flags(a, f, sizeof f);
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "flags", f);
    clarity_jsonw_kint(w, "lines", (int64_t)in->lines);
    clarity_jsonw_kint(w, "events", (int64_t)in->events);
    clarity_jsonw_kint(w, "events_unknown", (int64_t)in->events_unknown);
    clarity_jsonw_kint(w, "bytes_decoded", (int64_t)in->bytes);
    clarity_jsonw_kbool(w, "in_progress", in->in_progress);
    clarity_jsonw_kbool(w, "no_app_end", in->no_app_end);
    clarity_jsonw_kbool(w, "truncated", in->truncated);
    clarity_jsonw_kstr(w, "truncation", in->truncation_why ? S(in->truncation_why) : "");
    clarity_jsonw_kint(w, "lines_malformed", (int64_t)in->lines_malformed);
    clarity_jsonw_kint(w, "lines_too_long", (int64_t)in->lines_too_long);
    clarity_jsonw_kint(w, "lines_blank", (int64_t)in->lines_blank);
    clarity_jsonw_kint(w, "dropped_task_ends", (int64_t)in->dropped_task_ends);
    clarity_jsonw_kint(w, "stages_missing_task_ends", (int64_t)in->stages_missing_task_ends);
    clarity_jsonw_kbool(w, "no_task_events", in->no_task_events);
    clarity_jsonw_kint(w, "task_start_without_end", (int64_t)in->task_start_without_end);
    clarity_jsonw_kint(w, "task_end_without_start", (int64_t)in->task_end_without_start);
    clarity_jsonw_kint(w, "duplicate_task_ends", (int64_t)in->duplicate_task_ends);
    clarity_jsonw_kint(w, "stages_without_end", (int64_t)in->stages_without_end);
    clarity_jsonw_kint(w, "jobs_without_end", (int64_t)in->jobs_without_end);
    clarity_jsonw_kint(w, "sql_without_end", (int64_t)in->sql_without_end);
    clarity_jsonw_kint(w, "negative_durations", (int64_t)in->negative_durations);
    clarity_jsonw_kint(w, "cpu_exceeds_run", (int64_t)in->cpu_exceeds_run);
    clarity_jsonw_kint(w, "shuffle_write_time_suspect", (int64_t)in->sw_time_suspect_units);
    clarity_jsonw_kbool(w, "compacted", in->compacted);
    clarity_jsonw_kint(w, "compact_dropped_files", (int64_t)in->compact_dropped_files);
    /* Only when a part is missing, so the JSON of every whole log stays as it was. */
    if (in->rolling_parts_missing) {
        clarity_jsonw_kint(w, "rolling_parts_missing", (int64_t)in->rolling_parts_missing);
        clarity_jsonw_kint(w, "rolling_first_missing", (int64_t)in->rolling_first_missing);
    }
    clarity_jsonw_key(w, "unknown_events");
    clarity_jsonw_obj_begin(w);
    for (size_t i = 0; i < in->nunknown_events; i++) clarity_jsonw_kint(w, S(in->unknown_events[i].k), (int64_t)in->unknown_counts[i]);
    clarity_jsonw_obj_end(w);
    /* present only when some names were not listed, so other outputs keep their bytes */
    if (in->unknown_events_unlisted) clarity_jsonw_kint(w, "unknown_events_unlisted", (int64_t)in->unknown_events_unlisted);
    clarity_jsonw_kint(w, "fields_unknown", (int64_t)in->fields_unknown);
    clarity_jsonw_key(w, "unknown_fields");
    clarity_jsonw_obj_begin(w);
    for (size_t i = 0; i < in->nunknown_fields; i++)
        clarity_jsonw_kint(w, S(in->unknown_fields[i].k), (int64_t)in->unknown_field_counts[i]);
    clarity_jsonw_obj_end(w);
    if (in->unknown_fields_unlisted) clarity_jsonw_kint(w, "unknown_fields_unlisted", (int64_t)in->unknown_fields_unlisted);
    if (in->values_out_of_range) clarity_jsonw_kint(w, "values_out_of_range", (int64_t)in->values_out_of_range);
    /* only when repeated, so the JSON of every ordinary log keeps its bytes */
    if (in->app_starts > 1) clarity_jsonw_kint(w, "app_starts", (int64_t)in->app_starts);
    clarity_jsonw_kint(w, "problems_total", (int64_t)in->problems_total);
    clarity_jsonw_key(w, "problems");
    clarity_jsonw_arr_begin(w);
    for (size_t i = 0; i < in->nproblems; i++) {
        const struct clarity_problem *p = &in->problems[i];
        clarity_jsonw_obj_begin(w);
        clarity_jsonw_kstr(w, "file", S(p->file));
        clarity_jsonw_kint(w, "line", (int64_t)p->line);
        clarity_jsonw_kint(w, "offset", (int64_t)p->offset);
        clarity_jsonw_kstr(w, "message", S(p->msg));
        clarity_jsonw_obj_end(w);
    }
    clarity_jsonw_arr_end(w);
    clarity_jsonw_obj_end(w);
    return clarity_report_status(w->out, err);
}
