/* The TaskEnd markers a lean load blanks are found by jumping between candidate letters
 * (memchr) instead of memmem: both must find the same first occurrence, on lines with decoys
 * (the letter without the quote, the quote and letter without the rest, a marker cut by the
 * line's end) and on every TaskEnd line of the fixtures. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/decode/blank.h"

/* The former search, as the reference. */
static bool ref_acc(const char *line, size_t len, size_t *open, size_t *close)
{
    static const char ev[] = "{\"Event\":\"SparkListenerTaskEnd\"";
    static const char key[] = "\"Accumulables\":[";
    static const char end[] = "]},\"Task ";
    if (len < sizeof ev || memcmp(line, ev, sizeof ev - 1) != 0) return false;
    const char *k = memmem(line, len, key, sizeof key - 1);
    if (!k) return false;
    *open = (size_t)(k - line) + sizeof key - 2;
    const char *e = memmem(line + *open, len - *open, end, sizeof end - 1);
    if (!e) return false;
    *close = (size_t)(e - line);
    return *close > *open + 1;
}
static bool ref_exec(const char *line, size_t len, size_t *open, size_t *close)
{
    static const char ev[] = "{\"Event\":\"SparkListenerTaskEnd\"";
    static const char key[] = "\"Task Executor Metrics\":{";
    if (len < sizeof ev || memcmp(line, ev, sizeof ev - 1) != 0) return false;
    const char *k = memmem(line, len, key, sizeof key - 1);
    if (!k) return false;
    *open = (size_t)(k - line) + sizeof key - 2;
    const char *e = memchr(line + *open, '}', len - *open);
    if (!e) return false;
    *close = (size_t)(e - line);
    return *close > *open + 1;
}

static int same(const char *line, size_t len)
{
    size_t o1 = 0, c1 = 0, o2 = 0, c2 = 0;
    bool a = clarity_blank_find_accumulables(line, len, &o1, &c1), b = ref_acc(line, len, &o2, &c2);
    cr_assert_eq(a, b, "accumulables found %d, reference %d: %.*s", a, b, (int)len, line);
    if (a) cr_assert(o1 == o2 && c1 == c2, "accumulables at [%zu, %zu], reference [%zu, %zu]", o1, c1, o2, c2);
    bool x = clarity_blank_find_executor_metrics(line, len, &o1, &c1), y = ref_exec(line, len, &o2, &c2);
    cr_assert_eq(x, y, "executor metrics found %d, reference %d: %.*s", x, y, (int)len, line);
    if (x) cr_assert(o1 == o2 && c1 == c2);
    return a + 2 * x;
}

#define EV "{\"Event\":\"SparkListenerTaskEnd\""
Test(blank_find, decoys_and_cut_markers)
{
    const char *lines[] = {
        EV ",\"Task Info\":{\"Attempt\":0,\"A\":\"Accumulables\",\"Accumulables\":[{\"ID\":1}]},\"Task Metrics\":{}}",
        EV ",\"Task Info\":{\"Accumulables\":[]},\"Task Executor Metrics\":{\"JVMHeapMemory\":5}}",
        EV ",\"Task Info\":{\"Accumulables\":[{\"x\":\"]},\\\"Task \"}]},\"Task Executor Metrics\":{}}",
        EV ",\"Task Info\":{\"Accumulables\":[{\"ID\":1}]},\"Task Executor Metrics\":{\"A\":1,\"B\":2}}",
        EV ",\"Task Info\":{\"Accumulables\":[{\"ID\":1}]},\"Task",
        EV ",\"Task Info\":{\"Accumulables\":[1]},\"Task ",
        EV ",\"Task Info\":{\"Accumulables\"",
        EV ",\"Task Info\":{\"Accumulables\":",
        EV ",\"Task Executor Metrics\":{",
        EV ",\"Task Executor Metrics\"",
        EV "\"Accumulables\":[[]]},\"Task Executor Metrics\":{}}\"Task Executor Metrics\":{\"a\":1}",
        "{\"Event\":\"SparkListenerTaskStart\",\"Task Info\":{\"Accumulables\":[{\"ID\":1}]},\"Task ",
        EV,
    };
    int found = 0;
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) found |= same(lines[i], strlen(lines[i]));
    cr_assert_eq(found, 3, "both markers were found somewhere");
}

Test(blank_find, every_fixture_task_end)
{
    const char *root = getenv("CLARITY_ROOT");
    const char *files[] = {"tests/data/mini-3x.json", "tests/data/spark-3.1-app-20200706201101-0003.json",
                           "tests/unit/shs/data/app-shs-0001_2.json"};
    size_t task_ends = 0, with_acc = 0;
    for (size_t fi = 0; fi < sizeof files / sizeof *files; fi++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", root ? root : ".", files[fi]);
        FILE *f = fopen(path, "r");
        cr_assert_not_null(f, "%s", path);
        char *line = NULL;
        size_t cap = 0;
        ssize_t len;
        while ((len = getline(&line, &cap, f)) > 0) {
            if (!strstr(line, "SparkListenerTaskEnd")) continue;
            task_ends++;
            with_acc += same(line, (size_t)len) & 1;
            for (ssize_t cut = len - 1; cut > 0; cut -= 37) same(line, (size_t)cut);   /* cut lines too */
        }
        free(line);
        fclose(f);
    }
    cr_assert_gt(task_ends, 50);
    cr_assert_gt(with_acc, 0);
}
