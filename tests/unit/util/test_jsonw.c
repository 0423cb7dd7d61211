/* The writer's output must be what Jackson's DefaultPrettyPrinter and Double.toString give. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
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
