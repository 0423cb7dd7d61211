/* The partial loads a server uses: app_events_only (a listing's read: the application's
 * own fields, task lines only counted) and only_stage (one stage's task rows, the rest of the
 * model as a whole load makes it). Each is checked against the whole load of the same log. */
#include <criterion/criterion.h>
#include <sys/stat.h>
#include <unistd.h>
#include "load_helpers.h"

static int load_opt(const char *name, const struct clarity_load_options *o, struct clarity_app **out)
{
    const char *root = getenv("CLARITY_ROOT");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/%s", root ? root : ".", name);
    struct clarity_log_file f = {.path = path};
    struct clarity_app_source src = {.path = path, .files = &f, .nfiles = 1};
    struct clarity_error err;
    return clarity_app_load(&src, o, out, &err);
}

static const char *str(const struct clarity_app *a, uint32_t id) { return id ? clarity_app_str(a, id) : ""; }

/* spark-3.1-app-20200706201101-0003.json: 48 TaskStart and 48 TaskEnd lines (grep -c), so
 * the listing's read counts 48 of each and keeps no task, stage, job or executor. */
Test(partial_loads, app_events_only_keeps_the_listing_fields)
{
    const char *log = "spark-3.1-app-20200706201101-0003.json";
    struct clarity_load_options whole_o = {.keep_task_accumulables = true, .threads = 1};
    struct clarity_load_options list_o = {.app_events_only = true, .skip_task_executor_metrics = true, .threads = 1};
    struct clarity_app *whole, *list;
    cr_assert_eq(load_opt(log, &whole_o, &whole), CLARITY_OK);
    cr_assert_eq(load_opt(log, &list_o, &list), CLARITY_OK);
    cr_assert_str_eq(str(list, list->app_id), "app-20200706201101-0003");
    cr_assert_str_eq(str(list, list->app_id), str(whole, whole->app_id));
    cr_assert_str_eq(str(list, list->name), str(whole, whole->name));
    cr_assert_str_eq(str(list, list->user), str(whole, whole->user));
    cr_assert_str_eq(str(list, list->spark_version), str(whole, whole->spark_version));
    cr_assert_str_eq(str(list, list->attempt_id), str(whole, whole->attempt_id));
    cr_assert_eq(list->start_ms, whole->start_ms);
    cr_assert_eq(list->end_ms, whole->end_ms);
    cr_assert_neq(list->end_ms, 0);
    cr_assert_eq(list->spark_props.n, whole->spark_props.n, "the environment is read (view ACLs)");
    cr_assert_eq(whole->tasks.n, 48);
    cr_assert_eq(list->tasks.n, 0);
    cr_assert_eq(list->integrity.task_starts_skipped, 48);
    cr_assert_eq(list->integrity.task_ends_skipped, 48);
    cr_assert_eq(list->nstages, 0);
    cr_assert_eq(list->njobs, 0);
    clarity_app_free(whole);
    clarity_app_free(list);
}

/* A file with no event at all still fails as a whole load fails. */
Test(partial_loads, app_events_only_refuses_what_is_no_log)
{
    char path[] = "/tmp/clarity-partial-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs("hello\nworld\n", f);
    fclose(f);
    struct clarity_log_file lf = {.path = path};
    struct clarity_app_source src = {.path = path, .files = &lf, .nfiles = 1};
    struct clarity_load_options o = {.app_events_only = true, .threads = 1};
    struct clarity_app *a = NULL;
    struct clarity_error err;
    cr_assert_eq(clarity_app_load(&src, &o, &a, &err), CLARITY_EFORMAT);
    cr_assert_null(a);
    remove(path);
}

/* only_stage: the kept rows are exactly the whole load's rows of that stage, field for field
 * and in the same order; the stage, job and executor tables are the whole load's. */
