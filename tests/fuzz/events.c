/* An event log end to end: the input, as one plain (or compressed: the magic decides) log
 * file, goes through the line splitter, the JSON parser and the model loader as `clarity
 * summary LOG` reads it; then the summary and integrity writers (text and JSON), the fleet
 * row, and the blocked and stragglers analyses with their writers run on the model. Some
 * inputs are then loaded again as the lean commands load (task events decoded on worker
 * threads, accumulables dropped), and summarized. */
#include "clarity/model.h"
#include "clarity/report.h"
#include "fuzz.h"
#include "util/jsonw.h"

static void reports(const struct clarity_app *a)
{
    FILE *o = fuzz_sink();
    struct clarity_error err = {0};
    struct summary_options so = {.limit = 50};
    clarity_report_summary_text(o, a, &so, &err);
    struct jsonw w;
    clarity_jsonw_init(&w, o, true);
    clarity_jsonw_arr_begin(&w);
    clarity_report_summary_json(&w, a, &err);
    clarity_report_integrity_json(&w, a, &err);
    clarity_jsonw_arr_end(&w);
    clarity_jsonw_end(&w);
    struct fleet_row row = {0};
    if (clarity_fleet_row_fill(&row, a, &err) == 0) clarity_report_fleet_csv(o, &row, 1, &err);

    int kinds = CLARITY_GROUP_JOB | CLARITY_GROUP_SQL | CLARITY_GROUP_APP;
    struct clarity_blocked_result b;
    if (clarity_blocked_analyze(a, kinds, CLARITY_SLOTS_OBSERVED, 1, &b, &err) == 0) {
        clarity_report_blocked_text(o, a, &b, NULL, &err);
        clarity_jsonw_init(&w, o, false);
        clarity_report_blocked_json(&w, a, &b, &err);
        clarity_jsonw_end(&w);
        clarity_blocked_free(&b);
    }
    struct clarity_stragglers_result s;
    if (clarity_stragglers_analyze(a, kinds, 10, 1, &s, &err) == 0) {
        struct stragglers_report_options ro = {.stage_limit = 20};
        clarity_report_stragglers_text(o, a, &s, &ro, &err);
        clarity_jsonw_init(&w, o, true);
        clarity_report_stragglers_json(&w, a, &s, &err);
        clarity_jsonw_end(&w);
        clarity_stragglers_free(&s);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_file(0, "", data, size);
    if (!path) return 0;
    struct clarity_log_file f = {.path = (char *)path, .codec = CLARITY_CODEC_UNKNOWN};
    struct clarity_app_source src = {.path = (char *)path, .base = "app-fuzz", .layout = CLARITY_LAYOUT_SINGLE,
                                     .files = &f, .nfiles = 1};
    /* as `clarity summary` loads: every event parsed on this thread */
    struct clarity_load_options opt = {.keep_task_accumulables = true, .threads = 1, .quiet = true};
    struct clarity_app *a = NULL;
    struct clarity_error err = {0};
    if (clarity_app_load(&src, &opt, &a, &err) == CLARITY_OK) {
        reports(a);
        clarity_app_free(a);
    }
    /* a quarter of the inputs (by size): starting the worker threads costs more than the
     * rest of a small input's run */
    if (size % 4) return 0;
    struct clarity_load_options lean = {.keep_task_accumulables = false, .threads = 2, .quiet = true};
    if (clarity_app_load(&src, &lean, &a, &err) == CLARITY_OK) {
        struct summary_options so = {.limit = 0};
        clarity_report_summary_text(fuzz_sink(), a, &so, &err);
        clarity_app_free(a);
    }
    return 0;
}
