/* clarity_source_resolve_app_dir: one directory decided without walking below it, as the
 * fleet index asks of a directory its store does not know. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "tree.h"

static int app_dir(const char *root, const char *rel, struct clarity_source_list *l, bool *is_app)
{
    char *p = srct_path(root, rel);
    struct clarity_error e = {0};
    int rc = clarity_source_resolve_app_dir(p, l, is_app, &e);
    free(p);
    return rc;
}

Test(source_app_dir, a_rolling_directory_is_one_application_in_progress)
{
    char *root = srct_mktree();
    srct_log(root, "eventlog_v2_app-7/events_1_app-7");
    srct_log(root, "eventlog_v2_app-7/events_2_app-7");
    srct_empty(root, "eventlog_v2_app-7/appstatus_app-7.inprogress");
    struct clarity_source_list l;
    bool is_app = false;
    cr_assert_eq(app_dir(root, "eventlog_v2_app-7", &l, &is_app), CLARITY_OK);
    cr_assert(is_app);
    cr_assert_eq(l.napps, 1);
    cr_assert_eq(l.apps[0].nfiles, 2);
    cr_assert(l.apps[0].in_progress);
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}

Test(source_app_dir, a_legacy_directory_is_one_application)
{
    char *root = srct_mktree();
    srct_log(root, "old/EVENT_LOG_1");
    srct_empty(root, "old/SPARK_VERSION_1.2.0");
    srct_empty(root, "old/APPLICATION_COMPLETE");
    struct clarity_source_list l;
    bool is_app = false;
    cr_assert_eq(app_dir(root, "old", &l, &is_app), CLARITY_OK);
    cr_assert(is_app);
    cr_assert_eq(l.napps, 1);
    cr_assert_not(l.apps[0].in_progress);
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}

Test(source_app_dir, a_directory_of_logs_is_not_one_and_is_not_walked)
{
    char *root = srct_mktree();
    srct_log(root, "team/app-1");
    srct_log(root, "team/app-2");
    srct_log(root, "team/deeper/eventlog_v2_app-3/events_1_app-3");
    struct clarity_source_list l;
    bool is_app = true;
    cr_assert_eq(app_dir(root, "team", &l, &is_app), CLARITY_OK);
    cr_assert_not(is_app);
    cr_assert_eq(l.napps, 0);   /* the caller walks it: nothing below is resolved here */
    cr_assert_eq(l.nnotes, 0);
    clarity_source_list_free(&l);
    is_app = true;
    cr_assert_eq(app_dir(root, "missing", &l, &is_app), CLARITY_EIO);
    cr_assert_not(is_app);
    srct_rmtree(root);
    free(root);
}
