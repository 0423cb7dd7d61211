/* Directory links: each directory is entered once, so a link cycle cannot multiply the logs
 * below it and a second way into a directory does not read its logs twice. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tree.h"

static void link_at(const char *root, const char *target, const char *rel)
{
    char *p = srct_path(root, rel);
    cr_assert_eq(symlink(target, p), 0, "symlink %s", p);
    free(p);
}

Test(source_links, eight_self_links_give_one_app_and_a_note_each)
{
    char *root = srct_mktree();
    srct_log(root, "app-1");
    for (int i = 1; i <= 8; i++) {
        char rel[16];
        snprintf(rel, sizeof rel, "s%d", i);
        link_at(root, ".", rel);
    }
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(srct_resolve1(root, &l, &e), CLARITY_OK);
    /* Before: 1 + 8 + 64 + 512 + 4096 = 4681 copies of app-1, down to the depth limit. */
    cr_assert_eq(l.napps, 1);
    cr_assert_not_null(srct_app(&l, root, "app-1"));
    cr_assert_eq(l.nnotes, 8);
    char want[600];
    snprintf(want, sizeof want, "symlink loop: already visited as %s", root);
    for (size_t i = 0; i < l.nnotes; i++) cr_assert_str_eq(l.notes[i].why, want);
    cr_assert_not_null(srct_note(&l, root, "s1"));
    cr_assert_not_null(srct_note(&l, root, "s8"));
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}

Test(source_links, link_to_an_ancestor_below_the_root_is_a_loop)
{
    char *root = srct_mktree();
    srct_log(root, "a/b/app-1");
    link_at(root, "..", "a/b/up");
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(srct_resolve1(root, &l, &e), CLARITY_OK);
    cr_assert_eq(l.napps, 1);
    cr_assert_not_null(srct_app(&l, root, "a/b/app-1"));
    cr_assert_eq(l.nnotes, 1);
    char *a = srct_path(root, "a"), want[600];
    snprintf(want, sizeof want, "symlink loop: already visited as %s", a);
    cr_assert_str_eq(srct_note(&l, root, "a/b/up")->why, want);
    free(a);
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}

Test(source_links, second_way_into_a_directory_is_read_once)
{
    char *root = srct_mktree();
    srct_log(root, "x/app-1");
    link_at(root, "x", "y");
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(srct_resolve1(root, &l, &e), CLARITY_OK);
    cr_assert_eq(l.napps, 1);
    cr_assert_not_null(srct_app(&l, root, "x/app-1"));
    cr_assert_eq(l.nnotes, 1);
    char *x = srct_path(root, "x"), want[600];
    snprintf(want, sizeof want, "same directory as %s, already searched", x);
    cr_assert_str_eq(srct_note(&l, root, "y")->why, want);
    free(x);
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}
