/* The writer's output must be what Jackson's DefaultPrettyPrinter and Double.toString give. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/jsonw.h"

static char *render(void (*fn)(struct jsonw *), bool pretty)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    struct jsonw w;
    clarity_jsonw_init(&w, f, pretty);
    fn(&w);
    fclose(f);
    return buf;
}

static void doubles(struct jsonw *w)
{
    clarity_jsonw_arr_begin(w);
    double v[] = {40.0, 2010.0, 0.0, 2579051.0, 1e7, 1.5e-4, 0.05, 123456789.0, -3.25};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) clarity_jsonw_double(w, v[i]);
    clarity_jsonw_arr_end(w);
}

Test(jsonw, doubles_as_java_prints_them)
{
    char *s = render(doubles, true);
    cr_assert_str_eq(s, "[ 40.0, 2010.0, 0.0, 2579051.0, 1.0E7, 1.5E-4, 0.05, 1.23456789E8, -3.25 ]");
    free(s);
}

static void nested(struct jsonw *w)
{
    clarity_jsonw_arr_begin(w);
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kint(w, "jobId", 2);
    clarity_jsonw_key(w, "stageIds");
    clarity_jsonw_arr_begin(w);
    clarity_jsonw_int(w, 3);
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "jobTags");
    clarity_jsonw_arr_begin(w);
    clarity_jsonw_arr_end(w);
    clarity_jsonw_key(w, "killedTasksSummary");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_key(w, "m");
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_kstr(w, "a\"b", "x\ny");
    clarity_jsonw_obj_end(w);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_obj_begin(w);
    clarity_jsonw_obj_end(w);
    clarity_jsonw_arr_end(w);
}

Test(jsonw, jackson_pretty_layout)
{
    char *s = render(nested, true);
    cr_assert_str_eq(s, "[ {\n  \"jobId\" : 2,\n  \"stageIds\" : [ 3 ],\n  \"jobTags\" : [ ],\n"
                        "  \"killedTasksSummary\" : { },\n  \"m\" : {\n    \"a\\\"b\" : \"x\\ny\"\n  }\n}, { } ]");
    free(s);
}

Test(jsonw, compact_layout)
{
    char *s = render(nested, false);
    cr_assert_str_eq(s, "[{\"jobId\":2,\"stageIds\":[3],\"jobTags\":[],\"killedTasksSummary\":{},\"m\":{\"a\\\"b\":\"x\\ny\"}},{}]");
    free(s);
}

/* The buffered writer (clarity_jsonw_buffer) must write the very bytes the unbuffered one does,
 * through every fast path: keys given as literals, strings checked 8 bytes at a time (escapes at
 * the start, in a middle word, in the overlapping tail, control bytes), integers two digits at
 * a time (0, one digit, two, odd and even counts, both int64 extremes), and a buffer that fills
 * up part-way (a 16-byte buffer). */
static void fast_paths(struct jsonw *w)
{
    clarity_jsonw_obj_begin(w);
    JSONW_KEY_LIT(w, "task_ms");
    clarity_jsonw_int(w, 0);
    clarity_jsonw_kint(w, "a_key_longer_than_sixteen_bytes", 7);
    clarity_jsonw_kint(w, "k", 10);
    clarity_jsonw_kint(w, "neg", -99);
    clarity_jsonw_kint(w, "big", 100);
    clarity_jsonw_kint(w, "max", INT64_MAX);
    clarity_jsonw_kint(w, "min", INT64_MIN);
    clarity_jsonw_kint(w, "odd", 12345);
    clarity_jsonw_kstr(w, "\"first", "abcdefgh\\ijklmnop");
    clarity_jsonw_kstr(w, "tail", "abcdefghij\"");
    clarity_jsonw_kstr(w, "ctl", "0123456\x01 89");
    clarity_jsonw_kstr(w, "utf8", "caf\xc3\xa9 na\xc3\xafve r\xc3\xa9sum\xc3\xa9");
    clarity_jsonw_kstr(w, "", "");
    clarity_jsonw_obj_end(w);
}

