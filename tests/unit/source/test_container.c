/* Directories of many applications, unreadable and empty paths, the result's order. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tree.h"

static void build_mixed(const char *root)
{
    srct_log(root, "app-1");
    srct_write(root, "app-2.lz4", "LZ4Block\x15", 9);
    srct_write(root, "app-3.zstd.inprogress", SRCT_ZSTD, sizeof SRCT_ZSTD - 1);
    srct_empty(root, "empty-app");
    srct_write(root, "MANIFEST.tsv", "name\tsource\n", 12);
    srct_write(root, "README", "# logs\n", 7);
    srct_log(root, ".hidden");
    srct_log(root, ".git/HEAD");
    srct_log(root, "eventlog_v2_app-4/events_1_app-4");
    srct_empty(root, "eventlog_v2_app-4/appstatus_app-4");
    srct_log(root, "legacy/EVENT_LOG_1");
    srct_empty(root, "legacy/SPARK_VERSION_1.2.0");
    srct_log(root, "db/eventlog");
    srct_log(root, "nested/a/b/c/app-deep");
    srct_log(root, "nested/a/b/c/d/app-deeper");
    srct_mkdir(root, "emptydir");
    char *fifo = srct_path(root, "fifo");
    cr_assert_eq(mkfifo(fifo, 0644), 0, "mkfifo: %s", strerror(errno));
    free(fifo);
    char *link = srct_path(root, "link-to-app-1"), *dangling = srct_path(root, "dangling");
    cr_assert_eq(symlink("app-1", link), 0);
    cr_assert_eq(symlink("nowhere", dangling), 0);
    free(link);
    free(dangling);
}

Test(source_container, mixed_directory)
{
    char *root = srct_mktree();
    build_mixed(root);
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(srct_resolve1(root, &l, &e), CLARITY_OK, "%s", e.msg);

    static const char *const apps[] = {
        "app-1", "app-2.lz4", "app-3.zstd.inprogress", "db", "empty-app", "eventlog_v2_app-4",
        "legacy", "link-to-app-1", "nested/a/b/c/app-deep",
    };
    cr_assert_eq(l.napps, sizeof apps / sizeof apps[0]);
    for (size_t i = 0; i < l.napps; i++) {
        char *want = srct_path(root, apps[i]);
        cr_assert_str_eq(l.apps[i].path, want, "apps sorted by path");
        free(want);
    }
    cr_assert_eq(srct_app(&l, root, "app-2.lz4")->files[0].codec, CLARITY_CODEC_LZ4);
    const struct clarity_app_source *a3 = srct_app(&l, root, "app-3.zstd.inprogress");
    cr_assert_eq(a3->files[0].codec, CLARITY_CODEC_ZSTD);
    cr_assert_eq(a3->in_progress, true);
    cr_assert_str_eq(a3->base, "app-3");
    cr_assert_eq(srct_app(&l, root, "db")->layout, CLARITY_LAYOUT_DATABRICKS);
    cr_assert_eq(srct_app(&l, root, "legacy")->layout, CLARITY_LAYOUT_LEGACY_DIR);
    cr_assert_eq(srct_app(&l, root, "legacy")->in_progress, true);
    cr_assert_eq(srct_app(&l, root, "eventlog_v2_app-4")->layout, CLARITY_LAYOUT_ROLLING_DIR);

    static const struct {
        const char *rel, *why;
    } notes[] = {
        {".git", "hidden directory (dotfile), not searched"},
        {".hidden", "not an event log: hidden name (dotfile)"},
        {"MANIFEST.tsv", "not an event log: first bytes \"name\\x09source\\x0a\""},
        {"README", "not an event log: first bytes \"# logs\\x0a\""},
        {"dangling", "cannot read: No such file or directory"},
        {"emptydir", "empty directory"},
        {"fifo", "not an event log: not a regular file or directory"},
        {"nested/a/b/c/d", "not searched: more than 4 levels below the named directory"},
    };
    cr_assert_eq(l.nnotes, sizeof notes / sizeof notes[0]);
    for (size_t i = 0; i < l.nnotes; i++) {
        char *want = srct_path(root, notes[i].rel);
        cr_assert_str_eq(l.notes[i].path, want, "notes sorted by path");
        cr_assert_str_eq(l.notes[i].why, notes[i].why);
        free(want);
    }
    clarity_source_list_free(&l);
    cr_assert_eq(l.napps, 0);
    cr_assert_null(l.apps);
    srct_rmtree(root);
    free(root);
}

Test(source_container, missing_path_is_eio_and_others_still_resolve)
{
    char *root = srct_mktree();
    srct_log(root, "app-1");
    char *missing = srct_path(root, "missing"), *app = srct_path(root, "app-1");
    const char *paths[] = {missing, app};
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(clarity_source_resolve(paths, 2, &l, &e), CLARITY_EIO);
    cr_assert_eq(e.code, CLARITY_EIO);
    cr_assert_str_eq(e.file, missing);
    cr_assert(!strcmp(e.file, missing) && strstr(e.msg, "No such file or directory"), "%s: %s", e.file, e.msg);
    cr_assert_eq(l.napps, 1);
    cr_assert_str_eq(l.apps[0].path, app);
    cr_assert_eq(l.nnotes, 1);
    cr_assert_str_eq(l.notes[0].path, missing);
    cr_assert_str_eq(l.notes[0].why, "cannot read: No such file or directory");
    clarity_source_list_free(&l);
    free(missing);
    free(app);
    srct_rmtree(root);
    free(root);
}

Test(source_container, empty_directory_is_not_found)
{
    char *root = srct_mktree();
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(srct_resolve1(root, &l, &e), CLARITY_ENOTFOUND);
    cr_assert_eq(e.code, CLARITY_ENOTFOUND);
    char want[600];
    snprintf(want, sizeof want, "no event logs found in %s", root);
    cr_assert_str_eq(e.msg, want);
    cr_assert_eq(l.napps, 0);
    cr_assert_eq(l.nnotes, 1);
    cr_assert_str_eq(l.notes[0].path, root);
    cr_assert_str_eq(l.notes[0].why, "empty directory");
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}

Test(source_container, same_app_named_twice_is_one_app)
{
    char *root = srct_mktree();
    srct_log(root, "app-1");
    srct_log(root, "app-2");
    char *slash = NULL, *app = srct_path(root, "app-1");
    cr_assert(asprintf(&slash, "%s//", root) > 0);
    const char *paths[] = {root, app, slash};
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(clarity_source_resolve(paths, 3, &l, &e), CLARITY_OK, "%s", e.msg);
    cr_assert_eq(l.napps, 2);
    cr_assert_str_eq(l.apps[0].path, app);
    clarity_source_list_free(&l);
    free(slash);
    free(app);
    srct_rmtree(root);
    free(root);
}

Test(source_container, no_paths_is_usage)
{
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(clarity_source_resolve(NULL, 0, &l, &e), CLARITY_EUSAGE);
    cr_assert_eq(l.napps, 0);
    clarity_source_list_free(&l);
}

struct par {
    const char *root;
    size_t napps, nnotes;
    int rc;
    char first[512];
};

static void *resolve_thread(void *arg)
{
    struct par *p = arg;
    for (int i = 0; i < 20; i++) {
        struct clarity_source_list l;
        struct clarity_error e;
        p->rc = srct_resolve1(p->root, &l, &e);
        p->napps = l.napps;
        p->nnotes = l.nnotes;
        snprintf(p->first, sizeof p->first, "%s", l.napps ? l.apps[0].path : "");
        clarity_source_list_free(&l);
    }
    return NULL;
}

Test(source_container, concurrent_resolves_agree)
{
    char *root = srct_mktree();
    build_mixed(root);
    pthread_t t[4];
    struct par p[4];
    for (int i = 0; i < 4; i++) {
        p[i] = (struct par){.root = root};
        cr_assert_eq(pthread_create(&t[i], NULL, resolve_thread, &p[i]), 0);
    }
    for (int i = 0; i < 4; i++) cr_assert_eq(pthread_join(t[i], NULL), 0);
    char *first = srct_path(root, "app-1");
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(p[i].rc, CLARITY_OK);
        cr_assert_eq(p[i].napps, 9);
        cr_assert_eq(p[i].nnotes, 8);
        cr_assert_str_eq(p[i].first, first);
    }
    free(first);
    srct_rmtree(root);
    free(root);
}
