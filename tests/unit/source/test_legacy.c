/* Spark 1.0-1.2 directories: EVENT_LOG_1 plus marker files. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tree.h"

static const struct clarity_app_source *one_app(const char *root, const char *rel,
                                                struct clarity_source_list *l)
{
    char *p = srct_path(root, rel);
    struct clarity_error e;
    cr_assert_eq(srct_resolve1(p, l, &e), CLARITY_OK, "%s", e.msg);
    cr_assert_eq(l->napps, 1);
    cr_assert_str_eq(l->apps[0].path, p);
    free(p);
    return &l->apps[0];
}

Test(source_legacy, complete_uncompressed)
{
    char *root = srct_mktree();
    srct_log(root, "local-1426533911241/EVENT_LOG_1");
    srct_empty(root, "local-1426533911241/SPARK_VERSION_1.2.0");
    srct_empty(root, "local-1426533911241/APPLICATION_COMPLETE");
    struct clarity_source_list l;
    const struct clarity_app_source *a = one_app(root, "local-1426533911241", &l);
    cr_assert_eq(a->layout, CLARITY_LAYOUT_LEGACY_DIR);
    cr_assert_str_eq(a->base, "local-1426533911241");
    cr_assert_str_eq(a->version_hint, "1.2.0");
    cr_assert_eq(a->in_progress, false);
    cr_assert_eq(a->nfiles, 1);
    cr_assert_str_eq(srct_file(a, 0), "EVENT_LOG_1");
    cr_assert_eq(a->files[0].codec, CLARITY_CODEC_PLAIN, "no COMPRESSION_CODEC_ marker means plain");
    cr_assert_eq(l.nnotes, 0);
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}

Test(source_legacy, lz4_and_in_progress)
{
    char *root = srct_mktree();
    srct_write(root, "app/EVENT_LOG_1", "LZ4Block\x15", 9);
    srct_empty(root, "app/SPARK_VERSION_1.1.1");
    srct_empty(root, "app/COMPRESSION_CODEC_org.apache.spark.io.LZ4CompressionCodec");
    struct clarity_source_list l;
    const struct clarity_app_source *a = one_app(root, "app", &l);
    cr_assert_eq(a->layout, CLARITY_LAYOUT_LEGACY_DIR);
    cr_assert_str_eq(a->version_hint, "1.1.1");
    cr_assert_eq(a->in_progress, true, "no APPLICATION_COMPLETE");
    cr_assert_eq(a->files[0].codec, CLARITY_CODEC_LZ4);
    cr_assert_eq(l.nnotes, 0);
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}

Test(source_legacy, codec_classes_and_short_names)
{
    static const struct {
        const char *marker;
        enum clarity_codec codec;
    } cases[] = {
        {"COMPRESSION_CODEC_org.apache.spark.io.LZFCompressionCodec", CLARITY_CODEC_LZF},
        {"COMPRESSION_CODEC_org.apache.spark.io.SnappyCompressionCodec", CLARITY_CODEC_SNAPPY},
        {"COMPRESSION_CODEC_org.apache.spark.io.ZStdCompressionCodec", CLARITY_CODEC_ZSTD},
        {"COMPRESSION_CODEC_snappy", CLARITY_CODEC_SNAPPY},
        {"COMPRESSION_CODEC_LZF", CLARITY_CODEC_LZF},
        {"COMPRESSION_CODEC_com.example.MyCodec", CLARITY_CODEC_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *root = srct_mktree();
        srct_log(root, "app/EVENT_LOG_1");
        srct_empty(root, "app/APPLICATION_COMPLETE");
        char rel[160];
        snprintf(rel, sizeof rel, "app/%s", cases[i].marker);
        srct_empty(root, rel);
        struct clarity_source_list l;
        const struct clarity_app_source *a = one_app(root, "app", &l);
        cr_assert_eq(a->files[0].codec, cases[i].codec, "%s", cases[i].marker);
        cr_assert_null(a->version_hint);
        clarity_source_list_free(&l);
        srct_rmtree(root);
        free(root);
    }
}

Test(source_legacy, rolled_parts_sorted_numerically_and_strays_noted)
{
    char *root = srct_mktree();
    srct_log(root, "app/EVENT_LOG_10");
    srct_log(root, "app/EVENT_LOG_2");
    srct_log(root, "app/EVENT_LOG_1");
    srct_empty(root, "app/SPARK_VERSION_1.0.2");
    srct_log(root, "app/stray.log");
    struct clarity_source_list l;
    const struct clarity_app_source *a = one_app(root, "app", &l);
    cr_assert_eq(a->nfiles, 3);
    cr_assert_str_eq(srct_file(a, 0), "EVENT_LOG_1");
    cr_assert_str_eq(srct_file(a, 1), "EVENT_LOG_2");
    cr_assert_str_eq(srct_file(a, 2), "EVENT_LOG_10");
    cr_assert_eq(l.nnotes, 1);
    cr_assert(strstr(srct_note(&l, root, "app/stray.log")->why, "not part of the legacy event log") != NULL);
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}

Test(source_legacy, markers_without_events_make_one_note)
{
    char *root = srct_mktree();
    srct_empty(root, "app/SPARK_VERSION_1.2.0");
    srct_empty(root, "app/APPLICATION_COMPLETE");
    struct clarity_source_list l;
    struct clarity_error e;
    cr_assert_eq(srct_resolve1(root, &l, &e), CLARITY_ENOTFOUND);
    cr_assert_eq(l.napps, 0);
    cr_assert_eq(l.nnotes, 1);
    cr_assert_str_eq(srct_note(&l, root, "app")->why,
                     "legacy (Spark 1.x) log directory without an EVENT_LOG_1 file");
    clarity_source_list_free(&l);
    srct_rmtree(root);
    free(root);
}
