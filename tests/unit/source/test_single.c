/* Single-file logs: what the name says (codec, .inprogress, .compact, base). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "tree.h"

struct name_case {
    const char *name;
    const char *base;
    enum clarity_codec codec;
    bool in_progress;
    bool compact;
};

static void check_name(const struct name_case *c)
{
    char *root = srct_mktree();
    srct_log(root, c->name);
    char *p = srct_path(root, c->name);
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(srct_resolve1(p, &l, &e), CLARITY_OK, "%s: %s", c->name, e.msg);
    cr_assert_eq(l.napps, 1);
    cr_assert_eq(l.nnotes, 0);
    const struct clarity_app_source *a = &l.apps[0];
    cr_assert_str_eq(a->path, p);
    cr_assert_eq(a->layout, CLARITY_LAYOUT_SINGLE);
    cr_assert_str_eq(a->base, c->base, "%s", c->name);
    cr_assert_eq(a->in_progress, c->in_progress, "%s", c->name);
    cr_assert_null(a->version_hint);
    cr_assert_eq(a->nfiles, 1);
    cr_assert_str_eq(a->files[0].path, p);
    cr_assert_eq(a->files[0].codec, c->codec, "%s: codec %d", c->name, a->files[0].codec);
    cr_assert_eq(a->files[0].compact, c->compact, "%s", c->name);
    cr_assert_eq(a->dropped_before_compact, 0);
    clarity_source_list_free(&l);
    free(p);
    srct_rmtree(root);
    free(root);
}

Test(source_single, inprogress_with_codec)
{
    check_name(&(struct name_case){"app-1.zstd.inprogress", "app-1", CLARITY_CODEC_ZSTD, true, false});
}

Test(source_single, app_ids_without_dots_keep_their_underscores)
{
    check_name(&(struct name_case){"local-1430917381535_1", "local-1430917381535_1", CLARITY_CODEC_UNKNOWN, false, false});
    check_name(&(struct name_case){"application_1536831636016_59384_1", "application_1536831636016_59384_1",
                                   CLARITY_CODEC_UNKNOWN, false, false});
}

Test(source_single, every_codec_extension)
{
    check_name(&(struct name_case){"app-2.lz4", "app-2", CLARITY_CODEC_LZ4, false, false});
    check_name(&(struct name_case){"app-2.lzf", "app-2", CLARITY_CODEC_LZF, false, false});
    check_name(&(struct name_case){"app-2.snappy", "app-2", CLARITY_CODEC_SNAPPY, false, false});
    check_name(&(struct name_case){"app-2.zstd", "app-2", CLARITY_CODEC_ZSTD, false, false});
    check_name(&(struct name_case){"eventlog-2021-06-15--15-00.gz", "eventlog-2021-06-15--15-00", CLARITY_CODEC_GZIP, false, false});
}

Test(source_single, unknown_extension_stays_in_base)
{
    /* Only known codecs are extensions; anything else is part of the name. */
    check_name(&(struct name_case){"app-3.json", "app-3.json", CLARITY_CODEC_UNKNOWN, false, false});
    check_name(&(struct name_case){"app-3.ZSTD", "app-3.ZSTD", CLARITY_CODEC_UNKNOWN, false, false});
}

Test(source_single, inprogress_without_codec_and_compact)
{
    check_name(&(struct name_case){"local-99.inprogress", "local-99", CLARITY_CODEC_UNKNOWN, true, false});
    check_name(&(struct name_case){"events_3_app-4.lz4.compact", "events_3_app-4", CLARITY_CODEC_LZ4, false, true});
}

Test(source_single, named_non_log_file_is_a_note)
{
    char *root = srct_mktree();
    srct_write(root, "README", "hello world\n", 12);
    char *p = srct_path(root, "README");
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(srct_resolve1(p, &l, &e), CLARITY_ENOTFOUND);
    cr_assert_eq(l.napps, 0);
    cr_assert_eq(l.nnotes, 1);
    cr_assert_str_eq(l.notes[0].path, p);
    cr_assert_str_eq(l.notes[0].why, "not an event log: first bytes \"hello world\\x0a\"");
    cr_assert(strstr(e.msg, "no event logs found in ") != NULL, "%s", e.msg);
    cr_assert(strstr(e.msg, p) != NULL, "%s", e.msg);
    clarity_source_list_free(&l);
    free(p);
    srct_rmtree(root);
    free(root);
}

Test(source_single, compressed_magic_without_extension_is_a_log)
{
    char *root = srct_mktree();
    srct_write(root, "app-5", SRCT_ZSTD, sizeof SRCT_ZSTD - 1);
    srct_write(root, "app-6", "LZ4Block\x15", 9);
    srct_write(root, "app-7", "\x82SNAPPY\0", 8);
    srct_write(root, "app-8", "ZV\x01", 3);
    srct_write(root, "app-9", "\xef\xbb\xbf  {\"Event\"", 14);
    srct_write(root, "header", "SPARK_VERSION 1.3.0\n=== LOG_HEADER_END ===\n", 43);
    srct_write(root, "zv.txt", "ZVx is not lzf", 14);
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(srct_resolve1(root, &l, &e), CLARITY_OK, "%s", e.msg);
    cr_assert_eq(l.napps, 6);
    cr_assert_not_null(srct_app(&l, root, "app-5"));
    cr_assert_eq(srct_app(&l, root, "app-5")->files[0].codec, CLARITY_CODEC_UNKNOWN,
                 "the codec field reports the name; the decoder confirms by magic");
    cr_assert_not_null(srct_app(&l, root, "app-6"));
    cr_assert_not_null(srct_app(&l, root, "app-7"));
    cr_assert_not_null(srct_app(&l, root, "app-8"));
    cr_assert_not_null(srct_app(&l, root, "app-9"));
    cr_assert_not_null(srct_app(&l, root, "header"));
    cr_assert_eq(l.nnotes, 1);
    cr_assert_not_null(srct_note(&l, root, "zv.txt"));
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}

Test(source_single, damaged_magic_with_codec_name_is_kept_for_the_decoder)
{
    char *root = srct_mktree();
    srct_write(root, "app-10.zstd", "garbage!", 8);
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(srct_resolve1(root, &l, &e), CLARITY_OK, "%s", e.msg);
    cr_assert_eq(l.napps, 1);
    cr_assert_eq(l.apps[0].files[0].codec, CLARITY_CODEC_ZSTD);
    cr_assert_eq(l.nnotes, 0);
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}