Test(partial_loads, only_stage_keeps_that_stage_as_a_whole_load)
{
    const char *log = "spark-3.1-app-20200706201101-0003.json";
    struct clarity_load_options whole_o = {.keep_task_accumulables = true, .user_task_accumulables_only = true, .threads = 1};
    struct clarity_app *whole;
    cr_assert_eq(load_opt(log, &whole_o, &whole), CLARITY_OK);
    size_t checked_stages = 0;
    for (size_t s = 0; s < whole->nstages; s++) {
        int64_t sid = whole->stages[s].stage_id;
        struct clarity_load_options o = whole_o;
        o.only_stage = true;
        o.only_stage_id = sid;
        struct clarity_app *one;
        cr_assert_eq(load_opt(log, &o, &one), CLARITY_OK);
        cr_assert_eq(one->nstages, whole->nstages);
        cr_assert_eq(one->njobs, whole->njobs);
        cr_assert_eq(one->nexecs, whole->nexecs);
        cr_assert_eq(one->peak_exec_mem_from_accums, whole->peak_exec_mem_from_accums);
        size_t k = 0;
        for (size_t r = 0; r < whole->tasks.n; r++) {
            if (whole->stages[clarity_icol_get(&whole->tasks.stage, r)].stage_id != sid) continue;
            cr_assert_lt(k, one->tasks.n);
            cr_assert_eq(clarity_icol_get(&one->tasks.task_id, k), clarity_icol_get(&whole->tasks.task_id, r));
            cr_assert_eq(clarity_icol_get(&one->tasks.stage, k), clarity_icol_get(&whole->tasks.stage, r));
            cr_assert_eq(clarity_task_launch_ms(one, k), clarity_task_launch_ms(whole, r));
            cr_assert_eq(clarity_task_flags(one, k), clarity_task_flags(whole, r));
            cr_assert_str_eq(str(one, (uint32_t)clarity_icol_get(&one->tasks.executor, k)),
                             str(whole, (uint32_t)clarity_icol_get(&whole->tasks.executor, r)));
            for (int m = 0; m < CLARITY_TM_COUNT; m++) cr_assert_eq(clarity_task_metric(one, k, m), clarity_task_metric(whole, r, m));
            k++;
        }
        cr_assert_eq(one->tasks.n, k, "stage %lld: %zu rows kept, %zu in the whole load", (long long)sid, one->tasks.n, k);
        checked_stages += k > 0;
        clarity_app_free(one);
    }
    cr_assert_geq(checked_stages, 3, "the fixture has stages with tasks");
    clarity_app_free(whole);
}

/* no_task_rows: no task row, and the stage, job and executor tables of a whole load (with the
 * statuses and peaks the tasks of every stage leave). */
Test(partial_loads, no_task_rows_keeps_the_rest_as_a_whole_load)
{
    const char *log = "spark-3.1-app-20200706201101-0003.json";
    struct clarity_load_options whole_o = {.keep_task_accumulables = true, .user_task_accumulables_only = true, .threads = 1};
    struct clarity_load_options none_o = whole_o;
    none_o.no_task_rows = true;
    struct clarity_app *whole, *none;
    cr_assert_eq(load_opt(log, &whole_o, &whole), CLARITY_OK);
    cr_assert_eq(load_opt(log, &none_o, &none), CLARITY_OK);
    cr_assert_eq(whole->tasks.n, 48);
    cr_assert_eq(none->tasks.n, 0);
    cr_assert_eq(none->nstages, whole->nstages);
    cr_assert_eq(none->njobs, whole->njobs);
    cr_assert_eq(none->nexecs, whole->nexecs);
    cr_assert_eq(none->time_base, whole->time_base);
    for (size_t s = 0; s < whole->nstages; s++) {
        cr_assert_eq(none->stages[s].stage_id, whole->stages[s].stage_id);
        cr_assert_eq(none->stages[s].status, whole->stages[s].status);
    }
    for (size_t e = 0; e < whole->nexecs; e++)
        cr_assert_str_eq(str(none, none->execs[e].id), str(whole, whole->execs[e].id));
    clarity_app_free(whole);
    clarity_app_free(none);
}

/* Resume: the fixture's first 30 lines loaded, the rest appended in two pieces (the second
 * starting with half a line, then the rest of it), each read on from where the last stopped;
 * the model then is a fresh load's of the whole file: its task rows field for field, its
 * stages (statuses too), jobs, executors and integrity counts. 124 lines, 266,554 bytes. */
static void append_lines(const char *from, const char *to, long first, long last, long cut_last_at)
{
    FILE *in = fopen(from, "r"), *out = fopen(to, "a");
    cr_assert(in && out);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    for (long no = 1; (n = getline(&line, &cap, in)) > 0; no++) {
        if (no < first || no > last) continue;
        if (no == last && cut_last_at >= 0) fwrite(line, 1, (size_t)cut_last_at, out);
        else fwrite(line, 1, (size_t)n, out);
    }
    free(line);
    fclose(in);
    fclose(out);
}

