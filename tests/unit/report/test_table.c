/* The table writer that fits a width: names cut in the middle keep their end, hosts lose the
 * domain they share, ids are cut last, numbers never; width 0 cuts nothing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/table.h"

/* Writes t at width into a string (caller frees). */
static char *render(struct table *t, size_t width)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *o = open_memstream(&buf, &n);
    cr_assert_not_null(o);
    cr_assert_eq(clarity_table_write(o, t, 2, width), 0);
    fclose(o);
    return buf;
}

static size_t widest(const char *s)
{
    size_t best = 0;
    while (*s) {
        size_t n = strcspn(s, "\n");
        if (n > best) best = n;
        s += n + (s[n] == '\n');
    }
    return best;
}

Test(table, name_cut_in_the_middle_keeps_its_end)
{
    static const struct table_col cols[] = {{"tasks", TCOL_NUM}, {"name", TCOL_NAME}};
    struct table t;
    clarity_table_init(&t, cols, 2);
    const char *r1[] = {"128", "collect at /home/ubuntu/spark-rapids-benchmarks/nds/nds_power.py:118"};
    clarity_table_row(&t, r1);
    char *out = render(&t, 50);
    cr_assert_leq(widest(out), 50, "%s", out);
    cr_assert(strstr(out, "nds_power.py:118"), "the distinguishing end is kept: %s", out);
    cr_assert(strstr(out, "  128  coll"), "the start too, and the number whole: %s", out);
    cr_assert(strstr(out, "..."), "the cut is marked: %s", out);
    free(out);
    clarity_table_free(&t);
}

Test(table, hosts_lose_their_shared_domain)
{
    static const struct table_col cols[] = {{"id", TCOL_FIXED}, {"host", TCOL_HOST}, {"tasks", TCOL_NUM}};
    struct table t;
    clarity_table_init(&t, cols, 3);
    const char *r1[] = {"1", "psarthi-nds-cpu-test-w-0.c.rapids-spark.internal", "1811"};
    const char *r2[] = {"2", "psarthi-nds-cpu-test-w-1.c.rapids-spark.internal", "1418"};
    clarity_table_row(&t, r1);
    clarity_table_row(&t, r2);
    char *out = render(&t, 40);
    cr_assert(strstr(out, "psarthi-nds-cpu-test-w-0 "), "domain dropped, name whole: %s", out);
    cr_assert(strstr(out, "psarthi-nds-cpu-test-w-1 "), "%s", out);
    cr_assert_null(strstr(out, "rapids-spark"), "%s", out);
    free(out);
    /* narrower still: the host keeps its end */
    clarity_table_free(&t);
    clarity_table_init(&t, cols, 3);
    clarity_table_row(&t, r1);
    clarity_table_row(&t, r2);
    out = render(&t, 26);
    cr_assert(strstr(out, "  ...u-test-w-0  "), "%s", out);
    cr_assert(strstr(out, "  ...u-test-w-1  "), "%s", out);
    cr_assert_leq(widest(out), 26, "%s", out);
    free(out);
    clarity_table_free(&t);
}

Test(table, numbers_are_never_cut_and_width_0_cuts_nothing)
{
    static const struct table_col cols[] = {{"application", TCOL_ID}, {"bytes", TCOL_NUM}, {"name", TCOL_NAME}};
    const char *r1[] = {"application_1724877841851_0016/1", "123456789012", "ProcessLargeDataset with a long name"};
    struct table t;
    clarity_table_init(&t, cols, 3);
    clarity_table_row(&t, r1);
    char *out = render(&t, 30);
    cr_assert(strstr(out, "123456789012"), "%s", out);
    free(out);
    clarity_table_free(&t);
    clarity_table_init(&t, cols, 3);
    clarity_table_row(&t, r1);
    out = render(&t, 0);
    cr_assert(strstr(out, r1[0]) && strstr(out, r1[2]), "%s", out);
    free(out);
    clarity_table_free(&t);
    /* the name gives way before the id */
    clarity_table_init(&t, cols, 3);
    clarity_table_row(&t, r1);
    out = render(&t, 70);
    cr_assert(strstr(out, r1[0]), "the id whole while the name can shrink: %s", out);
    cr_assert_null(strstr(out, r1[2]), "%s", out);
    cr_assert_leq(widest(out), 70, "%s", out);
    free(out);
    clarity_table_free(&t);
}

Test(table, no_trailing_blanks)
{
    static const struct table_col cols[] = {{"a", TCOL_FIXED}, {"b", TCOL_FIXED}};
    const char *r1[] = {"x", ""};
    struct table t;
    clarity_table_init(&t, cols, 2);
    clarity_table_row(&t, r1);
    char *out = render(&t, 0);
    cr_assert_str_eq(out, "  a  b\n  x\n");
    free(out);
    clarity_table_free(&t);
}

Test(table, sentences_wrap_at_spaces)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *o = open_memstream(&buf, &n);
    clarity_fit_wrap(o, 40, "lead    ", "one two three four five six seven eight nine ten eleven twelve");
    fclose(o);
    cr_assert_str_eq(buf, "lead    one two three four five six\n"
                          "        seven eight nine ten eleven\n"
                          "        twelve\n");
    free(buf);
}

/* A value is never parted from its unit: the break that would leave "1.4" at the end of a line
 * and "s" at the start of the next goes before the number instead. */
Test(table, wrap_keeps_a_value_with_its_unit)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *o = open_memstream(&buf, &n);
    /* a word followed by a number ("task 12") is no value and unit: the usual breaks hold */
    clarity_fit_wrap(o, 40, "lead    ", "input 53.0 GB, fetch wait 1.4 s then task 12 and more words here");
    fclose(o);
    cr_assert_str_eq(buf, "lead    input 53.0 GB, fetch wait 1.4 s\n"
                          "        then task 12 and more words here\n");
    free(buf);
    /* room 29 after the lead: the last space within it parts "1.4" from "s"; the rule moves the
     * break to the space before the number */
    o = open_memstream(&buf, &n);
    clarity_fit_wrap(o, 37, "lead    ", "input 53.0 GB, fetch wait 1.4 s then more");
    fclose(o);
    cr_assert_str_eq(buf, "lead    input 53.0 GB, fetch wait\n"
                          "        1.4 s then more\n");
    free(buf);
}

/* a wrapped line never parts a number from its unit ("1.4 s"): the break moves to the space
 * before the number; with no other space it parts them rather than overflow */
Test(table, wrap_keeps_number_with_unit)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    /* room 32 (40 - 8) ends right after "1.4": the cut goes before "1.4" */
    clarity_fit_wrapf(o, 40, "lead    ", "shuffle write in %s, fetch wait %s s", "2.2 s", "1.4");
    clarity_fit_wrap(o, 30, "x ", "123456789012345678901234 5 6 words");
    fclose(o);
    cr_assert_str_eq(buf, "lead    shuffle write in 2.2 s, fetch\n"
                          "        wait 1.4 s\n"
                          "x 123456789012345678901234 5 6\n"
                          "  words\n");
    free(buf);
}
