/* The resolver's `known` hook: a file the caller already read as a log is taken without being
 * sniffed; the others are sniffed as always. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "tree.h"

struct seen { int calls; const char *take; };

static bool known(void *ctx, const char *path, uint64_t size)
{
    struct seen *s = ctx;
    s->calls++;
    (void)size;
    const char *slash = strrchr(path, '/');
    return !strcmp(slash ? slash + 1 : path, s->take);
}

Test(source_known, a_known_file_is_taken_unsniffed_and_others_are_sniffed)
{
    char *root = srct_mktree();
    const char text[] = "not a log at all, a README\n";
    srct_write(root, "README", text, sizeof text - 1);       /* the sniff would refuse it */
    srct_write(root, "NOTES", text, sizeof text - 1);
    srct_log(root, "app-1");
    srct_write(root, ".hidden", text, sizeof text - 1);      /* never asked: dotfiles are skipped */
    struct seen s = {0, "README"};
    struct clarity_source_options opt = {.known = known, .known_ctx = &s};
    struct clarity_source_list l;
    struct clarity_error e;
    const char *paths[] = {root};
    cr_assert_eq(clarity_source_resolve_with(paths, 1, &opt, &l, &e), CLARITY_OK, "%s", e.msg);
    cr_assert_eq(s.calls, 3);                                 /* README, NOTES, app-1 */
    cr_assert_eq(l.napps, 2);                                 /* README (known) and app-1 (sniffed) */
    cr_assert_not_null(srct_app(&l, root, "README"));
    cr_assert_not_null(srct_app(&l, root, "app-1"));
    cr_assert_not_null(srct_note(&l, root, "NOTES"));         /* sniffed, refused */
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}