Test(partial_loads, resume_reads_on_as_a_fresh_load)
{
    const char *root = getenv("CLARITY_ROOT");
    char src_path[1024], path[] = "/tmp/clarity-resume-XXXXXX";
    snprintf(src_path, sizeof src_path, "%s/tests/data/spark-3.1-app-20200706201101-0003.json", root ? root : ".");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    append_lines(src_path, path, 1, 30, -1);
    struct clarity_log_file f = {.path = path};
    struct clarity_app_source src = {.path = path, .files = &f, .nfiles = 1};
    struct clarity_load_options o = {.keep_task_accumulables = true, .user_task_accumulables_only = true, .threads = 1};
    struct clarity_app *a;
    struct clarity_app_resume *st;
    struct clarity_error err;
    cr_assert_eq(clarity_app_load_resumable(&src, &o, &a, &st, &err), CLARITY_OK);
    cr_assert_not_null(st, "one plain file read to a whole line can be continued");
    size_t tasks30 = a->tasks.n;
    uint64_t from, read;
    append_lines(src_path, path, 31, 101, 40);   /* line 101 cut after 40 bytes */
    cr_assert_eq(clarity_app_resume(st, a, &from, &read, &err), CLARITY_OK);
    struct stat sb;
    stat(path, &sb);
    cr_assert_eq(from + read, (uint64_t)sb.st_size, "read to the end of the file");
    cr_assert_gt(a->tasks.n, tasks30);
    uint64_t torn_from = from + read - 40;
    /* the rest of line 101, then lines 102-124 */
    FILE *in = fopen(src_path, "r"), *out = fopen(path, "a");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    for (long no = 1; (n = getline(&line, &cap, in)) > 0; no++) {
        if (no == 101) fwrite(line + 40, 1, (size_t)n - 40, out);
        else if (no > 101) fwrite(line, 1, (size_t)n, out);
    }
    free(line);
    fclose(in);
    fclose(out);
    cr_assert_eq(clarity_app_resume(st, a, &from, &read, &err), CLARITY_OK);
    cr_assert_eq(from, torn_from, "the torn line is read again from its start");
    stat(path, &sb);
    cr_assert_eq((uint64_t)sb.st_size, 266554);

    struct clarity_app *fresh;
    cr_assert_eq(clarity_app_load(&src, &o, &fresh, &err), CLARITY_OK);
    cr_assert_eq(a->tasks.n, fresh->tasks.n);
    cr_assert_eq(a->tasks.n, 48);
    for (size_t r = 0; r < fresh->tasks.n; r++) {
        cr_assert_eq(clarity_icol_get(&a->tasks.task_id, r), clarity_icol_get(&fresh->tasks.task_id, r));
        cr_assert_eq(clarity_task_flags(a, r), clarity_task_flags(fresh, r));
        cr_assert_eq(clarity_task_launch_ms(a, r), clarity_task_launch_ms(fresh, r));
        cr_assert_eq(clarity_icol_get(&a->tasks.duration, r), clarity_icol_get(&fresh->tasks.duration, r));
        for (int m = 0; m < CLARITY_TM_COUNT; m++) cr_assert_eq(clarity_task_metric(a, r, m), clarity_task_metric(fresh, r, m));
    }
    cr_assert_eq(a->nstages, fresh->nstages);
    for (size_t s = 0; s < fresh->nstages; s++) cr_assert_eq(a->stages[s].status, fresh->stages[s].status);
    cr_assert_eq(a->njobs, fresh->njobs);
    for (size_t j = 0; j < fresh->njobs; j++) cr_assert_eq(a->jobs[j].status, fresh->jobs[j].status);
    cr_assert_eq(a->nexecs, fresh->nexecs);
    cr_assert_eq(a->end_ms, fresh->end_ms);
    cr_assert_neq(a->end_ms, 0);
    cr_assert_eq(a->integrity.events, fresh->integrity.events);
    cr_assert_eq(a->integrity.lines, fresh->integrity.lines);
    cr_assert_eq(a->integrity.bytes, fresh->integrity.bytes);
    cr_assert_eq(a->integrity.no_app_end, fresh->integrity.no_app_end);
    cr_assert_eq(a->integrity.jobs_without_end, 0);
    cr_assert_eq(a->integrity.task_start_without_end, fresh->integrity.task_start_without_end);
    clarity_app_free(fresh);
    clarity_app_free(a);
    clarity_app_resume_free(st);
    remove(path);
}

