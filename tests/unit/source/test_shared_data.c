/* The real logs in /work/shared/data (Spark's own test logs, NVIDIA's qualification logs):
 * exact app counts so a layout that stops being recognized shows up as a count change. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tree.h"

static char *shared_data(const char *sub)
{
    const char *env = getenv("SHARED_DATA"), *root = getenv("CLARITY_ROOT");
    char *p = NULL;
    if (env && *env) cr_assert(asprintf(&p, "%s/%s", env, sub) > 0);
    else cr_assert(asprintf(&p, "%s/../shared/data/%s", root && *root ? root : ".", sub) > 0);
    struct stat st;
    if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(p);
        return NULL;
    }
    return p;
}

static size_t count_layout(const struct clarity_source_list *l, enum clarity_layout layout)
{
    size_t n = 0;
    for (size_t i = 0; i < l->napps; i++) n += l->apps[i].layout == layout;
    return n;
}

Test(source_shared, spark_events)
{
    char *dir = shared_data("spark-events");
    if (!dir) cr_skip_test("shared data not found (set SHARED_DATA)");
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(srct_resolve1(dir, &l, &e), CLARITY_OK, "%s", e.msg);
    cr_assert_eq(l.napps, 27, "22 single files + 5 legacy directories, got %zu", l.napps);
    cr_assert_eq(count_layout(&l, CLARITY_LAYOUT_SINGLE), 22);
    cr_assert_eq(count_layout(&l, CLARITY_LAYOUT_LEGACY_DIR), 5);
    const struct clarity_app_source *leg = srct_app(&l, dir, "legacy-dir-format/local-1426533911241");
    cr_assert_not_null(leg);
    cr_assert_eq(leg->layout, CLARITY_LAYOUT_LEGACY_DIR);
    cr_assert_str_eq(leg->version_hint, "1.2.0");
    cr_assert_eq(leg->in_progress, false);
    cr_assert_eq(leg->nfiles, 1);
    cr_assert_str_eq(srct_file(leg, 0), "EVENT_LOG_1");
    const struct clarity_app_source *att = srct_app(&l, dir, "local-1430917381535_1");
    cr_assert_not_null(att);
    cr_assert_str_eq(att->base, "local-1430917381535_1");
    cr_assert_eq(att->files[0].codec, CLARITY_CODEC_UNKNOWN);
    /* MANIFEST.tsv and .sources.tsv: reported, not read. */
    cr_assert_eq(l.nnotes, 2);
    cr_assert_not_null(srct_note(&l, dir, "MANIFEST.tsv"));
    cr_assert_not_null(srct_note(&l, dir, ".sources.tsv"));
    clarity_source_list_free(&l);
    free(dir);
}

Test(source_shared, nvidia_qualification)
{
    char *dir = shared_data("external/nvidia-qualification");
    if (!dir) cr_skip_test("shared data not found (set SHARED_DATA)");
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(srct_resolve1(dir, &l, &e), CLARITY_OK, "%s", e.msg);
    /* 26 top-level files, db_sim_eventlog, eventlog_v2_*, cluster_information (6 + 5 in
     * platform/) and multiple_attempts (4). */
    cr_assert_eq(l.napps, 43, "got %zu", l.napps);
    cr_assert_eq(count_layout(&l, CLARITY_LAYOUT_ROLLING_DIR), 1);
    cr_assert_eq(count_layout(&l, CLARITY_LAYOUT_DATABRICKS), 1);
    cr_assert_eq(count_layout(&l, CLARITY_LAYOUT_SINGLE), 41);

    const struct clarity_app_source *r = srct_app(&l, dir, "eventlog_v2_local-1623876083964");
    cr_assert_not_null(r);
    cr_assert_eq(r->layout, CLARITY_LAYOUT_ROLLING_DIR);
    cr_assert_str_eq(r->base, "local-1623876083964");
    cr_assert_eq(r->in_progress, false);
    cr_assert_eq(r->nfiles, 2);
    cr_assert_str_eq(srct_file(r, 0), "events_1_local-1623876083964.zstd");
    cr_assert_str_eq(srct_file(r, 1), "events_2_local-1623876083964.zstd");
    cr_assert_eq(r->files[0].codec, CLARITY_CODEC_ZSTD);

    const struct clarity_app_source *db = srct_app(&l, dir, "db_sim_eventlog");
    cr_assert_not_null(db);
    cr_assert_eq(db->layout, CLARITY_LAYOUT_DATABRICKS);
    cr_assert_eq(db->nfiles, 2);
    cr_assert_str_eq(srct_file(db, 0), "eventlog-2021-06-15--15-00.gz");
    cr_assert_eq(db->files[0].codec, CLARITY_CODEC_GZIP);
    cr_assert_str_eq(srct_file(db, 1), "eventlog");

    cr_assert_not_null(srct_app(&l, dir, "cluster_information/platform/onprem"));
    cr_assert_not_null(srct_app(&l, dir, "multiple_attempts/attempt_4_eventlog.zstd"));
    cr_assert_eq(l.nnotes, 1);
    cr_assert_not_null(srct_note(&l, dir, "MANIFEST.tsv"));
    clarity_source_list_free(&l);
    free(dir);
}
