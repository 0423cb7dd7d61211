/* Databricks directories: rolled eventlog-<time>[.gz] oldest first, then the live eventlog. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "tree.h"

#define GZ "\x1f\x8b\x08\x00\x00\x00\x00\x00"

Test(source_databricks, rolled_by_time_then_live)
{
    char *root = srct_mktree();
    srct_log(root, "cluster/eventlog");
    srct_write(root, "cluster/eventlog-2021-06-15--15-00.gz", GZ, sizeof GZ - 1);
    srct_write(root, "cluster/eventlog-2021-06-14--23-30.gz", GZ, sizeof GZ - 1);
    srct_log(root, "cluster/eventlog-2021-06-15--09-05");
    srct_write(root, "cluster/eventlog-2020-12-31--23-59.gz", GZ, sizeof GZ - 1);
    char *p = srct_path(root, "cluster");
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(srct_resolve1(p, &l, &e), CLARITY_OK, "%s", e.msg);
    cr_assert_eq(l.napps, 1);
    cr_assert_eq(l.nnotes, 0);
    const struct clarity_app_source *a = &l.apps[0];
    cr_assert_str_eq(a->path, p);
    cr_assert_eq(a->layout, CLARITY_LAYOUT_DATABRICKS);
    cr_assert_null(a->base);
    cr_assert_eq(a->in_progress, false);
    cr_assert_eq(a->nfiles, 5);
    cr_assert_str_eq(srct_file(a, 0), "eventlog-2020-12-31--23-59.gz");
    cr_assert_str_eq(srct_file(a, 1), "eventlog-2021-06-14--23-30.gz");
    cr_assert_str_eq(srct_file(a, 2), "eventlog-2021-06-15--09-05");
    cr_assert_str_eq(srct_file(a, 3), "eventlog-2021-06-15--15-00.gz");
    cr_assert_str_eq(srct_file(a, 4), "eventlog");
    cr_assert_eq(a->files[0].codec, CLARITY_CODEC_GZIP);
    cr_assert_eq(a->files[2].codec, CLARITY_CODEC_UNKNOWN);
    cr_assert_eq(a->files[4].codec, CLARITY_CODEC_UNKNOWN);
    clarity_source_list_free(&l);
    free(p);
    srct_rmtree(root);
    free(root);
}

Test(source_databricks, junk_is_noted_and_live_only_works)
{
    char *root = srct_mktree();
    srct_log(root, "c/eventlog");
    srct_write(root, "c/README", "about\n", 6);
    srct_log(root, "c/eventlog-2021-6-15--15-00.gz");   /* malformed time: not a segment */
    char *p = srct_path(root, "c");
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(srct_resolve1(p, &l, &e), CLARITY_OK, "%s", e.msg);
    /* The malformed name sniffs as a log, so this is not taken as a Databricks directory:
     * each log file is its own app rather than guessing an order. */
    cr_assert_eq(l.napps, 2);
    cr_assert_not_null(srct_app(&l, root, "c/eventlog"));
    cr_assert_eq(srct_app(&l, root, "c/eventlog")->layout, CLARITY_LAYOUT_SINGLE);
    cr_assert_eq(l.nnotes, 1);
    cr_assert_str_eq(srct_note(&l, root, "c/README")->why, "not an event log: first bytes \"about\\x0a\"");
    clarity_source_list_free(&l);

    srct_rmtree(p);
    srct_log(root, "c/eventlog");
    srct_write(root, "c/README", "about\n", 6);
    cr_assert_eq(srct_resolve1(p, &l, &e), CLARITY_OK, "%s", e.msg);
    cr_assert_eq(l.napps, 1);
    cr_assert_eq(l.apps[0].layout, CLARITY_LAYOUT_DATABRICKS);
    cr_assert_eq(l.apps[0].nfiles, 1);
    cr_assert_str_eq(srct_file(&l.apps[0], 0), "eventlog");
    cr_assert_eq(l.nnotes, 1);
    cr_assert_str_eq(srct_note(&l, root, "c/README")->why, "not an event log: first bytes \"about\\x0a\"");
    clarity_source_list_free(&l);
    free(p);
    srct_rmtree(root);
    free(root);
}

Test(source_databricks, eventlog_among_other_apps_is_a_container)
{
    char *root = srct_mktree();
    srct_log(root, "eventlog");
    srct_log(root, "app-1");
    srct_log(root, "app-2.inprogress");
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(srct_resolve1(root, &l, &e), CLARITY_OK, "%s", e.msg);
    cr_assert_eq(l.napps, 3);
    for (size_t i = 0; i < l.napps; i++) cr_assert_eq(l.apps[i].layout, CLARITY_LAYOUT_SINGLE);
    cr_assert_eq(srct_app(&l, root, "app-2.inprogress")->in_progress, true);
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}