/* A compressed or rolling source, or a load with the SQL replay, gives no state: a grown log
 * is read whole. */
Test(partial_loads, resume_not_offered_for_sql_replay)
{
    const char *root = getenv("CLARITY_ROOT");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/spark-3.1-app-20200706201101-0003.json", root ? root : ".");
    struct clarity_log_file f = {.path = path};
    struct clarity_app_source src = {.path = path, .files = &f, .nfiles = 1};
    struct clarity_load_options o = {.keep_task_accumulables = true, .sql_plan_graphs = true, .threads = 1};
    struct clarity_app *a;
    struct clarity_app_resume *st = (struct clarity_app_resume *)&o;   /* must be overwritten */
    struct clarity_error err;
    cr_assert_eq(clarity_app_load_resumable(&src, &o, &a, &st, &err), CLARITY_OK);
    cr_assert_null(st);
    clarity_app_free(a);
}

/* task_fold: what the callback sees of each task, by ordinal */
struct fold_seen {
    int64_t tid[64], dur[64], end[64], flags[64];
    size_t n, max_rows;
    bool bad_ord;
};

static int fold_record(void *ctx, const struct clarity_app *a, size_t row, uint64_t ord)
{
    struct fold_seen *s = ctx;
    if (ord == 0 || ord > 64 || s->tid[ord - 1] != -1) {
        s->bad_ord = true;
        return 0;
    }
    s->tid[ord - 1] = clarity_icol_get(&a->tasks.task_id, row);
    s->dur[ord - 1] = clarity_icol_get(&a->tasks.duration, row);
    s->end[ord - 1] = clarity_icol_get(&a->tasks.end, row);
    s->flags[ord - 1] = clarity_icol_get(&a->tasks.flags, row);
    if (a->tasks.n > s->max_rows) s->max_rows = a->tasks.n;
    s->n++;
    return 0;
}

/* Every task is handed over once, its ordinal its row in a whole load plus one, its row
 * reading as the whole load's; the finished model holds no task row, and the table never
 * held more rows than tasks ran at once (the 48 tasks of this log run 2 at a time at most:
 * rows are reused). */
Test(partial_loads, task_fold_hands_every_task_over_once_in_row_order)
{
    const char *log = "spark-3.1-app-20200706201101-0003.json";
    struct clarity_load_options whole_o = {.threads = 1};
    struct fold_seen seen = {.n = 0};
    for (int i = 0; i < 64; i++) seen.tid[i] = -1;
    struct clarity_load_options fold_o = {.threads = 1, .task_fold = fold_record, .task_fold_ctx = &seen};
    struct clarity_app *whole, *fold;
    cr_assert_eq(load_opt(log, &whole_o, &whole), CLARITY_OK);
    cr_assert_eq(load_opt(log, &fold_o, &fold), CLARITY_OK);
    cr_assert_not(seen.bad_ord);
    cr_assert_eq(whole->tasks.n, 48);
    cr_assert_eq(seen.n, 48);
    cr_assert_eq(fold->tasks_folded, 48);
    cr_assert_eq(fold->tasks_refolded, 0);
    cr_assert_eq(fold->tasks.n, 0);
    cr_assert_lt(seen.max_rows, 48, "rows are reused (%zu held at most)", seen.max_rows);
    for (size_t r = 0; r < 48; r++) {
        cr_assert_eq(seen.tid[r], clarity_icol_get(&whole->tasks.task_id, r), "ordinal %zu", r + 1);
        cr_assert_eq(seen.dur[r], clarity_icol_get(&whole->tasks.duration, r));
        cr_assert_eq(seen.end[r], clarity_icol_get(&whole->tasks.end, r));
        cr_assert_eq(seen.flags[r], clarity_icol_get(&whole->tasks.flags, r));
    }
    cr_assert_eq(fold->nstages, whole->nstages);
    cr_assert_eq(fold->nexecs, whole->nexecs);
    clarity_app_free(whole);
    clarity_app_free(fold);
}