static const char fast_paths_pretty[] =
    "{\n  \"task_ms\" : 0,\n  \"a_key_longer_than_sixteen_bytes\" : 7,\n  \"k\" : 10,\n  \"neg\" : -99,\n"
    "  \"big\" : 100,\n  \"max\" : 9223372036854775807,\n  \"min\" : -9223372036854775808,\n  \"odd\" : 12345,\n"
    "  \"\\\"first\" : \"abcdefgh\\\\ijklmnop\",\n  \"tail\" : \"abcdefghij\\\"\",\n  \"ctl\" : \"0123456\\u0001 89\",\n"
    "  \"utf8\" : \"caf\xc3\xa9 na\xc3\xafve r\xc3\xa9sum\xc3\xa9\",\n  \"\" : \"\"\n}";

static char *render_buffered(void (*fn)(struct jsonw *), bool pretty, size_t cap)
{
    char *buf = NULL, *wbuf = malloc(cap);
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    struct jsonw w;
    clarity_jsonw_init(&w, f, pretty);
    clarity_jsonw_buffer(&w, wbuf, cap);
    fn(&w);
    clarity_jsonw_flush(&w);
    fclose(f);
    free(wbuf);
    return buf;
}

Test(jsonw, buffered_fast_paths_write_the_same_bytes)
{
    char *s = render(fast_paths, true);
    cr_assert_str_eq(s, fast_paths_pretty);
    free(s);
    size_t caps[] = {16, 64, 1 << 16};
    for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
        s = render_buffered(fast_paths, true, caps[i]);
        cr_assert_str_eq(s, fast_paths_pretty, "buffer of %zu bytes", caps[i]);
        free(s);
        char *plain = render(fast_paths, false);
        s = render_buffered(fast_paths, false, caps[i]);
        cr_assert_str_eq(s, plain, "compact, buffer of %zu bytes", caps[i]);
        free(s);
        free(plain);
    }
}

/* kint_lit's one-check path writes what key + int write, first member or not, pretty or
 * compact, nested, and falls back in an array and right after a key. */
static void kint_lit_members(struct jsonw *w)
{
    clarity_jsonw_obj_begin(w);
    JSONW_KINT_LIT(w, "a", 0);
    JSONW_KINT_LIT(w, "bb", -1);
    JSONW_KEY_LIT(w, "nested");
    clarity_jsonw_obj_begin(w);
    JSONW_KINT_LIT(w, "first_in_nested", INT64_MIN);
    JSONW_KINT_LIT(w, "second", 1234567890123);
    clarity_jsonw_obj_end(w);
    JSONW_KEY_LIT(w, "list");
    clarity_jsonw_arr_begin(w);
    clarity_jsonw_int(w, 5);
    clarity_jsonw_arr_end(w);
    JSONW_KINT_LIT(w, "after_list", 99);
    clarity_jsonw_obj_end(w);
}

Test(jsonw, kint_lit_writes_what_key_and_int_write)
{
    char *s = render_buffered(kint_lit_members, true, 1 << 16);
    cr_assert_str_eq(s, "{\n  \"a\" : 0,\n  \"bb\" : -1,\n  \"nested\" : {\n    \"first_in_nested\" : -9223372036854775808,\n"
                        "    \"second\" : 1234567890123\n  },\n  \"list\" : [ 5 ],\n  \"after_list\" : 99\n}");
    free(s);
    s = render_buffered(kint_lit_members, false, 1 << 16);
    cr_assert_str_eq(s, "{\"a\":0,\"bb\":-1,\"nested\":{\"first_in_nested\":-9223372036854775808,\"second\":1234567890123},"
                        "\"list\":[5],\"after_list\":99}");
    free(s);
    char *unbuffered = render(kint_lit_members, true);
    s = render_buffered(kint_lit_members, true, 16);   /* too small for the one-check path */
    cr_assert_str_eq(s, unbuffered);
    free(s);
    free(unbuffered);
}

/* Every power of ten and its neighbours, both signs: the digit count comes from the bit
 * length and one comparison with a power of ten, so each boundary is where it could be off
 * by one. Checked against printf through both integer paths (a value, a literal key). */
static void powers(struct jsonw *w)
{
    clarity_jsonw_obj_begin(w);
    int64_t p = 1;
    for (int i = 0; i <= 18; i++) {
        for (int64_t d = -1; d <= 1; d++) {
            JSONW_KINT_LIT(w, "v", p + d);
            JSONW_KEY_LIT(w, "n");
            clarity_jsonw_int(w, -(p + d));
        }
        if (i < 18) p *= 10;
    }
    JSONW_KINT_LIT(w, "v", INT64_MAX);
    JSONW_KEY_LIT(w, "n");
    clarity_jsonw_int(w, INT64_MIN);
    clarity_jsonw_obj_end(w);
}

