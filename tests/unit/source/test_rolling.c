/* Rolling eventlog_v2_<base>/ directories. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tree.h"

static int resolve_dir(const char *root, const char *rel, struct clarity_source_list *l)
{
    char *p = srct_path(root, rel);
    struct clarity_error e;
    int rc = srct_resolve1(p, l, &e);
    free(p);
    return rc;
}

Test(source_rolling, sorted_numerically_and_complete)
{
    char *root = srct_mktree();
    /* Written in a scrambled order so neither creation nor lexical order can pass. */
    static const int order[] = {10, 2, 12, 1, 9, 11, 3, 8, 4, 7, 5, 6};
    for (size_t i = 0; i < 12; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "eventlog_v2_app-1/events_%d_app-1.zstd", order[i]);
        srct_write(root, rel, SRCT_ZSTD, sizeof SRCT_ZSTD - 1);
    }
    srct_empty(root, "eventlog_v2_app-1/appstatus_app-1");
    struct clarity_source_list l;
    cr_assert_eq(resolve_dir(root, "eventlog_v2_app-1", &l), CLARITY_OK);
    cr_assert_eq(l.napps, 1);
    cr_assert_eq(l.nnotes, 0);
    const struct clarity_app_source *a = &l.apps[0];
    cr_assert_eq(a->layout, CLARITY_LAYOUT_ROLLING_DIR);
    cr_assert_str_eq(a->base, "app-1");
    cr_assert_eq(a->in_progress, false);
    cr_assert_eq(a->nfiles, 12);
    cr_assert_eq(a->dropped_before_compact, 0);
    cr_assert_eq(a->missing_parts, 0);
    for (size_t i = 0; i < 12; i++) {
        char want[64];
        snprintf(want, sizeof want, "events_%zu_app-1.zstd", i + 1);
        cr_assert_str_eq(srct_file(a, i), want);
        cr_assert_eq(a->files[i].codec, CLARITY_CODEC_ZSTD);
        cr_assert_eq(a->files[i].compact, false);
    }
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}

Test(source_rolling, drops_files_before_last_compact)
{
    char *root = srct_mktree();
    srct_log(root, "eventlog_v2_app-2/events_1_app-2");
    srct_log(root, "eventlog_v2_app-2/events_2_app-2.compact");
    srct_log(root, "eventlog_v2_app-2/events_3_app-2");
    srct_empty(root, "eventlog_v2_app-2/appstatus_app-2.inprogress");
    struct clarity_source_list l;
    cr_assert_eq(resolve_dir(root, "eventlog_v2_app-2", &l), CLARITY_OK);
    cr_assert_eq(l.napps, 1);
    const struct clarity_app_source *a = &l.apps[0];
    cr_assert_eq(a->nfiles, 2);
    cr_assert_eq(a->dropped_before_compact, 1);
    cr_assert_str_eq(srct_file(a, 0), "events_2_app-2.compact");
    cr_assert_eq(a->files[0].compact, true);
    cr_assert_eq(a->files[0].codec, CLARITY_CODEC_UNKNOWN);
    cr_assert_str_eq(srct_file(a, 1), "events_3_app-2");
    cr_assert_eq(a->files[1].compact, false);
    cr_assert_eq(a->in_progress, true);
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}

Test(source_rolling, last_of_several_compacts_and_coexisting_plain_file)
{
    char *root = srct_mktree();
    srct_log(root, "eventlog_v2_app-3/events_1_app-3.lz4.compact");
    srct_log(root, "eventlog_v2_app-3/events_2_app-3.lz4");
    srct_log(root, "eventlog_v2_app-3/events_3_app-3.lz4");
    /* Mid-compaction: the plain events_3 still exists next to its compact version. */
    srct_log(root, "eventlog_v2_app-3/events_3_app-3.lz4.compact");
    srct_log(root, "eventlog_v2_app-3/events_4_app-3.lz4");
    srct_empty(root, "eventlog_v2_app-3/appstatus_app-3");
    struct clarity_source_list l;
    cr_assert_eq(resolve_dir(root, "eventlog_v2_app-3", &l), CLARITY_OK);
    const struct clarity_app_source *a = &l.apps[0];
    cr_assert_eq(a->nfiles, 2);
    cr_assert_eq(a->dropped_before_compact, 3);
    cr_assert_str_eq(srct_file(a, 0), "events_3_app-3.lz4.compact");
    cr_assert_eq(a->files[0].codec, CLARITY_CODEC_LZ4);
    cr_assert_eq(a->files[0].compact, true);
    cr_assert_str_eq(srct_file(a, 1), "events_4_app-3.lz4");
    cr_assert_eq(a->in_progress, false);
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}

