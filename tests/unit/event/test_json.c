/* The simdjson wrapper on documents of every small size: a parser sized to the document used
 * to refuse anything of 30 bytes or less (a short log4j JSON line, a tiny truth.json). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "event/json.h"

static int parse_sized(const char *doc, int64_t *value)
{
    size_t len = strlen(doc);
    cj_parser *p = clarity_cj_parser_new(len + 1);
    char *buf = calloc(1, len + CJ_PADDING);
    cr_assert(p && buf);
    memcpy(buf, doc, len);
    cj_val root;
    const char *why = NULL;
    int rc = clarity_cj_parse(p, buf, len, &root, &why);
    if (rc == 0) cr_assert(clarity_cj_get_int(root, "a", value), "no member a");
    free(buf);
    clarity_cj_parser_free(p);
    return rc;
}

Test(json, tiny_documents_parse_with_a_parser_sized_to_them)
{
    int64_t v = 0;
    cr_assert_eq(parse_sized("{\"a\":7}", &v), 0);
    cr_assert_eq(v, 7);
    cr_assert_eq(parse_sized("{\"a\":12,\"ts\":\"2024-06-01T10:00Z\"}", &v), 0);
    cr_assert_eq(v, 12);
    char big[9000];
    int n = snprintf(big, sizeof big, "{\"a\":3,\"pad\":\"");
    memset(big + n, 'x', 8000);
    strcpy(big + n + 8000, "\"}");
    cr_assert_eq(parse_sized(big, &v), 0);
    cr_assert_eq(v, 3);
}