Test(jsonw, integers_at_every_power_of_ten)
{
    char want[4096], *o = want;
    o += sprintf(o, "{");
    int64_t p = 1;
    bool first = true;
    for (int i = 0; i <= 18; i++) {
        for (int64_t d = -1; d <= 1; d++) {
            o += sprintf(o, "%s\n  \"v\" : %lld,\n  \"n\" : %lld", first ? "" : ",", (long long)(p + d), (long long)-(p + d));
            first = false;
        }
        if (i < 18) p *= 10;
    }
    o += sprintf(o, ",\n  \"v\" : %lld,\n  \"n\" : %lld\n}", (long long)INT64_MAX, (long long)INT64_MIN);
    char *s = render_buffered(powers, true, 1 << 16);
    cr_assert_str_eq(s, want);
    free(s);
    /* 10^18 + 1 has 19 digits, 10^18 - 1 has 18: worked out, not only compared with printf */
    cr_assert(strstr(want, "\"v\" : 1000000000000000001,") && strstr(want, "\"v\" : 999999999999999999,"));
}

/* The plain-notation doubles are rounded from one exact expansion and re-read through a fast
 * path where it is exact; the definition they must match is "the fewest decimals (1-17) whose
 * printf reads back as v, else 17", printed and re-read each time. */
static void reference_fixed(char *out, size_t cap, double v)
{
    for (int d = 1; d <= 17; d++) {
        snprintf(out, cap, "%.*f", d, v);
        if (strtod(out, NULL) == v) break;
    }
}

static double one_double;
static void one(struct jsonw *w) { clarity_jsonw_double(w, one_double); }

Test(jsonw, plain_doubles_are_the_shortest_that_read_back)
{
    /* worked: 1.125 ties at 2 decimals and rounds to even ("1.12" reads back as 1.12), so 3;
     * 0.1 + 0.2 needs 17 decimals; 0.025000000000000022 needs 17 significant digits, more than
     * 17 decimals give below 0.1, so it is printed with the 17 decimals that do not read back
     * (as printing and re-reading each length always printed it). */
    struct { double v; const char *want; } worked[] = {
        {1.125, "1.125"}, {0.1 + 0.2, "0.30000000000000004"}, {2.5, "2.5"}, {-0.001, "-0.001"},
        {9999999.5, "9999999.5"}, {0.025000000000000022, "0.02500000000000002"}, {1600.0, "1600.0"},
    };
    for (size_t i = 0; i < sizeof worked / sizeof *worked; i++) {
        one_double = worked[i].v;
        char *s = render(one, false);
        cr_assert_str_eq(s, worked[i].want, "%.17g", worked[i].v);
        free(s);
    }
    /* random bit patterns over the whole plain range, short decimals (ties, carries) and the
     * edges, against the definition */
    uint64_t x = 0x9e3779b97f4a7c15u;
    char want[64];
    for (int i = 0; i < 300000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double v;
        switch (i % 4) {
        case 0: { /* any double in [1e-3, 1e7) */
            double e = -3 + 10.0 * (double)(x >> 11) / 9007199254740992.0;
            v = pow(10, e);
            if (v < 1e-3 || v >= 1e7) continue;
            break;
        }
        case 1: v = (double)(x % 100000000) / 1000.0; break;            /* short decimals */
        case 2: v = (double)(x % 20000000) / 8.0 + 0.5 / 64; break;   /* exact binary ties */
        default: v = nextafter((double)(x % 10000000) / 100.0, (x & 1) ? 0 : 1e9); break;
        }
        if (i & 8) v = -v;
        if (fabs(v) < 1e-3 || fabs(v) >= 1e7) continue;
        reference_fixed(want, sizeof want, v);
        one_double = v;
        char *s = render(one, false);
        cr_assert_str_eq(s, want, "%.17g", v);
        free(s);
    }
    for (double v = 1e-3; v < 2e-3; v = nextafter(v, 1)) { /* the smallest plain values need all 17 */
        reference_fixed(want, sizeof want, v);
        one_double = v;
        char *s = render(one, false);
        cr_assert_str_eq(s, want, "%.17g", v);
        free(s);
        if (v > 1.00000000001e-3) break;
    }
}