Test(source_rolling, appstatus_states)
{
    char *root = srct_mktree();
    srct_log(root, "eventlog_v2_done/events_1_done");
    srct_empty(root, "eventlog_v2_done/appstatus_done");
    srct_log(root, "eventlog_v2_running/events_1_running");
    srct_empty(root, "eventlog_v2_running/appstatus_running.inprogress");
    srct_log(root, "eventlog_v2_nostatus/events_1_nostatus");
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(srct_resolve1(root, &l, &e), CLARITY_OK);
    cr_assert_eq(l.napps, 3);
    cr_assert_eq(l.nnotes, 0);
    cr_assert_eq(srct_app(&l, root, "eventlog_v2_done")->in_progress, false);
    cr_assert_eq(srct_app(&l, root, "eventlog_v2_running")->in_progress, true);
    cr_assert_eq(srct_app(&l, root, "eventlog_v2_nostatus")->in_progress, true);
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}

Test(source_rolling, renamed_directory_and_stray_files)
{
    char *root = srct_mktree();
    srct_log(root, "copied/events_2_local-7.snappy");
    srct_log(root, "copied/events_1_local-7.snappy");
    srct_empty(root, "copied/appstatus_local-7");
    srct_log(root, "copied/notes.txt");
    srct_empty(root, "copied/.events_1_local-7.snappy.crc");
    struct clarity_source_list l;
    cr_assert_eq(resolve_dir(root, "copied", &l), CLARITY_OK);
    cr_assert_eq(l.napps, 1);
    const struct clarity_app_source *a = &l.apps[0];
    cr_assert_eq(a->layout, CLARITY_LAYOUT_ROLLING_DIR);
    cr_assert_str_eq(a->base, "local-7");
    cr_assert_eq(a->nfiles, 2);
    cr_assert_str_eq(srct_file(a, 0), "events_1_local-7.snappy");
    cr_assert_eq(a->files[0].codec, CLARITY_CODEC_SNAPPY);
    cr_assert_eq(l.nnotes, 2);
    cr_assert_not_null(srct_note(&l, root, "copied/notes.txt"));
    cr_assert_str_eq(srct_note(&l, root, "copied/.events_1_local-7.snappy.crc")->why,
                     "not an event log: hidden name (dotfile)");
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}

Test(source_rolling, without_events_is_a_note)
{
    char *root = srct_mktree();
    srct_empty(root, "eventlog_v2_app-9/appstatus_app-9.inprogress");
    struct clarity_source_list l;
    struct clarity_error e;
    char *p = srct_path(root, "eventlog_v2_app-9");
    cr_assert_eq(srct_resolve1(p, &l, &e), CLARITY_ENOTFOUND);
    cr_assert_eq(l.napps, 0);
    cr_assert_eq(l.nnotes, 1);
    cr_assert_str_eq(l.notes[0].path, p);
    cr_assert_str_eq(l.notes[0].why, "rolling event log directory without events_<N>_ files");
    clarity_source_list_free(&l);
    free(p);
    srct_rmtree(root);
    free(root);
}

Test(source_rolling, gap_in_indexes_is_counted)
{
    char *root = srct_mktree();
    srct_log(root, "eventlog_v2_app-7/events_1_app-7");
    srct_log(root, "eventlog_v2_app-7/events_3_app-7");
    srct_log(root, "eventlog_v2_app-7/events_6_app-7");
    srct_empty(root, "eventlog_v2_app-7/appstatus_app-7");
    struct clarity_source_list l;
    cr_assert_eq(resolve_dir(root, "eventlog_v2_app-7", &l), CLARITY_OK);
    cr_assert_eq(l.napps, 1);
    const struct clarity_app_source *a = &l.apps[0];
    cr_assert_eq(a->nfiles, 3);
    cr_assert_eq(a->missing_parts, 3);        /* 2, 4 and 5 */
    cr_assert_eq(a->first_missing_part, 2);
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}

Test(source_rolling, missing_first_part_counts_unless_a_compact_starts)
{
    char *root = srct_mktree();
    srct_log(root, "eventlog_v2_app-8/events_3_app-8");
    srct_log(root, "eventlog_v2_app-8/events_4_app-8");
    srct_log(root, "eventlog_v2_app-9/events_3_app-9.compact");
    srct_log(root, "eventlog_v2_app-9/events_4_app-9");
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(srct_resolve1(root, &l, &e), CLARITY_OK);
    cr_assert_eq(l.napps, 2);
    const struct clarity_app_source *a8 = srct_app(&l, root, "eventlog_v2_app-8");
    const struct clarity_app_source *a9 = srct_app(&l, root, "eventlog_v2_app-9");
    cr_assert_eq(a8->missing_parts, 2);
    cr_assert_eq(a8->first_missing_part, 1);
    cr_assert_eq(a9->missing_parts, 0);       /* the compact file stands for 1..3 */
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}
